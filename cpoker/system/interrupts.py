"""SIGINT and SIGTERM handled in Python, between kernel calls, never inside them.

Python runs a signal handler at the next bytecode boundary of the main
thread.  While a numba kernel runs there is none, and the handler may then run
inside numba's own C callbacks: a ``KeyboardInterrupt`` raised there surfaces
as ``SystemError: CPUDispatcher(...) returned a result with an exception set``
and loses the work done.  So cpoker never lets the default handler raise
while its kernels may run.  Inside :func:`shielded` a signal only records
itself; long jobs look at :func:`stop_requested` between blocks and return
what they have, marked partial; anything else re-raises the signal as
:class:`~cpoker.Interrupted` from plain Python code once the kernel in
flight has returned.  A job made of other jobs (a study's solves, a strategy
that solves each hand, the terms a build learns between its passes) keeps
the signal from its inner jobs with :func:`deferred`; where the user sets a
block's length, the block is dropped at the inner jobs' next block
(:class:`Abandoned`) rather than waited for.

A signal the process ignores (``SIG_IGN``: a shell starts a background job,
``cpoker ... &`` in a script, with SIGINT ignored) stays ignored inside the
block too: the job runs to its end.

Handlers can only be installed from the main thread; elsewhere (a web
server's worker threads, Dask workers) :func:`shielded` does nothing and
signals keep their usual behaviour.
"""

from __future__ import annotations

import os
import signal
import threading

# The C module under ``signal``: the same calls without the enum conversions, 7x cheaper (a shield is set
# up around every kernel call, some of which take only tens of microseconds).
import _signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Optional

from cpoker.system.errors import Interrupted

SIGINT, SIGTERM = int(signal.SIGINT), int(signal.SIGTERM)
_SIG_DFL = _signal.SIG_DFL  # what a handler that Python did not install (None) is restored as
_SIG_IGN = _signal.SIG_IGN  # a signal the process was set to ignore (a job started in the background) stays ignored


class Shield:
    """State of the outermost :func:`shielded` block (one per process)."""

    __slots__ = ("hard_exit", "pending", "first", "depth", "count", "previous")

    def __init__(self, hard_exit: bool) -> None:
        self.hard_exit = hard_exit  # a second signal ends the process at once (the command line)
        self.pending: Optional[int] = None  # received and not yet acted on
        self.first: Optional[int] = None  # the first signal received inside the block
        self.depth = 0
        self.count = 0  # signals received so far: a job of several passes compares it between passes
        self.previous: tuple = ()  # the handlers of SIGINT and SIGTERM before the block

    def handle(self, signum: int, frame) -> None:  # runs in the main thread, between bytecodes
        previous = self.previous
        if previous and previous[signum != SIGINT] == _SIG_IGN:  # the process ignores it (a shell's `cpoker ... &`)
            return
        if self.first is not None and self.hard_exit:
            os.write(2, b"cpoker: interrupted\n")
            os._exit(128 + signum)
        if self.first is None:
            self.first = signum
            if self.hard_exit:  # a user at a terminal, who may wait a long block: said at once
                try:
                    if os.isatty(2):
                        os.write(2, STOPPING)
                except OSError:  # a terminal hung up: nothing must raise here, inside a kernel's callbacks maybe
                    pass
        self.count += 1
        self.pending = signum


# the command line's answer to a first signal on a terminal (on a line of its own: a progress bar's is drawn again
# under it); a job stops after its block in flight, which can take a minute (a 10**8-hand pass on a GPU)
STOPPING = b"\ncpoker: stopping after the work in flight; Ctrl-C again quits at once, with no result\n"

_active: Optional[Shield] = None
_OUTER, _INNER, _OFF_MAIN = 1, 2, 3  # what a block's __exit__ undoes


