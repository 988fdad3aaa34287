"""One kernel call spread over threads: a ``nogil`` kernel run on parts of a batch, side by side.

numba's ``parallel=True`` (``prange``) compiles the loop it parallelises anew around the loop's body, and
that is paid by a command's first run after installing, seconds of every first command.  Every
multi-threaded job of cpoker (the table and greedy policies' batches, the seeded deals, a build's
certificates, searches and learning sums, the solver's scoring bonus) instead has its body compiled as a
kernel of its own, with ``nogil`` (:data:`cpoker.system.jit.JIT_OPTIONS`), and Python threads run it on parts of
the batch at once: the calling thread and up to ``numba.get_num_threads() - 1`` threads of a pool shared by
the process, each taking the next part until none is left.  A part's answers are the kernel's alone (or
integer sums, the same in any order), so neither the parts nor the threads nor their order change a result,
and ``numba.set_num_threads`` (``jobs=``) bounds the threads a call uses as it bounds numba's own.

The pool is made at the first call that needs it, with ``NUMBA_NUM_THREADS - 1`` threads; a process
forked after that (``os.fork``, multiprocessing's ``fork``) starts without it and makes its own.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import numba

# parts a thread takes on average: enough that a thread whose parts hold slow hands (the table policy's
# searches are lopsided) does not hold up the others, few enough that each call's cost (a few microseconds
# to call a kernel from Python, a lock) stays far below a part's time
PARTS_PER_THREAD = 8

_pool: Optional[ThreadPoolExecutor] = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max(1, numba.config.NUMBA_NUM_THREADS - 1),  # type: ignore[attr-defined]
                                       thread_name_prefix="cpoker-kernel")
        return _pool


def _forget_pool() -> None:
    """In a forked child: the parent's pool threads were not forked with it (submitting to them would wait
    forever), so the child makes a pool of its own when it needs one."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):  # (every POSIX Python; Windows does not fork)
    os.register_at_fork(after_in_child=_forget_pool)


def in_parts(run_part: Callable[[int, int], None], count: int, smallest: int) -> None:
    """Call ``run_part(start, stop)`` over ``0 .. count`` in parts of ``smallest`` items or more, on the calling
    thread and, for more than one part, on up to ``numba.get_num_threads() - 1`` pool threads at once.

    ``run_part`` calls a ``nogil`` kernel that writes only its own part of the outputs.  Returns once every
    part is done; an exception from a part is raised here, after the other threads have stopped.
    """
    threads = min(numba.get_num_threads(), -(-count // smallest))
    if threads <= 1:
        run_part(0, count)
        return
    size = max(smallest, -(-count // (threads * PARTS_PER_THREAD)))
    starts = iter(range(0, count, size))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                start = next(starts, None)
            if start is None:
                return
            run_part(start, min(count, start + size))

    helpers = [_executor().submit(work) for _ in range(threads - 1)]
    try:
        work()
    finally:
        for helper in helpers:
            helper.result()
