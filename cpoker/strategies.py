"""Strategies: anything that maps a 13-card hand to an :class:`~cpoker.Arrangement`.

Built in:

* ``greedy`` -- strongest back, then strongest middle of the other 8, front the rest;
* ``table`` -- the table policy (:mod:`cpoker.policy`), ~26,000 hands/s per core;
* ``mc`` -- the Monte Carlo solver (:func:`cpoker.solve`) against table-policy opponents.

For speed, :func:`arrange_keys` arranges many hands at once and returns only
their row keys; the built-ins run in numba there, other callables one by one.
"""

from __future__ import annotations

import importlib
from typing import Protocol, Union

import numpy as np

from .arrange import Arrangement, arrangement_of_split, parse_hand
from .cards import CardsLike
from .errors import OptionError


class Strategy(Protocol):
    """A strategy: ``strategy(hand) -> Arrangement``."""

    def __call__(self, hand: CardsLike) -> Arrangement: ...


def greedy(hand: CardsLike) -> Arrangement:
    """Strongest back, then the strongest middle from the remaining 8; the front gets the rest."""
    from .policy import arrange_greedy

    ids = parse_hand(hand)
    chosen, _ = arrange_greedy(ids[None, :])
    return arrangement_of_split(ids, int(chosen[0]))


def table(hand: CardsLike) -> Arrangement:
    """The table policy's arrangement: the non-fouling split with the best sum of row values."""
    from .policy import arrange_by_tables, default_tables

    ids = parse_hand(hand)
    chosen, _ = arrange_by_tables(ids[None, :], default_tables().row_values)
    return arrangement_of_split(ids, int(chosen[0]))


def mc(hand: CardsLike, opponents: int = 1, samples: int = 2000, seed: int = 0) -> Arrangement:
    """The Monte Carlo solver's best arrangement (seeded, so a fixed strategy)."""
    from .solver import solve

    return solve(hand, opponents=opponents, samples=samples, seed=seed).best


BUILTIN: dict[str, Strategy] = {"greedy": greedy, "table": table, "mc": mc}
StrategyLike = Union[str, Strategy]


def resolve_strategy(strategy: StrategyLike) -> tuple[str, Strategy]:
    """``(name, callable)`` of a built-in name, a ``package.module:function`` path, or a callable."""
    if callable(strategy):
        return getattr(strategy, "__name__", repr(strategy)), strategy
    if not isinstance(strategy, str):
        raise OptionError(f"a strategy is a name or a callable, got {type(strategy).__name__}")
    if strategy in BUILTIN:
        return strategy, BUILTIN[strategy]
    if ":" in strategy:
        module_name, _, attribute = strategy.partition(":")
        try:
            function = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as error:
            raise OptionError(f"cannot load strategy {strategy!r}: {error}") from None
        if not callable(function):
            raise OptionError(f"strategy {strategy!r} is not callable")
        return strategy, function
    raise OptionError(f"unknown strategy {strategy!r}; built in: {', '.join(BUILTIN)}, "
                      "or give package.module:function")


def arrange_keys(strategy: StrategyLike, hands: np.ndarray) -> np.ndarray:
    """Row keys ``(N, 3)`` (front, middle, back) of many hands arranged by ``strategy``.

    ``hands`` is ``(N, 13)`` card ids.  A fouled arrangement gets key ``-1``
    in every row (it loses every row to any valid hand).
    """
    from .policy import arrange_by_tables, arrange_greedy, default_tables
    from .scoring import row_keys
    from .tables import strength_keys

    name, function = resolve_strategy(strategy)
    hands = np.sort(np.asarray(hands, dtype=np.uint8), axis=1)
    if function is greedy:
        return strength_keys()[arrange_greedy(hands)[1]]
    if function is table:
        return strength_keys()[arrange_by_tables(hands, default_tables().row_values)[1]]
    keys = np.empty((len(hands), 3), dtype=np.int32)
    for i, hand in enumerate(hands):
        arrangement = function(hand.tolist())
        arrangement = arrangement if isinstance(arrangement, Arrangement) else Arrangement.parse(str(arrangement))
        keys[i] = row_keys(Arrangement(*arrangement.rows, hand=hand.tolist()))  # cards not in the hand foul
    return keys


