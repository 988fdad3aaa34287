"""The open-face game's rules and scoring (RULES.md §4): royalty tables by enumeration, worked examples, Fantasyland,
house rules, and the settlement against an independent reference (zero-sum, hypothesis)."""

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import compare, strength_of_ids

from cpoker import ArrangementError, CardError, OptionError, RulesError, ofc
from cpoker.game.arrangements import arrangement_of_split


def front_royalty(cards: tuple, rules) -> int:
    """A front's royalty as the library scores it (the kernels', the rules' table)."""
    from cpoker._kernels.evaluate import key3
    from cpoker._kernels.ofc_board import FRONT_PAIRS, FRONT_TRIPS, MIDDLE, front_royalty as kernel_front_royalty

    table = rules.kernel_rules()
    mask = sum(1 << int(card) for card in cards)
    return int(kernel_front_royalty(key3(mask), table[FRONT_PAIRS:FRONT_TRIPS], table[FRONT_TRIPS:MIDDLE]))

A = "Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks"  # QQ 7, middle flush 8, back full house 6: 21
B = "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"  # JJ 6, two pair, full house 6: 12


def test_every_front_has_the_standard_royalty():
    """All 455 front strengths, by rank multiset: 66 = 1 ... AA = 9, 222 = 10 ... AAA = 22, nothing else."""
    seen = 0
    for ranks in itertools.combinations_with_replacement(range(13), 3):
        cards = [13 * suit + rank for suit, rank in zip((0, 1, 2), ranks)]  # three suits: never a flush to count
        counts = {r: ranks.count(r) for r in ranks}
        top = max(counts, key=lambda r: (counts[r], r))
        expected = (10 + top if counts[top] == 3 else top - 3 if counts[top] == 2 and top >= 4 else 0)
        assert front_royalty(tuple(cards), ofc.OfcRules()) == expected, ranks
        seen += 1
    assert seen == 455


@pytest.mark.parametrize("middle, back, units", [
    ("5s 6s 7s 8s Ts", "Ah Ad Ac Kd Ks", (8, 6)),                 # flush, full house
    ("2s 3s 4s 5s 6s", "Ah Kh Qh Jh Th", (30, 25)),               # straight flush, royal flush
    ("9c 9d 9h 5s 6d", "Ah Ad Ac As Ks", (2, 10)),                # trips, four of a kind
    ("4c 5d 6h 7s 8d", "9c Td Jh Qs Kd", (4, 2)),                 # straight, straight
    ("Ts Jd Qh Ks Ad", "7h 7d 7c 7s 2s", (4, 10)),                # straight, four of a kind
    ("3c 3d 4h 4s 8d", "Js Jd 5c 5h 9c", (0, 0)),                 # two pair, two pair
    ("Tc Td Th 6s 6d", "2c 3c 4c 5c 6c", (12, 15)),               # full house, straight flush
    ("Ac Kc Qc Jc Tc", "As Ks Qs Js Ts", (50, 25)),               # royal flushes (a tie)
])
def test_each_middle_and_back_hand_has_its_royalty(middle, back, units):
    cards = {c for row in (middle, back) for c in row.split()}
    front = " ".join([c for c in ("2h", "3d", "4s", "2d", "3h", "5h", "6c") if c not in cards][:3])
    score = ofc.score_board(f"{front} / {middle} / {back}")
    assert not score.fouled and score.royalties[1:] == units


def test_a_foul_earns_nothing_pays_six_and_the_others_royalties():
    fouled = "Kh Kc 3d / 2d 5c 7c 9c Jc / 3h 4h 6h 8h Qs"  # front kings over a high-card middle
    assert ofc.score_board(fouled).fouled and ofc.royalties(fouled) == 0
    assert ofc.settle([A, fouled]).results == [6 + 21, -(6 + 21)]
    valid = "Ks Kd 4c / 2s 5s 7s 9s Js / Tc Td Th 8d 8s"  # KK 8, a flush 8, a full house 6
    assert ofc.settle([fouled, valid]).results == [-6 - 22, 6 + 22]
    also = "As Ad 4c / 2s 5s 7s 9s Js / 3c 4d 6d 8d Qc"  # aces over a flush middle over a high-card back: fouls
    assert ofc.settle([fouled, also]).results == [0, 0]


