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
