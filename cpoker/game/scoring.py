"""Settlement of a deal between 2-4 players, and 8-deal sessions (docs/rules.md §05).

>>> from cpoker import settle
>>> settle(["2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac",
...         "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"])
[1, -1]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Optional, Union

import numpy as np

from cpoker.game.arrangements import FRONT_ORDERS, ROW_NAMES, Arrangement, ArrangementLike, as_arrangement
from cpoker.game.cards import format_cards
from cpoker.system.errors import ArrangementError, CpokerError, OptionError, RulesError
from cpoker.system.limits import is_integer
from cpoker.game.naturals import Natural
from cpoker.game.rules import Rules, resolve_rules

MIN_PLAYERS, MAX_PLAYERS = 2, 4


def row_results(a: Arrangement, b: Arrangement) -> tuple[int, int, int]:
    """Front, middle and back results (+1 / 0 / -1) of ``a`` against ``b``.

    A valid hand wins every row against a fouled one; two fouled hands tie.
    """
    ka, kb = row_keys(a), row_keys(b)
    return tuple((x > y) - (x < y) for x, y in zip(ka, kb))  # type: ignore[return-value]


def row_keys(arrangement: Arrangement) -> tuple[int, int, int]:
    """Keys of front, middle and back; ``-1`` in every row for a fouled arrangement.  A front that plays for low
    (:meth:`Arrangement.under` a low order) gets its low key (:func:`cpoker._kernels.evaluate.low_front_key`)."""
    if arrangement.is_foul:
        return (-1, -1, -1)
    front, middle, back = (v.key for v in arrangement.values)  # type: ignore[union-attr]
    if arrangement.front_order != "high":
        from cpoker._kernels.evaluate import low_front_key

        front = int(low_front_key(front, FRONT_ORDERS.index(arrangement.front_order)))
    return front, middle, back


# the row keys of a surrendered hand in the jobs' key arrays (a foul's are -1): see surrender_points
SURRENDER_KEY = -2


def entry_keys(entry: "Arrangement | Surrendered") -> tuple[int, int, int]:
    """:func:`row_keys` of an arrangement; :data:`SURRENDER_KEY` in every row for :data:`SURRENDER`."""
    if isinstance(entry, Surrendered):
        return (SURRENDER_KEY,) * 3
    return row_keys(entry)


def surrender_points(points: np.ndarray, a: np.ndarray, b: np.ndarray, units: int) -> np.ndarray:
    """``points`` (of rows of keys ``a`` against ``b``, as the settlement kernels score them) with each pair that
    holds a surrender settled as one: ``-units`` for ``a``'s, ``+units`` for ``b``'s, 0 for both."""
    a_out = a[:, 0] == SURRENDER_KEY
    b_out = b[:, 0] == SURRENDER_KEY
    return np.where(a_out | b_out, units * (b_out.astype(np.int64) - a_out.astype(np.int64)), points)


def fouled_hand_points(rules: Rules) -> int:
    """What a fouled hand scores against one valid opponent when no royalties are paid: a lost scoop."""
    from cpoker._kernels.scoring import pair_points

    return int(pair_points(-1, -1, -1, 0, 0, 0, *rules.kernel_arguments()))


def dealt_royalty(arrangement: Arrangement, rules: Rules) -> int:
    """What a shown arrangement is paid by each opponent for the four of a kind or straight flush its cards hold
    (``royalties.dealt``; see :class:`~cpoker.Royalties`): 0 for a foul, and under other rules."""
    if not rules.pays_dealt or arrangement.is_foul:
        return 0
    from cpoker._kernels.evaluate import dealt_categories

    ids = np.array([sorted(int(card) for card in arrangement.cards)], dtype=np.uint8)
    return int(rules.royalties.dealt_units()[dealt_categories(ids)[0]])  # type: ignore[union-attr]


def dealt_units_of(hands: np.ndarray, rules: Rules) -> np.ndarray:
    """What each hand (``(..., 13)`` card ids) is paid by each opponent, if shown, for the four of a kind or
    straight flush it was dealt (``royalties.dealt``), ``int64`` of shape ``(...)``."""
    from cpoker._kernels.evaluate import dealt_categories

    units = rules.royalties.dealt_units()  # type: ignore[union-attr]
    categories = dealt_categories(np.ascontiguousarray(hands.reshape(-1, 13), dtype=np.uint8))
    return units[categories].reshape(hands.shape[:-1])


def dealt_royalties(hands: np.ndarray, keys: np.ndarray, rules: Rules) -> np.ndarray:
    """:func:`dealt_units_of` the hands as played (their row keys ``(..., 3)``): 0 for a foul or a surrender."""
    return np.where(keys[..., 0] >= 0, dealt_units_of(hands, rules), 0)


def fouled_rows() -> dict[str, dict[str, float]]:
    """Each row's chances of a fouled hand against valid ones, as results report them: every row lost."""
    return {name: {"win": 0.0, "tie": 0.0, "loss": 1.0} for name in ROW_NAMES}


