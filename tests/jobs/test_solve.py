import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import (ODD_ROYALTIES, TIED_HAND, brute_force_table_choice, few_rank_hands, random_hands,
                     skewed_distribution, suited_hands)
from naive import settle_pair

import cpoker
from cpoker import CardError, OptionError, solve
from cpoker.game.arrangements import arrangement_of_split, parse_hand
from cpoker.strategies.policy import PolicyTables, RowModel, arrange_by_tables, arrange_greedy, default_tables
from cpoker.jobs.selfplay import build_tables
from cpoker.game.dealing import sample_block, sample_hands
from cpoker.game.rules import PRESETS, Rules
from cpoker.jobs.solve import bonus_totals, deal_opponents
from cpoker.strategies.strategy import arrange_keys, resolve_strategy
from cpoker.game.lookup_tables import split_tables, strength_keys

HAND = "As Ad Kc Kd Qs Jh Th 9c 7s 6d 4h 3c 2s"


@pytest.mark.parametrize("rules", ["pagat", "1-6", "2-4", "seed001-royalties", "odd"])
@pytest.mark.parametrize("source", ["shipped", "uniform", "skewed"])
def test_table_policy_equals_brute_force_argmax(source, rules):
    rules = ODD_ROYALTIES if rules == "odd" else PRESETS[rules]
    if source == "shipped":
        distribution = default_tables(rules).distribution
    else:
        distribution = skewed_distribution(0 if source == "uniform" else 1, 1 if source == "uniform" else 8)
    model = RowModel.from_distribution(distribution, rules)
    hands = random_hands(40 if rules.name == "pagat" else 15, 21)
    chosen, strengths = arrange_by_tables(hands, model)
    for hand, split in zip(hands, chosen):
        assert split == brute_force_table_choice(hand, model)
    keys = strength_keys()[strengths]
    assert np.all(keys[:, 2] >= keys[:, 1]) and np.all(keys[:, 1] >= keys[:, 0])


@pytest.mark.parametrize("rules", ["pagat", "2-4", "odd"])
def test_table_policy_breaks_ties_as_a_plain_scan_does(rules):
    model = default_tables(ODD_ROYALTIES if rules == "odd" else PRESETS[rules]).model
    hands = np.concatenate([parse_hand(TIED_HAND)[None, :], few_rank_hands(25, 8)])
    chosen, _ = arrange_by_tables(hands, model)
    for hand, split in zip(hands, chosen):
        assert split == brute_force_table_choice(hand, model)


@pytest.mark.parametrize("rules", ["pagat", "2-4"])
def test_a_search_budget_gives_a_hand_up_or_answers_as_without_one(rules):
    """A GPU's first launch searches a few backs a hand at most (``cuda.SEARCH_BUDGET``), then arranges the hands
    it gave up in a second launch without a budget: under a budget the kernel answers split -1 or the very split it
    finds without one, gives up a hand only if it gave it up under every smaller budget, and none under the CPU's."""
    from cpoker._kernels.search import UNLIMITED_SEARCHES
    from cpoker._kernels.policy import policy_scratch, table_policy_hand

    model = default_tables(rules).model
    hands = np.concatenate([random_hands(120, 5), few_rank_hands(30, 6)])
    expected, expected_strengths = arrange_by_tables(hands, model)
    scratch = policy_scratch()
    given_up = []
    for budget in (1, 2, 4, 16, UNLIMITED_SEARCHES):
        answers = np.array([table_policy_hand(hand, *model.search_arguments, *scratch, budget) for hand in hands])
        over = answers[:, 0] < 0
        assert np.array_equal(answers[~over, 0], expected[~over])
        assert np.array_equal(answers[~over, 1:], expected_strengths[~over]) and not answers[over, 1:].any()
        given_up.append(over)
    assert given_up[0].any() and not given_up[-1].any()
    for smaller, larger in zip(given_up, given_up[1:]):
        assert not (larger & ~smaller).any()


