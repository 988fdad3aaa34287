from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, strategies as st
from helpers import all_combinations
from naive import compare, strength_of_ids

from cpoker import CardError, evaluate, evaluate_batch, evaluate_best, evaluate_best_batch, evaluate_masks
from cpoker.game.evaluation import CATEGORIES, category_of_keys
from cpoker.game.lookup_tables import strength_keys


@pytest.fixture(scope="module")
def all_five():
    hands = all_combinations(5)
    return hands, evaluate_batch(hands)


def test_every_five_card_hand_counts_per_category_and_strength(all_five):
    _, keys = all_five
    counts = np.bincount(category_of_keys(keys), minlength=9)
    expected = {"straight flush": 40, "four of a kind": 624, "full house": 3_744, "flush": 5_108,
                "straight": 10_200, "three of a kind": 54_912, "two pair": 123_552, "pair": 1_098_240,
                "high card": 1_302_540}
    assert dict(zip(CATEGORIES, counts.tolist())) == expected
    assert len(np.unique(keys)) == 7_462


def strength_order_digest(keys: np.ndarray) -> str:
    """sha256 of every hand's strength rank (0 = weakest), hands in itertools.combinations order."""
    import hashlib

    ranks = np.unique(keys, return_inverse=True)[1].astype(np.int16)
    return hashlib.sha256(ranks.tobytes()).hexdigest()


def test_the_order_of_all_hands_is_pinned(all_five):
    # a regression guard in the manner of pokerkit: any change to how hands compare changes a digest
    assert strength_order_digest(all_five[1]) == "58a501002621e55e42fe778924f3e491e3982fc354366ac6d971f832f3d79f05"
    three = evaluate_batch(all_combinations(3))
    assert strength_order_digest(three) == "2a27fb26251f8189218b54b824d5279ae9206b5b85f4e564bd678400f545dbf5"


def test_every_three_card_hand_counts_per_category_and_strength():
    keys = evaluate_batch(all_combinations(3))
    counts = np.bincount(category_of_keys(keys), minlength=9)
    assert (counts[3], counts[1], counts[0]) == (52, 3_744, 18_304)
    assert counts.sum() == 22_100 and len(np.unique(keys)) == 455


def test_strength_catalogue_is_the_union_of_both_row_sizes(all_five):
    _, keys = all_five
    keys3 = evaluate_batch(all_combinations(3))
    assert np.array_equal(strength_keys(), np.union1d(np.unique(keys), np.unique(keys3)))
    assert len(strength_keys()) == 7_917


def test_kernel_agrees_with_naive_reference_on_random_hands(all_five):
    hands, keys = all_five
    rng = np.random.default_rng(1)
    picks = rng.choice(len(hands), 3_000, replace=False)
    reference = [strength_of_ids(hands[i]) for i in picks]
    # same order on every pair of sampled hands, via sorting both ways
    by_kernel = sorted(range(len(picks)), key=lambda i: (keys[picks[i]], i))
    by_naive = sorted(range(len(picks)), key=lambda i: (reference[i], i))
    assert [keys[picks[i]] for i in by_kernel] == [keys[picks[i]] for i in by_naive]
    assert [reference[i] for i in by_kernel] == [reference[i] for i in by_naive]


@given(st.lists(st.integers(0, 51), min_size=3, max_size=3, unique=True) |
       st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True),
       st.lists(st.integers(0, 51), min_size=3, max_size=3, unique=True) |
       st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True))
def test_any_two_rows_compare_as_the_rules_say(a, b):
    kernel = compare(evaluate(a).key, evaluate(b).key)
    assert kernel == compare(strength_of_ids(a), strength_of_ids(b))
    assert (evaluate(a) < evaluate(b)) == (kernel < 0) and (evaluate(a) == evaluate(b)) == (kernel == 0)


