"""The skeleton every block job shares: its options settled once, then its blocks run.

A job that plays strategies on dealt hands (a match, a tournament, a
simulation, an exploitability study, a review, a solve) takes the same
options: a seed, rules, tables, strategies, a device, a backend and its
scheduler, a progress bar, a time budget, a saved result to resume, a
checkpoint.  :func:`prepare_job` checks them, in that order, and turns them into
a :class:`Job`: rules resolved, tables loaded, each strategy resolved into
the callable that plays it (a tables file is read once, a bot described
once), the backend checked.  :meth:`Job.start` then draws the seed, or takes
the saved one and the saved sums (:func:`cpoker.run.saved.resumed`), and
:func:`run_job` runs the blocks: signals, threads, bots, the compile notice,
the deadline and the checkpoints are handled there, once.

Each job then says only what is its own: what a block computes, how blocks
add up, what its result is, and what a saved result must match to be resumed.

A job outside the closed game (the open-face game's matches, placements and
Fantasyland values) settles its own strategies and rules, and runs its blocks
on :func:`run_job` with :class:`Runs`: the same threads, time budget, Ctrl-C,
checkpoints, bots' lifetime and partial results.  Nothing else in cpoker
calls :func:`cpoker.run.runner.run_blocks`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, TypeVar

import numpy as np

from cpoker.game.dealing import new_seed
from cpoker.game.devices import check_device
from cpoker.game.rules import Rules, resolve_rules
from cpoker.jobs.solve import MonteCarloStrategy, resolve_player
from cpoker.run import saved
from cpoker.run.runner import check_backend, run_blocks
from cpoker.strategies.bots import bot_broken_result, closing_bots
from cpoker.strategies.policy import resolve_tables
from cpoker.strategies.strategy import Player, Strategy, StrategyLike, TablePolicy
from cpoker.system.errors import Interrupted, OptionError
from cpoker.system.interrupts import shielded
from cpoker.system.limits import check_int, check_seconds, check_seed
from cpoker.system.notice import compile_notice

if TYPE_CHECKING:  # pragma: no cover
    from cpoker.strategies.policy import PolicyTables

Tally = TypeVar("Tally")
Result = TypeVar("Result")


def tables_fingerprint(players: Sequence[Player], tables: "PolicyTables") -> str:
    """sha256 (hex) of the policy tables each player plays by, in seat order: what a saved run records.

    ``table`` and ``table@...`` play by their tables, ``mc`` arranges its
    opponents by ``tables``; greedy and plug-ins read none (``-``).  A run
    continued with other tables -- another ``--tables`` file, or a
    ``table@FILE.npz`` rewritten since -- then shows another fingerprint.
    """
    parts = [player.strategy.tables.fingerprint if isinstance(player.strategy, TablePolicy)
             else tables.fingerprint if isinstance(player.strategy, MonteCarloStrategy) else "-"
             for player in players]
    return hashlib.sha256(" ".join(parts).encode("ascii")).hexdigest()


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


@dataclass(frozen=True, kw_only=True)
class Job(Runs):
    """A job's options, checked and resolved once (:func:`prepare_job`): how its blocks run (:class:`Runs`), and
    the seed, rules, tables, players and device."""

    seed: Optional[int]  # None: drawn by :meth:`start`, unless a resumed job takes its saved one
    rules: Rules
    tables: "PolicyTables"
    players: tuple[Player, ...]
    device: str = "cpu"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(player.name for player in self.players)

    @property
    def strategies(self) -> tuple[Strategy, ...]:
        return tuple(player.strategy for player in self.players)

    @functools.cached_property
    def tables_fingerprint(self) -> str:
        """:func:`tables_fingerprint` of the job's players (hashed once: each saved state records it)."""
        return tables_fingerprint(self.players, self.tables)

    def start(self, resume: object, new: Callable[[], Tally], read: "Callable[[dict, dict], saved.Reading]", *,
              kind: str, state_format: str, unit: str, asked: int, block: int,
              now: "dict[str, object] | None" = None, label: Optional[str] = None) -> tuple[Tally, int]:
        """``(tally, seed)`` to run from: ``new()`` and the seed (drawn now when none was given), or, resuming,
        the saved tally and seed, checked by the shared protocol (:func:`cpoker.run.saved.resumed`) against this
        job's seed, rules, tables fingerprint and ``now`` (the job's own settings)."""
        if resume is None:
            return new(), new_seed() if self.seed is None else self.seed
        return saved.resumed(resume, kind, state_format, read, seed=self.seed, rules=self.rules,
                             tables_sha256=self.tables_fingerprint, now=now or {}, unit=unit, asked=asked,
                             block=block, label=label)


