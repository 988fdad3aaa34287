"""The table policy's branch and bound over a hand's backs: the best split by row values, exactly.

:func:`best_split_by_row_values` visits the backs strongest first and stops when no back left can beat the
best split found (:func:`tight_bound`), with the card-removal correction and a scoring bonus bounded too.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.layout import FLUSH_BITS, RANK_FIELD, SUIT_BIAS
from cpoker._kernels.evaluate import count_ranks
from cpoker._kernels.lookup import flush_ranks, perfect_hash_slot
from cpoker._kernels.removal import N_SHAPES
from cpoker._kernels.bonus import BONUS_SLACK, bonus_ceiling, corrected_row, joint_slope, rows_bonus
from cpoker._kernels.subsets import REST_SLACK, rest_caps


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

    ``self_bounds`` (:class:`cpoker.strategies.policy.RowModel`) are non-decreasing in
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

    One long function on purpose: it is the inner loop of every hand the policy arranges, and numba does not
    inline calls that pass arrays, which cost more than the bounds they would compute.

    ``row_values``, ``row_bounds``, ``row_wins``, ``row_losses``,
    ``rest_best`` and ``self_bounds`` are those of
    :class:`cpoker.strategies.policy.RowModel`: per row and strength, the row's value, a
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
       not worth it (``benchmarks/warp_model.py`` models the passes a warp saves).

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
    bonus the best split so far is updated by selects too (its branch is
    mispredicted often).
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
                # not inlined, and slower here (inline='always' too: numba's IR inlining compiles to slower code)
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


UNLIMITED_SEARCHES = 1 << 30  # a search budget (best_split_by_row_values) above a hand's 1,287 backs: no budget
