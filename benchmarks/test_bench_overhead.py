"""The figures of issue 10: batch sizes, the layers around the kernels, rules, start-up.

Run: ``pytest benchmarks/test_bench_overhead.py --benchmark-columns=min,median,rounds``.  Each
test prints its figure and stores it in the JSON report (``extra_info``); the ratios that matter
(a 10M-row call against 1M-row calls, ``table(hand)`` against the batch, a 2-4 solve against a
pagat solve, a process against ``import numba``) are between tests of one run.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest
from conftest import random_cards, report_rate

import cpoker
from cpoker import evaluate_batch, evaluate_best_batch
from cpoker.game.arrangements import parse_hand
from cpoker.strategies.policy import arrange_by_tables, default_tables
from cpoker.jobs.job import numba_threads

BIG = 10_000_000
BLOCK = 1_000_000
HAND = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"


@pytest.fixture(scope="module")
def big_batches():
    return {5: random_cards(BIG, 5, seed=5, sort=False), 7: random_cards(BIG, 7, seed=7, sort=False)}


@pytest.mark.parametrize("width", [5, 7])
@pytest.mark.parametrize("calls", ["1M-row calls, one out", "1M-row calls, each kept", "1M-row calls, each dropped",
                                   "one 10M-row call", "one 10M-row call, out"])
def test_batch_size(benchmark, big_batches, width, calls):
    """The same 10M hands in 1M-row calls or in one call, with and without ``out=``.

    What a call costs besides its work is the output memory: written into an ``out`` used before, or
    fresh from the OS (which zeroes every page on first touch: 1M-row outputs kept, here to the end of
    the test, or one 10M-row output), or recycled by ``malloc`` (1M-row outputs each dropped before the
    next call: a 4 MB block is reused, a 40 MB one never is).
    """
    ids = big_batches[width]
    evaluate = evaluate_batch if width == 5 else evaluate_best_batch
    evaluate(ids[:10])
    out = np.empty(BIG, dtype=np.int32)
    out.fill(0)
    blocks = range(0, BIG, BLOCK)
    kept = []  # every round's outputs stay alive to the end, so each round's are fresh memory, as a user's are
    runs = {
        "1M-row calls, one out": lambda: [evaluate(ids[i:i + BLOCK], check=False, out=out[i:i + BLOCK])
                                          for i in blocks],
        "1M-row calls, each kept": lambda: kept.extend(evaluate(ids[i:i + BLOCK], check=False) for i in blocks),
        "1M-row calls, each dropped": lambda: [evaluate(ids[i:i + BLOCK], check=False).size for i in blocks],
        "one 10M-row call": lambda: evaluate(ids, check=False),
        "one 10M-row call, out": lambda: evaluate(ids, check=False, out=out),
    }
    with numba_threads(1):
        benchmark.pedantic(runs[calls], rounds=5)
    kept.clear()
    report_rate(benchmark, BIG, f"{width}-card evaluations/s")


@pytest.fixture(scope="module")
def hands():
    return [parse_hand(h) for h in random_cards(300, 13, seed=13)]


def _per_hand(benchmark, function, hands, label):
    def run():
        for hand in hands:
            function(hand)

    run()
    with numba_threads(1):
        benchmark.pedantic(run, rounds=5)
    per_hand = benchmark.stats.stats.min / len(hands) * 1e6
    benchmark.extra_info[f"{label} µs per hand"] = per_hand
    print(f"\n{label}: {per_hand:.1f} µs per hand")


@pytest.mark.parametrize("removal", ["card-removal", "full-deck"])
@pytest.mark.parametrize("rules", ["pagat", "1-6", "2-4", "seed001-royalties"])
def test_table_policy_batch_per_hand(benchmark, hands, rules, removal):
    """Each preset's tables: a scoring bonus adds its term to every split searched, and loosens the bounds;
    so does the card-removal correction (``full-deck``: the same tables without it and without the joint model
    of the rows, as self-play plays)."""
    from cpoker.strategies.policy import RowModel

    tables = default_tables(rules)
    model = tables.model if removal == "card-removal" else RowModel.from_distribution(tables.distribution, tables.rules)
    batch = np.array(hands)
    arrange_by_tables(batch[:2], model)
    with numba_threads(1):
        benchmark.pedantic(arrange_by_tables, args=(batch, model), rounds=5)
    per_hand = benchmark.stats.stats.min / len(hands) * 1e6
    benchmark.extra_info["table policy batch µs per hand"] = per_hand
    print(f"\ntable policy ({rules}, {removal}), batch: {per_hand:.1f} µs per hand")


def test_table_one_hand(benchmark, hands):
    _per_hand(benchmark, cpoker.table, hands, "cpoker.table(hand)")


def test_arrangements(benchmark, hands):
    _per_hand(benchmark, cpoker.arrangements, hands[:100], "cpoker.arrangements(hand)")


def test_arrangements_kernel(benchmark, hands):
    from cpoker._kernels.subsets import arrangement_arrays
    from cpoker.game.lookup_tables import split_tables

    t = split_tables()
    _per_hand(benchmark, lambda hand: arrangement_arrays(hand, t.subsets5, t.subsets3, t.middles, t.fronts),
              hands[:100], "arrangements kernel")


def test_solve_table_method(benchmark, hands):
    _per_hand(benchmark, lambda hand: cpoker.solve(hand, method="table"), hands[:100], "solve(method='table')")


HOUSE_RULES = {  # seed 001's royalties with each royalty option of seed 003
    "one-per-hand": '[royalties]\none_per_hand = true\nback = { "straight flush" = 10, flush = 4, straight = 2 }\n'
                    'middle = { "four of a kind" = 8, "full house" = 2 }\nfront = { "three of a kind" = 3 }',
    "dealt": '[royalties]\ndealt = true\nback = { "straight flush" = 10, flush = 4, straight = 2 }\n'
             'middle = { "four of a kind" = 8, "full house" = 2 }\nfront = { "three of a kind" = 3 }',
}


@pytest.mark.parametrize("rules", ["pagat", "2-4", "1-6", "seed001-royalties", "one-per-hand", "dealt"])
def test_solve_under_rules(benchmark, rules):
    """Default solve (1 opponent, 2,000 samples) under each preset and royalty option, one core."""
    if rules in HOUSE_RULES:
        rules = cpoker.Rules.from_toml_text(HOUSE_RULES[rules], rules)
    cpoker.solve(HAND, rules=rules, samples=20, seed=0)
    with numba_threads(1):
        benchmark.pedantic(cpoker.solve, args=(HAND,), kwargs={"rules": rules, "seed": 1}, rounds=5)
    benchmark.extra_info["seconds per solve"] = benchmark.stats.stats.min
    print(f"\nsolve under {getattr(rules, 'name', rules)}: {benchmark.stats.stats.min * 1e3:.1f} ms")


TRIVIAL_KERNEL = """
from numba import njit
@njit(cache=True)
def one_more(x):
    return x + 1
