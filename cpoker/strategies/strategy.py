"""Strategies: anything that maps a 13-card hand to an :class:`~cpoker.Arrangement`.

Built in:

* ``greedy`` -- strongest back, then strongest middle of the other 8, front the rest;
* ``table`` -- the table policy (:mod:`cpoker.strategies.policy`) with the tables of the rules in force,
  tens of thousands of hands a second a core (card removal corrected; docs/performance.md); ``table@RULES``
  with the tables shipped for other rules (``table@pagat`` under 2-4 scoring: the pagat-trained policy),
  ``table@FILE.npz`` with a tables file;
* ``mc`` -- the Monte Carlo solver (:func:`cpoker.solve`) against table-policy opponents: a job, above this
  layer, so the jobs resolve that name (:func:`cpoker.jobs.solve.resolve_player`); as a callable it is
  :func:`cpoker.mc`.

Besides: ``package.module:function`` (a Python callable), and ``cmd:COMMAND``
(a program in any language that speaks the line protocol, :mod:`cpoker.strategies.bots`).

For speed, :func:`arrange_keys` arranges many hands at once and returns only
their row keys; the built-ins run in numba there, other callables one by one.
"""

from __future__ import annotations

import importlib
import re
from typing import TYPE_CHECKING, NamedTuple, Protocol, Union

import numpy as np

from cpoker.strategies.bots import PREFIX as BOT_PREFIX, Bot
from cpoker.game.arrangements import Arrangement, arrangement_of_split, arrangement_of_subsets, parse_hand
from cpoker.game.cards import CardsLike
from cpoker.system.errors import CpokerError, StrategyError
from cpoker.system.interrupts import deferred
from cpoker.game.rules import DEFAULT_RULES, resolve_rules
from cpoker.game.scoring import SURRENDER, SURRENDER_KEY, Surrendered, entry_keys, is_surrender
from cpoker.strategies.policy import (arrange_by_tables, arrange_greedy, arrange_one_by_tables, default_tables,
                                      resolve_tables)
from cpoker.game.lookup_tables import SPLITS_PER_BACK, strength_keys, strength_scale, strengths_on_scale

if TYPE_CHECKING:  # pragma: no cover
    from cpoker.strategies.policy import PolicyTables
    from cpoker.game.rules import Rules


class Strategy(Protocol):
    """A strategy: ``strategy(hand) -> Arrangement``."""

    def __call__(self, hand: CardsLike) -> Arrangement: ...


def greedy(hand: CardsLike) -> Arrangement:
    """Strongest back, then the strongest middle from the remaining 8; the front gets the rest."""
    ids = parse_hand(hand)
    chosen, _ = arrange_greedy(ids[None, :])
    return arrangement_of_split(ids, int(chosen[0]))


def table(hand: CardsLike, tables: "PolicyTables | str | None" = None,
          rules: "Rules | str | None" = None) -> Arrangement:
    """The table policy's arrangement: the non-fouling split with the best expected settlement.

    ``tables`` are the policy's tables: by default the shipped ones for
    ``rules`` (default pagat), or a :class:`~cpoker.PolicyTables` / a file
    written by ``cpoker tables build`` (read at every call: for many hands,
    load it once with :meth:`PolicyTables.load <cpoker.PolicyTables.load>`).
    """
    model = resolve_tables(tables, rules)
    if type(hand) is np.ndarray and hand.dtype is _UINT8 and hand.shape == (13,) and hand.flags.carray:
        ids = hand  # a batch's row, say: the kernel checks that its ids are in order, distinct and known
        found = arrange_one_by_tables(ids, model)
    else:
        found = (-1, 0, 0, 0, 0, 0)
    if found[0] < 0:  # any other input, or ids out of order: the general reader sorts, or names the problem
        ids = parse_hand(hand)
        found = arrange_one_by_tables(ids, model)
    split, front_subset, middle_subset, front, middle, back = found
    arrangement = arrangement_of_subsets(ids.tolist(), front_subset, middle_subset, split // SPLITS_PER_BACK,
                                         (front, middle, back))
    if rules is None or rules is DEFAULT_RULES:
        return arrangement
    return arrangement.under(resolve_rules(rules).front)


_UINT8 = np.dtype(np.uint8)


def table_play(hand: CardsLike, tables: "PolicyTables | str | None" = None,
               rules: "Rules | str | None" = None) -> "Arrangement | Surrendered":
    """The table policy's play: :func:`table`'s arrangement, or :data:`~cpoker.SURRENDER` under rules that allow
    surrender (``Rules(surrender=N)``) when its own estimate of that arrangement, the table value against one
    opponent, is below ``-N``: surrendering then costs less against each opponent who plays."""
    arrangement = table(hand, tables, rules)
    rules = resolve_rules(rules)
    if rules.surrender is None:
        return arrangement
    model = resolve_tables(tables, rules).model
    strengths = strengths_on_scale(np.array([[value.strength_index for value in arrangement.values]]),  # type: ignore
                                   model.front_code)
    value = model.chosen_values(parse_hand(hand)[None, :], strengths)[0]
    return SURRENDER if value < -rules.surrender else arrangement


