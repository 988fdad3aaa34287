"""Kernels of the card-removal correction (:mod:`cpoker.strategies.policy.removal`): a hand's features, its
correction, the learning sums.

A hand's features are small integers read off its card mask (no arrays), so
:func:`hand_correction` runs on the CPU and as a CUDA device function.
"""

from __future__ import annotations

from math import comb

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.evaluate import count_ranks

# correction shapes (cpoker.strategies.policy.removal.strength_buckets): the correction's resolution in strength
N_SHAPES = 259
RANK_FEATURES = 52  # per rank (13): holding 0, 2, 3 or 4 cards of it (1 is the reference)
SUIT_FEATURES = 12  # then per suit (4): its count, its count squared; the counts sorted (4)
BLOCKER_RANKS = 5  # then per rank A, K, Q, J, T: the hand's cards of it, weighted by FLUSH_WEIGHT of their suit
N_FEATURES = RANK_FEATURES + SUIT_FEATURES + BLOCKER_RANKS


def _flush_weights() -> tuple:
    """``round(100 * P(a 13-card opponent holds five or more of a suit | the hand holds c of it))``, c = 0..13.

    The opponent's 13 cards come from the other 39.  Integers, so that the learning sums stay exact; a
    tuple, which the kernels hold as constants (a module-level array would become a constant-memory copy
    in every CUDA function that reads it).
    """
    total = comb(39, 13)
    return tuple(round(100 * sum(comb(13 - c, k) * comb(26 + c, 13 - k) for k in range(5, 14)) / total)
                 for c in range(14))


FLUSH_WEIGHT = _flush_weights()  # 45, 35, 26, 18, 11, 6, 3, 1, then 0


@jit
def rank_feature(mask, rank):
    """The feature set by ``rank``'s count in the hand (card ``mask``), or -1 for one card (the reference)."""
    count = ((mask >> rank) & 1) + ((mask >> (rank + 13)) & 1) + ((mask >> (rank + 26)) & 1) + (
        (mask >> (rank + 39)) & 1)
    if count == 1:
        return -1
    return 13 * (count - 1 if count > 1 else 0) + rank


@jit
def suit_counts(mask):
    """The hand's four suit counts, and the same sorted (ascending): eight scalars."""
    a = count_ranks(mask & 0x1FFF)
    b = count_ranks((mask >> 13) & 0x1FFF)
    c = count_ranks((mask >> 26) & 0x1FFF)
    d = count_ranks((mask >> 39) & 0x1FFF)
    low1, high1 = min(a, b), max(a, b)
    low2, high2 = min(c, d), max(c, d)
    lowest, middle1 = min(low1, low2), max(low1, low2)
    middle2, highest = min(high1, high2), max(high1, high2)
    return a, b, c, d, lowest, min(middle1, middle2), max(middle1, middle2), highest


@jit
def blocker_feature(mask, rank, a, b, c, d):
    """The hand's cards of ``rank``, each weighted by ``FLUSH_WEIGHT`` of the hand's count in its suit
    (``a, b, c, d``: the four suit counts).

    A suit's high card in the hand blocks the opponents' high flushes of that suit, which matters the
    more the likelier they are to flush in it, i.e. the fewer cards of it the hand holds.  Measured under
    seed001-royalties, where flush backs pay 4, a linear correction in the rank counts and suit counts
    alone put an opponent's flushes above a jack-high flush at 0.36 for a hand holding A and K of spades
    and A of diamonds with two cards of each suit (true: 0.31, whole deck: 0.38); with these five
    features, 0.32.
    """
    return (((mask >> rank) & 1) * FLUSH_WEIGHT[a] + ((mask >> (rank + 13)) & 1) * FLUSH_WEIGHT[b]
            + ((mask >> (rank + 26)) & 1) * FLUSH_WEIGHT[c] + ((mask >> (rank + 39)) & 1) * FLUSH_WEIGHT[d])


