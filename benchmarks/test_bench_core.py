"""Throughput of the hot paths on one core, and start-up times of the CLI.

Run: ``pytest benchmarks/ --benchmark-columns=min,median,rounds``; each test
also prints its rate and stores it in the JSON report (``extra_info``).
"""

import os
import subprocess
import sys
import tempfile

import numba
import numpy as np
import pytest
from conftest import random_cards, report_rate

from cpoker import evaluate_batch, evaluate_masks, solve
from cpoker._kernels.subsets import valid_splits
from cpoker.strategies.policy import arrange_by_tables, arrange_greedy, default_tables
from cpoker.jobs.job import numba_threads
from cpoker.game.lookup_tables import split_tables

N_ROWS = 1_000_000
ALL = numba.config.NUMBA_NUM_THREADS


@pytest.fixture(scope="module")
def five():
    return random_cards(N_ROWS, 5, seed=2)


# the batch calls as users make them, the documented default first (checked input, an output cpoker allocates)
CALLS = {"default": {}, "out=": {"out": True}, "check=False": {"check": False},
         "out=, check=False": {"out": True, "check": False}}


def timed_call(evaluate, ids, out: bool = False, check: bool = True):
    """``evaluate(ids)`` as the call named: a preallocated ``out`` is made (and touched) once, outside the timing."""
    evaluate(ids[:10], check=check)
    if not out:
        return lambda: evaluate(ids, check=check)
    keys = np.zeros(len(ids), dtype=np.int32)
    keys.fill(0)
    return lambda: evaluate(ids, check=check, out=keys)


@pytest.mark.parametrize("call", list(CALLS))
def test_evaluate_5_card_ids(benchmark, five, call):
    benchmark.pedantic(timed_call(evaluate_batch, five, **CALLS[call]), rounds=10, warmup_rounds=1)
    report_rate(benchmark, N_ROWS, "5-card evaluations/s")


def test_evaluate_5_card_masks(benchmark, five):
    masks = (np.int64(1) << five.astype(np.int64)).sum(axis=1)
    evaluate_masks(masks[:10])
    benchmark.pedantic(evaluate_masks, args=(masks,), rounds=10, warmup_rounds=1)
    report_rate(benchmark, N_ROWS, "5-card evaluations/s")


def test_evaluate_3_card_ids(benchmark, five):
    three = np.ascontiguousarray(five[:, :3])
    evaluate_batch(three[:10])
    benchmark.pedantic(evaluate_batch, args=(three,), rounds=10, warmup_rounds=1)
    report_rate(benchmark, N_ROWS, "3-card evaluations/s")


def test_enumerate_all_splits(benchmark, hands13):
    t = split_tables()

    def enumerate_hands():
        for hand in hands13[:200]:
            valid_splits(hand, t.subsets5, t.subsets3, t.middles, t.fronts)

    enumerate_hands()
    benchmark.pedantic(enumerate_hands, rounds=5)
    benchmark.extra_info["microseconds per hand"] = benchmark.stats.stats.min / 200 * 1e6
    print(f"\nenumeration: {benchmark.stats.stats.min / 200 * 1e6:.0f} µs per hand")


THREADS = pytest.mark.parametrize("jobs", [1, ALL], ids=["1-core", "all-cores"])


@THREADS
def test_table_policy(benchmark, hands13, jobs):
    values = default_tables()
    arrange_by_tables(hands13[:5], values)
    with numba_threads(jobs):
        benchmark.pedantic(arrange_by_tables, args=(hands13, values), rounds=5)
    report_rate(benchmark, len(hands13), "hands/s")


@THREADS
def test_greedy_policy(benchmark, hands13, jobs):
    arrange_greedy(hands13[:5])
    with numba_threads(jobs):
        benchmark.pedantic(arrange_greedy, args=(hands13,), rounds=5)
    report_rate(benchmark, len(hands13), "hands/s")


@THREADS
@pytest.mark.parametrize("opponents", [1, 3])
def test_mc_solve_default(benchmark, opponents, jobs):
    hand = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"
    solve(hand, samples=20, seed=0)
    with numba_threads(jobs):
        benchmark.pedantic(solve, args=(hand,), kwargs={"opponents": opponents, "samples": 2000, "seed": 1},
                           rounds=5)
    benchmark.extra_info["seconds per solve"] = benchmark.stats.stats.min
    print(f"\n{benchmark.name}: {benchmark.stats.stats.min:.3f} s per solve")


def _run_cli(*args, env=None):
    subprocess.run([sys.executable, "-m", "cpoker", *args], check=True, capture_output=True, env=env)


@pytest.mark.parametrize("command", [["eval", "As Ks Qs Js Ts"], ["solve", "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"]],
                         ids=["eval", "solve"])
@pytest.mark.parametrize("start", ["cold", "warm"])
def test_cli_start_time(benchmark, command, start):
    """Whole-process time of a CLI call: cold = empty numba cache (first run after install)."""
    if start == "warm":
        _run_cli(*command)
        benchmark.pedantic(_run_cli, args=command, rounds=5)
        return

    def cold():
        with tempfile.TemporaryDirectory() as cache:
            _run_cli(*command, env={**os.environ, "NUMBA_CACHE_DIR": cache})

    benchmark.pedantic(cold, rounds=2)


@pytest.mark.parametrize("call", list(CALLS))
def test_evaluate_7_card_best_of(benchmark, call):
    from cpoker import evaluate_best_batch

    seven = random_cards(N_ROWS, 7, seed=4)
    benchmark.pedantic(timed_call(evaluate_best_batch, seven, **CALLS[call]), rounds=10, warmup_rounds=1)
    report_rate(benchmark, N_ROWS, "7-card evaluations/s")
