"""What the closed game's rules (:mod:`cpoker.game.rules`) and the open-face game's (:mod:`cpoker.game.ofc.rules`)
share: reading house rules' TOML, checking a number, one-line errors naming the source, and resolving what a
caller gives (``None``, a preset name, a ``.toml`` path, a rules object) into rules."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cpoker.game.cards import short_repr
from cpoker.system.errors import RulesError

MAX_UNITS = 10**6  # a royalty, a payout, a bonus, a multiplier: no total then comes near an int64's range
MAX_TOML = 100_000  # characters of house rules' TOML
MAX_PATH = 4096  # characters of a path: longer, or with a NUL, it is no file and no preset


def rules_error(source: str, message: str) -> RulesError:
    """A :class:`RulesError` naming where the rules came from (``source``: a file, ``rules_toml``), if anywhere."""
    return RulesError(f"{source}: {message}" if source else message)


def whole(value: object, where: str, source: str, low: int = 0, high: int = MAX_UNITS,
          what: str = "a whole number") -> int:
    """``value`` as an int if it is a whole number (not a boolean) from ``low`` to ``high``, else a one-line
    :class:`RulesError` naming the field ``where``."""
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
            or not low <= value <= high):
        raise rules_error(source, f"{where} must be {what} from {low} to {high:,}, got {short_repr(value)}")
    return int(value)


def read_rules_toml(text: str, source: str) -> dict:
    """House rules' TOML text as data (the closed game's and the open-face game's), or a one-line
    :class:`RulesError` naming ``source``: not text, over 100,000 characters, or not TOML."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    if not isinstance(text, str) or len(text) > MAX_TOML:
        raise RulesError(f"{source}: rules are TOML text of at most {MAX_TOML:,} characters")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"rules file {source} is not valid TOML: {error}") from None
    except (ValueError, RecursionError) as error:  # e.g. a 5,000-digit number, absurd nesting
        raise RulesError(f"rules file {source} cannot be read: {str(error)[:120]}") from None


def resolve(rules: object, kind: type, default: Any, presets: Mapping[str, Any], aliases: Mapping[str, str],
            preset: Callable[[str], Any], from_toml: Callable[[str], Any], known: str, what: str) -> Any:
    """``rules`` as a ``kind``: ``None`` → ``default``; a ``kind`` → itself; a preset name or an alias → those
    rules; a ``.toml`` path (or any existing file) → ``from_toml``; any other text → ``preset`` (which names the
    presets ``known``).  Anything else is a one-line error saying what ``what`` takes."""
    if rules is None:
        return default
    if isinstance(rules, kind):
        return rules
    if isinstance(rules, (str, Path)):
        text = str(rules)
        if text in presets:
            return presets[text]
        if text in aliases:
            return presets[aliases[text]]
        if "\0" in text or len(text) > MAX_PATH:
            raise RulesError(f"unknown {what} {text[:40]!r}; known: {known}, or a .toml file")
        if text.endswith(".toml") or Path(text).is_file():
            return from_toml(text)
        return preset(text)
    raise RulesError(f"{what} are a {kind.__name__}, a preset name or a .toml file, got {type(rules).__name__}")
