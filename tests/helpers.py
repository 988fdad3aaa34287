"""What several test files share: sample hands, slow reference formulas, markers of what a machine can do.

Test files import from here (and from :mod:`naive`, the slow reference evaluator), never from each other.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

import cpoker
from cpoker.strategies.policy import RowModel
from cpoker.strategies.policy.removal import n_buckets, strength_buckets
from cpoker.game.rules import Rules
from cpoker.game.lookup_tables import split_tables, strength_keys

PACKAGE = Path(cpoker.__file__).resolve().parent
ROOT = PACKAGE.parent


def random_hands(count: int, seed: int, size: int = 13) -> np.ndarray:
    """``count`` random sets of ``size`` distinct card ids (sorted rows)."""
    rng = np.random.default_rng(seed)
    return np.sort(np.argsort(rng.random((count, 52)), axis=1)[:, :size], axis=1).astype(np.uint8)


def few_rank_hands(count: int, seed: int) -> np.ndarray:
    """Hands of four to six ranks: many backs of one strength, so many splits of equal value."""
    rng = np.random.default_rng(seed)
    hands = []
    for _ in range(count):
        ranks = rng.choice(13, size=int(rng.integers(4, 7)), replace=False)
        pool = [13 * suit + int(rank) for rank in ranks for suit in range(4)]
        hands.append(np.sort(rng.choice(pool, 13, replace=False)))
    return np.array(hands, dtype=np.uint8)


def skewed_distribution(seed: int, power: float = 8) -> np.ndarray:
    """A random distribution over the dense strengths of each row (``power`` concentrates it on a few)."""
    from cpoker.game.lookup_tables import strength_keys

    weights = np.random.default_rng(seed).random((3, len(strength_keys()))) ** power
    return weights / weights.sum(axis=1, keepdims=True)


# a hand whose two best splits tie (backs of one strength): a bound summed in another order than the splits'
# values once fell an ulp below them and lost the tie to the later split
TIED_HAND = "As Ks Qh Jh Jd Td 8s 7d 6h 5h 4h 3h 3c"
# house rules whose back royalties are not monotone in the category: the policy's bound must still hold
ODD_ROYALTIES = Rules("2-4", {"back": {"straight": 6, "flush": 0, "full house": 1}, "front": {"pair": 1}})
N_FEATURES = 69


def flush_odds(held: int) -> float:
    """P(13 cards dealt from the 39 a hand leaves hold five or more of a suit of which the hand holds ``held``),
    by counting the complement."""
    from math import comb

    left = 13 - held
    return 1 - sum(comb(left, k) * comb(39 - left, 13 - k) for k in range(5)) / comb(39, 13)


def slow_features(hand) -> np.ndarray:
    """The 69 features of a hand, from their definition (cpoker.strategies.policy.removal's docstring)."""
    ranks = [int(card) % 13 for card in hand]
    suits = [int(card) // 13 for card in hand]
    features = np.zeros(N_FEATURES)
    for rank in range(13):
        count = ranks.count(rank)
        if count != 1:
            features[13 * {0: 0, 2: 1, 3: 2, 4: 3}[count] + rank] = 1
    counts = [suits.count(suit) for suit in range(4)]
    features[52:56] = counts
    features[56:60] = np.square(counts)
    features[60:64] = sorted(counts)
    for k, rank in enumerate((12, 11, 10, 9, 8)):  # the blockers of A, K, Q, J, T: weights in whole percents
        features[64 + k] = sum(round(100 * flush_odds(counts[suit])) for r, suit in zip(ranks, suits) if r == rank)
    return features


def slow_split_values(model: RowModel, hand, fronts, middles, backs, terms=None, shapes=None) -> np.ndarray:
    """Row values plus the hand's correction of each row's shape, and the bonus from corrected, clipped odds.

    ``terms`` and ``shapes``: other correction terms than the model's, on other shapes than today's."""
    terms = model.removal if terms is None else terms
    shapes = strength_buckets(model.front_code) if shapes is None else shapes
    if terms is None:
        corrections = np.zeros((3, 3, n_buckets()))
    else:
        corrections = terms[0] + slow_features(hand) @ terms[1:].astype(np.float64)
        corrections = corrections.reshape(-1, 3, shapes.max() + 1)
    rows = (fronts, middles, backs)
    values = [model.values[r, s] + corrections[0, r, shapes[s]] for r, s in enumerate(rows)]
    total = values[2] + values[1] + values[0]
    if model.scoop or model.majority:
        w = [np.clip(model.wins[r, s] + corrections[1, r, shapes[s]], 0, 1) for r, s in enumerate(rows)]
        lo = [np.clip(model.losses[r, s] + corrections[2, r, shapes[s]], 0, 1) for r, s in enumerate(rows)]
        total = total + slow_bonus(model, w, lo)
    return total


def slow_bonus(model: RowModel, w, lo):
    """The scoring bonus from win and loss probabilities: products for independent rows, else from the joint
    grid by the weighted sum of its eight corners (test_joint's reference)."""
    if model.joint is None:
        three = w[0] * w[1] * w[2] - lo[0] * lo[1] * lo[2]
        two = (w[0] * w[1] + w[0] * w[2] + w[1] * w[2] - 2 * w[0] * w[1] * w[2]
               - (lo[0] * lo[1] + lo[0] * lo[2] + lo[1] * lo[2] - 2 * lo[0] * lo[1] * lo[2]))
    else:
        one = np.ones_like(w[0])

        def at_least_two(side, p):
            return (slow_below(model.joint[side], p[0], p[1], one) + slow_below(model.joint[side], p[0], one, p[2])
                    + slow_below(model.joint[side], one, p[1], p[2]) - 2 * slow_below(model.joint[side], *p))

        three = slow_below(model.joint[0], *w) - slow_below(model.joint[1], *lo)
        two = at_least_two(0, w) - at_least_two(1, lo)
    return model.scoop * three + model.majority * two


def every_split(hand):
    found = cpoker.arrangements(hand)
    index = np.searchsorted(strength_keys(), np.stack([found.front_keys, found.middle_keys, found.back_keys]))
    return found, index


def scanned_splits(hand, front: int = 0):
    """Every split of ``hand`` (13 sorted ids) that does not foul when the front ranks by ``front``
    (``Rules.front_code``), in increasing split id: ``(split ids, (3, n) dense strengths of their front, middle
    and back on that order's scale)``.  A plain scan of the 72,072 splits from the evaluator's keys (a low
    front's by ``low_front_key``): under a low front only a back weaker than its middle fouls."""
    from cpoker._kernels.evaluate import low_front_key
    from cpoker.game.evaluation import evaluate_batch
    from cpoker.game.lookup_tables import strength_scale

    t = split_tables()
    hand = np.asarray(hand, dtype=np.uint8)
    keys5 = evaluate_batch(hand[t.subsets5]).astype(np.int64)
    keys3 = evaluate_batch(hand[t.subsets3]).astype(np.int64)
    if front:
        keys3 = np.array([low_front_key(int(key), front) for key in keys3], dtype=np.int64)
    back, middle, front_keys = keys5[t.splits[:, 0]], keys5[t.splits[:, 1]], keys3[t.splits[:, 2]]
    valid = np.flatnonzero((back >= middle) & (front > 0 or middle >= front_keys))
    keys = strength_scale(front).keys
    return valid, np.searchsorted(keys, np.stack([front_keys[valid], middle[valid], back[valid]]))


def slow_below(grid, u, v, w):
    """Multilinear interpolation of one side's grid, written as the weighted sum of a cell's eight corners."""
    cells = grid.shape[0] - 1
    position = [np.clip(np.asarray(a, dtype=np.float64) * cells, 0, cells) for a in (u, v, w)]
    low = [np.minimum(np.floor(p).astype(np.int64), cells - 1) for p in position]
    fraction = [p - lo for p, lo in zip(position, low)]
    total = 0.0
    for corner in itertools.product((0, 1), repeat=3):
        weight = np.prod([f if c else 1 - f for f, c in zip(fraction, corner)], axis=0)
        total = total + weight * grid[low[0] + corner[0], low[1] + corner[1], low[2] + corner[2]]
    return total


def suited_hands(n: int, seed: int) -> list:
    """13-card hands with 6 to 10 cards of one suit: flushes in many subsets and in what backs leave."""
    rng = np.random.default_rng(seed)
    hands = []
    for _ in range(n):
        suit, count = rng.integers(4), rng.integers(6, 11)
        suited = 13 * suit + rng.choice(13, size=count, replace=False)
        others = rng.choice(np.setdiff1d(np.arange(52), suited), size=13 - count, replace=False)
        hands.append(np.sort(np.r_[suited, others]).astype(np.uint8))
    return hands


def all_combinations(k: int) -> np.ndarray:
    count = {3: 22_100, 5: 2_598_960}[k]
    flat = np.fromiter((c for combo in combinations(range(52), k) for c in combo), dtype=np.uint8, count=count * k)
    return flat.reshape(count, k)


def brute_force_table_choice(hand, model):
    """Plain scan of all splits that do not foul under the model's front order (:func:`scanned_splits`): the
    first (lowest split id) with the largest value under ``model`` (a RowModel)."""
    ids = cpoker.game.arrangements.parse_hand(hand)
    split_ids, strengths = scanned_splits(ids, model.front_code)
    total = model.split_values(*strengths, ids)
    return int(split_ids[np.flatnonzero(total == total.max()).min()])


def namespaces_work() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount --bind -o ro {PACKAGE} {PACKAGE}"],
                           capture_output=True)
    return probe.returncode == 0


needs_namespaces = pytest.mark.skipif(not namespaces_work(), reason="needs unshare -rm (user and mount namespaces)")


def compiled_c_bot(source, folder) -> str:
    """``cmd:PATH`` of the C bot ``source`` compiled into ``folder`` (the test is skipped without a compiler)."""
    import shutil
    import subprocess

    import pytest

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler here")
    binary = folder / source.stem
    subprocess.run([compiler, "-O2", "-std=c99", "-Wall", "-Werror", "-o", str(binary), str(source)], check=True)
    return f"cmd:{binary}"


def flush_row(rng: np.random.Generator, width: int, suited: int) -> np.ndarray:
    """A row of ``width`` card ids in random order, ``suited`` of them (5 or more) of one random suit."""
    suit = rng.integers(4)
    ranks = 13 * suit + rng.choice(13, size=suited, replace=False)
    others = rng.choice(np.setdiff1d(np.arange(52), ranks), size=width - suited, replace=False)
    return rng.permutation(np.r_[ranks, others]).astype(np.uint8)


# docs/rules.md's worked example of a low front: three players; B's kings in front over sixes in the middle foul
# only in the high game
LOW_FRONT_EXAMPLE = ("As 2d 4c / 7c 7d 9s 5h 3d / Th Jh Qh Kh 9c",
                     "Kd Ks Qd / 6c 6d 8s 5c 2h / 9d 9h Ts Td Tc",
                     "6h 5s 3h / 8c 8d Js Qs Jd / 4d 4s 4h Ac Kc")


class RecordingHeuristic:
    """The open-face ``heuristic``, keeping every view it is shown (a strategy of a match or a hand)."""

    __name__ = "recorder"

    def __init__(self):
        self.views = []

    def __call__(self, view):
        from cpoker.strategies.ofc.heuristic import heuristic

        self.views.append(view)
        return heuristic(view)