def test_the_worked_example_and_its_parts():
    settled = ofc.settle([A, B], "pineapple")
    # A wins every row (+3) and the scoop (+3), and the royalties' difference, 21 - 12
    assert settled.results == [3 + 3 + 21 - 12, -(3 + 3 + 21 - 12)]
    assert [b.total for b in settled.boards] == [21, 12]
    assert settled.boards[0].fantasyland == 14 and settled.boards[1].fantasyland is None  # QQ enters, JJ not
    assert ofc.settle([A, B], "ofc").boards[0].fantasyland == 13
    assert json.loads(json.dumps(settled.to_dict()))["players"][0]["royalties"] == {"front": 7, "middle": 8,
                                                                                    "back": 6}


@pytest.mark.parametrize("front, progressive, repeat", [
    ("Qh Qd 2c", 14, None), ("Kh Kd 2c", 15, None), ("Ah Ad 2c", 16, None), ("Qh Qd Qc", 17, 14),
    ("Jh Jd 2c", None, None)])
def test_progressive_fantasyland_grows_with_the_front(front, progressive, repeat):
    """Out of Fantasyland the front earns its size; in it, only a board that stays (trips in front here) goes
    back, to the repeat's 14: a pair in front leaves (``None``, not the repeat's size)."""
    rest = "3s 5s 7s 8s Ts / 4h 4d 4c 9d 9c" if "Qc" not in front else "3s 5s 7s 8s Ts / 4h 4d 4c 4s 9c"
    board = f"{front} / {rest.split(' / ')[0]} / {rest.split(' / ')[1]}"
    assert ofc.score_board(board, "progressive").fantasyland == progressive
    assert ofc.score_board(board, "progressive", in_fantasyland=True).fantasyland == repeat


def test_staying_in_fantasyland_follows_each_preset():
    middle_full_house = "2h 3d 4c / 9s 9d 9h 5s 5d / Ah Ad Ac As 6c"
    trips_front = "Qh Qd Qc / 2s 3s 5s 8s Ts / 4h 4d 4c 9d 9c"
    quads_back = "2h 3d 4c / 5s 6s 7s 8s Ts / Jh Jd Jc Js 9c"
    full_house_middle = "2h 3d 4c / 9s 9d 9h 5s 5d / Ah Ad Ac Kh Kd"  # full houses in the middle and back
    assert ofc.score_board(middle_full_house, "ofc").stays
    assert ofc.score_board(trips_front, "pineapple").stays and ofc.score_board(quads_back, "pineapple").stays
    assert ofc.score_board(full_house_middle, "ofc").stays
    assert not ofc.score_board(full_house_middle, "pineapple").stays  # Pineapple: trips in front or quads in back


def test_house_rules_round_trip_and_name_the_bad_field(tmp_path):
    for preset in ofc.GAMES:
        rules = ofc.OfcRules.preset(preset)
        assert ofc.OfcRules.from_toml_text(rules.to_toml()) == rules and rules.name == preset
    house = ofc.OfcRules.from_toml_text('game = "pineapple"\nfantasyland = { KK = 14, AA = 14, trips = 14 }\n'
                                        'royalty_multiplier = 2\n[royalties]\nback = { flush = 5 }', "house.toml")
    assert house.name == "house.toml" and dict(house.fantasyland) == {"KK": 14, "AA": 14, "trips": 14}
    assert ofc.score_board(A, house).fantasyland is None  # the house's entry is at KK
    assert ofc.score_board(A, house).royalties == (14, 16, 0)  # doubled; the back's table has no full house
    path = tmp_path / "house.toml"
    path.write_text(house.to_toml())
    assert ofc.settle([A, B], str(path)).rules == house
    cases = {
        'game = "chinese"': "unknown open-face game 'chinese'",
        "scoop = 3": "say which game the house plays",
        'game = "ofc"\ncolour = 1': "unknown field 'colour'",
        'game = "ofc"\nfantasyland = { JJ = 14 }': "fantasyland: unknown front 'JJ'",
        'game = "ofc"\nfantasyland = { QQ = 14, AA = 14, trips = 14 }': "must run up to AA from the smallest",
        'game = "ofc"\nfantasyland = { QQ = 12, KK = 14, AA = 14, trips = 14 }': "fantasyland.QQ must be a whole",
        'game = "ofc"\nstay = ["back flush"]': "stay must list conditions",
        'game = "ofc"\nscoop = -1': "scoop must be a whole number from 0",
        'game = "pineapple"\nfirst_cards = 4': "the 9 cards after the first 4 do not come 2 a round",
        'game = "pineapple"\nround_cards = 13': "deal a player 57 cards, more than the 17 a table deals a seat",
        # one deck cannot deal these to two players (they loaded, then fouled every hand)
        'game = "pineapple"\nround_cards = 4': "round_cards 4 \\(round_places 2\\) deal a player 21 cards",
        'game = "ofc"\nround_cards = 3': "first_cards 5 \\+ 8 rounds of round_cards 3 .* 29 cards",
        'game = "ofc"\n[royalties]\nmiddle = { "five of a kind" = 1 }': "royalties.middle: unknown entry",
        'game = "ofc"\n[royalties]\nfront_pairs = { "1" = 1 }': "royalties.front_pairs: unknown entry '1'",
        'game = "ofc"\nroyalty_multiplier = 0': "royalty_multiplier must be a whole number from 1",
    }
    for text, message in cases.items():
        with pytest.raises(RulesError, match=message) as error:
            ofc.OfcRules.from_toml_text(text, "house.toml")
        assert str(error.value).startswith("house.toml: ") and "\n" not in str(error.value)


