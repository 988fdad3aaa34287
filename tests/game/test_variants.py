"""The closed-game variants of docs/rules.md "More variants": surrender (seed 003) and rising session stakes (seed 001).

The settlement is checked by hand on worked examples, against an independent slow reference on random deals that
mix arrangements, fouls, declared naturals and surrenders under every combination of the rules' options, and for
zero sum under all of them (hypothesis).
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cpoker
from cpoker import ArrangementError, Rules, RulesError, Session, natural, settle, settle_details
from cpoker.game.arrangements import FRONT_ORDERS, arrangement_of_split
from cpoker.game.naturals import Natural
from cpoker.game.scoring import SURRENDER, Surrendered

A = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
B = "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"
C = "4s 5s 6h / 8c 8d Js Qh Kd / Jh Jd Qs Qd 7s"
FOUL = "Ks Kh Qd / 4s 4h 8h 5s 2c / 7s 7h 3c Jd 9h"  # front kings over a middle pair of fours
SIX_PAIRS = "Ah Ac Kh Kc Qs Qc Jh Jd Th Td 9h 9c 2d"
SURRENDER_3 = Rules(scoring="1-6", surrender=3)


# --- surrender (seed 003) ------------------------------------------------------------------------------------------

def test_a_player_who_surrenders_pays_each_player_who_plays():
    # A against C alone: front 22 beats 6-high, middle 77 loses to 88, back flush beats QQJJ: +1, no scoop
    assert settle([A, C], SURRENDER_3) == [1, -1]
    details = settle_details([A, "surrender", C], SURRENDER_3)
    assert details.results == [1 + 3, -6, -1 + 3]
    assert details.surrender.tolist() == [[0, 3, 0], [-3, 0, -3], [0, 3, 0]]
    assert details.rows.tolist() == [[0, 0, 1], [0, 0, 0], [-1, 0, 0]]
    assert details.surrendered == [False, True, False]
    assert details.entries[1] is SURRENDER


def test_two_surrenders_owe_each_other_nothing_and_a_foul_still_plays():
    assert settle(["surrender", "surrender", A], SURRENDER_3) == [-3, -3, 6]
    assert settle(["surrender", "surrender"], SURRENDER_3) == [0, 0]
    # a fouled hand was shown: it plays, so the surrenderer pays it
    assert settle([FOUL, "surrender"], SURRENDER_3) == [3, -3]
    assert settle([FOUL, SURRENDER, A], SURRENDER_3) == [-6 + 3, -3 - 3, 6 + 3]


def test_a_natural_is_paid_in_full_by_every_opponent_surrendered_or_not():
    rules = Rules(scoring="1-6", naturals={"six pairs": 5}, surrender=2)
    declared = natural(SIX_PAIRS, rules)
    assert settle([declared, "surrender", "2s 3s 4s / 5d 6d 7d 8d Ks / 3c 4c 5c 6c 8c"], rules) == [10, -5 - 2, -5 + 2]
    assert settle([declared, "surrender"], rules) == [5, -5]


def test_surrender_needs_rules_that_allow_it():
    with pytest.raises(ArrangementError, match=r"player 2: the rules \(1-6\) do not allow surrender"):
        settle([A, "surrender"], "1-6")
    assert settle([A, " Surrender "], Rules(surrender=0)) == [0, 0]  # free surrender: a house may allow it


@pytest.mark.parametrize("text, message", [
    ("surrender = -1", "surrender must be a whole number of units from 0 to 1,000,000, got -1"),
    ("surrender = 2.5", "surrender must be a whole number"),
    ('surrender = "3"', "surrender must be a whole number"),
    ("surrender = true", "got True"),
    ("session_stakes = [1, 0, 2]", r"session_stakes\[1\] \(deal 2\) must be a whole number from 1 to 1,000, got 0"),
    ("session_stakes = [1, 1.5]", r"session_stakes\[1\]"),
    ("session_stakes = 2", "session_stakes must be a list of whole numbers"),
    ('session_stakes = "1 2"', "session_stakes must be a list of whole numbers"),
    ("session_stakes = []", "1 to 1,000 deals' stakes, got 0"),
    (f"session_stakes = [{', '.join(['1'] * 1001)}]", "got 1001"),
])
def test_bad_variant_values_are_one_line_errors_naming_the_field(text, message):
    with pytest.raises(RulesError, match=message) as error:
        Rules.from_toml_text(text, "house.toml")
    assert str(error.value).startswith("house.toml: ") and "\n" not in str(error.value)


def test_variants_round_trip_through_toml_and_saved_records():
    rules = Rules(scoring="2-4", royalties={"back": {"flush": 2}}, naturals={"dragon": 13}, surrender=4,
                  session_stakes=(1, 1, 2, 2, 3, 3, 4, 4))
    text = rules.to_toml()
    assert "surrender = 4" in text and "session_stakes = [1, 1, 2, 2, 3, 3, 4, 4]" in text
    assert Rules.from_toml_text(text) == rules
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    # a record written before these fields existed reads as rules without them
    old = {k: v for k, v in Rules.preset("1-6").to_dict().items() if k not in ("surrender", "session_stakes")}
    assert Rules.from_dict(old) is cpoker.game.rules.PRESETS["1-6"]


def test_the_score_command_takes_surrender(tmp_path, capsys):
    from cpoker import cli

    house = tmp_path / "house.toml"
    house.write_text('scoring = "1-6"\nsurrender = 3\n')
    assert cli.main(["score", "--rules", str(house), "--player", A, "--player", "surrender", "--player", C,
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["result"] for p in out["players"]] == [4, -6, 2]
    assert out["players"][1]["surrender"] is True and out["parts"]["surrender"][1] == [-3, 0, -3]
    assert set(out["rows"]) == {"1v3"}  # rows are compared only between players who showed them
    assert cli.main(["score", "--rules", str(house), "--player", A, "--player", "surrender"]) == 0
    assert "surrenders   pays 3 to each opponent who plays" in capsys.readouterr().out
    assert cli.main(["score", "--player", A, "--player", "surrender"]) == 2
    assert "do not allow surrender" in capsys.readouterr().err


def _reference_pair(a, b, rules: Rules) -> int:
    """What ``a`` wins from ``b``, from the rules' words alone (docs/rules.md), for a unit stake.

    Each side is ``("natural", Natural)``, ``("surrender", None)``, ``("foul", None)`` or ``("rows", rows)``.
    """
    (kind_a, a_value), (kind_b, b_value) = a, b
    if kind_a == "natural" and kind_b == "natural":
        outcome = a_value.compare(b_value)
        return (a_value.payout if outcome > 0 else b_value.payout) * outcome if outcome else 0
    if kind_a == "natural":
        return a_value.payout
    if kind_b == "natural":
        return -b_value.payout
    if kind_a == "surrender" and kind_b == "surrender":
        return 0
    if kind_a == "surrender":
        return -rules.surrender
    if kind_b == "surrender":
        return rules.surrender
    rows = sum(_reference_rows(a_value, b_value, rules))  # +1 / -1 a row; a foul loses all three, two fouls tie
    return rows + _reference_bonus(rows, a_value, b_value, rules)


def _row_strengths(rows, rules: Rules) -> list:
    """Each row's naive strength; a front that plays for low (``rules.front``) gets its low strength."""
    from naive import low_front_strength_of_ids, strength_of_ids

    front = strength_of_ids(rows[0]) if rules.front == "high" else \
        low_front_strength_of_ids(rows[0], ace_low=rules.front == "low-a5")
    return [front, strength_of_ids(rows[1]), strength_of_ids(rows[2])]


