"""Blocks of work: how a long job is cut, shown and stopped, whatever backend runs it.

A job is a lazy sequence of small block descriptions, usually ``(index, count)`` from :func:`blocks_of`.
The backends (:mod:`cpoker.run.runner` here, :mod:`cpoker.run.backends.dask` on a cluster) share these helpers:
a progress bar, lists of consecutive blocks, and the check between blocks for a signal or a deadline.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable
from typing import Any

from cpoker.system import interrupts
from cpoker.system.errors import Interrupted


def progress_bar(total: int, enabled: bool, unit: str = "deal", description: str = ""):
    """A tqdm bar on standard error, or (``enabled`` false) a stand-in that does nothing."""
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, unit_scale=True, leave=False, dynamic_ncols=True, desc=description or None)


class _NoBar:
    """A disabled bar: without importing tqdm and the multiprocessing it loads (a cost of every command)."""

    def __enter__(self) -> "_NoBar":
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def update(self, n: float = 1) -> None:
        return None


def stop_before_next_block(done: int, deadline: "float | None") -> bool:
    """Whether a job must stop before its next block: a signal arrived, or ``deadline`` passed.

    A signal is acted on (consumed) here; one before any block is done raises
    :class:`~cpoker.Interrupted`, as there is nothing to return.  The
    deadline only stops a job that has a result, so the first block always runs.
    """
    interrupts.abandon_if_stopped()  # an inner job of a block that a signal drops (see interrupts.deferred)
    if interrupts.stop_requested():
        signum = interrupts.consume()
        if not done:
            raise Interrupted(signum or 2)
        return True
    return bool(done) and deadline is not None and time.monotonic() > deadline


def grouped(blocks: Iterable[Any], size: int):
    """Consecutive blocks in lists of ``size`` (the last may be shorter), generated lazily."""
    iterator = iter(blocks)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


def blocks_of(total: int, size: int, first_index: int = 0):
    """``(index, count)`` for ``total`` units in blocks of ``size``, generated lazily."""
    index = first_index
    for start in range(0, total, size):
        yield index, min(size, total - start)
        index += 1
