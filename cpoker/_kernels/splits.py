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
from .lookup import FLUSH_BITS, RANK_FIELD, SUIT_BIAS, flush_ranks, perfect_hash_value


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
    hash (:func:`cpoker.tables.lookup_tables`, ``hashes["rows"]``).  Dense
    strengths order rows exactly as their keys do.  ``masks5`` and ``codes5``
    receive the card mask and the code of each 5-subset.  Scalars and small arrays
    only, as a CUDA device function needs.
    """
    one = np.int64(1)
    i = 0
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
                        mask = mask_d | (one << np.int64(hand[e]))
                        masks5[i] = mask
                        codes5[i] = code
                        if code & FLUSH_BITS:
                            index5[i] = flush_strengths[flush_ranks(code, mask)]
                        else:
                            index5[i] = perfect_hash_value(code & RANK_FIELD, multiplier, bucket_shift, slot_mask,
                                                           displacements, strengths)
                        i += 1
    i = 0
    for a in range(11):
        code_a = SUIT_BIAS + card_codes[hand[a]]
        for b in range(a + 1, 12):
            code_b = code_a + card_codes[hand[b]]
            for c in range(b + 1, 13):
                index3[i] = perfect_hash_value((code_b + card_codes[hand[c]]) & RANK_FIELD, multiplier,
                                               bucket_shift, slot_mask, displacements, strengths)
                i += 1


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
def best_split_by_row_values(rank5, rank3, back_values, middle_values, front_values, back_bounds, splits,
                             row_values, hand_code, hand_mask, codes5, masks5, rest_multiplier, rest_shift,
                             rest_slot_mask, rest_displacements, rest_values, flush_strengths, candidates,
                             candidate_bounds):
    """The non-fouling split with the largest sum of row values.

    ``rank5``/``rank3`` are the dense strengths of the subsets, ``codes5`` and
    ``masks5`` the codes and masks of the 5-subsets (see
    :func:`subset_strengths`).  The splits of back ``b`` are rows
    ``56 * b .. 56 * b + 55`` of ``splits``.  Ties go to the lowest split
    index, so the answer is the one a plain scan of all 72,072 splits would
    give (the order in which backs are searched does not matter).

    Branch and bound over the 1,287 backs:

    1. the strongest back always has a non-fouling split: search it first;
    2. ``back_bounds[b]``, cheap, for every back: its value plus the best
       middle and front values, each capped at the back's strength;
    3. for the backs that pass, a tight bound from the 8 cards the back leaves:
       the middle can be no better than their best five cards, the front no
       better than their best three (one lookup in the 8-card table, ``rest_*``);
    4. search the back with the largest tight bound, then the others in order,
       each only while its tight bound reaches the best value so far.

    On random hands about 1 back in 50 is searched.  ``candidates`` and
    ``candidate_bounds`` are scratch (1,287 each).  No calls that pass arrays
    inside the loops (numba does not inline them and they pay reference
    counting on each call), and no branch on the unpredictable foul test: a
    foul's value becomes -inf.
    """
    first = 0
    for b in range(rank5.shape[0]):
        if rank5[b] > rank5[first]:
            first = b
    best, best_value = -1, -np.inf
    n_candidates = 0
    top = -1
    top_bound = -np.inf
    for step in range(rank5.shape[0] + 2):
        if step == 0:
            back = first
        elif step <= rank5.shape[0]:
            back = step - 1
            if back == first or back_bounds[back] < best_value:
                continue
            code = hand_code - codes5[back] + SUIT_BIAS
            rest = perfect_hash_value(code & RANK_FIELD, rest_multiplier, rest_shift, rest_slot_mask,
                                      rest_displacements, rest_values)
            middle_cap = rest >> 16
            if code & FLUSH_BITS:
                middle_cap = max(middle_cap, flush_strengths[flush_ranks(code, hand_mask ^ masks5[back])])
            bound = (back_values[back] + min(row_values[1, middle_cap], middle_values[back])
                     + min(row_values[0, rest & 0xFFFF], row_values[0, rank5[back]]))
            if bound >= best_value:
                candidates[n_candidates] = back
                candidate_bounds[n_candidates] = bound
                if top < 0 or bound > candidate_bounds[top]:
                    top = n_candidates
                n_candidates += 1
            continue
        else:
            if top < 0:
                break
            back = candidates[top]
            top_bound = candidate_bounds[top]
            candidate_bounds[top] = -np.inf  # searched now, not again below
        back_rank = rank5[back]
        back_value = back_values[back]
        for k in range(56 * back, 56 * back + 56):
            m = splits[k, 1]
            f = splits[k, 2]
            middle = rank5[m]
            fouls = (back_rank < middle) | (middle < rank3[f])
            value = back_value + middle_values[m] + front_values[f]
            value = -np.inf if fouls else value
            if value > best_value or (value == best_value and k < best):
                best_value = value
                best = k
    # two sweeps: first the candidates whose bound lies in the top quarter of the range, then the rest
    band = best_value if top < 0 else best_value + 0.75 * (top_bound - best_value)
    for c in range(2 * n_candidates):
        bound = candidate_bounds[c % n_candidates]
        if bound < best_value or (c < n_candidates) != (bound >= band):
            continue
        candidate_bounds[c % n_candidates] = -np.inf
        back = candidates[c % n_candidates]
        back_rank = rank5[back]
        back_value = back_values[back]
        for k in range(56 * back, 56 * back + 56):
            m = splits[k, 1]
            f = splits[k, 2]
            middle = rank5[m]
            fouls = (back_rank < middle) | (middle < rank3[f])
            value = back_value + middle_values[m] + front_values[f]
            value = -np.inf if fouls else value
            if value > best_value or (value == best_value and k < best):
                best_value = value
                best = k
    return best, best_value


BLOCK = 64  # hands per parallel work item; each block owns its scratch arrays


@jit
def table_policy_hand(hand, row_values, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                      flush_strengths, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements, rest_values,
                      splits, index5, index3, masks5, codes5, back_values, middle_values, front_values, back_bounds,
                      candidates, candidate_bounds):
    """The table policy's split of one hand: ``(split, front strength, middle strength, back strength)``.

    Plain loops over scalars and the scratch arrays it is given (``index5``...
    ``candidate_bounds``, sized like the 1,287 5-subsets and 286 3-subsets),
    so the same source runs on the CPU (scratch allocated once per block) and
    as a CUDA device function (scratch in each thread's local memory); see
    ``cuda.py``.  The lookup arguments are those of :func:`subset_strengths`
    and, ``rest_*``, the 8-card table of :func:`best_split_by_row_values`.
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
    top_middle = -np.inf
    for i in range(index5.shape[0]):
        back_values[i] = row_values[2, index5[i]]
        middle_values[i] = row_values[1, index5[i]]
        top_middle = max(top_middle, middle_values[i])
    for i in range(index5.shape[0]):
        back_bounds[i] = (back_values[i] + min(top_middle, middle_values[i])
                          + min(top_front, row_values[0, index5[i]]))
    best, _ = best_split_by_row_values(index5, index3, back_values, middle_values, front_values, back_bounds,
                                       splits, row_values, hand_code, hand_mask, codes5, masks5, rest_multiplier,
                                       rest_shift, rest_slot_mask, rest_displacements, rest_values, flush_strengths,
                                       candidates, candidate_bounds)
    return best, index3[splits[best, 2]], index5[splits[best, 1]], index5[splits[best, 0]]


@jit
def _table_policy_block(hands, start, stop, row_values, card_codes, multiplier, bucket_shift, slot_mask,
                        displacements, strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask,
                        rest_displacements, rest_values, splits, chosen, chosen_strengths):
    """Arrange ``hands[start:stop]`` by the table policy (see :func:`_table_policy`)."""
    index5 = np.empty(1287, dtype=np.int16)
    index3 = np.empty(286, dtype=np.int16)
    masks5 = np.empty(1287, dtype=np.int64)
    codes5 = np.empty(1287, dtype=np.int64)
    candidates = np.empty(1287, dtype=np.int32)
    candidate_bounds = np.empty(1287)
    back_values = np.empty(1287)
    middle_values = np.empty(1287)
    front_values = np.empty(286)
    back_bounds = np.empty(1287)
    for h in range(start, stop):
        best, front, middle, back = table_policy_hand(hands[h], row_values, card_codes, multiplier, bucket_shift,
                                                      slot_mask, displacements, strengths, flush_strengths,
                                                      rest_multiplier, rest_shift, rest_slot_mask,
                                                      rest_displacements, rest_values, splits, index5, index3,
                                                      masks5, codes5, back_values, middle_values, front_values,
                                                      back_bounds, candidates, candidate_bounds)
        chosen[h] = best
        chosen_strengths[h, 0] = front
        chosen_strengths[h, 1] = middle
        chosen_strengths[h, 2] = back


@jit(parallel=True)
def _table_policy(hands, row_values, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                  flush_strengths, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements, rest_values,
                  splits):
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
    chosen_strengths = np.empty((n_hands, 3), dtype=np.int16)
    n_blocks = (n_hands + BLOCK - 1) // BLOCK
    for block in numba.prange(n_blocks):
        _table_policy_block(hands, block * BLOCK, min(n_hands, (block + 1) * BLOCK), row_values, card_codes,
                            multiplier, bucket_shift, slot_mask, displacements, strengths, flush_strengths,
                            rest_multiplier, rest_shift, rest_slot_mask, rest_displacements, rest_values, splits,
                            chosen, chosen_strengths)
    return chosen, chosen_strengths


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