def _reference_rows(a_rows, b_rows, rules: Rules) -> list:
    """Each row's result of two shown hands (``None``: fouled): a foul loses every row, two fouls tie them."""
    from naive import compare

    if a_rows is None or b_rows is None:
        return [0] * 3 if a_rows is b_rows else [-1 if a_rows is None else 1] * 3
    return [compare(x, y) for x, y in zip(_row_strengths(a_rows, rules), _row_strengths(b_rows, rules))]


def _reference_fouls(rows, rules: Rules) -> bool:
    """Rows out of order, in the words of docs/rules.md §04 (under a low front: the back weaker than the middle)."""
    from naive import strength_of_ids

    front, middle, back = (strength_of_ids(row) for row in rows)
    return back < middle or (rules.front == "high" and middle < front)


def _reference_bonus(rows_total, a_rows, b_rows, rules: Rules) -> int:
    """The scoring bonus and royalties of two shown hands (``None``: fouled), from docs/rules.md."""
    results = _reference_rows(a_rows, b_rows, rules)
    assert sum(results) == rows_total
    wins, losses = results.count(1), results.count(-1)
    bonus = 0
    if rules.scoring == "1-6":
        bonus = 3 * ((wins == 3) - (losses == 3))
    elif rules.scoring == "2-4":
        bonus = (wins >= 2) - (losses >= 2)
    if rules.royalties is None:
        return bonus
    options = rules.royalties
    mine, theirs = _row_royalties(a_rows, options), _row_royalties(b_rows, options)
    for result, earned, paid in zip(results, mine, theirs):
        bonus += earned * (result > 0) - paid * (result < 0) if options.require_win else earned - paid
    return bonus + _dealt(a_rows, options) - _dealt(b_rows, options)


