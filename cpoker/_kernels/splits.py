"""Kernels over the 72,072 back/middle/front splits of a 13-card hand.

Each hand is 13 card ids; the split tables (``cpoker.tables.split_tables``)
say which positions go to which row.  Every 5-card and 3-card subset is
evaluated once (1,287 + 286 keys), then the splits only look keys up.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .evaluate import count_ranks, key3, key5, top_rank
from ..layout import FLUSH_BITS, RANK_FIELD, SUIT_BIAS
from .lookup import flush_ranks, perfect_hash_slot, perfect_hash_value
from .removal import N_SHAPES, hand_correction


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
    i = np.uint64(0)  # unsigned: numba then adds no negative-index wraparound to each store (~10% here)
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
def _valid_splits(hand, subsets5, subsets3, middles, fronts):
    """Indices of the non-fouling splits of one hand, and the subset keys.

    The test is written without branches (every index is stored, the count
    advances only for valid ones): fouls are too irregular to predict.
    ``middles``/``fronts``: the middle and front subset of each split (split
    ``k`` has back ``k // 56``), as contiguous columns, which cost half the
    time of reading the ``(72072, 3)`` table.
    """
    keys5 = np.empty(subsets5.shape[0], dtype=np.int32)
    keys3 = np.empty(subsets3.shape[0], dtype=np.int32)
    subset_keys(hand, subsets5, subsets3, keys5, keys3)
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
def _arrangement_arrays(hand, subsets5, subsets3, middles, fronts):
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
def _count_valid_splits(hands, subsets5, subsets3, middles, fronts):
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
    :func:`rest_caps`).  Unused slots get ``inf``.  About 30 ms.
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
def joint_below(joint, side, u, v, w):
    """The probability that an opponent's three rows all lie below coordinates ``(u, v, w)`` (front, middle, back).

    ``joint[side]`` (:mod:`cpoker.joint`) is the joint distribution function
    of the opponent's rows' coordinates on a grid of ``cells + 1`` points per
    axis, read here by multilinear interpolation.  Side 0: a row's
    coordinate is the share of rows strictly weaker than it, so a row of
    ours whose win probability is ``u`` beats exactly the opponent's rows
    below ``u``, and ``joint_below(joint, 0, wins...)`` is the probability
    of winning all three rows; side 1 the same with the share strictly
    stronger and the losses.  Interpolating a distribution function on a
    grid gives the distribution function of the grid cells' mass spread
    evenly in each cell: a probability, non-decreasing in every coordinate.
    The one-cell grid ``[[[0, 0], [0, 0]], [[0, 0], [0, 1]]]`` is
    ``u * v * w``: rows drawn independently.  Scalars and one array read
    in place: inlined in the loops that call it.
    """
    cells = joint.shape[1] - 1
    x = u * cells
    y = v * cells
    z = w * cells
    i = min(int(x), cells - 1)
    j = min(int(y), cells - 1)
    k = min(int(z), cells - 1)
    x -= i
    y -= j
    z -= k
    low_low = joint[side, i, j, k] + z * (joint[side, i, j, k + 1] - joint[side, i, j, k])
    low_high = joint[side, i, j + 1, k] + z * (joint[side, i, j + 1, k + 1] - joint[side, i, j + 1, k])
    high_low = joint[side, i + 1, j, k] + z * (joint[side, i + 1, j, k + 1] - joint[side, i + 1, j, k])
    high_high = joint[side, i + 1, j + 1, k] + z * (joint[side, i + 1, j + 1, k + 1] - joint[side, i + 1, j + 1, k])
    low = low_low + y * (low_high - low_low)
    return low + x * (high_low + y * (high_high - high_low) - low)


@jit
def joint_slope(joint):
    """The steepest rise of :func:`joint_below` along any one coordinate, either side.

    The largest mass of one slab of cells (all cells of one index along one
    axis) times the cells per axis: the interpolated distribution's largest
    marginal density, which bounds how fast the probability of winning (losing)
    all three rows, or two of them, moves with one coordinate.  1 for the
    independent rows' one-cell grid, where it is a product of probabilities.
    """
    cells = joint.shape[1] - 1
    slope = 0.0
    for side in range(2):
        for i in range(cells):
            slope = max(slope, joint[side, i + 1, cells, cells] - joint[side, i, cells, cells],
                        joint[side, cells, i + 1, cells] - joint[side, cells, i, cells],
                        joint[side, cells, cells, i + 1] - joint[side, cells, cells, i])
    return slope * cells


@jit
def rows_bonus(win_front, win_middle, win_back, loss_front, loss_middle, loss_back, scoop, majority, joint):
    """Expected scoring bonus of a split whose rows win and lose with these probabilities.

    ``scoop`` units are paid for three wins (and paid out for three losses),
    ``majority`` units for two wins or more (paid out for two losses or more):
    1-6 scoring is ``scoop=3``, 2-4 scoring ``majority=1``.  How an
    opponent's rows go together is ``joint`` (:func:`joint_below`;
    the one-cell grid: independently).  Increasing in every win probability
    and decreasing in every loss probability, since these are probabilities
    of one distribution, so its value at the strongest rows a split can have
    bounds every such split.  Scalars and one array read in place: inlined
    in the loops that call it.
    """
    three_wins = joint_below(joint, 0, win_front, win_middle, win_back)
    three_losses = joint_below(joint, 1, loss_front, loss_middle, loss_back)
    value = 0.0
    if scoop != 0.0:
        value += scoop * (three_wins - three_losses)
    if majority != 0.0:
        two_wins = (joint_below(joint, 0, win_front, win_middle, 1.0) + joint_below(joint, 0, win_front, 1.0, win_back)
                    + joint_below(joint, 0, 1.0, win_middle, win_back) - 2.0 * three_wins)
        two_losses = (joint_below(joint, 1, loss_front, loss_middle, 1.0)
                      + joint_below(joint, 1, loss_front, 1.0, loss_back)
                      + joint_below(joint, 1, 1.0, loss_middle, loss_back) - 2.0 * three_losses)
        value += majority * (two_wins - two_losses)
    return value


@jit
def bonus_ceiling(win_front, win_middle, win_back, scoop, majority, slope):
    """An upper bound of :func:`rows_bonus` from the win probabilities alone, for a grid of steepest slope ``slope``.

    Each row's chance of winning is at most ``slope`` times its win probability (the grid's marginal
    density is at most ``slope``); three wins are no likelier than the least likely one, and two or more
    no likelier than half the expected number of wins; the losses only subtract.  Five operations where the
    bonus reads the grid eight to thirty-two times: the search skips the bonus of a split that cannot
    reach the best value even with this (most splits of a searched back).
    """
    ceiling = 0.0
    if scoop != 0.0:
        ceiling += scoop * slope * min(win_front, win_middle, win_back)
    if majority != 0.0:
        ceiling += majority * min(1.0, 0.5 * slope * (win_front + win_middle + win_back))
    return ceiling


@jit
def rows_bonus_many(win_front, win_middle, win_back, loss_front, loss_middle, loss_back, scoop, majority, joint, out):
    """``out[i]``: :func:`rows_bonus` of the ``i``-th entry of each array (the Python side's split values and
    bounds, by the kernels' very formula)."""
    for i in range(out.shape[0]):
        out[i] = rows_bonus(win_front[i], win_middle[i], win_back[i], loss_front[i], loss_middle[i], loss_back[i],
                            scoop, majority, joint)


# added to every bound that includes the bonus: its interpolation's arithmetic can round an ulp against monotonicity
BONUS_SLACK = 1e-9
# added to the best middle + front value of 8 cards: a split's value is summed in another order (an ulp or two)
REST_SLACK = 1e-9


@jit(inline="always")  # numba's IR inlining: a call passing arrays costs more than the bound (near_best_rows)
def tight_bound(rest_code, rest_mask, back_rank, back_value, back_win, back_loss, rest_best, row_bounds, row_wins,
                row_losses, scoop, majority, joint, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements,
                rest_values, flush_strengths, value_slack, front_rise, middle_rise, front_fall, middle_fall):
    """An upper bound of every split with a given back, from the 8 cards it leaves (code and mask).

    The back's value plus the smaller of two bounds of the middle and front:
    the best middle and front those ranks make (:func:`rest_caps`), and the
    row bounds (``row_bounds``) at the caps -- the middle no stronger than
    the best five of the 8 cards nor than the back, the front no stronger
    than their best three nor than the back; plus the bonus of rows that
    strong.  The first is exact when the back is the stronger and no suit
    holds five of the 8 cards, which is most backs worth searching.

    With a card-removal correction (:func:`hand_removal`), ``back_value``,
    ``back_win`` and ``back_loss`` are the back's corrected ones, the middle
    and front gain at most ``value_slack``, and the bonus is priced with the
    caps' win probabilities raised by ``front_rise``/``middle_rise`` and
    loss probabilities lowered by ``front_fall``/``middle_fall`` (wins never
    fall and losses never rise with strength, and the bonus rises with the
    wins and falls with the losses).  Without one, the slacks are 0 and the
    back's chances its table's.  :func:`best_split_by_row_values` writes the
    same bound out.
    """
    middle_cap, front_cap, rows_best = rest_caps(rest_code, rest_mask, rest_multiplier, rest_shift, rest_slot_mask,
                                                 rest_displacements, rest_values, rest_best, flush_strengths)
    middle_cap = min(middle_cap, back_rank)
    front_cap = min(front_cap, back_rank)
    # summed as a split's value is, (back + middle) + front, so that rounding cannot put the bound below it
    bound = min(back_value + rows_best,
                back_value + row_bounds[1, middle_cap] + row_bounds[0, front_cap]) + value_slack
    if scoop != 0.0 or majority != 0.0:
        bound += BONUS_SLACK + rows_bonus(
            min(row_wins[0, front_cap] + front_rise, 1.0), min(row_wins[1, middle_cap] + middle_rise, 1.0), back_win,
            max(row_losses[0, front_cap] - front_fall, 0.0), max(row_losses[1, middle_cap] - middle_fall, 0.0),
            back_loss, scoop, majority, joint)
    return bound


@jit
def strength_threshold(self_bounds, top_front, best_value):
    """The weakest back strength whose cheap bound reaches ``best_value`` (binary search).

    ``self_bounds`` (:class:`cpoker.policy.RowModel`) are non-decreasing in
    strength: a back of strength ``s`` bounds its splits by
    ``min(self_bounds[0, s], self_bounds[1, s] + top_front)`` (its value, the
    middle and front bounds at its strength, the bonus of three rows that
    strong; ``top_front``: the hand's best front value).
    """
    low, high = 0, self_bounds.shape[1]
    while low < high:
        middle = (low + high) >> 1
        if min(self_bounds[0, middle], self_bounds[1, middle] + top_front) < best_value:
            low = middle + 1
        else:
            high = middle
    return low


@jit
def plain_cards(hand_mask):
    """The cards of a hand (a 52-bit mask) in the suits where it holds at most four: no flush of the hand's
    can change when two of them of one rank swap rows (see :func:`lower_twin`)."""
    plain = np.int64(0)
    for suit in range(4):
        ranks = (hand_mask >> (13 * suit)) & 0x1FFF
        if count_ranks(ranks) <= 4:
            plain |= ranks << (13 * suit)
    return plain


@jit
def lower_twin(back_mask, hand_mask, plain):
    """Whether a back (its card mask) has a twin of lower index whose splits have the same strengths: it leaves
    a card of the rank of one of its own cards, of a lower suit, both among the ``plain`` cards
    (:func:`plain_cards`), so swapping the two changes no row's strength; a plain scan keeps the twin's split
    on a tie.  Scalars only: inlined in the loops that call it."""
    mine = back_mask & plain
    left = (hand_mask ^ back_mask) & plain
    lower = ((left & 0x1FFF & ((mine >> 13) | (mine >> 26) | (mine >> 39)))
             | ((left >> 13) & 0x1FFF & ((mine >> 26) | (mine >> 39)))
             | ((left >> 26) & 0x1FFF & (mine >> 39)))
    return lower != 0


@jit
def backs_at_least(rank5, masks5, hand_mask, plain, threshold, searched, candidates):
    """Fill ``candidates`` with the backs of strength ``threshold`` or more, in increasing index, but ``searched``
    (-1: none) and the backs that have a lower twin (:func:`lower_twin`: their splits' strengths are the twin's,
    which wins any tie); returns their count.  One call a hand: the loops over the 1,287 backs inside."""
    count = 0
    for back in range(rank5.shape[0]):  # no branch: every index is stored, the count advances for those that pass
        candidates[count] = back
        count += (rank5[back] >= threshold) & (back != searched)
    kept = 0
    for j in range(count):
        back = candidates[j]
        candidates[kept] = back
        kept += not lower_twin(masks5[back], hand_mask, plain)
    return kept


@jit
def best_split_by_row_values(rank5, rank3, front_values, middles, fronts, row_values, row_bounds, row_wins,
                             row_losses, scoop, majority, joint, rest_best, self_bounds, top_front, hand_code,
                             hand_mask, codes5, masks5, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements,
                             rest_values, flush_strengths, candidates, candidate_bounds, removal, corrections,
                             buckets, all_slack, value_slack, front_rise, middle_rise, front_fall, middle_fall,
                             search_budget, reach):
    """The non-fouling split with the largest value, ``(split, value, bounded, first, top)``: its value is its row
    values plus, under a scoring bonus, the bonus (``bounded``, ``first``, ``top``: see ``reach`` below).

    ``row_values``, ``row_bounds``, ``row_wins``, ``row_losses``,
    ``rest_best`` and ``self_bounds`` are those of
    :class:`cpoker.policy.RowModel`: per row and strength, the row's value, a
    non-decreasing bound of it (the very same array when the values do not
    decrease), and its win and loss probabilities, which price the
    ``scoop``/``majority`` bonus (:func:`rows_bonus`; both 0 for a sum of row
    values, and the probabilities are then never read); the best middle and
    front of 8 cards (:func:`rest_row_values`); a back's cheap bounds by strength.

    ``rank5``/``rank3`` are the dense strengths of the subsets, ``codes5`` and
    ``masks5`` the codes and masks of the 5-subsets, ``front_values`` the
    3-subsets' values (see :func:`hand_subsets`; corrected for card removal
    too when ``removal``), ``top_front`` the best front value *before* that
    correction.  With ``removal``, each row's value (and, under a bonus, its
    win and loss probabilities) moves by the hand's correction of its shape
    (``corrections``, ``buckets``: see :func:`hand_removal`), and the bounds,
    which know only the uncorrected tables, grow by what the correction can
    add: ``all_slack`` to all three rows in a back's cheap bound, and in its
    tight bound the back's own correction exactly, the largest the middle's
    and front's values can gain (``value_slack``), and the bonus of rows as
    strong as the caps with their win probabilities raised and loss
    probabilities lowered by the most the correction moves them
    (``front_rise``, ``middle_rise``, ``front_fall``, ``middle_fall``), as
    :func:`tight_bound` does.  The bonus at those probabilities is a tighter
    bound than the steepest-slope estimate of it in ``all_slack`` (1-6
    scoring: 13 backs searched a random hand instead of 24).  The splits of back ``b``
    are ``56 * b .. 56 * b + 55``; ``middles``/``fronts`` give their other
    rows.  Ties go to the lowest split index, so the answer is the one a
    plain scan of all 72,072 splits would give (the order in which backs are
    searched does not matter).

    Branch and bound over the 1,287 backs:

    1. the strongest back always has a non-fouling split: search it first;
    2. collect the backs whose cheap bound (a function of their strength,
       :func:`strength_threshold`) reaches the best value: one compare each;
    3. bound each of them from the 8 cards it leaves (:func:`tight_bound`,
       written out): usually its exact best value, so
    4. the back with the largest bound is searched next, then the others in
       order, each only while its bound reaches the best value so far: first
       those whose bound is in the top quarter of what is left to gain, then
       the rest.  The candidates still able to reach the best value are moved
       to the front first, in order, each marked with its sweep (a few of about
       a hundred), and an inner loop steps to the next one worth searching:
       on a GPU, whose lanes (a hand each) run each pass of the main loop
       together, every pass then searches in all the lanes still searching,
       instead of one lane's search holding up the others' steps over backs
       not worth it (modelled: 2-3.5x fewer search passes a warp).

    On random hands about 1 back in 12 is bounded and 1 in 200 searched.

    ``reach`` (0 or more) also bounds the backs whose splits may come within
    ``reach`` of the best, for a caller that lists the splits that close
    (:func:`.nearbest.near_best_rows`), so that it need not bound them again:
    ``candidates[:bounded]`` are then those backs, in increasing index (a
    back ``b`` stored as ``b`` or ``~b``), with their bounds in
    ``candidate_bounds``, all the backs that may reach ``value - reach`` but
    ``first``, the strongest (searched first, never bounded) and ``top``
    (searched second, -1: none); with other backs, whose bounds are below that.  The
    answer never depends on it: only backs whose bound reaches the best value
    so far are searched.

    A hand that needs more than ``search_budget`` searched backs (at least 1)
    gets ``(-1, -inf, 0, first, -1)`` instead of its answer: a GPU arranges those hands
    again without a budget, together, so that the few hands with a long
    search (1 in 100 needs 60-110 backs, the median 2-4) do not hold up the
    31 other lanes of their warp (:data:`UNLIMITED_SEARCHES`: no budget).
    ``candidates`` and ``candidate_bounds`` are scratch (1,287 each).  No
    calls that pass arrays inside the search loops (numba does not inline
    them, and they pay reference counting on each call), and no branch on the
    unpredictable foul test: a foul's value becomes -inf.  Without a scoring
    bonus the best split so far is updated by selects too (its branch,
    mispredicted, cost pagat 5-9%).
    """
    n_backs = rank5.shape[0]
    first_rank = rank5[0]
    for back in range(1, n_backs):  # the strongest back's strength (a reduction LLVM vectorises)
        first_rank = max(first_rank, rank5[back])
    first = 0
    while rank5[first] != first_rank:  # the first back that strong
        first += 1
    plain = plain_cards(hand_mask)
    has_bonus = scoop != 0.0 or majority != 0.0
    slope = joint_slope(joint) if has_bonus else 0.0
    best, best_value = -1, -np.inf
    searched = 0
    n_candidates = 0
    top = -1
    top_bound = -np.inf
    top_back = -1
    n_viable = 0
    # the steps: 0 the strongest back; 1 the bounds; 2 the most promising candidate;
    # then two sweeps over the viable candidates: those whose bound is in the top quarter of the range, the rest
    step = -1
    while True:
        step += 1
        if step == 0:
            back = first
        elif step == 1:
            n_candidates = backs_at_least(rank5, masks5, hand_mask, plain,
                                          strength_threshold(self_bounds, top_front, best_value - all_slack - reach),
                                          first, candidates)
            for j in range(n_candidates):  # tight_bound and rest_caps, written out: calls passing arrays are
                # not inlined and cost ~10% here (inline='always' too: numba's IR inlining compiles to slower code)
                back = candidates[j]
                back_rank = rank5[back]
                rest_code = hand_code - codes5[back] + SUIT_BIAS
                slot = perfect_hash_slot(rest_code & RANK_FIELD, rest_multiplier, rest_shift, rest_slot_mask,
                                         rest_displacements)
                rest = rest_values[slot]
                middle_cap = rest >> 16
                front_cap = rest & 0xFFFF
                rows_best = rest_best[slot] + REST_SLACK
                if rest_code & FLUSH_BITS:
                    middle_cap = max(middle_cap, flush_strengths[flush_ranks(rest_code, hand_mask ^ masks5[back])])
                    rows_best = np.inf
                middle_cap = min(middle_cap, back_rank)
                front_cap = min(front_cap, back_rank)
                back_value = row_values[2, back_rank]  # summed as a split's value is (see tight_bound)
                if removal:
                    back_value += corrections[2 * N_SHAPES + buckets[back_rank]]
                bound = min(back_value + rows_best,
                            back_value + row_bounds[1, middle_cap] + row_bounds[0, front_cap]) + value_slack
                if has_bonus:  # at the back's corrected chances, and the best the correction gives rows as strong
                    # as the caps at most (wins never fall and losses never rise with strength)
                    back_win = row_wins[2, back_rank]
                    back_loss = row_losses[2, back_rank]
                    if removal:  # corrected_row, written out
                        shape = buckets[back_rank]
                        back_win = min(max(back_win + corrections[5 * N_SHAPES + shape], 0.0), 1.0)
                        back_loss = min(max(back_loss + corrections[8 * N_SHAPES + shape], 0.0), 1.0)
                    bound += BONUS_SLACK + rows_bonus(
                        min(row_wins[0, front_cap] + front_rise, 1.0), min(row_wins[1, middle_cap] + middle_rise, 1.0),
                        back_win, max(row_losses[0, front_cap] - front_fall, 0.0),
                        max(row_losses[1, middle_cap] - middle_fall, 0.0), back_loss, scoop, majority, joint)
                candidate_bounds[j] = bound
                top = j if bound > top_bound else top
                top_bound = max(top_bound, bound)
            continue
        elif step == 2:
            if top < 0 or top_bound < best_value:
                break
            back = candidates[top]
            top_back = back
            candidate_bounds[top] = -np.inf  # searched now, not in the sweeps
        else:
            if step == 3:  # the candidates that can still reach the best value (less reach), in order, to the front;
                # a back of the second sweep stored as ~back (no branch: every entry is written, the count advances
                # for those)
                band = best_value + 0.75 * (top_bound - best_value)
                for j in range(n_candidates):
                    bound = candidate_bounds[j]
                    candidates[n_viable] = candidates[j] if bound >= band else ~candidates[j]
                    candidate_bounds[n_viable] = bound
                    n_viable += not bound < best_value - reach
            while True:  # to the next one worth searching (see the docstring)
                sweep = step - 3
                if sweep >= 2 * n_viable:
                    break
                entry = candidates[sweep % n_viable]
                if not (candidate_bounds[sweep % n_viable] < best_value or (sweep < n_viable) != (entry >= 0)):
                    break
                step += 1
            if sweep >= 2 * n_viable:
                break
            back = entry if entry >= 0 else ~entry
        searched += 1
        if searched > search_budget:
            return -1, -np.inf, 0, first, -1
        back_rank = rank5[back]
        back_value = row_values[2, back_rank]
        if removal:
            back_value += corrections[2 * N_SHAPES + buckets[back_rank]]
            if has_bonus:
                _, back_win, back_loss = corrected_row(row_values, row_wins, row_losses, corrections, buckets, 2,
                                                       back_rank)
                for k in range(56 * back, 56 * back + 56):  # corrected_row written out (see the docstring)
                    m = middles[k]
                    f = fronts[k]
                    middle = rank5[m]
                    front = rank3[f]
                    fouls = (back_rank < middle) | (middle < front)
                    middle_shape = buckets[middle]
                    front_shape = buckets[front]
                    middle_value = row_values[1, middle] + corrections[N_SHAPES + middle_shape]
                    middle_win = min(max(row_wins[1, middle] + corrections[4 * N_SHAPES + middle_shape], 0.0), 1.0)
                    front_win = min(max(row_wins[0, front] + corrections[3 * N_SHAPES + front_shape], 0.0), 1.0)
                    value = back_value + middle_value + front_values[f]
                    if value + bonus_ceiling(front_win, middle_win, back_win, scoop, majority, slope) + BONUS_SLACK \
                            < best_value:
                        continue  # cannot reach the best value: the bonus (and the losses) not worth reading
                    middle_loss = min(max(row_losses[1, middle] + corrections[7 * N_SHAPES + middle_shape], 0.0), 1.0)
                    front_loss = min(max(row_losses[0, front] + corrections[6 * N_SHAPES + front_shape], 0.0), 1.0)
                    value += rows_bonus(front_win, middle_win, back_win, front_loss, middle_loss, back_loss, scoop,
                                        majority, joint)
                    value = -np.inf if fouls else value
                    if value > best_value or (value == best_value and k < best):
                        best_value = value
                        best = k
                continue
            for k in range(56 * back, 56 * back + 56):
                m = middles[k]
                middle = rank5[m]
                fouls = (back_rank < middle) | (middle < rank3[fronts[k]])
                value = (back_value + (row_values[1, middle] + corrections[N_SHAPES + buckets[middle]])
                         + front_values[fronts[k]])
                value = -np.inf if fouls else value
                better = (value > best_value) | ((value == best_value) & (k < best))  # a select, not a branch
                best_value = value if better else best_value
                best = k if better else best
            continue
        if not has_bonus:  # a plain sum of row values: the loop stays free of the bonus's loads and branch
            for k in range(56 * back, 56 * back + 56):
                m = middles[k]
                middle = rank5[m]
                fouls = (back_rank < middle) | (middle < rank3[fronts[k]])
                value = back_value + row_values[1, middle] + front_values[fronts[k]]
                value = -np.inf if fouls else value
                better = (value > best_value) | ((value == best_value) & (k < best))  # a select, not a branch
                best_value = value if better else best_value
                best = k if better else best
            continue
        back_win = row_wins[2, back_rank]
        back_loss = row_losses[2, back_rank]
        for k in range(56 * back, 56 * back + 56):
            m = middles[k]
            f = fronts[k]
            middle = rank5[m]
            front = rank3[f]
            fouls = (back_rank < middle) | (middle < front)
            value = back_value + row_values[1, middle] + front_values[f]
            if value + bonus_ceiling(row_wins[0, front], row_wins[1, middle], back_win, scoop, majority, slope) \
                    + BONUS_SLACK < best_value:
                continue  # cannot reach the best value (see above)
            value += rows_bonus(row_wins[0, front], row_wins[1, middle], back_win, row_losses[0, front],
                                row_losses[1, middle], back_loss, scoop, majority, joint)
            value = -np.inf if fouls else value
            if value > best_value or (value == best_value and k < best):
                best_value = value
                best = k
    # the candidates were moved to the front (step 3) unless the search ended with the most promising one (step 2)
    return best, best_value, n_viable if step > 2 else n_candidates, first, top_back


@jit
def corrected_row(row_values, row_wins, row_losses, corrections, buckets, row, strength):
    """A row's value, win and loss probabilities with the hand's card-removal correction (see :func:`hand_removal`).

    The probabilities are kept within [0, 1], where the scoring bonus is increasing in the wins and
    decreasing in the losses (the bounds rely on it).  Under a scoring bonus only: the corrections then hold
    the wins' and losses' too.
    """
    shape = buckets[strength]
    value = row_values[row, strength] + corrections[row * N_SHAPES + shape]
    win = min(max(row_wins[row, strength] + corrections[(3 + row) * N_SHAPES + shape], 0.0), 1.0)
    loss = min(max(row_losses[row, strength] + corrections[(6 + row) * N_SHAPES + shape], 0.0), 1.0)
    return value, win, loss


@jit
def hand_removal(hand_mask, removal_terms, buckets, scoop, majority, joint, index5, index3, front_values, corrections):
    """Correct a hand's rows for the cards it holds: ``(corrected, all_slack, value_slack, rises...)``.

    Without a correction (one row of ``removal_terms``) nothing is done: ``(False, 0, 0, 0, 0, 0, 0)``.
    Otherwise fills ``corrections`` with the hand's correction of each correction shape
    (:func:`.removal.hand_correction`), adds the front's to ``front_values``, and bounds what the correction
    adds to a split, for the cheap bounds by strength: the largest correction of a back, a middle and a
    front the hand can make (``all_slack``); under a scoring bonus, moving a win or a loss probability by
    ``d`` moves the bonus by at most ``d`` times :func:`joint_slope` per unit (1 for independent rows, whose
    product has partial derivatives in [0, 1]), so the slack grows by that times the largest rise of each
    row's wins and fall of its losses.  The last five are those parts, for the tight bounds
    (:func:`tight_bound`): ``value_slack``, the largest middle plus front value correction, and the largest
    rise of the front's and the middle's wins and fall of their losses (0 or more).
    """
    if removal_terms.shape[0] <= 1:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    hand_correction(hand_mask, removal_terms, corrections)
    has_bonus = scoop != 0.0 or majority != 0.0
    best_front = -np.inf
    front_rise = 0.0
    front_fall = 0.0
    for i in range(index3.shape[0]):
        shape = buckets[index3[i]]
        front_values[i] += corrections[shape]
        best_front = max(best_front, corrections[shape])
        if has_bonus:
            front_rise = max(front_rise, corrections[3 * N_SHAPES + shape])
            front_fall = max(front_fall, -corrections[6 * N_SHAPES + shape])
    best_middle = -np.inf
    best_back = -np.inf
    middle_rise = 0.0
    middle_fall = 0.0
    back_rise = 0.0
    back_fall = 0.0
    for i in range(index5.shape[0]):
        shape = buckets[index5[i]]
        best_middle = max(best_middle, corrections[N_SHAPES + shape])
        best_back = max(best_back, corrections[2 * N_SHAPES + shape])
        if has_bonus:
            middle_rise = max(middle_rise, corrections[4 * N_SHAPES + shape])
            back_rise = max(back_rise, corrections[5 * N_SHAPES + shape])
            middle_fall = max(middle_fall, -corrections[7 * N_SHAPES + shape])
            back_fall = max(back_fall, -corrections[8 * N_SHAPES + shape])
    bonus = ((scoop + majority) * joint_slope(joint)
             * (front_rise + middle_rise + back_rise + front_fall + middle_fall + back_fall))
    value_slack = best_middle + best_front + REST_SLACK
    return True, best_back + value_slack + bonus, value_slack, front_rise, middle_rise, front_fall, middle_fall


BLOCK = 64  # hands per parallel work item (the fewest a part of a batch of arrange_by_tables): each owns its scratch


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
    :class:`cpoker.policy.RowModel` (one row of terms: none).  A hand whose
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


UNLIMITED_SEARCHES = 1 << 30  # a search budget (best_split_by_row_values) above a hand's 1,287 backs: no budget
CORRECTIONS = 9 * N_SHAPES  # a hand's card-removal corrections: value, wins, losses of each row and shape


@jit
def _policy_scratch():
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
    index5, index3, masks5, codes5, front_values, _, _, corrections = _policy_scratch()
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
def _table_policy_block(hands, start, stop, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint,
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
    :class:`cpoker.policy.RowModel` and :func:`best_split_by_row_values`).
    The scratch arrays are allocated once a call.  Each hand's answer is
    independent of the others, so :func:`cpoker.policy.arrange_by_tables`
    runs calls on parts of a batch side by side (:mod:`cpoker.threads`) and
    the thread count never changes a result.
    """
    index5, index3, masks5, codes5, front_values, candidates, candidate_bounds, corrections = _policy_scratch()
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
def _table_policy_one(hand, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best,
                      self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask,
                      displacements, strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask,
                      rest_displacements, rest_values, middles, fronts):
    """:func:`table_policy_hand` of one hand (13 sorted ids), as scalars: ``(split, its front's 3-subset, its
    middle's 5-subset, front, middle, back strengths)`` (its back's 5-subset is ``split // 56``).

    ``cpoker.table(hand)``'s kernel: no output arrays to allocate and box for one answer.
    """
    index5, index3, masks5, codes5, front_values, candidates, candidate_bounds, corrections = _policy_scratch()
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
def _greedy_block(hands, start, stop, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                  flush_strengths, middles, fronts, chosen, chosen_strengths):
    """Greedy split of ``hands[start:stop]`` (see :func:`greedy_hand`), stored at each hand's row of ``chosen`` and
    ``chosen_strengths`` (:func:`cpoker.policy.arrange_greedy` runs calls on parts of a batch side by side)."""
    index5, index3, masks5, codes5, _, _, _, _ = _policy_scratch()
    for h in range(start, stop):
        best, front, middle, back = greedy_hand(hands[h], card_codes, multiplier, bucket_shift, slot_mask,
                                                displacements, strengths, flush_strengths, middles, fronts, index5,
                                                index3, masks5, codes5)
        chosen[h] = best
        chosen_strengths[h, 0] = front
        chosen_strengths[h, 1] = middle
        chosen_strengths[h, 2] = back
