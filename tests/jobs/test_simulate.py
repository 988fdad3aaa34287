import json

import numpy as np
import pytest
from naive import settle_pair

import cpoker
from cpoker import ArrangementError, OptionError
from cpoker.cli import main
from cpoker.jobs.odds import hand_odds, odds_table
from cpoker.game.dealing import deal_from
from cpoker.jobs.simulate import SAMPLE_CHUNK, match, simulate

A = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
FOUL = "Ks Kh Qd / 4s 4h 8h 5s 2c / 7s 7h 3c Js Jh"


def test_fouled_arrangements_have_their_exact_value():
    for opponents in (1, 2, 3):
        result = simulate(FOUL, opponents=opponents, samples=100, seed=1)
        assert result.fouled and result.ev == -3 * opponents and result.samples == 0
        assert result.rows["front"] == {"win": 0.0, "tie": 0.0, "loss": 1.0} and result.scooped == 1.0


def test_simulation_matches_an_independent_settlement():
    samples, seed = 30, 5
    result = simulate(A, samples=samples, seed=seed, opponents=2)
    ours = cpoker.Arrangement.parse(A)
    rest = np.setdiff1d(np.arange(52), [int(c) for c in ours.cards])
    dealt = deal_from(rest, np.random.default_rng([seed, 0]), samples, 2)
    totals = [sum(settle_pair(ours.rows, cpoker.table(hand.tolist()).rows) for hand in sample) for sample in dealt]
    assert result.ev == pytest.approx(np.mean(totals)) and result.samples == samples
    assert result.distribution == {t: totals.count(t) for t in set(totals)}
    low, high = result.interval
    assert low < result.ev < high and high - low == pytest.approx(2 * 1.959963984540054 * result.stderr)
    for row in result.rows.values():
        assert sum(row.values()) == pytest.approx(1.0)


def test_results_depend_on_the_seed_only():
    samples = 2 * SAMPLE_CHUNK + 17
    one = simulate(A, samples=samples, seed=3, jobs=1)
    every = simulate(A, samples=samples, seed=3)
    assert (one.ev, one.stderr, one.rows, one.distribution) == (every.ev, every.stderr, every.rows,
                                                                 every.distribution)
    assert simulate(A, samples=samples, seed=4).ev != one.ev
    first = match(["table", "greedy"], deals=1_200, seed=2, jobs=1, keep_points=True)
    again = match(["table", "greedy"], deals=1_200, seed=2, keep_points=True)
    assert [(x.points, x.stderr, x.interval) for x in first.scores] == \
        [(x.points, x.stderr, x.interval) for x in again.scores]
    assert np.array_equal(first.points, again.points)


def test_a_strategy_against_itself_scores_exactly_zero_in_duplicate():
    result = match(["table", "table"], deals=700, seed=1, keep_points=True)
    assert np.all(result.points == 0) and result.scores[0].interval == (0.0, 0.0)
    assert result.format == "duplicate"


def test_table_beats_greedy_and_interval_covers_the_mean():
    result = match(["table", "greedy"], deals=2_000, seed=9, sessions=20)
    table, greedy = result.scores
    assert table.interval[0] > 0 and table.points == -greedy.points
    assert table.interval[0] < table.points < table.interval[1]
    assert 0 <= greedy.first_places <= 1 and table.first_places + greedy.first_places >= 1
    assert 1 <= table.mean_place <= 2 and result.sessions == 20


def test_seat_rotation_for_four_players_is_zero_sum():
    result = match(["table", "greedy", "greedy", "table"], deals=300, seed=4, sessions=5, keep_points=True)
    assert result.strategies == ("table (seat 1)", "greedy (seat 2)", "greedy (seat 3)", "table (seat 4)")
    assert np.allclose(result.points.sum(axis=1), 0) and result.format == "seat rotation"
    # identical strategies in symmetric seats do equally well on average, exactly per rotation set
    assert abs(result.scores[0].points - result.scores[3].points) < 0.2


def test_plug_in_strategies_from_a_module():
    result = match(["plugin_strategy:my_greedy", "plugin_strategy:weakest_back"], deals=100, seed=1)
    assert result.strategies == ("plugin_strategy:my_greedy", "plugin_strategy:weakest_back")
    assert result.scores[0].points > 2  # the fouling bot loses nearly everything
    same = match(["plugin_strategy:my_greedy", "greedy"], deals=100, seed=1, keep_points=True)
    assert np.all(same.points == 0)  # the slow path arranges exactly as the built-in kernel
    sim = simulate(A, samples=50, seed=1, opponent="plugin_strategy:weakest_back")
    assert sim.opponent_model == "plugin_strategy:weakest_back" and sim.ev > 2.5


