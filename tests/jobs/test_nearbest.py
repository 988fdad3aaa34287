"""Near-best rows (cpoker.jobs.nearbest): what a search lists of a hand, what a later pass certifies from it, and
builds that use them giving the very tables of builds that do not."""

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings
from helpers import ODD_ROYALTIES, TIED_HAND, few_rank_hands, random_hands, scanned_splits, skewed_distribution
from cuda_check import memories_made

import cpoker.jobs.nearbest as nearbest
from cpoker._kernels.nearbest import (BOUND_SLACK, COLUMNS, certified_split, hand_drift, hand_drift_bound,
                                      policy_remembering_hand)
from cpoker._kernels.removal import N_FEATURES, N_SHAPES
from cpoker._kernels.policy import CORRECTIONS, policy_scratch
from cpoker._kernels.search import UNLIMITED_SEARCHES
from cpoker.game.arrangements import parse_hand
from cpoker.game.cards import cards_mask
from cpoker.strategies.policy import RowModel, default_tables
from cpoker.jobs.selfplay import build_tables
from cpoker.game.rules import PRESETS
from cpoker.game.lookup_tables import strength_keys

# the near-best lists are a build's speed-up, tested whole here in the full tier (their kernels alone take 10 s
# to compile); the default tier keeps the builds that use them (tests/jobs/test_solve.py, test_removal.py...)
pytestmark = pytest.mark.slow

RULES = {**PRESETS, "odd": ODD_ROYALTIES}


def every_row(hand, model):
    """Plain scan: ``{(front, middle, back) dense strengths: (value, lowest split)}`` over the non-fouling splits
    (under the model's front order, on its scale)."""
    splits, strengths = scanned_splits(hand, model.front_code)
    values = model.split_values(*strengths, hand)
    _, first = np.unique(strengths.T, axis=0, return_index=True)  # the lowest split of each strengths
    return {tuple(int(x) for x in strengths[:, i]): (float(values[i]), int(splits[i])) for i in first}


def listed(hand, model, delta, capacity):
    """What a search lists of ``hand``: ``(split, rows, splits, values, ceiling)``."""
    rows = np.zeros((capacity, 3), dtype=np.int16)
    splits = np.zeros(capacity, dtype=np.int32)
    values = np.zeros(capacity)
    split, *_, count, ceiling, mask = policy_remembering_hand(hand, delta, *model.search_arguments,
                                                              *policy_scratch(), UNLIMITED_SEARCHES, rows, splits,
                                                              values)
    assert mask == cards_mask(hand.tolist())
    return split, rows[:count], splits[:count], values[:count], ceiling


def random_terms(rules, seed, scale=0.1):
    """Card-removal terms with about half the features at work (:mod:`cpoker.strategies.policy.removal`'s shape)."""
    rng = np.random.default_rng(seed)
    width = (1 if rules.scoring == "pagat" else 3) * 3 * N_SHAPES
    return rng.normal(0, scale, (1 + N_FEATURES, width)) * (rng.random((1 + N_FEATURES, 1)) < 0.5)


def model_of(source, rules):
    """The model of ``rules``'s shipped distribution (with a correction: random terms and the shipped joint grid,
    if any), or of a skewed one."""
    if source == "skewed":
        return RowModel.from_distribution(skewed_distribution(3), rules)
    shipped = default_tables(rules)
    if source == "shipped":
        return RowModel.from_distribution(shipped.distribution, rules)
    return RowModel.from_distribution(shipped.distribution, rules, random_terms(rules, 8), shipped.joint)


def certify_one(rows, splits, ceiling, before, after, hand):
    """A certificate of ``hand``'s list made under ``before``, under ``after``: ``(split, front, middle, back,
    margin, leader)`` (split -1: not certified), as a build's pass reads it
    (:class:`cpoker.jobs.nearbest.NearBestMemory`), the same whether the hand's drift is summed as on a CPU or as on a
    GPU (``by_column``)."""
    old, new = nearbest.model_snapshot(before), nearbest.model_snapshot(after)
    valid = nearbest.valid_strengths()
    shape_rises, delta_terms = (nearbest.drift_by_shape(old, new, valid) if nearbest.corrected(new)
                                else (np.zeros((3, 1)), np.zeros((1, 1))))
    bounds = nearbest.drift_bounds(shape_rises, delta_terms, slope_units(after)) if nearbest.corrected(new) else (
        np.zeros((3, 1)))
    both = [certified_split(rows, splits, len(rows), ceiling, nearbest.drift(old, new, valid),
                            np.int64(cards_mask(hand.tolist())), delta_terms, shape_rises, bounds, slope_units(after),
                            *new, np.empty(CORRECTIONS), np.empty(COLUMNS, dtype=np.int32), by_column)
            for by_column in (False, True)]
    assert both[0] == both[1]
    return both[0]


