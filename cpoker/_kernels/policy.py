"""The table policy's and the greedy policy's kernels: one hand, and a range of a batch of hands.

A block kernel (:func:`table_policy_block`, :func:`greedy_block`) arranges hands ``start .. stop`` of a batch
with its own scratch; :func:`cpoker.system.threads.in_parts` runs ranges side by side.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.layout import SUIT_BIAS
from cpoker._kernels.removal import N_SHAPES
from cpoker._kernels.bonus import corrected_row, hand_removal, rows_bonus
from cpoker._kernels.search import UNLIMITED_SEARCHES, best_split_by_row_values, tight_bound
from cpoker._kernels.subsets import hand_subsets, row_shape, subset_strengths


BLOCK = 64  # hands per parallel work item (the fewest a part of a batch of arrange_by_tables): each owns its scratch


@jit
def table_policy_hand(hand, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best,
                      self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask,
                      displacements, strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask,
                      rest_displacements, rest_values, middles, fronts, index5, index3, masks5, codes5, front_values,
                      candidates, candidate_bounds, corrections, search_budget):
    """The table policy's split of one hand: ``(split, front strength, middle strength, back strength)``.

    Plain loops over scalars and the scratch arrays it is given (``index5``...
    ``candidate_bounds``, sized like the 1,287 5-subsets and 286 3-subsets),
    so the same source runs on the CPU (scratch allocated once per block) and
    as a CUDA device function (scratch in each thread's local memory); see
    ``cuda.py``.  The lookup arguments are those of :func:`subset_strengths`
    and, ``rest_*``, the 8-card table of :func:`best_split_by_row_values`.
    ``removal_terms`` and ``buckets`` are the card-removal correction of
    :class:`cpoker.strategies.policy.RowModel` (one row of terms: none).  A hand whose
    search needs more than ``search_budget`` backs gets split -1 and strengths 0
    (see :func:`best_split_by_row_values`; the CPU passes :data:`UNLIMITED_SEARCHES`).
    """
    hand_code, hand_mask, top_front = hand_subsets(hand, row_values, card_codes, multiplier, bucket_shift, slot_mask,
                                                   displacements, strengths, flush_strengths, index5, index3, masks5,
                                                   codes5, front_values)
    removal, all_slack, value_slack, front_rise, middle_rise, front_fall, middle_fall = hand_removal(
        hand_mask, removal_terms, buckets, scoop, majority, joint, index5, index3, front_values, corrections)
    best, _, _, _, _ = best_split_by_row_values(
        index5, index3, front_values, middles, fronts, row_values, row_bounds, row_wins, row_losses, scoop, majority,
        joint, rest_best, self_bounds, top_front, hand_code, hand_mask, codes5, masks5, rest_multiplier, rest_shift,
        rest_slot_mask, rest_displacements, rest_values, flush_strengths, candidates, candidate_bounds, removal,
        corrections, buckets, all_slack, value_slack, front_rise, middle_rise, front_fall, middle_fall, search_budget,
        0.0)
    if best < 0:  # over the search budget
        return best, 0, 0, 0
    return best, index3[fronts[best]], index5[middles[best]], index5[best // 56]


CORRECTIONS = 9 * N_SHAPES  # a hand's card-removal corrections: value, wins, losses of each row and shape


@jit
def policy_scratch():
    """The per-hand scratch arrays of :func:`table_policy_hand`, in its order (CPU: once per block of hands)."""
    return (np.empty(1287, dtype=np.uint16), np.empty(286, dtype=np.uint16), np.empty(1287, dtype=np.int64),
            np.empty(1287, dtype=np.int64), np.empty(286), np.empty(1287, dtype=np.int32), np.empty(1287),
            np.empty(CORRECTIONS))


@jit
def best_distinct_splits(hand, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best,
                         self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask,
                         displacements, strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask,
                         rest_displacements, rest_values, middles, fronts, strength_keys, count):
    """The best non-fouling split of each of the ``count`` best row shapes of one hand, by table value.

    Splits are ordered by table value, then by lowest index; walking that
    order and keeping the first split of each new shape (``row_shape`` of the
    three rows) gives the solver's best arrangement and its alternatives.
    This finds the same ``count`` splits by branch and bound (see
    :func:`best_split_by_row_values`, whose values and card-removal
    correction it shares), against the value of the ``count``-th kept
    split, without valuing all 72,072 splits.  Returns ``(split ids, their
    values, their (front, middle, back) dense strengths, the number of
    non-fouling splits)``, best first.
    """
    index5, index3, masks5, codes5, front_values, _, _, corrections = policy_scratch()
    hand_code, hand_mask, top_front = hand_subsets(hand, row_values, card_codes, multiplier, bucket_shift, slot_mask,
                                                   displacements, strengths, flush_strengths, index5, index3, masks5,
                                                   codes5, front_values)
    removal, all_slack, value_slack, front_rise, middle_rise, front_fall, middle_fall = hand_removal(
        hand_mask, removal_terms, buckets, scoop, majority, joint, index5, index3, front_values, corrections)
    has_bonus = scoop != 0.0 or majority != 0.0
    kept_ids = np.empty(count, dtype=np.int32)
    kept_values = np.empty(count)
    kept_shapes = np.empty((count, 3), dtype=np.int64)
    n_kept = 0
    n_valid = 0
    for back in range(1287):
        back_rank = index5[back]
        for k in range(56 * back, 56 * back + 56):  # the count of non-fouling splits: no branch
            middle = index5[middles[k]]
            n_valid += (back_rank >= middle) & (middle >= index3[fronts[k]])
        threshold = kept_values[count - 1] if n_kept == count else -np.inf
        # splits come in increasing index, so one that only ties the last kept one loses: prune on <=
        if min(self_bounds[0, back_rank], self_bounds[1, back_rank] + top_front) + all_slack <= threshold:
            continue
        back_value = row_values[2, back_rank]
        back_win = row_wins[2, back_rank]
        back_loss = row_losses[2, back_rank]
        if removal:
            back_value += corrections[2 * N_SHAPES + buckets[back_rank]]
            if has_bonus:
                _, back_win, back_loss = corrected_row(row_values, row_wins, row_losses, corrections, buckets, 2,
                                                       back_rank)
        if tight_bound(hand_code - codes5[back] + SUIT_BIAS, hand_mask ^ masks5[back], back_rank, back_value, back_win,
                       back_loss, rest_best, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_multiplier,
                       rest_shift, rest_slot_mask, rest_displacements, rest_values, flush_strengths, value_slack,
                       front_rise, middle_rise, front_fall, middle_fall) <= threshold:
            continue
        back_shape = row_shape(strength_keys[back_rank])
        for k in range(56 * back, 56 * back + 56):
            m = middles[k]
            f = fronts[k]
            middle = index5[m]
            front = index3[f]
            if back_rank < middle or middle < front:
                continue
            middle_value = row_values[1, middle]
            middle_win = row_wins[1, middle]
            middle_loss = row_losses[1, middle]
            front_win = row_wins[0, front]
            front_loss = row_losses[0, front]
            if removal:
                middle_value += corrections[N_SHAPES + buckets[middle]]
                if has_bonus:
                    _, middle_win, middle_loss = corrected_row(row_values, row_wins, row_losses, corrections,
                                                               buckets, 1, middle)
                    _, front_win, front_loss = corrected_row(row_values, row_wins, row_losses, corrections, buckets,
                                                             0, front)
            value = back_value + middle_value + front_values[f]
            if has_bonus:
                value += rows_bonus(front_win, middle_win, back_win, front_loss, middle_loss, back_loss, scoop,
                                    majority, joint)
            if n_kept == count and value <= kept_values[count - 1]:
                continue
            front_shape = row_shape(strength_keys[index3[f]])
            middle_shape = row_shape(strength_keys[middle])
            position = n_kept  # where this split goes: after every kept split at least as good
            while position > 0 and value > kept_values[position - 1]:
                position -= 1
            same = -1  # a kept split of the same shape, which then stays (at least as good) or goes
            for i in range(n_kept):
                if (kept_shapes[i, 0] == front_shape and kept_shapes[i, 1] == middle_shape
                        and kept_shapes[i, 2] == back_shape):
                    same = i
            if same >= 0 and same < position:
                continue
            last = same if same >= 0 else min(n_kept, count - 1)  # the entry given up
            for i in range(last, position, -1):
                kept_ids[i] = kept_ids[i - 1]
                kept_values[i] = kept_values[i - 1]
                kept_shapes[i, 0] = kept_shapes[i - 1, 0]
                kept_shapes[i, 1] = kept_shapes[i - 1, 1]
                kept_shapes[i, 2] = kept_shapes[i - 1, 2]
            kept_ids[position] = k
            kept_values[position] = value
            kept_shapes[position, 0] = front_shape
            kept_shapes[position, 1] = middle_shape
            kept_shapes[position, 2] = back_shape
            if same < 0:
                n_kept = min(n_kept + 1, count)
    chosen_strengths = np.empty((n_kept, 3), dtype=np.int16)
    for i in range(n_kept):
        chosen_strengths[i, 0] = index3[fronts[kept_ids[i]]]
        chosen_strengths[i, 1] = index5[middles[kept_ids[i]]]
        chosen_strengths[i, 2] = index5[kept_ids[i] // 56]
    return kept_ids[:n_kept].copy(), kept_values[:n_kept].copy(), chosen_strengths, n_valid


@jit
def table_policy_block(hands, start, stop, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint,
                        rest_best, self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask,
                        displacements, strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask,
                        rest_displacements, rest_values, middles, fronts, chosen, chosen_strengths):
    """Arrange ``hands[start:stop]`` by the table policy: each hand's chosen split and the dense strengths of its
    front, middle and back, stored at its row of ``chosen`` and ``chosen_strengths``.

    ``row_values[row, s]`` is the expected result of a row (0 front, 1
    middle, 2 back) of dense strength ``s``, ``row_bounds`` a non-decreasing
    bound of it; ``row_wins``/``row_losses`` the rows' win and loss
    probabilities, which price the ``scoop``/``majority`` bonus;
    ``rest_best`` the best middle and front of each 8-card rank multiset and
    ``self_bounds`` the backs' cheap bounds by strength (see
    :class:`cpoker.strategies.policy.RowModel` and :func:`best_split_by_row_values`).
    The scratch arrays are allocated once a call.  Each hand's answer is
    independent of the others, so :func:`cpoker.strategies.policy.arrange_by_tables`
    runs calls on parts of a batch side by side (:mod:`cpoker.system.threads`) and
    the thread count never changes a result.
    """
    index5, index3, masks5, codes5, front_values, candidates, candidate_bounds, corrections = policy_scratch()
    for h in range(start, stop):
        best, front, middle, back = table_policy_hand(hands[h], row_values, row_bounds, row_wins, row_losses, scoop,
                                                      majority, joint, rest_best, self_bounds, removal_terms, buckets,
                                                      card_codes, multiplier, bucket_shift, slot_mask, displacements,
                                                      strengths, flush_strengths, rest_multiplier, rest_shift,
                                                      rest_slot_mask, rest_displacements, rest_values, middles, fronts,
                                                      index5, index3, masks5, codes5, front_values, candidates,
                                                      candidate_bounds, corrections, UNLIMITED_SEARCHES)
        chosen[h] = best
        chosen_strengths[h, 0] = front
        chosen_strengths[h, 1] = middle
        chosen_strengths[h, 2] = back


@jit
def table_policy_unpacked(hand, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best,
                      self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask,
                      displacements, strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask,
                      rest_displacements, rest_values, middles, fronts):
    """:func:`table_policy_hand` of one hand (13 sorted ids), as scalars: ``(split, its front's 3-subset, its
    middle's 5-subset, front, middle, back strengths)`` (its back's 5-subset is ``split // 56``).

    ``cpoker.table(hand)``'s kernel: no output arrays to allocate and box for one answer.
    """
    index5, index3, masks5, codes5, front_values, candidates, candidate_bounds, corrections = policy_scratch()
    split, front, middle, back = table_policy_hand(
        hand, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best, self_bounds,
        removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
        flush_strengths, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements, rest_values, middles, fronts,
        index5, index3, masks5, codes5, front_values, candidates, candidate_bounds, corrections, UNLIMITED_SEARCHES)
    return split, fronts[split], middles[split], front, middle, back


@jit
def greedy_hand(hand, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths, flush_strengths,
                middles, fronts, index5, index3, masks5, codes5):
    """Greedy split of one hand: ``(split, front, middle, back strengths)``.

    Strongest back, then strongest middle from the other 8, front the rest.
    Among equally strong backs the first subset wins, and among middles the
    first split.  The result cannot foul (the middle is the best 5 of 8 cards
    that include the front), and the middle search only admits non-fouling
    splits, so none is ever returned.  Dense strengths order rows as their
    keys do, so this is the greedy choice by keys.  Scratch as in
    :func:`table_policy_hand` (its first four arrays).
    """
    subset_strengths(hand, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                     flush_strengths, index5, index3, masks5, codes5)
    best_back = 0
    for i in range(index5.shape[0]):
        if index5[i] > index5[best_back]:
            best_back = i
    best = 56 * best_back
    best_middle = -1
    for k in range(56 * best_back, 56 * best_back + 56):
        middle = np.int64(index5[middles[k]])
        if middle > best_middle and middle >= index3[fronts[k]]:
            best_middle = middle
            best = k
    return best, index3[fronts[best]], index5[middles[best]], index5[best_back]


@jit
def greedy_block(hands, start, stop, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                  flush_strengths, middles, fronts, chosen, chosen_strengths):
    """Greedy split of ``hands[start:stop]`` (see :func:`greedy_hand`), stored at each hand's row of ``chosen`` and
    ``chosen_strengths`` (:func:`cpoker.strategies.policy.arrange_greedy` runs calls on parts of a batch side by
    side)."""
    index5, index3, masks5, codes5, _, _, _, _ = policy_scratch()
    for h in range(start, stop):
        best, front, middle, back = greedy_hand(hands[h], card_codes, multiplier, bucket_shift, slot_mask,
                                                displacements, strengths, flush_strengths, middles, fronts, index5,
                                                index3, masks5, codes5)
        chosen[h] = best
        chosen_strengths[h, 0] = front
        chosen_strengths[h, 1] = middle
        chosen_strengths[h, 2] = back
