"""Typed exceptions raised by the public API, and the checks that raise them.

Every error the API raises for bad input derives from :class:`CpokerError`
and from :class:`ValueError`, so callers may catch either.  The ``check_*``
helpers are the one validation layer the public functions and the command line
share: each returns the cleaned value or raises with a message that names the
option, what was expected and what was given.
"""

from __future__ import annotations

import math
import os

try:  # imported now: under a tight address-space limit, importing it to report the limit could itself fail
    import resource  # POSIX
except ImportError:
    resource = None


class CpokerError(ValueError):
    """Base class of every input error raised by cpoker."""


class CardError(CpokerError):
    """An unknown, duplicated or missing card, or a wrong number of cards."""


class ArrangementError(CpokerError):
    """An arrangement or a deal that cannot be read or settled as given."""


class OptionError(CpokerError):
    """An impossible option value (players, opponents, samples, seed, files...)."""


class RulesError(OptionError):
    """Rules that cannot be read or used: unknown preset, bad TOML, payouts out of bounds."""


class StrategyError(OptionError):
    """A strategy that cannot be loaded, or that failed or answered nonsense on a hand."""


class InstallationError(RuntimeError):
    """One of cpoker's own data files (lookup or shipped policy tables) is missing or damaged.

    Not an input error: nothing the caller passed is wrong, and reinstalling
    cpoker (or rebuilding the file with the command the message gives) mends it.
    """


class DeviceError(RuntimeError):
    """The GPU failed during a ``device="cuda"`` job: it ran out of memory, or its driver reported an error.

    Not an input error: the same call can succeed once the GPU's memory is free (another process may hold
    it), with fewer hands or deals, or with ``device="cpu"``.  Raised in place of numba-cuda's driver errors,
    with the driver's own name for the failure; the original is its ``__cause__``.
    """


class MemoryLimitError(MemoryError):
    """This process's address-space limit (``ulimit -v``, or a cluster scheduler's memory limit) is below what
    cpoker's compiled kernels and their threads need (:func:`address_space_needed`).

    Raised as the kernels are first imported, before numba is: under such a limit numba's compiler (a 170 MiB
    library) cannot be loaded, LLVM runs out of memory while compiling and aborts the process, or OpenMP cannot
    start its threads.  What needs no kernel (parsing, evaluating a row, dealing) works under it.
    """


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


def out_of_memory(error: MemoryError, advice: str, who: str = "") -> str:
    """One line for a ``MemoryError``: ``who`` is out of memory, numpy's words for the allocation (how much, for
    what) when it gave any, and ``advice``."""
    detail = " ".join(str(error).split())[:200]
    return f"{who + ' ' if who else ''}out of memory{f' ({detail})' if detail else ''}: {advice}"


class Interrupted(KeyboardInterrupt):
    """A job stopped by SIGINT or SIGTERM before it had any result to return.

    Raised from Python code (never from inside a compiled kernel) once the
    kernel in flight has returned.  ``signum`` is the signal received.
    """

    def __init__(self, signum: int = 2) -> None:
        super().__init__(signum)
        self.signum = signum


# Sizes above these cannot finish in reasonable time on any machine cpoker runs on; refusing them
# up front beats a job that runs for years (every long job runs in O(chunk) memory below them).
MAX_SEED = 2**63 - 1
MAX_SAMPLES = 10**9          # solve and simulate: Monte Carlo deals
MAX_DEALS = 10**10           # match: deals, each played in every seat rotation
MAX_SESSIONS = 10**9         # match: 8-deal sessions
MAX_TABLE_HANDS = 10**8      # tables build: the self-play sample (4 bytes of state per hand)
MAX_REMOVAL_DEALS = 10**8  # deals of four hands for a tables build's card-removal correction
MAX_REMOVAL_ROUNDS = 1000  # tables build: rounds of self-play with the correction (each a pass and a learning)
MAX_ITERATIONS = 10**6       # tables build: fictitious-play iterations


def _is_integer(value: object) -> bool:
    import numpy as np

    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer))


def check_int(name: str, value: object, low: int, high: "int | None" = None, hint: str = "") -> int:
    """``value`` as an int if it is a whole number in ``low..high``, else an :class:`OptionError`.

    The message says what was expected, e.g. ``"opponents must be 1 to 3, got 5"``.
    Floats (even ``2.0``) and booleans are refused: a seed of ``1.5`` is not
    quietly truncated to 1.
    """
    ok = _is_integer(value) and value >= low and (high is None or value <= high)  # type: ignore[operator]
    if not ok:
        if high is not None:
            expected = f"{low} to {high:,}" if high >= 10_000 else f"{low} to {high}"
        else:
            expected = "a positive integer" if low == 1 else f"{low} or more"
        shown = repr(value) if not _is_integer(value) or abs(int(value)) < 10**30 else "a number too large"  # type: ignore
        raise OptionError(f"{name} must be {expected}{hint}, got {shown}")
    return int(value)  # type: ignore[arg-type]


def check_seed(seed: object, name: str = "seed") -> "int | None":
    """``None`` or a whole number in ``0 .. 2**63 - 1`` (NumPy's seeds are non-negative)."""
    if seed is None:
        return None
    return check_int(name, seed, 0, MAX_SEED)


def check_seconds(name: str, value: object, positive: bool = False) -> float:
    """A number of seconds, 0 or more (above 0 when ``positive``) and below 10**6, e.g. a time budget.

    NumPy numbers are welcome; booleans, strings, NaN and infinities are refused.
    """
    import numpy as np

    ok = (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
          and (0.0 < float(value) if positive else 0.0 <= float(value)) and float(value) < 1e6)  # type: ignore
    if not ok:
        raise OptionError(f"{name} must be a number of seconds, {'above 0' if positive else '0 or more'} "
                          f"(below 1,000,000), got {value!r}")
    return float(value)  # type: ignore[arg-type]


def check_fraction(name: str, value: object) -> float:
    """A finite real number in ``0..1`` (NaN, infinities and strings are refused)."""
    import numpy as np

    ok = (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
          and math.isfinite(float(value)) and 0.0 <= float(value) <= 1.0)  # type: ignore[arg-type]
    if not ok:
        raise OptionError(f"{name} must be a number from 0 to 1, got {value!r}")
    return float(value)  # type: ignore[arg-type]
