import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import random_hands
from naive import settle_pair

from cpoker import ArrangementError, OptionError, Rules, Session, settle, settle_matrix
from cpoker.game.arrangements import arrangement_of_split
from cpoker.game.scoring import places, row_results

A = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
B = "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"
FOUL = "Ks Kh Qd / 4s 4h 8h 5s 2c / 7s 7h 3c Js Jh"  # middle pair of fours below front kings
FOUL_TOO = "Qs Qh Ah / 6s 6h 4c 5d 9h / 8d 8c Td Jd Kd"  # the 13 cards left by A, B and FOUL


def test_worked_example_of_rules_section_06():
    assert settle([A, B]) == [1, -1]
    assert row_results(*(__import__("cpoker").Arrangement.parse(x) for x in (A, B))) == (-1, 1, 1)
    assert settle_matrix([A, B]).tolist() == [[0, 1], [-1, 0]]


def test_fouls_lose_every_row_and_double_fouls_score_zero():
    assert settle([A, FOUL]) == [3, -3]
    assert settle([FOUL, FOUL_TOO]) == [0, 0]
    assert settle([A, FOUL, FOUL_TOO]) == [6, -3, -3]
    assert settle([A, B, FOUL, FOUL_TOO]) == [7, 5, -6, -6]


def random_deal(players: int, seed: int, foul_every: int = 3):
    """A deal of random split choices (some fouling) and the naive view of it."""
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random(52))[: 13 * players].reshape(players, 13)
    deal, naive = [], []
    for hand in cards:
        hand = np.sort(hand).astype(np.uint8)
        arrangement = arrangement_of_split(hand, int(rng.integers(72_072)))
        deal.append(arrangement)
        rows = (arrangement.front, arrangement.middle, arrangement.back)
        naive.append(None if arrangement.is_foul else rows)
    return deal, naive


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_deals_are_zero_sum_and_match_the_reference(players):
    fouls = 0
    for seed in range(40):
        deal, naive = random_deal(players, seed)
        fouls += sum(a is None for a in naive)
        matrix = settle_matrix(deal)
        assert np.array_equal(matrix, -matrix.T)
        expected = [[settle_pair(naive[i], naive[j]) if i != j else 0 for j in range(players)] for i in range(players)]
        assert matrix.tolist() == expected
        assert sum(settle(deal)) == 0 and settle(deal) == matrix.sum(axis=1).tolist()
    assert fouls > 0  # random splits foul often: the foul paths were exercised


@pytest.mark.parametrize("deal, error, message", [
    ([A], OptionError, "2 to 4 players, got 1"),
    ([A, B, A, B, A], OptionError, "2 to 4 players, got 5"),
    ([A, A], ArrangementError, "held by both player 1 and player 2"),
    (A, ArrangementError, "a list of arrangements"),
    ([A, ["2s"]], ArrangementError, "needs 3 rows"),
])
def test_bad_deals_are_rejected(deal, error, message):
    with pytest.raises(error, match=message):
        settle(deal)


def test_rules_default_and_presets():
    assert Rules() == Rules.preset("pagat") and Rules().name == "pagat"
    assert settle([A, B], rules="pagat") == settle([A, B], rules=Rules())
    with pytest.raises(OptionError, match="unknown rules preset"):
        Rules.preset("1-7")
    with pytest.raises(OptionError, match="unknown scoring"):
        Rules(scoring="bogus")


def test_places_share_ties():
    assert places([3, 3, 1, 0]) == [1, 1, 3, 4]
    assert places([0, 5, 5, -10]) == [3, 1, 1, 4]
    assert places([2, 2, 2, 2]) == [1, 1, 1, 1]


def test_session_ledger_dealer_and_standings():
    session = Session(players=3, deals=8, first_dealer=2)
    hands = random_hands(8, 4, size=39)
    dealers = []
    for deal_number in range(8):
        dealers.append(session.dealer)
        cards = hands[deal_number]
        deal = [arrangement_of_split(np.sort(cards[13 * p:13 * p + 13]), 71_000 - p) for p in range(3)]
        record = session.play(deal)
        assert record.number == deal_number + 1 and sum(record.results) == 0
    assert dealers == [2, 0, 1, 2, 0, 1, 2, 0]
    assert session.is_over and sum(session.ledger) == 0
    assert session.ledger == [sum(r.results[p] for r in session.history) for p in range(3)]
    standings = session.standings()
    assert [p for _, p, _ in standings] == sorted(range(3), key=lambda p: (-session.ledger[p], p))
    assert [place for place, _, _ in standings] == sorted(places(session.ledger))
    with pytest.raises(ArrangementError, match="session is over"):
        session.play(deal)


def test_session_ties_share_first_place():
    session = Session(players=4, deals=1)
    session.play(["As Ad Ah / 2h 3s 4h 6h 7s / Qs Qh Qd Qc Ks",      # foul
                  "Kh Kd Kc / 2c 3d 4c 6c 7d / 8h 8c Jh Jc Ac",      # foul
                  "2s 3h 4s / 5s 5h 6s 7h 8s / 9s 9h Ts Th Js",      # ties player 4 on every row
                  "2d 3c 4d / 5d 5c 6d 7c 8d / 9d 9c Td Tc Jd"])
    assert session.ledger == [-6, -6, 6, 6]
    assert session.standings() == [(1, 2, 6), (1, 3, 6), (3, 0, -6), (3, 1, -6)]


