"""Blocks of a cpoker job on a Dask cluster (``backend="dask"``).

Only small, seeded work descriptions travel: each block is ``(index, count)``
and the job's id.  The job's ``work`` function (the seed and the strategies'
tables, never the hands) is pickled once by cloudpickle and left on the
scheduler, in a Dask ``Variable``; each worker process fetches it, unpickles
it once and keeps it (:func:`job_work`), so the bytes travel once a worker,
not once a block, and what the work derives on its first call (a table
policy's row model) is built once a process.  Workers import cpoker and run the same numba kernels, with a
share of their machine's cores each (:func:`run_block`); only per-block
summaries come back.  A task runs several consecutive blocks when the job has
many (:func:`blocks_per_task`: a task costs more than a small block's work),
each still summarized on its own.
Summaries are combined strictly in block order, whichever worker finishes
first, so the answer is bit for bit the local backend's.  At most a few
tasks per worker thread are in flight, so a job of 10**10 deals costs the
client no memory up front.  A SIGINT or SIGTERM cancels the outstanding
futures and returns the blocks combined so far, marked partial.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import dataclasses
import itertools
import logging
import pickle
import socket
import threading
import time
import uuid
from typing import Any, Callable, Iterable, Optional

from cpoker.system import interrupts
from cpoker.run.blocks import grouped, progress_bar, stop_before_next_block
from cpoker.system.errors import OptionError

IN_FLIGHT_PER_THREAD = 4  # tasks a worker thread has queued or running at once
TASKS_PER_THREAD = 8  # a job's blocks are grouped in tasks so that each worker thread gets at least this many
MAX_BLOCKS_PER_TASK = 32  # (a match's 500-deal blocks: 16,000 deals, a second or so a thread)
JOBS_KEPT = 2  # works a worker process keeps: the running job's, and one before it (a job of another client)
WORK_FETCH_TIMEOUT = "30s"  # the client leaves the work on the scheduler before it sends the job's first block
CLEANUP_TIMEOUT = 10  # seconds the end of a kept connection waits for the workers' cleanup (a hung one never answers)


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise OptionError("backend='dask' needs Dask's distributed scheduler: pip install 'cpoker[dask]'") from None
    return distributed


def quiet_logs() -> None:
    """Run in the embedded cluster's worker processes: Dask's own loggers print CRITICAL messages only."""
    logging.getLogger("distributed").setLevel(logging.CRITICAL)


def _spawned_deaf_to_ctrl_c(start):
    """``start()``, with SIGINT ignored meanwhile, so that the worker processes it spawns keep ignoring it.

    A Ctrl-C at a terminal reaches every process of the foreground group: the
    embedded cluster's workers too.  They are cpoker's own, stopped by it once
    it has the blocks so far; interrupted by the signal themselves, the job
    hung instead (no answer after two minutes).  Python keeps a SIGINT that
    was ignored when it started ignored; the job's own handler is installed
    later, when its blocks run.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return start()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return start()
    finally:
        signal.signal(signal.SIGINT, previous)


def connect(scheduler: Optional[str]):
    """A client of the cluster at ``scheduler``, or of a new ``LocalCluster`` on this machine (closed after)."""
    distributed = _import_distributed()
    if scheduler is None:
        # the embedded cluster is cpoker's own business: its processes write to the user's terminal, and a block's
        # error reaches the user through its future, so their logs are silenced below CRITICAL (by default a worker
        # still heartbeating while the cluster closes after a Ctrl-C prints a traceback)
        cluster = _spawned_deaf_to_ctrl_c(lambda: distributed.LocalCluster(
            n_workers=None, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1",
            silence_logs=logging.CRITICAL))
        client = distributed.Client(cluster)
        client.run(quiet_logs)  # in the workers, for their whole life, closing included (not in the nannies: they
        # live in this process, whose loggers are the user's)
        return client, cluster
    try:
        scheme, location = distributed.comm.parse_address(distributed.comm.resolve_address(scheduler))
        host, port = distributed.comm.parse_host_port(location) if scheme in ("tcp", "tls") else (None, None)
    except (ValueError, TypeError, OSError) as error:  # no port, an unknown protocol, a host that does not resolve
        raise OptionError(f"the Dask scheduler address {scheduler!r} is not one a client can use, like "
                          f"tcp://127.0.0.1:8786 ({error})") from None
    if host is not None:  # nothing listening there is known at once: no need for the client's 20 s of retries
        try:
            socket.create_connection((host, port), timeout=5).close()
        except ConnectionRefusedError:
            raise OptionError(f"cannot reach the Dask scheduler at {scheduler}: nothing listens there (connection "
                              "refused; is the scheduler running?)") from None
        except OSError:
            pass  # a slow or filtered network: the client's own timeout decides
    try:
        return distributed.Client(scheduler, timeout="20s"), None
    except (OSError, TimeoutError) as error:
        raise OptionError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None