@pytest.mark.parametrize("rules", ["pagat", "2-4", "1-6", "seed001-royalties"])
def test_table_of_one_hand_is_the_batch_policy(rules):
    """``cpoker.table(hand)`` (its own one-hand kernel) answers as the batch kernel, rows and strengths alike."""
    hands = np.concatenate([random_hands(150, 77), few_rank_hands(30, 9)])
    chosen, strengths = arrange_by_tables(hands, default_tables(rules))
    keys = strength_keys()[strengths]
    for hand, split, row_keys in zip(hands, chosen, keys):
        arrangement, evaluated = cpoker.table(hand, rules=rules), arrangement_of_split(hand, int(split))
        assert arrangement == evaluated and not arrangement.is_foul
        # the row values it carries (from the kernel's strengths) are those of its cards
        assert [v.key for v in arrangement.values] == [v.key for v in evaluated.values] == row_keys.tolist()


def test_table_reads_every_form_of_a_hand_alike_and_compiles_for_none():
    """A batch's row goes straight to the one-hand kernel, which checks the ids itself; any other form (out of
    order, read-only, strided, another integer type, a list, text) is read by the general reader first, and a
    bad hand is refused by it with its message.  The kernel keeps its one compiled type throughout."""
    from cpoker._kernels.packed import table_policy_one

    hand = random_hands(1, 5)[0]
    expected = cpoker.table(hand)
    shuffled = np.random.default_rng(0).permutation(hand)
    read_only = hand.copy()
    read_only.flags.writeable = False
    strided = np.repeat(hand, 2)[::2]
    for form in (shuffled, read_only, strided, hand.astype(np.int64), hand.tolist(), expected.format().replace("/", ""),
                 np.ascontiguousarray(hand[::-1])):
        assert cpoker.table(form) == expected
    for bad, message in ((np.r_[hand[:12], 52].astype(np.uint8), "outside 0..51"),
                         (np.r_[hand[:12], hand[11]].astype(np.uint8), "duplicate card"),
                         (hand[:12], "a hand has 13 cards")):
        with pytest.raises(CardError, match=message):
            cpoker.table(bad)
    assert len(table_policy_one.signatures) == 1


@pytest.mark.parametrize("change, message", [
    ({"values": np.zeros((3, 5))}, "values must be a finite"),
    ({"wins": "high"}, "wins must be a finite"),
    ({"bounds": "shifted"}, "never decrease and never fall below"),
    ({"values": "decreasing"}, "values decrease somewhere"),
    ({"losses": "above one"}, "losses must be probabilities"),
    ({"scoop": -3.0}, "scoop must be a finite number"),
    ({"majority": float("inf")}, "majority must be a finite number"),
])
def test_row_models_that_would_mislead_the_search_are_refused(change, message):
    """The kernels read a model's tables unchecked and prune with its bounds: a model is checked when made."""
    model = default_tables("2-4").model
    fields = {"values": model.values, "bounds": model.bounds, "wins": model.wins, "losses": model.losses,
              "scoop": model.scoop, "majority": model.majority}
    replacement = {"high": None, "shifted": model.bounds - 0.5, "decreasing": model.values[:, ::-1].copy(),
                   "above one": model.losses + 1.0}
    for name, value in change.items():
        fields[name] = replacement.get(value, value) if isinstance(value, str) else value
        if name == "values" and isinstance(value, str):
            fields["bounds"] = fields["values"]  # the search's form for values it takes to be monotone
    with pytest.raises(OptionError, match=message):
        RowModel(**fields)