def certified_as_searched(hands, lists, before, after) -> int:
    """How many of ``hands`` their ``lists`` (of :func:`listed`, made under ``before``) certify under ``after``,
    each certified split checked against a plain scan of every split under ``after``, and its margin too: it
    leads every other split by at least that (what a later pass may keep it for)."""
    certified = 0
    for hand, (_, rows, splits, _, ceiling) in zip(hands, lists):
        split, *strengths, margin, leader = certify_one(rows, splits, ceiling, before, after, hand)
        if split >= 0:
            certified += 1
            reference = every_row(hand, after)
            best_value, best_split = max((value, -split) for value, split in reference.values())
            assert split == -best_split and reference[tuple(strengths)] == (best_value, split)
            assert tuple(rows[leader]) == tuple(strengths) and splits[leader] == split and margin >= 0
            assert all(best_value - value >= margin - 1e-12 for key, (value, _) in reference.items()
                       if key != tuple(strengths))
    return certified


def slope_units(model):
    from cpoker._kernels.bonus import joint_slope

    return (model.scoop + model.majority) * joint_slope(model.joint_grid)


def mixed_joint(rules, weight):
    """The shipped joint grid of ``rules`` moved ``weight`` of the way to the other bonus preset's (a grid too)."""
    other = "1-6" if rules.scoring == "2-4" else "2-4"
    return (1 - weight) * default_tables(rules).joint + weight * default_tables(other).joint


def moved_model(rules, weight, terms=None, joint=None):
    """The model of ``rules``'s shipped distribution moved ``weight`` of the way to a skewed one; with card-removal
    ``terms`` if any, and then the joint grid moved a tenth as far under a bonus (else ``joint``)."""
    mixed = (1 - weight) * default_tables(rules).distribution + weight * skewed_distribution(9, 2)
    if terms is None:
        return RowModel.from_distribution(mixed, rules)
    return RowModel.from_distribution(mixed, rules, terms,
                                      mixed_joint(rules, weight / 10) if rules.scoring != "pagat" else joint)


def listed_as_scanned(hand, model, reference, delta, capacity) -> bool:
    """Check what a search lists of ``hand`` against ``reference`` (:func:`every_row`): distinct rows, best first
    (ties by split), each with its value and the lowest split that has it; no row left out worth more than the
    ceiling, which is at least the best value less delta, and more only when the list is full.  Whether it is."""
    best_value, best_split = max((value, -split) for value, split in reference.values())
    split, rows, splits, values, ceiling = listed(hand, model, delta, capacity)
    assert split == -best_split and splits[0] == split and values[0] == best_value
    keys = [tuple(int(x) for x in row) for row in rows]
    assert len(set(keys)) == len(keys) <= capacity
    assert [reference[key] for key in keys] == list(zip(values.tolist(), splits.tolist()))
    assert [(-v, s) for v, s in zip(values, splits)] == sorted((-v, s) for v, s in zip(values, splits))
    assert ceiling >= best_value - delta and (ceiling == best_value - delta or len(keys) == capacity)
    assert all(value <= ceiling for key, (value, _) in reference.items() if key not in keys)
    return len(keys) == capacity and ceiling > best_value - delta


@pytest.mark.parametrize("rules", list(RULES))
@pytest.mark.parametrize("source", ["shipped", "skewed", "corrected"])
def test_a_search_lists_every_row_within_delta_of_the_best_and_bounds_the_others(source, rules):
    """Against a plain scan of every split: the rows listed are distinct, best first (ties by split), each with
    its value and the lowest split that has it; no row left out is worth more than the ceiling, which is at least
    the best value less delta, and more only when the list is full: at a build's delta and capacity, and others.
    Capacity 2 makes lists overflow.  With a card-removal correction (random terms) too, each hand's values its
    own."""
    model = model_of(source, RULES[rules])
    hands = np.concatenate([parse_hand(TIED_HAND)[None, :], few_rank_hands(4, 1), random_hands(7, 2)])
    overflowed = 0
    for hand in hands:
        reference = every_row(hand, model)
        best_value, best_split = max((value, -split) for value, split in reference.values())
        for delta, capacity in ((nearbest.DELTA, nearbest.CAPACITY), (0.1, 8), (0.03, 2), (0.0, 8)):
            overflowed += listed_as_scanned(hand, model, reference, delta, capacity)
        # a pass that does not list (delta below 0) answers the same and lists nothing (count -1)
        rows = np.zeros((8, 3), dtype=np.int16)
        answer = policy_remembering_hand(hand, -1.0, *model.search_arguments, *policy_scratch(), UNLIMITED_SEARCHES,
                                         rows, np.zeros(8, dtype=np.int32), np.zeros(8))
        assert answer[0] == -best_split and answer[4] == -1 and not rows.any()
    assert overflowed


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(cards=st.lists(st.integers(0, 51), min_size=13, max_size=13, unique=True),
       rules=st.sampled_from(list(RULES)), source=st.sampled_from(["shipped", "corrected"]),
       delta=st.sampled_from([0.0, 0.02, nearbest.DELTA, 1.0, 4.0]))
