"""Kernels of the card-removal correction (:mod:`cpoker.removal`): a hand's features, its correction, the learning sums.

A hand's features are small integers read off its card mask (no arrays), so
:func:`hand_correction` runs on the CPU and as a CUDA device function.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from .evaluate import count_ranks

N_SHAPES = 259  # correction shapes (cpoker.removal.strength_buckets): the correction's resolution in strength
RANK_FEATURES = 52  # per rank (13): holding 0, 2, 3 or 4 cards of it (1 is the reference)
N_FEATURES = RANK_FEATURES + 12  # then per suit (4): its count, its count squared; the counts sorted (4)


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
def hand_correction(mask, terms, out):
    """``out[:] = terms[0] + sum over features f of x_f * terms[1 + f]``: the correction of the hand ``mask``.

    ``terms`` is ``(1 + N_FEATURES, K)`` (see :mod:`cpoker.removal`); ``out`` has at least ``K`` entries, of
    which the first ``K`` are set.  At most 13 rank features and 12 suit features are non-zero, so this is 25
    passes over ``K``.
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
        count = np.float64(a if suit == 0 else b if suit == 1 else c if suit == 2 else d)
        by_rank = np.float64(s0 if suit == 0 else s1 if suit == 1 else s2 if suit == 2 else s3)
        linear = 1 + RANK_FEATURES + suit
        square = linear + 4
        ordered = linear + 8
        for i in range(width):
            out[i] += (count * np.float64(terms[linear, i]) + (count * count) * np.float64(terms[square, i])
                       + by_rank * np.float64(terms[ordered, i]))


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


@jit
def accumulate_removal(deals, strengths, gram, moments):
    """Add one block of deals to the learning sums, exactly (integers).

    ``deals`` ``(D, P, 13)`` card ids, ``strengths`` ``(D, P, 3)`` the dense
    strengths of each hand's rows as the policy arranged it.  Every ordered
    pair of seats of a deal is a sample: the features ``x`` of one hand, the
    rows ``o`` of another.  ``gram += x x^T`` (``(1 + F, 1 + F)``),
    ``moments[row, f, o[row]] += x_f`` (``(3, 1 + F, S)``).
    """
    players = deals.shape[1]
    width = gram.shape[0]
    x = np.zeros(width, dtype=np.int64)
    active = np.zeros(width, dtype=np.int64)
    for d in range(deals.shape[0]):
        for mine in range(players):
            mask = np.int64(0)
            for j in range(13):
                mask |= np.int64(1) << np.int64(deals[d, mine, j])
            _features(mask, x)
            n_active = 0
            for f in range(width):
                if x[f] != 0:
                    active[n_active] = f
                    n_active += 1
            for i in range(n_active):
                for j in range(n_active):
                    gram[active[i], active[j]] += (players - 1) * x[active[i]] * x[active[j]]
            for other in range(players):
                if other == mine:
                    continue
                for row in range(3):
                    o = strengths[d, other, row]
                    for i in range(n_active):
                        moments[row, active[i], o] += x[active[i]]


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
