"""The card-removal correction: its features, its learning, and the policy's search with it."""

import numpy as np
import pytest
from hypothesis import given, settings
from helpers import (N_FEATURES, all_combinations, every_split, flush_odds, scanned_splits, slow_features,
                     slow_split_values, suited_hands)
from hypothesis import strategies as st

import cpoker
from cpoker.system.errors import OptionError
from cpoker.strategies.policy import PolicyTables, RowModel, arrange_by_tables, default_tables
from cpoker.game.arrangements import arrangement_of_split
from cpoker.game.dealing import sample_block
from cpoker.strategies.policy.removal import coarse_buckets, n_buckets, strength_buckets
from cpoker.jobs.removal_learning import learn_removal, removal_sample
from cpoker.game.rules import PRESETS
from cpoker.game.lookup_tables import strength_keys

EARLIER_FEATURES = 64  # tables files written before the blockers


@pytest.mark.parametrize("name", [name if name in ("pagat", "2-4") else pytest.param(name, marks=pytest.mark.slow)
                                  for name in PRESETS])
def test_shipped_tables_carry_a_correction_that_the_search_maximises_exactly(name):
    """The policy's branch and bound, bounds grown by the correction, picks the best of all splits by the
    slow formula (ties to the lowest split), on random hands and hands with many cards of a suit."""

    tables = default_tables(name)
    assert tables.removal is not None and tables.removal.dtype == np.float32
    model = tables.model
    hands = np.concatenate([sample_block(71, 0, 25), np.array(suited_hands(10, seed=72), dtype=np.uint8)])
    chosen, _ = arrange_by_tables(hands, model)
    for hand, split in zip(hands, chosen):
        split_ids, index = scanned_splits(hand, model.front_code)  # (a low front: every split with back >= middle)
        total = slow_split_values(model, hand, *index)
        assert np.allclose(model.split_values(*index, hand), total, rtol=0, atol=1e-12)
        best = split_ids[np.flatnonzero(total >= total.max() - 1e-12).min()]
        assert split == best
        assert cpoker.table(hand, rules=name) == arrangement_of_split(hand, int(best)).under(tables.rules.front)
    sample = sample_block(73, 0, 2_000)
    full_deck = RowModel.from_distribution(tables.distribution, tables.rules)
    changed = np.mean(arrange_by_tables(sample, model)[0] != arrange_by_tables(sample, full_deck)[0])
    assert 0.05 < changed < 0.5  # the correction changes some choices (about 1 hand in 7)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([0.01, 0.3, 3.0]),
       preset=st.sampled_from(["pagat", "2-4", "1-6"]))
def test_search_is_exact_for_any_correction(seed, scale, preset):
    """Random terms, small to larger than the row values themselves: the search still finds the exact best
    split, and ``best_distinct_splits`` (the solver's table method) the exact best shapes."""
    from cpoker._kernels.policy import best_distinct_splits
    from cpoker.jobs.solve import N_ALTERNATIVES, _distinct_best
    from cpoker.game.lookup_tables import rest_lookup_arguments, row_lookup_arguments, split_tables

    rules = PRESETS[preset]
    rng = np.random.default_rng(seed)
    width = (1 if rules.scoring == "pagat" else 3) * 3 * n_buckets()
    terms = rng.normal(0, scale, (1 + N_FEATURES, width)) * (rng.random((1 + N_FEATURES, 1)) < 0.5)
    model = RowModel.from_distribution(default_tables(rules).distribution, rules, terms)
    hand = sample_block(seed % 1000, seed // 1000 % 1000, 1)[0]
    found, index = every_split(hand)
    total = slow_split_values(model, hand, *index)
    assert np.allclose(model.split_values(*index, hand), total, rtol=0, atol=1e-9)
    chosen, _ = arrange_by_tables(hand[None, :], model)
    values = model.split_values(*index, hand)
    assert chosen[0] == found.split_ids[np.flatnonzero(values == values.max()).min()]
    t = split_tables()
    ids, kernel_values, _, n_valid = best_distinct_splits(hand, *model.kernel_arguments(), *row_lookup_arguments(),
                                                         *rest_lookup_arguments(), t.middles, t.fronts,
                                                         strength_keys(), N_ALTERNATIVES + 1)
    row_keys = np.stack([found.front_keys, found.middle_keys, found.back_keys], axis=1)
    picked = _distinct_best(np.lexsort((found.split_ids, -values)), row_keys, N_ALTERNATIVES + 1)
    assert n_valid == len(found) and ids.tolist() == found.split_ids[picked].tolist()
    assert kernel_values.tolist() == values[picked].tolist()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["pagat", "2-4"])