@pytest.mark.parametrize("kwargs, message", [
    ({"players": 1}, "2 to 4 players"), ({"deals": 0}, "deals must be 1 to"), ({"first_dealer": 4}, "first_dealer"),
])
def test_bad_sessions_are_rejected(kwargs, message):
    with pytest.raises(OptionError, match=message):
        Session(**kwargs)


def test_session_needs_one_arrangement_per_player():
    with pytest.raises(ArrangementError, match="3 players, got 2"):
        Session(players=3).play([A, B])


# --- stakes between pairs (seed 003) -----------------------------------------------------------------------------

C = "4s 5s 6h / 8c 8d Js Qh Kd / Jh Jd Qs Qd 7s"


def test_stakes_between_pairs_by_hand():
    """Players 1 and 2 play for 10 a unit, every other pair for 1: each pair's unit result times its stake."""
    unit = settle_matrix([A, B, C]).tolist()
    # by hand from the rows: P1 v P2 front 22 < 33 (loss), middle 77 > 66 (win), back flush > 99 (win): +1;
    # P1 v P3 front 22 > 6-high (win), middle 77 < 88 (loss), back flush > JJQQ (win): +1;
    # P2 v P3 front 33 > 6-high (win), middle 66 < 88 (loss), back 99TT < QQJJ (loss): -1
    assert unit == [[0, 1, 1], [-1, 0, -1], [-1, 1, 0]]
    stakes = [[1, 10, 1], [10, 1, 1], [1, 1, 1]]
    assert settle_matrix([A, B, C], stakes=stakes).tolist() == [[0, 10, 1], [-10, 0, -1], [-1, 1, 0]]
    assert settle([A, B, C], stakes=stakes) == [11, -11, 0]
    assert settle([A, B, C], stakes=[[7, 1, 1], [1, 7, 1], [1, 1, 7]]) == settle([A, B, C])  # the diagonal unread


@given(players=st.integers(2, 4), seed=st.integers(0, 10**6), data=st.data())
@settings(max_examples=40, deadline=None)
def test_every_part_scales_by_its_pairs_stake_and_the_deal_stays_zero_sum(players, seed, data):
    from cpoker.game.scoring import settle_details

    deal, _ = random_deal(players, seed % 1000)
    rules = data.draw(st.sampled_from(["pagat", "1-6", "2-4", "seed001-royalties"]))
    units = [[1] * players for _ in range(players)]
    for i in range(players):
        for j in range(i + 1, players):
            units[i][j] = units[j][i] = data.draw(st.integers(1, 10**6))
    plain, staked = settle_details(deal, rules, misset="foul"), settle_details(deal, rules, misset="foul",
                                                                               stakes=units)
    for part in ("rows", "scoring_bonus", "royalties", "naturals", "total"):
        assert np.array_equal(getattr(staked, part), getattr(plain, part) * np.array(units))
        assert np.array_equal(getattr(staked, part), -getattr(staked, part).T)
    assert sum(staked.results) == 0


@pytest.mark.parametrize("stakes, message", [
    ([[1, 2], [2, 1], [1, 1]], "2x2 matrix"),
    ([[1, 0], [0, 1]], "players 1 and 2 must be a whole number of units from 1 to 1,000,000, got 0"),
    ([[1, 2.5], [2.5, 1]], "got 2.5"),
    ([[1, True], [True, 1]], "got True"),
    ([[1, 10**7], [10**7, 1]], "got 10000000"),
    ([[1, 2], [3, 1]], "given as 2 and 3: stakes must be symmetric"),
    ("10", "2x2 matrix"),
    (10, "matrix of units per pair, got int"),
])
def test_bad_stakes_are_refused_naming_the_pair(stakes, message):
    with pytest.raises(OptionError, match=message.replace("(", r"\(")):
        settle([A, B], stakes=stakes)


def test_a_session_plays_every_deal_at_its_pairs_stakes():
    session = Session(players=3, deals=2, stakes=[[1, 10, 1], [10, 1, 1], [1, 1, 1]])
    session.play([A, B, C])
    assert session.ledger == [11, -11, 0]
    with pytest.raises(OptionError, match="symmetric"):
        Session(players=2, stakes=[[1, 2], [3, 1]])


def test_the_score_command_takes_stakes_as_pairs(capsys):
    import json

    from cpoker import cli

    assert cli.main(["score", "--player", A, "--player", B, "--player", C, "--stakes", "1-2=10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["result"] for p in out["players"]] == [11, -11, 0]
    assert out["stakes"] == [[1, 10, 1], [10, 1, 1], [1, 1, 1]]
    for bad, message in (("1-2", "PLAYER-PLAYER=UNITS"), ("1-4=3", "two different players from 1 to 3"),
                         ("2-2=3", "two different players"), ("1-2=0", "from 1 to 1,000,000, got 0")):
        assert cli.main(["score", "--player", A, "--player", B, "--player", C, "--stakes", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