def _row_royalties(rows, options) -> list:
    """Each row's royalty as the words of docs/rules.md pay it (``None``: a foul, which earns none)."""
    if rows is None:
        return [0, 0, 0]
    table = options.to_mapping()
    categories = [cpoker.evaluate(row).category for row in rows]
    units = [0 if options.dealt and category in ("four of a kind", "straight flush")  # paid as dealt instead
             else table.get(name, {}).get(category, 0)
             for name, category in zip(("front", "middle", "back"), categories)]
    if options.one_per_hand:  # only the largest; on a tie the back's, then the middle's
        keep = max((units[2], 2), (units[1], 1), (units[0], 0))[1]
        units = [u if r == keep else 0 for r, u in enumerate(units)]
    return units


def _dealt(rows, options) -> int:
    """The back-row royalty of the best four of a kind or straight flush among a shown hand's cards."""
    if rows is None or not options.dealt:
        return 0
    from collections import Counter

    from naive import card_of_id

    cards = [card_of_id(int(c)) for row in rows for c in row]
    back = options.to_mapping().get("back", {})
    by_suit = {suit: {rank for rank, s in cards if s == suit} for suit in range(4)}
    for ranks in by_suit.values():
        ranks = ranks | ({1} if 14 in ranks else set())  # the ace plays low in the wheel
        if any(all(r + k in ranks for k in range(5)) for r in ranks):
            return back.get("straight flush", 0)
    if 4 in Counter(rank for rank, _ in cards).values():
        return back.get("four of a kind", 0)
    return 0


ROYALTY_TABLE = {"back": {"flush": 4, "straight flush": 10, "four of a kind": 7},
                 "middle": {"full house": 2, "four of a kind": 8}, "front": {"three of a kind": 3, "pair": 1}}
QUADS_HAND = "7s 7h 7d 7c 2s 3s 4s 5s Kd Qd Jd 9h 8h"  # dealt to seat 1 to exercise royalties.dealt
STRAIGHT_FLUSH_HAND = "9h Th Jh Qh Kh 2s 2d 5c 6c 8c 3d 4d Ac"


@given(players=st.integers(2, 4), seed=st.integers(0, 10**6), scoring=st.sampled_from(["pagat", "1-6", "2-4"]),
       royalties=st.sampled_from([None, True, False]), option=st.sampled_from([None, "one_per_hand", "dealt"]),
       naturals=st.booleans(), surrender=st.integers(0, 9), front=st.sampled_from(FRONT_ORDERS), data=st.data())