def test_a_list_reaches_as_far_below_the_best_as_asked_whatever_the_hand(cards, rules, source, delta):
    """Any hand, any rules, deltas from none to deep (a list then takes splits of backs the search neither searched
    nor needed to bound for itself: it bounds them for the list, which enumerates those that may reach its floor
    with the two it searched unbounded, in increasing index): the list is the plain scan's, as above."""
    hand = np.array(sorted(cards), dtype=np.uint8)
    model = model_of(source, RULES[rules])
    reference = every_row(hand, model)
    for capacity in (nearbest.CAPACITY, 64):
        listed_as_scanned(hand, model, reference, delta, capacity)


@pytest.mark.parametrize("rules", ["pagat", "2-4", "1-6", "odd"])
@pytest.mark.parametrize("corrected", [pytest.param(False, marks=pytest.mark.slow), True])
def test_a_certified_split_is_the_search_of_the_new_model(rules, corrected):
    """Lists made under one model, certified under others nearby (by the drift between them): a split certified
    is the very split a plain scan chooses under the new model; under the same model nearly every hand is
    certified, and farther away fewer.  Corrected for card removal, the correction's terms (and the joint grid,
    under a bonus) move with the distribution, and each hand adds its own drift."""
    rules = RULES[rules]
    bonus = rules.scoring != "pagat" and corrected

    def moved(weight):
        return moved_model(rules, weight, random_terms(rules, 8) + weight * random_terms(rules, 9) if corrected
                           else None)

    before = moved(0.0)
    hands = np.concatenate([parse_hand(TIED_HAND)[None, :], few_rank_hands(5, 3), random_hands(20, 4)])
    lists = [listed(hand, before, nearbest.DELTA, nearbest.CAPACITY) for hand in hands]
    valid = nearbest.valid_strengths()
    shares = []
    for weight in (0.0, 0.01, 0.05, 0.3):
        after = moved(weight)
        rise = nearbest.drift(nearbest.model_snapshot(before), nearbest.model_snapshot(after), valid)
        moves = weight > 0 and (bonus or not corrected)  # the part of the drift common to all hands
        assert nearbest.DRIFT_SLACK < rise < np.inf if moves else rise == nearbest.DRIFT_SLACK
        shares.append(certified_as_searched(hands, lists, before, after) / len(hands))
    assert shares[0] >= 0.9 and shares[-1] < shares[0]


@pytest.mark.parametrize("rules", ["pagat", "2-4"])
def test_a_list_made_without_the_correction_is_certified_under_it_as_the_search(rules):
    """Lists made under a model without the card-removal correction (a build's self-play), certified under the
    corrected model of the same distribution (its first round with the correction), the terms scaled from a tenth
    to whole: every split certified is the one a plain scan chooses under the corrected model, and some are
    (pagat; under 2-4 the joint grid differs too)."""
    rules = RULES[rules]
    shipped = default_tables(rules)
    plain = RowModel.from_distribution(shipped.distribution, rules)
    hands = np.concatenate([parse_hand(TIED_HAND)[None, :], few_rank_hands(3, 5), random_hands(10, 6)])
    lists = [listed(hand, plain, nearbest.DELTA, nearbest.CAPACITY) for hand in hands]
    certified = sum(certified_as_searched(hands, lists, plain, RowModel.from_distribution(
        shipped.distribution, rules, scale * shipped.removal, shipped.joint)) for scale in (0.1, 1.0))
    assert certified > 0 or rules.scoring != "pagat"


def random_joint(rng, size):
    """A joint grid of ``size`` points per axis: the distribution function of random, lopsided cell masses."""
    masses = rng.random((2, *[size - 1] * 3)) ** 4
    grid = np.zeros((2, *[size] * 3))
    grid[:, 1:, 1:, 1:] = masses.cumsum(axis=1).cumsum(axis=2).cumsum(axis=3)
    return grid / grid[:, -1:, -1:, -1:]


