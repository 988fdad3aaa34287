"""The ``cpoker`` console script: Ctrl-C is clean from the first instant.

Importing this module (the console script does, before anything else of
cpoker's) installs a handler that ends the process with ``cpoker:
interrupted`` and status 128 + the signal number: nothing has been computed
yet, so nothing is lost.  :func:`cpoker.cli.main` then replaces it with the
shield that lets long jobs stop cleanly (see :mod:`cpoker.interrupts`).
"""

import os
import signal


def _interrupted_while_starting(signum, frame):  # pragma: no cover - timing-dependent, tested by signals
    os.write(2, b"cpoker: interrupted\n")
    os._exit(128 + signum)


for _signum in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_signum, _interrupted_while_starting)


def run() -> None:
    """Run the command line and exit with its status."""
    from .cli import run as cli_run

    cli_run()

