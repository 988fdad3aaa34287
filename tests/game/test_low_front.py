"""A front that plays for low (``Rules(front="low-a5" | "low-27")``, seed 001's "2-7 Chinese poker").

The low order of every 3-card front against a slow reference written from docs/rules.md, the worked example of
docs/rules.md computed by hand under each order, the order rule (back >= middle only), the rules' field in TOML
and saved records, and the CLI under house rules with one (the table policy under a low front:
tests/strategies/test_low_front_policy.py; bots: tests/strategies/test_bots.py).  Settlement under every
combination of variants with a low front is in test_variants.py's zero-sum test.
"""

import json
from itertools import combinations

import numpy as np
import pytest
from helpers import LOW_FRONT_EXAMPLE
from naive import card_of_id, low_front_strength

import cpoker
from cpoker import Arrangement, Rules, RulesError, settle, settle_details
from cpoker._kernels.evaluate import FRONT_LOW_27, FRONT_LOW_A5, LOW_FRONT_TOP, key3, low_front_key, mask_of_ids
from cpoker.game.lookup_tables import row_keys

A, B, C = LOW_FRONT_EXAMPLE


@pytest.mark.parametrize("order, ace_low", [(FRONT_LOW_A5, True), (FRONT_LOW_27, False)])
def test_every_front_gets_its_place_in_the_low_order(order, ace_low):
    """All 22,100 fronts: equal low strengths get equal keys, and a better (lower) front a higher key."""
    fronts = list(combinations(range(52), 3))
    keys = np.array([low_front_key(key3(mask_of_ids(np.array(front, dtype=np.uint8))), order) for front in fronts])
    strengths = [low_front_strength([card_of_id(c) for c in front], ace_low) for front in fronts]
    by_strength = {}
    for strength, key in zip(strengths, keys.tolist()):
        assert by_strength.setdefault(strength, key) == key, strength
    ordered = sorted(by_strength)  # worst front first
    assert all(by_strength[a] < by_strength[b] for a, b in zip(ordered, ordered[1:]))
    assert len(ordered) == 455  # every rank multiset of three cards
    assert 0 < keys.min() and keys.max() < LOW_FRONT_TOP < row_keys(5).min()  # below every middle: never fouls


def test_the_ace_is_low_in_low_a5_and_high_in_low_27():
    best = "As 2d 3c"
    assert cpoker.settle([f"{best} / {A.split(' / ', 1)[1]}", C], Rules(front="low-a5"))[0] > \
        cpoker.settle([f"{best} / {A.split(' / ', 1)[1]}", C], Rules(front="low-27"))[0]


@pytest.mark.parametrize("rules, expected", [
    (Rules(), [4, -6, 2]),                 # B fouls (middle sixes below front kings): A and C each scoop B
    (Rules(front="low-a5"), [2, -2, 0]),   # A's A-4-2 is the best front; B plays, and its full house wins
    (Rules(front="low-27"), [0, -2, 2]),   # the ace is high: A's front now loses to C's 6-5-3
])
def test_the_worked_example_of_the_rules_by_hand(rules, expected):
    """docs/rules.md's example, each pair's rows counted by hand (front, middle, back):

    * low-a5: A-B: A (A-4-2 vs kings), A (sevens vs sixes), B (full house vs straight): +1 for A.  A-C: A
      (4-high vs 6-high), C (two pair vs sevens), A (straight vs trips): +1 for A.  B-C: C (no pair vs a pair),
      C (two pair vs sixes), B (full house vs trips): +1 for C.  A +2, B -2, C 0.
    * low-27: A's front is ace-high, the worst front without a pair: A-C's front goes to C, so A-C is +1 for
      C.  A 0, B -2, C +2.
    * high: B fouls and loses every row to A and to C; A-C: A (ace high), C, A: +1 for A.  A +4, B -6, C +2.
    """
    assert settle([A, B, C], rules) == expected
    details = settle_details([A, B, C], rules)
    assert details.entries[1].is_foul == (rules.front == "high")
    assert np.array_equal(details.total, -details.total.T)


def test_only_a_back_weaker_than_the_middle_fouls_a_low_front():
    kings_over_sixes = Arrangement.parse(B)
    assert kings_over_sixes.foul_reason.startswith("middle")
    low = kings_over_sixes.under("low-a5")
    assert not low.is_foul and low.front_order == "low-a5" and kings_over_sixes.front_order == "high"
    assert low.under("low-a5") is low and low.under("high").is_foul
    backwards = Arrangement.parse("2c 3c 7h / 9d 9h Ts Td Tc / 6c 6d 8s 5c 2h").under("low-27")
    assert backwards.foul_reason.startswith("back")
    with pytest.raises(cpoker.ArrangementError, match="front order must be one of high, low-a5, low-27"):
        low.under("low")
    assert settle([backwards, C], Rules(front="low-27")) == [-3, 3]  # a foul still loses every row


