"""Policy tables learned under each rule set, and the table of the rules in force as the default opponent."""

import json
import os

import numpy as np
import pytest
from helpers import random_hands

import cpoker
from cpoker import OptionError, Rules
from cpoker.cli import main
from cpoker.strategies.policy import PolicyTables, RowModel, arrange_by_tables, default_tables, resolve_tables
from cpoker.jobs.selfplay import build_tables
from cpoker.game.rules import PRESETS
from cpoker.strategies.strategy import arrange_keys, resolve_strategy
from cpoker.game.lookup_tables import strength_keys

HAND = "Ah Jh Ts 9h 7h 7d 7c 6h 6d 6c 5c 4d 2s"
HOUSE = 'scoring = "2-4"\n[royalties]\nback = { "straight flush" = 5 }\nfront = { "three of a kind" = 2 }\n'


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_ships_tables_learned_under_its_rules(name):
    tables = default_tables(name)
    assert tables.rules == PRESETS[name] and tables.rules.name == name
    assert tables.hands == 100_000 and tables.iterations >= 10 and not tables.partial
    assert np.allclose(tables.distribution.sum(axis=1), 1.0)
    assert (np.diff(tables.model.arrays[1], axis=1) >= 0).all()
    assert default_tables(PRESETS[name]) is tables  # loaded once


def test_preset_tables_differ_and_play_differently():
    hands = random_hands(2000, 8)
    chosen = {name: arrange_by_tables(hands, default_tables(name))[0] for name in PRESETS}
    for name in ("1-6", "2-4", "seed001-royalties"):
        assert not np.array_equal(default_tables(name).distribution, default_tables("pagat").distribution)
        differ = np.mean(chosen[name] != chosen["pagat"])
        assert 0.01 < differ < 0.6, (name, differ)


def test_house_rules_value_the_same_scoring_presets_distribution(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text(HOUSE)
    tables = default_tables(str(path))
    assert tables.rules == Rules.from_toml(path)
    assert np.array_equal(tables.distribution, default_tables("2-4").distribution)
    expected = RowModel.from_distribution(default_tables("2-4").distribution, Rules.from_toml(path))
    assert np.array_equal(tables.model.arrays, expected.arrays) and tables.model.majority == 1.0
    assert default_tables(str(path)) is tables  # valued once, not at every block of a long job


def test_tables_files_keep_their_rules_and_pagat_files_keep_their_format(tmp_path):
    tables = build_tables(hands=300, seed=4, max_iterations=2, rules="seed001-royalties", removal_deals=300,
                          removal_rounds=1)
    assert tables.rules == PRESETS["seed001-royalties"]
    tables.save(tmp_path / "r.npz")
    loaded = PolicyTables.load(tmp_path / "r.npz")
    assert loaded.rules == tables.rules and np.array_equal(loaded.model.arrays, tables.model.arrays)
    pagat = build_tables(hands=300, seed=4, max_iterations=2, removal_deals=300, removal_rounds=1)
    with np.load(__import__("io").BytesIO(pagat.to_bytes())) as data:
        assert "rules" not in json.loads(str(data["meta"]))  # byte for byte what earlier versions wrote
    # the same sample and seed under other rules learn other tables
    assert not np.array_equal(tables.distribution, pagat.distribution)


def test_the_rules_in_force_choose_the_default_opponent_tables():
    assert resolve_tables(None, "2-4") is default_tables("2-4")
    for name in PRESETS:
        solution = cpoker.solve(HAND, rules=name, method="table")
        assert solution.best == cpoker.table(HAND, rules=name)
    # and the Monte Carlo solver's opponents are arranged by them: the same as passing them explicitly
    implicit = cpoker.solve(HAND, rules="2-4", samples=300, seed=3)
    explicit = cpoker.solve(HAND, rules="2-4", samples=300, seed=3, tables=default_tables("2-4"))
    other = cpoker.solve(HAND, rules="2-4", samples=300, seed=3, tables=default_tables("pagat"))
    evs = [[s.ev, *(a.ev for a in s.alternatives)] for s in (implicit, explicit, other)]
    assert evs[0] == evs[1] and evs[0] != evs[2]  # (candidates by candidate: one EV may agree by chance)


def test_table_at_rules_strategies():
    name, policy = resolve_strategy("table@pagat")
    assert name == "table@pagat" and policy.tables is default_tables("pagat")
    hands = random_hands(50, 9)
    assert np.array_equal(arrange_keys("table@2-4", hands),
                          strength_keys()[arrange_by_tables(hands, default_tables("2-4"))[1]])
    assert np.array_equal(arrange_keys("table", hands, rules="2-4"),
                          arrange_keys("table", hands, tables=resolve_tables(None, "2-4")))
    with pytest.raises(cpoker.RulesError, match="unknown rules"):
        resolve_strategy("table@nonsense")
    with pytest.raises(OptionError, match="cannot read tables file"):
        resolve_strategy("table@missing.npz")
    result = cpoker.match(["table", "table@pagat"], rules="2-4", deals=200, seed=1)
    assert result.strategies == ("table", "table@pagat")


def test_cli_builds_and_shows_tables_under_rules(capsys, tmp_path):
    target = tmp_path / "t.npz"
    assert main(["tables", "build", "--rules", "2-4", "--hands", "200", "--max-iterations", "2", "--quiet",
                 "--removal-deals", "300", "--removal-rounds", "1", "--out", str(target), "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["rules"]["name"] == "2-4" and not built["identical_to_shipped"]
    assert main(["tables", "info", str(target), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"]["name"] == "2-4"
    assert main(["tables", "info", "--rules", "1-6"]) == 0
    assert "rules 1-6: self-play on 100000 hands" in capsys.readouterr().out
    house = tmp_path / "house.toml"
    house.write_text(HOUSE)
    assert main(["tables", "info", "--rules", str(house)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no tables are shipped" in err
    assert main(["tables", "build", "--rules", "nonsense", "--hands", "10", "--out", str(target)]) == 2
    assert "unknown rules" in capsys.readouterr().err


# the preset whose shipped tables every test run rebuilds: the default game, the plain sum of row values.  The
# others' rebuilds (a scoring bonus: 1-6, 2-4's majority, seed001's scoop with royalties and naturals; 70, 89 and 49 s
# on 2 cores on a fast day, 2-3 times that on a slow one) run with CPOKER_TEST_EVERY_REBUILD=1
# (the release check, README "Development"); smaller builds under each preset are tested in every run
REBUILT_EVERY_RUN = ("pagat",)
EVERY_REBUILD = os.environ.get("CPOKER_TEST_EVERY_REBUILD") == "1"


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    name if name in REBUILT_EVERY_RUN or EVERY_REBUILD else pytest.param(name, marks=pytest.mark.skip(
        reason=f"rebuilding the {name} tables takes minutes: run with CPOKER_TEST_EVERY_REBUILD=1"))
    for name in PRESETS])
def test_shipped_tables_are_rebuilt_byte_for_byte_by_their_command(tmp_path, name):
    """``cpoker tables build --rules NAME`` with its defaults writes the shipped file again (23-89 s on 2 cores)."""
    import subprocess
    import sys

    out = tmp_path / "rebuilt.npz"
    result = subprocess.run([sys.executable, "-m", "cpoker", "tables", "build", "--rules", name, "--out", str(out),
                             "--quiet", "--json"], capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["identical_to_shipped"], report["sha256"]
