"""The lookup evaluator (card codes + perfect hash) against the bit-sliced kernels, and the ``out=`` argument."""

import numpy as np
import pytest
from helpers import all_combinations, brute_force_table_choice, suited_hands

from cpoker import OptionError, evaluate_batch, evaluate_best_batch
from cpoker.game.lookup_tables import keys_of_masks
from cpoker.game.lookup_tables import build_lookup_tables, lookup_tables


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


@pytest.mark.parametrize("width", [pytest.param(5, marks=pytest.mark.slow), pytest.param(6, marks=pytest.mark.slow), 7])
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


def test_every_rank_multiset_has_its_own_slot():
    """49,205 seven-card, 18,395 six-card, 6,175 five-card and 455 three-card rank multisets, each in a slot of
    its own; the 5-card table also holds the 1,287 flushes (rank key + FLUSH_KEY_OFFSET): 7,462 five-card classes."""
    from cpoker._kernels.layout import FLUSH_KEY_OFFSET, RANK_CONSTANTS, ROW_SHIFT
    from cpoker.game.lookup_tables import _representative_masks

    tables = lookup_tables()
    constants = np.array(RANK_CONSTANTS)
    flush_keys = np.array([constants[[i for i in range(13) if r >> i & 1]].sum()
                           for r in range(1 << 13) if bin(r).count("1") == 5]) + FLUSH_KEY_OFFSET
    for size, count in ((3, 455), (5, 6_175 + 1_287), (6, 18_395), (7, 49_205)):
        table = tables.by_size[size]
        assert (table.values != 0).sum() == count
        _, words = _representative_masks(size)
        keys = ((words[:, None] >> (3 * np.arange(13))) & 7) @ constants
        keys = np.r_[keys, flush_keys] if size == 5 else keys
        slots = keys + table.displacements[keys >> ROW_SHIFT]
        assert len(np.unique(slots)) == count and slots.min() >= 0 and slots.max() < len(table.values)
        # what garbage can reach stays inside the table
        reach = np.arange(7 * RANK_CONSTANTS[-1] + 1)
        reach = np.r_[reach, reach + FLUSH_KEY_OFFSET] if size == 5 else reach
        reached = reach + table.displacements[reach >> ROW_SHIFT]
        assert reached.min() >= 0 and reached.max() < len(table.values)


@pytest.mark.slow
def test_the_rank_constants_are_found_again_and_keep_sums_apart():
    from itertools import combinations_with_replacement

    from cpoker._kernels.layout import RANK_CONSTANTS
    from cpoker.game.lookup_tables import search_rank_constants

    assert search_rank_constants() == RANK_CONSTANTS
    for size in (5, 6, 7):
        sums = [sum(RANK_CONSTANTS[r] for r in ranks) for ranks in combinations_with_replacement(range(13), size)
                if max(ranks.count(r) for r in ranks) <= 4]
        assert len(set(sums)) == len(sums)


@pytest.mark.slow
def test_the_shipped_tables_are_rebuilt_bit_for_bit():
    shipped, rebuilt = lookup_tables(), build_lookup_tables()
    assert np.array_equal(shipped.card_codes, rebuilt.card_codes)
    assert np.array_equal(shipped.flush_keys, rebuilt.flush_keys)
    for size, table in shipped.hashes.items():
        other = rebuilt.hashes[size]
        assert table[:3] == other[:3]
        assert np.array_equal(table.displacements, other.displacements)
        assert np.array_equal(table.values, other.values)
    assert np.array_equal(shipped.eval_codes, rebuilt.eval_codes)
    for size, table in shipped.by_size.items():
        assert np.array_equal(table.displacements, rebuilt.by_size[size].displacements)
        assert np.array_equal(table.values, rebuilt.by_size[size].values)


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


