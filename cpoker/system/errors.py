"""Typed exceptions raised by cpoker.

Every error the API raises for bad input derives from :class:`CpokerError`
and from :class:`ValueError`, so callers may catch either.  The checks that
raise them live in :mod:`cpoker.system.limits` (option values) and
:mod:`cpoker.system.environment` (what the process can run).
"""

from __future__ import annotations

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


class BotCannotStart(StrategyError):
    """A bot (``cmd:COMMAND``) whose program cannot be started (not found, not executable): no hand of it can be
    played, so a job stops with this error rather than forfeiting every hand."""


class BotBroken(RuntimeError):
    """A bot (``cmd:COMMAND``) faulted on several requests in a row: the job stops.

    Not an input error: the bot started and played, then failed.  ``bot`` is its
    name, ``reason`` the faults, ``stderr`` its last lines of standard error,
    and ``result`` the job's partial result (its completed blocks, as after
    Ctrl-C) or None when the job had none.
    """

    def __init__(self, bot: str, reason: str, stderr: "list[str] | None" = None) -> None:
        self.bot, self.reason, self.stderr = bot, reason, list(stderr or [])
        self.result: object = None
        said = " | ".join(self.stderr)
        super().__init__(f"bot {bot!r} is broken: {reason}"
                         + (f"; its last standard error: {said}" if said else "; it wrote nothing to standard error"))


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
