"""The joint row model of the scoring bonuses (cpoker.strategies.policy.joint): its grid, how it is read, learned and
searched."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cpoker
from cpoker._kernels.bonus import bonus_ceiling, joint_below, joint_slope, rows_bonus
from cpoker.system.errors import OptionError
from cpoker.strategies.policy.joint import INDEPENDENT, JOINT_CELLS, check_joint, grid_of_counts
from cpoker.strategies.policy import PolicyTables, RowModel, arrange_by_tables, default_tables
from cpoker.game.dealing import sample_block
from cpoker.jobs.removal_learning import learn_removal, removal_sample
from cpoker.strategies.policy.removal import n_buckets
from cpoker.game.rules import PRESETS
from helpers import N_FEATURES, every_split, slow_below, slow_split_values


def random_grid(seed: int, cells: int, concentration: float) -> np.ndarray:
    """The grid of 2,000 random opponents per side, their cells drawn from a Dirichlet (small concentrations
    pile them into few cells: steep grids)."""
    rng = np.random.default_rng(seed)
    counts = np.stack([rng.multinomial(2000, rng.dirichlet(np.full(cells**3, concentration)))
                       for _ in range(2)]).reshape(2, cells, cells, cells)
    return check_joint(grid_of_counts(counts))


grids = st.builds(random_grid, st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 5, 16]),
                  st.sampled_from([0.01, 0.3, 5.0]))
probabilities = st.floats(0.0, 1.0)


def test_the_one_cell_grid_is_independent_rows():
    rng = np.random.default_rng(1)
    for u, v, w in rng.random((200, 3)):
        for side in (0, 1):
            assert joint_below(INDEPENDENT, side, u, v, w) == pytest.approx(u * v * w, abs=1e-15)
    assert joint_slope(INDEPENDENT) == 1.0
    wins, losses = rng.random(3), rng.random(3)

    def two(p):
        return p[0] * p[1] + p[0] * p[2] + p[1] * p[2] - 2 * p[0] * p[1] * p[2]

    assert rows_bonus(*wins, *losses, 3.0, 0.0, INDEPENDENT) == pytest.approx(
        3 * (np.prod(wins) - np.prod(losses)), abs=1e-14)
    assert rows_bonus(*wins, *losses, 0.0, 1.0, INDEPENDENT) == pytest.approx(two(wins) - two(losses), abs=1e-14)


@settings(max_examples=40, deadline=None)
@given(grid=grids, point=st.tuples(probabilities, probabilities, probabilities))
def test_reading_is_the_multilinear_interpolation_exact_at_the_grid_points(grid, point):
    for side in (0, 1):
        assert joint_below(grid, side, *point) == pytest.approx(float(slow_below(grid[side], *point)), abs=1e-12)
    cells = grid.shape[1] - 1
    i, j, k = (min(int(p * cells), cells) for p in point)
    assert joint_below(grid, 1, i / cells, j / cells, k / cells) == pytest.approx(grid[1, i, j, k], abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(grid=grids, wins=st.tuples(probabilities, probabilities, probabilities),
       losses=st.tuples(probabilities, probabilities, probabilities), coordinate=st.integers(0, 5),
       step=st.floats(0.0, 1.0), units=st.sampled_from([(3.0, 0.0), (0.0, 1.0), (2.0, 1.0)]))
def test_the_bonus_rises_with_wins_falls_with_losses_and_its_slope_bounds_it(grid, wins, losses, coordinate, step,
                                                                              units):
    """What the policy's search relies on: monotone in every probability, moving one by ``d`` moves the bonus
    by at most ``d`` times the grid's slope per unit (the slack of the card-removal correction), and never
    above its ceiling from the wins alone."""
    before = [*wins, *losses]
    after = list(before)
    after[coordinate] = min(1.0, before[coordinate] + step)
    low, high = rows_bonus(*before, *units, grid), rows_bonus(*after, *units, grid)
    if coordinate < 3:
        assert high >= low - 1e-12
    else:
        assert high <= low + 1e-12
    assert abs(high - low) <= sum(units) * joint_slope(grid) * (after[coordinate] - before[coordinate]) + 1e-12
    # the search skips the bonus of a split that cannot reach the best value even with this ceiling
    assert low <= bonus_ceiling(*before[:3], *units, joint_slope(grid)) + 1e-12


def test_the_learned_grid_counts_the_policys_own_rows():
    """Each grid point is the share of the learning deals' hands whose three rows' coordinates (the share of
    rows strictly weaker, or stronger, under the model's distribution) all lie below it."""
    rules = PRESETS["2-4"]
    model = RowModel.from_distribution(default_tables(rules).distribution, rules)
    deals = 300
    _, joint = learn_removal(model, rules, 9, deals)
    assert joint.shape == (2, JOINT_CELLS + 1, JOINT_CELLS + 1, JOINT_CELLS + 1)
    _, strengths = arrange_by_tables(removal_sample(9, 0, deals).reshape(-1, 13), model)
    rng = np.random.default_rng(2)
    for side, table in enumerate((model.wins, model.losses)):
        coordinates = np.stack([table[row, strengths[:, row]] for row in range(3)], axis=1)
        for i, j, k in rng.integers(0, JOINT_CELLS + 1, (40, 3)):
            below = coordinates < np.array([i, j, k]) / JOINT_CELLS
            assert joint[side, i, j, k] == np.count_nonzero(below.all(axis=1)) / len(strengths)
    # rows are not independent: a hand's rows compete for its cards
    assert abs(joint[0, 8, 8, 16] - joint[0, 8, 16, 16] * joint[0, 16, 8, 16]) > 0.01


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), grid=grids, corrected=st.booleans(), preset=st.sampled_from(["2-4", "1-6"]))
def test_the_search_is_exact_with_any_joint_model(seed, grid, corrected, preset):
    """Random grids, steep ones included, with and without a card-removal correction: the policy's branch and
    bound still picks the best split of all by the slow formula (ties to the lowest split)."""
    rules = PRESETS[preset]
    rng = np.random.default_rng(seed)
    terms = rng.normal(0, 0.3, (1 + N_FEATURES, 3 * 3 * n_buckets())) if corrected else None
    model = RowModel.from_distribution(default_tables(rules).distribution, rules, terms, grid)
    hand = sample_block(seed % 1000, seed // 1000 % 1000, 1)[0]
    found, index = every_split(hand)
    total = slow_split_values(model, hand, *index)
    values = model.split_values(*index, hand)
    assert np.allclose(values, total, rtol=0, atol=1e-9)
    chosen, _ = arrange_by_tables(hand[None, :], model)
    assert chosen[0] == found.split_ids[np.flatnonzero(values == values.max()).min()]


def test_tables_keep_the_joint_model_and_refuse_a_damaged_one(tmp_path):
    tables = default_tables("1-6")
    assert tables.joint is not None and default_tables().joint is None  # pagat has no bonus to price
    path = tmp_path / "t.npz"
    tables.save(path)
    again = PolicyTables.load(path)
    assert np.array_equal(again.joint, tables.joint) and again.fingerprint == tables.fingerprint
    assert np.array_equal(again.model.joint, tables.joint)
    fields = (tables.distribution, tables.hands, tables.seed, tables.history, False, tables.rules, None,
              tables.removal, tables.removal_rounds)
    independent = PolicyTables(*fields)
    assert independent.fingerprint != tables.fingerprint and independent.model.joint is None
    negative = np.array(tables.joint)
    negative[0, 5, 5, 5] += 0.5  # the cells around that point then have negative mass
    lifted = np.array(tables.joint)
    lifted[1, 0, 3, 3] = 0.1
    for bad, problem in ((tables.joint[:, :5], "grid"), (np.full_like(tables.joint, np.nan), "grid"),
                         (np.zeros((2, 70, 70, 70)), "grid"), (negative, "distribution function"),
                         (lifted, "distribution function"), (tables.joint * 0.5, "distribution function")):
        with pytest.raises(OptionError, match=f"joint row model must be a .*{problem}"):
            PolicyTables(*fields, bad)
        with pytest.raises(OptionError, match="joint row model"):
            RowModel.from_distribution(tables.distribution, tables.rules, joint=bad)
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    np.savez(tmp_path / "damaged.npz", **{**arrays, "joint": negative})
    with pytest.raises(OptionError, match="not a cpoker tables file.*joint row model"):
        PolicyTables.load(tmp_path / "damaged.npz")


def test_builds_learn_the_joint_model_with_the_correction_under_a_bonus_only():
    options = {"hands": 300, "seed": 5, "max_iterations": 2, "removal_deals": 60, "removal_rounds": 1}
    built = cpoker.build_tables(rules="1-6", **options)
    assert built.joint is not None and built.joint.shape == (2, 17, 17, 17)
    assert cpoker.build_tables(rules="1-6", **options).to_bytes() == built.to_bytes()
    assert cpoker.build_tables(**options).joint is None
    assert cpoker.build_tables(rules="1-6", **{**options, "removal_deals": 0}).joint is None


def test_command_line_says_which_tables_carry_a_joint_model(capsys):
    import json

    from cpoker.cli import main

    for name, expected in (("pagat", False), ("2-4", True)):
        assert main(["tables", "info", "--rules", name, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["joint_rows"] is expected
    assert main(["tables", "info", "--rules", "1-6"]) == 0
    assert "with a joint model of the opponent's rows" in capsys.readouterr().out


def test_house_rules_of_a_presets_scoring_keep_its_joint_model():
    """The joint model describes the preset's play in the coordinates of its distribution: house rules valued
    on that distribution keep it, whatever their royalties."""
    from cpoker.game.rules import Rules

    royal = Rules.from_toml_text('scoring = "1-6"\n[royalties]\nback = { "four of a kind" = 4 }\n', "house")
    tables = default_tables(royal)
    assert tables.removal is None and np.array_equal(tables.joint, default_tables("1-6").joint)
    assert np.array_equal(tables.model.joint, tables.joint)