@pytest.mark.parametrize("rules", ["2-4", "1-6", "seed001-royalties"])
def test_the_joint_grids_drift_is_the_most_any_rows_bonus_rises(rules):
    """Two joint grids of a bonus preset (the shipped one moved towards the other preset's, or towards a random
    grid): the bonus read by the kernels' own formula at random win and loss coordinates, at the grid's points
    and at the corners rises from one grid to the other by no more than the joint drift, and by all of it at the
    grid points where each side's part is extreme: the least bound that holds for every split.  The same grids
    give 0, another bonus inf."""
    from cpoker._kernels.bonus import rows_bonus_many

    rules = PRESETS[rules]
    rng = np.random.default_rng(11)
    shipped = default_tables(rules)
    size = shipped.joint.shape[1]
    points = np.arange(size) / (size - 1)
    grid = np.stack(np.meshgrid(points, points, points, indexing="ij")).reshape(3, -1)
    nowhere = np.zeros_like(grid)
    for joints in ((mixed_joint(rules, 0.1), mixed_joint(rules, 0.3)),
                   (shipped.joint, 0.8 * shipped.joint + 0.2 * random_joint(rng, size))):
        models = [RowModel.from_distribution(shipped.distribution, rules, None, joint) for joint in joints]
        before, after = (nearbest.model_snapshot(model) for model in models)
        scoop, majority = after[3:5]
        bound = nearbest.joint_drift(before, after)
        assert bound > 0.0 and nearbest.joint_drift(before, before) == 0.0

        def rise(at, models=models, scoop=scoop, majority=majority):
            out = [np.empty(at.shape[1]) for _ in models]
            for model, values in zip(models, out):
                rows_bonus_many(*at, scoop, majority, model.joint_grid, values)
            return out[1] - out[0]

        anywhere = np.concatenate([rng.random((6, 100_000)), rng.integers(0, 2, (6, 2048)).astype(float),
                                   rng.choice(points, (6, 100_000))], axis=1)
        assert rise(anywhere).max() <= bound
        wins, losses = rise(np.concatenate([grid, nowhere])), rise(np.concatenate([nowhere, grid]))
        worst = np.concatenate([grid[:, [np.argmax(wins)]], grid[:, [np.argmax(losses)]]])
        assert rise(worst)[0] == pytest.approx(bound, abs=1e-12)
    other = RowModel.from_distribution(shipped.distribution, PRESETS["1-6" if rules.scoring == "2-4" else "2-4"],
                                       None, shipped.joint)
    assert nearbest.joint_drift(before, nearbest.model_snapshot(other)) == np.inf


@pytest.mark.parametrize("rules", ["pagat", "2-4", "1-6", "seed001-royalties"])
def test_the_drift_bounds_the_rise_of_every_split(rules):
    """Random rows of valid strengths (fouling or not: the bound holds for any), valued under two models by the
    kernels' own formula: no value rises by more than the drift.  Models that price the bonus differently have
    none (inf)."""
    rules = PRESETS[rules]
    valid = nearbest.valid_strengths()
    rng = np.random.default_rng(5)
    strengths = [rng.choice(np.flatnonzero(valid[row]), 200_000) for row in range(3)]
    for seeds in ((1, 2), (3, 4)):
        models = [RowModel.from_distribution(skewed_distribution(seed, 2), rules) for seed in seeds]
        values = [model.split_values(*strengths) for model in models]
        rise = nearbest.drift(*(nearbest.model_snapshot(model) for model in models), valid)
        assert (values[1] - values[0]).max() <= rise
        assert (values[1] - values[0]).max() > 0.5 * (rise - nearbest.DRIFT_SLACK) or rules.name != "pagat"
    other = RowModel.from_distribution(skewed_distribution(1, 2), PRESETS["1-6" if rules.name == "2-4" else "2-4"])
    assert nearbest.drift(nearbest.model_snapshot(models[0]), nearbest.model_snapshot(other), valid) == np.inf


def own_drift(hand, delta_terms, shape_rises, model) -> float:
    """``hand_drift`` of ``hand``, the same bits summed as on a CPU and as on a GPU, and no more than the quick
    bound a certificate tries first (``hand_drift_bound``)."""
    mask = np.int64(cards_mask(hand.tolist()))
    both = [hand_drift(mask, delta_terms, shape_rises, slope_units(model), np.empty(CORRECTIONS), by_column)
            for by_column in (False, True)]
    assert both[0] == both[1]
    assert hand_drift_bound(mask, nearbest.drift_bounds(shape_rises, delta_terms, slope_units(model))) >= both[0]
    return both[0]


