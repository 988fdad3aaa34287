"""The job skeleton (:mod:`cpoker.jobs.job`): options settled once, strategies resolved once, one resume protocol."""

from __future__ import annotations

import numpy as np
import pytest

import cpoker
from cpoker import OptionError, StrategyError
from cpoker.jobs.exploit import BLOCK_HANDS, exploit
from cpoker.jobs.job import Clock
from cpoker.jobs.prepared import prepare_job
from cpoker.jobs.simulate import DEAL_CHUNK, SAMPLE_CHUNK, match, simulate
from cpoker.jobs.solve import MonteCarloStrategy
from cpoker.jobs.tournament import tournament
from cpoker.strategies import strategy as strategy_module
from cpoker.strategies.strategy import Player, TablePolicy, resolve_strategy

ARRANGEMENT = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
PLUGIN = "plugin_strategy:my_greedy"  # tests/support, on the path (tests/conftest.py)


@pytest.fixture
def plugin_loads(monkeypatch):
    """Every ``package.module:function`` strategy the code under test loads."""
    loads: list = []
    load = strategy_module.load_plugin
    monkeypatch.setattr(strategy_module, "load_plugin", lambda name: loads.append(name) or load(name))
    return loads


def test_every_job_resolves_its_strategies_once_whatever_its_blocks(plugin_loads):
    """A plug-in is loaded once for a job of many blocks (it was loaded again at every block)."""
    match([PLUGIN, "greedy"], deals=4 * DEAL_CHUNK, seed=1)
    assert plugin_loads == [PLUGIN]
    tournament([PLUGIN, "greedy", "table"], deals=3 * DEAL_CHUNK, seed=1)
    assert plugin_loads == [PLUGIN] * 2
    simulate(ARRANGEMENT, opponent=PLUGIN, samples=3 * SAMPLE_CHUNK, seed=1)
    assert plugin_loads == [PLUGIN] * 3
    exploit(PLUGIN, hands=2 * BLOCK_HANDS, samples=8, seed=1)
    assert plugin_loads == [PLUGIN] * 4


def test_a_plugin_plays_as_the_greedy_strategy_it_calls():
    """The resolved plug-in is the one played: the same points as the built-in it wraps, its name in the result."""
    mine = match([PLUGIN, "table"], deals=2 * DEAL_CHUNK, seed=5)
    builtin = match(["greedy", "table"], deals=2 * DEAL_CHUNK, seed=5)
    assert mine.strategies == (PLUGIN, "table")
    assert [s.points for s in mine.scores] == [s.points for s in builtin.scores]


def test_prepare_job_resolves_names_into_the_callables_that_play_them():
    job = prepare_job(["table", "table@2-4", "greedy", "mc"], seed=3, rules="1-6")
    assert job.names == ("table", "table@2-4", "greedy", "mc")
    table, other, greedy, solver = job.strategies
    assert isinstance(table, TablePolicy) and table.tables is job.tables and job.tables.rules.name == "1-6"
    assert isinstance(other, TablePolicy) and other.tables.rules.name == "2-4"
    assert greedy is cpoker.greedy
    assert isinstance(solver, MonteCarloStrategy) and solver.rules is job.rules and solver.tables is job.tables
    assert job.seed == 3 and job.backend == "local" and job.checkpoint is None


def test_prepare_job_reports_the_first_bad_option_in_order():
    with pytest.raises(OptionError, match="seed"):
        prepare_job(["nonsense"], seed=-1, backend="nowhere")
    with pytest.raises(StrategyError, match="unknown strategy 'nonsense'"):
        prepare_job(["nonsense"], backend="nowhere")
    with pytest.raises(OptionError, match="backend must be 'local' or 'dask'"):
        prepare_job(["greedy"], backend="nowhere", time_budget=-1)
    with pytest.raises(OptionError, match="time_budget"):
        prepare_job(["greedy"], time_budget=-1, checkpoint="file.json")
    with pytest.raises(OptionError, match="checkpoint must be a function"):
        prepare_job(["greedy"], checkpoint="file.json")


def test_a_job_draws_its_seed_once_and_a_resumed_one_takes_the_saved_seed():
    first = match(["greedy", "table"], deals=DEAL_CHUNK)
    again = match(["greedy", "table"], deals=DEAL_CHUNK)
    assert first.seed != again.seed  # drawn, and recorded
    assert match(["greedy", "table"], deals=2 * DEAL_CHUNK, resume=first).seed == first.seed


def test_mc_is_the_jobs_to_resolve_and_a_player_is_itself():
    with pytest.raises(StrategyError, match="'mc' is the Monte Carlo solver"):
        resolve_strategy("mc")
    player = Player("mine", cpoker.greedy)
    assert resolve_strategy(player) is player


def test_the_clock_counts_the_resumed_seconds_and_this_runs_since_its_restart():
    clock = Clock(earlier=5.0)
    clock.restart()
    assert 5.0 <= clock.seconds() < 60.0


def test_a_review_resolves_its_opponent_once_for_each_rules_its_hands_play(plugin_loads):
    """Hands with rules of their own play the opponent resolved under those rules, once for all of them."""
    from cpoker.jobs.review import review

    hand = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
    hands = [{"arrangement": hand}, {"arrangement": hand, "rules": "2-4"}, {"arrangement": hand, "rules": "2-4"},
             {"arrangement": hand}]
    reviewed = review(hands, opponent=PLUGIN, samples=20, seed=1, jobs=1)
    assert plugin_loads == [PLUGIN, PLUGIN]  # the job's, then the one of the 2-4 hands
    assert [h.rules for h in reviewed.hands] == ["pagat", "2-4", "2-4", "pagat"]


def test_the_seats_of_a_tournament_are_checked_as_a_matchs():
    assert tournament(np.array(["greedy", "table"]), deals=20, seed=1).strategies == ("greedy", "table")
    for strategies, shown in (("table", "one string"), (["table"], "1"), ({"table": 1}, "dict"),
                              (["greedy"] * 17, "17")):
        with pytest.raises(OptionError, match=f"a tournament needs 2 to 16 strategies, got {shown}"):
            tournament(strategies, deals=20)
