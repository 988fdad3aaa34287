"""Rule variants (docs/rules.md "Variants"): scoring methods, royalties, naturals, presets, house-rules files."""

import numpy as np
import pytest

import cpoker
from cpoker import Arrangement, ArrangementError, OptionError, Rules, natural, settle, settle_details
from cpoker._kernels.scoring import pair_parts
from cpoker.game.arrangements import arrangement_of_split
from cpoker.game.naturals import find_naturals
from cpoker.game.rules import PRESETS
from cpoker.game.scoring import pair_breakdown

NO_ROYALTIES = np.zeros((3, 9), dtype=np.int64)
METHOD = {"pagat": 0, "1-6": 1, "2-4": 2}
WIN, TIE, LOSE = (2, 1, 0)  # keys for one row: ours vs theirs = 1


def points(rows, method):
    """Settle rows given as W/T/L letters through the kernel, e.g. ``"WWL"``."""
    ours = [{"W": 2, "T": 1, "L": 0}[r] for r in rows]
    return pair_parts(*ours, 1, 1, 1, METHOD[method], NO_ROYALTIES, True, False)


@pytest.mark.parametrize("rows, pagat, one_six, two_four", [
    ("WWL", 1, 1, 2),      # two wins and a loss
    ("WWW", 3, 6, 4),      # scoop
    ("LLL", -3, -6, -4),
    ("WTT", 1, 1, 1),      # one win, two ties: no bonus anywhere
    ("WWT", 2, 2, 3),      # two wins and a tie: the 2-4 bonus, no scoop
    ("TTT", 0, 0, 0),
    ("LWT", 0, 0, 0),
])
def test_scoring_methods_by_hand(rows, pagat, one_six, two_four):
    for method, expected in (("pagat", pagat), ("1-6", one_six), ("2-4", two_four)):
        assert sum(points(rows, method)) == expected, (rows, method)


A = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
B = "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"
FOUL = "Ks Kh Qd / 4s 4h 8h 5s 2c / 7s 7h 3c Js Jh"
FOUL_TOO = "Qs Qh Ah / 6s 6h 4c 5d 9h / 8d 8c Td Jd Kd"


@pytest.mark.parametrize("preset, a_vs_b, a_vs_foul, double_foul", [
    ("pagat", 1, 3, 0), ("1-6", 1, 6, 0), ("2-4", 2, 4, 0),
])
def test_scoring_methods_on_real_deals(preset, a_vs_b, a_vs_foul, double_foul):
    assert settle([A, B], preset) == [a_vs_b, -a_vs_b]
    assert settle([A, FOUL], preset) == [a_vs_foul, -a_vs_foul]
    assert settle([FOUL, FOUL_TOO], preset) == [double_foul] * 2


def test_royalties_paid_only_to_the_winning_row():
    # middle quads 7s over quads 6s (seed 002/003): only the 7s are paid
    sevens = "2c 3c 4c / 7s 7h 7d 7c 2d / As Ks Qs Js Ts"
    sixes = "2h 3h 4h / 6s 6h 6d 6c 3d / Kh Qh Jh Th 9h"
    rules = Rules(royalties={"middle": {"four of a kind": 8}})
    parts = pair_breakdown(Arrangement.parse(sevens), Arrangement.parse(sixes), rules)
    assert parts["royalties"] == 8 and parts["rows"] == 0 + 1 + 1  # fronts tie, middle and back win
    both_paid = Rules(royalties=cpoker.Royalties.from_mapping({"middle": {"four of a kind": 8}}, require_win=False))
    assert pair_breakdown(Arrangement.parse(sevens), Arrangement.parse(sixes), both_paid)["royalties"] == 0


def test_fouls_earn_no_royalty_and_pay_the_opponents():
    rules = Rules.preset("seed001-royalties")
    back_flush = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"          # royal flush back: 10
    trips_front_foul = "Ks Kh Kd / 4s 4h 8h 5s 2c / 7s 7h 3c Js Jh"    # front trips (3) but fouls
    parts = pair_breakdown(Arrangement.parse(back_flush), Arrangement.parse(trips_front_foul), rules)
    assert parts == {"rows": 3, "scoring_bonus": 3, "royalties": 10, "naturals": 0, "surrender": 0,
                     "total": 16}
    details = settle_details([back_flush, trips_front_foul], rules)
    assert details.royalties.tolist() == [[0, 10], [-10, 0]] and details.results == [16, -16]


