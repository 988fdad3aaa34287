"""Lookup tables, built once on first use and cached for the process.

Nothing here runs at import: each table is built by a ``functools.cache``'d
function the first time a caller needs it (a few milliseconds with numpy).

* :func:`strength_keys` -- the sorted 7,917 distinct strength keys of all
  5-card (7,462) and 3-card (455) rows, so a key maps to a dense strength
  index with ``searchsorted``;
* :func:`split_tables` -- for the 13 positions of a hand, the 1,287 5-subsets,
  the 286 3-subsets, and the 72,072 back/middle/front splits as triples of
  subset indices.
"""

from __future__ import annotations

import functools
from itertools import combinations
from typing import NamedTuple

import numpy as np

HAND_SIZE = 13
N_SPLITS = 72_072
SPLITS_PER_BACK = 56  # C(8, 5): the splits of back subset b are rows 56*b .. 56*b+55


@functools.cache
def row_keys(size: int) -> np.ndarray:
    """Sorted distinct keys of all ``size``-card rows (5: 7,462 keys; 3: 455 keys).

    Built from one representative mask per rank multiset (plus a flush variant
    for five distinct ranks), not from the 2.6 million hands.
    """
    from ._kernels.evaluate import key3, key5

    key = {5: key5, 3: key3}[size]
    keys: set[int] = set()
    for ranks in _rank_multisets(size):
        # deal the ranks over the suits in turn: no flush unless forced below
        counts: dict[int, int] = {}
        mask = 0
        for rank in ranks:
            suit = counts.get(rank, 0)
            counts[rank] = suit + 1
            mask |= 1 << (13 * ((suit + len(counts)) % 4) + rank)
        keys.add(int(key(mask)))
        if size == 5 and len(counts) == 5:
            keys.add(int(key(sum(1 << r for r in ranks))))  # all spades
    return np.array(sorted(keys), dtype=np.int32)


@functools.cache
def strength_keys() -> np.ndarray:
    """Sorted distinct keys of every 5-card and 3-card row (``int32``, 7,917 entries)."""
    keys = np.union1d(row_keys(5), row_keys(3)).astype(np.int32)
    keys.flags.writeable = False
    return keys


def _rank_multisets(size: int):
    from itertools import combinations_with_replacement

    for ranks in combinations_with_replacement(range(13), size):
        if max(ranks.count(r) for r in set(ranks)) <= 4:
            yield ranks


HASH_BITS = 14  # 16,384 slots for 7,917 keys
HASH_MULTIPLIER = 2_654_435_761  # Knuth's multiplicative constant; key * it < 2**62, no overflow


def hash_slot(key: int) -> int:
    """Home slot of a strength key in :func:`strength_hash` (the kernels use the same formula)."""
    return ((key * HASH_MULTIPLIER) & 0xFFFFFFFF) >> (32 - HASH_BITS)


class StrengthHash(NamedTuple):
    """Open-addressing table (linear probing) from strength key to dense strength index."""

    keys: np.ndarray  # (16384,) int32, -1 where empty
    dense: np.ndarray  # (16384,) int16 dense strength index


@functools.cache
def strength_hash() -> StrengthHash:
    """Key -> dense index in a few nanoseconds (a binary search over 7,917 keys costs ~50 ns)."""
    size = 1 << HASH_BITS
    keys = np.full(size, -1, dtype=np.int32)
    index = np.zeros(size, dtype=np.int16)
    for dense, key in enumerate(strength_keys().tolist()):
        slot = hash_slot(key)
        while keys[slot] != -1:
            slot = (slot + 1) & (size - 1)
        keys[slot], index[slot] = key, dense
    keys.flags.writeable = False
    index.flags.writeable = False
    return StrengthHash(keys, index)


class SplitTables(NamedTuple):
    """Index tables over the 13 positions of a hand (see module docstring)."""

    subsets5: np.ndarray  # (1287, 5) uint8 positions
    subsets3: np.ndarray  # (286, 3) uint8 positions
    splits: np.ndarray  # (72072, 3) int16: back, middle (indices into subsets5), front (into subsets3)


@functools.cache
def split_tables() -> SplitTables:
    """All back/middle/front splits of 13 positions, ordered by back then middle subset."""
    subsets5 = np.array(list(combinations(range(HAND_SIZE), 5)), dtype=np.uint8)
    subsets3 = np.array(list(combinations(range(HAND_SIZE), 3)), dtype=np.uint8)
    bits5 = (1 << subsets5.astype(np.int32)).sum(axis=1)
    bits3 = (1 << subsets3.astype(np.int32)).sum(axis=1)
    index3 = np.full(1 << HAND_SIZE, -1, dtype=np.int32)
    index3[bits3] = np.arange(len(bits3))
    back, middle = np.nonzero((bits5[:, None] & bits5[None, :]) == 0)
    front = index3[((1 << HAND_SIZE) - 1) ^ bits5[back] ^ bits5[middle]]
    splits = np.stack([back, middle, front], axis=1).astype(np.int16)
    assert len(splits) == N_SPLITS and (front >= 0).all()
    assert (back == np.arange(N_SPLITS) // SPLITS_PER_BACK).all()
    for table in (subsets5, subsets3, splits):
        table.flags.writeable = False
    return SplitTables(subsets5, subsets3, splits)