def seat_strategies(strategies: object, most: int, job: str, per_seat: str = "") -> list:
    """The strategies of a job with a seat for each, 2 to ``most`` of them, as a list (a NumPy array of names
    too, e.g. a column of a table of results).

    Raises
    ------
    OptionError
        For one string, something that is not a sequence, or too few or too many strategies.
    """
    if isinstance(strategies, np.ndarray):
        strategies = strategies.tolist()
    if isinstance(strategies, str) or not isinstance(strategies, Sequence) or not 2 <= len(strategies) <= most:
        shown = "one string" if isinstance(strategies, str) else \
            f"{len(strategies)}" if isinstance(strategies, Sequence) else type(strategies).__name__
        raise OptionError(f"{job} needs 2 to {most} strategies{per_seat}, got {shown}")
    return list(strategies)


def prepare_job(strategies: Sequence[StrategyLike], *, seed: object = None, rules: "Rules | str | None" = None,
           tables: "PolicyTables | str | None" = None, device: object = "cpu", backend: object = "local",
           scheduler: object = None, progress: bool = False, time_budget: object = None,
           checkpoint: object = None, checkpoint_seconds: object = 10.0, jobs: Optional[int] = None) -> Job:
    """A :class:`Job` of these options, checked in the order they are reported: the seed, the rules, the tables
    (by default those shipped for the rules), each strategy, the device, the backend, the time budget, the
    checkpoint.  ``jobs`` (threads) is checked when the job runs (:func:`numba_threads`).

    Raises
    ------
    OptionError, RulesError, StrategyError
        Naming the first option that is wrong.
    """
    seed = check_seed(seed)
    rules = resolve_rules(rules)
    tables = resolve_tables(tables, rules)
    players = tuple(resolve_player(strategy, tables, rules) for strategy in strategies)
    device = check_device(device)
    run = runs(jobs=jobs, backend=backend, scheduler=scheduler, progress=progress, time_budget=time_budget,
               checkpoint=checkpoint, checkpoint_seconds=checkpoint_seconds)
    return Job(seed=seed, rules=rules, tables=tables, players=players, device=device,
               **{option.name: getattr(run, option.name) for option in dataclasses.fields(run)})


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
            size: "Callable[[Any], int] | None" = None) -> Result:
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
    with shielded(), (numba_threads if threads else _unchanged_threads)(job.jobs), closing_bots(), \
            bot_broken_result(lambda: result(True) if has_result() else None):
        if warm_up is not None:
            with compile_notice():
                work(warm_up)
        if clock is not None:
            clock.restart()
        deadline = None if job.time_budget is None else time.monotonic() + job.time_budget
        checkpoint = job.checkpoint
        partial = run_blocks(blocks, work, combine, total=total, progress=job.progress, unit=unit,
                             description=description, backend=job.backend, scheduler=job.scheduler,
                             deadline=deadline, group=group, work_many=work_many, size=size,
                             checkpoint=None if checkpoint is None else lambda: checkpoint(result(not complete())),
                             checkpoint_seconds=job.checkpoint_seconds)
    if not has_result():
        raise Interrupted()
    return result(partial and not complete())
