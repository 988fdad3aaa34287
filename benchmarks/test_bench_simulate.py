"""Simulation throughput on one core and on all cores, and the settlement kernel alone."""

import numba
import numpy as np
import pytest
from conftest import random_cards, report_rate

from cpoker._kernels.montecarlo import candidate_results
from cpoker.jobs.simulate import match, simulate
from cpoker.strategies.strategy import arrange_keys

ARRANGEMENT = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
ALL = numba.config.NUMBA_NUM_THREADS


@pytest.mark.parametrize("jobs", [1, ALL], ids=["1-core", "all-cores"])
def test_simulate_deals_per_second(benchmark, jobs):
    simulate(ARRANGEMENT, samples=100, seed=0, jobs=jobs)
    benchmark.pedantic(simulate, args=(ARRANGEMENT,), kwargs={"samples": 20_000, "seed": 1, "jobs": jobs}, rounds=3)
    report_rate(benchmark, 20_000, "deals/s (table-policy opponent)")


@pytest.mark.parametrize("jobs", [1, ALL], ids=["1-core", "all-cores"])
def test_match_deals_per_second(benchmark, jobs):
    match(["table", "greedy"], deals=100, seed=0, jobs=jobs)
    benchmark.pedantic(match, args=(["table", "greedy"],), kwargs={"deals": 10_000, "seed": 1, "jobs": jobs},
                       rounds=3)
    report_rate(benchmark, 10_000, "duplicate deals/s (4 arrangements each)")


def test_settlement_kernel(benchmark):
    opponents = arrange_keys("table", random_cards(30_000, 13, seed=3)).reshape(10_000, 3, 3)
    ours = np.array([[67121152, 67371146, 570425344]], dtype=np.int32)
    candidate_results(ours, opponents[:10])
    benchmark.pedantic(candidate_results, args=(ours, opponents), rounds=20)
    report_rate(benchmark, 30_000, "opponent settlements/s")


@pytest.mark.parametrize("rules", ["pagat", "seed001-royalties"])
def test_pair_settlement_kernel(benchmark, rules):
    """``pair_points_batch``, what matches and tournaments settle with, on 300,000 pairs of table-policy rows."""
    from cpoker._kernels.scoring import pair_points_batch
    from cpoker.game.rules import resolve_rules

    keys = arrange_keys("table", random_cards(600_000, 13, seed=4))
    a, b = np.ascontiguousarray(keys[:300_000]), np.ascontiguousarray(keys[300_000:])
    arguments = resolve_rules(rules).kernel_arguments()
    pair_points_batch(a[:10], b[:10], *arguments)
    benchmark.pedantic(pair_points_batch, args=(a, b, *arguments), rounds=20)
    report_rate(benchmark, 300_000, f"pair settlements/s ({rules})")


@pytest.mark.parametrize("checkpoints", ["none", "every block"])
def test_match_with_checkpoints(benchmark, checkpoints, tmp_path):
    """A checkpoint (the partial result as JSON, written atomically, as `--checkpoint` does) after every
    500-deal block, against none: the difference over 40 blocks is what one costs (`--checkpoint` writes one
    every 10 s)."""
    from cpoker.cli.jobs import json_checkpoint

    save = json_checkpoint(tmp_path / "run.json") if checkpoints == "every block" else None
    match(["table", "greedy"], deals=100, seed=0)
    benchmark.pedantic(match, args=(["table", "greedy"],),
                       kwargs={"deals": 20_000, "seed": 1, "checkpoint": save, "checkpoint_seconds": 0}, rounds=3)
    report_rate(benchmark, 20_000, f"duplicate deals/s, checkpoints: {checkpoints}")
