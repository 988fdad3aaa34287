"""The table policy under a low front (the presets ``low-a5`` and ``low-27``).

Its strengths are those of the front order's scale (``lookup_tables.strength_scale``): every lookup of that scale
against keys computed here from the evaluator and ``low_front_key``; the policy's choice against a plain scan of
all 72,072 splits valued from those keys (no kernel of the policy's); its play, alone and against the policy of
the high game, settled as ``cpoker.settle`` settles the arrangements it names; and the refusal of tables learned
under the other order where they value arrangements.
"""

import numpy as np
import pytest
from helpers import brute_force_table_choice, random_hands, scanned_splits

import cpoker
from cpoker import Rules, RulesError, settle
from cpoker._kernels.evaluate import FRONT_LOW_27, FRONT_LOW_A5, low_front_key
from cpoker._kernels.lookup import perfect_hash_value
from cpoker.game.evaluation import evaluate_batch
from cpoker.game.lookup_tables import (REST, lookup_tables, row_keys, strength_keys, strength_scale,
                                      three_card_strengths)
from cpoker.strategies.policy import arrange_by_tables, default_tables

ORDERS = [FRONT_LOW_A5, FRONT_LOW_27]
LOW = Rules(front="low-a5")
HAND = "As Ad Kc Kd Qs Jh Th 9c 7s 6d 4h 3c 2s"


def _low_keys(keys3, order):
    return np.array([low_front_key(int(key), order) for key in keys3], dtype=np.int64)


def _ranks_mask(ranks):
    """A card mask of these ranks (0..12, each at most four times) without a flush: the k-th copy of the i-th
    distinct rank in suit (i + k) % 4."""
    mask, seen = 0, {}
    for rank in ranks:
        copies = seen.setdefault(rank, [len(seen), 0])
        mask |= 1 << (13 * ((copies[0] + copies[1]) % 4) + rank)
        copies[1] += 1
    return mask


@pytest.mark.parametrize("order", ORDERS)
def test_a_low_scale_puts_the_455_fronts_under_every_five_card_row(order):
    scale = strength_scale(order)
    high = strength_keys()
    assert len(scale.keys) == len(high) and (np.diff(scale.keys) > 0).all()
    fronts = three_card_strengths(order)
    assert fronts[:455].all() and not fronts[455:].any()
    assert np.array_equal(scale.keys[455:], np.setdiff1d(high, row_keys(3)))  # the 5-card rows, as they were
    assert np.array_equal(scale.keys[:455], np.sort(_low_keys(row_keys(3), order)))
    assert np.array_equal(scale.keys[:455], _low_keys(scale.shape_keys[:455], order))  # shape keys: the fronts'
    assert np.array_equal(scale.shape_keys[scale.from_high], high)  # from_high: a row's place on this scale
    assert strength_scale(0).rows[5] is lookup_tables().hashes["rows"].values  # the high order: the shipped


@pytest.mark.parametrize("order", ORDERS)
def test_every_row_looks_up_its_strength_on_the_scale(order):
    """Every 3-card and 5-card rank multiset (its own strength on the scale: a front's low key) and every flush."""
    from itertools import combinations_with_replacement

    scale = strength_scale(order)
    _, multiplier, shift, mask, displacements, strengths, flush_strengths = scale.rows
    for size in (3, 5):
        multisets = [r for r in combinations_with_replacement(range(13), size) if max(map(r.count, r)) <= 4]
        masks = np.array([_ranks_mask(r) for r in multisets], dtype=np.int64)
        keys = cpoker.evaluate_masks(masks, size).astype(np.int64)
        if size == 3:
            keys = _low_keys(keys, order)
        words = [sum(1 << (3 * rank) for rank in r) for r in multisets]
        found = [perfect_hash_value(word, multiplier, shift, mask, displacements, strengths) for word in words]
        assert np.array_equal(found, np.searchsorted(scale.keys, keys))
    flushes = np.array([r for r in range(1 << 13) if bin(r).count("1") >= 5])
    assert np.array_equal(flush_strengths[flushes],
                          np.searchsorted(scale.keys, lookup_tables().flush_keys[flushes]))


