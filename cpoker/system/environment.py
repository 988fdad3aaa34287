"""Checks of the process environment before numba loads: threads, stacks and the address-space limit.

Under a tight address-space limit numba's compiler cannot load, LLVM aborts the process while compiling, or
OpenMP cannot start its threads; these checks turn that into one clear error before any of it happens.
"""

from __future__ import annotations

import os

try:  # imported now: under a tight address-space limit, importing it to report the limit could itself fail
    import resource  # POSIX
except ImportError:
    resource = None  # type: ignore[assignment]

from cpoker.system.errors import MemoryLimitError, OptionError

# MiB the kernels need besides their threads' stacks: compiling them (the first run after installing, or after a
# change) takes up to 860 MiB with one thread and one malloc arena (a tables build; LLVM aborts the process when it
# runs out), with its kernels cached 410 (numba's compiler alone is 170); each thread adds its stack, 8 MiB a
# thread from 1 to 64 here.  Whether they are cached is not known before numba is loaded, so the bound is
# the first run's, with room to spare.
KERNEL_ADDRESS_SPACE = 1008

M_ARENA_MAX = -8  # glibc's mallopt parameter (malloc.h): the most malloc arenas a process creates
MAX_THREADS = 4096  # NUMBA_NUM_THREADS: beyond any machine's cores (32,768 threads could not start here)


def address_space_limit() -> "int | None":
    """The MiB of address space this process may use (``ulimit -v``, or a cluster scheduler's memory limit), or
    None when it is not limited (or the platform has no such limit)."""
    if resource is None:
        return None
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if limit == resource.RLIM_INFINITY else limit // 2**20


def kernel_threads() -> int:
    """The threads numba will start for the parallel kernels, read as numba reads it: ``NUMBA_NUM_THREADS``, or
    else the CPUs this process may run on.

    Raises :class:`OptionError` when ``NUMBA_NUM_THREADS`` is set to anything but a whole number from 1 to
    :data:`MAX_THREADS`: numba raised a traceback for 0 or less, warned with one for other text (an empty value
    too), and 65,535 threads crashed the process.
    """
    setting = os.environ.get("NUMBA_NUM_THREADS")
    if setting is not None:
        digits = setting.strip()
        if not (digits.isascii() and digits.isdigit() and 1 <= int(digits) <= MAX_THREADS):
            raise OptionError(f"NUMBA_NUM_THREADS={setting[:40]!r} is not a number of threads: set it to a whole "
                              f"number from 1 to {MAX_THREADS}, or unset it to use every core")
        return int(digits)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def thread_stack_size() -> int:
    """The MiB of address space each thread reserves for its stack: OpenMP's ``OMP_STACKSIZE`` when set, or
    else glibc's default, the stack limit (``ulimit -s``), 2 MiB when that is unlimited."""
    setting = (os.environ.get("OMP_STACKSIZE") or os.environ.get("GOMP_STACKSIZE") or "").strip().upper()
    if setting:
        number, unit = (setting[:-1], setting[-1]) if setting[-1] in "BKMG" else (setting, "K")
        if number.strip().isdigit():  # what OpenMP reads: a size, in KiB unless a unit says otherwise
            return max(1, -(-int(number) * {"B": 1, "K": 2**10, "M": 2**20, "G": 2**30}[unit] // 2**20))
    if resource is None:
        return 2
    limit = resource.getrlimit(resource.RLIMIT_STACK)[0]
    return 2 if limit == resource.RLIM_INFINITY else max(1, -(-limit // 2**20))


def address_space_needed() -> int:
    """The MiB of address space cpoker's compiled kernels need in this process: :data:`KERNEL_ADDRESS_SPACE`, and
    a stack for each of numba's threads (:func:`kernel_threads`, :func:`thread_stack_size`)."""
    return KERNEL_ADDRESS_SPACE + kernel_threads() * thread_stack_size()


def address_space_advice(limit: int) -> str:
    """What to do when ``limit`` MiB of address space is too little for cpoker: raise it, or, when fewer threads
    would fit under it, run fewer."""
    threads, stack = kernel_threads(), thread_stack_size()
    fitting = (limit - KERNEL_ADDRESS_SPACE) // stack
    return (f"this process may use {limit} MiB of address space (ulimit -v), and cpoker's compiled kernels need "
            f"at least {KERNEL_ADDRESS_SPACE + threads * stack} MiB"
            + (f" with {threads} threads ({stack} MiB of stack each)" if threads > 1 else "")
            + "; raise the limit"
            + (f", or run fewer threads (NUMBA_NUM_THREADS={fitting})" if 1 <= fitting < threads else ""))


def check_kernel_environment() -> None:
    """Check, before numba is loaded, that this process can run the compiled kernels: raise
    :class:`OptionError` for a ``NUMBA_NUM_THREADS`` that is not a number of threads (:func:`kernel_threads`), and
    :class:`MemoryLimitError` when the address space is limited below what they need
    (:func:`address_space_needed`).  Under a limit they fit, let every thread allocate from one malloc arena.

    glibc gives each thread that allocates a malloc arena of its own, up to 8 a core, and each reserves 64 MiB
    of address space whether it is used or not: with 16 threads those took 1 GiB of a limit here, and a tables
    build with 64 threads ran out of memory under 1.5 GiB, more than it needs.  The kernels allocate once a
    block, so sharing one arena costs nothing measurable.
    """
    kernel_threads()
    limit = address_space_limit()
    if limit is None:
        return
    if limit < address_space_needed():
        raise MemoryLimitError(address_space_advice(limit))
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(M_ARENA_MAX, 1)
    except (ImportError, OSError, AttributeError):  # not glibc: no arenas to cap (or no ctypes)
        pass
