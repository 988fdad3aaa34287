"""The Dask backend's cost: overhead per block, and throughput with 1 and 2 workers on this machine.

    python benchmarks/dask_backend.py [--deals N]

Runs the same seeded match on the local backend and on LocalClusters of 1 and
2 worker processes of one thread, and of one process with a thread a core (what
``dask worker`` starts by default), each started once, outside the timing;
checks the results are identical, and prints deals per second for each and the
overhead per block of the 1-worker run over the local one (both run numba's
kernels on every core, so the difference is what the cluster adds per block).
"""

import argparse
import json
import time

import numba

import cpoker
from cpoker.simulation import DEAL_CHUNK


def timed(function):
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    deals = parser.parse_args().deals
    from distributed import Client, LocalCluster

    strategies = ["table", "greedy"]
    cpoker.match(strategies, deals=1_000, seed=1)  # compile, load tables
    local, local_seconds = timed(lambda: cpoker.match(strategies, deals=deals, seed=1))
    cores = numba.config.NUMBA_NUM_THREADS
    report = {"deals": deals, "blocks": -(-deals // DEAL_CHUNK), "cores": cores, "local deals/s": deals / local_seconds}
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
        if (workers, threads) == (1, 1):
            report["overhead per block, ms"] = 1000 * (seconds - local_seconds) / report["blocks"]
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