@pytest.mark.parametrize("rules", ["pagat", "2-4", "1-6", "seed001-royalties"])
def test_a_hands_drift_bounds_the_rise_of_its_splits_under_a_correction(rules):
    """Two corrected models (distributions, terms and, under a bonus, joint grids apart): for each of a few hands,
    random rows of valid strengths valued with the hand's corrections rise by no more than the common drift plus
    the hand's own (``hand_drift``), which is not vacuous.  From a model without the correction to a corrected
    one the same (terms of zero before: the hand's own drift is its whole correction); the other way, no drift.
    The hand's own drift is the same summed either way, and under its quick bound."""
    rules = PRESETS[rules]
    valid = nearbest.valid_strengths()
    rng = np.random.default_rng(6)
    strengths = [rng.choice(np.flatnonzero(valid[row]), 50_000) for row in range(3)]
    bonus = rules.scoring != "pagat"
    models = [RowModel.from_distribution(skewed_distribution(seed, 2), rules, random_terms(rules, seed),
                                         mixed_joint(rules, seed / 10) if bonus else None) for seed in (1, 2)]
    old, new = (nearbest.model_snapshot(model) for model in models)
    common = nearbest.drift(old, new, valid)
    assert (common > nearbest.DRIFT_SLACK) == bonus and nearbest.corrected(new)
    shape_rises, delta_terms = nearbest.drift_by_shape(old, new, valid)
    tightness = []
    for hand in random_hands(6, 7):
        values = [model.split_values(*strengths, hand) for model in models]
        own = own_drift(hand, delta_terms, shape_rises, models[1])
        assert (values[1] - values[0]).max() <= common + own
        tightness.append((values[1] - values[0]).max() / own)
    assert min(tightness) > 0.5 or bonus
    plain = RowModel.from_distribution(skewed_distribution(1, 2), rules, None, models[0].joint)
    before = nearbest.model_snapshot(plain)
    common = nearbest.drift(before, new, valid)
    assert common < np.inf and nearbest.drift(new, before, valid) == np.inf
    shape_rises, delta_terms = nearbest.drift_by_shape(before, new, valid)
    assert np.array_equal(delta_terms, new[6])  # the whole correction
    for hand in random_hands(4, 8):
        values = [model.split_values(*strengths, hand) for model in (plain, models[1])]
        own = own_drift(hand, delta_terms, shape_rises, models[1])
        assert (values[1] - values[0]).max() <= common + own


@pytest.mark.parametrize("rules", ["pagat", "2-4", "1-6", "seed001-royalties"])
def test_the_swing_bounds_one_splits_rise_plus_anothers_fall(rules):
    """Random rows of valid strengths valued under two models, without the correction, with it (terms, and under a
    bonus joint grids, apart), and from a model without it to one with it: the most any split rises plus the
    most any falls is no more than the swing, the part common to all hands plus, corrected, the hand's own
    (``hand_drift_bound`` of the swing's bounds, which takes each feature's largest change over the shapes both
    ways: looser), and not vacuous; from a corrected model to one without, none (inf)."""
    rules = PRESETS[rules]
    valid = nearbest.valid_strengths()
    rng = np.random.default_rng(9)
    strengths = [rng.choice(np.flatnonzero(valid[row]), 50_000) for row in range(3)]
    bonus = rules.scoring != "pagat"
    joints = [mixed_joint(rules, seed / 10) if bonus else None for seed in (1, 2)]
    plain = [RowModel.from_distribution(skewed_distribution(seed, 2), rules, None, joint)
             for seed, joint in zip((1, 2), joints)]
    corrected = [RowModel.from_distribution(skewed_distribution(seed, 2), rules, random_terms(rules, seed), joint)
                 for seed, joint in zip((1, 2), joints)]
    for models in (plain, corrected, [plain[0], corrected[1]]):
        old, new = (nearbest.model_snapshot(model) for model in models)
        common, bounds = nearbest.swing(old, new, valid)
        assert (bounds is None) == (models is plain) and common < np.inf
        for hand in random_hands(3, 10):
            values = [model.split_values(*strengths, hand) for model in models]
            swung = common + (0.0 if bounds is None else hand_drift_bound(np.int64(cards_mask(hand.tolist())),
                                                                          bounds))
            moved = (values[1] - values[0]).max() + (values[0] - values[1]).max()
            assert moved <= swung and moved > (0.5 if bounds is None and not bonus else 0.02) * swung, (moved, swung)
    assert nearbest.swing(nearbest.model_snapshot(corrected[0]), nearbest.model_snapshot(plain[1]), valid) == (
        np.inf, None)


@pytest.mark.parametrize("rules,corrected", [("pagat", False), ("pagat", True), ("2-4", True), ("odd", False)])
def test_a_split_kept_from_an_earlier_certificate_is_the_search_of_the_new_model(rules, corrected):
    """Passes over the same hands under models that move a little, then more: once certified, most hands keep
    that split while the models swing less than its margin (nothing valued), the others are certified again or
    searched, and every pass's answers and strengths are the plain policy's; a large move keeps fewer."""
    from cpoker.strategies.policy import arrange_by_tables
    from cpoker.jobs.nearbest import block_histograms
    from cpoker.game.dealing import sample_block

    rules = RULES[rules]
    shipped = default_tables(rules)

    def moved(weight):
        return moved_model(rules, weight, (1 + weight) * shipped.model.removal if corrected else None, shipped.joint)

    hands, size = 300, len(strength_keys())
    memory = nearbest.NearBestMemory(hands, hands)
    weights = (0.0, 0.0, 0.0005, 0.001, 0.0015, 0.002, 0.2)
    for number, weight in enumerate(weights):
        model = moved(weight)
        memory.start_pass(model)
        memory.listing = memory.listing or number == 0  # (a build's first pass lists nothing)
        chosen, histograms = memory.arrange(4, 0, hands)
        expected = arrange_by_tables(sample_block(4, 0, hands), model)
        assert np.array_equal(chosen, expected[0])
        assert np.array_equal(histograms, block_histograms(expected[1], size, np.zeros(hands, dtype=np.int64), 1))
    kept = memory.kept_by_pass
    assert kept[:2] == [0, 0] and min(kept[2:6]) > 0.25 * hands and kept[-1] < min(kept[2:6])
    assert all(kept <= certified for kept, (_, certified) in zip(kept, memory.by_pass))


