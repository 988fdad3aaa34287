"""Arrangements of a 13-card hand into front (3), middle (5) and back (5) rows.

>>> from cpoker import Arrangement
>>> a = Arrangement.parse("2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac")
>>> a.is_foul, a.back_value.category
(False, 'straight flush')
>>> Arrangement("As Ad Kc", "Qs Qd 5c 4h 3s", "Ks Kd 8h 7s 2c").foul_reason
'middle (pair of queens, five, four and three kickers) is weaker than front (pair of aces, king kicker)'
"""

from __future__ import annotations

import copy
import functools
import operator
from collections.abc import Iterator, Sequence
from typing import Optional, Union

import numpy as np

from cpoker.game.cards import CARDS, Card, CardsLike, format_cards, parse_cards, short_repr
from cpoker.system.errors import ArrangementError, CardError
from cpoker.game.evaluation import HandValue, value_of_cards
from cpoker.game.lookup_tables import SPLITS_PER_BACK, split_tables

ROW_NAMES = ("front", "middle", "back")
ROW_SIZES = (3, 5, 5)
MISSET_POLICIES = ("error", "foul")
# how the front is ranked (Rules.front): like every row, or for low with the ace low or high
FRONT_ORDERS = ("high", "low-a5", "low-27")


class Arrangement:
    """Three rows of cards: ``front`` (3), ``middle`` (5), ``back`` (5).

    Rows out of order (docs/rules.md §04: the back weaker than the middle, or the
    middle weaker than the front) make a valid object that fouls:
    :attr:`is_foul` is true and :attr:`foul_reason` says why.  Malformed rows
    -- wrong counts, a card given twice, a card not in ``hand`` -- are input
    errors and raise :class:`~cpoker.ArrangementError`, unless
    ``misset="foul"`` asks for the table's rule that a mis-set hand fouls too
    (for settling what players actually put down).  Under rules whose front
    plays for low (``Rules(front="low-a5")``), only a back weaker than the
    middle fouls: :meth:`under` gives the arrangement as such rules judge it.

    Parameters
    ----------
    front, middle, back
        Cards of each row: strings such as ``"As Kd 9c"`` or iterables of cards.
    hand
        Optional 13-card hand the rows must be drawn from.
    misset
        ``"error"`` (default) or ``"foul"``.
    """

    __slots__ = ("front", "middle", "back", "hand", "front_order", "_values", "_keys", "_foul_reason")

    def __init__(self, front: CardsLike, middle: CardsLike, back: CardsLike,
                 hand: Optional[CardsLike] = None, misset: str = "error") -> None:
        if misset not in MISSET_POLICIES:
            raise ArrangementError(f"misset must be 'error' or 'foul', got {misset!r}")
        self.front: tuple[Card, ...] = parse_cards(front, unique=False)
        self.middle: tuple[Card, ...] = parse_cards(middle, unique=False)
        self.back: tuple[Card, ...] = parse_cards(back, unique=False)
        self.hand: Optional[frozenset[Card]] = frozenset(parse_cards(hand, count=13)) if hand is not None else None
        self.front_order = "high"  # (see under)
        self._values: Optional[tuple[HandValue, HandValue, HandValue]] = None
        self._keys: Optional[tuple[int, int, int]] = None  # row keys known before their values are made
        misset_reason = self._find_misset()
        if misset_reason is not None and misset == "error":
            raise ArrangementError(f"not a valid arrangement: {misset_reason}")
        self._foul_reason = misset_reason or self._find_order_foul()

    @classmethod
    def _of_cards(cls, front: tuple[Card, ...], middle: tuple[Card, ...], back: tuple[Card, ...],
                  keys: Optional[Sequence[int]] = None) -> "Arrangement":
        """An arrangement of rows known to be well formed (distinct cards, 3/5/5): no parsing, no misset check.

        ``keys`` are the rows' strength keys when the caller has them (the kernels do).
        """
        self = cls.__new__(cls)
        self.front, self.middle, self.back = front, middle, back
        self.hand = None
        self.front_order = "high"
        self._values = None
        if keys is None:
            self._keys = None
            self._foul_reason = self._find_order_foul()
        else:
            # the rows' HandValues are made when first asked for; keys on one scale order the rows
            front_key, middle_key, back_key = keys
            self._keys = (front_key, middle_key, back_key)
            in_order = front_key <= middle_key <= back_key
            self._foul_reason = None if in_order else self._order_foul(*self._known_values())
        return self

    @classmethod
    def parse(cls, text: str, hand: Optional[CardsLike] = None, misset: str = "error") -> "Arrangement":
        """Read ``"front / middle / back"``, e.g. ``"2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"``."""
        if isinstance(text, Arrangement):
            return text
        if not isinstance(text, str):
            raise ArrangementError(f"an arrangement is text 'front / middle / back', got {short_repr(text, 60)}")
        parts = text.split("/")
        if len(parts) != 3:
            raise ArrangementError(
                f"an arrangement is 'front / middle / back' with two '/', got {short_repr(text, 60)}")
        front, middle, back = parts
        return cls(front, middle, back, hand=hand, misset=misset)

    def _find_misset(self) -> Optional[str]:
        for name, row, size in zip(ROW_NAMES, self.rows, ROW_SIZES):
            if len(row) != size:
                return f"wrong count: {name} has {len(row)} card{'s' * (len(row) != 1)}, needs {size}"
        seen: set[Card] = set()
        for card in self.cards:
            if card in seen:
                return f"duplicate card {card}"
            seen.add(card)
        if self.hand is not None:
            for card in self.cards:
                if card not in self.hand:
                    return f"card {card} is not in the hand"
        return None

    def _find_order_foul(self) -> Optional[str]:
        front, middle, back = (value_of_cards(row) for row in self.rows)
        self._values = (front, middle, back)
        return self._order_foul(front, middle, back)

    @staticmethod
    def _order_foul(front: HandValue, middle: HandValue, back: HandValue, front_order: str = "high") -> Optional[str]:
        if back < middle:
            return f"back ({back}) is weaker than middle ({middle})"
        if front_order == "high" and middle < front:
            return f"middle ({middle}) is weaker than front ({front})"
        return None

    def under(self, front_order: str) -> "Arrangement":
        """This arrangement as rules whose front ranks by ``front_order`` judge it (one of ``FRONT_ORDERS``,
        ``Rules.front``): under a low front (``"low-a5"``, ``"low-27"``) only a back weaker than the middle
        fouls, and settlement compares fronts for low.  The same object when the order is already its own."""
        if front_order not in FRONT_ORDERS:
            raise ArrangementError(f"front order must be one of {', '.join(FRONT_ORDERS)}, got {front_order!r}")
        if front_order == self.front_order:
            return self
        judged = copy.copy(self)
        judged.front_order = front_order
        values = self._row_values()
        judged._foul_reason = self._foul_reason if values is None else self._order_foul(*values, front_order)
        return judged

    @property
    def rows(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        """``(front, middle, back)``."""
        return self.front, self.middle, self.back

    @property
    def cards(self) -> tuple[Card, ...]:
        """All cards, front then middle then back."""
        return self.front + self.middle + self.back

    @property
    def is_foul(self) -> bool:
        return self._foul_reason is not None

    @property
    def foul_reason(self) -> Optional[str]:
        """Why the arrangement fouls, or ``None``."""
        return self._foul_reason

    @property
    def values(self) -> Optional[tuple[HandValue, HandValue, HandValue]]:
        """Strengths of front, middle and back, or ``None`` when the rows can't be evaluated."""
        return self._row_values()

    def _known_values(self) -> tuple[HandValue, HandValue, HandValue]:
        """The rows' values, of an arrangement whose rows can be evaluated (its keys known, or no misset)."""
        values = self._row_values()
        assert values is not None, "the rows of a misset arrangement have no values"
        return values

    def _row_values(self) -> Optional[tuple[HandValue, HandValue, HandValue]]:
        if self._values is None and self._keys is not None:
            front_key, middle_key, back_key = self._keys
            self._values = (HandValue(front_key, 3), HandValue(middle_key, 5), HandValue(back_key, 5))
        return self._values

    @property
    def front_value(self) -> HandValue:
        return self._require_values()[0]

    @property
    def middle_value(self) -> HandValue:
        return self._require_values()[1]

    @property
    def back_value(self) -> HandValue:
        return self._require_values()[2]

    def _require_values(self) -> tuple[HandValue, HandValue, HandValue]:
        values = self._row_values()
        if values is None:
            raise ArrangementError(f"rows cannot be evaluated: {self._foul_reason}")
        return values

    def format(self, symbols: bool = False) -> str:
        """``"front / middle / back"`` in canonical card order."""
        return " / ".join(format_cards(row, symbols=symbols) for row in self.rows)

    def to_dict(self) -> dict:
        """Plain data for JSON output."""
        out: dict = {name: format_cards(row) for name, row in zip(ROW_NAMES, self.rows)}
        out["foul"] = self.foul_reason
        if self.front_order != "high":  # (judged by rules whose front plays for low: see under)
            out["front_order"] = self.front_order
        values = self._row_values()
        if values is not None:
            out["rows"] = {name: {"category": v.category, "description": v.describe(), "key": v.key}
                           for name, v in zip(ROW_NAMES, values)}
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Arrangement):
            return NotImplemented
        return all(sorted(a) == sorted(b) for a, b in zip(self.rows, other.rows))

    def __hash__(self) -> int:
        return hash(tuple(tuple(sorted(row)) for row in self.rows))

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"Arrangement.parse('{self.format()}')"


