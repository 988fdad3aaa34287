"""Settlement of one pair of players, as one scalar function every other path calls.

Rows are given as keys (front, middle, back); a fouled hand has key -1 in
every row, so it loses each row to any valid hand and earns no royalty.
``scoring`` is 0 (pagat: 1 per row), 1 (1-6: a scoop pays 6) or 2 (2-4: one
more to whoever wins two or more rows).  ``royalties[row, category]`` holds
the bonus units of a row of that category; with ``require_win`` a royalty is
paid only by an opponent whose same row loses; with ``one_per_hand`` a hand
earns only its largest row royalty (the back's, then the middle's, on a tie).
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit

PAGAT, ONE_SIX, TWO_FOUR = 0, 1, 2


@jit
def _royalty(key, row, royalties):
    if key < 0:
        return 0
    return royalties[row, key >> 26]


@jit
def one_royalty(front, middle, back):
    """``(front, middle, back)`` royalties with all but the largest set to 0 (the back's, then the middle's, on a
    tie): a hand's one royalty (``one_per_hand``)."""
    if back >= middle and back >= front:
        return 0, 0, back
    if middle >= front:
        return 0, middle, 0
    return front, 0, 0


@jit
def pair_parts(a_front, a_middle, a_back, b_front, b_middle, b_back, scoring, royalties, require_win, one_per_hand):
    """Points A wins from B, split into (rows, scoring bonus, royalties)."""
    rows = 0
    wins = 0
    losses = 0
    royalty = 0
    a_0 = _royalty(a_front, 0, royalties)
    a_1 = _royalty(a_middle, 1, royalties)
    a_2 = _royalty(a_back, 2, royalties)
    b_0 = _royalty(b_front, 0, royalties)
    b_1 = _royalty(b_middle, 1, royalties)
    b_2 = _royalty(b_back, 2, royalties)
    if one_per_hand:
        a_0, a_1, a_2 = one_royalty(a_0, a_1, a_2)
        b_0, b_1, b_2 = one_royalty(b_0, b_1, b_2)
    for row in range(3):
        if row == 0:
            a, b, mine, theirs = a_front, b_front, a_0, b_0
        elif row == 1:
            a, b, mine, theirs = a_middle, b_middle, a_1, b_1
        else:
            a, b, mine, theirs = a_back, b_back, a_2, b_2
        result = int(a > b) - int(a < b)  # int(): the same on the CPU, a GPU and the simulator
        rows += result
        wins += result > 0
        losses += result < 0
        if not require_win:
            royalty += mine - theirs
        elif result > 0:
            royalty += mine
        elif result < 0:
            royalty -= theirs
    bonus = 0
    if scoring == ONE_SIX:
        if wins == 3:
            bonus = 3
        elif losses == 3:
            bonus = -3
    elif scoring == TWO_FOUR:
        if wins >= 2:
            bonus = 1
        elif losses >= 2:
            bonus = -1
    return rows, bonus, royalty


@jit
def pair_points(a_front, a_middle, a_back, b_front, b_middle, b_back, scoring, royalties, require_win, one_per_hand):
    """Total points A wins from B (see :func:`pair_parts`)."""
    rows, bonus, royalty = pair_parts(a_front, a_middle, a_back, b_front, b_middle, b_back,
                                      scoring, royalties, require_win, one_per_hand)
    return rows + bonus + royalty


@jit
def pair_points_batch(a, b, scoring, royalties, require_win, one_per_hand):
    """Points of ``a[i]`` against ``b[i]`` for rows of keys ``(N, 3)``."""
    out = np.empty(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        out[i] = pair_points(a[i, 0], a[i, 1], a[i, 2], b[i, 0], b[i, 1], b[i, 2], scoring, royalties, require_win,
                             one_per_hand)
    return out


@jit
def sample_totals(candidate_keys, opponent_keys, scoring, royalties, require_win, one_per_hand):
    """Points of each candidate in each sample, summed over opponents: ``(C, S)``."""
    out = np.zeros((candidate_keys.shape[0], opponent_keys.shape[0]), dtype=np.int64)
    for c in range(candidate_keys.shape[0]):
        for s in range(opponent_keys.shape[0]):
            for o in range(opponent_keys.shape[1]):
                out[c, s] += pair_points(candidate_keys[c, 0], candidate_keys[c, 1], candidate_keys[c, 2],
                                         opponent_keys[s, o, 0], opponent_keys[s, o, 1], opponent_keys[s, o, 2],
                                         scoring, royalties, require_win, one_per_hand)
    return out


@jit
def candidate_totals_part(candidate_keys, opponent_keys, scoring, royalties, require_win, one_per_hand, start, stop,
                          totals):
    """``totals[c] +=`` the points of candidate ``c`` (``start .. stop``) summed over every sample and opponent:
    :func:`sample_totals` summed, without its ``(C, S)`` array, for rules whose royalties are not a sum of rows'
    (``one_per_hand``).  Parts of the candidates run side by side (:func:`cpoker.jobs.solve.candidate_totals`)."""
    for c in range(start, stop):
        total = 0
        for s in range(opponent_keys.shape[0]):
            for o in range(opponent_keys.shape[1]):
                total += pair_points(candidate_keys[c, 0], candidate_keys[c, 1], candidate_keys[c, 2],
                                     opponent_keys[s, o, 0], opponent_keys[s, o, 1], opponent_keys[s, o, 2],
                                     scoring, royalties, require_win, one_per_hand)
        totals[c] += total