@jit
def suit_feature(suit, a, b, c, d, s0, s1, s2, s3):
    """A suit's features (:func:`suit_counts`: its count ``a``-``d``, and ``s0``-``s3`` the counts sorted):
    ``(count, sorted count at its place, and their rows of terms: linear, square, sorted)``, counts in float64."""
    count = np.float64(a if suit == 0 else b if suit == 1 else c if suit == 2 else d)
    by_rank = np.float64(s0 if suit == 0 else s1 if suit == 1 else s2 if suit == 2 else s3)
    linear = 1 + RANK_FEATURES + suit
    return count, by_rank, linear, linear + 4, linear + 8


@jit
def hand_correction(mask, terms, out):
    """``out[:] = terms[0] + sum over features f of x_f * terms[1 + f]``: the correction of the hand ``mask``.

    ``terms`` is ``(1 + N_FEATURES, K)`` (see :mod:`cpoker.strategies.policy.removal`); ``out`` has at least ``K``
    entries, of
    which the first ``K`` are set.  At most 13 rank features, 12 suit features and 5 blocker features are
    non-zero, so this is at most 30 passes over ``K``.
    """
    width = terms.shape[1]
    for i in range(width):
        out[i] = terms[0, i]
    for rank in range(13):
        feature = rank_feature(mask, rank)
        if feature >= 0:
            for i in range(width):
                out[i] += terms[1 + feature, i]
    a, b, c, d, s0, s1, s2, s3 = suit_counts(mask)
    for suit in range(4):  # in float64: the terms may be float32, and the counts small unsigned integers
        count, by_rank, linear, square, ordered = suit_feature(suit, a, b, c, d, s0, s1, s2, s3)
        for i in range(width):
            out[i] += (count * np.float64(terms[linear, i]) + (count * count) * np.float64(terms[square, i])
                       + by_rank * np.float64(terms[ordered, i]))
    for k in range(BLOCKER_RANKS):
        blocker = np.float64(blocker_feature(mask, 12 - k, a, b, c, d))
        if blocker != 0:
            row = 1 + RANK_FEATURES + SUIT_FEATURES + k
            for i in range(width):
                out[i] += blocker * np.float64(terms[row, i])


@jit
def hand_correction_column(mask, terms, column, a, b, c, d, s0, s1, s2, s3):
    """Column ``column`` of :func:`hand_correction` (``a``... ``s3``: :func:`suit_counts` of ``mask``), alone: the
    same sums in the same order, so the same bits, summed in a register (no array of all the columns)."""
    value = np.float64(terms[0, column])
    for rank in range(13):
        feature = rank_feature(mask, rank)
        if feature >= 0:
            value += terms[1 + feature, column]
    for suit in range(4):
        held, by_rank, linear, square, ordered = suit_feature(suit, a, b, c, d, s0, s1, s2, s3)
        value += (held * np.float64(terms[linear, column]) + (held * held) * np.float64(terms[square, column])
                  + by_rank * np.float64(terms[ordered, column]))
    for k in range(BLOCKER_RANKS):
        blocker = np.float64(blocker_feature(mask, 12 - k, a, b, c, d))
        if blocker != 0:
            value += blocker * np.float64(terms[1 + RANK_FEATURES + SUIT_FEATURES + k, column])
    return value


@jit
def hand_correction_columns(masks, terms, columns, out):
    """``out[h, k]``: column ``columns[h, k]`` of :func:`hand_correction` of hand ``masks[h]`` (the same bits, by
    :func:`hand_correction_column`): a batch's corrections at the few columns its chosen splits read."""
    for h in range(masks.shape[0]):
        a, b, c, d, s0, s1, s2, s3 = suit_counts(masks[h])
        for k in range(columns.shape[1]):
            out[h, k] = hand_correction_column(masks[h], terms, columns[h, k], a, b, c, d, s0, s1, s2, s3)


