"""Kernels over the subsets of a 13-card hand: the 1,287 five-card and 286 three-card rows, and the splits.

Each hand is 13 card ids; the split tables (``cpoker.game.lookup_tables.split_tables``) say which positions go to which
row.  Every subset is evaluated once (1,287 + 286 keys), then the 72,072 back/middle/front splits only look
keys up.  Also the best middle and front that the 8 cards a back leaves can make (:func:`rest_row_values`).
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.layout import FLUSH_BITS, RANK_FIELD, SUIT_BIAS
from cpoker._kernels.evaluate import FRONT_HIGH, key3, key5, low_front_key, top_rank
from cpoker._kernels.lookup import flush_ranks, perfect_hash_slot, perfect_hash_value

# added to the best middle + front value of 8 cards: a split's value is summed in another order (an ulp or two)
REST_SLACK = 1e-9


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
def subset_strengths(hand, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                     flush_strengths, index5, index3, masks5, codes5):
    """Fill ``index5``/``index3`` with the dense strength of every 5- and 3-subset of the 13 cards of ``hand``.

    The subsets come in ``itertools.combinations`` order (the order of the
    split tables) from nested loops that carry partial sums of the card codes
    and masks, so each subset costs one add and one lookup in the rows' perfect
    hash (:func:`cpoker.game.lookup_tables.lookup_tables`, ``hashes["rows"]``).  Dense
    strengths order rows exactly as their keys do.  ``masks5`` and ``codes5``
    receive the card mask and the code of each 5-subset.  Scalars and small arrays
    only, as a CUDA device function needs.
    """
    one = np.int64(1)
    i = np.uint64(0)  # unsigned: numba then adds no negative-index wraparound to each store
    for a in range(9):
        code_a = SUIT_BIAS + card_codes[hand[a]]
        mask_a = one << np.int64(hand[a])
        for b in range(a + 1, 10):
            code_b = code_a + card_codes[hand[b]]
            mask_b = mask_a | (one << np.int64(hand[b]))
            for c in range(b + 1, 11):
                code_c = code_b + card_codes[hand[c]]
                mask_c = mask_b | (one << np.int64(hand[c]))
                for d in range(c + 1, 12):
                    code_d = code_c + card_codes[hand[d]]
                    mask_d = mask_c | (one << np.int64(hand[d]))
                    for e in range(d + 1, 13):
                        code = code_d + card_codes[hand[e]]
                        masks5[i] = mask_d | (one << np.int64(hand[e]))
                        codes5[i] = code
                        if code & FLUSH_BITS:
                            index5[i] = flush_strengths[flush_ranks(code, masks5[i])]
                        else:
                            index5[i] = perfect_hash_value(code & RANK_FIELD, multiplier, bucket_shift, slot_mask,
                                                           displacements, strengths)
                        i += np.uint64(1)
    i = np.uint64(0)
    for a in range(11):
        code_a = SUIT_BIAS + card_codes[hand[a]]
        for b in range(a + 1, 12):
            code_b = code_a + card_codes[hand[b]]
            for c in range(b + 1, 13):
                index3[i] = perfect_hash_value((code_b + card_codes[hand[c]]) & RANK_FIELD, multiplier,
                                               bucket_shift, slot_mask, displacements, strengths)
                i += np.uint64(1)


@jit
def valid_splits(hand, subsets5, subsets3, middles, fronts, front_order=FRONT_HIGH):
    """Indices of the non-fouling splits of one hand, and the subset keys.

    The test is written without branches (every index is stored, the count
    advances only for valid ones): fouls are too irregular to predict.
    ``middles``/``fronts``: the middle and front subset of each split (split
    ``k`` has back ``k // 56``), as contiguous columns, which cost half the
    time of reading the ``(72072, 3)`` table.  Under a front that plays for
    low (``front_order``, :func:`.evaluate.low_front_key`) the fronts' keys
    are their low keys, below every middle: only back >= middle is tested.
    """
    keys5 = np.empty(subsets5.shape[0], dtype=np.int32)
    keys3 = np.empty(subsets3.shape[0], dtype=np.int32)
    subset_keys(hand, subsets5, subsets3, keys5, keys3)
    if front_order != FRONT_HIGH:
        for i in range(keys3.shape[0]):
            keys3[i] = low_front_key(keys3[i], front_order)
    out = np.empty(middles.shape[0], dtype=np.int32)
    n = 0
    for back in range(keys5.shape[0]):
        back_key = keys5[back]
        for k in range(56 * back, 56 * back + 56):
            middle = keys5[middles[k]]
            out[n] = k
            n += (back_key >= middle) & (middle >= keys3[fronts[k]])
    return out[:n].copy(), keys5, keys3


@jit
def arrangement_arrays(hand, subsets5, subsets3, middles, fronts):
    """The non-fouling splits of one hand with the keys of their rows: ``(split_ids, front, middle, back)``.

    One pass, without branches on the foul test: every split's index and keys
    are stored, and the count advances only for the valid ones.
    """
    keys5 = np.empty(subsets5.shape[0], dtype=np.int32)
    keys3 = np.empty(subsets3.shape[0], dtype=np.int32)
    subset_keys(hand, subsets5, subsets3, keys5, keys3)
    n_splits = middles.shape[0]
    split_ids = np.empty(n_splits, dtype=np.int32)
    front = np.empty(n_splits, dtype=np.int32)
    middle = np.empty(n_splits, dtype=np.int32)
    back = np.empty(n_splits, dtype=np.int32)
    n = 0
    for b in range(keys5.shape[0]):
        back_key = keys5[b]
        for k in range(56 * b, 56 * b + 56):
            middle_key = keys5[middles[k]]
            front_key = keys3[fronts[k]]
            split_ids[n] = k
            front[n] = front_key
            middle[n] = middle_key
            back[n] = back_key
            n += (back_key >= middle_key) & (middle_key >= front_key)
    return split_ids[:n].copy(), front[:n].copy(), middle[:n].copy(), back[:n].copy()


@jit
def count_valid_splits(hands, subsets5, subsets3, middles, fronts):
    """Number of non-fouling splits of each of many hands."""
    counts = np.empty(hands.shape[0], dtype=np.int32)
    keys5 = np.empty(subsets5.shape[0], dtype=np.int32)
    keys3 = np.empty(subsets3.shape[0], dtype=np.int32)
    for h in range(hands.shape[0]):
        subset_keys(hands[h], subsets5, subsets3, keys5, keys3)
        n = 0
        for back in range(keys5.shape[0]):
            back_key = keys5[back]
            for k in range(56 * back, 56 * back + 56):
                middle = keys5[middles[k]]
                n += (back_key >= middle) & (middle >= keys3[fronts[k]])
        counts[h] = n
    return counts


@jit
def rest_caps(code, mask, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements, rest_values, rest_best,
              flush_strengths):
    """What the 8 cards a back leaves allow: ``(middle cap, front cap, best middle + front value)``.

    ``code`` and ``mask`` are those 8 cards' code and mask.  The caps are the
    dense strengths of their best five and best three cards (the 8-card table,
    ``rest_*``, holds both for every rank multiset; a flush among the 8 cards
    can only raise the best five).  ``rest_best``, at the same slot, is the
    model's largest middle value plus front value over the non-fouling ways
    to split those ranks (:func:`rest_row_values`), rounded up; it knows
    nothing of suits, so with five or more cards of a suit among the 8 the
    third value is ``inf`` and the caps alone bound the rows.
    """
    slot = perfect_hash_slot(code & RANK_FIELD, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements)
    rest = rest_values[slot]
    middle_cap = rest >> 16
    rows_best = rest_best[slot] + REST_SLACK
    if code & FLUSH_BITS:
        middle_cap = max(middle_cap, flush_strengths[flush_ranks(code, mask)])
        rows_best = np.inf
    return middle_cap, rest & 0xFFFF, rows_best


@jit
def rest_row_values(row_values, multiplier, bucket_shift, slot_mask, displacements, strengths, rest_multiplier,
                    rest_shift, rest_slot_mask, rest_displacements, out):
    """``out[slot]``: the best middle value plus front value of each 8-card rank multiset, at its 8-card slot.

    Every multiset of 8 ranks with at most 4 of a rank (120,055 of them) is
    split every way into a middle of five and a front of three (each distinct
    front once, of the 56 ways); the non-fouling ones (middle at least as
    strong as the front) are valued by ``row_values`` (rows 1 and 0).
    Without a flush, the strength of a row depends on its ranks only, so this
    bounds every middle and front that the 8 cards a back leaves can make;
    the table policy then bounds a back by its value plus this (see
    :func:`rest_caps`).  Unused slots get ``inf``.  Built once a model.
    """
    out[:] = np.inf
    ranks = np.zeros(8, dtype=np.int64)  # non-decreasing: each multiset once
    words = np.empty(8, dtype=np.int64)
    while True:
        allowed = True
        for i in range(4):
            allowed &= ranks[i] != ranks[i + 4]  # five of a rank
        if allowed:
            word = np.int64(0)
            for i in range(8):
                words[i] = np.int64(1) << (3 * ranks[i])
                word += words[i]
            best = -np.inf
            for a in range(6):  # each distinct front once: a position repeating its left neighbour's rank is skipped
                if a > 0 and ranks[a] == ranks[a - 1]:
                    continue
                for b in range(a + 1, 7):
                    if b > a + 1 and ranks[b] == ranks[b - 1]:
                        continue
                    for c in range(b + 1, 8):
                        if c > b + 1 and ranks[c] == ranks[c - 1]:
                            continue
                        front_word = words[a] + words[b] + words[c]
                        front = perfect_hash_value(front_word, multiplier, bucket_shift, slot_mask, displacements,
                                                   strengths)
                        middle = perfect_hash_value(word - front_word, multiplier, bucket_shift, slot_mask,
                                                    displacements, strengths)
                        if middle >= front:
                            best = max(best, row_values[1, middle] + row_values[0, front])
            out[perfect_hash_slot(word, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements)] = best
        i = 7
        while i >= 0 and ranks[i] == 12:
            i -= 1
        if i < 0:
            return
        ranks[i] += 1
        for j in range(i + 1, 8):
            ranks[j] = ranks[i]


@jit
def hand_subsets(hand, row_values, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                 flush_strengths, index5, index3, masks5, codes5, front_values):
    """A hand's subsets for the branch and bound; returns the hand's ``(code, mask, best front value)``.

    Fills the subsets' strengths, masks and codes (:func:`subset_strengths`)
    and each 3-subset's value as front.
    """
    subset_strengths(hand, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                     flush_strengths, index5, index3, masks5, codes5)
    hand_mask = np.int64(0)
    hand_code = np.int64(SUIT_BIAS)
    for j in range(13):
        hand_mask |= np.int64(1) << np.int64(hand[j])
        hand_code += card_codes[hand[j]]
    top_front = -np.inf
    for i in range(index3.shape[0]):
        front_values[i] = row_values[0, index3[i]]
        top_front = max(top_front, front_values[i])
    return hand_code, hand_mask, top_front


@jit
def row_shape(key):
    """A row's category and main ranks, kickers dropped (high card and flush: the top card only).

    Two arrangements whose rows all have the same shapes differ only in
    kickers; the solver shows one of them (see ``removal.row_shapes``, the
    same function on arrays).
    """
    category = key >> 26
    major = (key >> 13) & 0x1FFF
    if category == 0 or category == 5:
        major = top_rank(major)
    return (category << 13) | major
