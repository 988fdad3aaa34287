"""The ``cpoker`` console script: Ctrl-C is clean from the first instant.

:func:`run` first installs a handler that ends the process with ``cpoker:
interrupted`` and status 128 + the signal number -- nothing has been computed
yet, so nothing is lost -- and only then imports the command line (argparse,
json, numpy...).  :func:`cpoker.cli.main` replaces that handler with the
shield that lets long jobs stop cleanly (see :mod:`cpoker.system.interrupts`).

It also raises the garbage collector's first threshold from 700 to 200,000
new container objects, as mypy's command line does: importing numba and
loading cached kernels creates a few hundred thousand long-lived objects, and
with the default thresholds the collector runs again and again during a
command to free next to nothing.  Reference counting still frees everything
at once; only cycles wait longer.  When the command is done, every object
left is frozen (:func:`gc.freeze`) before the interpreter shuts down: its
final collections would otherwise walk them all (docs/performance.md has what
both cost a ``cpoker solve``).  Nothing is lost by it:
files are closed and atexit handlers run as before; only the collection of
cycles no one will ever use again is skipped.  The library itself leaves the
collector alone.
"""

import gc
import os
import signal
import sys


def _interrupted_while_starting(signum, frame):  # pragma: no cover - timing-dependent, tested by signals
    os.write(2, b"cpoker: interrupted\n")
    os._exit(128 + signum)


def _hold_closed_standard_streams() -> None:
    """Put the null device under a standard stream's number where it was closed at the start (``>&-``, ``2>&-``,
    a daemon's launcher).

    Otherwise the first file the command opens (a kernel cache file, the ``--out`` file) takes that number, and
    whatever writes to standard error then (numba's and LLVM's C code, a second Ctrl-C's message) writes into
    it.  Python has no ``sys.stderr`` then either, and the first message was an ``AttributeError`` that ended
    the command with its result unprinted; its messages now go to the null device, as the user asked.  A closed
    standard output stays ``None``: the command says that it cannot write its result (:func:`cpoker.cli.main`).
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one, as the lower ones are open
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")


def run() -> None:
    """Run the command line and exit with its status."""
    _hold_closed_standard_streams()
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) != signal.SIG_IGN:  # one the process ignores (a shell's `cpoker ... &`) stays so
            signal.signal(signum, _interrupted_while_starting)
    gc.set_threshold(200_000, 30, 30)
    from cpoker.cli import run as cli_run

    try:
        cli_run()
    finally:
        gc.freeze()