@pytest.mark.parametrize("rules", ["pagat", "odd"])
def test_rest_best_is_the_best_middle_and_front_that_eight_ranks_make(rules):
    """The policy's 8-card bound, from evaluating every split of 8 cards with the public ``evaluate``."""
    from itertools import combinations

    from cpoker._kernels.lookup import perfect_hash_slot
    from cpoker.game.lookup_tables import rest_lookup_arguments

    model = RowModel.from_distribution(skewed_distribution(4), ODD_ROYALTIES if rules == "odd" else PRESETS[rules])
    keys, rng = strength_keys(), np.random.default_rng(9)
    checked = 0
    while checked < 60:
        cards = rng.choice(52, 8, replace=False)
        if np.bincount(cards // 13, minlength=4).max() >= 5:
            continue  # five of a suit: the bound is not used there
        strength = {c: int(np.searchsorted(keys, cpoker.evaluate([int(x) for x in c]).key))
                    for size in (3, 5) for c in combinations(sorted(cards), size)}
        best = max(model.values[1, strength[middle]] + model.values[0, strength[front]]
                   for front in combinations(sorted(cards), 3)
                   for middle in [tuple(x for x in sorted(cards) if x not in front)]
                   if strength[middle] >= strength[front])
        word = int(sum(1 << (3 * (int(card) % 13)) for card in cards))
        stored = float(model.rest_best[perfect_hash_slot(word, *rest_lookup_arguments()[:4])])
        assert best <= stored <= best + 1e-6 * max(1.0, abs(best))
        checked += 1


@pytest.mark.parametrize("rules", ["pagat", "1-6", "2-4", "seed001-royalties", "odd", "no require_win"])
def test_row_model_is_the_expected_settlement_against_independent_rows(rules):
    """Against an opponent whose rows are independent draws, a split's model value is its exact expected
    settlement: summed over every opponent triple, weighted, by the scoring kernel itself."""
    from cpoker._kernels.scoring import pair_points_batch

    if rules == "no require_win":
        rules = Rules.from_toml_text('scoring = "1-6"\n[royalties]\nrequire_win = false\n'
                                     'back = { "straight flush" = 5, "four of a kind" = 2 }\n'
                                     'front = { "three of a kind" = 3 }\n')
    else:
        rules = ODD_ROYALTIES if rules == "odd" else PRESETS[rules]
    keys = strength_keys()
    rows = {  # nested supports (every front below every middle below every back): no opponent triple fouls
        0: ["Kh 7d 2c", "8s 8d 3c", "5s 5d 5c"],
        1: ["8h 8c 8d Kd 2c", "9s 8s 5s 4s 2s", "Th Tc Td 3s 3c", "6s 6d 6c 6h 2c"],
        2: ["7s 7d 7c 7h Kd", "9h 8h 7h 6h 5h", "Ah Kh Qh Jh Th"],
    }
    support = [np.searchsorted(keys, [cpoker.evaluate(cards).key for cards in rows[r]]) for r in range(3)]
    rng = np.random.default_rng(3)
    distribution = np.zeros((3, len(keys)))
    for r in range(3):
        distribution[r, support[r]] = rng.dirichlet(np.ones(len(support[r])))
    model = RowModel.from_distribution(distribution, rules)
    triples = np.array(np.meshgrid(*support, indexing="ij")).reshape(3, -1).T  # (n, 3) strengths
    weights = distribution[0, triples[:, 0]] * distribution[1, triples[:, 1]] * distribution[2, triples[:, 2]]
    theirs = keys[triples].astype(np.int32)
    for ours in triples[::3]:  # ours share the supports, so ties happen
        mine = np.repeat(keys[ours][None, :].astype(np.int32), len(theirs), axis=0)
        expected = float(weights @ pair_points_batch(mine, theirs, *rules.kernel_arguments()))
        assert model.split_values(*ours) == pytest.approx(expected, abs=1e-12)
    assert (np.diff(model.arrays[1], axis=1) >= 0).all()
    assert (model.arrays[1] >= model.arrays[0]).all()


def test_greedy_takes_the_strongest_back_then_middle_and_never_fouls():
    hands = random_hands(300, 5)
    chosen, strengths = arrange_greedy(hands)
    keys = strength_keys()[strengths]
    assert np.all(keys[:, 2] >= keys[:, 1]) and np.all(keys[:, 1] >= keys[:, 0])
    splits = split_tables().splits
    for hand, split in zip(hands[:30], chosen[:30]):
        found = cpoker.arrangements(hand)
        same_back = splits[found.split_ids, 0] == splits[split, 0]  # the back subset greedy took
        arrangement = arrangement_of_split(hand, int(split))
        assert arrangement.back_value.key == found.back_keys.max()
        assert arrangement.middle_value.key == found.middle_keys[same_back].max()
    assert not cpoker.greedy(HAND).is_foul


def numpy_sample_block(seed: int, start: int, count: int) -> np.ndarray:
    """The sample's definition in NumPy: the 13 cards with the smallest of 52 PCG64 doubles, in card order."""
    bit_generator = np.random.PCG64(seed)
    bit_generator.advance(52 * start)
    uniforms = np.random.Generator(bit_generator).random((count, 52))
    return np.sort(np.argpartition(uniforms, 13, axis=1)[:, :13], axis=1).astype(np.uint8)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63), start=st.one_of(st.integers(0, 10**4), st.integers(0, 10**12)),
       count=st.integers(0, 600))