@pytest.mark.parametrize("boards, error, message", [
    ([A], OptionError, "2 to 4 players"),
    ([A, B, "2s 3s 4s / 5c 6c 7c 8c 9c / Th Jh Qh Kh Ah", "x / y / z", "a / b / c"], OptionError, "got 5"),
    ([A, "Qh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"], ArrangementError, "card Qh is on the boards of both"),
    ([A, "Jh Jd / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"], ArrangementError, "player 2: the board .* is not complete"),
    ([A, "Jh Jd 3c 5c / 2s 2h 4d 4c / Th Td Tc 9h 9d"], ArrangementError, "the front holds 3 cards, got 4"),
    ([A, "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h"], ArrangementError, "1 in the back to fill"),
    ([A, "Jh Jd 3c / 2s 2h 4d 4c 6d"], ArrangementError, "a board has three rows"),
    ([A, "Jh Jd Jd / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"], ArrangementError, "card Jd is placed twice"),
    ([A, "Jh Jd Zz / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"], CardError, "the front: "),
])
def test_bad_boards_are_refused_naming_the_problem(boards, error, message):
    with pytest.raises(error, match=message):
        ofc.settle(boards)
    with pytest.raises(OptionError, match="has 2 to 3 players"):
        ofc.settle([A, B, "2s 3s 4s / 5c 6c 7c 8c 9c / Th Jh Qh Kh As", "2d 3d 4d / 5h 6h 7h 8h 9h / 2h 3h 4h 5d 6s"],
                   "pineapple")


def _reference(a, b, rules) -> int:
    """Points of full board ``a`` (three rows of ids) against ``b``, from RULES.md §4's words."""
    def fouls(rows):
        strengths = [strength_of_ids(row) for row in rows]
        return compare(strengths[2], strengths[1]) < 0 or compare(strengths[1], strengths[0]) < 0

    def royalty(rows):  # the standard table, by category (naive.strength_of_ids: 0 high card .. 8 straight flush)
        if fouls(rows):
            return 0
        front = sorted((int(c) % 13 for c in rows[0]), key=lambda r: (-[c % 13 for c in rows[0]].count(r), -r))
        count = [int(c) % 13 for c in rows[0]].count(front[0])
        units = {3: 10 + front[0], 2: front[0] - 3 if front[0] >= 4 else 0}.get(count, 0)
        for row, table in ((rows[1], {3: 2, 4: 4, 5: 8, 6: 12, 7: 20, 8: 30}),
                           (rows[2], {4: 2, 5: 4, 6: 6, 7: 10, 8: 15})):
            category = strength_of_ids(row)[0]
            royal = category == 8 and {int(c) % 13 for c in row} == {8, 9, 10, 11, 12}
            units += (50 if table[8] == 30 else 25) if royal else table.get(category, 0)
        return units

    fa, fb = fouls(a), fouls(b)
    if fa and fb:
        return 0
    if fa:
        return -6 - royalty(b)
    if fb:
        return 6 + royalty(a)
    results = [compare(strength_of_ids(x), strength_of_ids(y)) for x, y in zip(a, b)]
    return sum(results) + 3 * ((results.count(1) == 3) - (results.count(-1) == 3)) + royalty(a) - royalty(b)


def _board_text(rows) -> str:
    from cpoker import format_cards

    return " / ".join(format_cards([int(c) for c in row]) for row in rows)


