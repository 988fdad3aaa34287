"""Hands a player actually played, read from a file and checked line by line before anything is solved.

``cpoker review`` and :func:`cpoker.review` take a session of played hands, one per line, in any of
three formats (the first line that is not blank or a comment tells which):

* **text**: the player's arrangement, ``front / middle / back`` (the hand is its 13 cards); ``#`` starts
  a comment, blank lines are skipped;
* **JSON Lines**: one object a line, with ``"arrangement"`` (that text, or ``{"front", "middle",
  "back"}``), and optionally ``"id"``, ``"rules"`` (a preset name) and ``"opponents"``: a count (1-3),
  or the list of the real opponents' arrangements of that deal;
* **CSV** with a header holding an ``arrangement`` column, and optionally ``id``, ``rules`` and
  ``opponents`` (a count, or the real opponents' arrangements separated by ``|``).

Every line is checked before any solving: a bad line is named with its number and the reason
(:class:`PlayedHandsError`), or skipped and listed (``skip_bad=True``).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Iterable, Optional

from cpoker.game.arrangements import Arrangement
from cpoker.game.cards import short_repr
from cpoker.system.errors import ArrangementError, CpokerError, OptionError
from cpoker.game.rules import Rules

MAX_HANDS = 100_000  # played hands in one review: a year of a regular's sessions
MAX_LINE = 4_000  # characters of one line: a hand with three opponents' arrangements is ~200
MAX_COLUMNS = 16  # CSV columns: the four known ones and some of the player's own
PROBLEMS_SHOWN = 20  # bad lines named in an error; the rest are counted
FORMATS = ("text", "jsonl", "csv")
COLUMNS = ("arrangement", "id", "rules", "opponents")
MAX_OPPONENTS = 3


class PlayedHandsError(ArrangementError):
    """Played hands that cannot be reviewed: ``problems`` lists ``(line, reason)`` for every bad line."""

    def __init__(self, message: str, problems: "list[tuple[int, str]]", source: str = "input") -> None:
        super().__init__(message)
        self.problems = problems
        self.source = source


@dataclass(frozen=True)
class PlayedHand:
    """One hand as the player played it.

    Attributes
    ----------
    arrangement
        The player's rows (the hand is their 13 cards); it may foul.
    id
        The player's own name for the hand, if the input gave one.
    line
        Its line in the input (1-based), or its position in a list given to :func:`cpoker.review`.
    rules, opponents
        This hand's rules and opponent count when the line set them (``None``: the review's).
    real_opponents
        The opponents' arrangements of the actual deal, when given: the review then settles the deal
        and reports the luck.
    """

    arrangement: Arrangement
    id: Optional[str] = None
    line: int = 0
    rules: Optional[Rules] = None
    opponents: Optional[int] = None
    real_opponents: tuple = field(default=())

    def to_dict(self) -> dict:
        """The hand as a JSON Lines object :func:`read_played` reads back."""
        data: dict = {"arrangement": str(self.arrangement)}
        if self.id is not None:
            data["id"] = self.id
        if self.rules is not None:
            data["rules"] = self.rules.name
        if self.real_opponents:
            data["opponents"] = [str(a) for a in self.real_opponents]
        elif self.opponents is not None:
            data["opponents"] = self.opponents
        return data


def input_format(text: str) -> str:
    """``"jsonl"``, ``"csv"`` or ``"text"``: what the first line that is not blank or a comment looks like."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("{"):
            return "jsonl"
        header = [cell.strip().lower() for cell in stripped.split(",")]
        return "csv" if "arrangement" in header else "text"
    return "text"


def read_played(text: str, source: str = "input", skip_bad: bool = False,
                limit: int = MAX_HANDS) -> "tuple[list[PlayedHand], list[tuple[int, str]]]":
    """The played hands of ``text`` (a file's contents, in one of the three formats) and the lines skipped.

    Parameters
    ----------
    text
        The whole input.
    source
        Its name in messages (a file name, ``"standard input"``).
    skip_bad
        Skip the bad lines and return them, instead of raising.
    limit
        The most hands one review takes.

    Returns
    -------
    (hands, skipped)
        The good hands in input order, and ``(line, reason)`` of each skipped line.

    Raises
    ------
    PlayedHandsError
        Naming each bad line (the first 20, then a count) unless ``skip_bad``; or when no line holds a hand.
    OptionError
        For input that is not text at all (binary), or more than ``limit`` hands.
    """
    if not isinstance(text, str):
        raise OptionError(f"read_played takes the text of played hands (a str), got {type(text).__name__}; "
                          "for a file, pass its contents")
    if "\x00" in text:
        raise OptionError(f"{source} is binary, not a text file of played hands (one arrangement per line)")
    kind = input_format(text)
    items = _csv_items(text, source) if kind == "csv" else _line_items(text, kind)
    return checked_hands(items, source, skip_bad, limit)


def checked_hands(items: Iterable, source: str = "input", skip_bad: bool = False,
                  limit: int = MAX_HANDS) -> "tuple[list[PlayedHand], list[tuple[int, str]]]":
    """Check ``(line, item)`` pairs, each a :class:`PlayedHand`, an arrangement, its text or a JSON-like dict
    (the fields of the module docstring), or an error message for its line; see :func:`read_played`."""
    hands: list[PlayedHand] = []
    problems: list[tuple[int, str]] = []
    for line, item in items:
        if len(hands) >= limit:
            raise OptionError(f"{source} holds more than {limit:,} hands; review it in parts")
        if isinstance(item, _Problem):
            problems.append((line, item.reason))
            continue
        try:
            hands.append(played_hand(item, line))
        except CpokerError as error:
            problems.append((line, str(error)))
    if problems and not skip_bad:
        raise PlayedHandsError(_problem_text(problems, source), problems, source)
    if not hands:
        raise PlayedHandsError(f"{source} holds no played hand to review"
                               + (f" ({len(problems)} bad lines skipped)" if problems else ""), problems, source)
    return hands, problems


def played_hand(item: object, line: int = 0) -> PlayedHand:
    """One :class:`PlayedHand` from an arrangement (object or text), a dict of the JSON Lines fields, or one
    already made; :class:`~cpoker.CpokerError` naming what is wrong otherwise."""
    if isinstance(item, PlayedHand):
        return item
    if isinstance(item, (str, Arrangement)):
        return PlayedHand(_arrangement(item, "the arrangement"), line=line)
    if not isinstance(item, dict):
        raise ArrangementError(f"a played hand is an arrangement or an object with one, got {type(item).__name__}")
    unknown = sorted(set(item) - set(COLUMNS))
    if unknown:
        raise ArrangementError(f"unknown field {unknown[0]!r}; the fields are {', '.join(COLUMNS)}")
    if "arrangement" not in item or item["arrangement"] in (None, ""):
        raise ArrangementError("no arrangement")
    arrangement = _arrangement(item["arrangement"], "the arrangement")
    hand_id = item.get("id")
    if hand_id is not None and (isinstance(hand_id, bool) or not isinstance(hand_id, (str, int))):
        raise ArrangementError(f"id must be text or a whole number, got {short_repr(hand_id, 60)}")
    rules = item.get("rules")
    if rules in (None, ""):
        rules = None
    elif isinstance(rules, str):
        rules = Rules.preset(rules.strip())
    else:
        raise ArrangementError(f"rules must be a preset name, got {short_repr(rules, 60)}")
    count, real = _opponents(item.get("opponents"), arrangement)
    if real and rules is not None:
        _settled_deal(arrangement, real, rules)  # a deal that cannot be settled under its rules is a bad line
    return PlayedHand(arrangement, None if hand_id in (None, "") else str(hand_id), line, rules, count, real)


def actual_points(hand: PlayedHand, rules: Rules) -> int:
    """What the player won on the real deal (``hand.real_opponents`` given), summed over the opponents."""
    return _settled_deal(hand.arrangement, hand.real_opponents, rules)


def _settled_deal(arrangement: Arrangement, real: tuple, rules: Rules) -> int:
    from cpoker.game.scoring import settle

    return settle([arrangement, *real], rules)[0]


def _opponents(value: object, arrangement: Arrangement) -> "tuple[Optional[int], tuple]":
    """``(count, real arrangements)`` of an ``opponents`` field: a count, or the real opponents' arrangements."""
    if value is None or value == "":
        return None, ()
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            value = int(text)
        else:
            value = [part for part in text.split("|") if part.strip()]
    if isinstance(value, bool):
        raise ArrangementError(f"opponents must be a count or a list of arrangements, got {value!r}")
    if isinstance(value, int):
        if not 1 <= value <= MAX_OPPONENTS:
            raise ArrangementError(f"opponents must be 1 to {MAX_OPPONENTS}, got {value}")
        return value, ()
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_OPPONENTS:
        raise ArrangementError(f"opponents must be a count or a list of 1 to {MAX_OPPONENTS} arrangements, "
                               f"got {short_repr(value, 60)}")
    real = tuple(_arrangement(a, f"opponent {i}'s arrangement") for i, a in enumerate(value, 1))
    seen = {card: 0 for card in arrangement.cards}
    for number, other in enumerate(real, 1):
        for card in other.cards:
            if card in seen:
                holder = "the player" if seen[card] == 0 else f"opponent {seen[card]}"
                raise ArrangementError(f"card {card} is held by both {holder} and opponent {number}")
            seen[card] = number
    return len(real), real


def _arrangement(value: object, what: str) -> Arrangement:
    """An arrangement from its text, a ``{"front", "middle", "back"}`` dict or an object; rows out of order
    foul (they are what was played), a mis-set (wrong counts, a repeated card) cannot be reviewed."""
    if isinstance(value, Arrangement):
        return value
    if isinstance(value, dict) and {"front", "middle", "back"} <= set(value):
        rows = [value[row] for row in ("front", "middle", "back")]
        if not all(isinstance(row, str) for row in rows):
            raise ArrangementError(f"{what}'s rows must be text")
        return Arrangement(*rows)
    if not isinstance(value, str):
        raise ArrangementError(f"{what} is text 'front / middle / back', got {short_repr(value, 60)}")
    return Arrangement.parse(value)


class _Problem:
    """A line found bad while reading it (before its fields could be checked)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _line_items(text: str, kind: str):
    """``(line, item)`` of a text or JSON Lines input: the line's text, its JSON object, or a problem."""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if kind == "text":
            line = line.split("#", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if len(line) > MAX_LINE:
            yield number, _Problem(f"a line of {len(line):,} characters (at most {MAX_LINE:,})")
        elif kind == "text":
            yield number, line
        else:
            try:
                value = json.loads(line)
            except (ValueError, RecursionError) as error:
                yield number, _Problem(f"not a JSON object: {str(error)[:80]}")
                continue
            yield number, value if isinstance(value, dict) else _Problem("not a JSON object")


def _csv_items(text: str, source: str):
    """``(line, fields)`` of a CSV input with a header (a problem for a row that does not fit it)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() and not line.strip().startswith("#"))
    reader = csv.reader(io.StringIO("\n".join(lines[start:])))
    try:
        header = [cell.strip().lower() for cell in next(reader)]
    except csv.Error as error:
        raise OptionError(f"{source}: the CSV header cannot be read ({error})") from None
    if len(header) > MAX_COLUMNS:
        raise OptionError(f"{source}: the CSV header has {len(header):,} columns (at most {MAX_COLUMNS}); "
                          "is it the right file?")
    known = [name if name in COLUMNS else None for name in header]
    number = start + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            yield reader.line_num + start, _Problem(f"cannot be read as CSV: {error}")
            return
        number = reader.line_num + start
        if not row or not any(cell.strip() for cell in row) or row[0].strip().startswith("#"):
            continue
        if len(row) != len(header):
            yield number, _Problem(f"{len(row)} fields, the header has {len(header)}")
            continue
        if any(len(cell) > MAX_LINE for cell in row):
            yield number, _Problem(f"a field over {MAX_LINE:,} characters")
            continue
        yield number, {name: cell.strip() for name, cell in zip(known, row) if name is not None}


def _problem_text(problems: "list[tuple[int, str]]", source: str) -> str:
    """One line: how many bad lines, and each one's number and reason (the first 20)."""
    named = "; ".join(f"line {line}: {' '.join(reason.split())}" for line, reason in problems[:PROBLEMS_SHOWN])
    more = f"; and {len(problems) - PROBLEMS_SHOWN} more" if len(problems) > PROBLEMS_SHOWN else ""
    return f"{problem_heading(problems, source)} {named}{more}"


def problem_heading(problems: "list[tuple[int, str]]", source: str) -> str:
    """The start of a :class:`PlayedHandsError`'s message (``cpoker review`` then lists the lines one a line)."""
    return (f"{source}: {len(problems)} bad line{'s' * (len(problems) != 1)}, nothing was solved "
            "(skip_bad, or --skip-bad, reviews the others):")
