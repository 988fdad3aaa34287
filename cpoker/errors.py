"""Typed exceptions raised by the public API.

Every error the API raises for bad input derives from :class:`CpokerError`
and from :class:`ValueError`, so callers may catch either.
"""

from __future__ import annotations


class CpokerError(ValueError):
    """Base class of every input error raised by cpoker."""


class CardError(CpokerError):
    """An unknown, duplicated or missing card, or a wrong number of cards."""


class ArrangementError(CpokerError):
    """An arrangement or a deal that cannot be read or settled as given."""


class OptionError(CpokerError):
    """An impossible option value (players, opponents, samples, rules...)."""


def check_int(name: str, value: object, low: int, high: "int | None" = None, hint: str = "") -> int:
    """``value`` as an int if it is a whole number in ``low..high``, else an :class:`OptionError`.

    The message says what was expected, e.g. ``"opponents must be 1 to 3, got 5"``.
    """
    import numpy as np

    ok = (not isinstance(value, bool) and isinstance(value, (int, np.integer))
          and value >= low and (high is None or value <= high))
    if not ok:
        if high is not None:
            expected = f"{low} to {high}"
        else:
            expected = "a positive integer" if low == 1 else f"{low} or more"
        raise OptionError(f"{name} must be {expected}{hint}, got {value!r}")
    return int(value)  # type: ignore[arg-type]