def test_the_front_field_round_trips_and_bad_values_name_it():
    rules = Rules(scoring="2-4", front="low-27", surrender=2, royalties={"back": {"flush": 2}})
    text = rules.to_toml()
    assert 'front = "low-27"' in text and Rules.from_toml_text(text) == rules
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    old = {k: v for k, v in Rules.preset("2-4").to_dict().items() if k != "front"}  # a record of 0.5.1
    assert Rules.from_dict(old) is cpoker.game.rules.PRESETS["2-4"]
    assert 'front' not in Rules().to_toml()
    for text, message in (('front = "low"', "front must be one of 'high', 'low-a5', 'low-27', got 'low'"),
                          ("front = 27", "front must be one of"),
                          ('front = "low-a5"\n[royalties]\nfront = { "pair" = 1 }', "takes no front royalties")):
        with pytest.raises(RulesError, match=message) as error:
            Rules.from_toml_text(text, "house.toml")
        assert str(error.value).startswith("house.toml: ") and "\n" not in str(error.value)


LOW = Rules(front="low-a5")
HAND = "As Ad Kc Kd Qs Jh Th 9c 7s 6d 4h 3c 2s"


def test_the_solver_plays_a_low_front_against_greedy_opponents_as_settlement_does():
    """Every split whose back is at least its middle is a candidate; the EVs of the best and of a compared
    arrangement (one that fouls in the high game) on the very samples, against an independent settlement."""
    from cpoker.game.arrangements import parse_hand
    from cpoker.game.lookup_tables import split_tables
    from cpoker.game.scoring import pair_points
    from cpoker.jobs.solve import deal_opponents

    samples, seed = 60, 5
    kings_in_front = Arrangement.parse("Kc Kd 2s / Qs Jh 7s 6d 4h / As Ad Th 9c 3c")
    assert kings_in_front.is_foul
    solution = cpoker.solve(HAND, opponents=2, samples=samples, seed=seed, rules=LOW, opponent="greedy",
                            compare=kings_in_front)
    t = split_tables()
    hand_ids = parse_hand(HAND)
    keys5 = np.array([cpoker.evaluate([int(c) for c in hand_ids[list(row)]]).key for row in t.subsets5])
    assert solution.candidates == int((keys5[t.splits[:, 0]] >= keys5[t.splits[:, 1]]).sum())
    dealt = deal_opponents(hand_ids, 2, samples, seed)
    opponents = [[cpoker.greedy(h.tolist()) for h in sample] for sample in dealt]
    best = [sum(pair_points(solution.best, o, LOW) for o in sample) for sample in opponents]
    mine = [sum(pair_points(kings_in_front, o, LOW) for o in sample) for sample in opponents]
    assert solution.ev == pytest.approx(np.mean(best), abs=1e-12)
    assert solution.compared.ev == pytest.approx(np.mean(mine), abs=1e-12)
    assert not solution.best.is_foul and solution.best.front_order == "low-a5"
    assert solution.ev >= max(a.ev for a in solution.alternatives) and solution.ev_lost >= 0
    assert cpoker.simulate(kings_in_front, rules=LOW, opponent="greedy", samples=200, seed=1).fouled is False


def _high_cards_in_front(hand):
    """A plug-in that fouls in the high game and not under a low front: the strongest back, then the three
    highest of the eight cards left in front."""
    back = cpoker.greedy(hand).back
    rest = sorted((c for c in cpoker.parse_cards(hand) if c not in back), key=lambda c: -(int(c) % 13))
    return Arrangement(rest[:3], rest[3:], back)


def test_matches_under_a_low_front_settle_as_settlement_does():
    from cpoker.game.dealing import deal_seeded

    result = cpoker.match(["greedy", _high_cards_in_front], deals=60, seed=9, rules=LOW)
    expected = 0
    for a, b in deal_seeded(np.arange(52), [[9, 0]], [60], 2):
        a, b = np.sort(a).tolist(), np.sort(b).tolist()
        expected += settle([cpoker.greedy(a), _high_cards_in_front(b)], LOW)[0]
        expected += settle([cpoker.greedy(b), _high_cards_in_front(a)], LOW)[0]
    assert result.scores[0].points == pytest.approx(expected / 120)


def test_the_cli_plays_a_low_front_of_house_rules(tmp_path, capsys):
    house = tmp_path / "low.toml"
    house.write_text(LOW.to_toml())
    from cpoker import cli

    assert cli.main(["score", "--rules", str(house), "--player", A, "--player", B, "--player", C]) == 0
    assert cli.main(["solve", HAND, "--rules", str(house), "--samples", "50", "--seed", "1"]) == 0
    assert cli.main(["solve", HAND, "--rules", str(house), "--method", "table"]) == 0
    assert "front  " in capsys.readouterr().out
    assert cli.main(["solve", HAND, "--rules", str(house), "--opponent", "greedy", "--samples", "50"]) == 0
