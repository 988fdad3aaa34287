"""Kernels that settle our candidate rows against sampled opponents.

Opponent rows come as an ``(S, n, 3)`` array of keys (front, middle, back) for
``S`` samples of ``n`` opponents; a fouled opponent has key ``-1`` in every
row, so any real row beats it, as docs/rules.md requires.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.scoring import ONE_SIX, TWO_FOUR


@jit
def _sign(a, b):
    return (a > b) - (a < b)


@jit
def subset_row_totals(keys5, keys3, opponent_keys):
    """Summed row results of every 5-subset as back and as middle, and every 3-subset as front.

    Under 1-point-per-row scoring a split's total is the sum of its three
    rows' totals, so these ``2 * 1287 + 286`` sums give every split's EV.
    """
    back = np.zeros(keys5.shape[0], dtype=np.int64)
    middle = np.zeros(keys5.shape[0], dtype=np.int64)
    front = np.zeros(keys3.shape[0], dtype=np.int64)
    for s in range(opponent_keys.shape[0]):
        for o in range(opponent_keys.shape[1]):
            their_front = opponent_keys[s, o, 0]
            their_middle = opponent_keys[s, o, 1]
            their_back = opponent_keys[s, o, 2]
            for i in range(keys5.shape[0]):
                key = keys5[i]
                back[i] += _sign(key, their_back)
                middle[i] += _sign(key, their_middle)
            for i in range(keys3.shape[0]):
                front[i] += _sign(keys3[i], their_front)
    return back, middle, front


@jit
def candidate_results(candidate_keys, opponent_keys):
    """Per-sample totals, row outcomes and sweeps of a few candidate arrangements.

    Returns ``totals[c, s]`` (points of candidate ``c`` in sample ``s``, summed
    over opponents), ``outcomes[c, row, k]`` with ``k`` = 0 win, 1 tie, 2 loss,
    and ``sweeps[c, k]``: against how many opponents (over all samples) every
    row was won (``k`` = 0) or every row lost (``k`` = 1).
    """
    n_candidates = candidate_keys.shape[0]
    n_samples = opponent_keys.shape[0]
    totals = np.zeros((n_candidates, n_samples), dtype=np.int32)
    outcomes = np.zeros((n_candidates, 3, 3), dtype=np.int64)
    sweeps = np.zeros((n_candidates, 2), dtype=np.int64)
    for c in range(n_candidates):
        for s in range(n_samples):
            total = 0
            for o in range(opponent_keys.shape[1]):
                against = 0
                for row in range(3):
                    result = _sign(candidate_keys[c, row], opponent_keys[s, o, row])
                    against += result
                    outcomes[c, row, 1 - result] += 1
                if against == 3:
                    sweeps[c, 0] += 1
                elif against == -3:
                    sweeps[c, 1] += 1
                total += against
            totals[c, s] = total
    return totals, outcomes, sweeps


@jit
def subset_row_points(keys5, keys3, opponent_keys, royalties, require_win):
    """Like :func:`subset_row_totals`, with each row's royalties: the part of any rules' points that is additive.

    A pair's points are its row results, its royalties and a scoring bonus
    (see ``scoring.pair_parts``).  Row results and royalties depend on each
    row alone, so their sums over all samples come per subset, as under
    pagat; only the bonus needs whole candidates (:func:`bonus_totals_part`).
    """
    back = np.zeros(keys5.shape[0], dtype=np.int64)
    middle = np.zeros(keys5.shape[0], dtype=np.int64)
    front = np.zeros(keys3.shape[0], dtype=np.int64)
    mine_back = np.empty(keys5.shape[0], dtype=np.int64)
    mine_middle = np.empty(keys5.shape[0], dtype=np.int64)
    mine_front = np.empty(keys3.shape[0], dtype=np.int64)
    for i in range(keys5.shape[0]):
        mine_back[i] = _royalty_of(keys5[i], 2, royalties)
        mine_middle[i] = _royalty_of(keys5[i], 1, royalties)
    for i in range(keys3.shape[0]):
        mine_front[i] = _royalty_of(keys3[i], 0, royalties)
    for s in range(opponent_keys.shape[0]):
        for o in range(opponent_keys.shape[1]):
            _add_row_points(keys5, opponent_keys[s, o, 2], mine_back,
                            _royalty_of(opponent_keys[s, o, 2], 2, royalties), require_win, back)
            _add_row_points(keys5, opponent_keys[s, o, 1], mine_middle,
                            _royalty_of(opponent_keys[s, o, 1], 1, royalties), require_win, middle)
            _add_row_points(keys3, opponent_keys[s, o, 0], mine_front,
                            _royalty_of(opponent_keys[s, o, 0], 0, royalties), require_win, front)
    return back, middle, front


@jit
def _royalty_of(key, row, royalties):
    return 0 if key < 0 else royalties[row, key >> 26]


@jit
def _add_row_points(keys, theirs, mine_royalty, their_royalty, require_win, totals):
    """``totals[i] +=`` the row result and royalties of a row of key ``keys[i]`` against one of key ``theirs``."""
    if require_win:
        for i in range(keys.shape[0]):
            win = keys[i] > theirs
            loss = keys[i] < theirs
            totals[i] += win - loss + win * mine_royalty[i] - loss * their_royalty
    else:
        for i in range(keys.shape[0]):
            totals[i] += (keys[i] > theirs) - (keys[i] < theirs) + mine_royalty[i] - their_royalty


@jit
def bonus_totals_part(candidate_keys, front, middle, back, scoring, start, stop, totals):
    """``totals[c]`` for candidates ``start .. stop``: the summed scoring bonus (1-6: a scoop; 2-4: two rows or
    more) of candidate ``c`` (its front, middle and back keys) over every opponent's rows.

    The bonus depends on the three rows together.  The opponents' rows are given as three contiguous columns,
    so the loop over them is plain comparisons and adds, which the compiler vectorises.  Parts of the
    candidates run side by side (:func:`cpoker.jobs.solve.bonus_totals`).
    """
    n = front.shape[0]
    for c in range(start, stop):
        f = candidate_keys[c, 0]
        m = candidate_keys[c, 1]
        k = candidate_keys[c, 2]
        total = 0
        if scoring == TWO_FOUR:
            for s in range(n):
                wins = np.int32(f > front[s]) + np.int32(m > middle[s]) + np.int32(k > back[s])
                losses = np.int32(f < front[s]) + np.int32(m < middle[s]) + np.int32(k < back[s])
                total += np.int32(wins >= 2) - np.int32(losses >= 2)
        elif scoring == ONE_SIX:
            for s in range(n):
                wins = np.int32(f > front[s]) + np.int32(m > middle[s]) + np.int32(k > back[s])
                losses = np.int32(f < front[s]) + np.int32(m < middle[s]) + np.int32(k < back[s])
                total += 3 * (np.int32(wins == 3) - np.int32(losses == 3))
        totals[c] = total