@dataclasses.dataclass
class _Connection:
    """A client of a cluster, and what the jobs run on it share (those inside one :func:`kept_connection`)."""

    scheduler: Optional[str]
    client: Any
    # the worker that last ran each block index, to which the next job sends it (a build's passes: the lists it
    # keeps there)
    homes: dict = dataclasses.field(default_factory=dict)
    # fixed by the first job, so that every job groups its blocks alike (see run_blocks_dask)
    blocks_per_task: Optional[int] = None


# the innermost kept_connection()'s
_kept_connection: contextvars.ContextVar = contextvars.ContextVar("cpoker_dask_connection", default=None)


@contextlib.contextmanager
def kept_connection(scheduler: Optional[str], cleanup: Optional[Callable[[], None]] = None):
    """One client of the cluster at ``scheduler`` (or one embedded ``LocalCluster``) for every job run inside.

    A tables build runs a job per self-play pass, 60 or more: connecting for each
    started and closed a ``LocalCluster`` each time (seconds a pass),
    and its workers could keep nothing from one pass to the next.  Inside, a
    block goes to the worker that ran the block of the same index last (any
    other when that one is gone or busy).  ``cleanup()`` runs on every worker at
    the end (freeing what the jobs kept there).
    """
    current = _kept_connection.get()
    if current is not None and current.scheduler == scheduler:
        yield
        return
    client, cluster = connect(scheduler)
    token = _kept_connection.set(_Connection(scheduler, client))
    try:
        yield
    finally:
        _kept_connection.reset(token)
        if cleanup is not None:
            _clean_workers(client, cleanup, warn=cluster is None)
        client.close()
        if cluster is not None:
            cluster.close()


def _clean_workers(client, cleanup: Callable[[], None], warn: bool) -> None:
    """``cleanup()`` on every worker, waiting at most :data:`CLEANUP_TIMEOUT` seconds.

    Without a limit, one worker that never answers (stopped, swapping, its
    event loop blocked) held the end of a finished build forever: Dask's
    ``Client.run`` has no timeout of its own, and the scheduler waits for
    every worker's reply.  A worker that is gone takes what it kept with it;
    one that does not answer in time keeps it until it restarts, which
    ``warn`` says for a cluster that is not cpoker's own (an embedded one is
    closed next).
    """
    try:
        client.run(cleanup, on_error="ignore", callback_timeout=CLEANUP_TIMEOUT)  # (Client.sync's timeout)
    except TimeoutError:
        if warn:
            import warnings

            warnings.warn(f"cpoker: a Dask worker did not answer within {CLEANUP_TIMEOUT} s at the end of the job; "
                          f"what the job kept in its memory stays there until it restarts", RuntimeWarning,
                          stacklevel=2)
    except Exception:  # the scheduler gone, the cluster closing: what the workers kept goes with them
        pass


def kept_threads() -> int:
    """The worker threads of the cluster of the innermost :func:`kept_connection` (1 outside one)."""
    current = _kept_connection.get()
    return 1 if current is None else max(1, sum(current.client.nthreads().values()))


_threads_on_this_host = 0  # the Dask threads on this worker's machine, as the last block here was told