@given(st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True), st.permutations(range(4)))
def test_suits_never_break_ties(ids, suit_order):
    relabelled = [13 * suit_order[c // 13] + c % 13 for c in ids]
    assert evaluate(ids) == evaluate(relabelled)


@pytest.mark.parametrize("lower, higher", [
    ("Ks Kh 5d", "Kc Kd 5c 4h 3s"),            # docs/rules.md §04: kickers 5,-,- lose to 5,4,3
    ("Ks Kh 5d", "Kc Kd 6c 4h 3s"),
    ("Ks Kh Ad", "Kc Kd Ac 2h 3s"),            # same pair and kicker, more kickers win
    ("Qs Qh Ad", "Kc Kd 3c 2h 4s"),            # higher pair beats more kickers
    ("7c 8d 8c 2h 2s", "7s 7h 7d"),            # middle two pair loses to front trips
    ("8s 8h 8d", "8c 9d 9c 9h 2s"),            # front trips vs middle trips of a higher rank
    ("Ks Kh Ad", "2c 2d 3c 3h 4s"),            # front pair vs middle two pair
    ("As Kd Qh", "2c 2d 3c 4h 5s"),            # front high card vs any pair
    ("As 2s 3s 4s 5d", "2c 3d 4h 5s 6c"),      # wheel is the lowest straight
    ("Qs Ks As 2s 3d", "As 2d 3c 4h 5s"),      # no wrap-around: Q-K-A-2-3 is ace high
    ("As Ks Qs Js 9s", "2c 3c 4c 5c Ac"),      # steel wheel beats any flush
])
def test_rule_boundaries(lower, higher):
    assert evaluate(lower) < evaluate(higher)
    assert compare(strength_of_ids(evaluate_ids(lower)), strength_of_ids(evaluate_ids(higher))) == -1


def evaluate_ids(text):
    from cpoker import parse_cards

    return [int(c) for c in parse_cards(text)]


def test_front_trips_against_same_middle_trips():
    assert evaluate("7s 7h 7d") < evaluate("7c 7s 7h 3d 2c")  # other player's sevens, with kickers


@pytest.mark.parametrize("cards, category, description", [
    ("As Ks Qs Js Ts", "straight flush", "royal flush"),
    ("5d 4d 3d 2d Ad", "straight flush", "straight flush, five high"),
    ("9c 9d 9h 9s 2c", "four of a kind", "four of a kind, nines, two kicker"),
    ("Kc Kd Ks 9h 9s", "full house", "full house, kings full of nines"),
    ("Ah Kh 9h 4h 2h", "flush", "flush, ace-king-nine-four-two"),
    ("Ac 2d 3h 4s 5c", "straight", "straight, five high"),
    ("7s 7h 7d Kc 2d", "three of a kind", "three of a kind, sevens, king and two kickers"),
    ("7s 7h 7d", "three of a kind", "three of a kind, sevens"),
    ("Kh Kd 9s 9c Ah", "two pair", "two pair, kings and nines, ace kicker"),
    ("2s 2h Ad", "pair", "pair of twos, ace kicker"),
    ("Ah 9c 4d", "high card", "high card, ace-nine-four"),
    ("As 3s 5s", "high card", "high card, ace-five-three"),   # no 3-card flush
    ("Qs Ks Ad", "high card", "high card, ace-king-queen"),   # no 3-card straight
])
def test_categories_and_descriptions(cards, category, description):
    value = evaluate(cards)
    assert (value.category, value.describe(), str(value)) == (category, description, description)


def test_hand_values_hash_and_order_totally():
    values = [evaluate(t) for t in ("2s 3h 4d", "Ks Kh 5d", "Kc Kd 5c 4h 3s", "Kh Kd 9s 9c Ah", "Ks Kc 5h")]
    assert values[1] == values[4] and hash(values[1]) == hash(values[4])
    assert sorted(values) == [values[0], values[1], values[4], values[2], values[3]]
    assert len(set(values)) == 4
    assert values[0] != "2s 3h 4d"
    assert values[2].strength_index > values[1].strength_index


def test_batch_forms_agree():
    hands = np.argsort(np.random.default_rng(3).random((500, 52)), axis=1)[:, :5].astype(np.uint8)
    masks = (np.int64(1) << hands.astype(np.int64)).sum(axis=1)
    keys = evaluate_batch(hands)
    assert np.array_equal(keys, evaluate_batch(masks)) and np.array_equal(keys, evaluate_masks(masks, 5))
    assert np.array_equal(evaluate_batch(hands[:, :3]), evaluate_masks(
        (np.int64(1) << hands[:, :3].astype(np.int64)).sum(axis=1), 3))
    assert [evaluate(h.tolist()).key for h in hands[:20]] == keys[:20].tolist()


@pytest.mark.parametrize("bad, message", [
    ("As Kd", "3 or 5 cards, got 2"),
    ("As Kd Qh Jc", "3 or 5 cards, got 4"),
    ("As As Kd", "duplicate card As"),
    ("As Kd Zz", "unknown rank 'Z'"),
])
def test_evaluate_rejects_bad_rows(bad, message):
    with pytest.raises(CardError, match=message):
        evaluate(bad)


def test_batch_rejects_bad_shapes():
    with pytest.raises(CardError, match="shape"):
        evaluate_batch(np.zeros((4, 4), dtype=np.uint8))
    with pytest.raises(CardError, match="0..51"):
        evaluate_batch(np.full((1, 5), 60))
    with pytest.raises(CardError, match="int64"):
        evaluate_batch(np.zeros(3, dtype=np.int32))
    with pytest.raises(CardError, match="3 or 5"):
        evaluate_masks(np.zeros(3, dtype=np.int64), 4)


def best_by_brute_force(hands: np.ndarray) -> np.ndarray:
    width = hands.shape[1]
    subsets = np.array(list(combinations(range(width), 5)))
    return evaluate_batch(hands[:, subsets].reshape(-1, 5)).reshape(len(hands), -1).max(axis=1)


@pytest.mark.parametrize("width", [5, 6, 7])
def test_best_of_n_equals_the_best_five_card_subset(width):
    hands = np.argsort(np.random.default_rng(width).random((30_000, 52)), axis=1)[:, :width].astype(np.uint8)
    keys = evaluate_best_batch(hands)
    assert np.array_equal(keys, best_by_brute_force(hands))
    masks = (np.int64(1) << hands.astype(np.int64)).sum(axis=1)
    assert np.array_equal(keys, evaluate_best_batch(masks))


@given(st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True))
def test_best_of_seven_matches_the_naive_reference(ids):
    best = max(strength_of_ids(five) for five in combinations(ids, 5))
    kernel = evaluate_best(ids)
    for five in combinations(ids, 5):
        assert compare(kernel.key, evaluate(list(five)).key) == compare(best, strength_of_ids(five))


@pytest.mark.parametrize("cards, description", [
    ("As Ks Qs Js 2d 3c Ts", "royal flush"),
    ("As 2s 3s 4s 5s 6s Kd", "straight flush, six high"),
    ("9c 9d 9h 9s Ac Kd Qh", "four of a kind, nines, ace kicker"),
    ("Kc Kd Ks 9h 9s 9d 2c", "full house, kings full of nines"),
    ("Kc Kd Ks 9h 9s Qd Qc", "full house, kings full of queens"),
    ("Ah Kh 9h 4h 2h 3h Qd", "flush, ace-king-nine-four-three"),
    ("Ac 2d 3h 4s 5c Kd Kh", "straight, five high"),
    ("Kh Kd 9s 9c 4h 4d 2c", "two pair, kings and nines, four kicker"),
    ("Ah Jd 9s 7c 5h 3d 2c", "high card, ace-jack-nine-seven-five"),
])
def test_best_of_n_descriptions(cards, description):
    assert evaluate_best(cards).describe() == description


def test_best_of_n_rejects_bad_input():
    with pytest.raises(CardError, match="5 to 7 cards, got 4"):
        evaluate_best("As Ks Qs Js")
    with pytest.raises(CardError, match="shape"):
        evaluate_best_batch(np.zeros((3, 8), dtype=np.uint8))


@pytest.mark.parametrize("n_cards,low,high", [(3, 3, 3), (5, 5, 5), (7, 5, 7)])
def test_the_masks_are_checked_on_the_evaluations_pass_and_the_first_bad_one_named(n_cards, low, high):
    """The mask paths check each mask as they evaluate it: bits above card 51, a negative mask, too few or too
    many cards; the error names the first bad mask, wherever it is, and a batch without it is evaluated."""
    rng = np.random.default_rng(n_cards)
    ids = np.argsort(rng.random((500, 52)), axis=1)[:, :high]
    masks = (np.int64(1) << ids.astype(np.int64)).sum(axis=1)
    evaluate = (lambda m: evaluate_masks(m, n_cards)) if n_cards in (3, 5) else evaluate_best_batch
    for row, bad in ((0, np.int64(1) << 52), (250, -1), (498, 1), (499, (np.int64(1) << 52) - 1)):
        broken = masks.copy()
        broken[row] = bad
        with pytest.raises(CardError, match=f"mask {row} .* is not {low if low == high else f'{low} to {high}'} cards"):
            evaluate(broken)
        assert evaluate(np.delete(broken, row)).shape == (499,)


def test_bad_ids_are_reported_before_a_bad_out():
    """Checked on the evaluation's pass or apart, the input's error comes first, as it always did."""
    from cpoker import OptionError

    ids = np.array([[1, 2, 3, 4, 4], [5, 6, 7, 8, 9]], dtype=np.uint8)
    with pytest.raises(CardError, match="row 0 repeats a card"):
        evaluate_batch(ids, out=np.empty(3, dtype=np.int32))
    with pytest.raises(OptionError, match="out must be an int32 array"):
        evaluate_batch(ids[1:], out=np.empty(3, dtype=np.int32))
    with pytest.raises(CardError, match="mask 0"):
        evaluate_masks(np.array([1, 31], dtype=np.int64), 5, out=np.empty(1, dtype=np.int32))
