"""Row odds: how often a row of a given strength wins, ties or loses its row.

Read from the table policy's opponent distributions (what a table-policy
opponent puts in each row, learned by self-play on 100,000 hands), so they
ignore card removal: the table a player looks up at the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from cpoker.game.arrangements import ROW_NAMES
from cpoker.game.arrangements import ROW_SIZES as ARRANGEMENT_ROW_SIZES
from cpoker.game.cards import CardsLike, parse_cards
from cpoker.system.errors import CardError, OptionError
from cpoker.game.evaluation import describe_key, value_of_cards

ROW_SIZES = dict(zip(ROW_NAMES, ARRANGEMENT_ROW_SIZES))


@dataclass(frozen=True)
class RowOdds:
    """Win/tie/loss probabilities of a row (for a range of strengths: the weakest and strongest)."""

    row: str
    hand: str
    win: tuple[float, float]
    tie: tuple[float, float]
    loss: tuple[float, float]

    def to_dict(self) -> dict:
        return {"row": self.row, "hand": self.hand, "win_min": self.win[0], "win_max": self.win[1],
                "tie_min": self.tie[0], "tie_max": self.tie[1], "loss_min": self.loss[0], "loss_max": self.loss[1]}


def _probabilities(row: int, tables=None, rules=None):
    from cpoker.strategies.policy import resolve_tables

    distribution = resolve_tables(tables, rules).distribution[row]
    below = np.cumsum(distribution) - distribution
    return below, distribution, np.clip(1.0 - below - distribution, 0.0, 1.0)


def _check_row(row: Optional[str]) -> list[str]:
    if row is None:
        return list(ROW_NAMES)
    if not isinstance(row, str) or row not in ROW_NAMES:
        raise OptionError(f"row must be front, middle or back, got {row!r}")
    return [row]


def hand_odds(cards: CardsLike, row: Optional[str] = None, tables=None, rules=None) -> list[RowOdds]:
    """Odds of a 3-card front or a 5-card middle/back (each row it fits, or ``row``).

    ``tables``: the table policy's tables whose opponent distributions are read (default: the shipped ones
    of ``rules``, default pagat: how a table-policy opponent playing those rules sets that row).
    """
    from cpoker.game.lookup_tables import strength_keys

    parsed = parse_cards(cards)
    if len(parsed) not in (3, 5):
        raise CardError(f"a row has 3 or 5 cards, got {len(parsed)}")
    value = value_of_cards(parsed)
    rows = [name for name in _check_row(row) if ROW_SIZES[name] == len(parsed)]
    if not rows:
        raise OptionError(f"a {len(parsed)}-card hand cannot be the {row}")
    index = int(np.searchsorted(strength_keys(), value.key))
    out = []
    for name in rows:
        win, tie, loss = (float(p[index]) for p in _probabilities(ROW_NAMES.index(name), tables, rules))
        out.append(RowOdds(name, value.describe(), (win, win), (tie, tie), (loss, loss)))
    return out


def shape_name(key: int) -> str:
    """The category and main ranks of a key, kickers left out, e.g. ``"pair of sixes"``."""
    return describe_key(key, kickers=False)


def odds_table(row: Optional[str] = None, tables=None, rules=None) -> list[RowOdds]:
    """Odds per hand shape (category and main ranks) for each row, weakest shape first.

    Each entry spans the shape's weakest to strongest kickers.
    """
    from cpoker.game.lookup_tables import row_keys, strength_keys

    out = []
    keys = strength_keys()
    for name in _check_row(row):
        below, equal, above = _probabilities(ROW_NAMES.index(name), tables, rules)
        usable = np.isin(keys, row_keys(ROW_SIZES[name]))
        shapes: dict[str, list[int]] = {}
        for index in np.flatnonzero(usable):
            shapes.setdefault(shape_name(int(keys[index])), []).append(int(index))
        for shape, members in shapes.items():
            lo, hi = members[0], members[-1]
            out.append(RowOdds(name, shape, (float(below[lo]), float(below[hi])),
                               (float(min(equal[members])), float(max(equal[members]))),
                               (float(above[hi]), float(above[lo]))))
    return out