def test_default_rules_are_unchanged():
    assert Rules() == PRESETS["pagat"] and Rules().royalties is None and Rules().naturals is None
    assert settle([A, B]) == [1, -1] and settle([A, FOUL]) == [3, -3]
    assert Rules().is_row_additive and not Rules.preset("1-6").is_row_additive


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_deal_is_zero_sum_under_every_preset(preset):
    rng = np.random.default_rng(7)
    for _ in range(30):
        cards = np.argsort(rng.random(52)).reshape(4, 13)
        deal = [arrangement_of_split(np.sort(hand).astype(np.uint8), int(rng.integers(72_072))) for hand in cards]
        details = settle_details(deal, preset)
        for matrix in (details.rows, details.scoring_bonus, details.royalties, details.total):
            assert np.array_equal(matrix, -matrix.T)
        assert sum(details.results) == 0
        assert np.array_equal(details.total, details.rows + details.scoring_bonus + details.royalties)


NATURAL_HANDS = [
    ("dragon", "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s", "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 3s"),
    ("four trips", "As Ad Ah Ks Kd Kh Qs Qd Qh Js Jd Jh 2c", "As Ad Ah Ks Kd Kh Qs Qd Qh Js Jd 2h 2c"),
    ("six pairs", "As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2c", "As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 8d 2c"),
    ("three flushes", "As Ks 9s 5s 2s Qd Jd 8d 7d 3d 6h 4h 3h", "As Ks 9s 5s 2s Qd Jd 8d 7d 3d 6h 4h 3c"),
    ("three straights", "Ad Kh Qs Js Ts 9c 8d 7c 6h 5s 4d 3h 2c", "Ad Kh Qs Js Ts 9c 8d 7c 6h 5s 4d 3h 3c"),
    ("no people", "As Ad Th Td 9s 9c 8h 8c 7d 6s 5c 4h 3d", "As Ad Th Td 9s 9c 8h 8c 7d 6s 5c 4h Jd"),
]


@pytest.mark.parametrize("kind, hand, near_miss", NATURAL_HANDS)
def test_each_natural_is_detected_and_its_near_miss_rejected(kind, hand, near_miss):
    assert kind in [n.kind for n in find_naturals(hand)]
    assert kind not in [n.kind for n in find_naturals(near_miss)]


def test_three_flushes_and_straights_come_with_their_arrangement():
    flushes = next(n for n in find_naturals(NATURAL_HANDS[3][1]) if n.kind == "three flushes")
    assert not flushes.arrangement.is_foul
    assert flushes.arrangement.back_value.category == "flush" and len({c.suit for c in flushes.arrangement.front}) == 1
    straights = next(n for n in find_naturals(NATURAL_HANDS[4][1]) if n.kind == "three straights")
    ranks = sorted(c.rank for c in straights.arrangement.front)
    assert ranks[2] - ranks[0] == 2 or ranks == [0, 1, 12]


def test_naturals_follow_the_rules():
    rules = Rules.preset("seed001-royalties")
    assert natural(NATURAL_HANDS[2][1], rules).payout == 3 and natural(NATURAL_HANDS[1][1], rules).payout == 4
    assert natural(NATURAL_HANDS[5][1], rules) is None  # "no people" is seed 002's, not counted by seed 001
    assert natural(NATURAL_HANDS[0][1]) is not None and natural(NATURAL_HANDS[0][1], "pagat") is None


SIX_PAIRS_HIGH = "As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2c"
SIX_PAIRS_LOW = "Ah Ac Kh Kc Qh Qc Jh Jc Th Tc 8s 8d 2d"
SIX_PAIRS_SAME = "Ah Ac Kh Kc Qh Qc Jh Jc Th Tc 9h 9c 2d"


def test_natural_against_natural():
    rules = Rules.preset("seed001-royalties")
    high, low, same = (natural(h, rules) for h in (SIX_PAIRS_HIGH, SIX_PAIRS_LOW, SIX_PAIRS_SAME))
    assert settle([high, low], rules) == [3, -3]        # the highest pairs win
    assert settle([high, same], rules) == [0, 0]        # equal pairs: a tie, no bonus
    assert settle(["natural: " + SIX_PAIRS_HIGH, "2h 3h 4h / 5c 6c 7c 8c 9c / 3d 4d 5d 6d 7d"], rules) == [3, -3]