@pytest.mark.parametrize("call, error, message", [
    (lambda: simulate(A, opponents=4), OptionError, "opponents must be 1 to 3"),
    (lambda: simulate(A, samples=0), OptionError, "samples must be 1 to 1,000,000,000, got 0"),
    (lambda: simulate(A, jobs=0), OptionError, "jobs must be 1 to"),
    (lambda: simulate(A, opponent="nope"), OptionError, "unknown strategy"),
    (lambda: simulate("2s 2h Ad / 7c 7d 9s 5h 3d"), ArrangementError, "two '/'"),
    (lambda: match(["table"]), OptionError, "2 to 4 strategies"),
    (lambda: match("table"), OptionError, "2 to 4 strategies"),
    (lambda: match(["table", "greedy"], deals=0), OptionError, "deals must be 1 to 10,000,000,000, got 0"),
    (lambda: match(["table", "greedy"], sessions=-1), OptionError, "sessions must be 0 to 1,000,000,000, got -1"),
    (lambda: hand_odds("6s 6h"), cpoker.CardError, "3 or 5 cards"),
    (lambda: hand_odds("6s 6h 2d", row="back"), OptionError, "cannot be the back"),
    (lambda: odds_table("side"), OptionError, "front, middle or back"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_odds_come_from_the_opponent_distribution():
    (front,) = hand_odds("6s 6h 2d")
    assert front.row == "front" and abs(sum(p[0] for p in (front.win, front.tie, front.loss)) - 1) < 1e-9
    middle, back = hand_odds("9s 8h 7d 6c 5s")
    assert middle.win[0] > back.win[0]  # the same straight wins more often in the middle
    table = odds_table("front")
    names = [entry.hand for entry in table]
    assert "pair of sixes" in names and "three of a kind, aces" == names[-1]
    wins = [entry.win[1] for entry in table]
    assert wins == sorted(wins)


def test_cli_simulate_match_odds_and_out_files(capsys, tmp_path):
    out = tmp_path / "sim.json"
    assert main(["simulate", A, "--samples", "200", "--seed", "1", "--out", str(out)]) == 0
    text, _ = capsys.readouterr()
    saved = json.loads(out.read_text())
    assert "95% interval" in text and "net points per deal" in text
    assert saved["seed"] == 1 and saved["samples"] == 200 and saved["version"] == cpoker.__version__
    assert saved["rules"]["name"] == "pagat" and saved["opponent_model"] == "table"
    assert main(["simulate", FOUL]) == 0 and "FOUL" in capsys.readouterr()[0]
    csv_out = tmp_path / "match.csv"
    assert main(["match", "table", "greedy", "--deals", "300", "--seed", "1", "--sessions", "3",
                 "--out", str(csv_out)]) == 0
    text, _ = capsys.readouterr()
    assert "duplicate format" in text and "first place" in text
    lines = csv_out.read_text().splitlines()
    assert lines[0].startswith("version,format,deals") and len(lines) == 3
    assert main(["match", "table", "--strategy", "plugin_strategy:my_greedy", "--deals", "50", "--json"]) == 0
    assert json.loads(capsys.readouterr()[0])["strategies"] == ["table", "plugin_strategy:my_greedy"]
    assert main(["odds", "--row", "front", "--csv"]) == 0
    assert capsys.readouterr()[0].startswith("row,hand,win_min")
    assert main(["odds", "--hand", "6s", "6h", "2d"]) == 0 and "pair of sixes" in capsys.readouterr()[0]


@pytest.mark.parametrize("argv, message", [
    (["simulate", A, "--opponents", "0"], "--opponents: must be 1 to 3, got 0"),
    (["simulate", A, "--out", "results.txt"], "--out must end in .json or .csv"),
    (["simulate", A, "--samples", "10", "--out", "/nonexistent/dir/r.json"], "cannot write"),
    (["match", "table"], "2 to 4 strategies"),
    (["match", "table", "bogus"], "unknown strategy"),
    (["odds", "--hand", "6s", "6h"], "3 or 5 cards"),
])
def test_cli_bad_input(capsys, argv, message):
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse's own errors exit from parsing
        status = stop.code
    assert status == 2
    _, err = capsys.readouterr()
    assert message in err and err.count("\n") == 1