@pytest.mark.parametrize("width", [5, 6, 7])
def test_rows_read_at_any_address_and_from_any_layout(width):
    """The 5-card loop loads two card ids at a time (16-bit loads at odd addresses too): slices that start
    at every byte offset, and Fortran-ordered or strided input, give the same keys."""
    evaluate = evaluate_batch if width == 5 else evaluate_best_batch
    hands = random_hands(2_001, width, seed=70 + width)
    keys = keys_of_masks(masks_of(hands), 5 if width == 5 else 7)
    for start in range(8):  # rows start at byte offsets width * start: every residue mod 8 for width 5 and 7
        assert np.array_equal(evaluate(hands[start:]), keys[start:])
    assert np.array_equal(evaluate(np.asfortranarray(hands)), keys)
    assert np.array_equal(evaluate(hands[::3]), keys[::3])
    assert np.array_equal(evaluate(hands.astype(np.int64)), keys)


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


# --- the table policy's lookups: subset strengths, best five and best three of the 8 cards a back leaves

def test_subset_strengths_are_the_dense_strengths_of_the_subset_keys():
    from cpoker._kernels.subsets import subset_keys, subset_strengths
    from cpoker.game.lookup_tables import row_lookup_arguments, split_tables, strength_keys

    t, arguments = split_tables(), row_lookup_arguments()
    index5, index3 = np.empty(1287, np.int16), np.empty(286, np.int16)
    masks5, codes5 = np.empty(1287, np.int64), np.empty(1287, np.int64)
    keys5, keys3 = np.empty(1287, np.int32), np.empty(286, np.int32)
    hands = [np.sort(h) for h in random_hands(200, 13, seed=3)] + suited_hands(100, seed=4)
    for hand in hands:
        subset_strengths(hand, *arguments, index5, index3, masks5, codes5)
        subset_keys(hand, t.subsets5, t.subsets3, keys5, keys3)
        assert np.array_equal(index5, np.searchsorted(strength_keys(), keys5))
        assert np.array_equal(index3, np.searchsorted(strength_keys(), keys3))
        assert np.array_equal(masks5, masks_of(hand[t.subsets5]))


def test_best_of_eight_and_best_front_agree_with_brute_force():
    from itertools import combinations

    from cpoker._kernels.evaluate import best_front_key, best_key

    hands = list(random_hands(300, 8, seed=8)) + [h[:8] for h in suited_hands(100, seed=9)]
    hands.append(np.array([0, 13, 26, 39, 1, 14, 27, 40], dtype=np.uint8))  # two quads
    for hand in hands:
        fives = np.array(list(combinations(hand, 5)), dtype=np.uint8)
        threes = np.array(list(combinations(hand, 3)), dtype=np.uint8)
        mask = int(masks_of(hand[None, :])[0])
        assert best_key(mask) == evaluate_batch(fives).max()
        assert best_front_key(mask) == evaluate_batch(threes).max()