def test_stronger_natural_kind_wins():
    rules = Rules.preset("seed001-royalties")
    dragon = natural("As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s", rules)
    pairs = natural("Ah Ac Kh Kc Qs Qc Jh Jd Th Td 9h 9c 2d", rules)
    assert dragon.kind == "dragon" and settle([dragon, pairs], rules) == [9, -9]
    with pytest.raises(ArrangementError, match="do not count the natural 'dragon'"):
        settle([dragon, pairs])


def test_rules_files_round_trip_and_name_bad_fields(tmp_path):
    rules = Rules.preset("seed001-royalties")
    path = tmp_path / "house.toml"
    path.write_text(rules.to_toml())
    assert Rules.from_toml(path) == rules and cpoker.game.rules.resolve_rules(str(path)) == rules
    cases = {
        'scoring = "1-7"': "unknown scoring method '1-7'",
        'colour = "red"': "unknown field 'colour'",
        '[royalties]\nside = { "flush" = 1 }': "unknown row 'side'",
        '[royalties]\nback = { "quints" = 1 }': "royalties.back: unknown category 'quints'",
        '[royalties]\nfront = { "flush" = 1 }': "royalties.front: unknown category 'flush'",
        '[royalties]\nback = { "flush" = -1 }': "royalties.back.flush must be a whole number",
        '[royalties]\nrequire_win = "yes"': "royalties.require_win must be true or false",
        '[naturals]\n"seven pairs" = 3': "naturals: unknown natural 'seven pairs'",
        "scoring = ": "not valid TOML",
    }
    for text, message in cases.items():
        path.write_text(text)
        with pytest.raises(OptionError, match=message) as error:
            Rules.from_toml(path)
        assert str(path) in str(error.value)
    with pytest.raises(OptionError, match="cannot read rules file"):
        Rules.from_toml(tmp_path / "missing.toml")
    with pytest.raises(OptionError, match="unknown rules preset 'house'"):
        Rules.preset("house")


def test_cli_rules_option(capsys, tmp_path):
    from cpoker.cli import main

    assert main(["score", "--rules", "1-6", "--player", A, "--player", FOUL]) == 0
    out = capsys.readouterr()[0]
    assert "player 1: +6" in out and "scoring bonus [3, -3]" in out
    path = tmp_path / "mine.toml"
    path.write_text('scoring = "2-4"\n')
    assert main(["score", "--rules", str(path), "--player", A, "--player", B]) == 0
    assert "player 1: +2" in capsys.readouterr()[0]
    assert main(["score", "--rules", "nope", "--player", A, "--player", B]) == 2
    assert "unknown rules preset 'nope'" in capsys.readouterr()[1]
    assert main(["natural", SIX_PAIRS_HIGH, "--rules", "seed001-royalties"]) == 0
    assert "declare six pairs for 3 per opponent" in capsys.readouterr()[0]


HAND_FOR_VARIANTS = "Ah Jh Ts 9h 7h 7d 7c 6h 6d 6c 5c 4d 2s"


def test_the_solver_chases_royalties_and_scoops_only_when_they_pay():
    pagat = cpoker.solve(HAND_FOR_VARIANTS, samples=1500, seed=7)
    seed001 = cpoker.solve(HAND_FOR_VARIANTS, samples=1500, seed=7, rules="seed001-royalties")
    assert pagat.best.back_value.category == "three of a kind"
    assert seed001.best.back_value.category == "flush"  # the flush royalty (4) and scoop bonus pay for it
    for rules, chosen, other in (("pagat", pagat.best, seed001.best), ("seed001-royalties", seed001.best, pagat.best)):
        a, b = (cpoker.simulate(x, samples=4000, seed=11, rules=rules).ev for x in (chosen, other))
        assert a > b


