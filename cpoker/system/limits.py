"""Size limits and the validators of option values shared by the API and the command line.

Each ``check_*`` returns the cleaned value or raises :class:`~cpoker.OptionError` with a message that
names the option, what was expected and what was given.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np

from cpoker.system.errors import OptionError

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


def is_integer(value: object) -> bool:
    """True for an int or a NumPy integer, never for a boolean."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer))


def check_int(name: str, value: object, low: int, high: "int | None" = None, hint: str = "") -> int:
    """``value`` as an int if it is a whole number in ``low..high``, else an :class:`OptionError`.

    The message says what was expected, e.g. ``"opponents must be 1 to 3, got 5"``.
    Floats (even ``2.0``) and booleans are refused: a seed of ``1.5`` is not
    quietly truncated to 1.
    """
    ok = is_integer(value) and value >= low and (high is None or value <= high)  # type: ignore[operator]
    if not ok:
        if high is not None:
            expected = f"{low} to {high:,}" if high >= 10_000 else f"{low} to {high}"
        else:
            expected = "a positive integer" if low == 1 else f"{low} or more"
        shown = repr(value) if not is_integer(value) or abs(int(value)) < 10**30 else "a number too large"  # type: ignore
        raise OptionError(f"{name} must be {expected}{hint}, got {shown}")
    return int(value)  # type: ignore[call-overload]


@overload
def check_seed(seed: None, name: str = "seed") -> None: ...


@overload
def check_seed(seed: "int | np.integer", name: str = "seed") -> int: ...


@overload
def check_seed(seed: object, name: str = "seed") -> "int | None": ...


def check_seed(seed: object, name: str = "seed") -> "int | None":
    """``None`` or a whole number in ``0 .. 2**63 - 1`` (NumPy's seeds are non-negative)."""
    if seed is None:
        return None
    return check_int(name, seed, 0, MAX_SEED)


def check_seconds(name: str, value: object, positive: bool = False) -> float:
    """A number of seconds, 0 or more (above 0 when ``positive``) and below 10**6, e.g. a time budget.

    NumPy numbers are welcome; booleans, strings, NaN and infinities are refused.
    """
    ok = (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
          and (0.0 < float(value) if positive else 0.0 <= float(value)) and float(value) < 1e6)
    if not ok:
        raise OptionError(f"{name} must be a number of seconds, {'above 0' if positive else '0 or more'} "
                          f"(below 1,000,000), got {value!r}")
    return float(value)  # type: ignore[arg-type]


def check_fraction(name: str, value: object) -> float:
    """A finite real number in ``0..1`` (NaN, infinities and strings are refused)."""
    ok = (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
          and math.isfinite(float(value)) and 0.0 <= float(value) <= 1.0)
    if not ok:
        raise OptionError(f"{name} must be a number from 0 to 1, got {value!r}")
    return float(value)  # type: ignore[arg-type]