@settings(max_examples=60, deadline=None)
@given(cards=st.lists(st.integers(0, 51), min_size=13, max_size=13, unique=True), seed=st.integers(0, 2**16),
       scale=st.sampled_from([1e-3, 0.1, 3.0]), bonus=st.booleans(), slope=st.sampled_from([0.0, 1.0, 4.5]),
       impossible=st.floats(0.0, 0.9))
def test_a_hands_quick_drift_bound_never_falls_below_its_drift(cards, seed, scale, bonus, slope, impossible):
    """Any hand, any change of terms (about half the features moving, of any size), any table rises (a share of
    the shapes impossible to a row), with or without a bonus's win and loss terms: ``hand_drift_bound`` is at
    least ``hand_drift``, summed either way (the same bits)."""
    rng = np.random.default_rng(seed)
    width = (3 if bonus else 1) * 3 * N_SHAPES
    terms = rng.normal(0, scale, (1 + N_FEATURES, width)) * (rng.random((1 + N_FEATURES, 1)) < 0.5)
    rises = rng.normal(0, scale, (3, N_SHAPES))
    rises[rng.random((3, N_SHAPES)) < impossible] = -np.inf
    mask = np.int64(cards_mask(sorted(cards)))
    both = [hand_drift(mask, terms, rises, slope, np.empty(CORRECTIONS), by_column) for by_column in (False, True)]
    assert both[0] == both[1]
    assert hand_drift_bound(mask, nearbest.drift_bounds(rises, terms, slope)) >= both[0]


@pytest.mark.parametrize("rules", ["pagat", "2-4"])
def test_a_hands_quick_drift_bound_is_its_drift_when_no_feature_moves_and_above_it_otherwise(rules):
    """``hand_drift_bound`` sums each feature's largest change over the shapes, where ``hand_drift`` takes the
    largest over shapes of their sum: equal (but for its slack) when only the constant term and the tables move,
    above it when the features move too, for hands with many and few ranks."""
    rules = PRESETS[rules]
    valid = nearbest.valid_strengths()
    models = [RowModel.from_distribution(skewed_distribution(seed, 2), rules, random_terms(rules, seed)) for seed in
              (1, 2)]
    old, new = (nearbest.model_snapshot(model) for model in models)
    shape_rises, delta_terms = nearbest.drift_by_shape(old, new, valid)
    constant_only = np.zeros_like(delta_terms)
    constant_only[0] = delta_terms[0]
    hands = np.concatenate([few_rank_hands(3, 14), random_hands(10, 15)])
    for terms, equal in ((constant_only, True), (delta_terms, False)):
        bounds = nearbest.drift_bounds(shape_rises, terms, slope_units(models[1]))
        for hand in hands:
            own = own_drift(hand, terms, shape_rises, models[1])
            bound = hand_drift_bound(np.int64(cards_mask(hand.tolist())), bounds)
            assert own + BOUND_SLACK <= bound <= own + 2 * BOUND_SLACK if equal else bound > own + BOUND_SLACK


@pytest.mark.parametrize("rules", ["pagat", "2-4"])
def test_a_correction_at_a_few_columns_has_the_bits_of_the_whole_correction(rules):
    """What a certificate reads of a hand's correction (some columns, or one at a time as a GPU sums a hand's
    drift) is, bit for bit, what the search reads (all of them), for the terms as a model holds them (float32) and
    for their changes (float64)."""
    from cpoker._kernels.removal import hand_correction, hand_correction_at, hand_correction_column, suit_counts

    rules = PRESETS[rules]
    rng = np.random.default_rng(10)
    for dtype in (np.float32, np.float64):
        terms = random_terms(rules, 11, 0.3).astype(dtype)
        width = terms.shape[1]
        for hand in np.concatenate([few_rank_hands(3, 12), random_hands(10, 13)]):
            mask = np.int64(cards_mask(hand.tolist()))
            whole = np.empty(width)
            hand_correction(mask, terms, whole)
            columns = rng.choice(width, 40, replace=False).astype(np.int32)
            some = np.full(width, np.nan)
            hand_correction_at(mask, terms, columns, 30, some)
            assert np.array_equal(some[columns[:30]], whole[columns[:30]]) and np.isnan(some).sum() == width - 30
            by_column = [hand_correction_column(mask, terms, column, *suit_counts(mask)) for column in columns]
            assert np.array_equal(by_column, whole[columns])


