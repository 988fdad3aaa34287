"""Near-best rows: what a hand remembers of one table-policy search, to skip its searches in later passes.

Self-play (:func:`cpoker.jobs.selfplay.build_tables`) arranges the same sample of
hands again and again under models that move less and less, and most hands'
choices stop changing long before the last pass.  After a hand's search
(:func:`.search.best_split_by_row_values`), :func:`near_best_rows` lists
the distinct row strengths (front, middle, back) of its splits within
``delta`` of the best value, at most ``capacity`` of them, each with the
lowest index of a split that has them, and a *ceiling*: a value that no
other split of the hand reaches.  In a later pass, :func:`certified_split`
values those rows under the new model; a split's value moves by at most the
model's *drift* since the search (:mod:`cpoker.jobs.nearbest`), so when the best
of them beats the ceiling plus the drift, no split outside the list can
reach it, and the best of the list -- ties to the lowest split index -- is
the search's own answer, found without dealing or searching the hand.

Exact, not approximate: the values are those of the search (the same
expressions, in the same order), so a certified split is the very split the
search would choose.  Under a card-removal correction a list keeps the hand's
cards too: a certificate values the listed rows with the hand's correction,
and adds the hand's own drift (:func:`hand_drift`: how much the change of the
correction's terms can move its rows).  A certificate also records by how
much its split leads every other (its margin): while the models move less
than that, later passes keep the split without valuing anything
(:func:`kept_split`).  Scalars and small arrays, so each runs as a
CUDA device function too (:mod:`.cuda`).
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.deal import deal_hands
from cpoker._kernels.removal import (N_SHAPES, hand_correction, hand_correction_at, hand_correction_column,
                                     hand_correction_rows, suit_counts)
from cpoker._kernels.bonus import BONUS_SLACK, bonus_ceiling, corrected_row, hand_removal, joint_slope, rows_bonus
from cpoker._kernels.policy import CORRECTIONS, policy_scratch
from cpoker._kernels.search import UNLIMITED_SEARCHES, best_split_by_row_values
from cpoker._kernels.subsets import hand_subsets

# rows listed a hand at most, the most any list holds (a CUDA thread's scratch for them has a fixed size; a build's
# lists hold as many as its memory allows, cpoker.jobs.nearbest.list_capacity).  A full list's ceiling is the best split
# it left out, often close to the best: at 8, a third of pagat's hands had full lists, and most of a build's
# searches after the first were of them (cpoker.jobs.nearbest.DELTA says what more saved)
CAPACITY = 32
# the arrays of a hand's list that a search writes (cpoker.jobs.nearbest.empty_lists), before those of its last
# certificate
LISTED = 6
COLUMNS = CAPACITY * 3 * 3  # the correction's columns a certificate reads at most: listed rows x rows x quantities
# added to hand_drift_bound: it sums the same terms as hand_drift in another order, so it may round below a
# rise it bounds by far less than this (values are points, the terms' sums at most a few hundred)
BOUND_SLACK = 1e-9


@jit(inline="always")
def split_value(front, middle, back, row_values, row_wins, row_losses, scoop, majority, joint, removal, corrections,
                buckets):
    """The value of a split whose rows have these dense strengths, as the search sums it: ``(back + middle) +
    front``, each row corrected for card removal when ``removal`` (the hand's ``corrections`` by shape, see
    :func:`.bonus.hand_removal`), plus the scoring bonus when there is one."""
    back_value = row_values[2, back]
    middle_value = row_values[1, middle]
    front_value = row_values[0, front]
    if removal:
        back_value += corrections[2 * N_SHAPES + buckets[back]]
        middle_value += corrections[N_SHAPES + buckets[middle]]
        front_value += corrections[buckets[front]]
    value = back_value + middle_value + front_value
    if scoop != 0.0 or majority != 0.0:
        if removal:
            _, front_win, front_loss = corrected_row(row_values, row_wins, row_losses, corrections, buckets, 0, front)
            _, middle_win, middle_loss = corrected_row(row_values, row_wins, row_losses, corrections, buckets, 1,
                                                       middle)
            _, back_win, back_loss = corrected_row(row_values, row_wins, row_losses, corrections, buckets, 2, back)
        else:
            front_win, middle_win, back_win = row_wins[0, front], row_wins[1, middle], row_wins[2, back]
            front_loss, middle_loss, back_loss = row_losses[0, front], row_losses[1, middle], row_losses[2, back]
        value += rows_bonus(front_win, middle_win, back_win, front_loss, middle_loss, back_loss, scoop, majority,
                            joint)
    return value


@jit
def near_best_rows(rank5, rank3, front_values, best_value, delta, row_values, row_wins, row_losses, scoop, majority,
                   joint, middles, fronts, removal, corrections, buckets, first, top, candidates, candidate_bounds,
                   bounded, kept_rows, kept_splits, kept_values):
    """The distinct row strengths of a hand's splits worth at least ``best_value - delta``: ``(count, ceiling)``.

    Fills ``kept_rows[i]`` (front, middle, back dense strengths), ``kept_splits[i]`` (the lowest index of a
    split with them) and ``kept_values[i]`` (their value) for ``i < count``, best first, ties by split index;
    at most ``kept_rows.shape[0]`` of them.  Every split not listed is worth at most ``ceiling``:
    ``best_value - delta``, or more when the list was full.  ``best_value`` is the best split's value from the
    search (:func:`.search.best_split_by_row_values` with ``reach`` ``delta``), whose subsets (``rank5``...
    ``front_values``) and card-removal correction (``removal``, ``corrections``, ``buckets``, see
    :func:`.bonus.hand_removal`) this reads, and whose expressions it values splits with.

    The search bounded the backs for it: ``candidates[:bounded]`` (``b`` or ``~b``, in increasing index) with
    their bounds in ``candidate_bounds``, and ``first`` and ``top`` (-1: none) it searched without a bound in
    them.  Those of them that can reach the ceiling (the floor, until the list is full) are searched in
    increasing index, so the first split found with given strengths is the lowest of them (a back dropped as a
    twin has the strengths of one of lower index).  A back's bound only skips splits below the ceiling, which
    would change nothing, so the list is the same whichever backs are bounded: the search's bounds spare
    bounding them twice (about half of what listing cost).
    """
    capacity = kept_rows.shape[0]
    floor = best_value - delta
    ceiling = floor
    count = 0
    has_bonus = scoop != 0.0 or majority != 0.0
    slope = joint_slope(joint) if has_bonus else 0.0
    beyond = rank5.shape[0]  # past every back's index
    special = first if top < 0 else min(first, top)  # the backs searched without a bound in candidates, in order
    after = beyond if top < 0 else max(first, top)
    j = 0
    # a split below the ceiling cannot change the list: the ceiling is the floor until the list is full, and then
    # rises as better splits fill it (one below it would only be left out, the ceiling kept)
    while True:  # the backs to search, in increasing index: the bounded ones that may reach the ceiling, and the
        # two searched without a bound here
        while j < bounded and candidate_bounds[j] < ceiling:
            j += 1
        entry = beyond
        if j < bounded:
            entry = candidates[j] if candidates[j] >= 0 else ~candidates[j]
        if special < entry:
            back = special
            special, after = after, beyond
        elif j < bounded:
            back = entry
            j += 1
        else:
            break
        back_rank = rank5[back]
        back_value = row_values[2, back_rank]  # written out as in policy.best_distinct_splits (a function for
        # both is slower there)
        back_win = row_wins[2, back_rank]
        back_loss = row_losses[2, back_rank]
        if removal:
            back_value += corrections[2 * N_SHAPES + buckets[back_rank]]
            if has_bonus:
                _, back_win, back_loss = corrected_row(row_values, row_wins, row_losses, corrections, buckets, 2,
                                                       back_rank)
        for k in range(56 * back, 56 * back + 56):
            middle = rank5[middles[k]]
            f = fronts[k]
            front = rank3[f]
            if back_rank < middle or middle < front:
                continue
            # split_value, written out (calls passing arrays are not inlined, and cost more than the search here)
            middle_value = row_values[1, middle]
            if removal:
                middle_value += corrections[N_SHAPES + buckets[middle]]
            value = back_value + middle_value + front_values[f]
            if has_bonus:
                front_win = row_wins[0, front]
                middle_win = row_wins[1, middle]
                if removal:
                    front_win = min(max(front_win + corrections[3 * N_SHAPES + buckets[front]], 0.0), 1.0)
                    middle_win = min(max(middle_win + corrections[4 * N_SHAPES + buckets[middle]], 0.0), 1.0)
                if (value + bonus_ceiling(front_win, middle_win, back_win, scoop, majority, slope) + BONUS_SLACK
                        < ceiling):
                    continue  # cannot change the list: the bonus not worth reading (as in the search)
                front_loss = row_losses[0, front]
                middle_loss = row_losses[1, middle]
                if removal:
                    front_loss = min(max(front_loss + corrections[6 * N_SHAPES + buckets[front]], 0.0), 1.0)
                    middle_loss = min(max(middle_loss + corrections[7 * N_SHAPES + buckets[middle]], 0.0), 1.0)
                value += rows_bonus(front_win, middle_win, back_win, front_loss, middle_loss, back_loss, scoop,
                                    majority, joint)
            if value < ceiling:
                continue
            seen = False
            for i in range(count):
                seen |= (kept_rows[i, 0] == front) & (kept_rows[i, 1] == middle) & (kept_rows[i, 2] == back_rank)
            if seen:  # a lower split with these strengths is listed, worth the same
                continue
            position = count  # after every listed split at least as good (they all have lower indices)
            while position > 0 and value > kept_values[position - 1]:
                position -= 1
            if position == capacity:  # full, and this one is worse than all of them
                ceiling = max(ceiling, value)
                continue
            if count == capacity:  # the last one makes room
                ceiling = max(ceiling, kept_values[capacity - 1])
            else:
                count += 1
            for i in range(count - 1, position, -1):
                kept_rows[i, 0] = kept_rows[i - 1, 0]
                kept_rows[i, 1] = kept_rows[i - 1, 1]
                kept_rows[i, 2] = kept_rows[i - 1, 2]
                kept_splits[i] = kept_splits[i - 1]
                kept_values[i] = kept_values[i - 1]
            kept_rows[position, 0] = front
            kept_rows[position, 1] = middle
            kept_rows[position, 2] = back_rank
            kept_splits[position] = k
            kept_values[position] = value
    return count, ceiling


@jit
def hand_drift(hand_mask, delta_terms, shape_rises, slope_units, out, by_column):
    """The most any split of the hand ``hand_mask`` can gain from one corrected model to another, beyond the part
    that does not depend on the hand (:func:`cpoker.jobs.nearbest.drift`).

    A row's corrected value at strength ``s`` is its table's plus the hand's correction of the shape of ``s``;
    ``shape_rises[row, shape]`` is the largest rise of the table's part over the strengths of that shape (under
    a bonus with ``slope_units`` times the change of their win and loss probabilities; ``-inf``: a shape the row
    cannot have), and ``delta_terms`` the change of the correction's terms, so the hand's change of correction
    is :func:`.removal.hand_correction` of them.  Each row adds the largest over shapes of the two (the win and
    loss probabilities' corrections moving the bonus by at most ``slope_units`` a unit, clipping only shrinking
    a change), and no less than 0.

    The same bits two ways: the whole correction in ``out`` (:data:`.policy.CORRECTIONS` entries), 30 passes
    over an array that stays in a CPU core's cache, or ``by_column``, each column summed in a register
    (:func:`.removal.hand_correction_column`) at the shapes a row can have only, with ``out`` left alone: a
    GPU thread's array of them is local memory, whose traffic the 30 passes made most of a corrected
    certificate's time (the CPU, whose column sums do not vectorize, takes 3.6 times longer that way).
    """
    a, b, c, d, s0, s1, s2, s3 = suit_counts(hand_mask)
    if not by_column:
        hand_correction(hand_mask, delta_terms, out)
    has_bonus = delta_terms.shape[1] > 3 * N_SHAPES
    total = 0.0
    for row in range(3):
        worst = 0.0
        for shape in range(N_SHAPES):
            table_rise = shape_rises[row, shape]
            if table_rise == -np.inf:  # (adds nothing either way)
                continue
            value_column, win_column, loss_column = (row * N_SHAPES + shape, (3 + row) * N_SHAPES + shape,
                                                     (6 + row) * N_SHAPES + shape)
            if by_column:
                rise = table_rise + hand_correction_column(hand_mask, delta_terms, value_column, a, b, c, d, s0, s1,
                                                           s2, s3)
                if has_bonus:
                    rise += slope_units * (
                        abs(hand_correction_column(hand_mask, delta_terms, win_column, a, b, c, d, s0, s1, s2, s3))
                        + abs(hand_correction_column(hand_mask, delta_terms, loss_column, a, b, c, d, s0, s1, s2,
                                                     s3)))
            else:
                rise = table_rise + out[value_column]
                if has_bonus:
                    rise += slope_units * (abs(out[win_column]) + abs(out[loss_column]))
            worst = max(worst, rise)
        total += worst
    return total


@jit
def hand_drift_bound(hand_mask, drift_bounds):
    """An upper bound of :func:`hand_drift` in a few dozen operations (it sums hundreds of columns 30 times).

    A hand's features are non-negative (:func:`.removal.hand_correction`), so the largest over shapes of a sum
    of features times terms is at most the sum of the features times each one's largest over shapes: those
    largest are ``drift_bounds`` (:func:`cpoker.jobs.nearbest.drift_bounds`), laid out as terms are with a column a
    row (row 0 the table's rise plus the constant term's change, row ``1 + f`` feature ``f``'s change, each
    with the bonus's part under a bonus), so that each row's bound is a column of the hand's correction of them
    (:func:`.removal.hand_correction_rows`, the three at once).  A certificate tries it before the exact one,
    which it then needs only for the hands whose best listed split leads by less: the same answers, a fraction
    of the work.
    """
    front, middle, back = hand_correction_rows(hand_mask, drift_bounds)
    return max(0.0, front) + max(0.0, middle) + max(0.0, back) + BOUND_SLACK


@jit(inline="always")
def certified_split(kept_rows, kept_splits, count, ceiling, drift, hand_mask, delta_terms, shape_rises, drift_bounds,
                    slope_units, row_values, row_wins, row_losses, scoop, majority, joint, removal_terms, buckets,
                    corrections, columns, by_column):
    """The best of a hand's listed splits under a new model when it provably is the best of all: ``(split, front,
    middle, back, margin, leader)``, or split -1: ``leader`` its entry in the list, and ``margin`` how far it
    leads every other split of the hand under this model (the next listed, and the bound of the others), which
    :func:`kept_split` reads in later passes.

    ``drift`` bounds how much any split's value has risen since the list was made (:mod:`cpoker.jobs.nearbest`;
    ``inf``: no list, and nothing is read): a split not listed is now worth at most ``ceiling + drift``, so a
    listed one worth more is the best, and the best listed (ties to the lowest split index) is the split the
    search would choose.  Under a card-removal correction (``removal_terms`` of more than one row) the listed
    splits are valued with the hand's correction (``hand_mask``), computed at their rows' shapes only
    (``corrections``: scratch, as the search's; ``columns``: scratch, :data:`COLUMNS` entries), and ``drift``
    is only the part common to all hands: the hand's own (:func:`hand_drift` of ``delta_terms``,
    ``shape_rises`` and ``slope_units``) is added when the best listed split leads by more than that part, and
    only when it leads by less than :func:`hand_drift_bound` of ``drift_bounds`` (then certified without it),
    ``by_column`` on a GPU (see :func:`hand_drift`).
    """
    if not drift < np.inf:  # no list (or one too old): nothing to read
        return -1, 0, 0, 0, 0.0, 0
    removal = removal_terms.shape[0] > 1
    if removal:  # the hand's correction at the listed rows' shapes only
        quantities = removal_terms.shape[1] // (3 * N_SHAPES)
        n_columns = 0
        for row in range(3):
            # the row's distinct shapes, compared with each other only (a column of another row or quantity
            # differs), then the same shapes for the other quantities (win and loss, under a bonus)
            first = n_columns
            for i in range(count):
                column = row * N_SHAPES + buckets[kept_rows[i, row]]
                seen = False
                for j in range(first, n_columns):
                    seen |= columns[j] == column
                if not seen:
                    columns[n_columns] = column
                    n_columns += 1
            shapes = n_columns - first
            for quantity in range(1, quantities):
                for j in range(first, first + shapes):
                    columns[n_columns] = columns[j] + 3 * quantity * N_SHAPES
                    n_columns += 1
        hand_correction_at(hand_mask, removal_terms, columns, n_columns, corrections)
    best = -1
    best_value = second_value = -np.inf
    leader = 0
    for i in range(count):
        value = split_value(kept_rows[i, 0], kept_rows[i, 1], kept_rows[i, 2], row_values, row_wins, row_losses,
                            scoop, majority, joint, removal, corrections, buckets)
        if value > best_value or (value == best_value and kept_splits[i] < best):
            second_value = best_value
            best_value = value
            best = kept_splits[i]
            leader = np.int64(i)  # (a uint8 count's range counts in uint64, which int64 would unify to float64)
        elif value > second_value:
            second_value = value
    limit = ceiling + drift  # what no split outside the list reaches
    if best < 0 or not best_value > limit:
        return -1, 0, 0, 0, 0.0, 0
    if removal:
        quick = limit + hand_drift_bound(hand_mask, drift_bounds)
        if best_value > quick:
            limit = quick
        else:
            limit += hand_drift(hand_mask, delta_terms, shape_rises, slope_units, corrections, by_column)
            if not best_value > limit:
                return -1, 0, 0, 0, 0.0, 0
    return (best, kept_rows[leader, 0], kept_rows[leader, 1], kept_rows[leader, 2],
            min(best_value - second_value, best_value - limit), leader)


@jit(inline="always")  # a call's argument list would cost more than its whole work (~100 ns a hand against 17)
def kept_split(h, kept_rows, kept_splits, masks, checked, margins, leaders, slots, swings, swing_bounds, corrected):
    """Hand ``h``'s split kept from its last certificate: ``(split, front, middle, back)``, split -1 when it cannot be.

    When the hand was certified in an earlier pass (``checked[h]``, -1: not since its last search) and the models
    have *swung* since by less than the margin its leader had then (``margins[h]``, ``leaders[h]``: see
    :func:`certified_split`), that split is still the best of all, read from the list with nothing valued.
    ``swings[p]`` bounds how much any split's value can have moved, up plus down, since pass ``p``'s model
    (:func:`cpoker.jobs.nearbest.swing`; ``inf``: not kept), and when ``corrected`` (by card removal), the part common
    to all hands, the hand's own bounded by :func:`hand_drift_bound` of ``swing_bounds[slots[p, 2]]``.  A rise of
    another split and a fall of the leader, each less than what separated them, leave it ahead: the answer a
    certificate, and the search, would give.
    """
    last = checked[h]
    if last >= 0:
        swing = swings[last]
        if corrected and swing < margins[h]:
            swing += hand_drift_bound(masks[h], swing_bounds[max(slots[last, 2], 0)])
        if swing < margins[h]:
            i = leaders[h]
            return (np.int64(kept_splits[h, i]), np.int64(kept_rows[h, i, 0]), np.int64(kept_rows[h, i, 1]),
                    np.int64(kept_rows[h, i, 2]))
    return np.int64(-1), np.int64(0), np.int64(0), np.int64(0)


@jit(inline="always")
def recertified(h, kept_rows, kept_splits, counts, ceilings, since, masks, checked, margins, leaders, current, drifts,
                slots, shape_rises, delta_terms, drift_bounds, slope_units, row_values, row_wins, row_losses, scoop,
                majority, joint, removal_terms, buckets, corrections, columns, by_column):
    """:func:`certified_split` of hand ``h`` from its list (its drifts by the pass that listed it, ``since[h]``),
    recording the certificate of pass ``current`` for :func:`kept_split` (``checked[h]`` -1: none)."""
    listed = since[h]
    rises_slot = max(slots[listed, 0], 0) if listed >= 0 else 0
    terms_slot = max(slots[listed, 1], 0) if listed >= 0 else 0
    split, front, middle, back, margin, leader = certified_split(
        kept_rows[h], kept_splits[h], counts[h], ceilings[h], drifts[listed] if listed >= 0 else np.inf, masks[h],
        delta_terms[terms_slot], shape_rises[rises_slot], drift_bounds[rises_slot], slope_units, row_values, row_wins,
        row_losses, scoop, majority, joint, removal_terms, buckets, corrections, columns, by_column)
    if split >= 0:
        checked[h] = current
        margins[h] = margin
        leaders[h] = leader
    else:
        checked[h] = -1
    return np.int64(split), np.int64(front), np.int64(middle), np.int64(back)


@jit
def policy_remembering_hand(hand, delta, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint,
                            rest_best, self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift,
                            slot_mask, displacements, strengths, flush_strengths, rest_multiplier, rest_shift,
                            rest_slot_mask, rest_displacements, rest_values, middles, fronts, index5, index3, masks5,
                            codes5, front_values, candidates, candidate_bounds, corrections, search_budget, kept_rows,
                            kept_splits, kept_values):
    """The table policy's split of one hand (:func:`.policy.table_policy_hand`), and its near-best rows
    (:func:`near_best_rows`): ``(split, front, middle, back, count, ceiling, hand mask)``.

    Count -1 when nothing is listed: ``delta`` below 0 (a pass that does not list), or a search over
    ``search_budget`` backs, whose split is then -1 too.
    """
    hand_code, hand_mask, top_front = hand_subsets(hand, row_values, card_codes, multiplier, bucket_shift, slot_mask,
                                                   displacements, strengths, flush_strengths, index5, index3, masks5,
                                                   codes5, front_values)
    removal, all_slack, value_slack, front_rise, middle_rise, front_fall, middle_fall = hand_removal(
        hand_mask, removal_terms, buckets, scoop, majority, joint, index5, index3, front_values, corrections)
    best, best_value, bounded, first, top = best_split_by_row_values(
        index5, index3, front_values, middles, fronts, row_values, row_bounds, row_wins, row_losses, scoop, majority,
        joint, rest_best, self_bounds, top_front, hand_code, hand_mask, codes5, masks5, rest_multiplier, rest_shift,
        rest_slot_mask, rest_displacements, rest_values, flush_strengths, candidates, candidate_bounds, removal,
        corrections, buckets, all_slack, value_slack, front_rise, middle_rise, front_fall, middle_fall,
        search_budget, max(delta, 0.0))
    if best < 0:
        return best, 0, 0, 0, -1, 0.0, hand_mask
    count, ceiling = -1, 0.0
    if delta >= 0.0:
        count, ceiling = near_best_rows(index5, index3, front_values, best_value, delta, row_values, row_wins,
                                        row_losses, scoop, majority, joint, middles, fronts, removal, corrections,
                                        buckets, first, top, candidates, candidate_bounds, bounded, kept_rows,
                                        kept_splits, kept_values)
    return best, index3[fronts[best]], index5[middles[best]], index5[best // 56], count, ceiling, hand_mask


@jit
def certify_block(start, stop, kept_rows, kept_splits, counts, ceilings, since, masks, checked, margins, leaders,
                   current, drifts, slots, shape_rises, delta_terms, drift_bounds, slope_units, swings, swing_bounds,
                   row_values, row_wins, row_losses, scoop, majority, joint, removal_terms, buckets, chosen,
                   chosen_strengths):
    """:func:`kept_split` or else :func:`recertified` of hands ``start .. stop``: each one's split into ``chosen``
    (-1 where a search is needed) and its rows' strengths into ``chosen_strengths``; returns how many splits were
    kept (unchanged since their last certificate).  ``cpoker.jobs.nearbest`` runs it on parts of a batch side by side
    (:func:`cpoker.system.threads.in_parts`): it writes only its own hands' rows.

    ``since[i]``: the pass whose model listed hand ``i``'s rows (-1: none), ``masks[i]`` its cards; ``drifts[p]``
    the drift of the pass's model since pass ``p``'s (``inf`` for a pass forgotten), and under a card-removal
    correction the part common to all hands, with ``slots[p]`` the entries of ``shape_rises`` (and of
    ``drift_bounds``, their :func:`hand_drift_bound`) and of ``delta_terms`` for the hand's own part
    (:func:`hand_drift`; the passes without the correction share one of ``delta_terms``, the whole correction), and
    of ``swing_bounds``.
    """
    corrections = np.empty(CORRECTIONS)
    columns = np.empty(COLUMNS, dtype=np.int32)
    kept = 0
    corrected = removal_terms.shape[0] > 1
    for h in range(start, stop):
        split, front, middle, back = kept_split(h, kept_rows, kept_splits, masks, checked, margins, leaders, slots,
                                                swings, swing_bounds, corrected)
        if split >= 0:
            kept += 1
        else:
            split, front, middle, back = recertified(
                h, kept_rows, kept_splits, counts, ceilings, since, masks, checked, margins, leaders, current, drifts,
                slots, shape_rises, delta_terms, drift_bounds, slope_units, row_values, row_wins, row_losses, scoop,
                majority, joint, removal_terms, buckets, corrections, columns, False)
        chosen[h] = split
        chosen_strengths[h, 0] = front
        chosen_strengths[h, 1] = middle
        chosen_strengths[h, 2] = back
    return kept


@jit
def remembering_block(state_high, state_low, inc_high, inc_low, rows, start, stop, deck, given, delta, current,
                       row_values,
                       row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best, self_bounds, removal_terms,
                       buckets, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                       flush_strengths, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements, rest_values,
                       middles, fronts, chosen, chosen_strengths, kept_rows, kept_splits, counts, ceilings, since,
                       masks):
    """For ``j`` in ``start .. stop``: deal hand ``rows[j]`` from its seeded stream (state before the block's first
    hand: see :func:`.deal.deal_hands`), or take row ``rows[j]`` of ``given`` (``(n, 13)`` hands; none: dealt),
    arrange it by the table policy into row ``rows[j]`` of ``chosen`` and ``chosen_strengths``, and list its
    near-best rows in row ``rows[j]`` of the last six arrays (``since``: the pass ``current``, ``masks``: its
    cards; nothing with ``delta`` below 0).  Run on parts of ``rows`` side by side, as :func:`certify_block`."""
    index5, index3, masks5, codes5, front_values, candidates, candidate_bounds, corrections = policy_scratch()
    kept_values = np.empty(kept_rows.shape[1])
    hand = np.empty((1, 1, 13), dtype=deck.dtype)
    smallest = np.empty(13, dtype=np.uint64)
    for j in range(start, stop):
        h = rows[j]
        if given.shape[0] > 0:
            hand[0, 0, :] = given[h]
        else:
            deal_hands(state_high, state_low, inc_high, inc_low, h, 1, deck, smallest, hand, 0)
        best, front, middle, back, count, ceiling, hand_mask = policy_remembering_hand(
            hand[0, 0], delta, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best,
            self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask, displacements,
            strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements, rest_values,
            middles, fronts, index5, index3, masks5, codes5, front_values, candidates, candidate_bounds, corrections,
            UNLIMITED_SEARCHES, kept_rows[h], kept_splits[h], kept_values)
        chosen[h] = best
        chosen_strengths[h, 0] = front
        chosen_strengths[h, 1] = middle
        chosen_strengths[h, 2] = back
        if count >= 0:  # listed now (else its list, if any, stays that of its pass)
            counts[h] = count
            ceilings[h] = ceiling
            since[h] = current
            masks[h] = hand_mask