class Surrendered:
    """A player who gave up the deal instead of showing an arrangement (``Rules(surrender=N)``, seed 003).

    :data:`SURRENDER` is the one instance; the text ``"surrender"`` stands for it wherever an
    arrangement is read.  It pays ``N`` units to each opponent who plays (an arrangement, fouled or not),
    nothing to another who surrendered, and a declared natural's payout in full.
    """

    cards: tuple = ()

    def to_dict(self) -> dict:
        return {"surrender": True}

    def format(self, symbols: bool = False) -> str:
        return "surrender"

    def __repr__(self) -> str:
        return "SURRENDER"

    def __reduce__(self) -> str:
        return "SURRENDER"  # pickles (to a worker, say) as the one instance


SURRENDER = Surrendered()
PARTS = ("rows", "scoring_bonus", "royalties", "naturals", "surrender")


def pair_breakdown(a: "Arrangement | Natural | Surrendered", b: "Arrangement | Natural | Surrendered",
                   rules: Optional[Rules] = None) -> dict[str, int]:
    """What ``a`` wins from ``b``: ``{"rows", "scoring_bonus", "royalties", "naturals", "surrender", "total"}``.

    A declared natural wins its payout from a player without one, surrendered
    or not (and pays a stronger one's).  A player who surrendered pays
    ``rules.surrender`` to one who plays and nothing to another who
    surrendered.  Otherwise rows, the scoring method's bonus and royalties are
    settled by the one kernel every simulation uses.
    """
    from cpoker._kernels.scoring import pair_parts

    rules = resolve_rules(rules)
    a, b = (entry.under(rules.front) if isinstance(entry, Arrangement) else entry for entry in (a, b))
    parts = dict.fromkeys(PARTS, 0)
    if isinstance(a, Surrendered) or isinstance(b, Surrendered):
        if isinstance(a, Natural) or isinstance(b, Natural):
            parts["naturals"] = (a.payout or 0) if isinstance(a, Natural) else -(b.payout or 0)  # type: ignore
        elif isinstance(a, Surrendered) != isinstance(b, Surrendered):
            parts["surrender"] = (rules.surrender or 0) * (1 if isinstance(b, Surrendered) else -1)
    elif isinstance(a, Natural) and isinstance(b, Natural):
        outcome = a.compare(b)
        parts["naturals"] = ((a.payout or 0) if outcome > 0 else (b.payout or 0) if outcome < 0 else 0) * outcome
    elif isinstance(a, Natural):
        parts["naturals"] = a.payout or 0
    elif isinstance(b, Natural):
        parts["naturals"] = -(b.payout or 0)
    else:
        rows, bonus, royalty = pair_parts(*row_keys(a), *row_keys(b), *rules.kernel_arguments())
        if rules.pays_dealt:  # each hand's dealt royalty, paid whatever the rows unless it fouls
            royalty += dealt_royalty(a, rules) - dealt_royalty(b, rules)
        parts.update(rows=int(rows), scoring_bonus=int(bonus), royalties=int(royalty))
    parts["total"] = sum(parts.values())
    return parts


def pair_points(a: "Arrangement | Natural", b: "Arrangement | Natural", rules: Optional[Rules] = None) -> int:
    """Points ``a`` wins from ``b`` under ``rules`` (default: the sum of row results)."""
    return pair_breakdown(a, b, rules)["total"]


