"""The one-time "compiling kernels" notice of a cold start, kept apart from numba.

The command line enables it before it knows whether the command will run a
kernel at all; importing this module does not import numba.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

# The command line turns this on when standard error is a terminal: a cold start (empty cache) then says
# once that it is compiling, instead of sitting silent for several seconds.
NOTICE = {"enabled": False, "shown": False, "after": 0.5}


def _show_notice() -> None:
    if not NOTICE["shown"]:
        NOTICE["shown"] = True
        import sys

        print("cpoker: compiling kernels (first run after installing; later runs start at once)...",
              file=sys.stderr, flush=True)


@contextmanager
def compile_notice():
    """Around a first kernel call: print the compiling notice if it takes long (enabled by the CLI)."""
    if not NOTICE["enabled"] or NOTICE["shown"]:
        yield
        return
    timer = threading.Timer(NOTICE["after"], _show_notice)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
