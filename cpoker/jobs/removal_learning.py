"""Learning the card-removal correction (:mod:`cpoker.strategies.policy.removal`) from self-play deals.

Deals of four hands are arranged by the policy, and each ordered pair of seats is a sample (the features of
one hand; the rows of another).  The sums are exact integers, summed in parts on the thread pool, and the
least-squares solve is written out in a fixed order, so a build is the same bits on every machine.
:func:`learn_removal` runs after self-play, and again after each round of self-play that plays the
correction (:func:`cpoker.jobs.selfplay.build_tables`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cpoker.run.blocks import blocks_of
from cpoker.game.dealing import DECK_IDS, deal_stream, stream_state
from cpoker.system.errors import Interrupted
from cpoker.strategies.policy.joint import JOINT_CELLS, add_counts, coordinate_cells, grid_of_counts
from cpoker.jobs.nearbest import NearBestMemory
from cpoker.strategies.policy import arrange_by_tables
from cpoker.strategies.policy.removal import N_FEATURES, n_buckets, quantities, strength_buckets
from cpoker.jobs.job import Runs, run_job
from cpoker.game.lookup_tables import row_categories, strength_keys
from cpoker.system.threads import in_parts

if TYPE_CHECKING:  # pragma: no cover
    from cpoker.strategies.policy import RowModel
    from cpoker.game.rules import Rules


REMOVAL_PLAYERS = 4
CPU_CHUNK = 5_000  # deals a block on a CPU (a GPU's: 50,000)
# the fewest deals, and strengths, of a part of the learning sums that a thread adds (cpoker.system.threads.in_parts):
# a part of each costs some microseconds of work a deal
DEALS_PART = 256
STRENGTHS_PART = 256
RIDGE = 1e-6  # times the sample count, added to the Gram matrix's diagonal: the features are collinear
# (the rank counts sum to 13, so do the suit counts), and the ridge picks the smallest of the equal solutions


def value_moments(moments: np.ndarray, rules: "Rules") -> np.ndarray:
    """``(Q, 3, F, S)`` int64: the row value (wins, losses) map of :class:`RowModel` applied to each histogram.

    ``moments[row, f]`` is a histogram of the opponent's row strengths weighted by feature ``f``; this is
    what the row value of each strength would sum over those samples (exactly: integer units).
    """
    totals = moments.sum(axis=2, keepdims=True)
    wins = np.cumsum(moments, axis=2) - moments
    losses = totals - wins - moments
    values = wins - losses
    if rules.royalties is not None:
        units = rules.royalties.row_array()[:, row_categories(rules.front_code)][:, None, :]  # (3, 1, S)
        paid = moments * units
        if rules.royalties.require_win:
            stronger = paid[:, :, ::-1].cumsum(axis=2)[:, :, ::-1] - paid
            values = values + units * wins - stronger
        else:
            values = values + units * totals - paid.sum(axis=2, keepdims=True)
    return np.stack([values, wins, losses][:quantities(rules)])


def learn_removal(model: "RowModel", rules: "Rules", seed: int, deals: int = 200_000,
                  progress: bool = False, device: str = "cpu", lists: "NearBestMemory | None" = None,
                  last: bool = True) -> "tuple[np.ndarray, np.ndarray | None]":
    """The correction terms of the policy of ``model`` under ``rules`` (see the module docstring), and under a
    scoring bonus the joint distribution of its rows (:mod:`cpoker.strategies.policy.joint`).

    ``deals`` deals of four hands (:func:`removal_sample` of ``seed``) are arranged by ``model``, on the
    ``device`` given (the same answers; the sums are of integers, so in any order the same).  A build learns
    the correction again after each round with it, from the same deals: with ``lists`` (a CPU's
    :class:`~cpoker.jobs.nearbest.NearBestMemory` of :func:`learning_lists`, the same for each learning) each
    hand they cover is certified from its near-best rows of the learning before where the model moved
    little, and only the others searched (the same answers); the ``last`` learning lists nothing.
    Returns ``(terms, joint)``: the terms ``(70, Q * 3 * 259)`` float32, row 0 the constant (minus the mean
    features' part), then one row per feature; columns by quantity (value, wins, losses), row (front,
    middle, back) and shape.  ``joint`` the ``(2, 17, 17, 17)`` grid of those deals' rows, in the
    coordinates of ``model``'s distribution (None under pagat scoring, which has no bonus to price).
    """

    size = len(strength_keys())
    gram = np.zeros((1 + N_FEATURES, 1 + N_FEATURES), dtype=np.int64)
    moments = np.zeros((3, 1 + N_FEATURES, size), dtype=np.int64)
    bonus = quantities(rules) > 1
    joint_counts = np.zeros((2, JOINT_CELLS, JOINT_CELLS, JOINT_CELLS), dtype=np.int64)
    cells_of = coordinate_cells(model.wins, model.losses) if bonus else None
    chunk = CPU_CHUNK if device == "cpu" else 50_000  # a GPU call: 200,000 hands

    remembering = lists is not None and device == "cpu" and lists.start_pass(model, last)

    def work(block):
        index, count = block
        dealt = removal_sample(seed, index * chunk, count)
        hands, first = np.ascontiguousarray(dealt.reshape(-1, 13)), index * chunk * REMOVAL_PLAYERS
        if remembering and lists.covers(first, len(hands)):
            _, strengths = lists.arrange_hands(hands, first)
        else:
            _, strengths = arrange_by_tables(hands, model, device)
        return dealt, strengths.reshape(count, REMOVAL_PLAYERS, 3)

    combined = [0]

    def combine(block, result):
        accumulate_removal(*result, gram, moments)
        if bonus:
            add_counts(joint_counts, cells_of, result[1])
        combined[0] += block[1]

    if run_job(Runs(progress=progress), blocks_of(deals, chunk), work, combine, lambda stopped: stopped,
               has_result=lambda: combined[0] > 0, complete=lambda: combined[0] == deals, total=deals, unit="deal",
               description="card removal", threads=False, inner=True):
        raise Interrupted()
    return removal_terms(gram, moments, rules), grid_of_counts(joint_counts) if bonus else None


def accumulate_removal(deals: np.ndarray, strengths: np.ndarray, gram: np.ndarray, moments: np.ndarray) -> None:
    """Add one block of deals to the correction's learning sums, exactly (integers), on numba's threads.

    ``deals`` ``(D, P, 13)`` card ids, ``strengths`` ``(D, P, 3)`` the dense strengths of each hand's rows as the
    policy arranged it.  Every ordered pair of seats of a deal is a sample: the features ``x`` of one hand, the
    rows ``o`` of another.  ``gram += x x^T`` (``(1 + F, 1 + F)``), ``moments[row, f, o[row]] += x_f``
    (``(3, 1 + F, S)``).

    Twice in parts side by side (:func:`cpoker.system.threads.in_parts`): the deals in ranges, each part finding its
    hands' features and adding to a Gram matrix of its own (:func:`~cpoker._kernels.removal.gram_part`), those
    then summed; then the strengths in ranges, each part adding to its own columns of ``moments``
    (:func:`~cpoker._kernels.removal.moments_part`).  The sums are integers, so neither the parts nor the
    threads change them.
    """
    from cpoker._kernels.removal import MAX_ACTIVE, gram_part, moments_part

    n_deals, players = deals.shape[0], deals.shape[1]
    hands = n_deals * players
    active = np.empty((hands, MAX_ACTIVE), dtype=np.int8)
    values = np.empty((hands, MAX_ACTIVE), dtype=np.int16)  # counts, squares, blocker weights: 180 at most
    n_active = np.empty(hands, dtype=np.int64)
    grams: list[np.ndarray] = []  # (list.append is atomic)

    def add_grams(start: int, stop: int) -> None:
        part = np.zeros_like(gram)
        gram_part(deals, start, stop, active, values, n_active, part)
        grams.append(part)

    def add_moments(low: int, high: int) -> None:
        moments_part(strengths, low, high, active, values, n_active, moments)

    in_parts(add_grams, n_deals, DEALS_PART)
    upper = np.sum(grams, axis=0)  # (in_parts runs one part at least, of no deals for none)
    gram += upper + np.triu(upper, 1).T  # the upper triangle, mirrored below
    in_parts(add_moments, moments.shape[2], STRENGTHS_PART)


def learning_lists(deals: int, memory: "int | None" = None) -> "NearBestMemory":
    """The near-best rows of the hands of a build's learnings of the correction on a CPU (:func:`learn_removal`'s
    ``lists``): those of all but its last, ``deals`` deals of four hands (the last's first ``deals`` deals), in
    ``memory`` bytes at most (default :data:`cpoker.jobs.nearbest.MEMORY_BYTES`)."""
    return NearBestMemory(REMOVAL_PLAYERS * deals, REMOVAL_PLAYERS * CPU_CHUNK, "cpu", memory)


def removal_sample(seed: int, start: int, count: int) -> np.ndarray:
    """Deals ``start .. start + count`` of the correction's sample: ``(count, 4, 13)`` sorted card ids.

    Their own PCG64 stream, derived from the build's ``seed``, so that they are not the self-play's hands.
    """

    stream = int(np.random.SeedSequence([seed, 1]).generate_state(1, np.uint64)[0] >> np.uint64(1))
    return deal_stream(*stream_state(stream, start), count, DECK_IDS, REMOVAL_PLAYERS)


def removal_terms(gram: np.ndarray, moments: np.ndarray, rules: "Rules") -> np.ndarray:
    """Least squares of the value map (:func:`value_moments`) on the features, averaged within shapes."""
    from cpoker._kernels.removal import solve_symmetric

    buckets = strength_buckets(rules.front_code)
    count = n_buckets()
    mapped = value_moments(moments, rules)  # (Q, 3, 1 + F, S)
    means = np.zeros(mapped.shape[:3] + (count,))
    # over all the shape's strengths, 3-card and 5-card, for every row: measured, this plays better than
    # averaging a front's shape over 3-card strengths only (0.0015 points a hand from a best response under
    # 2-4 scoring, against 0.0033)
    for bucket in range(count):
        inside = buckets == bucket
        means[..., bucket] = mapped[..., inside].sum(axis=-1) / float(inside.sum())
    right = np.ascontiguousarray(means.transpose(2, 0, 1, 3).reshape(1 + N_FEATURES, -1))
    matrix = gram.astype(np.float64) + RIDGE * float(gram[0, 0]) * np.eye(1 + N_FEATURES)
    slopes = solve_symmetric(matrix, right)[1:]  # row 0 is the mean hand's values: the distribution gives those
    mean_features = gram[0, 1:].astype(np.float64) / float(gram[0, 0])
    constant = np.zeros(right.shape[1])
    for f in range(N_FEATURES):  # one feature at a time, in a fixed order
        constant -= mean_features[f] * slopes[f]
    return np.vstack([constant, slopes]).astype(np.float32)