Entry = Union[ArrangementLike, Natural, Surrendered]


def is_surrender(item: object) -> bool:
    """Whether an entry, or a strategy's answer, is a surrender: :data:`SURRENDER` or the word ``"surrender"``."""
    return isinstance(item, Surrendered) or (isinstance(item, str) and item.strip().lower() == "surrender")


def surrender_under(rules: Rules) -> Surrendered:
    """:data:`SURRENDER`, where ``rules`` allow it.

    Raises
    ------
    ArrangementError
        Under rules without ``surrender``.
    """
    if rules.surrender is None:
        raise ArrangementError(f"the rules ({rules.name}) do not allow surrender; house rules allow it with "
                               "surrender = UNITS (paid to each opponent who plays)")
    return SURRENDER


def _as_entry(item: Entry, rules: Rules, misset: str = "error") -> "Arrangement | Natural | Surrendered":
    if is_surrender(item):
        return surrender_under(rules)
    if isinstance(item, Natural):
        if rules.naturals is None or rules.naturals.payout(item.kind) is None:
            raise ArrangementError(f"the rules ({rules.name}) do not count the natural '{item.kind}'")
        if item.payout is None:
            item = Natural(item.kind, item.hand, rules.naturals.payout(item.kind), item.arrangement, item.tiebreak)
        return item
    if isinstance(item, str) and item.strip().lower().startswith("natural:"):
        from cpoker.game.naturals import natural

        hand = item.split(":", 1)[1]
        declared = natural(hand, rules)
        if declared is None:
            raise ArrangementError(f"no natural that the rules ({rules.name}) count in {hand.strip()!r}")
        return declared
    return as_arrangement(item, misset=misset).under(rules.front)  # type: ignore[arg-type]  # (surrender above)


def _check_deal(arrangements: Sequence[Entry], rules: Rules, misset: str = "error") -> list:
    if isinstance(arrangements, (str, Arrangement, Natural)) or not isinstance(arrangements, Sequence):
        raise ArrangementError("settle takes a list of arrangements, one per player")
    if not MIN_PLAYERS <= len(arrangements) <= MAX_PLAYERS:
        raise OptionError(f"a deal has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(arrangements)}")
    deal = []
    for player, entry in enumerate(arrangements, 1):
        try:
            deal.append(_as_entry(entry, rules, misset))
        except CpokerError as error:
            raise type(error)(f"player {player}: {error}") from None
    owner: dict[int, int] = {}
    for player, entry in enumerate(deal):
        cards = entry.hand if isinstance(entry, Natural) else entry.cards
        for card in set(cards):
            if card in owner:
                raise ArrangementError(
                    f"card {format_cards([card])} is held by both player {owner[card] + 1} and player {player + 1}")
            owner[card] = player
    return deal


MAX_STAKE = 10**6  # units a pair may play for: with a deal's points below 10**9, no total can overflow


def check_stakes(stakes: object, players: int) -> np.ndarray:
    """The stakes of each pair of ``players`` as an ``int64`` matrix: ``None`` is 1 for every pair.

    Seed 003: "A and B may play for $100 a unit while every other pair plays for $10".  ``stakes[i][j]``
    is the unit of the pair ``i, j``: a whole number from 1 to 1,000,000, the same both ways round (the
    diagonal is not read: a player does not play himself).

    Raises
    ------
    OptionError
        For a matrix of another size, a stake that is not a whole number in range, or an asymmetric one.
    """
    if stakes is None:
        return np.ones((players, players), dtype=np.int64)
    try:
        rows = [list(row) for row in stakes]  # type: ignore[attr-defined]
    except TypeError:
        raise OptionError(f"stakes must be a {players}x{players} matrix of units per pair, "
                          f"got {type(stakes).__name__}") from None
    if len(rows) != players or any(len(row) != players for row in rows):
        raise OptionError(f"stakes must be a {players}x{players} matrix, one row and column per player, got "
                          f"{len(rows)} rows of {sorted({len(row) for row in rows})} entries")
    matrix = np.ones((players, players), dtype=np.int64)
    for i in range(players):
        for j in range(players):
            if i == j:
                continue
            value = rows[i][j]
            if not is_integer(value) or not 1 <= value <= MAX_STAKE:
                raise OptionError(f"the stake of players {i + 1} and {j + 1} must be a whole number of units "
                                  f"from 1 to {MAX_STAKE:,}, got {value!r}")
            matrix[i, j] = value
    unequal = [(i, j) for i in range(players) for j in range(i + 1, players) if matrix[i, j] != matrix[j, i]]
    if unequal:
        i, j = unequal[0]
        raise OptionError(f"players {i + 1} and {j + 1} play for one stake, given as {matrix[i, j]} and "
                          f"{matrix[j, i]}: stakes must be symmetric")
    return matrix