def worker_memory_budget(default: int) -> Optional[int]:
    """What this Dask worker may keep between jobs, in bytes, of ``default`` bytes a machine: its share of
    them (its threads over the Dask threads on its machine), and at most a quarter of its memory limit
    (Dask pauses a worker at 80% of it, and kills it at 95%).  None when this is not a worker."""
    import distributed

    try:
        worker = distributed.get_worker()
    except ValueError:
        return None
    threads = worker.state.nthreads
    budget = default * threads // max(threads, _threads_on_this_host)
    limit = worker.memory_manager.memory_limit
    return min(budget, limit // 4) if limit else budget


def threads_by_host(client) -> dict:
    """The Dask threads on each host of the cluster: the blocks one machine runs at once."""
    from distributed.comm import get_address_host

    threads: dict = {}
    for address, count in client.nthreads().items():
        host = get_address_host(address)
        threads[host] = threads.get(host, 0) + count
    return threads


_kept_works: "collections.OrderedDict[str, Callable[[Any], Any]]" = collections.OrderedDict()
_kept_lock = threading.Lock()


def work_variable(job: str, client=None):
    """The Dask ``Variable`` that holds ``job``'s pickled work on the scheduler while the job runs."""
    from distributed import Variable

    return Variable(f"cpoker-work-{job}", client=client)


def job_work(job: str) -> Callable[[Any], Any]:
    """The work of ``job`` in this worker process: fetched from the scheduler and unpickled on the job's first
    block here, kept after.

    A block that carried the pickled work would send a table policy's tables
    (hundreds of KB) through the scheduler each time, and a freshly unpickled
    work rebuilds what it derives on its first call (a match's table policy:
    its row model, which is not pickled), which takes longer than a block of
    500 deals.  Kept, both happen once a process.  ``job`` is unique to a run (a uuid), so a kept work is
    never another job's; the last :data:`JOBS_KEPT` are kept.  Two threads of
    one worker may both fetch a job's first block: both works are equal, one
    is kept.
    """
    with _kept_lock:
        work = _kept_works.get(job)
        if work is not None:
            return work
    try:
        pickled = work_variable(job).get(timeout=WORK_FETCH_TIMEOUT)
    except TimeoutError:
        raise RuntimeError(f"the work of cpoker job {job} is no longer on the Dask scheduler (the job ended, or "
                           f"its client is gone)") from None
    work = pickle.loads(pickled)
    with _kept_lock:
        work = _kept_works.setdefault(job, work)
        while len(_kept_works) > JOBS_KEPT:
            _kept_works.popitem(last=False)
    return work


def blocks_per_task(blocks: int, threads: int) -> int:
    """How many consecutive blocks of a job of ``blocks`` a task runs on a cluster of ``threads`` worker threads.

    Each task costs the scheduler and the client a few milliseconds, more than a small block's
    work, and a Dask scheduler runs a few thousand tasks a second: a match of 10**8 deals is 200,000 blocks.
    A task of several blocks pays that once, and still summarizes each block on its own, combined in order:
    the same result.  Enough tasks are kept for every thread to get :data:`TASKS_PER_THREAD` of them, so the
    job's tail stays short; a job of few blocks (a build's pass: four a thread) keeps a block a task.
    """
    return max(1, min(MAX_BLOCKS_PER_TASK, blocks // (TASKS_PER_THREAD * max(1, threads))))


def run_block(job: str, blocks: list, host_threads: dict) -> tuple:
    """``(this worker's address, [work(block) for block in blocks])`` on a Dask worker thread (``work``: the
    job's, :func:`job_work`), with numba's threads set to this machine's share a block.

    A machine runs as many blocks at once as it has Dask threads (``dask worker`` starts one a core, a
    ``LocalCluster`` one process a core), and each block's kernels would use every core: cores x cores threads.
    numba's thread count is per calling thread, and no result depends on it.
    """
    import distributed
    from distributed.comm import get_address_host

    from cpoker.system import jit as _jit  # noqa: F401  (checks this process once, on import, before numba loads)
    import numba

    worker = distributed.get_worker()
    global _threads_on_this_host
    here = host_threads.get(get_address_host(worker.address)) or worker.state.nthreads  # a worker that joined later
    _threads_on_this_host = here
    numba.set_num_threads(max(1, numba.config.NUMBA_NUM_THREADS // max(1, here)))  # type: ignore[attr-defined]
    work = job_work(job)
    return worker.address, [work(block) for block in blocks]


def _block_index(block: Any) -> Any:
    """What identifies a block from one job to the next: the index of an ``(index, count)`` block."""
    return block[0] if isinstance(block, tuple) else None


def _wait_for_a_task(watch, poll: float = 0.02) -> bool:
    """Wait until a task of ``watch`` (an ``as_completed``) is done: ``True``; or a signal came: ``False``.

    The signals only set a flag here (:mod:`cpoker.system.interrupts`), so a plain wait would hold a Ctrl-C until a
    task ended, and a task's length is the user's (a study's hands solved on a billion samples take days).
    """
    while not watch.has_ready():
        interrupts.abandon_if_stopped()  # a job run inside another's block that a signal drops
        if interrupts.stop_requested():
            return False
        time.sleep(poll)
    return True


def run_blocks_dask(blocks: Iterable[Any], work: Callable[[Any], Any], combine: Callable[[Any, Any], None], *,
                    total: int, progress: bool, unit: str, size: Callable[[Any], int], description: str,
                    scheduler: Optional[str], deadline: Optional[float] = None) -> bool:
    """See :func:`cpoker.run.runner.run_blocks`."""
    distributed = _import_distributed()
    import cloudpickle  # a dependency of distributed

    connection = _kept_connection.get()
    owned = connection is None or connection.scheduler != scheduler  # else kept_connection() closes it
    if owned:
        client, cluster = connect(scheduler)
        connection = _Connection(scheduler, client)
    else:
        client, cluster = connection.client, None
    homes = connection.homes
    job = uuid.uuid4().hex
    variable = work_variable(job, client)
    pending: dict = {}  # position -> (its blocks, future)
    finished: dict = {}  # position -> (its blocks, their summaries), waiting for its turn
    next_position = submitted = 0  # next_position: how many tasks are combined
    source = iter(blocks)
    exhausted = False
    try:
        variable.set(cloudpickle.dumps(work))  # once a job, fetched once a worker (:func:`job_work`)
        host_threads = threads_by_host(client)
        threads = max(sum(host_threads.values()), 1)
        window = IN_FLIGHT_PER_THREAD * threads
        first = next(source, None)
        if first is not None:
            # the job's size in blocks, from its total and its first block's; a kept connection's jobs (a build's
            # passes, of a growing share of its sample) group their blocks as its first job did: a block then goes
            # back to the worker that ran it, in a task of the same blocks
            if connection.blocks_per_task is None:
                connection.blocks_per_task = blocks_per_task(-(-total // max(1, size(first))), threads)
            source = grouped(itertools.chain([first], source), connection.blocks_per_task)
        with interrupts.shielded(), progress_bar(total, progress, unit, description) as bar:
            watch = distributed.as_completed()

            def refill() -> None:
                nonlocal submitted, exhausted
                while not exhausted and len(pending) + len(finished) < window:
                    try:
                        task = next(source)
                    except StopIteration:
                        exhausted = True
                        return
                    home = homes.get(_block_index(task[0]))  # (loosely: any worker, when that one is gone or busy)
                    placement = {} if home is None else {"workers": [home], "allow_other_workers": True}
                    future = client.submit(run_block, job, task, host_threads,
                                           key=f"cpoker-{job}-{submitted}", pure=False, retries=2, **placement)
                    pending[submitted] = (task, future)
                    watch.add(future)
                    submitted += 1

            refill()
            completed = iter(watch)
            while pending:
                if stop_before_next_block(next_position, deadline):  # as the local backend does
                    return True
                if not _wait_for_a_task(watch):  # a signal: the tasks in flight are cancelled, not waited for
                    continue
                future = next(completed)
                position = int(future.key.rsplit("-", 1)[1])
                task, _ = pending.pop(position)
                worker, summaries = future.result()  # a block's own error is raised here
                homes.update((_block_index(block), worker) for block in task)  # (the next job may group them otherwise)
                finished[position] = (task, summaries)
                while next_position in finished:  # combine strictly in block order
                    task, summaries = finished.pop(next_position)
                    for block, summary in zip(task, summaries):
                        combine(block, summary)
                        bar.update(size(block))
                    next_position += 1
                refill()
            interrupts.consume()
        return False
    finally:
        for _, future in pending.values():
            future.cancel()
        with contextlib.suppress(Exception):  # (a scheduler gone takes it with it)
            variable.delete()
        if owned:
            client.close()
        if cluster is not None:
            cluster.close()

