"""Learning the open-face rollout policy's value: boards played by the policy, and what they came to.

:func:`learning_hands` plays each deck's board by the policy and, from one decision on (drawn at random),
records the features of the board after each decision (:func:`cpoker._kernels.ofc_policy.board_features`).
That decision's choice is made at random with probability ``epsilon``, so that the learning sees boards the
policy would not make, and every later one by the policy, so that what a recorded board comes to is what the
policy makes of it: once the board is full, its mean points against a pool of boards the policy made from other
deals, plus what its Fantasyland is worth.  It adds each recorded decision's features to the normal equations of
its stage (the cards on the board): ``gram[stage] += x x^T``, ``moments[stage] += x y``.  A chunk of hands fills
its own equations, so that the sums do not depend on the threads
(:func:`cpoker.jobs.ofc.policy_learning.learn_policy` adds them in order)."""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.evaluate import popcount
from cpoker._kernels.ofc_board import SCOOP, board_points, scored_board
from cpoker._kernels.ofc_policy import FEATURE_COUNT, board_features, choose_round
from cpoker._kernels.ofc_rollout import earned_value

MAX_DECISIONS = 13  # a board's decisions at most (13 cards, at least one a decision)


@jit
def learning_hands(decks, explore, first_cards, round_cards, round_places, table, weights, model, epsilon,
                   pool_keys, pool_royalty, pool_fouled, entry_values, gram, moments, counts, chunk, start, stop):
    """Hands ``start .. stop`` (rows of ``decks``, one board each; ``explore[h]``: three uniforms, the decision
    the record starts at, whether it is a random choice, and which), added to the equations of chunk ``chunk``
    (``gram[chunk, stage]``, ``moments[chunk, stage]``, ``counts[chunk, stage]``)."""
    features = np.empty(FEATURE_COUNT)
    seen = np.empty((MAX_DECISIONS, FEATURE_COUNT))
    stages = np.empty(MAX_DECISIONS, dtype=np.int64)
    scoop = table[SCOOP]
    pool = pool_keys.shape[0]
    decisions = 1 + (13 - first_cards) // round_places
    for h in range(start, stop):
        first = int(explore[h, 0] * decisions)
        deck = decks[h]
        front = middle = back = np.int64(0)
        position = placed = decision = recorded = 0
        while placed < 13:
            if placed == 0:
                count, keep = first_cards, first_cards
            else:
                count, keep = round_cards, round_places
            pick = explore[h, 2] if decision == first and explore[h, 1] < epsilon else -1.0
            front, middle, back = choose_round(front, middle, back, deck[position:position + count], count, keep,
                                               table, weights, model, pick)
            position += count
            placed += keep
            if decision >= first:
                board_features(front, middle, back, table, weights, features)
                seen[recorded] = features
                stages[recorded] = popcount(front) + popcount(middle) + popcount(back)
                recorded += 1
            decision += 1
        front_key, middle_key, back_key, royalty, fouled = scored_board(front, middle, back, table)
        outcome = 0.0
        for j in range(pool):
            outcome += board_points(front_key, middle_key, back_key, royalty, fouled, pool_keys[j, 0],
                                    pool_keys[j, 1], pool_keys[j, 2], pool_royalty[j], pool_fouled[j], scoop)
        outcome = outcome / pool + earned_value(front_key, fouled, table, entry_values)
        for d in range(recorded):
            stage = stages[d]
            counts[chunk, stage] += 1
            for a in range(FEATURE_COUNT):
                moments[chunk, stage, a] += seen[d, a] * outcome
                for b in range(FEATURE_COUNT):
                    gram[chunk, stage, a, b] += seen[d, a] * seen[d, b]


@jit
def duplicate_margin(keys_a, royalty_a, fouled_a, keys_b, royalty_b, fouled_b, table, entry_values):
    """What policy ``a`` wins a board from policy ``b``, duplicate: boards ``2i`` and ``2i + 1`` of each were made
    from the same two deals, so ``a``'s board of deal one meets ``b``'s of deal two and the other way round, each
    with what its Fantasyland is worth.  Returns the mean and the standard deviation of the pairs' margins."""
    pairs = keys_a.shape[0] // 2
    total = squares = 0.0
    for i in range(pairs):
        margin = 0.0
        for x, y in ((2 * i, 2 * i + 1), (2 * i + 1, 2 * i)):
            margin += board_points(keys_a[x, 0], keys_a[x, 1], keys_a[x, 2], royalty_a[x], fouled_a[x], keys_b[y, 0],
                                   keys_b[y, 1], keys_b[y, 2], royalty_b[y], fouled_b[y], table[SCOOP])
            margin += earned_value(keys_a[x, 0], fouled_a[x], table, entry_values)
            margin -= earned_value(keys_b[y, 0], fouled_b[y], table, entry_values)
        total += margin / 2
        squares += margin * margin / 4
    mean = total / pairs
    return mean, np.sqrt(max(0.0, squares / pairs - mean * mean))
