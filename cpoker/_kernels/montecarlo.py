"""Kernels that settle our candidate rows against sampled opponents.

Opponent rows come as an ``(S, n, 3)`` array of keys (front, middle, back) for
``S`` samples of ``n`` opponents; a fouled opponent has key ``-1`` in every
row, so any real row beats it, as docs/rules.md requires.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit


@jit
def _sign(a, b):
    return (a > b) - (a < b)


@jit
def _subset_row_totals(keys5, keys3, opponent_keys):
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
def _candidate_results(candidate_keys, opponent_keys):
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
