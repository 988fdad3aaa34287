"""Learning the open-face rollout policy: the recorded equations against a replay of the hands, the fit against
least squares, seeds and threads, the shipped files rebuilt byte for byte, the learned policy's strength, and
bad input."""

import json
import os

import numpy as np
import pytest

from cpoker import OptionError
from cpoker._kernels.ofc_board import SCOOP, board_points, scored_board
from cpoker._kernels.ofc_learning import duplicate_margin, learning_hands
from cpoker._kernels.ofc_policy import FEATURE_COUNT, STAGES, board_features, choose_round
from cpoker._kernels.ofc_rollout import entry_value, policy_boards
from cpoker.cli import main
from cpoker.game.cards import mask_cards
from cpoker.game.dealing import shuffled
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.rules import OfcRules
from cpoker.game.ofc.scoring import pair_points, score_board
from cpoker.jobs.ofc.policy_learning import _fitted, learn_policy
from cpoker.strategies.ofc.rollout_policy import (DEFAULT_FANTASYLAND_VALUES, STATIC_MODEL, entry_values,
                                                  fantasyland_values, policy_model, policy_weights, read_model,
                                                  shipped_model_path)

PINEAPPLE = OfcRules.preset("pineapple")
SMALL = {"hands": 1500, "rounds": 1, "seed": 3, "pool": 24, "checks": 150}


def _setting(rules):
    values = fantasyland_values(rules, None)
    return rules.kernel_rules(), policy_weights(values[rules.smallest_fantasyland]), entry_values(rules, values)


