"""Card removal: how a hand's own cards shift the opponent's rows, learned once and applied per hand.

The table policy values a row of strength ``s`` against the opponent's row
distribution of the whole game (:class:`cpoker.strategies.policy.RowModel`).  But the
opponent is dealt from the 39 cards a hand leaves: a player holding three
aces faces fewer aces, one holding six spades fewer spade flushes.  On the
hands first measured, ignoring this was most of what a best response won
against the table policy (docs/strategy-quality.md says what the
shipped correction changes).

The correction is linear in 69 features of the hand, each a small integer:
for each rank, whether the hand holds 0, 2, 3 or 4 of it (1 is the
reference); for each suit, its count and its count squared; the suit counts
sorted; and for each of the ranks A, K, Q, J, T, the hand's *blockers*: its
cards of that rank, each weighted by how likely an opponent is to hold five
cards of its suit (a suit's high cards in the hand block the opponents'
high flushes of it; :func:`cpoker._kernels.removal.blocker_feature`).
For each row, strength and feature it gives the change of the
row's value (and, under a scoring bonus, of its win and loss probabilities)
per unit of the feature away from its mean, averaged within each
*correction shape* (:func:`strength_buckets`: category and main ranks,
kickers dropped, but a high card or a flush keeps its two top cards: 259
shapes), so that the tables files stay small (160-450 KB; 7,917 strengths
would be 18 MB).

It is learned by least squares after self-play and after each round of
self-play that plays it (:mod:`cpoker.jobs.removal_learning`).  This module holds
what reading and applying it needs: the shapes, the terms' checks.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from cpoker.system.errors import OptionError
from cpoker.game.lookup_tables import strength_keys

if TYPE_CHECKING:  # pragma: no cover
    from cpoker.game.rules import Rules

N_FEATURES = 69  # as cpoker._kernels.removal, imported only where a kernel runs: reading tables needs no numba
EARLIER_FEATURES = 64  # the features of tables files written before the blockers (BLOCKER_RANKS)
SHAPE_TOP_CARDS = 2  # the cards of a high card or a flush that its correction shape keeps
COARSE_SHAPES = 169  # the shapes of tables files written before SHAPE_TOP_CARDS (one top card)


@functools.cache
def strength_buckets(front_code: int = 0) -> np.ndarray:
    """``(S,)`` int32: the correction shape (0..258) of each dense strength, shapes in strength order (the
    strengths of the scale of the front order ``front_code``, :func:`~cpoker.game.lookup_tables.strength_scale`:
    a low front's shape is its row's, a pair of fives or an eight-six high, in either order).

    A correction shape is a row's category and main ranks with kickers dropped (a pair's rank, a full
    house's trips...), except that a high card or a flush keeps its two top cards.  How much a hand's
    cards shift the odds of a flush depends on more than its top card: holding three aces, say, leaves
    an opponent few ace-high flushes, which beat an ace-seven flush but rarely an ace-king one.  Measured
    under seed001-royalties (flush backs pay 4), the top card only (169 shapes) left a best response
    +0.0036 [+0.0020, +0.0053] a hand, the two top cards +0.0027 [+0.0013, +0.0041] (same 2,000 hands);
    features of the suit lengths on top of that gained nothing, nor did a flush's third card.
    """
    if front_code:
        from cpoker.game.lookup_tables import strength_scale

        high = strength_buckets()
        buckets = high[np.searchsorted(strength_keys(), strength_scale(front_code).shape_keys)]
        buckets.flags.writeable = False
        return buckets
    return _buckets_of(row_shapes(strength_keys().astype(np.int64), SHAPE_TOP_CARDS))


@functools.cache
def coarse_buckets() -> np.ndarray:
    """``(S,)`` int32: the shapes of earlier tables files (high card and flush by their top card only,
    :data:`COARSE_SHAPES` of them), which each correction shape refines."""
    return _buckets_of(row_shapes(strength_keys().astype(np.int64)))


def row_shapes(keys: np.ndarray, top_cards: int = 1) -> np.ndarray:
    """Category and main ranks of row keys, kickers dropped; a high card or a flush keeps its ``top_cards``
    highest ranks.

    With one top card these are the shapes by which the solver shows distinct alternatives (two candidates
    differing only in which low cards sit where compare equal; :func:`cpoker._kernels.subsets.row_shape` is
    the same on one key), and the correction shapes of earlier tables files; the correction's own keep two.
    """
    category = keys >> 26
    major = (keys >> 13) & 0x1FFF
    kept = np.zeros_like(major)
    rest = major.copy()
    for _ in range(top_cards):
        highest = np.where(rest > 0, np.left_shift(1, np.floor(np.log2(np.maximum(rest, 1))).astype(np.int64)), 0)
        kept |= highest
        rest &= ~highest
    return (category << 13) | np.where((category == 0) | (category == 5), kept, major)


def _buckets_of(shapes: np.ndarray) -> np.ndarray:
    _, buckets = np.unique(shapes, return_inverse=True)
    buckets = buckets.astype(np.int32)
    buckets.flags.writeable = False
    return buckets


def n_buckets() -> int:
    return int(strength_buckets()[-1]) + 1


def refined_terms(terms: np.ndarray) -> np.ndarray:
    """Terms of an earlier tables file as the same correction on today's features and shapes.

    Files written before the blockers have ``1 + 64`` rows: the blockers' rows are zeros.  Files written
    before the two-card shapes have ``Q * 3 * 169`` columns (:func:`coarse_buckets`): each shape takes the
    columns of the coarse shape it refines.  Either way the policy plays as it did.  Terms of any other
    shape are returned as they are.
    """
    if terms.ndim != 2:
        return terms
    if terms.shape[0] == 1 + EARLIER_FEATURES:
        terms = np.vstack([terms, np.zeros((N_FEATURES - EARLIER_FEATURES, terms.shape[1]), dtype=terms.dtype)])
    width = terms.shape[1]
    if width == 0 or width % (3 * COARSE_SHAPES) or width // (3 * COARSE_SHAPES) not in (1, 3):
        return terms
    parent = np.zeros(n_buckets(), dtype=np.int64)
    parent[strength_buckets()] = coarse_buckets()
    blocks = width // COARSE_SHAPES
    columns = (np.arange(blocks)[:, None] * COARSE_SHAPES + parent[None, :]).ravel()
    return terms[:, columns]


def quantities(rules: "Rules") -> int:
    """What the correction moves: the row values (1), and under a scoring bonus their wins and losses (3)."""
    return 1 if rules.scoring == "pagat" else 3


def check_terms(terms, quantity: int, dtype=np.float64) -> np.ndarray:
    """``terms`` as a read-only ``(1 + 69, quantity * 3 * 259)`` array of finite numbers, or :class:`OptionError`.

    ``quantity`` is :func:`quantities` of the rules (1 or 3).  The terms of an earlier tables file (64
    features, or 169 shapes) are brought to today's features and shapes (:func:`refined_terms`).
    """
    width = quantity * 3 * n_buckets()
    try:
        given = np.array(terms, dtype=dtype)
    except (TypeError, ValueError):
        given = np.empty(0)
    array = refined_terms(given)
    if array.shape != (1 + N_FEATURES, width) or not np.isfinite(array).all():
        scoring = "with a scoring bonus" if quantity == 3 else "without a scoring bonus"
        raise OptionError(f"a card-removal correction {scoring} must be a finite ({1 + N_FEATURES}, {width}) array "
                          f"(or {1 + EARLIER_FEATURES} rows, or {quantity * 3 * COARSE_SHAPES} columns, from an "
                          f"earlier cpoker), got shape {given.shape}")
    array.flags.writeable = False
    return array
