"""The one seam for block-parallel jobs: blocks in, per-block summaries out, a fixed reduction order.

Every long job (simulations, matches, the solver's samples, self-play) is
cut into blocks described by small values -- typically ``(index, count)``,
where block ``index`` draws its cards from ``default_rng([seed, index])``.  A
job gives :func:`run_blocks` three things:

* ``blocks`` -- an iterable (a generator: nothing is materialised, so a job
  of 10**10 deals costs no memory up front);
* ``work(block) -> summary`` -- a pure function of the block (numba kernels
  inside use every core; a block's answer never depends on the thread count);
* ``combine(block, summary)`` -- folds summaries in block order.

Results therefore depend on the seed alone.  SIGINT/SIGTERM between blocks
stop the job (see :mod:`cpoker.system.interrupts`); it then returns ``partial=True``
with every completed block combined.  Other backends (a Dask cluster, a GPU)
plug in here and nowhere else.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from typing import Any

from cpoker.system import interrupts
from cpoker.run.backends.dask import kept_connection, kept_threads, run_blocks_dask, worker_memory_budget
from cpoker.run.blocks import grouped, progress_bar, stop_before_next_block
from cpoker.system.errors import OptionError


BACKENDS = ("local", "dask")


def check_backend(backend: object, scheduler: object = None) -> str:
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise OptionError(f"backend must be 'local' or 'dask', got {backend!r}")
    if scheduler is not None and (backend != "dask" or not isinstance(scheduler, str) or not scheduler):
        raise OptionError("a scheduler address (e.g. tcp://127.0.0.1:8786) goes with backend='dask'")
    return backend


@contextlib.contextmanager
def backend_kept(backend: str, scheduler: "str | None" = None, cleanup: "Callable[[], None] | None" = None):
    """Inside, the jobs on ``backend`` share one connection to it: a job of many :func:`run_blocks` calls (a
    tables build's passes) connects to a Dask cluster, or starts the embedded one, once, and each block index
    goes back to the worker process that ran it last, so that what a block's work keeps in its process
    (:func:`kept_memory_budget`) is found by the next job's block.  ``cleanup()`` runs in every worker process at
    the end.  Nothing for ``"local"``: the blocks run in this process."""
    if check_backend(backend, scheduler) != "dask":
        yield
        return
    with kept_connection(scheduler, cleanup):
        yield


def backend_threads() -> int:
    """The blocks the backend kept by :func:`backend_kept` runs at once: a Dask cluster's worker threads (1
    outside, or locally: one block at a time, numba's threads inside it)."""
    import sys

    if "distributed" not in sys.modules:
        return 1
    return kept_threads()


def kept_memory_budget(default: int) -> int:
    """Bytes a block's work may keep in its process from one job to the next (see :func:`backend_kept`), of
    ``default`` a machine: here, ``default``; on a Dask worker, its share of the machine's (its threads over
    the Dask threads there: a ``LocalCluster`` runs a process a core) and at most a quarter of its memory limit."""
    import sys

    if "distributed" not in sys.modules:
        return default
    budget = worker_memory_budget(default)
    return default if budget is None else budget


def run_blocks(blocks: Iterable[Any], work: Callable[[Any], Any], combine: Callable[[Any, Any], None], *,
               total: int, progress: bool = False, unit: str = "deal", size: "Callable[[Any], int] | None" = None,
               description: str = "", backend: str = "local", scheduler: "str | None" = None,
               deadline: "float | None" = None, group: int = 1,
               work_many: "Callable[[list], list] | None" = None,
               checkpoint: "Callable[[], None] | None" = None, checkpoint_seconds: float = 10.0) -> bool:
    """Run ``work`` on each block and ``combine`` the summaries in block order.

    Parameters
    ----------
    blocks
        The blocks, in the order their summaries are combined.
    work, combine
        See the module docstring.  ``work`` may raise
        :class:`~cpoker.system.interrupts.Abandoned` (a signal dropped the block: see
        :func:`~cpoker.system.interrupts.deferred`); the job then stops as after a
        signal between blocks, without that block.
    total, unit, description
        For the progress bar (``total`` in ``unit``).
    size
        Units of work in a block (default: ``block[1]``, the count of ``(index, count)``).
    progress
        Show a progress bar with rate and ETA on standard error.
    deadline
        A ``time.monotonic()`` after which no new block starts: the job then
        returns what it has, partial, like after a signal (the web server's time
        budget).  The first block always runs.
    group, work_many
        With ``group > 1``, ``work_many(blocks) -> summaries`` runs ``group``
        consecutive blocks in one call (a GPU needs ~10**5 hands a launch, more
        than one block holds); each summary is still combined on its own, in
        order, so the result is the same.  Signals and the deadline are then
        acted on between groups.
    checkpoint, checkpoint_seconds
        ``checkpoint()`` is called after a block is combined, at most every
        ``checkpoint_seconds`` (the first time that long after the start), for
        the job to save what it has (``cpoker match --checkpoint``).
    backend, scheduler
        ``"local"`` runs the blocks here, one after another (numba threads inside
        each); ``"dask"`` sends them to a Dask cluster -- the one at
        ``scheduler`` (``tcp://host:port``), or a ``LocalCluster`` started and
        closed for the job -- and combines the summaries in the same order, so the
        result is identical.  A worker that dies has its blocks recomputed elsewhere.

    Returns
    -------
    bool
        ``True`` when a signal stopped the job before every block ran (the
        combined summaries then cover the completed blocks only).

    Raises
    ------
    Interrupted
        When a signal arrives before the first block completes: there is nothing to return.
    """
    if size is None:
        size = _count_of_block
    if checkpoint is not None:
        combine = _checkpointed(combine, checkpoint, checkpoint_seconds)
    if group > 1 and work_many is not None:
        blocks, work = grouped(blocks, group), work_many
        combine_one, size_one = combine, size

        def combine(chunk, summaries):
            for block, summary in zip(chunk, summaries):
                combine_one(block, summary)

        def size(chunk):
            return sum(size_one(block) for block in chunk)

    if check_backend(backend, scheduler) == "dask":
        return run_blocks_dask(blocks, work, combine, total=total, progress=progress, unit=unit, size=size,
                               description=description, scheduler=scheduler, deadline=deadline)
    done = 0
    with interrupts.shielded(), progress_bar(total, progress, unit, description) as bar:
        for block in blocks:
            if stop_before_next_block(done, deadline):
                return True
            try:
                summary = work(block)
            except interrupts.Abandoned:
                if interrupts.deferring():
                    raise  # this job runs inside the dropped block: the enclosing one stops
                stop_before_next_block(done, None)  # raises Interrupted when no block was done
                return True
            combine(block, summary)
            done += 1
            bar.update(size(block))
        interrupts.consume()  # a signal after the last block: the result is complete
    return False


def _count_of_block(block: Any) -> int:
    """The units of an ``(index, count)`` block."""
    return block[1]


def _checkpointed(combine: Callable[[Any, Any], None], checkpoint: Callable[[], None],
                  seconds: float) -> Callable[[Any, Any], None]:
    """``combine``, then ``checkpoint()`` once ``seconds`` have passed since the start or the last checkpoint."""
    due = time.monotonic() + seconds

    def combine_and_checkpoint(block, summary) -> None:
        nonlocal due
        combine(block, summary)
        if time.monotonic() >= due:
            checkpoint()
            due = time.monotonic() + seconds

    return combine_and_checkpoint