@settings(max_examples=80, deadline=None)
def test_every_combination_settles_zero_sum_as_the_reference_says(players, seed, scoring, royalties, option,
                                                                   naturals, surrender, front, data):
    table = ROYALTY_TABLE if front == "high" else {row: units for row, units in ROYALTY_TABLE.items() if row != "front"}
    rules = Rules(scoring=scoring, surrender=surrender,
                  royalties=None if royalties is None else cpoker.Royalties.from_mapping(
                      table, require_win=royalties, one_per_hand=option == "one_per_hand",
                      dealt=option == "dealt"),
                  naturals={"six pairs": 3, "dragon": 9} if naturals else None, front=front)
    rng = np.random.default_rng(seed)
    deck = np.argsort(rng.random(52))
    first = data.draw(st.sampled_from(["random", "six pairs", "quads", "straight flush"]), "seat 1's hand")
    if first != "random" and (naturals or first != "six pairs"):
        given_hand = cpoker.parse_cards({"six pairs": SIX_PAIRS, "quads": QUADS_HAND,
                                         "straight flush": STRAIGHT_FLUSH_HAND}[first])
        deck = np.concatenate([given_hand, [c for c in deck if c not in set(given_hand)]])
    entries, reference = [], []
    for seat in range(players):
        hand = np.sort(deck[13 * seat:13 * seat + 13]).astype(np.uint8)
        declared = natural(hand.tolist(), rules) if naturals else None
        choice = data.draw(st.sampled_from(["play", "surrender"] + (["natural"] if declared else [])), f"seat {seat}")
        if choice == "natural":
            entries.append(declared)
            reference.append(("natural", declared))
        elif choice == "surrender":
            entries.append("surrender")
            reference.append(("surrender", None))
        else:  # a random split, or (half the time) a good one: they foul less, so royalties get paid
            split = int(rng.integers(72_072))
            arrangement = arrangement_of_split(hand, split) if data.draw(st.booleans(), f"seat {seat} random") \
                else cpoker.greedy(hand)
            entries.append(arrangement)
            rows = (arrangement.front, arrangement.middle, arrangement.back)
            reference.append(("foul", None) if _reference_fouls(rows, rules) else ("rows", rows))
    stakes = [[1] * players for _ in range(players)]
    for i in range(players):
        for j in range(i + 1, players):
            stakes[i][j] = stakes[j][i] = data.draw(st.integers(1, 5), f"stake {i}-{j}")
    details = settle_details(entries, rules, stakes=stakes)
    for part in ("rows", "scoring_bonus", "royalties", "naturals", "surrender", "total"):
        matrix = getattr(details, part)
        assert np.array_equal(matrix, -matrix.T)
    assert sum(details.results) == 0
    parts_sum = details.rows + details.scoring_bonus + details.royalties + details.naturals + details.surrender
    assert np.array_equal(details.total, parts_sum)
    for i in range(players):
        for j in range(players):
            if i != j:
                a = ("rows", None) if reference[i][0] == "foul" else reference[i]
                b = ("rows", None) if reference[j][0] == "foul" else reference[j]
                assert details.total[i, j] == stakes[i][j] * _reference_pair(a, b, rules), (i, j, entries)
    assert all(isinstance(e, Surrendered) == (r[0] == "surrender") for e, r in zip(details.entries, reference))
    assert all(isinstance(e, Natural) == (r[0] == "natural") for e, r in zip(details.entries, reference))


def test_the_solver_advises_surrender_for_a_hopeless_hand_and_not_a_good_one():
    """Seed 003's surrender at 3 units against three opponents (1-6 scoring): -9 a deal."""
    hopeless = "Kd Qh Jc Ts 8d 6d 6c 5c 4s 4h 3d 3c 2h"
    good = "As Ad Ac Ks Kd Qh Qs Jc Tc 9d 8h 7c 6s"
    for method in ("mc", "table"):
        bad = cpoker.solve(hopeless, opponents=3, samples=1000, seed=1, rules=SURRENDER_3, method=method)
        assert bad.advise_surrender and bad.surrender.surrender_value == -9.0 and bad.ev < -9
        assert bad.surrender.play_ev == bad.ev and bad.surrender.surrender_interval == (-9.0, -9.0)
        fine = cpoker.solve(good, opponents=3, samples=1000, seed=1, rules=SURRENDER_3, method=method)
        assert not fine.advise_surrender and fine.ev > 0
        assert fine.to_dict()["surrender"]["advised"] is False
        if method == "mc":  # the whole interval is below surrendering's value
            assert bad.surrender.play_interval[1] < -9 and bad.surrender.play_interval == bad.interval
        else:  # a table value estimates nothing: no interval
            assert bad.surrender.play_interval is None
    # against one opponent the hand loses about 3.6 a deal: surrendering at 3 pays, at 4 it does not
    assert cpoker.solve(hopeless, opponents=1, samples=1000, seed=1, rules=SURRENDER_3).advise_surrender
    dearer = Rules(scoring="1-6", surrender=4)
    assert not cpoker.solve(hopeless, opponents=1, samples=1000, seed=1, rules=dearer).advise_surrender
    assert cpoker.solve(hopeless, samples=200, seed=1, rules="1-6").surrender is None


