"""The Dask backend's cost: overhead per block, and throughput with 1 and 2 workers on this machine.

    python benchmarks/dask_backend.py [--deals N] [--build-hands N]

Runs the same seeded match on the local backend and on LocalClusters of 1 and
2 worker processes of one thread, and of one process with a thread a core (what
``dask worker`` starts by default), each started once, outside the timing;
checks the results are identical, and prints deals per second for each, the
blocks a Dask task runs, and the
overhead per block of the 1-worker run over the local one (both run numba's
kernels on every core, so the difference is what the cluster adds per block).
Then a tables build (20 iterations by default, no card-removal rounds) locally and on the
2-worker cluster, with the workers' near-best lists and without them (every
hand searched, as before they kept any): seconds, identical tables.
"""

import argparse
import json
import time

import numba

import cpoker
from cpoker.run.backends.dask import blocks_per_task
from cpoker.jobs.simulate import DEAL_CHUNK


def timed(function):
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--build-hands", type=int, default=20_000)
    parser.add_argument("--build-iterations", type=int, default=20)
    arguments = parser.parse_args()
    deals = arguments.deals
    from distributed import Client, LocalCluster

    strategies = ["table", "greedy"]
    cpoker.match(strategies, deals=1_000, seed=1)  # compile, load tables
    local, local_seconds = timed(lambda: cpoker.match(strategies, deals=deals, seed=1))
    cores = numba.config.NUMBA_NUM_THREADS
    blocks = -(-deals // DEAL_CHUNK)
    report = {"deals": deals, "blocks": blocks, "cores": cores, "local deals/s": deals / local_seconds}
    for workers, threads in ((1, 1), (2, 1), (1, cores)):
        with LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True, dashboard_address=None,
                          host="127.0.0.1") as cluster, Client(cluster):
            address = cluster.scheduler_address
            cpoker.match(strategies, deals=4 * DEAL_CHUNK, seed=2, backend="dask", scheduler=address)  # warm
            started = time.perf_counter()
            remote = cpoker.match(strategies, deals=deals, seed=1, backend="dask", scheduler=address)
            seconds = time.perf_counter() - started
        assert [s.points for s in remote.scores] == [s.points for s in local.scores]
        report[f"dask, {workers} worker(s) of {threads} thread(s), deals/s"] = deals / seconds
        report[f"dask, {workers} worker(s) of {threads} thread(s), blocks a task"] = \
            blocks_per_task(blocks, workers * threads)
        if (workers, threads) == (1, 1):  # (several blocks a task: the overhead of a task over its blocks)
            report["overhead per block, ms"] = 1000 * (seconds - local_seconds) / blocks
    report.update(builds(arguments.build_hands, arguments.build_iterations))
    print(json.dumps(report, indent=1))


def builds(hands: int, iterations: int = 20) -> dict:
    """Seconds of one build locally and on 2 workers, with and without the workers' lists (same tables)."""
    from distributed import Client, LocalCluster

    from cpoker.jobs import nearbest

    options = {"hands": hands, "seed": 3, "max_iterations": iterations, "tolerance": 0, "removal_deals": 0}
    local, local_seconds = timed(lambda: cpoker.build_tables(**options).to_bytes())
    report = {f"build of {hands} hands x {iterations} iterations, local s": local_seconds}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      host="127.0.0.1") as cluster, Client(cluster) as client:
        address = cluster.scheduler_address
        cpoker.build_tables(hands=2_000, seed=1, max_iterations=2, chunk=400, removal_deals=0, backend="dask",
                            scheduler=address)  # warm
        for name, kept in (("with the workers' lists", True), ("every hand searched", False)):
            if not kept:  # in the workers: no block is covered by a list
                client.run(lambda: setattr(nearbest.BlockMemory, "covers", lambda self, start, count: False))
            built, seconds = timed(lambda: cpoker.build_tables(**options, backend="dask", scheduler=address))
            assert built.to_bytes() == local
            report[f"build on 2 workers, {name}, s"] = seconds
    return report


if __name__ == "__main__":
    main()