@jit
def hand_correction_rows(mask, terms):
    """The three columns of :func:`hand_correction` of a ``(1 + N_FEATURES, 3)`` table ``terms`` (one a row of
    the hand: :func:`cpoker.jobs.nearbest.drift_bounds`), each summed in a register, the hand's features computed
    once for the three (not a third as many operations as three :func:`hand_correction_column`, whose order of
    sums is not this one's)."""
    a, b, c, d, s0, s1, s2, s3 = suit_counts(mask)
    front, middle, back = np.float64(terms[0, 0]), np.float64(terms[0, 1]), np.float64(terms[0, 2])
    for rank in range(13):
        feature = rank_feature(mask, rank)
        if feature >= 0:
            front += terms[1 + feature, 0]
            middle += terms[1 + feature, 1]
            back += terms[1 + feature, 2]
    for suit in range(4):
        held, by_rank, linear, square, ordered = suit_feature(suit, a, b, c, d, s0, s1, s2, s3)
        squared = held * held
        front += (held * np.float64(terms[linear, 0]) + squared * np.float64(terms[square, 0])
                  + by_rank * np.float64(terms[ordered, 0]))
        middle += (held * np.float64(terms[linear, 1]) + squared * np.float64(terms[square, 1])
                   + by_rank * np.float64(terms[ordered, 1]))
        back += (held * np.float64(terms[linear, 2]) + squared * np.float64(terms[square, 2])
                 + by_rank * np.float64(terms[ordered, 2]))
    for k in range(BLOCKER_RANKS):
        blocker = np.float64(blocker_feature(mask, 12 - k, a, b, c, d))
        if blocker != 0:
            row = 1 + RANK_FEATURES + SUIT_FEATURES + k
            front += blocker * np.float64(terms[row, 0])
            middle += blocker * np.float64(terms[row, 1])
            back += blocker * np.float64(terms[row, 2])
    return front, middle, back


@jit
def hand_correction_at(mask, terms, columns, count, out):
    """:func:`hand_correction` at ``count`` distinct columns only (``columns[:count]``): ``out[c]`` for each.

    The same sums in the same order, so the same bits: what a certificate reads of a hand's correction
    (:func:`.nearbest.certified_split`) where the search computed every column.
    """
    for j in range(count):
        out[columns[j]] = terms[0, columns[j]]
    for rank in range(13):
        feature = rank_feature(mask, rank)
        if feature >= 0:
            for j in range(count):
                out[columns[j]] += terms[1 + feature, columns[j]]
    a, b, c, d, s0, s1, s2, s3 = suit_counts(mask)
    for suit in range(4):
        held, by_rank, linear, square, ordered = suit_feature(suit, a, b, c, d, s0, s1, s2, s3)
        for j in range(count):
            i = columns[j]
            out[i] += (held * np.float64(terms[linear, i]) + (held * held) * np.float64(terms[square, i])
                       + by_rank * np.float64(terms[ordered, i]))
    for k in range(BLOCKER_RANKS):
        blocker = np.float64(blocker_feature(mask, 12 - k, a, b, c, d))
        if blocker != 0:
            row = 1 + RANK_FEATURES + SUIT_FEATURES + k
            for j in range(count):
                out[columns[j]] += blocker * np.float64(terms[row, columns[j]])


@jit
def _features(mask, out):
    """All ``1 + N_FEATURES`` features of a hand, the constant 1 first (learning only)."""
    out[:] = 0
    out[0] = 1
    for rank in range(13):
        feature = rank_feature(mask, rank)
        if feature >= 0:
            out[1 + feature] = 1
    a, b, c, d, s0, s1, s2, s3 = suit_counts(mask)
    counts = (a, b, c, d)
    ordered = (s0, s1, s2, s3)
    for suit in range(4):
        out[1 + RANK_FEATURES + suit] = counts[suit]
        out[5 + RANK_FEATURES + suit] = counts[suit] * counts[suit]
        out[9 + RANK_FEATURES + suit] = ordered[suit]
    for k in range(BLOCKER_RANKS):
        out[1 + RANK_FEATURES + SUIT_FEATURES + k] = blocker_feature(mask, 12 - k, a, b, c, d)