@pytest.mark.parametrize("game", ["pineapple", "ofc"])
def test_the_equations_are_the_hands_replayed(game):
    """The kernel's normal equations, against the hands replayed here decision by decision: the record starts
    at the drawn decision (a random choice there when the second uniform is under epsilon), every decision
    from then on adds its board's features, and the target is the full board's mean points against the pool
    plus its Fantasyland's worth."""
    rules = OfcRules.preset(game)
    table, weights, worth = _setting(rules)
    rng = np.random.default_rng(8)
    decks = shuffled(np.arange(52, dtype=np.int64), rng, 40, rules.cards_per_player)
    explore = rng.random((40, 3))
    pool = policy_boards(shuffled(np.arange(52, dtype=np.int64), rng, 16, rules.cards_per_player),
                         rules.first_cards, rules.round_cards, rules.round_places, table, weights, STATIC_MODEL)
    gram = np.zeros((1, STAGES, FEATURE_COUNT, FEATURE_COUNT))
    moments = np.zeros((1, STAGES, FEATURE_COUNT))
    counts = np.zeros((1, STAGES), dtype=np.int64)
    learning_hands(decks, explore, rules.first_cards, rules.round_cards, rules.round_places, table, weights,
                   STATIC_MODEL, 0.5, *pool, worth, gram, moments, counts, 0, 0, 40)
    expected_gram = np.zeros((STAGES, FEATURE_COUNT, FEATURE_COUNT))
    expected_moments = np.zeros((STAGES, FEATURE_COUNT))
    expected_counts = np.zeros(STAGES, dtype=np.int64)
    decisions = 1 + (13 - rules.first_cards) // rules.round_places
    for deck, (start, coin, pick) in zip(decks, explore):
        first = int(start * decisions)
        board, position, recorded = (0, 0, 0), 0, []
        for decision in range(decisions):
            count, keep = ((rules.first_cards, rules.first_cards) if decision == 0
                           else (rules.round_cards, rules.round_places))
            chosen = pick if decision == first and coin < 0.5 else -1.0
            board = tuple(int(x) for x in choose_round(*board, deck[position:position + count], count, keep, table,
                                                       weights, STATIC_MODEL, chosen))
            position += count
            if decision >= first:
                features = np.empty(FEATURE_COUNT)
                board_features(*board, table, weights, features)
                recorded.append((sum(bin(row).count("1") for row in board), features))
        full = Board(*(mask_cards(row) for row in board))
        mine = scored_board(*board, table)
        outcome = np.mean([board_points(*mine, *keys, royalty, fouled, table[SCOOP])
                           for keys, royalty, fouled in zip(*pool)])
        if score_board(full, rules).fantasyland is not None:
            outcome += entry_value(mine[0], worth)
        for stage, features in recorded:
            expected_counts[stage] += 1
            expected_gram[stage] += np.outer(features, features)
            expected_moments[stage] += features * outcome
    assert counts[0].tolist() == expected_counts.tolist() and counts[0, 13] == 40
    np.testing.assert_allclose(gram[0], expected_gram, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(moments[0], expected_moments, rtol=1e-9, atol=1e-9)


def test_the_fit_is_least_squares_rounded():
    """Each count of cards' weights: the least-squares solution of its equations (a tiny ridge), to 7 digits;
    zero where no board was seen."""
    rng = np.random.default_rng(1)
    features = rng.normal(size=(500, FEATURE_COUNT))
    target = features @ rng.normal(size=FEATURE_COUNT) + rng.normal(size=500)
    gram, moments = np.zeros((STAGES, FEATURE_COUNT, FEATURE_COUNT)), np.zeros((STAGES, FEATURE_COUNT))
    counts = np.zeros(STAGES, dtype=np.int64)
    gram[7], moments[7], counts[7] = features.T @ features, features.T @ target, 500
    model = _fitted(gram, moments, counts)
    solution = np.linalg.lstsq(features, target, rcond=None)[0]
    np.testing.assert_allclose(model[7], solution, rtol=1e-5, atol=1e-5)
    assert all(float(f"{w:.7g}") == w for w in model[7]) and not model[np.arange(STAGES) != 7].any()


def test_a_seed_learns_the_same_policy_byte_for_byte_on_any_number_of_threads(tmp_path):
    one = learn_policy("pineapple", **SMALL, jobs=1)
    two = learn_policy("pineapple", **SMALL, jobs=2)
    assert one.to_bytes() == two.to_bytes() and one.sha256 == two.sha256 and not one.partial
    other = learn_policy("pineapple", **{**SMALL, "seed": 4}, jobs=2)
    assert other.to_bytes() != one.to_bytes()
    # the file it writes is a policy every solver takes
    path = tmp_path / "mine.npz"
    one.save(path)
    model, meta = read_model(path)
    assert np.array_equal(model, one.model) and meta["hands"] == SMALL["hands"] and meta["game"] == "pineapple"
    assert meta["history"][0]["learned_stages"][-1] == 13
    from cpoker.jobs.ofc.placement import place

    solved = place("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", PINEAPPLE, samples=64, seed=1, policy=str(path))
    assert solved.policy == str(path) and len(solved.options) == 27


def test_the_duplicate_margin_is_the_boards_settled():
    """The margin that chooses the weights: each pair of deals' boards scored by :func:`score_board` and
    :func:`pair_points`, both ways, each with its Fantasyland's worth, halved."""
    rules = PINEAPPLE
    table, weights, worth = _setting(rules)
    decks = shuffled(np.arange(52, dtype=np.int64), np.random.default_rng(5), 60, rules.cards_per_player)
    learned, static = policy_model(rules), STATIC_MODEL
    a = policy_boards(decks, rules.first_cards, rules.round_cards, rules.round_places, table, weights, learned)
    b = policy_boards(decks, rules.first_cards, rules.round_cards, rules.round_places, table, weights, static)
    mean, spread = duplicate_margin(*a, *b, table, worth)

    def board(policy, deck):
        from cpoker._kernels.ofc_policy import complete_board

        return Board(*(mask_cards(int(row)) for row in complete_board(
            0, 0, 0, deck, 0, rules.first_cards, rules.round_cards, rules.round_places, table, weights, policy)[:3]))

    margins = []
    for i in range(30):
        margin = 0.0
        for x, y in ((2 * i, 2 * i + 1), (2 * i + 1, 2 * i)):
            ours, theirs = score_board(board(learned, decks[x]), rules), score_board(board(static, decks[y]), rules)
            margin += pair_points(ours, theirs, rules)  # (boards of other deals: they may share cards)
            for sign, scored in ((1, ours), (-1, theirs)):
                if scored.fantasyland is not None:
                    margin += sign * DEFAULT_FANTASYLAND_VALUES["pineapple"][scored.fantasyland]
        margins.append(margin / 2)
    assert mean == pytest.approx(np.mean(margins)) and spread == pytest.approx(np.std(margins))


@pytest.mark.parametrize("game", ["ofc", "pineapple", "progressive"])
def test_the_shipped_learned_policy_beats_the_static_one(game):
    """Each game's shipped policy against 0.8.0's static estimate, duplicate, 3,000 pairs of deals none of the
    learning saw: ahead, the 95% interval above zero."""
    rules = OfcRules.preset(game)
    table, weights, worth = _setting(rules)
    decks = shuffled(np.arange(52, dtype=np.int64), np.random.default_rng(2026), 6000, rules.cards_per_player)
    boards = [policy_boards(decks, rules.first_cards, rules.round_cards, rules.round_places, table, weights, model)
              for model in (policy_model(rules), STATIC_MODEL)]
    mean, spread = duplicate_margin(*boards[0], *boards[1], table, worth)
    assert mean - 1.96 * spread / np.sqrt(3000) > 0, (game, mean, spread)


# each game's shipped policy rebuilt by its command (30-50 s each on 2 cores), with CPOKER_TEST_EVERY_REBUILD=1;
# every run checks the same build at small sizes, byte for byte on any number of threads (above)
EVERY_REBUILD = os.environ.get("CPOKER_TEST_EVERY_REBUILD") == "1"


@pytest.mark.slow
@pytest.mark.skipif(not EVERY_REBUILD, reason="rebuilding a shipped policy takes most of a minute: run with "
                                              "CPOKER_TEST_EVERY_REBUILD=1")
@pytest.mark.parametrize("game", ["pineapple", "ofc", "progressive"])
def test_the_shipped_policy_is_rebuilt_byte_for_byte_by_its_command(tmp_path, capsys, game):
    out = tmp_path / "rebuilt.npz"
    assert main(["ofc", "policy", "--rules", game, "--out", str(out), "--json", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identical_to_shipped"], report["sha256"]
    assert out.read_bytes() == shipped_model_path(game).read_bytes()


def test_bad_input_names_the_problem(tmp_path, capsys):
    for options, words in (({"epsilon": 2}, "epsilon is a chance from 0 to 1"), ({"hands": 0}, "hands"),
                           ({"rounds": 99}, "rounds"), ({"pool": 0}, "pool"), ({"checks": 0}, "checks")):
        with pytest.raises(OptionError, match=words):
            learn_policy("pineapple", **{**SMALL, **options})
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a policy")
    for policy, words in ((str(bad), "not an .npz archive"), (str(tmp_path / "none.npz"), "none.npz"),
                          ("greedy", "learned, static, or a .npz file")):
        with pytest.raises(OptionError, match=words):
            policy_model(PINEAPPLE, policy)
    with pytest.raises(SystemExit) as refused:
        main(["ofc", "policy", "--epsilon", "1.5"])
    assert refused.value.code == 2 and "--epsilon" in capsys.readouterr().err
    assert main(["ofc", "place", "--cards", "As", "Kd", "9c", "9h", "4s", "--rules", "pineapple", "--policy",
                 str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a cpoker open-face policy" in err


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_real_ctrl_c_writes_no_policy(tmp_path):
    """A learning stopped by a real SIGINT exits with 130 and one line, and writes nothing: an unfinished policy
    is not a policy."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "stopped.npz"
    process = subprocess.Popen([sys.executable, "-m", "cpoker", "ofc", "policy", "--rules", "pineapple", "--hands",
                                "5000000", "--out", str(out), "--quiet"], stderr=subprocess.PIPE, text=True)
    time.sleep(8)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert err.count("\n") == 1 and "interrupted" in err and not out.exists()
