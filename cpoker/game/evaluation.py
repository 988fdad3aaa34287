"""Public evaluation API: strength of a 3- or 5-card row on one shared scale.

>>> from cpoker import evaluate
>>> evaluate("Kh Kd 9s 9c Ah").describe()
'two pair, kings and nines, ace kicker'
>>> evaluate("Ks Kh 5d") < evaluate("Kc Kd 5c 4h 3s")   # a missing kicker loses
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from cpoker.game.cards import RANK_NAMES, RANK_PLURALS, CardsLike, parse_cards
from cpoker.system.errors import CardError

CATEGORIES = ("high card", "pair", "two pair", "three of a kind", "straight", "flush",
              "full house", "four of a kind", "straight flush")
_CATEGORY_SHIFT = 26
_MAJOR_SHIFT = 13


def _ranks_desc(rank_set: int) -> list[int]:
    return [r for r in range(12, -1, -1) if (rank_set >> r) & 1]


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _kickers(ranks: list[int]) -> str:
    if not ranks:
        return ""
    noun = "kicker" if len(ranks) == 1 else "kickers"
    return f", {_join([RANK_NAMES[r] for r in ranks])} {noun}"


def describe_key(key: int, kickers: bool = True) -> str:
    """Description of a strength key; ``kickers=False`` keeps only the category and main ranks.

    >>> describe_key(evaluate("Kh Kd 9s 9c Ah").key, kickers=False)
    'two pair, kings and nines'
    """
    category = key >> _CATEGORY_SHIFT
    major = _ranks_desc((key >> _MAJOR_SHIFT) & 0x1FFF)
    minor = _ranks_desc(key & 0x1FFF) if kickers else []
    if category == 8:
        return "royal flush" if major[0] == 12 else f"straight flush, {RANK_NAMES[major[0]]} high"
    if category in (0, 5):
        if not kickers:
            return f"{CATEGORIES[category]}, {RANK_NAMES[major[0]]} high"
        return f"{CATEGORIES[category]}, " + "-".join(RANK_NAMES[r] for r in major)
    if category == 4:
        return f"straight, {RANK_NAMES[major[0]]} high"
    if category == 6:
        return f"full house, {RANK_PLURALS[major[0]]} full of {RANK_PLURALS[_ranks_desc(key & 0x1FFF)[0]]}"
    if category == 2:
        return f"two pair, {RANK_PLURALS[major[0]]} and {RANK_PLURALS[major[1]]}{_kickers(minor)}"
    if category == 1:
        return f"pair of {RANK_PLURALS[major[0]]}{_kickers(minor)}"
    return f"{CATEGORIES[category]}, {RANK_PLURALS[major[0]]}{_kickers(minor)}"  # three or four of a kind


@dataclass(frozen=True, eq=False)
class HandValue:
    """The strength of a 3- or 5-card row, totally ordered across row sizes.

    Attributes
    ----------
    key
        The integer strength key; larger is stronger, equal is a tie.
    n_cards
        3 or 5.
    """

    key: int
    n_cards: int

    @property
    def category(self) -> str:
        """The hand category, e.g. ``"two pair"``."""
        return CATEGORIES[self.category_index]

    @property
    def category_index(self) -> int:
        """0 (high card) to 8 (straight flush)."""
        return self.key >> _CATEGORY_SHIFT

    @property
    def strength_index(self) -> int:
        """Dense rank of this strength among all 7,917 row strengths (0 = weakest)."""
        from cpoker.game.lookup_tables import strength_keys

        return int(np.searchsorted(strength_keys(), self.key))

    def describe(self) -> str:
        """A readable description, e.g. ``"two pair, kings and nines, ace kicker"``."""
        return describe_key(self.key)

    def to_dict(self) -> dict:
        """The value as JSON data (``cpoker eval --json`` and the web API's ``/api/evaluate`` add the cards):
        its category, description and key, and its rank among all row strengths (1 = the weakest)."""
        from cpoker.game.lookup_tables import strength_keys

        index = self.strength_index
        return {"category": self.category, "description": self.describe(), "key": self.key, "strength_index": index,
                "strength_rank": index + 1, "strengths": len(strength_keys())}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __lt__(self, other: "HandValue") -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key < other.key

    def __le__(self, other: "HandValue") -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key <= other.key

    def __gt__(self, other: "HandValue") -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key > other.key

    def __ge__(self, other: "HandValue") -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key >= other.key

    def __str__(self) -> str:
        return self.describe()

    def __repr__(self) -> str:
        return f"HandValue({self.describe()!r}, key={self.key})"


def evaluate(cards: CardsLike) -> HandValue:
    """Evaluate a 3-card front or a 5-card middle/back row.

    Raises
    ------
    CardError
        If the cards cannot be read, repeat, or are not 3 or 5 of them.
    """
    parsed = parse_cards(cards)
    if len(parsed) not in (3, 5):
        raise CardError(f"a row has 3 or 5 cards, got {len(parsed)}")
    return value_of_cards(parsed)


def value_of_cards(cards: Iterable[int]) -> HandValue:
    """Evaluate already-checked card ids (3 or 5, distinct); no validation."""
    ids = list(cards)
    return HandValue(key_of_ids(ids), len(ids))


def key_of_ids(ids: list) -> int:
    """Key of 3 or 5 card ids, or of the best five of 6 or 7: the lookup evaluator in plain Python.

    The same tables and arithmetic as :mod:`cpoker._kernels.lookup` (the
    tests compare them), for one hand at a time: a few microseconds, and no
    kernel to load, so evaluating a single row never starts numba (which
    costs about half a second in a fresh process).
    """
    from cpoker._kernels.layout import (EVAL_FLUSH_BITS, EVAL_KEY_SHIFT, EVAL_ROWS_AT, EVAL_SUIT_BIAS, FLUSH_KEY_OFFSET,
                                        ROW_SHIFT)
    from cpoker.game.lookup_tables import evaluator_table

    eval_codes = _eval_codes()
    code = EVAL_SUIT_BIAS + sum(eval_codes[c] for c in ids)
    table = evaluator_table(len(ids))
    if code & EVAL_FLUSH_BITS:  # (never for three cards)
        flags = (code & EVAL_FLUSH_BITS) >> 3  # bit 0, 4, 8 or 12: the suit with five or more cards
        suit = (flags.bit_length() - 1) // 4
        ranks = sum(1 << (c % 13) for c in ids if c // 13 == suit)
        if len(ids) > 5:
            return int(table[ranks])  # the flush keys come first
        key = (code >> EVAL_KEY_SHIFT) + FLUSH_KEY_OFFSET  # five cards: the flushes are in the rows too
    else:
        key = code >> EVAL_KEY_SHIFT
    return int(table[key + int(table[EVAL_ROWS_AT + (key >> ROW_SHIFT)])])


@functools.cache
def _eval_codes() -> list:
    from cpoker.game.lookup_tables import lookup_tables

    return lookup_tables().eval_codes.tolist()


def _as_array(cards) -> np.ndarray:
    try:
        return np.asarray(cards)
    except (ValueError, TypeError, OverflowError) as error:  # ragged lists, huge ints
        raise CardError(f"cannot read the batch as an array of card ids: {error}") from None


def _card_ids(array: np.ndarray, widths: tuple, what: str, check: bool) -> np.ndarray:
    """``(N, k)`` card ids as contiguous ``uint8``, their shape and dtype checked (and, unless they are ``uint8``,
    their range: a wider id would wrap).  Repeats, and ``uint8`` ids above 51, are found by the evaluation's own
    pass (:func:`_raise_if_bad_ids` then names the row)."""
    if array.ndim != 2 or array.shape[1] not in widths:
        shapes = " or ".join(f"(N, {k})" for k in widths)
        raise CardError(f"{what} takes a {shapes} array of card ids (or 1-D int64 masks), got shape {array.shape}")
    if not check:
        return np.ascontiguousarray(array, dtype=np.uint8)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise CardError(f"card ids must be an integer array, got dtype {array.dtype} "
                        "(convert with .astype(np.uint8) after checking the values)")
    if array.dtype != np.uint8 and array.size and (array.min() < 0 or array.max() > 51):
        _raise_out_of_range(array)
    return np.ascontiguousarray(array, dtype=np.uint8)


def _raise_if_bad_ids(ids: np.ndarray, flagged: bool = False) -> None:
    """:class:`CardError` naming the first row of ``uint8`` ids with an id above 51 or a repeated card, if any
    (``flagged``: the evaluation's check found one; otherwise this checks first)."""
    from cpoker._kernels.evaluate import first_bad_row, rows_problem

    if not flagged and not rows_problem(ids):
        return
    row = int(first_bad_row(ids))
    if row >= 0:
        if ids[row].max() > 51:
            _raise_out_of_range(ids)
        raise CardError(f"row {row} repeats a card: {ids[row].tolist()}")


def _raise_out_of_range(array: np.ndarray) -> None:
    row = int(np.flatnonzero(((array < 0) | (array > 51)).any(axis=1))[0])
    raise CardError(f"card ids must lie in 0..51; row {row} is {array[row].tolist()}")


def _checked_masks(array: np.ndarray, low: int, high: int, check: bool) -> np.ndarray:
    """1-D card masks as contiguous ``int64``, after one compiled pass that checks each holds ``low..high`` cards
    of 0..51 (a pass of its own: fused into the bit-sliced kernels, it slowed them)."""
    from cpoker._kernels.evaluate import first_bad_mask

    if check and array.dtype != np.int64:
        raise CardError(f"a 1-D batch must be int64 card masks, got dtype {array.dtype}")
    masks = np.ascontiguousarray(array, dtype=np.int64)
    if check:
        row = int(first_bad_mask(masks, low, high))
        if row >= 0:
            count = "5" if low == high == 5 else f"{low} to {high}" if low != high else str(low)
            raise CardError(f"mask {row} ({int(masks[row]):#x}) is not {count} cards of 0..51")
    return masks


def evaluate_batch(cards: np.ndarray, check: bool = True, device: str = "cpu",
                   out: "np.ndarray | None" = None) -> np.ndarray:
    """Strength keys of many rows at once.

    Parameters
    ----------
    cards
        An ``(N, 5)`` or ``(N, 3)`` integer array of card ids (distinct in each
        row), or a 1-D ``int64`` array of card masks of 5 cards each.
    check
        Check dtype, range and repeated cards.  The range and the repeats are
        checked in the same compiled call as the evaluation: on a processor
        with AVX-512 VBMI on the very vectors the evaluation reads (16 rows a
        step), elsewhere by a vectorised pass over the ids (32 rows a step;
        with AVX2, over each block of 16,384 rows just before evaluating it).
        It adds about a sixth to the call for 5-card rows and for the best 5
        of 7 (measured in ``docs/performance.md``).  ``check=False`` skips it
        for input known to be valid: invalid input then gives meaningless keys
        (never a crash: ids index a padded table).  When the check fails, a
        ``CardError`` names the first bad row, and what was written into
        ``out`` means nothing.
    device
        ``"cpu"`` or ``"cuda"`` (an NVIDIA GPU; the same keys, see :mod:`cpoker.game.devices`).
    out
        An ``int32`` array of length ``N`` to write the keys into (and return).
        Reusing one output across calls saves allocating, and first touching,
        fresh memory on every call.

    Returns
    -------
    numpy.ndarray
        ``int32`` keys, comparable with :attr:`HandValue.key`.

    Raises
    ------
    CardError
        For a wrong shape or dtype, ids outside 0..51, or a card repeated in a row.
    OptionError
        For an ``out`` that is not a writeable ``int32`` array of length ``N``.

    Notes
    -----
    Five to seven card ids are evaluated the way the fastest C++ evaluators do
    it: a sum of per-card codes, a flush test on its suit counters, and one
    perfect-hash lookup of the rank counts (:mod:`cpoker._kernels.lookup`).
    On a processor with AVX-512 VBMI (Ice Lake, Zen 4 and later) the sums
    and flush tests of 16 rows at a time are vector code, with every card's
    table in a register (:mod:`cpoker._kernels.avx512`): the same keys, about
    1.6x (7 cards) to 1.8x (3 and 5 cards) the rate of the scalar loop.  On
    other x86 processors with AVX2 (:mod:`cpoker._kernels.avx2`), 8 rows at
    a time: 1.6x (7 cards) and 1.8x (5 cards).  The scalar loop serves the
    rest (ARM, older x86) and an ``out`` that is not contiguous.
    """
    return _batch_keys(cards, 5, 5, (3, 5), "evaluate_batch", check, device, out)


def _checked_out(out, n: int) -> np.ndarray:
    """``out`` as given, once checked to be a writeable 1-D ``int32`` array of length ``n``; or a new one."""
    from cpoker.system.errors import OptionError

    if out is None:
        return np.empty(n, dtype=np.int32)
    if not isinstance(out, np.ndarray) or out.dtype != np.int32 or out.shape != (n,):
        shape = getattr(out, "shape", None)
        dtype = getattr(out, "dtype", type(out).__name__)
        raise OptionError(f"out must be an int32 array of shape ({n},), got {dtype} of shape {shape}")
    if not out.flags.writeable:
        raise OptionError("out is read-only")
    return out


def _nothing_bad() -> None:
    """The check of an input the caller vouches for (``check=False``): nothing to report."""


def _output_for(out, n: int, raise_if_bad) -> np.ndarray:
    """:func:`_checked_out`; a bad input is reported before a bad ``out`` (``raise_if_bad()``), as when the input
    was checked on a pass of its own."""
    from cpoker.system.errors import OptionError

    try:
        return _checked_out(out, n)
    except OptionError:
        if raise_if_bad is not None:
            raise_if_bad()
        raise


def _batch_keys(cards, low: int, high: int, widths: tuple, what: str, check: bool, device: str,
                out: "np.ndarray | None" = None) -> np.ndarray:
    """Keys of masks holding ``low..high`` cards (1-D) or of ``(N, k)`` ids, k in ``widths``, on ``device``.

    With ``check``, card ids are checked on the evaluation's own pass (a kernel that also flags a bad row); only
    when one is flagged does a second pass find it and name it.  Masks, and ids bound for a GPU, are checked on a
    pass of their own first."""
    from cpoker._kernels.evaluate import keys_from_masks
    from cpoker._kernels import avx2, avx512
    from cpoker._kernels.lookup import AVX2_KERNELS, AVX512_KERNELS, keys_from_ids_checked, keys_from_ids_lookup
    from cpoker.game.devices import check_device, keys_cuda
    from cpoker.system.interrupts import shielded
    from cpoker.game.lookup_tables import evaluator_pair_codes, evaluator_table, lookup_tables

    array = _as_array(cards)
    on_gpu = check_device(device) == "cuda"
    with shielded():
        if array.ndim == 1:
            masks = _checked_masks(array, low, high, check)
            out = _checked_out(out, len(masks))
            if on_gpu:
                out[:] = keys_cuda(masks, high)
            else:
                keys_from_masks(masks, high, out)
            return out
        ids = _card_ids(array, widths, what, check)
        found_bad = (lambda: _raise_if_bad_ids(ids, flagged=not on_gpu)) if check else _nothing_bad
        if on_gpu and check:
            found_bad()
        out = _output_for(out, len(ids), found_bad)
        if on_gpu:
            out[:] = keys_cuda(ids)
            return out
        eval_codes, table = lookup_tables().eval_codes, evaluator_table(ids.shape[1])
        vector = None
        if out.flags.c_contiguous:  # the vector kernels store a group's keys at once
            vector = (AVX512_KERNELS if avx512.available() else AVX2_KERNELS if avx2.available() else {}).get(
                ids.shape[1])
        if vector is not None:
            flagged = vector(ids, check, eval_codes, table, out)
        elif check:
            flagged = keys_from_ids_checked(ids, eval_codes, evaluator_pair_codes(), table, out)
        else:
            flagged = keys_from_ids_lookup(ids, eval_codes, evaluator_pair_codes(), table, out)
        if check and flagged:
            found_bad()
        return out


def evaluate_masks(masks: np.ndarray, n_cards: int = 5, check: bool = True,
                   out: "np.ndarray | None" = None) -> np.ndarray:
    """Strength keys of 1-D ``int64`` card masks holding ``n_cards`` (3 or 5) cards each (``out`` as in
    :func:`evaluate_batch`)."""
    if isinstance(n_cards, bool) or n_cards not in (3, 5):
        raise CardError(f"n_cards must be 3 or 5, got {n_cards!r}")
    if np.ndim(masks) != 1:
        raise CardError(f"evaluate_masks takes a 1-D array of int64 masks, got shape {np.shape(masks)}")
    return _batch_keys(masks, n_cards, n_cards, (), "evaluate_masks", check, "cpu", out)


def category_of_keys(keys: np.ndarray) -> np.ndarray:
    """Category index (0 = high card .. 8 = straight flush) of an array of keys."""
    return np.asarray(keys) >> _CATEGORY_SHIFT


def evaluate_best(cards: CardsLike) -> HandValue:
    """The best 5-card hand among 5 to 7 cards (the hold'em-style 7-card workload).

    >>> evaluate_best("As Ks Qs Js 2d 3c Ts").describe()
    'royal flush'
    """
    parsed = parse_cards(cards)
    if not 5 <= len(parsed) <= 7:
        raise CardError(f"evaluate_best takes 5 to 7 cards, got {len(parsed)}")
    return HandValue(key_of_ids([int(c) for c in parsed]), 5)


def evaluate_best_batch(cards: np.ndarray, check: bool = True, device: str = "cpu",
                        out: "np.ndarray | None" = None) -> np.ndarray:
    """Keys of the best 5-card hand of each row: ``(N, 5..7)`` card ids or 1-D ``int64`` masks of 5-7 cards.

    ``check``, ``device`` and ``out`` as in :func:`evaluate_batch`.
    """
    return _batch_keys(cards, 5, 7, (5, 6, 7), "evaluate_best_batch", check, device, out)