MAX_ACTIVE = 1 + 13 + SUIT_FEATURES + BLOCKER_RANKS  # nonzero features of a hand at most: one for each rank


@jit
def _active_features(deals, d, mine, x, active, values):
    """Hand ``mine`` of deal ``d``: its nonzero features' indices (increasing) and values written to ``active``
    and ``values``; returns how many (``x``: scratch of ``1 + N_FEATURES``)."""
    mask = np.int64(0)
    for j in range(13):
        mask |= np.int64(1) << np.int64(deals[d, mine, j])
    _features(mask, x)
    n = 0
    for f in range(x.shape[0]):
        if x[f] != 0:
            active[n] = f
            values[n] = x[f]
            n += 1
    return n


@jit
def gram_part(deals, start, stop, active, values, n_active, gram):
    """The learning sums' first half for deals ``start .. stop``: each hand's nonzero features into its row of
    ``active`` (indices, increasing), ``values`` and ``n_active``, and ``x x^T`` of every ordered pair of seats
    (a hand's features ``x``, counted once for each other seat) added to the upper triangle of ``gram``.

    ``deals`` ``(D, P, 13)`` card ids; hand ``d * P + mine`` is seat ``mine`` of deal ``d``.  Parts of the deals
    run side by side, each on a ``gram`` of its own (:func:`cpoker.jobs.removal_learning.accumulate_removal`).
    """
    players, width = deals.shape[1], gram.shape[0]
    x = np.zeros(width, dtype=np.int64)
    for d in range(start, stop):
        for mine in range(players):
            h = d * players + mine
            n = _active_features(deals, d, mine, x, active[h], values[h])
            n_active[h] = n
            for i in range(n):  # the indices increase: the upper triangle
                weighted = (players - 1) * np.int64(values[h, i])
                for j in range(i, n):
                    gram[active[h, i], active[h, j]] += weighted * np.int64(values[h, j])


@jit
def moments_part(strengths, low, high, active, values, n_active, moments):
    """The learning sums' second half for the strengths ``low .. high``: ``moments[row, f, o] += x_f`` for every
    hand's features ``x`` (of :func:`gram_part`) and every other seat's row ``row`` of strength ``o`` in that
    range.  ``strengths`` ``(D, P, 3)``.  Parts of the strengths run side by side, each writing its own columns
    of ``moments`` (a few MB: they stay in its core's cache)."""
    n_deals, players = strengths.shape[0], strengths.shape[1]
    for d in range(n_deals):
        for other in range(players):
            for row in range(3):
                o = strengths[d, other, row]
                if o < low or o >= high:
                    continue
                for mine in range(players):
                    if mine != other:
                        h = d * players + mine
                        for i in range(n_active[h]):
                            moments[row, active[h, i], o] += np.int64(values[h, i])


@jit
def solve_symmetric(matrix, right):
    """Solve ``matrix @ out = right`` for a symmetric positive definite ``matrix`` (Cholesky, in a fixed order).

    Written out rather than LAPACK's, so that the answer is the same bits on every machine (the shipped
    tables are rebuilt byte for byte).
    """
    n = matrix.shape[0]
    lower = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            total = matrix[i, j]
            for k in range(j):
                total -= lower[i, k] * lower[j, k]
            if i == j:
                lower[i, i] = np.sqrt(total)
            else:
                lower[i, j] = total / lower[j, j]
    out = np.empty_like(right)
    for c in range(right.shape[1]):
        for i in range(n):  # forward: lower @ y = right
            total = right[i, c]
            for k in range(i):
                total -= lower[i, k] * out[k, c]
            out[i, c] = total / lower[i, i]
        for i in range(n - 1, -1, -1):  # back: lower^T @ out = y
            total = out[i, c]
            for k in range(i + 1, n):
                total -= lower[k, i] * out[k, c]
            out[i, c] = total / lower[i, i]
    return out