def test_the_solve_command_says_surrender(tmp_path, capsys):
    from cpoker import cli

    house = tmp_path / "house.toml"
    house.write_text('scoring = "1-6"\nsurrender = 3\n')
    hopeless = "Kd Qh Jc Ts 8d 6d 6c 5c 4s 4h 3d 3c 2h".split()
    assert cli.main(["solve", *hopeless, "--opponents", "3", "--samples", "500", "--seed", "1",
                     "--rules", str(house)]) == 0
    assert "SURRENDER: surrendering costs -9 per deal (3 to each opponent)" in capsys.readouterr().out
    assert cli.main(["solve", *hopeless, "--opponents", "3", "--samples", "500", "--seed", "1",
                     "--rules", str(house), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["surrender"]["advised"] is True


# --- rising stakes over a session (seed 001) ---------------------------------------------------------------------

def test_each_deal_of_a_session_counts_its_session_stake():
    rules = Rules(session_stakes=(1, 2, 5))
    session = Session(players=3, deals=3, rules=rules, stakes=[[1, 10, 1], [10, 1, 1], [1, 1, 1]])
    unit = settle([A, B, C], stakes=session.stakes)
    assert unit == [11, -11, 0]
    for stake in (1, 2, 5):
        record = session.play([A, B, C])
        assert record.stake == stake and list(record.results) == [stake * x for x in unit]
    assert session.ledger == [8 * 11, -8 * 11, 0] and session.standings()[0] == (1, 0, 88)
    assert [rules.deal_stake(k) for k in range(3)] == [1, 2, 5] and Rules().deal_stake(99) == 1
    with pytest.raises(RulesError, match="session_stakes for 3 deals; there is no deal 4"):
        rules.deal_stake(3)


def test_a_session_longer_than_its_stakes_is_refused():
    with pytest.raises(RulesError, match="session_stakes for 2 deals, fewer than this session's 8"):
        Session(players=2, rules=Rules(session_stakes=[1, 2]))
    assert Session(players=2, deals=2, rules=Rules(session_stakes=[1, 2, 3])).deals == 2


def test_session_stakes_change_no_best_play():
    """A deal's multiplier scales every result alike: the solver's answer is the same with or without it."""
    hand = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 3s"
    plain = cpoker.solve(hand, samples=300, seed=2, rules="1-6")
    rising = cpoker.solve(hand, samples=300, seed=2, rules=Rules(scoring="1-6", session_stakes=(1, 2, 3)))
    assert plain.best == rising.best and plain.ev == rising.ev


# --- surrender at the table: the policy, plug-ins, matches, the Play tab ------------------------------------------

def test_the_policy_surrenders_exactly_when_its_own_estimate_is_below_the_price():
    from cpoker.game.dealing import deal_seeded
    from cpoker.game.scoring import SURRENDER_KEY
    from cpoker.strategies.policy import default_tables
    from cpoker.strategies.strategy import arrange_keys, table_play

    rules = Rules(scoring="1-6", surrender=2)
    tables = default_tables(rules)
    hands = np.sort(deal_seeded(np.arange(52), [[7, 0]], [400], 2).reshape(-1, 13), axis=1).astype(np.uint8)
    keys = arrange_keys("table", hands, rules=rules, may_surrender=True)
    played = arrange_keys("table", hands, rules=rules)  # an opponent model: every hand is played
    assert (played != SURRENDER_KEY).all()
    surrendered = keys[:, 0] == SURRENDER_KEY
    assert 0 < surrendered.sum() < len(hands) // 4
    for hand, out, own in zip(hands, surrendered, played):
        arrangement = cpoker.table(hand, rules=rules)
        dense = [np.array([value.strength_index]) for value in arrangement.values]
        value = tables.model.split_values(*dense, hand)[0]  # the one-hand formula, apart from the batch's
        assert out == (value < -2), (cpoker.format_cards(hand), value)
        assert (table_play(hand, rules=rules) is SURRENDER) == out
        if not out:
            assert tuple(own) == tuple(keys[np.flatnonzero((hands == hand).all(axis=1))[0]])


@pytest.mark.parametrize("preset", ["pagat", "1-6", "2-4", "seed001-royalties"])
def test_the_batch_of_chosen_values_is_the_one_hand_formula_bit_for_bit(preset):
    from cpoker.strategies.policy import arrange_by_tables, default_tables

    model = default_tables(preset).model
    rng = np.random.default_rng(3)
    hands = np.sort(np.stack([rng.permutation(52)[:13] for _ in range(200)]), axis=1).astype(np.uint8)
    strengths = arrange_by_tables(hands, model)[1].astype(np.int64)
    strengths[::3, 2] = rng.integers(0, model.values.shape[1], len(strengths[::3]))  # not only the chosen rows
    batch = model.chosen_values(hands, strengths)
    one = [model.split_values(*(strengths[i, r:r + 1] for r in range(3)), hands[i])[0] for i in range(len(hands))]
    assert batch.tolist() == one


def _surrendering_plugin(hand):
    """A plug-in that gives up every hand without a pair of aces."""
    cards = cpoker.parse_cards(hand)
    return cpoker.table(hand) if sum(c % 13 == 12 for c in cards) >= 2 else "surrender"


def test_matches_count_each_strategys_surrenders_and_settle_them():
    rules = Rules(surrender=1)
    result = cpoker.match([_surrendering_plugin, "greedy"], deals=300, seed=4, rules=rules)
    plugin, greedy = result.scores
    assert greedy.surrender_rate == 0 and 0.6 < plugin.surrender_rate < 0.9
    # every hand played twice, each way round: surrendering one pays 1, unless both seats surrendered
    hands = cpoker.game.dealing.deal_seeded(np.arange(52), [[result.seed, 0]], [300], 2)
    expected = 0
    for a, b in hands:
        mine = [_surrendering_plugin(np.sort(h)) for h in (a, b)]
        theirs = [cpoker.greedy(np.sort(h)) for h in (a, b)]
        expected += settle([mine[0], theirs[1]], rules)[0] + settle([mine[1], theirs[0]], rules)[0]
    assert plugin.points == pytest.approx(expected / 600)
    assert result.to_dict()["scores"][0]["surrender_rate"] == plugin.surrender_rate
    assert np.isnan(cpoker.match(["table", "greedy"], deals=50, seed=1).scores[0].surrender_rate)
    with pytest.raises(cpoker.StrategyError, match="surrendered hand .*, where every hand is played"):
        cpoker.match([_surrendering_plugin, "greedy"], deals=50, seed=4)
    # a tournament's pair is the pair's match, surrenders and all
    standings = cpoker.tournament([_surrendering_plugin, "greedy", "table"], deals=100, seed=4, rules=rules)
    pair = cpoker.match([_surrendering_plugin, "greedy"], deals=100, seed=4, rules=rules)
    assert standings.points[0, 1] == pytest.approx(pair.scores[0].points)


def test_the_match_command_reports_surrender_rates(tmp_path, capsys):
    from cpoker import cli

    house = tmp_path / "house.toml"
    house.write_text('scoring = "1-6"\nsurrender = 2\n')
    assert cli.main(["match", "table", "greedy", "--rules", str(house), "--deals", "2000", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "surrenders" in out.splitlines()[1] and "paying 2 to each player who played" in out
    rates = [line.split()[-1] for line in out.splitlines()[2:4]]
    assert rates[1] == "0.0%" and rates[0] != "0.0%"


def test_a_table_deal_surrendered_is_settled_and_reviewed():
    from cpoker.jobs.review import SurrenderedHand, table_deal
    from cpoker.strategies.strategy import table_play

    rules = Rules(scoring="1-6", surrender=1)
    played = table_deal("surrender", 4, 0, rules=rules, samples=200)
    others = [table_play(hand, rules=rules) for hand in cpoker.deal(4, 0)[1:]]
    assert any(o is SURRENDER for o in others)  # seed 0: an opponent gives up too, and is owed nothing
    assert played.settlement.results == settle(["surrender", *others], rules)
    review = played.reviewed
    assert isinstance(review, SurrenderedHand) and review.ev_played == -3.0
    best = cpoker.solve(cpoker.deal(4, 0)[0], opponents=3, samples=200, seed=0, rules=rules)
    assert review.ev_arrangement == best.ev and review.ev_best == max(best.ev, -3.0)
    data = played.to_dict()["review"]
    assert data["surrendered"] and data["actual"] == played.settlement.results[0]
    assert data["luck"] == data["actual"] + 3 and data["ev_lost"] == pytest.approx(max(best.ev, -3) + 3)
    with pytest.raises(ArrangementError, match="do not allow surrender"):
        table_deal("surrender", 4, 0, samples=200)


# --- royalty options (seed 003) -------------------------------------------------------------------------------------

ONE_PER_HAND = Rules(royalties=cpoker.Royalties.from_mapping(ROYALTY_TABLE, one_per_hand=True))
DEALT = Rules(royalties=cpoker.Royalties.from_mapping(ROYALTY_TABLE, dealt=True))


def test_one_royalty_per_hand_pays_only_the_largest_by_hand():
    # front trips (3), a middle straight and a back flush (4): one royalty per hand pays the flush alone
    trips_and_flush = "Qs Qh Qd / 7d 8s 9h Tc Jd / 2c 5c 7c Kc Ac"
    weaker = "2s 3h 4d / 5s 5h 6c 9d Td / 3c 3s 4h 4s Jh"  # front 4-high, middle 55, back two pair
    every = Rules(royalties=ROYALTY_TABLE)
    assert cpoker.settle_details([trips_and_flush, weaker], every).royalties[0, 1] == 3 + 4
    assert cpoker.settle_details([trips_and_flush, weaker], ONE_PER_HAND).royalties[0, 1] == 4
    # its one royalty must win its row: the flush loses to a full house, so nothing is paid, and the trips' 3 is
    # not paid instead
    full_house = "2s 3h 4d / 5s 5h 6d 9d Td / 3c 3s 3d Jh Js"
    assert cpoker.settle_details([trips_and_flush, full_house], ONE_PER_HAND).royalties.tolist() == [[0, -0], [0, 0]]
    assert cpoker.settle_details([trips_and_flush, full_house], every).royalties[0, 1] == 3  # (and the FH: 0)


def test_a_dealt_four_of_a_kind_is_paid_broken_and_never_twice_by_hand():
    broken = "7s 7h Ad / 7d 7c 9c 9d Ts / Kd Kh Kc 2d 2h"  # the four sevens dealt: two in front, two in the middle
    other = "2s 3h 4d / 5c 5d 6s 8s 8h / Ac As Ah 3c 3d"
    assert not cpoker.Arrangement.parse(broken).is_foul
    # the front's pair of sevens earns its 1 either way; the broken four of a kind, only as dealt: the back's 7
    assert cpoker.settle_details([broken, other], Rules(royalties=ROYALTY_TABLE)).royalties[0, 1] == 1
    assert cpoker.settle_details([broken, other], DEALT).royalties[0, 1] == 1 + 7
    kept = "Qs 9h Ad / 2d 2c 9c 9d Ts / 7d 7h 7c 7s Kh"
    assert cpoker.settle_details([kept, other], DEALT).royalties[0, 1] == 7  # once, not 7 + the row's 7
    # two fours of a kind, in the middle (8 in the table) and in back (7): as dealt, one royalty, the back's 7
    two = "2d 2c Ad / 7d 7h 7c 7s Kh / 9c 9d 9h 9s Th"
    assert cpoker.settle_details([two, other], DEALT).royalties[0, 1] == 1 + 7  # (and the front's pair)
    assert cpoker.settle_details([two, other], Rules(royalties=ROYALTY_TABLE)).royalties[0, 1] == 1 + 8 + 7
    fouled = "Kd Kh Kc / 7d 7c 9c 9d Ts / 7s 7h Ad 2d 2h"
    assert cpoker.Arrangement.parse(fouled).is_foul
    assert cpoker.settle_details([fouled, other], DEALT).royalties[0, 1] == 0  # a foul earns nothing


def test_royalty_options_round_trip_and_refuse_each_other():
    for rules in (ONE_PER_HAND, DEALT):
        assert Rules.from_toml_text(rules.to_toml()) == rules
        assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    assert "one_per_hand = true" in ONE_PER_HAND.to_toml() and "dealt = true" in DEALT.to_toml()
    with pytest.raises(RulesError, match="one_per_hand and royalties.dealt cannot be combined"):
        Rules.from_toml_text("[royalties]\none_per_hand = true\ndealt = true\nback = { flush = 1 }", "house")
    with pytest.raises(RulesError, match="royalties.dealt must be true or false, got 'yes'"):
        Rules.from_toml_text('[royalties]\ndealt = "yes"', "house")


@pytest.mark.parametrize("rules", [ONE_PER_HAND, DEALT], ids=["one_per_hand", "dealt"])
def test_the_solver_settles_the_options_as_settlement_does(rules):
    """The solver's EV of its best and of a compared arrangement (a foul too) on the very samples, against an
    independent settlement of them."""
    from cpoker.game.arrangements import parse_hand
    from cpoker.game.scoring import pair_points
    from cpoker.jobs.solve import deal_opponents

    hand = QUADS_HAND
    samples, seed = 40, 3
    first = cpoker.solve(hand, opponents=2, samples=samples, seed=seed, rules=rules)
    dealt = deal_opponents(parse_hand(hand), 2, samples, seed)
    opponents = [[cpoker.table(h.tolist(), rules=rules) for h in sample] for sample in dealt]
    for compared in (first.alternatives[1].arrangement, cpoker.Arrangement.parse(
            "7s 7h 7d / 2s 3s 4s 5s Kd / 7c Qd Jd 9h 8h")):
        solution = cpoker.solve(hand, opponents=2, samples=samples, seed=seed, rules=rules, compare=compared)
        best = [sum(pair_points(solution.best, o, rules) for o in sample) for sample in opponents]
        mine = [sum(pair_points(compared, o, rules) for o in sample) for sample in opponents]
        assert solution.ev == pytest.approx(np.mean(best), abs=1e-12)
        assert solution.compared.ev == pytest.approx(np.mean(mine), abs=1e-12), compared
        assert solution.ev >= max(a.ev for a in solution.alternatives)


def test_matches_settle_the_options_as_settlement_does():
    from cpoker.game.dealing import deal_seeded

    for rules in (ONE_PER_HAND, DEALT):
        result = cpoker.match(["table", "greedy"], deals=120, seed=9, rules=rules)
        expected = 0
        for a, b in deal_seeded(np.arange(52), [[9, 0]], [120], 2):
            a, b = np.sort(a), np.sort(b)
            expected += settle([cpoker.table(a, rules=rules), cpoker.greedy(b)], rules)[0]
            expected += settle([cpoker.table(b, rules=rules), cpoker.greedy(a)], rules)[0]
        assert result.scores[0].points == pytest.approx(expected / 240)


def test_a_review_says_which_hands_surrendering_would_have_played_better(tmp_path, capsys):
    from cpoker import cli

    hopeless = cpoker.greedy("Kd Qh Jc Ts 8d 6d 6c 5c 4s 4h 3d 3c 2h")
    good = cpoker.greedy("As Ad Ac Ks Kd Qh Qs Jc Tc 9d 8h 7c 6s")
    result = cpoker.review([hopeless, good], rules=SURRENDER_3, opponents=3, samples=400, seed=1)
    bad, fine = result.hands
    solved = cpoker.solve(hopeless.cards, opponents=3, samples=400, seed=bad.seed, rules=SURRENDER_3,
                          compare=hopeless)
    assert bad.should_surrender and bad.ev_best == -9.0 and bad.ev_played == solved.compared.ev
    assert bad.ev_lost == pytest.approx(-9.0 - solved.compared.ev) and bad.ev_lost_stderr == solved.compared.stderr
    assert not fine.should_surrender and result.summary.should_surrender == 1
    assert type(bad).from_dict(json.loads(json.dumps(bad.to_dict()))) == bad
    played = tmp_path / "played.txt"
    played.write_text(f"{hopeless}\n{good}\n")
    house = tmp_path / "house.toml"
    house.write_text('scoring = "1-6"\nsurrender = 3\n')
    assert cli.main(["review", str(played), "--rules", str(house), "--opponents", "3", "--samples", "400",
                     "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "SURRENDER was best" in out and "surrendering was the best play of 1 hands" in out