def test_learning_is_the_least_squares_of_the_definition(name):
    """``learn_removal`` against an independent least squares: per sample, the features of one hand of a
    deal and the mean (over each shape's strengths) of what each row of each strength gets against another
    hand's row; the fitted corrections of hands agree."""
    rules = PRESETS[name]
    model = RowModel.from_distribution(default_tables(rules).distribution, rules)
    deals = 400
    terms, joint = learn_removal(model, rules, 9, deals)
    terms = terms.astype(np.float64)
    assert (joint is None) == (name == "pagat")
    dealt = removal_sample(9, 0, deals)
    _, strengths = arrange_by_tables(dealt.reshape(-1, 13), model)
    strengths = strengths.reshape(deals, 4, 3)
    shapes = strength_buckets()
    size = len(shapes)
    # what a row of strength s gets against an opponent's row o, averaged over each shape: (o, shape)
    s, o = np.arange(size)[None, :], np.arange(size)[:, None]
    outcomes = {"values": np.sign(s - o), "wins": (s > o) * 1.0, "losses": (s < o) * 1.0}
    per_shape = {q: np.stack([np.bincount(shapes, weights=row, minlength=n_buckets()) for row in table])
                 / np.bincount(shapes) for q, table in outcomes.items()}
    quantities = ["values"] if rules.scoring == "pagat" else ["values", "wins", "losses"]
    features, targets = [], []
    for d in range(deals):
        for mine in range(4):
            for other in range(4):
                if other != mine:
                    features.append(np.concatenate([[1.0], slow_features(dealt[d, mine])]))
                    targets.append(np.concatenate([per_shape[q][strengths[d, other, r]] for q in quantities
                                                   for r in range(3)]))
    features, targets = np.array(features), np.array(targets)
    solution = np.linalg.lstsq(features, targets, rcond=None)[0]
    fitted = features @ solution
    centred = fitted - fitted.mean(axis=0)  # each hand's correction: its fit less the mean fit
    ours = terms[0] + features[:, 1:] @ terms[1:]
    assert np.abs(ours - centred).max() < 2e-3 * max(1.0, np.abs(centred).max())
    assert np.abs(centred).max() > 0.01  # not a vacuous agreement


def test_reading_tables_imports_no_numba_and_the_feature_counts_agree():
    import subprocess
    import sys

    from cpoker.strategies.policy import removal
    from cpoker._kernels import removal as kernels

    assert removal.N_FEATURES == kernels.N_FEATURES == N_FEATURES and removal.n_buckets() == kernels.N_SHAPES
    program = "import sys, cpoker; cpoker.default_tables('2-4'); print('numba' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", program], capture_output=True, text=True).stdout.strip() == "False"


