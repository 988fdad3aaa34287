"""The Dask backend gives the local backend's results bit for bit: on a LocalCluster, and on real
``dask scheduler`` / ``dask worker`` processes with one worker killed mid-run."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

import cpoker

pytestmark = pytest.mark.cluster  # real Dask clusters: LocalClusters, scheduler and worker processes

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
A = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
# builds learn a small card-removal correction and play one round with it: those passes run on the cluster too
SMALL_REMOVAL = {"removal_deals": 500, "removal_rounds": 1}


def scores(result) -> list:
    return [(s.name, s.points, s.stderr, s.interval) for s in result.scores]


@pytest.mark.slow
def test_a_local_cluster_gives_the_local_results_exactly():
    local = cpoker.match(["table", "greedy"], deals=3_000, seed=5, sessions=12)
    remote = cpoker.match(["table", "greedy"], deals=3_000, seed=5, sessions=12, backend="dask")
    assert scores(remote) == scores(local) and remote.sessions == 12 and not remote.partial
    assert [s.first_places for s in remote.scores] == [s.first_places for s in local.scores]
    here = cpoker.simulate(A, samples=4_500, seed=7, opponents=2)
    there = cpoker.simulate(A, samples=4_500, seed=7, opponents=2, backend="dask")
    assert (there.ev, there.stderr, there.distribution, there.rows) == (here.ev, here.stderr, here.distribution,
                                                                        here.rows)
    built_here = cpoker.build_tables(hands=2_000, seed=3, max_iterations=2, chunk=400, **SMALL_REMOVAL)
    built_there = cpoker.build_tables(hands=2_000, seed=3, max_iterations=2, chunk=400, backend="dask",
                                      **SMALL_REMOVAL)
    assert built_there.to_bytes() == built_here.to_bytes()
    rules_here = cpoker.build_tables(hands=1_000, seed=3, max_iterations=2, chunk=400, rules="2-4",
                                     **SMALL_REMOVAL)
    rules_there = cpoker.build_tables(hands=1_000, seed=3, max_iterations=2, chunk=400, rules="2-4",
                                      backend="dask", **SMALL_REMOVAL)
    assert rules_there.to_bytes() == rules_here.to_bytes()
    with pytest.MonkeyPatch.context() as patch:  # its first iterations play the sample's first 800 and 1,600 hands
        patch.setattr("cpoker.jobs.selfplay.WARMUP_HANDS", 800)
        warm_here, warm_there = (cpoker.build_tables(hands=2_000, seed=3, max_iterations=3, chunk=400, removal_deals=0,
                                                     backend=backend) for backend in ("local", "dask"))
    assert warm_there.to_bytes() == warm_here.to_bytes()
    exploited_here = cpoker.exploit("table", rules="1-6", hands=10, samples=100, seed=2)
    exploited_there = cpoker.exploit("table", rules="1-6", hands=10, samples=100, seed=2, backend="dask")
    assert exploited_there.gains.tolist() == exploited_here.gains.tolist()


@pytest.mark.slow
def test_backend_options_are_checked():
    with pytest.raises(cpoker.OptionError, match="backend must be 'local' or 'dask'"):
        cpoker.match(["table", "greedy"], deals=10, backend="spark")
    with pytest.raises(cpoker.OptionError, match="goes with backend='dask'"):
        cpoker.simulate(A, samples=10, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(cpoker.OptionError, match="cannot reach the Dask scheduler"):
        cpoker.simulate(A, samples=10, backend="dask", scheduler=f"tcp://127.0.0.1:{_free_port()}")
    for address, reason in (("nonsense", "missing port number"), ("tcp://127.0.0.1", "missing port number"),
                            ("foo://1.2.3.4:5", "unknown address scheme")):  # refused at once, not after 20 s
        with pytest.raises(cpoker.OptionError, match=f"address '{re.escape(address)}' is not one .*{reason}"):
            cpoker.match(["table", "greedy"], deals=10, backend="dask", scheduler=address)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_workers(address: str, count: int, timeout: float = 90) -> None:
    with distributed.Client(address, timeout="30s") as client:
        client.wait_for_workers(count, timeout=timeout)


def _worker_with_blocks_in_flight(address: str, run: subprocess.Popen, workers: list) -> subprocess.Popen:
    """The worker process that holds blocks of the running job, once both workers hold some."""
    with distributed.Client(address, timeout="30s") as client:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and run.poll() is None:
            busy = [worker for worker, tasks in client.processing().items() if tasks]
            if len(busy) == 2:  # the match is under way on both workers
                pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
                return next(process for process in workers if process.pid == pid)
            time.sleep(0.02)
    raise AssertionError(f"the job never had blocks on both workers (it exited with {run.poll()})")


@contextlib.contextmanager
def _real_cluster(tmp_path, workers: int, threads: int):
    """``(address, worker processes, environment)`` of a real ``dask scheduler`` and ``workers`` ``dask worker``
    processes of ``threads`` threads on 127.0.0.1, all stopped after."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = open(tmp_path / "cluster.log", "w")
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", str(port), "--dashboard-address", ":0", "--no-show"],
                                 stdout=log, stderr=log, env=env, cwd=tmp_path)
    processes = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads",
                                   str(threads), "--nworkers", "1", "--no-nanny", "--host", "127.0.0.1",
                                   "--dashboard-address", ":0"], stdout=log, stderr=log, env=env, cwd=tmp_path)
                 for _ in range(workers)]
    try:
        _wait_for_workers(address, workers)
        yield address, processes, env
    finally:
        for process in [*processes, scheduler]:
            process.send_signal(signal.SIGTERM)
        for process in [*processes, scheduler]:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        log.close()