def policy_keys(strengths: np.ndarray, front_code: int, rules: "Rules") -> np.ndarray:
    """Row keys ``(N, 3)`` under ``rules`` of the splits a table policy chose, from their strengths on the scale
    of its own front order ``front_code`` (``RowModel.front_code``): the policy of other rules may play them
    (``table@pagat`` at a table whose front plays for low, say), where its split may foul (keys -1)."""
    if front_code == rules.front_code:
        return strength_keys(front_code)[strengths]
    from cpoker._kernels.evaluate import low_front_rows

    keys = strength_scale(front_code).shape_keys[strengths]  # the rows' keys in the high order
    if rules.front_code:
        low_front_rows(keys, rules.front_code)
    else:  # a low front's policy puts any front under its middle
        keys[keys[:, 1] < keys[:, 0]] = -1
    return keys


def surrenders_by_tables(hands: np.ndarray, strengths: np.ndarray, model: "PolicyTables",
                         units: int) -> np.ndarray:
    """Which hands the table policy surrenders at ``units`` a surrender: those whose chosen split's table value
    against one opponent (:meth:`~cpoker.RowModel.chosen_values`) is below ``-units``."""
    return model.model.chosen_values(hands, strengths) < -units


class TablePolicy:
    """The table policy with given tables, as a strategy (``resolve_strategy("table", tables=...)``)."""

    def __init__(self, tables: "PolicyTables", name: str = "table") -> None:
        self.tables = tables
        self.__name__ = name

    def __call__(self, hand: CardsLike) -> Arrangement:
        return table(hand, self.tables)

    def __repr__(self) -> str:
        return f"TablePolicy({self.tables.hands} hands, seed {self.tables.seed})"


BUILTIN: "dict[str, Strategy]" = {"greedy": greedy, "table": table}
# the names a job plays: these, and ``mc``, the solver, which the jobs resolve (cpoker.jobs.solve.resolve_player)
BUILTIN_NAMES = ("greedy", "table", "mc")
StrategyLike = Union[str, Strategy, "Player"]
_PLUGIN = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*", re.ASCII)


def load_plugin(strategy: str) -> Strategy:
    """The callable at ``package.module:function``; :class:`~cpoker.StrategyError` when there is none."""
    if not _PLUGIN.fullmatch(strategy):
        raise StrategyError(f"cannot load strategy {strategy[:60]!r}: give package.module:function "
                            "(an importable module, a colon, a function name)")
    module_name, _, attribute = strategy.partition(":")
    try:
        value = importlib.import_module(module_name)
        for part in attribute.split("."):
            value = getattr(value, part)
    except Exception as error:  # an importable-looking name can fail in any way while importing
        raise StrategyError(f"cannot load strategy {strategy!r}: {type(error).__name__}: {error}") from None
    if not callable(value):
        raise StrategyError(f"strategy {strategy!r} is not callable")
    return value


class Player(NamedTuple):
    """A strategy as a job plays it: its name in results, and the callable that plays it, resolved once."""

    name: str
    strategy: Strategy


def resolve_strategy(strategy: StrategyLike, tables: "PolicyTables | str | None" = None) -> Player:
    """``(name, callable)`` of a built-in name, a ``package.module:function`` path, a bot or a callable.

    ``tables`` replaces the shipped tables of the ``table`` strategy.  ``mc``,
    the solver, is a job's to resolve (:func:`cpoker.jobs.solve.resolve_player`).
    A :class:`Player` (a strategy resolved already) is itself.
    """
    if isinstance(strategy, Player):
        return strategy
    if callable(strategy):
        return Player(getattr(strategy, "__name__", repr(strategy)), strategy)
    if isinstance(strategy, str) and strategy.startswith(BOT_PREFIX):
        bot = Bot(strategy)
        return Player(bot.__name__, bot)
    if not isinstance(strategy, str):
        raise StrategyError(f"a strategy is a name or a callable, got {type(strategy).__name__}")
    if strategy == "table" and tables is not None:
        return Player("table", TablePolicy(resolve_tables(tables)))
    if strategy.startswith("table@"):
        source = strategy[len("table@"):]
        found = resolve_tables(source) if source.endswith(".npz") else default_tables(source)
        return Player(strategy, TablePolicy(found, strategy))
    if strategy in BUILTIN:
        return Player(strategy, BUILTIN[strategy])
    if strategy == "mc":
        raise StrategyError("'mc' is the Monte Carlo solver, which cpoker's jobs play (cpoker.match, "
                            "cpoker.simulate...); as a callable strategy it is cpoker.mc")
    if ":" in strategy:
        return Player(strategy, load_plugin(strategy))
    raise StrategyError(f"unknown strategy {strategy[:60]!r}; built in: {', '.join(BUILTIN_NAMES)}, table@RULES, "
                        "table@FILE.npz, package.module:function, or cmd:COMMAND (a bot)")