@dataclass(frozen=True)
class Settlement:
    """A settled deal: what each player won from each other, in parts.

    Every matrix is ``(players, players)``, entry ``[i, j]`` being what player
    ``i`` wins from player ``j``: ``rows``, ``scoring_bonus`` (scoops and the
    2-4 bonus), ``royalties``, ``naturals``, ``surrender`` (what a player who
    surrendered paid) and their sum ``total``, each already multiplied by the
    pair's stake (``stakes``, 1 for every pair by default).  ``entries`` holds
    each player's arrangement, declared natural or :data:`SURRENDER`.
    """

    entries: tuple
    rows: np.ndarray
    scoring_bonus: np.ndarray
    royalties: np.ndarray
    naturals: np.ndarray
    total: np.ndarray
    stakes: Optional[np.ndarray] = None
    surrender: Optional[np.ndarray] = None  # (always set by settle_details; last to keep the fields' order)

    @property
    def surrendered(self) -> list[bool]:
        """Whether each player surrendered."""
        return [isinstance(entry, Surrendered) for entry in self.entries]

    @property
    def results(self) -> list[int]:
        return [int(x) for x in self.total.sum(axis=1)]


def settle_details(arrangements: Sequence[Entry], rules: Optional[Rules] = None,
                   misset: str = "error", stakes: object = None) -> Settlement:
    """Settle a deal and keep each part of every pairwise result (see :class:`Settlement`).

    An entry may be the word ``"surrender"`` (or :data:`SURRENDER`) when the rules allow it.
    ``misset="foul"`` settles a mis-set arrangement (wrong counts, a repeated
    card) as a foul, as docs/rules.md §04 does at the table; by default it is an error.
    ``stakes`` gives each pair its own unit (:func:`check_stakes`; default 1).
    """
    rules = resolve_rules(rules)
    deal = _check_deal(arrangements, rules, misset)
    n = len(deal)
    units = check_stakes(stakes, n)
    parts = {name: np.zeros((n, n), dtype=np.int64) for name in (*PARTS, "total")}
    for i in range(n):
        for j in range(i + 1, n):
            for name, value in pair_breakdown(deal[i], deal[j], rules).items():
                value *= int(units[i, j])
                parts[name][i, j], parts[name][j, i] = value, 0 - value  # (0 - 0 is 0, not -0)
    return Settlement(tuple(deal), **parts, stakes=None if stakes is None else units)


def settle_matrix(arrangements: Sequence[Entry], rules: Optional[Rules] = None, misset: str = "error",
                  stakes: object = None) -> np.ndarray:
    """Pairwise settlement: entry ``[i, j]`` is what player ``i`` wins from player ``j``.

    The matrix is antisymmetric (the game is zero-sum) and its row sums are
    :func:`settle`'s results; :func:`settle_details` splits it into its parts.
    """
    return settle_details(arrangements, rules, misset, stakes).total