def test_sample_blocks_are_numpys_stream(seed, start, count):
    """The kernel steps PCG64 itself (128-bit arithmetic in halves, jump-ahead): the very hands NumPy deals."""
    assert np.array_equal(sample_block(seed, start, count), numpy_sample_block(seed, start, count))


def test_sample_blocks_tile_the_sample_and_sample_hands_is_its_start():
    whole = sample_block(2026, 0, 1_500)
    assert np.array_equal(whole, numpy_sample_block(2026, 0, 1_500))
    assert np.array_equal(np.concatenate([sample_block(2026, 0, 700), sample_block(2026, 700, 800)]), whole)
    assert np.array_equal(sample_hands(1_500, 2026), whole)
    excluded = sample_hands(50, 3, exclude=np.array([0, 51]))  # a smaller deck: NumPy's path
    assert excluded.shape == (50, 13) and not np.isin(excluded, [0, 51]).any()


def test_table_builds_are_bit_for_bit_reproducible(tmp_path):
    first = build_tables(hands=300, seed=4, max_iterations=3, removal_deals=300, removal_rounds=2)
    second = build_tables(hands=300, seed=4, max_iterations=3, removal_deals=300, removal_rounds=2)
    other = build_tables(hands=300, seed=5, max_iterations=3, removal_deals=300, removal_rounds=2)
    first.save(tmp_path / "a.npz")
    second.save(tmp_path / "b.npz")
    other.save(tmp_path / "c.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    assert (tmp_path / "a.npz").read_bytes() != (tmp_path / "c.npz").read_bytes()
    loaded = PolicyTables.load(tmp_path / "a.npz")
    assert np.array_equal(loaded.row_values, first.row_values) and loaded.history == first.history
    assert [step["iteration"] for step in first.history] == [1, 2, 3]
    with pytest.raises(OptionError):
        build_tables(hands=0)


def test_a_large_samples_first_iterations_play_its_first_hands(monkeypatch):
    """``played_hands``: WARMUP_HANDS, twice as many each iteration, until the whole sample; a build's history
    against a plain fictitious play written here: a greedy start and best responses on the sample's first hands,
    each response the share of those hands' rows at each strength, averaged in; a split changed only among the
    hands played before."""
    from cpoker.jobs.selfplay import played_hands

    monkeypatch.setattr("cpoker.jobs.selfplay.WARMUP_HANDS", 200)
    played = [200, 400, 800, 900, 900]
    assert [played_hands(900, iteration) for iteration in range(1, 6)] == played
    assert played_hands(150, 1) == 150 and played_hands(10**8, 200) == 10**8
    built = build_tables(hands=900, seed=6, max_iterations=5, tolerance=0, removal_deals=0, chunk=300)
    sample, size = sample_hands(900, 6), len(strength_keys())

    def response(strengths):
        return np.stack([np.bincount(strengths[:, row], minlength=size) for row in range(3)]) / len(strengths)

    last, strengths = arrange_greedy(sample[:200])
    average, changed = response(strengths), []
    for iteration, hands in enumerate(played, 1):
        chosen, strengths = arrange_by_tables(sample[:hands], RowModel.from_distribution(average))
        average = response(strengths) if iteration == 1 else average + (response(strengths) - average) / iteration
        changed.append(np.count_nonzero(chosen[:len(last)] != last) / len(last))
        last = chosen
    assert np.array_equal(built.distribution, average)
    assert [step["changed"] for step in built.history] == [1.0, *changed[1:]]


def test_shipped_tables_are_distributions_with_monotone_values():
    tables = default_tables()
    assert np.allclose(tables.distribution.sum(axis=1), 1.0) and (tables.distribution >= 0).all()
    assert (np.diff(tables.row_values, axis=1) >= 0).all()
    three_card = np.isin(strength_keys(), cpoker.evaluate_batch(random_hands(3000, 2, size=3)))
    assert tables.distribution[0, ~np.isin(np.arange(len(strength_keys())),
                                           np.flatnonzero(three_card))].sum() <= 1.0
    history = tables.history
    assert tables.hands >= 10_000 and history[-1]["changed"] < 0.01 < history[1]["changed"]


def test_solve_is_reproducible_and_never_fouls():
    first, again = solve(HAND, samples=300, seed=11), solve(HAND, samples=300, seed=11)
    assert first.best == again.best and first.ev == again.ev and first.stderr == again.stderr
    assert not first.best.is_foul and first.stderr > 0 and first.seed == 11
    assert all(first.ev >= alt.ev for alt in first.alternatives) and len(first.alternatives) == 5
    rows = first.row_probabilities
    assert all(abs(sum(rows[name].values()) - 1) < 1e-12 for name in ("front", "middle", "back"))
    assert solve(HAND, samples=50).seed is not None  # a drawn seed is recorded
    assert solve(list(reversed(HAND.split())), samples=300, seed=11).best == first.best  # order-free


def test_solve_ev_equals_an_independent_settlement_of_the_same_samples():
    samples, seed = 40, 3
    solution = solve(HAND, opponents=2, samples=samples, seed=seed)
    dealt = deal_opponents(parse_hand(HAND), 2, samples, seed)
    best = solution.best.rows
    total = 0
    for sample in dealt:
        for opponent_hand in sample:
            theirs = cpoker.table(opponent_hand.tolist())
            total += settle_pair(best, theirs.rows)
    assert solution.ev == pytest.approx(total / samples, abs=1e-12)


@pytest.mark.parametrize("rules, opponents", [("pagat", 2), ("2-4", 1)])
def test_what_a_compared_arrangement_costs_is_the_paired_difference_on_the_same_samples(rules, opponents):
    """EV lost and its standard error, against an independent settlement of the very samples."""
    from cpoker.game.scoring import pair_points

    samples, seed = 60, 5
    first = solve(HAND, opponents=opponents, samples=samples, seed=seed, rules=rules)
    mine = first.alternatives[2].arrangement
    solution = solve(HAND, opponents=opponents, samples=samples, seed=seed, rules=rules, compare=mine)
    assert (solution.best, solution.ev, solution.stderr) == (first.best, first.ev, first.stderr)  # unchanged
    dealt = deal_opponents(parse_hand(HAND), opponents, samples, seed)
    best_points, my_points = np.zeros(samples), np.zeros(samples)
    for s, sample in enumerate(dealt):
        for opponent_hand in sample:
            theirs = cpoker.table(opponent_hand.tolist(), rules=rules)
            best_points[s] += pair_points(solution.best, theirs, rules)
            my_points[s] += pair_points(mine, theirs, rules)
    difference = best_points - my_points
    assert solution.compared.ev == pytest.approx(my_points.mean(), abs=1e-12)
    assert solution.compared.stderr == pytest.approx(my_points.std(ddof=1) / np.sqrt(samples), rel=1e-9)
    assert solution.ev_lost == pytest.approx(difference.mean(), abs=1e-12) and solution.ev_lost > 0
    assert solution.ev_lost_stderr == pytest.approx(difference.std(ddof=1) / np.sqrt(samples), rel=1e-9)
    low, high = solution.ev_lost_interval
    assert low < solution.ev_lost < high
    # the pairing is the point: the difference is known far better than either EV
    assert solution.ev_lost_stderr < min(solution.stderr, solution.compared.stderr)
    data = solution.to_dict()["compared"]
    assert data["ev_lost"] == solution.ev_lost and data["ev_lost_interval_95"] == [low, high]
    assert set(data["arrangement"]["rows"]) == {"front", "middle", "back"} and data["row_probabilities"]


def test_numpy_integers_are_taken_as_the_numbers_they_hold():
    """np.int8 opponents used to overflow in the sample arithmetic (2,000,000 // opponents)."""
    small = solve(HAND, samples=np.int16(300), seed=np.int64(4), opponents=np.int8(3))
    assert small.opponents == 3 and type(small.opponents) is int and small.samples == 300
    assert small.ev == solve(HAND, samples=300, seed=4, opponents=3).ev


def test_time_budgets_take_numpy_numbers_and_refuse_what_is_not_a_time():
    """One check for solve, simulate and exploit: np.int64 was refused, True taken as 1 s, simulate took anything."""
    arrangement = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
    calls = [lambda budget: solve(HAND, samples=50, seed=1, time_budget=budget),
             lambda budget: cpoker.simulate(arrangement, samples=50, seed=1, time_budget=budget),
             lambda budget: cpoker.exploit("greedy", hands=1, samples=4, seed=1, time_budget=budget)]
    for call in calls:
        assert not call(np.int64(60)).partial and not call(np.float32(60.5)).partial
        for budget in (True, "5", float("nan"), -1, 0, float("inf"), 10**7):
            with pytest.raises(OptionError, match="time_budget must be a number of seconds, above 0"):
                call(budget)


def test_comparing_the_best_a_foul_or_under_the_table_method():
    best = solve(HAND, samples=300, seed=2)
    same = solve(HAND, samples=300, seed=2, compare=best.best.format())
    assert same.ev_lost == 0 and same.ev_lost_stderr == 0 and same.compared.rows == best.row_probabilities
    ordered = sorted(cpoker.parse_cards(HAND), key=lambda c: -c.rank)
    foul = cpoker.Arrangement(ordered[:3], ordered[3:8], ordered[8:])
    fouled = solve(HAND, samples=300, seed=2, compare=foul)
    assert fouled.compared.ev == -3 and fouled.ev_lost == pytest.approx(best.ev + 3)
    assert fouled.ev_lost_stderr == pytest.approx(best.stderr)  # the foul's points never vary
    assert fouled.compared.rows["back"] == {"win": 0.0, "tie": 0.0, "loss": 1.0}
    by_table = solve(HAND, method="table", compare=best.alternatives[0].arrangement)
    model = default_tables().model
    dense = [np.searchsorted(strength_keys(), [v.key]) for v in best.alternatives[0].arrangement.values]
    assert by_table.compared.ev == pytest.approx(model.split_values(*dense, cpoker.parse_cards(HAND))[0])
    assert by_table.ev_lost == pytest.approx(by_table.ev - by_table.compared.ev) and by_table.ev_lost >= 0
    assert by_table.ev_lost_stderr is None and by_table.ev_lost_interval is None
    assert solve(HAND, method="table", compare=foul).compared.ev == -3
    assert best.compared is None and best.ev_lost is None and best.to_dict()["compared"] is None


def test_solve_maximises_over_every_non_fouling_split():
    samples, seed = 25, 8
    solution = solve(HAND, samples=samples, seed=seed)
    dealt = deal_opponents(parse_hand(HAND), 1, samples, seed)
    opponent = arrange_keys("table", dealt.reshape(-1, 13))
    found = cpoker.arrangements(HAND)
    ours = np.stack([found.front_keys, found.middle_keys, found.back_keys], axis=1)
    totals = np.sign(ours[:, None, :].astype(np.int64) - opponent[None, :, :]).sum(axis=(1, 2))
    assert solution.ev == pytest.approx(totals.max() / samples)
    assert solution.candidates == len(found)


def test_table_method_and_greedy_opponents():
    by_table = solve(HAND, method="table")
    assert by_table.best == cpoker.table(HAND) and by_table.stderr is None and by_table.method == "table"
    against_greedy = solve(HAND, samples=200, seed=1, opponent="greedy", opponents=3)
    assert against_greedy.opponent_model == "greedy" and against_greedy.opponents == 3
    assert cpoker.mc(HAND, samples=200, seed=1) == solve(HAND, samples=200, seed=1).best
    data = against_greedy.to_dict()
    assert data["seed"] == 1 and data["rules"]["name"] == "pagat" and len(data["alternatives"]) == 5


@pytest.mark.parametrize("kwargs, error, message", [
    ({"hand": HAND.rsplit(" ", 1)[0]}, CardError, "13 cards, got 12"),
    ({"hand": HAND + " 5c"}, CardError, "13 cards, got 14"),
    ({"hand": HAND.replace("2s", "As")}, CardError, "duplicate card As"),
    ({"hand": HAND.replace("2s", "1s")}, CardError, "unknown rank '1'"),
    ({"opponents": 0}, OptionError, "opponents must be 1 to 3"),
    ({"opponents": 4}, OptionError, "opponents must be 1 to 3"),
    ({"samples": 0}, OptionError, "samples must be 1 to 1,000,000,000, got 0"),
    ({"method": "exact"}, OptionError, "unknown method"),
    ({"opponent": "nobody"}, OptionError, "unknown strategy"),
    ({"opponent": "no_such_module:f"}, OptionError, "cannot load strategy"),
])
def test_solve_rejects_bad_input(kwargs, error, message):
    arguments = {"hand": HAND, "samples": 10, "seed": 1, **kwargs}
    with pytest.raises(error, match=message):
        solve(**arguments)


def test_custom_strategies_and_fouling_strategies():
    def always_foul(hand):
        cards = cpoker.parse_cards(hand)
        return cpoker.Arrangement(cards[10:], cards[:5], cards[5:10])  # weakest rows in the back may foul

    name, function = resolve_strategy(always_foul)
    assert name == "always_foul" and function is always_foul
    hands = random_hands(20, 3)
    keys = arrange_keys(always_foul, hands)
    fouled = np.array([always_foul(h.tolist()).is_foul for h in hands])
    assert fouled.any() and (keys[fouled] == -1).all() and (keys[~fouled] >= 0).all()
    assert np.array_equal(arrange_keys(cpoker.greedy, hands), arrange_keys("greedy", hands))


@pytest.mark.parametrize("levels", [3, 40, 100_000])
def test_best_distinct_sorts_the_head_only_and_picks_as_the_full_sort(levels):
    """The solver's ranking of candidates: a sort of the head, the same picks as a sort of all (ties included)."""
    from cpoker.jobs.solve import N_ALTERNATIVES, _best_distinct, _distinct_best

    rng = np.random.default_rng(levels)
    found = cpoker.arrangements(random_hands(1, 6)[0])
    row_keys = np.stack([found.front_keys, found.middle_keys, found.back_keys], axis=1)
    for _ in range(5):
        totals = rng.integers(0, levels, len(found))  # few levels: ties at the head's cut and beyond it
        table_value = rng.integers(0, 3, len(found)).astype(np.float64)
        full = _distinct_best(np.lexsort((found.split_ids, -table_value, -totals)), row_keys, N_ALTERNATIVES + 1)
        assert _best_distinct(totals, table_value, found.split_ids, row_keys, N_ALTERNATIVES + 1) == full


def test_table_method_kernel_equals_valuing_every_split():
    """The branch-and-bound kernel behind solve(method="table") against a plain valuation of every split."""

    from cpoker._kernels.policy import best_distinct_splits
    from cpoker.jobs.solve import N_ALTERNATIVES, _distinct_best
    from cpoker.game.lookup_tables import rest_lookup_arguments, row_lookup_arguments

    t, keys = split_tables(), strength_keys()
    for source, rules in (("shipped", "pagat"), ("skewed", "pagat"), ("shipped", "2-4"), ("skewed", "odd")):
        rules = ODD_ROYALTIES if rules == "odd" else PRESETS[rules]
        distribution = default_tables(rules).distribution if source == "shipped" else skewed_distribution(1)
        model = RowModel.from_distribution(distribution, rules)
        for hand in list(random_hands(30, 31)) + suited_hands(15, seed=32):
            found = cpoker.arrangements(hand)
            index = np.searchsorted(keys, np.stack([found.front_keys, found.middle_keys, found.back_keys]))
            total = model.split_values(index[0], index[1], index[2], hand)
            order = np.lexsort((found.split_ids, -total))
            row_keys = np.stack([found.front_keys, found.middle_keys, found.back_keys], axis=1)
            picked = _distinct_best(order, row_keys, N_ALTERNATIVES + 1)
            ids, kernel_values, strengths, n_valid = best_distinct_splits( hand, *model.kernel_arguments(),
                                                                          *row_lookup_arguments(),
                                                                          *rest_lookup_arguments(), t.middles, t.fronts,
                                                                          keys, N_ALTERNATIVES + 1)
            assert n_valid == len(found)
            assert ids.tolist() == found.split_ids[picked].tolist(), source
            assert kernel_values.tolist() == total[picked].tolist()
            assert np.array_equal(keys[strengths], row_keys[picked])


@pytest.mark.parametrize("scoring", [0, 1, 2])
@pytest.mark.parametrize("require_win", [True, False])
def test_solver_totals_split_into_row_points_and_a_bonus_exactly(scoring, require_win, monkeypatch):
    """Per-subset row points plus per-candidate bonus equal the summed pair settlement, for any rules (the
    bonus in parts of 7 candidates, side by side)."""
    import cpoker.jobs.solve

    monkeypatch.setattr(cpoker.jobs.solve, "BONUS_PART", 7)
    from cpoker._kernels.montecarlo import subset_row_points
    from cpoker._kernels.scoring import pair_points_batch
    from cpoker.game.arrangements import parse_hand

    rng = np.random.default_rng(scoring * 2 + require_win)
    royalties = rng.integers(0, 5, size=(3, 9)).astype(np.int64)
    hand = parse_hand(random_hands(1, 40 + scoring)[0])
    found = cpoker.arrangements(hand)
    t = split_tables()
    keys5 = np.array([cpoker.evaluate(hand[s].tolist()).key for s in t.subsets5], dtype=np.int32)
    keys3 = np.array([cpoker.evaluate(hand[s].tolist()).key for s in t.subsets3], dtype=np.int32)
    picks = rng.choice(len(found), size=60, replace=False)
    candidates = np.stack([found.front_keys, found.middle_keys, found.back_keys], axis=1)[picks]
    keys = strength_keys()
    opponents = np.sort(keys[rng.integers(0, len(keys), size=(40, 2, 3))], axis=2).astype(np.int32)
    opponents[::9, 1] = -1  # fouled opponents
    back, middle, front = subset_row_points(keys5, keys3, opponents, royalties, require_win)
    bonus = bonus_totals(np.ascontiguousarray(candidates), opponents, scoring)
    rows = t.splits[found.split_ids[picks]]
    got = back[rows[:, 0]] + middle[rows[:, 1]] + front[rows[:, 2]] + bonus
    flat = opponents.reshape(-1, 3)
    expected = [pair_points_batch(np.repeat(c[None, :], len(flat), axis=0), flat, scoring, royalties,
                                   require_win, False).sum() for c in candidates]
    assert got.tolist() == expected
    if scoring == 0:
        assert not bonus.any()


TIMED_RUN_LOADS = """
import json, sys
import cpoker._kernels as kernels, cpoker.jobs.solve as solver
from numba.core.registry import CPUDispatcher

def loaded():
    return {f"{module.__name__}.{name}": len(kernel.overloads) for module in vars(kernels).values()
            if type(module).__name__ == "module" for name, kernel in vars(module).items()
            if isinstance(kernel, CPUDispatcher)}

solve_mc, timed = solver._solve_mc, []

def watched(*args, **kwargs):
    if args[8] == 0.0:  # the warm-up's start time
        return solve_mc(*args, **kwargs)
    before = loaded()
    solution = solve_mc(*args, **kwargs)
    timed.append(sorted(name for name, count in loaded().items() if count != before.get(name, 0)))
    return solution

solver._solve_mc = watched
for samples, opponents in json.loads(sys.argv[1]):
    solver.solve(sys.argv[2], samples=samples, opponents=opponents, seed=1)
print(json.dumps(timed))
"""


@pytest.mark.parametrize("runs", [[(2_000, 1), (20, 1), (30, 3)], [(4_097, 1)]])
def test_the_timed_run_loads_no_kernel_the_warm_up_did_not(runs):
    """The time solve reports excludes loading (or compiling) kernels: in a fresh process, the warm-up runs
    every kernel the timed run will -- the table policy's one kernel, for a block of 1 to 64 hands (one part,
    on this thread) and for more (parts on several threads; 4,097 samples: a block of 4,096, then one of a
    single sample)."""
    import json
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", TIMED_RUN_LOADS, json.dumps(runs), HAND], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [[] for _ in runs]