@pytest.mark.parametrize("order", ORDERS)
def test_the_eight_card_table_holds_the_best_five_and_the_best_low_front(order):
    """What a back leaves (8 cards, no flush): its best five and, among its 56 fronts, the best low one."""
    from cpoker._kernels.layout import RANK_FIELD, SUIT_BIAS
    from cpoker.game.lookup_tables import card_codes

    scale = strength_scale(order)
    rest = lookup_tables().hashes[REST]
    hands = random_hands(400, 20 + order, 8)
    hands = hands[[np.bincount(h // 13, minlength=4).max() < 5 for h in hands]]
    for hand in hands:
        code = int(card_codes()[hand].sum() + SUIT_BIAS) & RANK_FIELD
        packed = perfect_hash_value(code, rest.multiplier, rest.bucket_shift, rest.slot_mask, rest.displacements,
                                    scale.rest[4])
        best_five = max(evaluate_batch(hand[list(five)][None, :])[0] for five in _subsets(8, 5))
        best_front = max(_low_keys(evaluate_batch(np.array([hand[list(three)] for three in _subsets(8, 3)])),
                                   order))
        assert packed >> 16 == np.searchsorted(scale.keys, best_five)
        assert packed & 0xFFFF == np.searchsorted(scale.keys, best_front)


def _subsets(n, k):
    from itertools import combinations

    return list(combinations(range(n), k))


@pytest.mark.parametrize("name, order, count", [("low-a5", FRONT_LOW_A5, 40), ("low-27", FRONT_LOW_27, 15)])
def test_the_low_policy_plays_the_best_split_of_a_plain_scan(name, order, count):
    """The shipped tables (card-removal correction included): the branch and bound's choice, its strengths, and
    ``cpoker.table`` and the table method of ``solve``, which name its arrangement under the rules."""
    tables = default_tables(name)
    assert tables.model.front_code == order and tables.rules.front == name
    hands = random_hands(count, order)
    chosen, strengths = arrange_by_tables(hands, tables)
    keys = strength_scale(order).keys
    for hand, split, rows in zip(hands, chosen, strengths):
        assert split == brute_force_table_choice(hand, tables.model)  # (every split with back >= middle)
        split_ids, scanned = scanned_splits(hand, order)
        assert rows.tolist() == scanned[:, np.searchsorted(split_ids, split)].tolist()
    arrangement = cpoker.table(hands[0], rules=name)
    assert not arrangement.is_foul and arrangement.front_order == name
    solution = cpoker.solve(hands[0], rules=name, method="table")
    assert solution.best == arrangement
    front, middle, back = (value.key for value in arrangement.values)
    assert keys[strengths[0, 1]] == middle and keys[strengths[0, 2]] == back
    assert keys[strengths[0, 0]] == low_front_key(front, order)


def test_matches_of_the_low_policy_settle_its_arrangements_as_settlement_does():
    """Under low-a5: its own policy, and the high game's (``table@pagat``, whose splits never foul here)."""
    from cpoker.game.dealing import deal_seeded

    result = cpoker.match(["table", "table@pagat"], deals=40, seed=3, rules=LOW)
    pagat = default_tables("pagat")
    expected = 0
    for a, b in deal_seeded(np.arange(52), [[3, 0]], [40], 2):
        a, b = np.sort(a).tolist(), np.sort(b).tolist()
        for mine, theirs in ((a, b), (b, a)):
            high_play = cpoker.table(theirs, tables=pagat).under("low-a5")
            expected += settle([cpoker.table(mine, rules=LOW), high_play], LOW)[0]
    assert result.scores[0].points == pytest.approx(expected / 80)


def test_the_low_policy_at_a_high_table_fouls_where_its_front_beats_its_middle():
    from cpoker.strategies.strategy import arrange_keys

    hands = np.sort(random_hands(300, 4), axis=1)
    keys = arrange_keys("table@low-a5", hands, rules="pagat")
    low_tables = default_tables("low-a5")
    plays = [cpoker.table(hand, tables=low_tables) for hand in hands]
    fouls = np.array([play.is_foul for play in plays])
    assert 0 < fouls.sum() < len(hands)  # kings in front of a pair of queens, say
    assert (keys[fouls] == -1).all()
    assert np.array_equal(keys[~fouls], [[value.key for value in play.values] for play, foul in zip(plays, fouls)
                                         if not foul])


def test_tables_of_the_other_front_order_do_not_value_arrangements():
    for call in (lambda: cpoker.solve(HAND, rules=LOW, tables=default_tables("pagat"), method="table"),
                 lambda: cpoker.solve(HAND, rules="pagat", tables=default_tables("low-a5"), samples=10, seed=1),
                 lambda: cpoker.match(["mc", "greedy"], rules=LOW, tables=default_tables("pagat"), deals=2)):
        with pytest.raises(RulesError, match="front = .*tables learned under front = "):
            call()


def test_house_rules_with_a_low_front_value_the_low_presets_distribution(tmp_path):
    house = Rules(scoring="2-4", front="low-27")
    tables = default_tables(house)
    assert tables.rules == house and tables.removal is None and tables.model.majority == 1.0
    assert np.array_equal(tables.distribution, default_tables("low-27").distribution)
    assert tables.model.front_code == FRONT_LOW_27
    solution = cpoker.solve(HAND, rules=house, samples=20, seed=1)
    assert not solution.best.is_foul and solution.best.front_order == "low-27"


def test_exploit_under_a_low_front_gains_what_an_independent_settlement_says():
    """A hand's gain of the best response over the low-a5 policy, settled again on Arrangement objects."""
    from cpoker.game.dealing import derived_seed, sample_hands
    from cpoker.game.scoring import pair_points
    from cpoker.jobs.exploit import CHOOSE, SCORE
    from cpoker.jobs.solve import deal_opponents

    samples, seed = 60, 11
    result = cpoker.exploit("table", hands=2, samples=samples, seed=seed, rules=LOW)
    hand = sample_hands(1, seed)[0]
    best = cpoker.solve(hand.tolist(), samples=samples, seed=derived_seed(seed, 0, CHOOSE), rules=LOW).best
    own = cpoker.table(hand, rules=LOW)
    fresh = [cpoker.table(o, rules=LOW) for o in deal_opponents(hand, 1, samples, derived_seed(seed, 0, SCORE))[:, 0]]
    expected = np.mean([pair_points(best, o, LOW) - pair_points(own, o, LOW) for o in fresh])
    assert result.gains[0] == pytest.approx(expected, abs=1e-12)
    assert result.rules.name == "low-a5" and abs(result.gain) < 0.5


def test_the_solvers_alternatives_under_a_low_front_differ_by_the_fronts_own_shape():
    """Two candidates are the same choice when every row has the same shape, a front's taken from its own cards
    (a low key names no shape): kicker swaps are folded, a 6-3-2 front is not a 4-3-2 one."""
    from cpoker.strategies.policy.removal import row_shapes

    for method in ("mc", "table"):
        solution = cpoker.solve(HAND, rules=LOW, samples=2000, seed=1, method=method)
        shown = [solution.best, *(candidate.arrangement for candidate in solution.alternatives)]
        shapes = [tuple(row_shapes(np.array([value.key for value in a.values]))) for a in shown]
        assert len(shown) == 6 and len(set(shapes)) == 6
        assert len({shape[1:] for shape in shapes}) < 6  # two differ in their fronts only
