"""Saved results that a job continues: what ``match``, ``simulate`` and ``exploit`` read back with ``resume=``.

A long job's result carries ``state``: its exact running sums (a study's
per-hand gains) and the number of blocks they cover.  Every block's draw
depends on the seed and the block's index alone, and what is saved is exact
(integers; floats that JSON writes and reads back bit for bit), so a job
continued from a saved state ends with the very numbers of a job never
stopped.  This module reads such a state back from a result or its JSON and
refuses, with the reason, one that is damaged or that belongs to another job.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from cpoker.game.rules import Rules
from cpoker.run.stats import Moments
from cpoker.system.errors import CpokerError, OptionError
from cpoker.system.limits import check_seconds, check_seed

# what reading a hand-edited, truncated or foreign saved state raises: damage, not a bug
DAMAGE = (KeyError, IndexError, TypeError, ValueError, OverflowError, CpokerError)


@dataclass
class Reading:
    """What a job reads back from its saved state, for the checks every job shares (:func:`resumed`).

    Attributes
    ----------
    tally
        The job's own sums, ready to go on from.
    done
        Units done (deals, samples, hands), checked against the extent asked for.
    consistent, why
        Whether the saved numbers fit together; ``why`` they do not.
    settings
        ``{what: saved value}`` of the job's own settings, compared with the values it is run with now.
    rules, tables_sha256
        The saved rules and tables fingerprint, compared with the job's (None: the job compares them itself).
    refusal
        A job's own reason to refuse the saved run (it is another job's), or None.
    """

    tally: Any
    done: int
    consistent: bool = True
    why: str = "its sums do not fit together"
    settings: dict = field(default_factory=dict)
    rules: Optional[Rules] = None
    tables_sha256: Optional[str] = None
    refusal: Optional[str] = None


def resumed(previous: object, kind: str, state_format: str, read: "Callable[[dict, dict], Reading]", *,
            seed: Optional[int], rules: Rules, tables_sha256: str, now: "Mapping[str, object]", unit: str,
            asked: int, block: int, label: Optional[str] = None) -> "tuple[Any, int]":
    """The shared resume protocol: a saved ``kind`` result's tally and seed, once it is known to continue this job.

    In order: it must be a saved ``kind`` result of ``state_format`` (:func:`saved_state`); ``read(data,
    state)`` must read it without damage and find its numbers consistent; it must be the same play (the
    seed, which ``None`` takes from it, the rules, the tables, and each of ``now``'s settings:
    :func:`refuse_differences`); and its ``done`` units must be the first blocks of ``asked``
    (:func:`check_extent`).  ``label`` names the job in errors (default ``kind``).

    Raises
    ------
    OptionError
        Naming the first of those that fails.
    """
    label = label or kind
    data, state = saved_state(previous, kind, state_format)
    try:
        reading = read(data, state)
        saved_seed = check_seed(count(data["seed"]))
    except DAMAGE as error:
        raise damaged(label, error) from None
    if not reading.consistent:
        raise damaged(label, ValueError(reading.why))
    if reading.refusal is not None:
        raise OptionError(f"cannot resume: {reading.refusal}")
    differences = {what: (reading.settings[what], value) for what, value in now.items()}
    if reading.rules is None:
        differences["seed"] = (saved_seed, saved_seed if seed is None else seed)
    else:
        differences.update(same_play(saved_seed, seed, reading.rules, rules, reading.tables_sha256 or "",
                                     tables_sha256))
    refuse_differences(label, differences)
    check_extent(label, unit, reading.done, asked, block)
    return reading.tally, saved_seed


def check_checkpoint(checkpoint: object, checkpoint_seconds: object) -> None:
    """Refuse a ``checkpoint`` that is not callable, or ``checkpoint_seconds`` that are not a number of seconds."""
    if checkpoint is not None and not callable(checkpoint):
        raise OptionError(f"checkpoint must be a function of the partial result, got {type(checkpoint).__name__}")
    check_seconds("checkpoint_seconds", checkpoint_seconds)


def saved_state(previous: object, kind: str, state_format: str) -> tuple[dict, dict]:
    """``(data, state)`` of a saved ``kind`` result (``"match"``, ``"simulate"``, ``"exploit"``): its ``to_dict()``
    and ``state``.

    Raises
    ------
    OptionError
        Unless ``previous`` is such a result (an object with ``to_dict``, or that dict read back from JSON).
    """
    data: Any = previous.to_dict() if hasattr(previous, "to_dict") else previous
    state = data.get("state") if isinstance(data, Mapping) and data.get("kind") == kind else None
    if not isinstance(state, Mapping) or state.get("format") != state_format:
        raise OptionError(f"cannot resume: not a saved {kind} result of this cpoker version (write one with "
                          f"{kind}(...).to_dict() or cpoker {kind} --out FILE.json)")
    return dict(data), dict(state)


def integer(value: object) -> int:
    """An int of a saved state (JSON integers only: a float, a string or a bool is damage)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{value!r} is not an integer")
    return value