@pytest.mark.slow  # (7 s of real processes; the default tier keeps the other cluster tests)
def test_real_scheduler_and_workers_survive_a_killed_worker(tmp_path):
    with _real_cluster(tmp_path, 2, 1) as (address, workers, env):
        command = [sys.executable, "-m", "cpoker", "match", "table", "greedy", "--deals", "40000", "--seed", "9",
                   "--backend", "dask", "--scheduler", address, "--json"]
        run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        victim = _worker_with_blocks_in_flight(address, run, workers)  # not a fixed sleep: a fast machine finished
        assert run.poll() is None, run.communicate()
        victim.kill()  # no goodbye: its blocks in flight are lost and recomputed elsewhere
        stdout, stderr = run.communicate(timeout=600)
        assert run.returncode == 0, stderr[-2000:]
        result = json.loads(stdout)
        local = cpoker.match(["table", "greedy"], deals=40_000, seed=9)
        assert not result["partial"] and result["deals"] == 40_000
        assert [(s["points_per_deal"], s["stderr"]) for s in result["scores"]] == \
            [(s.points, s.stderr) for s in local.scores]


@pytest.mark.slow
def test_a_build_on_a_real_worker_of_two_threads_shares_its_lists_between_them(tmp_path, monkeypatch):
    """``dask worker`` runs a thread a core, each running blocks of the same pass at once against one process's
    lists: they certify hands, the CLI build through ``--scheduler`` writes the local build's file, and the
    lists are freed after."""
    options = {"hands": 6_000, "seed": 3, "max_iterations": 10, "tolerance": 0, "chunk": 500, "removal_deals": 500,
               "removal_rounds": 2}
    local = cpoker.build_tables(**options).to_bytes()
    lists_there = lambda: [(memory.searched, memory.certified, sorted(memory.blocks))  # noqa: E731 (by value)
                           for memory in __import__("cpoker.jobs.nearbest").jobs.nearbest._worker_memories.values()]
    with _real_cluster(tmp_path, 1, 2) as (address, _, env):
        with monkeypatch.context() as patch:
            patch.setattr("cpoker.jobs.nearbest.forget_worker_memory", lambda build: None)  # left there, to be read
            assert cpoker.build_tables(**options, backend="dask", scheduler=address).to_bytes() == local
        with distributed.Client(address, timeout="30s") as client:
            [[(searched, certified, blocks)]] = client.run(lists_there).values()
            assert searched and certified and blocks == list(range(12))
            out = tmp_path / "t.npz"
            flags = [f"--{name.replace('_', '-')}={value}" for name, value in options.items() if name != "chunk"]
            run = subprocess.run([sys.executable, "-m", "cpoker", "tables", "build", *flags, "--quiet", "--backend",
                                  "dask", "--scheduler", address, "--out", str(out)], capture_output=True, text=True,
                                 cwd=ROOT, env=env, timeout=600)
            assert run.returncode == 0, run.stderr[-2000:]
            assert out.read_bytes() == local and list(client.run(lists_there).values()) == [[]]