def test_joint_solver_ev_equals_an_independent_settlement():
    from cpoker.game.arrangements import parse_hand
    from cpoker.jobs.solve import deal_opponents

    rules = Rules.preset("seed001-royalties")
    solution = cpoker.solve(HAND_FOR_VARIANTS, samples=30, seed=2, rules=rules, opponents=2)
    dealt = deal_opponents(parse_hand(HAND_FOR_VARIANTS), 2, 30, 2)
    total = sum(cpoker.game.scoring.pair_points(solution.best, cpoker.table(hand.tolist(), rules=rules), rules)
                for sample in dealt for hand in sample)
    assert solution.ev == pytest.approx(total / 30)


def test_solver_declares_a_natural_worth_more_than_any_arrangement():
    weak_six_pairs = "2s 2h 3s 3h 4s 4h 5d 5c 6d 6c 8s 8h Kd"
    declared = cpoker.solve(weak_six_pairs, samples=300, seed=1, rules="seed001-royalties")
    assert declared.declare_natural and declared.natural.kind == "six pairs"
    assert not cpoker.solve(weak_six_pairs, samples=300, seed=1).declare_natural


def test_simulations_and_matches_honour_the_rules():
    fouled = cpoker.simulate(FOUL, opponents=2, rules="1-6")
    assert fouled.fouled and fouled.ev == -12
    royalties = cpoker.simulate(FOUL, opponents=1, samples=300, seed=1, rules="seed001-royalties")
    assert royalties.fouled and royalties.samples == 300 and royalties.ev < -6  # pays opponents' royalties too
    pagat = cpoker.match(["table", "greedy"], deals=400, seed=3)
    one_six = cpoker.match(["table", "greedy"], deals=400, seed=3, rules="1-6")
    assert one_six.scores[0].points != pagat.scores[0].points and np.isclose(sum(x.points for x in one_six.scores), 0)


def test_pusoy_is_the_1_6_preset_by_another_name(capsys):
    """Philippine Pusoy (seed 001): "the classic game with standard 1-6 scoring"."""
    from cpoker import cli
    from cpoker.game.rules import resolve_rules
    from cpoker.strategies.policy import default_tables

    assert resolve_rules("pusoy") is PRESETS["1-6"] is Rules.preset("pusoy")
    assert resolve_rules("pusoy").name == "1-6"  # results name the preset itself
    assert default_tables("pusoy") is default_tables("1-6")
    a = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
    b = "3s 4h 6d / 8c 8d 9h Js Qd / 2c 3c 4c 5c 7h"
    assert settle([a, b], "pusoy") == settle([a, b], "1-6") == [6, -6]  # a scoop pays 6
    with pytest.raises(cpoker.RulesError, match=r"pusoy \(= 1-6\)"):
        resolve_rules("pusoi")
    assert cli.main(["score", "--player", a, "--player", b, "--rules", "pusoy", "--json"]) == 0
    assert '"1-6"' in capsys.readouterr().out


def test_both_games_resolve_rules_through_one_base(tmp_path):
    """cpoker.game.rules_base serves the closed game's rules and the open-face game's alike: the default, an
    object, a preset, an alias, a TOML file, and one-line errors for anything else."""
    from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
    from cpoker.system.errors import RulesError
    from cpoker.game.rules import resolve_rules

    house = tmp_path / "house.toml"
    house.write_text('scoring = "1-6"\n')
    ofc_house = tmp_path / "ofc.toml"
    ofc_house.write_text('game = "pineapple"\nscoop = 6\n')
    assert resolve_rules(None).name == "pagat" and resolve_ofc_rules(None).name == "ofc"
    assert resolve_rules("pusoy").name == "1-6" and resolve_rules(str(house)).scoring == "1-6"
    assert resolve_ofc_rules(str(ofc_house)).scoop == 6 and resolve_ofc_rules(OfcRules.preset("pineapple")).scoop == 3
    for resolver, what in ((resolve_rules, "rules"), (resolve_ofc_rules, "open-face rules")):
        with pytest.raises(RulesError, match=f"unknown {what} 'a\\\\x00b'"):
            resolver("a\0b")
        with pytest.raises(RulesError, match=f"{what} are a .*, a preset name or a .toml file, got int"):
            resolver(3)
        with pytest.raises(RulesError, match="not valid TOML"):
            (tmp_path / "bad.toml").write_text("scoring = ")
            resolver(str(tmp_path / "bad.toml"))