def count(value: object) -> int:
    """An int 0 or more of a saved state."""
    number = integer(value)
    if number < 0:
        raise ValueError(f"{value!r} is not a count")
    return number


def text(value: object) -> str:
    """A string of a saved state."""
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not text")
    return value


def moments(values: Any) -> Moments:
    """Saved ``[count, total, squares]``, checked to be sums a job could have made (no float overflow later).

    A deal's points stay far below 10**9 whatever the rules (royalty units are at
    most 10**6), so ``squares <= count * 10**18``, and ``total**2 <= count *
    squares`` holds for any real sums (Cauchy-Schwarz).
    """
    saved_n, saved_total, saved_squares = values
    n, total, squares = count(saved_n), integer(saved_total), count(saved_squares)
    if squares > n * 10**18 or total * total > n * squares:
        raise ValueError(f"[{n}, {total}, {squares}] are not the sums of {n} deals' points")
    return Moments(n, total, squares)


def whole_blocks(done: int, blocks: int, size: int) -> bool:
    """Whether ``done`` units fill ``blocks`` blocks of ``size``, all whole but the last (none for none)."""
    return size * (blocks - 1) < done <= size * blocks or done == blocks == 0


def flag(value: object) -> bool:
    """A saved true or false; ``ValueError`` for anything else."""
    if not isinstance(value, bool):
        raise ValueError(f"{value!r} is not true or false")
    return value


def number(value: object) -> float:
    """A saved finite number; ``ValueError`` for anything else (a flag, NaN, text)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{value!r} is not a number")
    return float(value)


def seconds(value: object) -> float:
    """Saved seconds: a finite number, 0 or more."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        raise ValueError(f"{value!r} is not a number of seconds")
    return float(value)


def damaged(kind: str, error: Exception) -> OptionError:
    """The error for a saved state that cannot be read (hand-edited, truncated, another format)."""
    return OptionError(f"cannot resume: the saved {kind} is damaged ({type(error).__name__}: {error})")


def refuse_differences(kind: str, differences: Mapping[str, tuple[object, object]]) -> None:
    """Refuse a saved job whose settings differ from this job's: ``{what: (saved, now)}``, named in the error.

    Raises
    ------
    OptionError
        Naming every setting that differs.
    """
    named = [f"{what} {saved}, not {now}" for what, (saved, now) in differences.items() if saved != now]
    if named:
        raise OptionError(f"cannot resume: the saved {kind} was played with " + "; ".join(named))


def same_play(saved_seed: int, seed: "int | None", saved_rules, rules, saved_tables: str, tables: str) -> dict:
    """The settings every job must share with its saved run, for :func:`refuse_differences`: the seed (``None``
    takes the saved one), the rules, and the fingerprint of the tables its strategies play by
    (:func:`cpoker.strategies.strategy.tables_fingerprint`; compared under the same rules only: other rules mean other
    default tables, and only the rules are named then)."""
    same_rules = saved_rules == rules
    saved_name, name = saved_rules.name, rules.name
    if not same_rules and saved_name == name:  # house rules of one name (a file edited since), told apart
        saved_name, name = f"{saved_name} as saved", f"{name} as given now"
    return {"seed": (saved_seed, saved_seed if seed is None else seed),
            "rules": (saved_name, saved_name if same_rules else name),
            "other tables (the same --tables FILE, or table@FILE.npz as it was): fingerprint": (
                saved_tables[:12], tables[:12] if same_rules else saved_tables[:12])}


def check_extent(kind: str, unit: str, done: int, asked: int, block: int) -> None:
    """Refuse to continue ``done`` units to ``asked`` when that would not be the unbroken job's blocks.

    A job of ``asked`` units draws blocks of ``block``; the saved one's blocks
    are its first ones only when ``done <= asked`` and every saved block was
    whole (or the saved job is the whole job).

    Raises
    ------
    OptionError
        When the saved job has more units than asked for, or ends in a short block short of ``asked``.
    """
    if done > asked:
        raise OptionError(f"cannot resume: the saved {kind} already has {done:,} {unit}; ask for at least as many")
    if done < asked and done % block:
        raise OptionError(f"cannot resume: the saved {kind}'s {done:,} {unit} end in a block of {done % block}, "
                          f"not {block}, so more {unit} would be drawn otherwise; only a {kind} of a multiple "
                          f"of {block} {unit} can be extended")