def slow_shape_labels(rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The correction shape of rows from their cards, by definition: the category (read off the key) and
    the main ranks (a pair's, two pairs', trips', a full house's trips, quads', a straight's top, the wheel's
    five), a high card or a flush its two highest ranks; as one integer per row."""
    ranks = rows.astype(np.int64) % 13
    counts = np.zeros((len(rows), 13), dtype=np.int8)
    np.add.at(counts, (np.arange(len(rows))[:, None], ranks), 1)
    category = keys.astype(np.int64) >> 26
    held = np.arange(13)[None, :]
    main = np.zeros(len(rows), dtype=np.int64)
    for kind, count in ((1, 2), (2, 2), (3, 3), (6, 3), (7, 4)):
        rows_of_kind = category == kind
        main[rows_of_kind] = ((counts[rows_of_kind] == count) << held).sum(axis=1)
    highest = ranks.max(axis=1)
    wheel = (counts[:, 12] == 1) & (counts[:, 3] == 1) & (highest == 12) & (np.sort(ranks, axis=1)[:, -2] == 3)
    straight = (category == 4) | (category == 8)
    main[straight] = 1 << np.where(wheel, 3, highest)[straight]
    top_two = np.sort(ranks, axis=1)[:, -2:]
    high = (category == 0) | (category == 5)
    main[high] = ((1 << top_two[:, 0]) | (1 << top_two[:, 1]))[high]
    return (category << 13) | main


@pytest.mark.slow
def test_correction_shapes_are_their_definition_on_every_row():
    """Over all 2,598,960 five-card and 22,100 three-card rows: two rows share a correction shape exactly when
    they share the shape of the definition; 259 shapes, each refining one of the 169 of earlier tables files
    (the solver's row shapes, read here by the kernel: a high card or a flush by its top card)."""

    from cpoker._kernels.subsets import row_shape

    labels, buckets = [], []
    for size in (5, 3):
        every = all_combinations(size)
        for rows in np.array_split(every, 1 + len(every) // 300_000):
            keys = cpoker.evaluate_batch(rows)
            labels.append(slow_shape_labels(rows, keys))
            buckets.append(strength_buckets()[np.searchsorted(strength_keys(), keys)])
    labels, buckets = np.concatenate(labels), np.concatenate(buckets)
    pairs = np.unique(np.stack([labels, buckets]), axis=1)
    assert pairs.shape[1] == len(np.unique(labels)) == len(np.unique(buckets)) == n_buckets() == 259
    assert np.array_equal(np.unique(buckets), np.arange(259))  # every shape is some row's
    old = np.unique([row_shape(int(key)) for key in strength_keys()], return_inverse=True)[1]
    assert np.array_equal(coarse_buckets(), old) and old.max() + 1 == 169
    assert len(np.unique(np.stack([strength_buckets(), coarse_buckets()]), axis=1)[0]) == 259  # a refinement


@pytest.mark.slow
def test_tables_files_of_earlier_features_and_shapes_play_as_they_did(tmp_path):
    """A tables file written before the blockers and before the shapes were refined (terms of 64 features for
    169 shapes) loads, and gives every strength of every hand the correction its old terms gave it; so the
    policy plays as it did."""
    import io

    tables = default_tables("2-4")
    old = np.random.default_rng(3).normal(0, 0.02, (1 + EARLIER_FEATURES, 3 * 3 * 169)).astype(np.float32)
    with np.load(io.BytesIO(tables.to_bytes())) as data:
        arrays = {name: data[name] for name in data.files}
    np.savez(tmp_path / "old.npz", **{**arrays, "removal": old})
    loaded = PolicyTables.load(tmp_path / "old.npz")
    assert loaded.removal.shape == (1 + N_FEATURES, 3 * 3 * 259)
    hands = sample_block(8, 0, 12)
    for hand in hands:
        expected = (old[0] + slow_features(hand)[:EARLIER_FEATURES] @ old[1:].astype(np.float64)).reshape(3, 3, 169)
        got = loaded.model.hand_corrections(hand)
        assert np.allclose(got[:, :, strength_buckets()], expected[:, :, coarse_buckets()], rtol=0, atol=1e-9)
    chosen, _ = arrange_by_tables(hands, loaded.model)
    padded = np.vstack([old, np.zeros((N_FEATURES - EARLIER_FEATURES, old.shape[1]), np.float32)])
    for hand, split in zip(hands, chosen):  # the best split by the old terms on the old shapes, slowly
        found, index = every_split(hand)
        total = slow_split_values(loaded.model, hand, *index, terms=padded, shapes=coarse_buckets())
        assert split == found.split_ids[np.flatnonzero(total >= total.max() - 1e-9).min()]


def test_blockers_are_the_suits_flush_odds_of_the_high_cards():
    """Two facts of the blocker features: the ace of a suit the hand is short in weighs more than the ace of
    its long suit, and the weights are the flush odds of an opponent's 13 cards (0.45 with none of the suit
    held, none with nine held)."""
    from cpoker._kernels.removal import FLUSH_WEIGHT, _features

    hands = [cpoker.parse_cards(text) for text in ("As Kh Qh Jh Th 9h 8h 7d 6d 5c 4c 3s 2s",
                                                   "Ah Kh Qh Jh Th 9h 8h 7d 6d 5c 4c 3s 2s")]
    short, long = (slow_features(hand) for hand in hands)
    assert short[64] == 18 and long[64] == 1  # spades: 3 held; hearts: 7 held
    assert round(100 * flush_odds(0)) == 45 and flush_odds(9) == 0
    assert list(FLUSH_WEIGHT) == [round(100 * flush_odds(held)) for held in range(14)]
    for hand, slow in zip(hands, (short, long)):  # the kernel's features are the definition's
        kernel = np.zeros(1 + N_FEATURES, dtype=np.int64)
        _features(np.int64(sum(1 << int(card) for card in hand)), kernel)
        assert kernel[0] == 1 and np.array_equal(kernel[1:], slow)


def test_four_aces_make_kings_stronger():
    """A fact of card removal, read off the shipped pagat correction: with all four aces in hand, no opponent
    holds one, so a front of a pair of kings (beaten only by aces among pairs) is worth more than with one ace."""
    tables = default_tables()
    model = tables.model
    with_aces = cpoker.parse_cards("As Ah Ad Ac Ks Kh 9d 8c 7s 5h 4d 3c 2s")
    one_ace = cpoker.parse_cards("As Qh Qd Jc Ks Kh 9d 8c 7s 5h 4d 3c 2s")
    kings = int(np.searchsorted(strength_keys(), cpoker.evaluate(["Ks", "Kh", "2s"]).key))
    shape = strength_buckets()[kings]
    gain = model.hand_corrections(with_aces)[0, 0, shape] - model.hand_corrections(one_ace)[0, 0, shape]
    assert gain > 0.05


def test_tables_files_keep_the_correction_and_refuse_a_damaged_one(tmp_path):
    tables = default_tables("2-4")
    path = tmp_path / "t.npz"
    tables.save(path)
    again = PolicyTables.load(path)
    assert np.array_equal(again.removal, tables.removal) and again.fingerprint == tables.fingerprint
    without = PolicyTables(tables.distribution, tables.hands, tables.seed, tables.history, False, tables.rules)
    assert without.fingerprint != tables.fingerprint and without.model.removal is None
    # the last: an earlier pagat correction's width (169 shapes, values only), not one of these rules
    for bad in (tables.removal[:, :10], np.full_like(tables.removal, np.nan), tables.removal[:, :507]):
        with pytest.raises(OptionError, match=rf"card-removal correction.*got shape \(70, {bad.shape[1]}\)"):
            PolicyTables(tables.distribution, tables.hands, tables.seed, tables.history, False, tables.rules, None, bad)
    with np.load(path) as data:  # the terms stored as float64: not a file cpoker wrote
        arrays = {name: data[name] for name in data.files}
    np.savez(tmp_path / "doubles.npz", **{**arrays, "removal": tables.removal.astype(np.float64)})
    with pytest.raises(OptionError, match="not a cpoker tables file.*float64"):
        PolicyTables.load(tmp_path / "doubles.npz")
    np.savez(tmp_path / "short.npz", **{**arrays, "removal": tables.removal[:, :7]})
    with pytest.raises(OptionError, match="not a cpoker tables file.*card-removal"):
        PolicyTables.load(tmp_path / "short.npz")
    with pytest.raises(OptionError, match="give the hand"):
        tables.model.split_values(np.array([0]), np.array([1]), np.array([2]))


def test_house_rules_keep_the_correction_only_with_the_presets_royalties(tmp_path):
    from cpoker.game.rules import Rules

    same = Rules.from_toml_text('scoring = "2-4"\n[naturals]\n"six pairs" = 3\n', "house")
    assert same.name != "2-4" and np.array_equal(default_tables(same).removal, default_tables("2-4").removal)
    royal = Rules.from_toml_text('scoring = "2-4"\n[royalties]\nback = { "four of a kind" = 4 }\n', "house")
    assert default_tables(royal).removal is None


def test_build_learns_the_correction_last_and_can_leave_it_out(tmp_path):
    built = cpoker.build_tables(hands=300, seed=5, max_iterations=2, removal_deals=50)
    assert built.removal is not None and built.removal.shape == (1 + N_FEATURES, 777)
    again = cpoker.build_tables(hands=300, seed=5, max_iterations=2, removal_deals=50)
    assert again.to_bytes() == built.to_bytes()
    assert cpoker.build_tables(hands=300, seed=5, max_iterations=2, removal_deals=0).removal is None
    with pytest.raises(OptionError, match="removal_deals"):
        cpoker.build_tables(hands=300, removal_deals=-1)
    for rounds in (1.5, -1, 1001):
        with pytest.raises(OptionError, match="removal_rounds"):
            cpoker.build_tables(hands=300, removal_rounds=rounds)


def test_rounds_with_the_correction_play_it_and_value_rows_against_that_play(tmp_path, capsys):
    """After the self-play, each round arranges the sample with the correction (a fresh average of those
    passes is the distribution), and the terms are learned again from that play."""
    from cpoker.strategies.policy import RowModel, arrange_by_tables
    from cpoker.jobs.nearbest import strength_histogram
    from cpoker.game.dealing import sample_block
    from cpoker.jobs.removal_learning import learn_removal
    from cpoker.game.lookup_tables import strength_keys

    options = {"hands": 400, "seed": 6, "max_iterations": 3, "rules": "2-4", "removal_deals": 80}
    once = cpoker.build_tables(**options, removal_rounds=0)
    assert once.removal_rounds == () and once.removal is not None
    twice = cpoker.build_tables(**options, removal_rounds=2)
    assert twice.history == once.history and [r["round"] for r in twice.removal_rounds] == [1, 2]
    # the same two rounds, written out: the first correction is learned from a quarter of the deals
    rules, sample, size = once.rules, sample_block(6, 0, 400), len(strength_keys())
    terms, joint = learn_removal(RowModel.from_distribution(once.distribution, rules), rules, 6, 20)
    first, played = arrange_by_tables(sample, RowModel.from_distribution(once.distribution, rules, terms, joint))
    average = strength_histogram(played, size) / 400
    terms, joint = learn_removal(RowModel.from_distribution(average, rules, terms, joint), rules, 6, 20)
    second, played = arrange_by_tables(sample, RowModel.from_distribution(average, rules, terms, joint))
    average = average + (strength_histogram(played, size) / 400 - average) / 2
    # the last: all deals
    terms, joint = learn_removal(RowModel.from_distribution(average, rules, terms, joint), rules, 6, 80)
    assert np.array_equal(twice.distribution, average) and np.array_equal(twice.removal, terms)
    assert np.array_equal(twice.joint, joint) and np.array_equal(twice.model.joint, joint)
    assert twice.removal_rounds[1]["changed"] == np.count_nonzero(first != second) / 400
    assert not np.array_equal(twice.distribution, once.distribution)
    # the rounds survive a file, and the command line shows them
    from cpoker.cli import main

    twice.save(tmp_path / "t.npz")
    assert cpoker.PolicyTables.load(tmp_path / "t.npz").removal_rounds == twice.removal_rounds
    assert main(["tables", "info", str(tmp_path / "t.npz")]) == 0
    shown = capsys.readouterr().out
    assert "with card removal, round   2:" in shown and "3 iterations" in shown
    with pytest.raises(OptionError, match="round 1 of the tables' removal rounds"):
        cpoker.PolicyTables(twice.distribution, 400, 6, twice.history, False, rules, None, twice.removal,
                            ({"round": 1, "changed": 2.0},))


def test_command_line_shows_and_sizes_the_correction(capsys, tmp_path):
    import json

    from cpoker.cli import main

    assert main(["tables", "info", "--rules", "2-4"]) == 0
    assert "with a card-removal correction" in capsys.readouterr().out
    assert main(["tables", "info", "--rules", "pagat", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["card_removal"] is True
    out = tmp_path / "t.npz"
    assert main(["tables", "build", "--hands", "200", "--max-iterations", "1", "--removal-deals", "0", "--out",
                 str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["tables", "info", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["card_removal"] is False
    with pytest.raises(SystemExit) as stopped:
        main(["tables", "build", "--removal-deals", "nine", "--out", str(out)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--removal-deals" in err


@pytest.mark.parametrize("threads,part", [(1, 256), (2, 1), (2, 7), (2, 256)])
def test_learning_sums_are_the_exact_sums_of_every_pair_of_seats_in_any_number_of_parts(threads, part, monkeypatch):
    """The Gram matrix and moments that the correction is fitted from, against their definition summed in
    plain integers (features from :func:`slow_features`): the same, whatever the threads and the parts (of one
    deal and strength each, of 7, or one part of every deal and a few of the strengths)."""
    import numba

    import cpoker.jobs.removal_learning
    from cpoker.jobs.removal_learning import accumulate_removal

    monkeypatch.setattr(cpoker.jobs.removal_learning, "DEALS_PART", part)
    monkeypatch.setattr(cpoker.jobs.removal_learning, "STRENGTHS_PART", part)
    deals = 30
    dealt = removal_sample(4, 0, deals)
    _, strengths = arrange_by_tables(dealt.reshape(-1, 13), default_tables().model)
    strengths = strengths.reshape(deals, 4, 3)
    size = len(strength_keys())
    gram = np.full((1 + N_FEATURES, 1 + N_FEATURES), 7, dtype=np.int64)  # sums are added to what is there
    moments = np.full((3, 1 + N_FEATURES, size), 7, dtype=np.int64)
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        accumulate_removal(dealt, strengths, gram, moments)
    finally:
        numba.set_num_threads(previous)
    want_gram, want_moments = gram * 0 + 7, moments * 0 + 7
    for d in range(deals):
        for mine in range(4):
            x = np.concatenate([[1], slow_features(dealt[d, mine])]).astype(np.int64)
            for other in range(4):
                if other != mine:
                    want_gram += np.outer(x, x)
                    for row in range(3):
                        want_moments[row, :, strengths[d, other, row]] += x
    assert np.array_equal(gram, want_gram) and np.array_equal(moments, want_moments)
    assert np.count_nonzero(moments - 7) > 1000  # a third of the hands' rows at least