ArrangementLike = Union[Arrangement, str, Sequence[CardsLike]]


def as_arrangement(item: ArrangementLike, misset: str = "error") -> Arrangement:
    """An :class:`Arrangement` from one, from ``"f / m / b"`` text, or from three rows."""
    if isinstance(item, Arrangement):
        return item
    if isinstance(item, str):
        return Arrangement.parse(item, misset=misset)
    if not isinstance(item, (list, tuple)):
        raise ArrangementError(f"an arrangement is 'front / middle / back' text or 3 rows, got {short_repr(item, 60)}")
    if len(item) != 3:
        raise ArrangementError(f"an arrangement needs 3 rows (front, middle, back), got {len(item)}")
    front, middle, back = item
    return Arrangement(front, middle, back, misset=misset)


def is_foul(front: CardsLike, middle: CardsLike, back: CardsLike,
            hand: Optional[CardsLike] = None, misset: str = "error") -> bool:
    """Whether the rows foul by being out of order (see :class:`Arrangement` for malformed rows)."""
    return Arrangement(front, middle, back, hand=hand, misset=misset).is_foul


def parse_hand(hand: CardsLike) -> np.ndarray:
    """A 13-card hand as sorted ``uint8`` card ids (so answers never depend on input order).

    Raises
    ------
    CardError
        Unless the input holds exactly 13 distinct known cards.
    """
    if isinstance(hand, np.ndarray) and hand.shape == (13,) and hand.dtype.kind in "ui":
        given = hand.tolist()  # card ids from the kernels or a batch: no Card objects on the way
        ids = sorted(given)
        if 0 <= ids[0] and ids[12] < 52 and len(set(ids)) == 13:
            if ids == given and hand.dtype == np.uint8:
                return hand.copy()  # already in order (a batch's row): 5x cheaper than building from the list
            return np.array(ids, dtype=np.uint8)
    cards = parse_cards(hand)  # anything else, and the error that names what is wrong
    if len(cards) != 13:
        raise CardError(f"a hand has 13 cards, got {len(cards)}")
    return np.array(sorted(cards), dtype=np.uint8)