class shielded:
    """Hold SIGINT/SIGTERM as a flag for the duration of the block.

    Nested blocks share the outermost one.  On leaving the outermost block the
    previous handlers come back, and a signal that no job acted on (see
    :func:`consume`) is raised as :class:`~cpoker.Interrupted`.
    ``hard_exit`` (the command line) makes a second signal end the process at
    once, for a user who does not want to wait for the kernel in flight.
    ``with shielded() as shield`` gives the shield, or ``None`` off the main thread.

    A class rather than a generator-based context manager, with the signals'
    handlers swapped by the C module's calls: every kernel call goes through
    one, and ``cpoker.table(hand)`` calls a kernel of a few microseconds.
    """

    __slots__ = ("hard_exit", "_role")

    def __init__(self, hard_exit: bool = False) -> None:
        self.hard_exit = hard_exit
        self._role = 0

    def __enter__(self) -> Optional[Shield]:
        global _active
        active = _active
        if active is not None:
            active.depth += 1
            self._role = _INNER
            return active
        if threading.get_ident() != threading.main_thread().ident:
            self._role = _OFF_MAIN
            return None
        shield = Shield(self.hard_exit)
        handle = shield.handle
        shield.previous = (_signal.signal(SIGINT, handle), _signal.signal(SIGTERM, handle))
        _active = shield
        self._role = _OUTER
        return shield

    def __exit__(self, kind, value, traceback) -> None:
        global _active
        role = self._role
        if role == _INNER:
            assert _active is not None  # (an inner shield is inside the active one)
            _active.depth -= 1
            return
        if role != _OUTER:
            return
        shield, _active = _active, None
        assert shield is not None  # (the outer shield is the active one)
        previous_int, previous_term = shield.previous
        _signal.signal(SIGINT, _SIG_DFL if previous_int is None else previous_int)
        _signal.signal(SIGTERM, _SIG_DFL if previous_term is None else previous_term)
        if kind is None and shield.pending is not None:
            raise Interrupted(shield.pending)


def stop_requested() -> bool:
    """Whether a signal arrived inside the current shield that no job has acted on yet.

    Always false inside :func:`deferred`: there the signal waits for the outer job.
    """
    return _active is not None and _active.pending is not None and not _deferring


_deferring = 0


class Abandoned(Interrupted):
    """A signal dropped the block in flight of a job made of other jobs (see :func:`deferred`).

    Raised from plain Python code between the inner jobs' own blocks, never
    from a kernel; the job's runner (:func:`cpoker.run.runner.run_blocks`) catches
    it, drops the block and stops with what the blocks before it gave.  Raised
    outside any job's block (a strategy's warm-up), it is what it derives
    from: :class:`~cpoker.Interrupted`, there being nothing to return.
    """


@contextmanager
def deferred() -> Iterator[None]:
    """Leave a signal to the enclosing job: jobs run inside (a solve within a study's block) never see it.

    A job made of other jobs wants one answer to Ctrl-C: stop and return what
    it has.  Without this, the inner job would act on the signal itself
    (returning a partial answer for one hand, taking it for the end of a
    complete one, or raising before its first block) and the outer job would
    never know.  The inner jobs raise :class:`Abandoned` at their next block
    instead (:func:`abandon_if_stopped`), and the enclosing job drops its block
    in flight rather than wait for it: such a block's length is the user's (a
    study's hands solved on a billion samples each would keep a Ctrl-C waiting
    for days).
    """
    global _deferring
    if threading.current_thread() is not threading.main_thread():
        yield  # off the main thread there is no shield, so nothing to defer (and other threads are unaffected)
        return
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1


def deferring() -> bool:
    """Whether the code runs inside :func:`deferred`: an :class:`Abandoned` is then the enclosing job's."""
    return bool(_deferring)


def abandon_if_stopped() -> None:
    """Inside :func:`deferred`, raise :class:`Abandoned` if a signal is pending (not consuming it)."""
    if _deferring and _active is not None and _active.pending is not None:
        raise Abandoned(_active.pending)


def consume() -> Optional[int]:
    """Mark the pending signal as handled (a job stopped for it); returns it, or ``None``.

    Inside :func:`deferred` nothing is consumed: the signal is the enclosing job's.
    """
    if _active is None or _active.pending is None or _deferring:
        return None
    signum, _active.pending = _active.pending, None
    return signum


def received() -> Optional[int]:
    """The first signal received inside the current shield (acted on or not), or ``None``."""
    return None if _active is None else _active.first


def signals_seen() -> int:
    """How many signals the current shield has received (0 outside a shield)."""
    return 0 if _active is None else _active.count