def settle(arrangements: Sequence[Entry], rules: Optional[Rules] = None, misset: str = "error",
           stakes: object = None) -> list[int]:
    """Net points of each player for one deal of 2-4 players (zero-sum).

    Entries are arrangements (objects, ``"front / middle / back"`` text or
    three rows), naturals declared instead (:func:`cpoker.natural`, or the
    text ``"natural: <13 cards>"``) when the rules count them, or the word
    ``"surrender"`` when the rules allow it (``Rules(surrender=N)``: the
    player pays ``N`` to each opponent who plays).  ``stakes[i][j]``
    is the unit players ``i`` and ``j`` play for (seed 003's stakes between
    pairs: :func:`check_stakes`); by default every pair plays for 1.

    Raises
    ------
    OptionError
        For fewer than 2 or more than 4 players, or stakes that are not a symmetric matrix of whole units.
    ArrangementError, CardError
        For unreadable arrangements, a card held by two players, a natural the rules do not count, or a
        surrender the rules do not allow.

    Examples
    --------
    >>> a = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
    >>> b = "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"
    >>> c = "4s 5s 6h / 8c 8d Js Qh Kd / Jh Jd Qs Qd 7s"
    >>> settle([a, b, c])
    [2, -2, 0]
    >>> settle([a, b, c], stakes=[[1, 10, 1], [10, 1, 1], [1, 1, 1]])  # players 1 and 2 play for 10 a unit
    [11, -11, 0]
    """
    return settle_details(arrangements, rules, misset, stakes).results


def places(totals: Sequence[int]) -> list[int]:
    """Competition places of totals (highest first); ties share a place: 1, 1, 3, 4."""
    return [1 + sum(other > total for other in totals) for total in totals]


@dataclass(frozen=True)
class DealRecord:
    """One played deal of a session."""

    number: int  # 1-based
    dealer: int  # 0-based player index
    arrangements: tuple[Arrangement, ...]  # (or a declared natural, or SURRENDER)
    results: tuple[int, ...]  # already multiplied by the deal's stake
    ledger: tuple[int, ...]  # running totals after this deal
    stake: int = 1  # the deal's multiplier: rules.session_stakes[number - 1], or 1


@dataclass
class Session:
    """A session of ``deals`` deals; the dealer passes to the left (next index) after each.

    Under rules with ``session_stakes`` (seed 001's rising stake), deal ``k`` counts
    ``rules.session_stakes[k]`` times, on top of each pair's ``stakes``; the session may not be longer than
    that list.

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
    # each pair's unit for every deal (settle's stakes; None: 1 for every pair)
    stakes: Optional[Sequence[Sequence[int]]] = None

    def __post_init__(self) -> None:
        from cpoker.system.limits import MAX_DEALS, check_int

        self.players = check_int("players", self.players, MIN_PLAYERS, MAX_PLAYERS, " (a session has 2 to 4 players)")
        self.deals = check_int("deals", self.deals, 1, MAX_DEALS)
        self.first_dealer = check_int("first_dealer", self.first_dealer, 0, self.players - 1)
        self.rules = resolve_rules(self.rules)
        if self.stakes is not None:
            self.stakes = check_stakes(self.stakes, self.players).tolist()
        given = self.rules.session_stakes
        if given is not None and len(given) < self.deals:
            raise RulesError(f"the rules ({self.rules.name}) give session_stakes for {len(given)} deals, "
                             f"fewer than this session's {self.deals}")

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

    def play(self, arrangements: Sequence[Entry]) -> DealRecord:
        """Settle the next deal (times its session stake) and add it to the ledger."""
        if self.is_over:
            raise ArrangementError(f"the session is over: all {self.deals} deals were played")
        if len(arrangements) != self.players:
            raise ArrangementError(f"this session has {self.players} players, got {len(arrangements)} arrangements")
        deal = _check_deal(arrangements, self.rules)  # type: ignore[arg-type]
        stake = self.rules.deal_stake(len(self.history))  # type: ignore[union-attr]
        results = [stake * result for result in settle(deal, self.rules, stakes=self.stakes)]
        ledger = tuple(t + r for t, r in zip(self.ledger, results))
        record = DealRecord(len(self.history) + 1, self.dealer, tuple(deal), tuple(results), ledger, stake)
        self.history.append(record)
        return record

    def standings(self) -> list[tuple[int, int, int]]:
        """``(place, player, total)`` best first; tied totals share a place."""
        totals = self.ledger
        ranked = sorted(zip(places(totals), range(self.players), totals))
        return [(place, player, total) for place, player, total in ranked]


__all__ = ["DealRecord", "SURRENDER", "Session", "Settlement", "Surrendered", "check_stakes",
           "pair_breakdown", "pair_points", "places", "row_keys", "row_results",
           "settle", "settle_details", "settle_matrix", "ROW_NAMES"]
