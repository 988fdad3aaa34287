"""Settlement of a deal between 2-4 players, and 8-deal sessions (RULES.md §1).

>>> from cpoker import settle
>>> settle(["2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac",
...         "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"])
[1, -1]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .arrange import ROW_NAMES, Arrangement, ArrangementLike, as_arrangement
from .errors import ArrangementError, OptionError
from .rules import Rules, resolve_rules

MIN_PLAYERS, MAX_PLAYERS = 2, 4


def row_results(a: Arrangement, b: Arrangement) -> tuple[int, int, int]:
    """Front, middle and back results (+1 / 0 / -1) of ``a`` against ``b``.

    A valid hand wins every row against a fouled one; two fouled hands tie.
    """
    if a.is_foul or b.is_foul:
        sign = int(b.is_foul) - int(a.is_foul)
        return sign, sign, sign
    return tuple(  # type: ignore[return-value]
        (x > y) - (x < y) for x, y in zip(a.values, b.values)  # type: ignore[arg-type]
    )


def pair_points(a: Arrangement, b: Arrangement, rules: Optional[Rules] = None) -> int:
    """Points ``a`` wins from ``b`` under ``rules`` (the default: the sum of row results)."""
    resolve_rules(rules)
    return sum(row_results(a, b))


def _check_deal(arrangements: Sequence[ArrangementLike]) -> list[Arrangement]:
    if isinstance(arrangements, (str, Arrangement)):
        raise ArrangementError("settle takes a list of arrangements, one per player")
    deal = [as_arrangement(a) for a in arrangements]
    if not MIN_PLAYERS <= len(deal) <= MAX_PLAYERS:
        raise OptionError(f"a deal has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(deal)}")
    owner: dict[int, int] = {}
    for player, arrangement in enumerate(deal):
        for card in set(arrangement.cards):
            if card in owner:
                raise ArrangementError(
                    f"card {card} is held by both player {owner[card] + 1} and player {player + 1}")
            owner[card] = player
    return deal


def settle_matrix(arrangements: Sequence[ArrangementLike], rules: Optional[Rules] = None) -> np.ndarray:
    """Pairwise settlement: entry ``[i, j]`` is what player ``i`` wins from player ``j``.

    The matrix is antisymmetric (the game is zero-sum) and its row sums are
    :func:`settle`'s results.
    """
    rules = resolve_rules(rules)
    deal = _check_deal(arrangements)
    n = len(deal)
    matrix = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            points = pair_points(deal[i], deal[j], rules)
            matrix[i, j], matrix[j, i] = points, -points
    return matrix


def settle(arrangements: Sequence[ArrangementLike], rules: Optional[Rules] = None) -> list[int]:
    """Net points of each player for one deal of 2-4 players (zero-sum).

    Raises
    ------
    OptionError
        For fewer than 2 or more than 4 players.
    ArrangementError, CardError
        For unreadable arrangements or a card held by two players.
    """
    return [int(x) for x in settle_matrix(arrangements, rules).sum(axis=1)]


def places(totals: Sequence[int]) -> list[int]:
    """Competition places of totals (highest first); ties share a place: 1, 1, 3, 4."""
    return [1 + sum(other > total for other in totals) for total in totals]


@dataclass(frozen=True)
class DealRecord:
    """One played deal of a session."""

    number: int  # 1-based
    dealer: int  # 0-based player index
    arrangements: tuple[Arrangement, ...]
    results: tuple[int, ...]
    ledger: tuple[int, ...]  # running totals after this deal


@dataclass
class Session:
    """A session of ``deals`` deals; the dealer passes to the left (next index) after each.

    >>> s = Session(players=2, deals=8)
    >>> _ = s.play(["2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac",
    ...             "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"])
    >>> s.ledger, s.dealer, s.standings()
    ([1, -1], 1, [(1, 0, 1), (2, 1, -1)])
    """

    players: int = 4
    deals: int = 8
    rules: Optional[Rules] = None
    first_dealer: int = 0
    history: list[DealRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise OptionError(f"a session has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {self.players}")
        if self.deals < 1:
            raise OptionError(f"a session has at least 1 deal, got {self.deals}")
        if not 0 <= self.first_dealer < self.players:
            raise OptionError(f"first_dealer must be 0..{self.players - 1}, got {self.first_dealer}")
        self.rules = resolve_rules(self.rules)

    @property
    def dealer(self) -> int:
        """Index of the player dealing the next deal."""
        return (self.first_dealer + len(self.history)) % self.players

    @property
    def is_over(self) -> bool:
        return len(self.history) >= self.deals

    @property
    def ledger(self) -> list[int]:
        """Running total of each player, starting from 0."""
        return list(self.history[-1].ledger) if self.history else [0] * self.players

    def play(self, arrangements: Sequence[ArrangementLike]) -> DealRecord:
        """Settle the next deal and add it to the ledger."""
        if self.is_over:
            raise ArrangementError(f"the session is over: all {self.deals} deals were played")
        if len(arrangements) != self.players:
            raise ArrangementError(f"this session has {self.players} players, got {len(arrangements)} arrangements")
        deal = [as_arrangement(a) for a in arrangements]
        results = settle(deal, self.rules)
        ledger = tuple(t + r for t, r in zip(self.ledger, results))
        record = DealRecord(len(self.history) + 1, self.dealer, tuple(deal), tuple(results), ledger)
        self.history.append(record)
        return record

    def standings(self) -> list[tuple[int, int, int]]:
        """``(place, player, total)`` best first; tied totals share a place."""
        totals = self.ledger
        ranked = sorted(zip(places(totals), range(self.players), totals))
        return [(place, player, total) for place, player, total in ranked]


__all__ = ["DealRecord", "Session", "pair_points", "places", "row_results", "settle", "settle_matrix", "ROW_NAMES"]