@pytest.mark.slow
def test_each_block_on_a_cluster_runs_the_kernels_on_its_share_of_the_machine():
    """A machine runs as many blocks at once as it has Dask threads, so each block's kernels get the cores over
    that many numba threads, seen from inside real worker processes: a worker of one thread uses every core, a
    worker of a thread a core (``dask worker``'s default) one each, and so does the embedded cluster (a process a
    core).  Before, every block used every core: cores x cores threads on each machine."""
    import numba

    from cpoker.run.blocks import blocks_of
    from cpoker.run.runner import run_blocks

    cores = numba.config.NUMBA_NUM_THREADS

    def threads_seen(scheduler) -> set:
        seen: list = []
        run_blocks(blocks_of(8, 1), lambda block: __import__("numba").get_num_threads(),
                   lambda block, threads: seen.append(threads), total=8, backend="dask", scheduler=scheduler)
        return set(seen)

    for threads in (1, cores):
        with distributed.LocalCluster(n_workers=1, threads_per_worker=threads, processes=True,
                                      dashboard_address=None, host="127.0.0.1") as cluster:
            assert threads_seen(cluster.scheduler_address) == {max(1, cores // threads)}, threads
    assert threads_seen(None) == {1}


def _task_of_block(block) -> tuple:
    """In a worker: ``(the block's index, the key of the Dask task that runs it)``."""
    return block[0], distributed.get_worker().get_current_task()


@pytest.mark.slow
def test_a_long_jobs_tasks_run_several_consecutive_blocks_each_combined_on_its_own():
    """A task costs the scheduler and the client more than a small block's work (5 ms here; a match of 10**8
    deals is 200,000 blocks), so a long job's tasks run several consecutive blocks: seen from inside the workers,
    64 blocks on 2 worker threads run as 16 tasks of 4 (each thread still gets 8 tasks), a job of 8 blocks as 8
    tasks; every block is still combined on its own, in order, and a simulation grouped so gives the local
    result exactly."""
    import itertools

    from cpoker.run.backends.dask import MAX_BLOCKS_PER_TASK, blocks_per_task
    from cpoker.run.blocks import blocks_of
    from cpoker.run.runner import run_blocks

    assert [blocks_per_task(blocks, threads) for blocks, threads in
            ((200_000, 64), (120, 2), (64, 2), (8, 2), (0, 0))] == [MAX_BLOCKS_PER_TASK, 7, 4, 1, 1]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  host="127.0.0.1") as cluster:
        for blocks, tasks in ((64, [4] * 16), (8, [1] * 8)):
            seen: list = []
            run_blocks(blocks_of(blocks, 1), _task_of_block, lambda block, summary, seen=seen: seen.append(
                (block[0], *summary)), total=blocks, backend="dask", scheduler=cluster.scheduler_address)
            assert [(block, index) for block, index, _ in seen] == [(block, block) for block in range(blocks)]
            assert [len(list(run)) for _, run in itertools.groupby(key for *_, key in seen)] == tasks
        here = cpoker.simulate(A, samples=64_000, seed=7, opponents=2)  # 64 blocks of 1,000
        there = cpoker.simulate(A, samples=64_000, seed=7, opponents=2, backend="dask",
                                scheduler=cluster.scheduler_address)
    assert (there.ev, there.stderr, there.distribution, there.rows) == (here.ev, here.stderr, here.distribution,
                                                                        here.rows)


@pytest.mark.slow
def test_the_jobs_of_a_build_share_one_connection_and_its_workers():
    """Jobs inside :func:`cpoker.run.runner.backend_kept` (a build's passes) run on one embedded cluster, the same
    worker processes, which the next job outside it does not reuse; without it each job started its own (2.3 s a
    pass here)."""
    from cpoker.run.runner import backend_kept, run_blocks
    from cpoker.run.blocks import blocks_of

    def worker_processes() -> set:
        seen: set = set()
        run_blocks(blocks_of(8, 1), lambda block: os.getpid(), lambda block, pid: seen.add(pid), total=8,
                   backend="dask")
        return seen

    with backend_kept("dask"):
        first, second = worker_processes(), worker_processes()
    third = worker_processes()
    assert first == second and os.getpid() not in first and not third & first
    with backend_kept("local"):  # nothing to keep
        assert worker_processes().isdisjoint(first | third)


def _worker_lists() -> list:
    """In a worker process: ``(hands searched, hands certified, block indices listed)`` of each build's lists."""
    from cpoker.jobs import nearbest

    return [(memory.searched, memory.certified, sorted(memory.blocks)) for memory in nearbest._worker_memories.values()]


@pytest.mark.slow
def test_a_build_keeps_its_near_best_lists_on_the_workers_and_loses_nothing_with_a_killed_one(monkeypatch):
    """Each worker process keeps the lists of the blocks it ran, and each pass sends a block back there: the
    workers certify hands instead of searching them (the passes before searched every hand), and the tables are
    the local build's byte for byte, with the card-removal rounds too.  Then a worker is killed (SIGKILL) between
    two passes: its blocks go to the other worker or its restarted one, which search them, and the tables are
    the same again.

    Work stealing is off in this cluster: on a busy machine the scheduler steals a block from its home when
    another worker is idle, which searches and lists it there too (the same tables: a CI run once listed one
    block on both workers), so the blocks would not be listed once each."""
    import dask

    from cpoker.jobs import nearbest

    options = {"hands": 6_000, "seed": 3, "max_iterations": 10, "tolerance": 0, "chunk": 500, "removal_deals": 500,
               "removal_rounds": 2}
    local = cpoker.build_tables(**options).to_bytes()
    monkeypatch.setattr("cpoker.jobs.nearbest.forget_worker_memory", lambda build: None)  # left there, to be read
    with dask.config.set({"distributed.scheduler.work-stealing": False}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                     host="127.0.0.1") as cluster, distributed.Client(cluster) as client:
        address = cluster.scheduler_address
        assert not client.run_on_scheduler(lambda dask_scheduler: "stealing" in dask_scheduler.extensions)
        assert cpoker.build_tables(**options, backend="dask", scheduler=address).to_bytes() == local
        kept = [memories[0] for memories in client.run(_worker_lists).values()]
        assert len(kept) == 2 and all(searched and certified for searched, certified, _ in kept), kept
        assert not set(kept[0][2]) & set(kept[1][2]) and len(kept[0][2]) + len(kept[1][2]) == 12  # all, once each

        killed: list = []

        def kill_one_worker(tables) -> None:
            if tables.iterations == 5:
                pid = next(iter(client.run(os.getpid).values()))
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        assert cpoker.build_tables(**options, backend="dask", scheduler=address,
                                   checkpoint=kill_one_worker).to_bytes() == local
        assert killed and killed[0] not in client.run(os.getpid).values()
        # each worker's lists take its share of the machine's MEMORY_BYTES (a half here), and at most a quarter of
        # its memory limit (Dask pauses a worker at 80% of it)
        from cpoker.run.blocks import blocks_of
        from cpoker.run.runner import run_blocks

        def list_sizes_under(limit: int) -> set:
            client.run(lambda dask_worker: setattr(dask_worker.memory_manager, "memory_limit", limit))
            sizes: set = set()
            run_blocks(blocks_of(8, 1), lambda block: nearbest.worker_memory(f"build {limit}", 500).size,
                       lambda block, size: sizes.add(size), total=8, backend="dask", scheduler=address)
            return sizes

        for limit, budget in ((4 * nearbest.MEMORY_BYTES, nearbest.MEMORY_BYTES // 2), (10**9, 250_000_000)):
            per_hand = nearbest.bytes_per_hand(nearbest.WORKER_CAPACITY)
            assert list_sizes_under(limit) == {budget // per_hand // 500 * 500}, limit


def _worker_list_budget() -> list:
    """In a worker process: ``(hands its lists may cover, blocks listed)`` of each build's lists."""
    from cpoker.jobs import nearbest

    return [(memory.size, len(memory.blocks)) for memory in nearbest._worker_memories.values()]


@pytest.mark.slow
def test_a_workers_lists_shrink_to_its_share_when_workers_join_its_machine_during_a_build(monkeypatch):
    """Workers join a cluster while a build runs (a cluster that scales up, batch jobs that start late).  The
    first worker on a machine took the machine's whole budget for its lists, and kept it when others joined; now
    each pass's start reads the share again: two workers of a thread each hold half each, with the same
    tables."""
    from cpoker.jobs import nearbest

    options = {"hands": 6_000, "seed": 3, "max_iterations": 8, "tolerance": 0, "chunk": 500, "removal_deals": 0}
    local = cpoker.build_tables(**options).to_bytes()
    monkeypatch.setattr("cpoker.jobs.nearbest.forget_worker_memory", lambda build: None)  # left there, to be read
    hands_in = lambda budget: budget // nearbest.bytes_per_hand(nearbest.WORKER_CAPACITY) // 500 * 500  # noqa: E731
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  host="127.0.0.1", memory_limit="16GB") as cluster, \
            distributed.Client(cluster) as client:  # (a quarter of the limit is more than MEMORY_BYTES)
        alone: dict = {}

        def second_worker_joins(tables) -> None:
            if tables.iterations == 3:
                alone.update(client.run(_worker_list_budget))
                cluster.scale(2)
                client.wait_for_workers(2, timeout=120)

        assert cpoker.build_tables(**options, backend="dask", scheduler=cluster.scheduler_address,
                                   checkpoint=second_worker_joins).to_bytes() == local
        [(first, lists)] = alone.items()
        assert lists == [(hands_in(nearbest.MEMORY_BYTES), 12)]  # all 12 blocks, in the whole budget
        after = client.run(_worker_list_budget)
        assert len(after) == 2 and [size for size, _ in after[first]] == [hands_in(nearbest.MEMORY_BYTES // 2)]
        assert all(size == hands_in(nearbest.MEMORY_BYTES // 2) for lists in after.values() for size, _ in lists)


@pytest.mark.slow
def test_a_block_goes_back_to_its_lists_when_the_passes_group_blocks_otherwise(monkeypatch):
    """A pass's tasks run several blocks when it has many, and a build's first passes play a growing share of
    the sample (3,200 hands, then all 6,000 here: blocks of 2, then of 3, had each pass grouped its own way).
    Every pass groups them as the first did, so each task goes back whole to the worker that holds its blocks'
    lists: every block is listed once, none twice, and the tables are the local build's."""
    monkeypatch.setattr("cpoker.jobs.selfplay.WARMUP_HANDS", 3_200)
    monkeypatch.setattr("cpoker.jobs.nearbest.forget_worker_memory", lambda build: None)  # left there, to be read
    options = {"hands": 6_000, "seed": 3, "max_iterations": 8, "tolerance": 0, "chunk": 100, "removal_deals": 0}
    local = cpoker.build_tables(**options).to_bytes()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  host="127.0.0.1") as cluster, distributed.Client(cluster) as client:
        assert cpoker.build_tables(**options, backend="dask", scheduler=cluster.scheduler_address).to_bytes() == local
        listed = [blocks for [(_, _, blocks)] in client.run(_worker_lists).values()]
    assert sorted(listed[0] + listed[1]) == list(range(60)), listed  # every block once: none listed twice


def _mark_cleaned(folder: str) -> None:
    """In a worker process: leave a file named by its pid in ``folder``, proof that the cleanup ran there."""
    Path(folder, str(os.getpid())).touch()


@pytest.mark.slow
def test_a_stopped_worker_does_not_hold_the_end_of_a_job_on_a_cluster(tmp_path, monkeypatch):
    """The end of a kept connection (a build's) runs its cleanup on every worker: with a worker stopped
    (SIGSTOP: alive to the scheduler, never answering), it waited for it forever.  Now the live worker is
    cleaned, the stopped one is given up after the cleanup's timeout with one warning (its memory stays there
    until it restarts), and the job ends."""
    import threading

    from cpoker.run.backends import dask as dask_backend
    from cpoker.run.runner import backend_kept, run_blocks
    from cpoker.run.blocks import blocks_of

    monkeypatch.setattr(dask_backend, "CLEANUP_TIMEOUT", 2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  host="127.0.0.1") as cluster, distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        stopped = next(iter(pids.values()))
        ended: list = []

        def job() -> None:
            try:
                with pytest.warns(RuntimeWarning, match="did not answer within 2 s") as warned:
                    with backend_kept("dask", cluster.scheduler_address, lambda: _mark_cleaned(str(tmp_path))):
                        run_blocks(blocks_of(8, 1), lambda block: block, lambda block, summary: None, total=8,
                                   backend="dask", scheduler=cluster.scheduler_address)
                        os.kill(stopped, signal.SIGSTOP)
                ended.append(len(warned))
            except BaseException as error:  # (seen by the assertion below, not lost in the thread)
                ended.append(error)

        try:
            thread = threading.Thread(target=job, daemon=True)
            thread.start()
            thread.join(timeout=120)  # not a speed bound: before, it never ended
            assert ended == [1], ended or "the end of the job waited for the stopped worker"
            assert sorted(int(name.name) for name in tmp_path.iterdir()) == sorted(set(pids.values()) - {stopped})
        finally:
            os.kill(stopped, signal.SIGCONT)


def test_each_worker_process_fetches_a_jobs_work_once_and_never_reuses_another_jobs():
    """A work derives state on its first call (a table policy's row model: 50 ms, more than a block takes), so a
    worker keeps the job's work between blocks.  Seen from inside two real worker processes: a work that counts
    its calls in a list it holds counts 1, 2, 3... in each process (unpickled for every block, it counted 1 each
    time); the next job, on the same workers, counts from 1 again: its own work, not the kept one.  The real
    scheduler sent the pickled work once a worker process (it travelled with every block before: 1.2 MB a block
    of a build's pass), and a job that ends, or fails, deletes it there."""
    from cpoker.run.blocks import blocks_of
    from cpoker.run.runner import run_blocks

    def calls_by_process(scheduler) -> dict:
        calls: list = []

        def count_calls(block):
            calls.append(block)
            return os.getpid(), len(calls)

        seen: dict = {}
        run_blocks(blocks_of(24, 1), count_calls, lambda block, seen_here: seen.setdefault(seen_here[0], []).append(
            seen_here[1]), total=24, backend="dask", scheduler=scheduler)
        return seen

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  host="127.0.0.1") as cluster, distributed.Client(cluster) as client:
        client.run_on_scheduler(_count_variable_fetches)
        fetched = 0
        for job in range(2):
            seen = calls_by_process(cluster.scheduler_address)
            assert sum(len(counts) for counts in seen.values()) == 24 and os.getpid() not in seen
            for counts in seen.values():
                assert sorted(counts) == list(range(1, len(counts) + 1)), seen
            # the pickled work left the scheduler once a worker process, not once a block, and was deleted after
            fetches, _ = client.run_on_scheduler(_variable_fetches_and_names)
            fetched += len(seen)  # one fetch a process that ran blocks of the job (a thread each)
            assert len(fetches) == fetched and len(set(fetches)) == job + 1, fetches
            assert not _work_left_on_scheduler(client)

        def fails_on_block_five(block):
            if block[0] == 5:
                raise ValueError("block five")
            return block

        with pytest.raises(ValueError, match="block five"):  # a job that fails deletes its work too
            run_blocks(blocks_of(24, 1), fails_on_block_five, lambda block, summary: None, total=24,
                       backend="dask", scheduler=cluster.scheduler_address)
        assert not _work_left_on_scheduler(client)


@pytest.mark.slow
def test_a_worker_stopped_mid_job_is_given_up_by_the_scheduler_and_its_blocks_run_elsewhere():
    """A worker that stops answering in the middle of a match (SIGSTOP: a frozen machine) holds its blocks until
    the scheduler gives it up (``distributed.scheduler.worker-ttl``, 5 minutes by default, 3 s here); they then
    run on the other worker, and the result is the local one exactly."""
    import threading

    import dask

    with dask.config.set({"distributed.scheduler.worker-ttl": "3s"}):  # read by the scheduler, in this process
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, host="127.0.0.1")
    with cluster, distributed.Client(cluster) as client:
        stopped = next(iter(client.run(os.getpid).values()))
        in_flight = threading.Event()

        def stop_it_once_blocks_run() -> None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not all(client.processing().values()):
                time.sleep(0.01)
            os.kill(stopped, signal.SIGSTOP)
            in_flight.set()

        threading.Thread(target=stop_it_once_blocks_run, daemon=True).start()
        try:
            result = cpoker.match(["table", "greedy"], deals=20_000, seed=9, backend="dask",
                                  scheduler=cluster.scheduler_address)
        finally:
            with contextlib.suppress(ProcessLookupError):  # (its nanny has replaced it)
                os.kill(stopped, signal.SIGCONT)
        assert in_flight.is_set() and stopped not in client.run(os.getpid).values()
    local = cpoker.match(["table", "greedy"], deals=20_000, seed=9)
    assert not result.partial and scores(result) == scores(local)


def _count_variable_fetches(dask_scheduler) -> None:
    """On a real scheduler: record the name of every Dask ``Variable`` a client (a worker's) fetches."""
    fetch = dask_scheduler.handlers["variable_get"]
    dask_scheduler.cpoker_fetches = []

    async def recorded(name=None, client=None, timeout=None):
        dask_scheduler.cpoker_fetches.append(name)
        return await fetch(name=name, client=client, timeout=timeout)

    dask_scheduler.handlers["variable_get"] = recorded


def _work_left_on_scheduler(client) -> list:
    """The names of cpoker's work variables still on the scheduler, after up to 10 s for their deletion to arrive
    (it travels on the client's batched stream, not on the call that asks)."""
    deleted_by = time.monotonic() + 10
    while (kept := client.run_on_scheduler(_variable_fetches_and_names)[1]) and time.monotonic() < deleted_by:
        time.sleep(0.05)
    return kept


def _variable_fetches_and_names(dask_scheduler) -> tuple:
    return (list(dask_scheduler.cpoker_fetches),
            [name for name in dask_scheduler.extensions["variables"].variables if name.startswith("cpoker")])


CLUSTER_JOBS = {  # (command, its output file): each checkpoints once blocks come back from the embedded cluster
    "match": (["match", "table", "greedy", "--deals", "2000000", "--seed", "1", "--checkpoint-seconds", "0.2"],
              "r.json"),
    # a pass a job, all on one cluster kept for the build
    "tables": (["tables", "build", "--hands", "20000", "--max-iterations", "200", "--tolerance", "0",
                "--removal-deals", "0", "--json"], "t.npz"),
}


@pytest.mark.slow
@pytest.mark.parametrize("job, target", [("match", "process"), ("match", "group"), ("tables", "group")])
def test_ctrl_c_cancels_the_cluster_job_and_prints_the_partial_result(tmp_path, job, target):
    """SIGINT to the cpoker process (``kill -INT``), and to its whole process group, as a terminal's Ctrl-C sends
    it: the embedded cluster's workers get it too (before they ignored it, the job hung).  A build stopped
    between or during its passes saves its partial tables and closes the cluster it kept for them."""
    command, name = CLUSTER_JOBS[job]
    out = tmp_path / name
    run = subprocess.Popen([sys.executable, "-m", "cpoker", *command, "--backend", "dask", "--out", str(out),
                            "--checkpoint"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not out.exists():  # a checkpoint: the cluster is up, blocks come back
        time.sleep(0.05)
    if target == "group":
        os.killpg(run.pid, signal.SIGINT)
    else:
        run.send_signal(signal.SIGINT)
    try:
        stdout, stderr = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130 and "Traceback" not in stderr, stderr[-2000:]
    if job == "match":
        assert "PARTIAL: stopped after" in stdout and json.loads(out.read_text())["partial"] is True
    else:
        tables = cpoker.PolicyTables.load(out)
        assert json.loads(stdout)["partial"] is True and tables.partial and tables.iterations >= 1
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left


@pytest.mark.slow
def test_ctrl_c_does_not_wait_for_a_cluster_task_that_takes_days(tmp_path):
    """`exploit --samples 10**9` on the embedded cluster: one task (8 hands) takes days, and the job used to wait
    for a task to end before it looked at the signal.  Now it cancels the tasks in flight at once: none was done,
    so the command ends with one line and status 130."""
    terminal, stderr_end = os.openpty()  # a terminal for its standard error: the progress bar says the job began
    fcntl.ioctl(stderr_end, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    run = subprocess.Popen([sys.executable, "-m", "cpoker", "exploit", "greedy", "--hands", "16", "--samples",
                            "1000000000", "--seed", "1", "--backend", "dask", "--out", str(tmp_path / "r.json")],
                           stdout=subprocess.PIPE, stderr=stderr_end, text=True, cwd=ROOT, start_new_session=True)
    os.close(stderr_end)
    seen, deadline = b"", time.monotonic() + 120
    try:
        while b"exploit greedy" not in seen and time.monotonic() < deadline:  # the cluster is up, tasks are sent
            if select.select([terminal], [], [], 1.0)[0]:
                seen += os.read(terminal, 4096)
        assert b"exploit greedy" in seen, seen
        time.sleep(2.0)  # the workers are in the first hands' solves
        run.send_signal(signal.SIGINT)
        stdout, _ = run.communicate(timeout=60)
        while select.select([terminal], [], [], 0.5)[0]:
            try:
                seen += os.read(terminal, 4096)
            except OSError:  # the process closed the terminal
                break
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
        os.close(terminal)
    text = seen.decode("utf-8", "replace")
    assert run.returncode == 130 and stdout == "" and "Traceback" not in text, text[-2000:]
    assert text.rstrip().endswith("cpoker: interrupted") and not list(tmp_path.iterdir())


def test_nothing_imports_dask_or_cuda_unless_asked():
    code = ("import sys, cpoker; cpoker.simulate(%r, samples=200, seed=1); cpoker.match(['table', 'greedy'], "
            "deals=50, seed=1); print(sorted(m for m in ('distributed', 'dask', 'numba.cuda') if m in sys.modules))"
            % A)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stderr[-1000:]


@pytest.mark.slow
def test_a_time_budget_holds_on_the_dask_backend_too():
    result = cpoker.simulate(A, samples=200_000, seed=4, backend="dask", time_budget=0.01)
    assert result.partial and 0 < result.samples < 200_000 and result.requested_samples == 200_000
    local = cpoker.simulate(A, samples=result.samples, seed=4)
    assert (result.ev, result.distribution) == (local.ev, local.distribution)  # the first blocks, in order


@pytest.mark.slow
def test_a_build_on_a_cluster_uses_blocks_of_four_a_worker_thread_with_the_same_tables():
    """Small blocks cost a cluster more than their hands (2,000-hand blocks: 19.8 s against 8.7 s for 12,500
    in a 50,000-hand build here): the default block is four a worker thread, from 2,000 to 20,000 hands."""
    from cpoker.jobs.selfplay import CLUSTER_CHUNK, cluster_chunk

    assert [cluster_chunk(hands, threads) for hands, threads in
            ((100_000, 16), (100_000, 2), (50_000, 2), (10**8, 64), (5, 0))] == [2_000, 12_500, 6_250, CLUSTER_CHUNK,
                                                                                2_000]
    from dask.system import CPU_COUNT  # the embedded cluster's worker processes, of a thread each

    from cpoker.jobs import job  # (the skeleton every job's blocks run through: here, the self-play's passes)

    seen: list = []
    with pytest.MonkeyPatch.context() as patch:
        run_blocks = job.run_blocks
        patch.setattr(job, "run_blocks", lambda blocks, *args, **kwargs: run_blocks(
            seen.extend(blocks := list(blocks)) or blocks, *args, **kwargs))
        built = cpoker.build_tables(hands=20_000, seed=3, max_iterations=2, removal_deals=0, backend="dask")
    assert {count for _, count in seen} == {cluster_chunk(20_000, CPU_COUNT)}  # here (2 cores): 2,500
    assert built.to_bytes() == cpoker.build_tables(hands=20_000, seed=3, max_iterations=2, removal_deals=0).to_bytes()