@pytest.mark.parametrize("rules", ["pagat", pytest.param("2-4", marks=pytest.mark.slow),
                                   pytest.param("low-a5", marks=pytest.mark.slow)])
def test_a_build_with_near_best_rows_makes_the_tables_of_one_without(monkeypatch, rules):
    """The same build four ways: every hand listed (two blocks a call); the lists covering one block of three
    (one block a call; with the correction, lists of the last pass only); every hand listed but lists kept for
    only the last 2 models and for 6 passes (the later passes search every hand); none (every hand searched in
    every pass, as the Dask backend does).  The same tables, byte for byte, three rounds with the card-removal
    correction included.  The lists do spare searches, in the rounds with the correction too, the first of them
    from lists made without it (pagat; under 2-4 their joint grids move too much), and in the learnings of the
    correction, whose deals have lists of their own where the self-play's leave room (the same deals each time).
    Every pass with the correction lists, whatever its joint grid's drift: under 2-4 the last round then certifies
    a few hands (that drift is 0.1-0.3 between this small build's rounds)."""
    options = dict(hands=1_500, seed=11, rules=rules, max_iterations=12, chunk=500, removal_deals=4_000,
                   removal_rounds=3)
    built = []
    per_hand = nearbest.bytes_per_hand(nearbest.CAPACITIES[-1])
    everything = nearbest.MEMORY_BYTES
    # memory, hands covered, hands a call, models kept (with the correction: the last pass's only in the second
    # build), passes listed, least share certified (measured: 28-50% in 12 iterations, 6-14% in the first 6 with 2
    # models kept)
    for memory, covered, group, kept, passes, share in ((everything, 1_500, 700, (256, 16), 15, 0.2),
                                                        (600 * per_hand, 500, 100, (256, 1), 15, 0.2),
                                                        (everything, 1_500, 700, (2, 16), 6, 0.03),
                                                        (0, 0, 700, (256, 16), 15, 0)):
        monkeypatch.setattr("cpoker.jobs.nearbest.MEMORY_BYTES", memory)
        monkeypatch.setattr("cpoker.jobs.selfplay.REMEMBERED_GROUP", group)
        monkeypatch.setattr("cpoker.jobs.nearbest.KEPT_MODELS", kept[0])
        monkeypatch.setattr("cpoker.jobs.nearbest.KEPT_CORRECTED", kept[1])
        monkeypatch.setattr("cpoker.jobs.nearbest.MAX_PASSES", passes)
        monkeypatch.setattr("cpoker.jobs.nearbest.LISTING_JOINT_DRIFT", np.inf)
        with memories_made() as memories:
            built.append(build_tables(**options).to_bytes())
        made, learning = memories
        assert made.size == covered
        # the learnings' 4,000 hands (1,000 deals: those of the first 3 of 4 learnings; the last's one block of 4,000
        # deals is past them), where the self-play's lists leave room
        assert learning.size == (4_000 if memory == everything else 0)
        assert learning.searched + learning.certified == 3 * learning.size
        # the first learning (without the correction) lists nothing, the second lists, the third certifies from
        # those lists (measured: 79% under pagat; none under 2-4, whose joint grids move too much)
        assert learning.certified > 0.6 * learning.size or rules == "2-4" or not learning.size
        assert made.searched + made.certified == passes * covered  # 12 passes without the correction, then 3 with
        assert made.certified > share * passes * covered or not covered
        if passes == 15 and covered:
            in_rounds = [certified for _, certified in made.by_pass[12:]]  # the first from lists made without
            if rules == "2-4":  # (measured: 59 and 14 in the last round)
                assert in_rounds[-1] > 0
            else:
                assert in_rounds[0] > 0 and sum(in_rounds) > 0.1 * covered
    assert built[0] == built[1] == built[2] == built[3]


