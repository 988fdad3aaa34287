"""Every bad input the reliability report listed ends in a clear cpoker error, never a traceback.

CLI: one line on standard error and status 2.  Library: a ``CpokerError``
subclass (all are ``ValueError``) whose message names the problem.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import cpoker
from cpoker import ArrangementError, CardError, OptionError, RulesError, StrategyError
from cpoker.cli import main

HAND = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"
A = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
B = "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"


def cli(capsys, *argv) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as stop:  # argparse's own errors exit from parsing
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def assert_clean_error(capsys, argv, message):
    status, out, err = cli(capsys, *argv)
    assert status == 2, (status, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err and message in err, err


@pytest.fixture
def files(tmp_path) -> Path:
    (tmp_path / "latin1.toml").write_bytes('scoring = "pagat"\n# caf\xe9\n'.encode("latin-1"))
    (tmp_path / "binary.toml").write_bytes(bytes(range(256)))
    (tmp_path / "huge_float.toml").write_text('[naturals]\n"dragon" = 1e30\n')
    (tmp_path / "huge_int.toml").write_text('[royalties]\nback = { "flush" = 4611686018427387904 }\n')
    (tmp_path / "digits.toml").write_text('[naturals]\n"dragon" = ' + "9" * 5000 + "\n")
    (tmp_path / "ints.json").write_text("[1, 2]")
    (tmp_path / "nulls.json").write_text("[null, null]")
    (tmp_path / "rows.json").write_text(json.dumps({"players": [{"front": 1, "middle": 2, "back": 3}, A]}))
    (tmp_path / "nested.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "digits.json").write_text("[" + "7" * 5000 + "]")
    (tmp_path / "latin1.json").write_bytes(json.dumps([A, B]).encode() + b"\xe9")
    return tmp_path


@pytest.mark.parametrize("argv, message", [
    (["eval", "As Ks Qs Js T\u0416"], "unknown character '\u0416' (U+0416 CYRILLIC CAPITAL LETTER ZHE)"),
    (["solve", HAND, "--seed", "-1"], "--seed: must be 0 to"),
    (["simulate", A, "--seed", "-1"], "--seed: must be 0 to"),
    (["match", "table", "greedy", "--seed", "-1"], "--seed: must be 0 to"),
    (["deal", "--seed", "-1"], "--seed: must be 0 to"),
    (["tables", "build", "--seed", "-1"], "--seed: must be 0 to"),
    (["solve", HAND, "--samples", "9" * 5000], "--samples: expected a whole number"),
    (["solve", HAND, "--samples", str(10**12)], "--samples: must be 1 to 1,000,000,000"),
    (["match", "table", "greedy", "--deals", str(10**12)], "--deals: must be 1 to 10,000,000,000"),
    (["match", "table", "greedy", "--sessions", str(10**12)], "--sessions: must be 0 to 1,000,000,000"),
    (["tables", "build", "--hands", str(10**12)], "--hands: must be 1 to 100,000,000"),
    (["tables", "build", "--tolerance", "nan"], "--tolerance: expected a number from 0 to 1"),
    (["tables", "build", "--tolerance", "-1"], "--tolerance: expected a number from 0 to 1"),
    (["tables", "build", "--tolerance", "inf"], "--tolerance: expected a number from 0 to 1"),
    (["solve", HAND, "--opponent", ":x"], "give package.module:function"),
    (["solve", HAND, "--opponent", ".x:y"], "give package.module:function"),
    (["solve", HAND, "--opponent", "math:sqrt", "--samples", "5"], "strategy 'math:sqrt' failed on hand"),
    (["solve", HAND, "--opponent", "os:getcwd", "--samples", "5"], "strategy 'os:getcwd' failed on hand"),
    (["match", "table", "json:dumps", "--deals", "5"], "strategy 'json:dumps' answered"),
    (["simulate", "2s 2h / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"], "wrong count: front has 2 cards"),
    (["simulate", "2s 2h Ad / 7c 7d 9s 5h / Tc Jc Qc Kc Ac"], "wrong count: middle has 4 cards"),
    (["simulate", "2s 2h Ad / 7c 7d 9s 5h 3d 4d / Tc Jc Qc Kc Ac"], "wrong count: middle has 6 cards"),
    (["simulate", "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc"], "wrong count: back has 4 cards"),
    (["simulate", "//"], "wrong count: front has 0 cards"),
    (["simulate", "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ad"], "duplicate card Ad"),
    (["simulate", A, "--tables", "/nonexistent.npz"], "cannot read tables file"),
    (["score", "--player", A, "--player", "2s 3s / 4c 5c 6c 7c 8c / 9c Tc Jc Qc Kc"], "player 2"),
])
def test_cli_rejects_with_one_line(capsys, argv, message):
    assert_clean_error(capsys, argv, message)


@pytest.mark.parametrize("argv, message", [
    (["score", "--player", A, "--player", B, "--rules", "{d}/latin1.toml"], "is not UTF-8 text"),
    (["score", "--player", A, "--player", B, "--rules", "{d}/binary.toml"], "is not UTF-8 text"),
    (["score", "--player", A, "--player", B, "--rules", "{d}/huge_float.toml"], "from 0 to 1,000,000, got 1e+30"),
    (["score", "--player", A, "--player", B, "--rules", "{d}/huge_int.toml"], "from 0 to 1,000,000"),
    (["solve", HAND, "--rules", "{d}/digits.toml"], "cannot be read"),
    (["score", "--file", "{d}/ints.json"], "player 1 must be 'front / middle / back' text"),
    (["score", "--file", "{d}/nulls.json"], "player 1 must be"),
    (["score", "--file", "{d}/rows.json"], "player 1's rows must be three strings"),
    (["score", "--file", "{d}/nested.json"], "cannot be read: maximum recursion depth"),
    (["score", "--file", "{d}/digits.json"], "cannot be read: Exceeds the limit"),
    (["score", "--file", "{d}/latin1.json"], "is not UTF-8 text"),
    (["score", "--file", "{d}"], "it is a directory"),
    (["tables", "build", "--hands", "50", "--out", "{d}/missing/t.npz"], "does not exist"),
    (["tables", "build", "--hands", "50", "--out", "{d}"], "it is a directory"),
    (["tables", "build", "--hands", "50", "--out", "/proc/t.npz"], "cannot write /proc/t.npz"),
    (["simulate", A, "--out", "{d}/missing/r.json"], "does not exist"),
])
def test_cli_rejects_bad_files_with_one_line(capsys, files, argv, message):
    assert_clean_error(capsys, [arg.replace("{d}", str(files)) for arg in argv], message)


def test_unicode_look_alikes_are_normalised():
    kelvin, long_s = "\u212a", "\u017f"
    assert cpoker.parse_cards(f"A{long_s} {kelvin}d") == cpoker.parse_cards("As Kd")
    assert cpoker.evaluate("\uff21\uff53 Ks Qs Js Ts").describe() == "royal flush"  # full-width letters


@pytest.mark.parametrize("call, error, message", [
    (lambda: cpoker.Card(2.7), CardError, "whole number 0..51"),
    (lambda: cpoker.Card(True), CardError, "whole number 0..51"),
    (lambda: cpoker.parse_cards(None), CardError, "cannot read None as cards"),
    (lambda: cpoker.parse_cards(1.5), CardError, "cannot read 1.5 as cards"),
    (lambda: cpoker.parse_cards([1.5]), CardError, "cannot read 1.5 as a card"),
    (lambda: cpoker.parse_cards("A" * 20_000), CardError, "too long"),
    (lambda: cpoker.solve(HAND, seed=1.5), OptionError, "seed must be 0 to"),
    (lambda: cpoker.solve(HAND, seed=-1), OptionError, "seed must be 0 to"),
    (lambda: cpoker.solve(HAND, samples=10**12), OptionError, "samples must be 1 to 1,000,000,000"),
    (lambda: cpoker.solve(HAND, samples=2.0), OptionError, "samples must be"),
    (lambda: cpoker.solve(HAND, method=None), OptionError, "unknown method"),
    (lambda: cpoker.solve(HAND, opponent=42), StrategyError, "a strategy is a name or a callable"),
    (lambda: cpoker.solve(HAND, opponent="math:sqrt", samples=3), StrategyError, "failed on hand"),
    (lambda: cpoker.solve(HAND, opponent=lambda hand: 42, samples=3), StrategyError, "returned int"),
    (lambda: cpoker.solve(HAND, tables=3), OptionError, "tables must be"),
    (lambda: cpoker.simulate(A, seed=True), OptionError, "seed must be"),
    (lambda: cpoker.simulate(["2s 2h Ad", "7c 7d 9s 5h 3d"]), ArrangementError, "3 rows"),
    (lambda: cpoker.simulate(42), ArrangementError, "got 42"),
    (lambda: cpoker.match(["table", "greedy"], deals=10**12), OptionError, "deals must be 1 to"),
    (lambda: cpoker.match(["table", "greedy"], sessions=10**12), OptionError, "sessions must be 0 to"),
    (lambda: cpoker.match(["table", 7]), StrategyError, "a strategy is a name"),
    (lambda: cpoker.build_tables(hands=10**12), OptionError, "hands must be 1 to 100,000,000"),
    (lambda: cpoker.build_tables(hands=10, tolerance=float("nan")), OptionError, "tolerance must be a number"),
    (lambda: cpoker.build_tables(hands=10, seed=-3), OptionError, "seed must be 0 to"),
    (lambda: cpoker.deal(players=3.0), OptionError, "players must be 2 to 4"),
    (lambda: cpoker.deal(seed=-1), OptionError, "seed must be 0 to"),
    (lambda: cpoker.Rules(royalties={"back": {"flush": 2**62}}), RulesError, "from 0 to 1,000,000"),
    (lambda: cpoker.Rules(naturals={"dragon": -1}), RulesError, "from 0 to 1,000,000"),
    (lambda: cpoker.Rules(royalties=[1, 2]), RulesError, "royalties must be"),
    (lambda: cpoker.Rules(scoring=3), RulesError, "unknown scoring method"),
    (lambda: cpoker.Rules.preset(None), RulesError, "unknown rules preset"),
    (lambda: cpoker.settle("not a list"), ArrangementError, "list of arrangements"),
    (lambda: cpoker.settle([A, 3]), ArrangementError, "player 2"),
    (lambda: cpoker.settle([A]), OptionError, "2 to 4 players"),
    (lambda: cpoker.evaluate_batch(np.array([[1, 2, 3, 4, np.nan]])), CardError, "integer array"),
    (lambda: cpoker.evaluate_batch(np.array([[1.0, 2, 3, 4, 5]])), CardError, "integer array"),
    (lambda: cpoker.evaluate_batch(np.array([[1, 2, 3, 4, 52]])), CardError, "0..51; row 0"),
    (lambda: cpoker.evaluate_batch(np.array([[1, 2, 3, 4, 5], [1, 2, 3, 4, 4]])), CardError, "row 1 repeats"),
    (lambda: cpoker.evaluate_batch(np.zeros((2, 4), np.uint8)), CardError, "got shape (2, 4)"),
    (lambda: cpoker.evaluate_batch([[1, 2, 3], [1, 2]]), CardError, "cannot read the batch"),
    (lambda: cpoker.evaluate_batch(np.array([7], np.int64)), CardError, "is not 5 cards"),
    (lambda: cpoker.evaluate_best_batch(np.array([[1, 2, 3, 4, 5, 5, 6]])), CardError, "repeats a card"),
    (lambda: cpoker.evaluate_masks(np.array([7], np.int64), n_cards=4), CardError, "n_cards must be 3 or 5"),
    (lambda: cpoker.Session(players=2.5), OptionError, "players must be 2 to 4"),
    (lambda: cpoker.Session(deals="8"), OptionError, "deals must be 1 to"),
    (lambda: cpoker.Session(players=2, first_dealer=1.5), OptionError, "first_dealer must be 0 to 1"),
    (lambda: cpoker.Card.from_rank_suit(13, 0), CardError, "rank must be a whole number 0..12"),
    (lambda: cpoker.Card.from_rank_suit(0, 4), CardError, "suit must be a whole number 0..3"),
    (lambda: cpoker.PolicyTables(np.ones(3)), OptionError, "tables need a (3, 7917) distribution"),
    (lambda: cpoker.PolicyTables(np.full((3, 7917), 0.5)), OptionError, "summing to 1"),
])
def test_library_errors_are_typed_and_named(call, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_check_false_skips_the_batch_check_for_speed():
    ids = np.array([[0, 1, 2, 3, 4]], dtype=np.uint8)
    assert np.array_equal(cpoker.evaluate_batch(ids, check=False), cpoker.evaluate_batch(ids))


def test_payouts_at_the_bound_cannot_overflow():
    huge = cpoker.Rules("1-6", royalties={"back": {"straight flush": 10**6}, "middle": {"four of a kind": 10**6},
                                          "front": {"three of a kind": 10**6}})
    result = cpoker.simulate("Ks Kh Kd / 7c 7d 7s 7h 3d / Tc Jc Qc Kc Ac", opponents=3, samples=500, seed=1,
                             rules=huge)
    assert result.ev > 0 and result.interval[0] <= result.ev <= result.interval[1]


# --- the paper cuts ---------------------------------------------------------------------------

def test_eval_counts_strength_from_one(capsys):
    status, out, _ = cli(capsys, "eval", "As Ks Qs Js Ts")
    assert status == 0 and "strength 7917 of 7917" in out
    status, out, _ = cli(capsys, "eval", "--json", "3s 2h 4d")  # the weakest front of all
    assert json.loads(out)["strength_rank"] == 1


def test_natural_json_carries_the_payouts_of_the_rules(capsys):
    status, out, _ = cli(capsys, "natural", HAND, "--rules", "seed001-royalties", "--json")
    data = json.loads(out)
    assert status == 0 and data["naturals"][0] == {**data["naturals"][0], "kind": "dragon", "payout": 9}
    assert data["declare"]["payout"] == 9


def test_match_names_each_seat_of_a_repeated_strategy(capsys):
    status, out, _ = cli(capsys, "match", "table", "greedy", "greedy", "--deals", "60", "--seed", "1")
    assert status == 0 and "greedy (seat 2)" in out and "greedy (seat 3)" in out


def test_match_strategies_from_a_numpy_array_or_refused_with_their_count(capsys):
    assert cpoker.match(np.array(["table", "greedy"]), deals=20, seed=1).strategies == ("table", "greedy")
    for strategies, shown in (("table", "one string"), (["table"], "1"), ({"table": 1}, "dict")):
        with pytest.raises(OptionError, match=f"2 to 4 strategies, one per seat, got {shown}"):
            cpoker.match(strategies, deals=20)
    status, _, err = cli(capsys, "match", "table")
    assert status == 2 and err == "cpoker: error: a match needs 2 to 4 strategies, one per seat, got 1\n"


def test_solve_labels_table_values_apart_from_evs(capsys):
    status, out, _ = cli(capsys, "solve", HAND, "--method", "table")
    assert status == 0 and "table value" in out and "not an EV" in out and " EV " not in out.split("\n", 2)[2]
    status, out, _ = cli(capsys, "solve", HAND, "--seed", "1", "--samples", "400", "--json")
    data = json.loads(out)
    low, high = data["interval_95"]
    assert low < data["ev"] < high and data["alternatives"][0]["interval_95"] and not data["partial"]

@pytest.mark.slow  # (a table build and every job on it, 11 s: the full tier)
def test_a_built_table_can_be_used_everywhere(capsys, tmp_path):
    path = tmp_path / "mine.npz"
    status, out, _ = cli(capsys, "tables", "build", "--hands", "300", "--max-iterations", "2",
                         "--removal-deals", "300", "--removal-rounds", "1", "--out", str(path))
    assert status == 0 and path.exists()
    mine = cpoker.PolicyTables.load(path)
    hands = np.sort(np.argsort(np.random.default_rng(3).random((30, 52)), axis=1)[:, :13], axis=1)
    from cpoker.strategies.strategy import arrange_keys

    assert not np.array_equal(arrange_keys("table", hands, tables=mine), arrange_keys("table", hands))
    assert cpoker.table(HAND, tables=path) == cpoker.TablePolicy(mine)(HAND)
    for argv in (["solve", HAND, "--samples", "200", "--seed", "1"], ["simulate", A, "--samples", "300"],
                 ["match", "table", "greedy", "--deals", "100"], ["odds", "--row", "front"]):
        status, _, err = cli(capsys, *argv, "--tables", str(path))
        assert status == 0, err
    status, out, _ = cli(capsys, "tables", "info", str(path), "--json")
    assert json.loads(out)["hands"] == 300
    # the opponents play the other tables (over enough deals that the two results cannot agree by chance)
    with_mine = cpoker.simulate(A, samples=3000, seed=1, tables=path)
    with_shipped = cpoker.simulate(A, samples=3000, seed=1)
    assert with_mine.distribution != with_shipped.distribution
