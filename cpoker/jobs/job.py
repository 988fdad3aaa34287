"""The skeleton every block job runs on: :func:`run_job` runs a job's blocks, and nothing else in cpoker calls the
block runner (:func:`cpoker.run.runner.run_blocks`).

Signals, threads (:func:`numba_threads`), bots' lifetime, the compile notice, the deadline, checkpoints and
partial results are handled there, once; a job says only what is its own: what a block computes, how blocks add
up, what its result is.  :class:`Runs` holds how a job's blocks run (threads, backend, progress, time budget,
checkpoint).  The closed game's jobs that play strategies on dealt hands settle the rest of their options in
:mod:`cpoker.jobs.prepared` (a :class:`~cpoker.jobs.prepared.Job` is a :class:`Runs`); the open-face jobs, the
solver and the table build settle their own and run here too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Optional, TypeVar

from cpoker.run import saved
from cpoker.run.runner import check_backend, run_blocks
from cpoker.strategies.bots import bot_broken_result, closing_bots
from cpoker.system.errors import Interrupted
from cpoker.system.interrupts import shielded
from cpoker.system.limits import check_int, check_seconds
from cpoker.system.notice import compile_notice

Result = TypeVar("Result")


@dataclass(frozen=True)
class Runs:
    """How a job's blocks run (:func:`run_job`), for the jobs that settle the rest of their options themselves:
    the threads, the backend, a progress bar, a time budget and a checkpoint.  A :class:`Job` is one, with the
    rest of its options.  :func:`runs` makes one with its options checked."""

    jobs: Optional[int] = None
    backend: str = "local"
    scheduler: Optional[str] = None
    progress: bool = False
    time_budget: Optional[float] = None
    checkpoint: Optional[Callable[[Any], None]] = None
    checkpoint_seconds: float = 10.0


def runs(*, jobs: Optional[int] = None, backend: object = "local", scheduler: object = None, progress: bool = False,
         time_budget: object = None, checkpoint: object = None, checkpoint_seconds: object = 10.0) -> Runs:
    """:class:`Runs` of these options, checked (``jobs`` is checked when the job runs: :func:`numba_threads`).

    Raises
    ------
    OptionError
        Naming the first option that is wrong.
    """
    backend = check_backend(backend, scheduler)
    budget = None if time_budget is None else check_seconds("time_budget", time_budget, True)
    saved.check_checkpoint(checkpoint, checkpoint_seconds)
    return Runs(jobs=jobs, backend=backend, scheduler=scheduler if isinstance(scheduler, str) else None,
                progress=bool(progress), time_budget=budget, checkpoint=checkpoint if callable(checkpoint) else None,
                checkpoint_seconds=float(checkpoint_seconds))  # type: ignore[arg-type]


@dataclass
class HandTally:
    """What a job of hands (an exploit run, a review) has so far: ``{hand number: its result}``, the seconds of
    the runs it resumes, and the hands settled as fouls for a bot's faults."""

    results: dict = field(default_factory=dict)
    seconds: float = 0.0
    bot_faults: int = 0


class Clock:
    """A job's seconds: those of the run it resumes, and this run's since :meth:`restart` (after the warm-up)."""

    def __init__(self, earlier: float = 0.0) -> None:
        self.earlier = earlier
        self.started = time.perf_counter()

    def restart(self) -> None:
        self.started = time.perf_counter()

    def seconds(self) -> float:
        return self.earlier + time.perf_counter() - self.started


_HELD = threading.local()  # the thread count an enclosing numba_threads holds, in this thread