def arrangement_of_split(hand_ids: np.ndarray, split: int, keys: Optional[Sequence[int]] = None) -> Arrangement:
    """The arrangement that split number ``split`` (0..72,071) makes of sorted hand ids (``keys``: of its rows,
    front first, when known)."""
    _, _, middles, fronts = _split_rows()
    return arrangement_of_subsets(hand_ids.tolist(), int(fronts[split]), int(middles[split]),
                                  split // SPLITS_PER_BACK, keys)


def arrangement_of_subsets(hand_ids: list, front: int, middle: int, back: int,
                           keys: Optional[Sequence[int]] = None) -> Arrangement:
    """The arrangement whose rows are the given 3-subset (0..285) and 5-subsets (0..1,286) of a hand's sorted
    ids, as a list (``keys``: of its rows, front first, when known)."""
    rows5, rows3, _, _ = _split_rows()
    hand = operator.itemgetter(*hand_ids)(CARDS)
    return Arrangement._of_cards(rows3[front](hand), rows5[middle](hand), rows5[back](hand), keys)


@functools.cache
def _split_rows() -> tuple[list, list, np.ndarray, np.ndarray]:
    """A getter of each 5-subset's and 3-subset's cards (from a hand's 13 Cards), and each split's middle and front.

    Precomputed so that one arrangement costs a few lookups (``cpoker.table(hand)``'s path): the 1,573
    getters return tuples of Cards directly.
    """
    tables = split_tables()
    return ([operator.itemgetter(*positions) for positions in tables.subsets5.tolist()],
            [operator.itemgetter(*positions) for positions in tables.subsets3.tolist()],
            tables.middles, tables.fronts)


class Arrangements(Sequence):
    """Every non-fouling arrangement of a hand, as arrays for vectorised work.

    Attributes
    ----------
    hand
        The 13 card ids, sorted.
    split_ids
        Index (0..72,071) of each non-fouling split in ``cpoker.game.lookup_tables.split_tables().splits``.
    front_keys, middle_keys, back_keys
        ``int32`` strength keys of each row, aligned with ``split_ids``.
    """

    def __init__(self, hand: np.ndarray, split_ids: np.ndarray, front_keys: np.ndarray, middle_keys: np.ndarray,
                 back_keys: np.ndarray):
        self.hand = hand
        self.split_ids = split_ids
        self.front_keys = front_keys
        self.middle_keys = middle_keys
        self.back_keys = back_keys

    def __len__(self) -> int:
        return len(self.split_ids)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return arrangement_of_split(self.hand, int(self.split_ids[index]))

    def __iter__(self) -> Iterator[Arrangement]:
        for split in self.split_ids:
            yield arrangement_of_split(self.hand, int(split))

    def __repr__(self) -> str:
        return f"<Arrangements of {format_cards(self.hand)}: {len(self)} non-fouling of 72072>"


def arrangements(hand: CardsLike) -> Arrangements:
    """All non-fouling back/middle/front splits of a 13-card hand.

    >>> len(arrangements("As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2s"))  # back >= middle: half of all
    36036
    """
    from cpoker._kernels.subsets import arrangement_arrays
    from cpoker.system.interrupts import shielded
    from cpoker.game.lookup_tables import split_tables

    hand_ids = parse_hand(hand)
    tables = split_tables()
    with shielded():
        arrays = arrangement_arrays(hand_ids, tables.subsets5, tables.subsets3, tables.middles, tables.fronts)
    return Arrangements(hand_ids, *arrays)