def _call_strategy(name: str, function: Strategy, hand: list,
                   may_surrender: bool = False) -> "Arrangement | Surrendered":
    """A plug-in's arrangement of ``hand`` (or its surrender, where it may); its failures and nonsense answers
    become :class:`StrategyError`."""
    from cpoker.game.cards import format_cards

    try:
        answer = function(hand)
    except CpokerError as error:
        raise StrategyError(f"strategy {name!r} failed on hand {format_cards(hand)}: {error}") from None
    except Exception as error:
        raise StrategyError(f"strategy {name!r} failed on hand {format_cards(hand)}: "
                            f"{type(error).__name__}: {error}") from None
    if is_surrender(answer):
        if not may_surrender:
            raise StrategyError(f"strategy {name!r} surrendered hand {format_cards(hand)}, where every hand is "
                                "played (rules without surrender, or an opponent model)")
        return SURRENDER
    if not isinstance(answer, (Arrangement, str)):
        raise StrategyError(f"strategy {name!r} returned {type(answer).__name__} for hand {format_cards(hand)}; "
                            "a strategy returns an Arrangement or 'front / middle / back' text")
    try:
        arrangement = answer if isinstance(answer, Arrangement) else Arrangement.parse(answer)
        return Arrangement(*arrangement.rows, hand=hand)
    except CpokerError as error:
        raise StrategyError(f"strategy {name!r} answered {str(answer)[:60]!r} for hand {format_cards(hand)}: "
                            f"{error}") from None


def arrange_keys(strategy: StrategyLike, hands: np.ndarray, tables: "PolicyTables | str | None" = None,
                 device: str = "cpu", rules: "Rules | str | None" = None, opponents: int = 1,
                 may_surrender: bool = False) -> np.ndarray:
    """Row keys ``(N, 3)`` (front, middle, back) of many hands arranged by ``strategy``.

    ``hands`` is ``(N, 13)`` card ids.  A fouled arrangement (rows out of
    order) gets key ``-1`` in every row: it loses every row to any valid hand.
    A bot is asked in batches, told the rules and its ``opponents``; the hands
    of a request it faulted on are fouls.  With ``may_surrender`` (a player
    at a table whose rules allow surrender), a surrendered hand gets
    :data:`~cpoker.game.scoring.SURRENDER_KEY` in every row: the table policy
    surrenders as :func:`table_play` does, a plug-in by answering
    ``"surrender"``, and greedy and bots never do.

    Raises
    ------
    StrategyError
        When a plug-in strategy raises, or answers with something that is not an
        arrangement of the hand it was given; when a bot cannot be started.
    BotBroken
        When a bot faulted on several requests in a row.
    """
    name, function = resolve_strategy(strategy, tables)
    hands = np.sort(np.asarray(hands, dtype=np.uint8), axis=1)
    resolved = resolve_rules(rules)
    units = resolved.surrender if may_surrender else None
    may_surrender = units is not None
    if function is greedy:  # (never a foul: its middle is the best five of the cards its back leaves)
        keys = strength_keys()[arrange_greedy(hands, device)[1]]
        if resolved.front != "high":
            from cpoker._kernels.evaluate import low_front_rows

            low_front_rows(keys, resolved.front_code)
        return keys
    if function is table or isinstance(function, TablePolicy):
        policy = default_tables(rules) if function is table else function.tables  # type: ignore[union-attr]
        strengths = arrange_by_tables(hands, policy, device)[1]
        keys = policy_keys(strengths, policy.model.front_code, resolved)
        if units is not None:
            keys[surrenders_by_tables(hands, strengths, policy, units)] = SURRENDER_KEY
        return keys
    if isinstance(function, Bot):
        return function.arrange_keys(hands, resolved.name, opponents, resolved.front)
    keys = np.empty((len(hands), 3), dtype=np.int32)
    # a strategy may run cpoker's own jobs (``mc`` solves each hand): a signal is then the enclosing job's, which
    # drops the block these hands belong to at the inner job's next block: the inner solve must not take it as
    # its own (a partial answer for one hand, and the enclosing match playing on to its end).  A strategy that
    # runs no job finishes the block, as the built-in ones do.
    with deferred():
        for i, hand in enumerate(hands):
            answer = _call_strategy(name, function, hand.tolist(), may_surrender)
            keys[i] = entry_keys(answer.under(resolved.front) if isinstance(answer, Arrangement) else answer)
    return keys