@contextmanager
def numba_threads(jobs: Optional[int]):
    """Run the kernels that :mod:`cpoker.system.threads` runs on parts of a batch (every multi-threaded job of
    cpoker) on ``jobs`` threads (default: all cores, or inside another job -- an ``mc`` strategy's placements in
    a match -- the threads that job holds): numba's thread count, which :func:`cpoker.system.threads.in_parts`
    follows."""
    import numba

    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    held = getattr(_HELD, "jobs", None)
    if jobs is None:
        jobs = most if held is None else held
    if isinstance(jobs, int) and not isinstance(jobs, bool) and jobs > most:
        jobs = most  # more threads than cores would not change a result, only slow it down
    jobs = check_int("jobs", jobs, 1, most, " (the cores numba may use)")
    previous = numba.get_num_threads()
    numba.set_num_threads(int(jobs))
    _HELD.jobs = int(jobs)
    try:
        yield int(jobs)
    finally:
        numba.set_num_threads(previous)
        _HELD.jobs = held


@contextmanager
def _unchanged_threads(jobs: Optional[int]):
    yield jobs


def run_job(job: Runs, blocks: Iterable[Any], work: Callable[[Any], Any],
            combine: Callable[[Any, Any], None], result: Callable[[bool], Result], *, has_result: Callable[[], bool],
            complete: Callable[[], bool], total: int, clock: Optional[Clock] = None, unit: str = "deal",
            description: str = "", warm_up: Any = None, group: int = 1,
            work_many: "Callable[[list], list] | None" = None, threads: bool = True,
            size: "Callable[[Any], int] | None" = None, deadline: Optional[float] = None,
            inner: bool = False) -> Result:
    """Run a settled job's blocks (:func:`cpoker.run.runner.run_blocks`) and return ``result(partial)``.

    Parameters
    ----------
    job
        The settled options (a :class:`Job`, or :class:`Runs`): backend, progress, time budget, checkpoint,
        threads.
    blocks, work, combine
        As for :func:`~cpoker.run.runner.run_blocks`: the blocks this run lacks, in order.
    result
        ``result(partial)``: the job's result of the blocks combined so far (a resumed job's saved ones too).
    has_result, complete
        Whether any block is combined, and whether all are (the checkpoint's ``partial``).
    clock
        Restarted after the warm-up, so that the result's seconds are the job's own.
    size
        Units of a block, for the progress bar (default: its count, ``block[1]``).
    deadline
        A ``time.monotonic()`` past which no block starts, for a job whose budget started before it (the
        solver's); default: ``job.time_budget`` from now.
    inner
        A job run inside another job's block (the solver inside a review, the table build's passes): a broken
        bot's error then carries the outer job's result, not this one's.
    warm_up
        A small block run first, for nothing but to compile (or load) the kernels and start the bots, under
        the compiling notice.
    group, work_many
        Blocks a call (a GPU's batch), as for :func:`~cpoker.run.runner.run_blocks`.
    threads
        Run on ``job.jobs`` numba threads (``False``: as many as the caller runs).

    Raises
    ------
    Interrupted
        When a signal stopped the job before any block was combined.
    BotBroken
        When a bot broke; its ``result`` is the job's partial result, when it has one.
    """
    carried = (lambda: None) if inner else (lambda: result(True) if has_result() else None)
    with shielded(), (numba_threads if threads else _unchanged_threads)(job.jobs), closing_bots(), \
            bot_broken_result(carried):
        if warm_up is not None:
            with compile_notice():
                work(warm_up)
        if clock is not None:
            clock.restart()
        if deadline is None and job.time_budget is not None:
            deadline = time.monotonic() + job.time_budget
        checkpoint = job.checkpoint
        partial = run_blocks(blocks, work, combine, total=total, progress=job.progress, unit=unit,
                             description=description, backend=job.backend, scheduler=job.scheduler,
                             deadline=deadline, group=group, work_many=work_many, size=size,
                             checkpoint=None if checkpoint is None else lambda: checkpoint(result(not complete())),
                             checkpoint_seconds=job.checkpoint_seconds)
    if partial and not has_result():  # (stopped before a block; no blocks at all is a result)
        raise Interrupted()
    return result(partial and not complete())