@given(players=st.integers(2, 4), seed=st.integers(0, 10**6), game=st.sampled_from(ofc.GAMES), data=st.data())
@settings(max_examples=60, deadline=None)
def test_settlement_is_zero_sum_and_as_the_reference_says(players, seed, game, data):
    rules = ofc.OfcRules.preset(game)
    players = min(players, rules.max_players)
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random(52))[:13 * players].reshape(players, 13)
    rows = []
    for hand in cards:
        hand = np.sort(hand).astype(np.uint8)
        arrangement = arrangement_of_split(hand, int(rng.integers(72_072)))  # fouls often, as real boards may
        rows.append(tuple(tuple(int(c) for c in row) for row in arrangement.rows))
    settled = ofc.settle([_board_text(r) for r in rows], rules)
    matrix = np.array(settled.matrix)
    assert np.array_equal(matrix, -matrix.T) and sum(settled.results) == 0
    for i in range(players):
        for j in range(players):
            if i != j:
                assert matrix[i, j] == _reference(rows[i], rows[j], rules)


def test_the_ofc_score_command(capsys):
    from cpoker import cli

    assert cli.main(["ofc", "score", "--rules", "pineapple", "--player", A, "--player", B, "--fantasyland", "2",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["results"] == [15, -15] and out["players"][0]["fantasyland"] == 14
    assert out["players"][1]["stays_in_fantasyland"] is False and out["rules"]["name"] == "pineapple"
    assert cli.main(["ofc", "score", "--player", A, "--player", B]) == 0
    text = capsys.readouterr().out
    assert "player 1: +15" in text and "royalties front 7, middle 8, back 6 (total 21)" in text
    assert "Fantasyland next hand: 13 cards" in text
    for argv, message in ((["--player", A, "--player", A], "card Qh is on the boards of both"),
                          (["--player", A, "--player", B, "--fantasyland", "3"], "name a player from 1 to 2"),
                          (["--rules", "pinapple", "--player", A, "--player", B], "unknown open-face rules")):
        assert cli.main(["ofc", "score", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_settle_checks_the_types_of_its_lists():
    for kwargs, words in ((dict(forfeited=[7]), "forfeited names players from 1 to 2, got 7"),
                          (dict(forfeited=[True]), "got True"), (dict(forfeited="1"), "got str"),
                          (dict(in_fantasyland=["no", 0]), "True or False for each player, got 'no'"),
                          (dict(in_fantasyland="no"), "got str"), (dict(in_fantasyland=[2]), "got 2")):
        with pytest.raises(OptionError, match=words):
            ofc.settle([A, B], "pineapple", **kwargs)
    assert ofc.settle([A, B], "pineapple", [np.bool_(True), 0]).boards[0].stays is False


def test_a_player_leaving_fantasyland_is_told_so(capsys):
    """``ofc score --fantasyland 1`` for a board that does not stay: no "Fantasyland next hand" (it said 13 cards
    before), JSON ``fantasyland: null``; a board that stays goes back."""
    from cpoker.cli import main

    assert main(["ofc", "score", "--player", A, "--player", B, "--fantasyland", "1"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert "leaves Fantasyland" in line and "next hand" not in line
    assert main(["ofc", "score", "--player", A, "--player", B, "--fantasyland", "1", "--json"]) == 0
    player = json.loads(capsys.readouterr().out)["players"][0]
    assert player["fantasyland"] is None and player["stays_in_fantasyland"] is False
    staying = "Qh Qd Qc / 5s 6s 7s 8s Ks / Ah Ad Ac Kd Kc"  # trips in front stay
    assert main(["ofc", "score", "--player", staying, "--player", B, "--fantasyland", "1"]) == 0
    assert "Fantasyland next hand: 13 cards; stays in Fantasyland" in capsys.readouterr().out
    assert main(["ofc", "score", "--player", A, "--player", B, "--fantasyland", "1", "--fantasyland", "1"]) == 2
    assert "--fantasyland 1 is given twice" in capsys.readouterr().err


def test_a_fantasyland_of_a_size_the_rules_do_not_deal_is_noted(capsys):
    from cpoker.cli import main

    cards = "As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d 3d".split()
    assert main(["ofc", "fantasy", *cards, "--objective", "royalties"]) == 0
    captured = capsys.readouterr()
    assert "ofc deals a Fantasyland of 13 cards; 15 solved as given" in captured.err
    assert "best Fantasyland board of 15 cards" in captured.out
    assert main(["ofc", "fantasy", *cards[:14], "--rules", "pineapple", "--objective", "royalties"]) == 0
    assert "note" not in capsys.readouterr().err