def test_the_eight_card_table_holds_the_best_five_and_best_three():
    from cpoker._kernels.lookup import perfect_hash_value
    from cpoker._kernels.layout import RANK_FIELD, SUIT_BIAS
    from cpoker.game.lookup_tables import REST, best_front_keys, card_codes, strength_keys

    table = lookup_tables().hashes[REST]
    hands = random_hands(3_000, 8, seed=10)
    hands = hands[[np.bincount(h // 13, minlength=4).max() < 5 for h in hands]]  # no flush: ranks decide
    codes = card_codes()[hands].sum(axis=1) + SUIT_BIAS
    packed = np.array([perfect_hash_value(int(code) & RANK_FIELD, table.multiplier, table.bucket_shift,
                                          table.slot_mask, table.displacements, table.values) for code in codes])
    masks = masks_of(hands)
    assert np.array_equal(packed >> 16, np.searchsorted(strength_keys(), keys_of_masks(masks, 8)))
    assert np.array_equal(packed & 0xFFFF, np.searchsorted(strength_keys(), best_front_keys(masks)))


def test_table_policy_on_suited_hands_equals_brute_force():

    from cpoker.strategies.policy import arrange_by_tables, default_tables

    model = default_tables().model
    hands = np.array(suited_hands(25, seed=11))
    chosen, _ = arrange_by_tables(hands, model)
    assert [brute_force_table_choice(hand, model) for hand in hands] == chosen.tolist()


@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_the_python_lookup_agrees_with_the_kernels(width):
    from cpoker.game.evaluation import key_of_ids

    hands = random_hands(20_000, width, seed=40 + width)
    if width >= 5:
        hands = np.concatenate([hands, np.array(suited_hands(500, seed=width))[:, :width]])
        hands = hands[[len(set(h)) == width for h in hands.tolist()]]
    kernel = evaluate_batch(hands) if width in (3, 5) else evaluate_best_batch(hands)
    assert [key_of_ids(h) for h in hands.tolist()] == kernel.tolist()


def test_the_shipped_strength_keys_are_rebuilt():
    from cpoker.game.lookup_tables import build_strength_keys, strength_keys

    assert np.array_equal(strength_keys(), build_strength_keys())
    assert not strength_keys().flags.writeable


def test_evaluating_one_row_never_loads_numba():
    import subprocess
    import sys

    code = ("import sys, cpoker; v = cpoker.evaluate('As Ks Qs Js Ts');"
            "b = cpoker.evaluate_best('As Ks Qs Js Ts 2d 3c');"
            "from cpoker.cli import main; main(['eval', 'Kh Kd 9s 9c Ah']);"
            "print(v.key, b.key, v.strength_index, 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "570425344 570425344 7916 False"


@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_unchecked_garbage_gives_keys_never_a_crash(width):
    """check=False promises meaningless keys for invalid ids, never a read outside the tables."""
    rng = np.random.default_rng(width)
    garbage = rng.integers(0, 256, size=(5_000, width), dtype=np.uint8)
    evaluate = evaluate_batch if width in (3, 5) else evaluate_best_batch
    assert evaluate(garbage, check=False).shape == (5_000,)


@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_the_check_finds_the_first_bad_row(width):
    from cpoker import CardError

    evaluate = evaluate_batch if width in (3, 5) else evaluate_best_batch
    # ids 52..63 and 64..255 are caught by different parts of the check; a repeat of card 51 by a carry
    for row, fault in ((0, "repeat"), (777, 52), (999, "repeat"), (998, 60), (300, 63), (301, 64), (302, 255),
                       (511, 51)):
        ids = random_hands(1_000, width, seed=row)
        if fault == 51:
            ids[row, 0], ids[row, -1], fault = 51, 51, "repeat"
        ids[row, -1] = ids[row, 0] if fault == "repeat" else fault
        message = "repeats a card" if fault == "repeat" else "must lie in 0..51"
        with pytest.raises(CardError, match=f"row {row} (repeats|is)") as error:
            evaluate(ids)
        assert message in str(error.value)
        assert evaluate(np.delete(ids, row, axis=0)).shape == (999,)  # and without that row, no complaint


@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_the_vectorised_check_finds_every_repeat_and_every_unknown_id(width):
    """The check reads 32 rows a step in vector code, and the rows its vectors would overrun one by one: a repeat
    of any two positions, and an id above 51 at any position, is found in every row of either part."""
    import itertools

    from cpoker._kernels.evaluate import GROUP_ROWS, rows_problem

    ids = random_hands(2 * GROUP_ROWS + 7, width, seed=width)  # whole groups, then the rows after them
    assert rows_problem(ids) == 0 and rows_problem(ids[:0]) == 0 and rows_problem(ids[:1]) == 0
    for row in range(len(ids)):
        for a, b in itertools.permutations(range(width), 2):
            bad = ids.copy()
            bad[row, b] = bad[row, a]
            assert rows_problem(bad), (row, a, b)
        for position, value in zip(range(width), (52, 63, 64, 255, 128, 100, 200)):
            bad = ids.copy()
            bad[row, position] = value
            assert rows_problem(bad), (row, position, value)