"""


@pytest.mark.parametrize("process", ["import numba", "a one-line cached numba kernel", "cpoker eval",
                                     "cpoker solve", "cpoker solve --method table"])
def test_process_start(benchmark, process, tmp_path_factory):
    """Whole warm processes, next to the floors numba sets: importing it, and loading any cached kernel."""
    if process == "import numba":
        command = [sys.executable, "-c", "import numba"]
    elif process.startswith("a one-line"):
        folder = tmp_path_factory.mktemp("kernel")
        (folder / "trivial.py").write_text(TRIVIAL_KERNEL)
        command = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(folder)!r}); "
                                         "import trivial; trivial.one_more(1)"]
    else:
        words = process.split()
        argument = "As Ks Qs Js Ts" if words[1] == "eval" else HAND
        command = [sys.executable, "-m", "cpoker", words[1], argument, *words[2:]]
    subprocess.run(command, check=True, capture_output=True)  # warm the caches
    benchmark.pedantic(subprocess.run, args=(command,), kwargs={"check": True, "capture_output": True}, rounds=5)
    benchmark.extra_info["seconds"] = benchmark.stats.stats.min
    print(f"\n{process}: {benchmark.stats.stats.min:.2f} s")


def test_cold_process_start(benchmark):
    """``cpoker solve`` on an empty kernel cache: what the first run after installing costs."""
    def cold():
        with tempfile.TemporaryDirectory() as cache:
            subprocess.run([sys.executable, "-m", "cpoker", "solve", HAND], check=True, capture_output=True,
                           env={**os.environ, "NUMBA_CACHE_DIR": cache})

    benchmark.pedantic(cold, rounds=1)
    print(f"\ncold cpoker solve: {benchmark.stats.stats.min:.1f} s")
