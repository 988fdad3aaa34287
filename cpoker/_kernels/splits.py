"""Kernels over the 72,072 back/middle/front splits of a 13-card hand.

Each hand is 13 card ids; the split tables (``cpoker.tables.split_tables``)
say which positions go to which row.  Every 5-card and 3-card subset is
evaluated once (1,287 + 286 keys), then the splits only look keys up.
"""

from __future__ import annotations

import numba
import numpy as np

from .._jit import jit
from .evaluate import key3, key5


@jit
def subset_keys(hand, subsets5, subsets3, keys5, keys3):
    """Fill ``keys5``/``keys3`` with the key of every 5- and 3-subset of ``hand``."""
    one = np.int64(1)
    for i in range(subsets5.shape[0]):
        mask = np.int64(0)
        for j in range(5):
            mask |= one << np.int64(hand[subsets5[i, j]])
        keys5[i] = key5(mask)
    for i in range(subsets3.shape[0]):
        mask = np.int64(0)
        for j in range(3):
            mask |= one << np.int64(hand[subsets3[i, j]])
        keys3[i] = key3(mask)


@jit
def _valid_splits(hand, subsets5, subsets3, splits):
    """Indices of the non-fouling splits of one hand, and the subset keys.

    The test is written without branches (every index is stored, the count
    advances only for valid ones): fouls are too irregular to predict.
    """
    keys5 = np.empty(subsets5.shape[0], dtype=np.int32)
    keys3 = np.empty(subsets3.shape[0], dtype=np.int32)
    subset_keys(hand, subsets5, subsets3, keys5, keys3)
    out = np.empty(splits.shape[0], dtype=np.int32)
    n = 0
    for k in range(splits.shape[0]):
        middle = keys5[splits[k, 1]]
        out[n] = k
        n += (keys5[splits[k, 0]] >= middle) & (middle >= keys3[splits[k, 2]])
    return out[:n].copy(), keys5, keys3


@jit
def _count_valid_splits(hands, subsets5, subsets3, splits):
    """Number of non-fouling splits of each of many hands."""
    counts = np.empty(hands.shape[0], dtype=np.int32)
    keys5 = np.empty(subsets5.shape[0], dtype=np.int32)
    keys3 = np.empty(subsets3.shape[0], dtype=np.int32)
    for h in range(hands.shape[0]):
        subset_keys(hands[h], subsets5, subsets3, keys5, keys3)
        n = 0
        for k in range(splits.shape[0]):
            middle = keys5[splits[k, 1]]
            n += (keys5[splits[k, 0]] >= middle) & (middle >= keys3[splits[k, 2]])
        counts[h] = n
    return counts


@jit
def dense_index(key, hash_keys, hash_index):
    """Dense strength index of ``key`` through the table of ``cpoker.tables.strength_hash``."""
    mask = hash_keys.shape[0] - 1
    slot = ((np.int64(key) * np.int64(2654435761)) & 0xFFFFFFFF) >> (32 - 14)
    while hash_keys[slot] != key:
        slot = (slot + 1) & mask
    return hash_index[slot]


@jit
def _search_back(back, keys5, keys3, back_values, middle_values, front_values, splits, best, best_value):
    back_key = keys5[back]
    back_value = back_values[back]
    for k in range(56 * back, 56 * back + 56):
        m = splits[k, 1]
        f = splits[k, 2]
        middle = keys5[m]
        if back_key >= middle and middle >= keys3[f]:
            value = back_value + middle_values[m] + front_values[f]
            if value > best_value or (value == best_value and k < best):
                best_value = value
                best = k
    return best, best_value


@jit
def best_split_by_row_values(keys5, keys3, back_values, middle_values, front_values, back_bounds, splits):
    """The non-fouling split with the largest sum of row values.

    ``back_bounds[b]`` must bound the value of every split with back ``b``
    from above; backs whose bound falls short of the best value found so far
    are skipped.  Ties go to the lowest split index, so the answer is the one
    a plain scan of all 72,072 splits would give.  The splits of back ``b``
    are rows ``56 * b .. 56 * b + 55`` of ``splits``.  The strongest back
    always has a non-fouling split, so it is searched first.
    """
    first = 0
    for b in range(keys5.shape[0]):
        if keys5[b] > keys5[first]:
            first = b
    best, best_value = _search_back(first, keys5, keys3, back_values, middle_values, front_values,
                                    splits, -1, -np.inf)
    for b in range(keys5.shape[0]):
        if b != first and back_bounds[b] >= best_value:
            best, best_value = _search_back(b, keys5, keys3, back_values, middle_values, front_values,
                                            splits, best, best_value)
    return best, best_value


BLOCK = 64  # hands per parallel work item; each block owns its scratch arrays


