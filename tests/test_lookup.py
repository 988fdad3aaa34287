"""The lookup evaluator (card codes + perfect hash) against the bit-sliced kernels, and the ``out=`` argument."""

import numpy as np
import pytest
from test_evaluate import all_combinations

from cpoker import OptionError, evaluate_batch, evaluate_best_batch
from cpoker.evaluation import keys_of_masks
from cpoker.tables import build_lookup_tables, lookup_tables


def masks_of(ids: np.ndarray) -> np.ndarray:
    return (np.int64(1) << ids.astype(np.int64)).sum(axis=1)


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    return np.argsort(np.random.default_rng(seed).random((n, 52)), axis=1)[:, :k].astype(np.uint8)


def test_every_five_card_hand_gets_the_bit_sliced_key():
    hands = all_combinations(5)
    assert np.array_equal(evaluate_batch(hands), keys_of_masks(masks_of(hands), 5))


def test_every_three_card_hand_gets_the_bit_sliced_key():
    hands = all_combinations(3)
    assert np.array_equal(evaluate_batch(hands), keys_of_masks(masks_of(hands), 3))


@pytest.mark.parametrize("width", [5, 6, 7])
def test_best_of_n_lookup_agrees_with_the_bit_sliced_kernel(width):
    hands = random_hands(400_000, width, seed=width)
    keys = evaluate_best_batch(hands)
    assert np.array_equal(keys, keys_of_masks(masks_of(hands), 7))
    # flushes are rare among random hands: also check hands that all hold five or more of one suit
    rng = np.random.default_rng(width)
    flushes = []
    for _ in range(20_000):
        suit = rng.integers(4)
        suited = 13 * suit + rng.choice(13, size=rng.integers(5, width + 1), replace=False)
        others = rng.choice(np.setdiff1d(np.arange(52), suited), size=width - len(suited), replace=False)
        flushes.append(rng.permutation(np.r_[suited, others]))
    flushes = np.array(flushes, dtype=np.uint8)
    assert np.array_equal(evaluate_best_batch(flushes), keys_of_masks(masks_of(flushes), 7))


def test_every_rank_multiset_of_seven_cards_is_in_the_table():
    """Each table slot used holds the key of exactly one multiset; all 49,205 seven-card multisets are there."""
    table = lookup_tables().hashes[7]
    assert (table.values != 0).sum() == 49_205
    assert len(table.values) == table.slot_mask + 1 and (table.slot_mask & (table.slot_mask + 1)) == 0


def test_the_shipped_tables_are_rebuilt_bit_for_bit():
    shipped, rebuilt = lookup_tables(), build_lookup_tables()
    assert np.array_equal(shipped.card_codes, rebuilt.card_codes)
    assert np.array_equal(shipped.flush_keys, rebuilt.flush_keys)
    for size, table in shipped.hashes.items():
        other = rebuilt.hashes[size]
        assert table[:3] == other[:3]
        assert np.array_equal(table.displacements, other.displacements)
        assert np.array_equal(table.values, other.values)


def test_out_receives_the_keys_in_place():
    hands = random_hands(1_000, 7, seed=5)
    out = np.full(1_000, -1, dtype=np.int32)
    assert evaluate_best_batch(hands, out=out) is out
    assert np.array_equal(out, evaluate_best_batch(hands))
    five = np.full(1_000, -1, dtype=np.int32)
    evaluate_batch(hands[:, :5], out=five)
    assert np.array_equal(five, keys_of_masks(masks_of(hands[:, :5]), 5))
    masks = masks_of(hands[:, :3])
    three = np.empty(1_000, dtype=np.int32)
    from cpoker import evaluate_masks
    assert evaluate_masks(masks, 3, out=three) is three
    assert np.array_equal(three, evaluate_batch(hands[:, :3]))
    blocks = np.empty(1_000, dtype=np.int32)
    for start in range(0, 1_000, 300):
        evaluate_best_batch(hands[start:start + 300], out=blocks[start:start + 300])
    assert np.array_equal(blocks, out)


@pytest.mark.parametrize("out, message", [
    (np.empty(10, dtype=np.int64), "int32 array of shape \\(10,\\), got int64"),
    (np.empty(9, dtype=np.int32), "got int32 of shape \\(9,\\)"),
    (np.empty((10, 1), dtype=np.int32), "shape \\(10, 1\\)"),
    ([0] * 10, "got list"),
])
def test_a_wrong_out_is_refused_by_name(out, message):
    with pytest.raises(OptionError, match=message):
        evaluate_batch(random_hands(10, 5, seed=1), out=out)


def test_a_read_only_out_is_refused():
    out = np.empty(10, dtype=np.int32)
    out.flags.writeable = False
    with pytest.raises(OptionError, match="read-only"):
        evaluate_best_batch(random_hands(10, 7, seed=1), out=out)