def test_a_builds_lists_hold_as_many_rows_as_cover_every_hand_in_its_memory():
    """32 rows while the memory holds them for every hand, then 24, then 16, which cover the most hands when none
    covers them all; a memory's lists are that long and no list longer than the kernels' scratch is made."""
    most, middle, fewest = nearbest.CAPACITIES
    assert most == nearbest.CAPACITY and most > middle > fewest
    for hands in (1, 1_000, 10**8):
        for i, capacity in enumerate(nearbest.CAPACITIES):
            room = hands * nearbest.bytes_per_hand(capacity)
            assert nearbest.list_capacity(hands, room) == capacity
            assert nearbest.list_capacity(hands, room - 1) == nearbest.CAPACITIES[min(i + 1, 2)]
    assert nearbest.list_capacity(10**8, 2 << 30) == fewest  # the CPU's memory: 11.1 M hands at 16 rows
    assert nearbest.list_capacity(10**8, 150 * 2**30 // 4) == most  # a quarter of an H200's free memory
    memory = nearbest.NearBestMemory(1_000, 100, memory=1_000 * nearbest.bytes_per_hand(middle))
    assert memory.capacity == middle and memory.lists[0].shape == (1_000, middle, 3) and memory.size == 1_000
    short = nearbest.NearBestMemory(1_000, 100, memory=550 * nearbest.bytes_per_hand(fewest))
    assert short.capacity == fewest and short.size == 500
    # lists are made for whole blocks: 3 hands in blocks of 10**6 (a GPU's) take a block's memory
    assert nearbest.list_capacity(3, 10**6 * nearbest.bytes_per_hand(middle), 10**6) == middle
    few = nearbest.NearBestMemory(3, 10**6, memory=10**6 * nearbest.bytes_per_hand(middle))
    assert few.capacity == middle and few.size == 3
    with pytest.raises(ValueError, match=f"1 to {most} rows"):
        nearbest.NearBestMemory(1_000, 100, capacity=most + 1)


def test_a_gpu_pass_covers_more_hands_a_call_the_fewer_the_pass_before_searched():
    """On a GPU a call of a pass waits for its longest search and pays its launches: a late pass, which searches
    a fraction of a percent, covers a whole 10**8-hand sample in one call; an early one keeps a call's searches
    to a few seconds (a signal waits for the call); never fewer than 16 blocks of 10**6.  The CPU's calls stay."""
    from cpoker.jobs.selfplay import (MAX_REMEMBERED_GROUP_CUDA, REMEMBERED_GROUP, REMEMBERED_GROUP_CUDA,
                                      SEARCHES_A_CALL, remembered_group)

    assert remembered_group("cpu", [[5, 5], [0, 0]]) == REMEMBERED_GROUP
    assert remembered_group("cuda", [[0, 0]]) == REMEMBERED_GROUP_CUDA  # the first pass with lists
    assert remembered_group("cuda", [[10**8, 0], [0, 0]]) == REMEMBERED_GROUP_CUDA  # every hand searched
    assert remembered_group("cuda", [[7 * 10**6, 93 * 10**6], [0, 0]]) == int(SEARCHES_A_CALL / 0.07)
    late = remembered_group("cuda", [[10**6, 10**6], [2 * 10**5, 10**8 - 2 * 10**5], [0, 0]])
    assert late == MAX_REMEMBERED_GROUP_CUDA >= 10**8


@pytest.mark.parametrize("hands, chunk", [(1, 1), (1_000, 300), (1_000, 1_000), (999, 7)])
def test_the_histograms_by_block_are_each_blocks_own(hands, chunk):
    """What a pass with lists counts of its hands' strengths, by block (on the GPU, for the hands certified there),
    against each block's hands counted alone, as a pass without lists counts them."""
    from cpoker.jobs.nearbest import strength_histogram, block_histograms

    size = len(strength_keys())
    strengths = np.random.default_rng(hands + chunk).integers(0, size, (hands, 3)).astype(np.int16)
    strengths[0] = size - 1, 0, size - 1  # the extreme bins
    n_blocks = -(-hands // chunk)
    histograms = block_histograms(strengths, size, np.arange(hands) // chunk, n_blocks)
    assert histograms.shape == (n_blocks, 3, size) and histograms.dtype == np.int64
    for block in range(n_blocks):
        assert np.array_equal(histograms[block], strength_histogram(strengths[block * chunk:(block + 1) * chunk],
                                                                     size))


def test_a_workers_lists_follow_its_budget_from_one_pass_to_the_next():
    """A Dask worker's lists (:class:`~cpoker.jobs.nearbest.BlockMemory`) take its budget as it is at each pass's
    start: a smaller one (workers joined its machine) drops the last blocks' lists, which are searched again; a
    larger one makes room.  (Their answers stay the search's: ``test_dask``.)"""
    block = 500 * nearbest.bytes_per_hand(nearbest.WORKER_CAPACITY)
    memory = nearbest.BlockMemory(500, 4 * block + block // 2)  # room for 4 blocks
    model = RowModel.from_distribution(default_tables().distribution, default_tables().rules)
    assert memory.start_pass_once(model, 0, True)
    for index in (3, 0, 5, 1):
        assert memory.covers(index * 500, 500)
        memory._lists_of(index * 500, 500)
    assert not memory.covers(2 * 500, 500) and memory.covers(5 * 500, 500)  # full; block 5 is listed
    memory.budget = 2 * block
    assert sorted(memory.blocks) == [0, 1, 3, 5]  # not during a pass: its blocks may be in use
    assert memory.start_pass_once(model, 1, True)
    assert memory.size == 1_000 and sorted(memory.blocks) == [0, 1]  # the last ones dropped
    assert not memory.covers(3 * 500, 500)
    memory.budget = 3 * block
    assert memory.start_pass_once(model, 2, True) and memory.covers(3 * 500, 500)
    memory.budget = 0
    assert not memory.start_pass_once(model, 3, True) and not memory.blocks  # none: every hand is searched