@jit
def table_policy_hand(hand, row_values, hash_keys, hash_index, subsets5, subsets3, splits,
                      keys5, keys3, index5, index3, back_values, middle_values, front_values, back_bounds):
    """The table policy's split of one hand: ``(split, front strength, middle strength, back strength)``.

    Plain loops over scalars and the scratch arrays it is given (``keys5``...
    ``back_bounds``, sized like ``subsets5``/``subsets3``), so the same source
    runs on the CPU (scratch allocated once per block) and as a CUDA device
    function (scratch in each thread's local memory); see ``cuda.py``.
    """
    subset_keys(hand, subsets5, subsets3, keys5, keys3)
    top_front = -np.inf
    for i in range(keys3.shape[0]):
        index3[i] = dense_index(keys3[i], hash_keys, hash_index)
        front_values[i] = row_values[0, index3[i]]
        top_front = max(top_front, front_values[i])
    top_middle = -np.inf
    for i in range(keys5.shape[0]):
        index5[i] = dense_index(keys5[i], hash_keys, hash_index)
        back_values[i] = row_values[2, index5[i]]
        middle_values[i] = row_values[1, index5[i]]
        top_middle = max(top_middle, middle_values[i])
    for i in range(keys5.shape[0]):
        back_bounds[i] = (back_values[i] + min(top_middle, row_values[1, index5[i]])
                          + min(top_front, row_values[0, index5[i]]))
    best, _ = best_split_by_row_values(keys5, keys3, back_values, middle_values, front_values,
                                       back_bounds, splits)
    return best, index3[splits[best, 2]], index5[splits[best, 1]], index5[splits[best, 0]]


@jit
def _table_policy_block(hands, start, stop, row_values, hash_keys, hash_index, subsets5, subsets3, splits,
                        chosen, strengths):
    """Arrange ``hands[start:stop]`` by the table policy (see :func:`_table_policy`)."""
    keys5 = np.empty(subsets5.shape[0], dtype=np.int32)
    keys3 = np.empty(subsets3.shape[0], dtype=np.int32)
    index5 = np.empty(subsets5.shape[0], dtype=np.int16)
    index3 = np.empty(subsets3.shape[0], dtype=np.int16)
    back_values = np.empty(subsets5.shape[0])
    middle_values = np.empty(subsets5.shape[0])
    front_values = np.empty(subsets3.shape[0])
    back_bounds = np.empty(subsets5.shape[0])
    for h in range(start, stop):
        best, front, middle, back = table_policy_hand(hands[h], row_values, hash_keys, hash_index, subsets5,
                                                      subsets3, splits, keys5, keys3, index5, index3, back_values,
                                                      middle_values, front_values, back_bounds)
        chosen[h] = best
        strengths[h, 0] = front
        strengths[h, 1] = middle
        strengths[h, 2] = back


@jit(parallel=True)
def _table_policy(hands, row_values, hash_keys, hash_index, subsets5, subsets3, splits):
    """Arrange each hand by the table policy, blocks of hands in parallel.

    ``row_values[row, s]`` is the expected result of a row (0 front, 1 middle,
    2 back) of dense strength ``s``; it must not decrease with ``s`` (true of
    any ``P(below) - P(above)``), which makes ``value(back) + middle value at
    the back's strength + front value at the back's strength`` an upper bound
    for every split with that back.  Returns the chosen split of each hand and
    the dense strengths of its front, middle and back.  Each hand's answer is
    independent of the others, so the thread count never changes a result.
    """
    n_hands = hands.shape[0]
    chosen = np.empty(n_hands, dtype=np.int32)
    strengths = np.empty((n_hands, 3), dtype=np.int16)
    n_blocks = (n_hands + BLOCK - 1) // BLOCK
    for block in numba.prange(n_blocks):
        _table_policy_block(hands, block * BLOCK, min(n_hands, (block + 1) * BLOCK), row_values, hash_keys,
                            hash_index, subsets5, subsets3, splits, chosen, strengths)
    return chosen, strengths


@jit
def _greedy_block(hands, start, stop, strength_keys, subsets5, subsets3, splits, chosen, strengths):
    """Strongest back, then strongest middle from the other 8, front the rest.

    Among equally strong backs the first subset wins.  The result cannot foul
    (the middle is the best 5 of 8 cards that include the front), and the
    middle search only admits non-fouling splits, so none is ever returned.
    """
    keys5 = np.empty(subsets5.shape[0], dtype=np.int32)
    keys3 = np.empty(subsets3.shape[0], dtype=np.int32)
    for h in range(start, stop):
        subset_keys(hands[h], subsets5, subsets3, keys5, keys3)
        best_back = 0
        for i in range(keys5.shape[0]):
            if keys5[i] > keys5[best_back]:
                best_back = i
        best = -1
        best_middle = np.int32(-1)
        for k in range(56 * best_back, 56 * best_back + 56):
            middle = keys5[splits[k, 1]]
            if middle > best_middle and middle >= keys3[splits[k, 2]]:
                best_middle = middle
                best = k
        chosen[h] = best
        strengths[h, 0] = np.searchsorted(strength_keys, keys3[splits[best, 2]])
        strengths[h, 1] = np.searchsorted(strength_keys, keys5[splits[best, 1]])
        strengths[h, 2] = np.searchsorted(strength_keys, keys5[best_back])


@jit(parallel=True)
def _greedy(hands, strength_keys, subsets5, subsets3, splits):
    """Greedy arrangement of each hand (see :func:`_greedy_block`), blocks in parallel."""
    n_hands = hands.shape[0]
    chosen = np.empty(n_hands, dtype=np.int32)
    strengths = np.empty((n_hands, 3), dtype=np.int16)
    n_blocks = (n_hands + BLOCK - 1) // BLOCK
    for block in numba.prange(n_blocks):
        _greedy_block(hands, block * BLOCK, min(n_hands, (block + 1) * BLOCK), strength_keys, subsets5,
                      subsets3, splits, chosen, strengths)
    return chosen, strengths
