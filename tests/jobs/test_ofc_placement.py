"""The open-face placement solver: its options, its exact last rounds, its rollouts against exact expectations,
its seeds, its errors, positions no deal reaches, and a real Ctrl-C."""

import itertools
import json
import os
import signal
import threading

import numpy as np
import pytest

from cpoker import ArrangementError, CardError, OptionError
from cpoker.cli import main
from cpoker.game.cards import Card, cards_mask, parse_cards
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.rules import OfcRules
from cpoker.game.ofc.scoring import score_board, settle
from cpoker.strategies.ofc.rollout_policy import POLICY_WEIGHTS
from cpoker.jobs.ofc.placement import BLOCK, options_of, place

PINEAPPLE = OfcRules.preset("pineapple")
OFC = OfcRules.preset("ofc")
WEIGHTS = np.array((8.0, *POLICY_WEIGHTS))
COMPLETE = "Kh Kd 2c / 3c 3d 4c 4d 7h / 5c 5d 5h 6s 6d"


def _random_board(rng, deck):
    cards = [Card(int(c)) for c in rng.permutation(deck)[:13]]
    return Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:]))


def _rows(board):
    return cards_mask(board.front), cards_mask(board.middle), cards_mask(board.back)


def test_options_are_every_legal_placement_once():
    opening = options_of(Board(), parse_cards("As Kd 9c 9h 4s"), 5)
    assert len(opening) == 232 == len({str(b) for b, _ in opening})  # 3**5 less the 11 with 4 or 5 in front
    board = Board.parse("Qh / 9s 9d / Ah Kh")
    round_ = options_of(board, parse_cards("Qd 7c 2s"), 2)
    assert len(round_) == 3 * 9 == len({(str(b), d) for b, d in round_})
    for placed, discard in round_:
        assert len(discard) == 1 and set(board.cards) <= set(placed.cards) and len(placed.cards) == 7
    last = options_of(Board.parse("Qh Qd / 9s 9d 8c 8h / As Ah Ad Kc 2c"), parse_cards("7c 7d 3h"), 2)
    assert len(last) == 3 * 2 and all(b.is_complete for b, _ in last)  # a discard, then which card goes up


def test_a_last_round_against_full_boards_is_exact():
    """No card unknown: one rollout, zero-width intervals, each option worth its settlement (and Fantasyland)."""
    board, opponent = "Qh Qd / 9s 9d 8c 8h / As Ah Ad Kc 2h", COMPLETE
    solved = place(board, "7c 7d 3h", PINEAPPLE, opponents=[opponent], seed=5, fantasyland_value=11)
    assert solved.exact and solved.samples == 1 and len(solved.options) == 3 * 2
    for option in solved.options:
        assert option.interval == (option.ev, option.ev) and option.loss_interval == (option.loss, option.loss)
        scored = settle([option.board, opponent], PINEAPPLE)
        worth = scored.results[0] + (11 if scored.boards[0].fantasyland is not None else 0)
        assert option.ev == worth
    assert solved.best.ev == max(o.ev for o in solved.options) and solved.best.loss == 0


def test_rollouts_match_the_exact_expectation_over_the_unknown_cards():
    """OFC, each board two and one cards short: the player's last card and the opponent's are any two unseen
    cards, each forced into its board's last slot, so each option's exact value is an average over the ordered
    pairs of unseen cards, which every rollout estimate must hold within 4 standard errors."""
    board, opponent = "Qh 2d / 9s 9d 8c 8h / As Ah Ad Kc 3h", "Kh Kd 2c / 3c 3d 4c 4d / 5c 5d 5h 6s 6d"
    solved = place(board, "7c", OFC, opponents=[opponent], samples=3000, seed=11, fantasyland_value=0)
    assert len(solved.options) == 2
    them = Board.parse(opponent)
    seen = set(Board.parse(board).cards) | set(them.cards) | {Card("7c")}
    unseen = [Card(i) for i in range(52) if Card(i) not in seen]
    for option in solved.options:
        mine = option.board
        free = next(row for row, size in enumerate((3, 5, 5)) if len(mine.rows[row]) < size)
        results, fouls, entries, royalties = [], [], [], []
        for ours, theirs in itertools.permutations(unseen, 2):
            rows = [list(r) for r in mine.rows]
            rows[free].append(ours)
            settled = settle([Board(*map(tuple, rows)), Board(them.front, (*them.middle, theirs), them.back)], OFC)
            results.append(settled.results[0])
            own = settled.boards[0]
            fouls.append(own.fouled)
            entries.append(own.fantasyland is not None)
            royalties.append(own.total)
        stderr = (option.interval[1] - option.interval[0]) / 2 / 1.96
        assert abs(option.ev - np.mean(results)) < 4 * stderr, (str(mine), np.mean(results), option.interval)
        # what players decide by, from the same rollouts: each within 4 standard errors of its exact value
        for estimate, exact in ((option.foul_chance, fouls), (option.fantasyland_chance, entries),
                                (option.royalties, royalties)):
            spread = np.std(np.asarray(exact, dtype=float)) / np.sqrt(solved.samples)
            assert abs(estimate - np.mean(exact)) <= 4 * spread + 1e-12, (str(mine), estimate, np.mean(exact))


def test_common_random_numbers_make_differences_tighter_than_independent_samples():
    """Each loss is measured on the same deals as the best option's value: its interval is narrower than two
    independent estimates' would be (sqrt of the sum of their squared widths) for nearly every option."""
    solved = place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, samples=2 * BLOCK, seed=3)
    assert len(solved.options) == 232 and not solved.exact and solved.samples == 2 * BLOCK

    def width(interval):
        return interval[1] - interval[0]

    best = width(solved.best.interval)
    narrower = [width(o.loss_interval) < np.hypot(best, width(o.interval)) for o in solved.options[1:]]
    assert np.mean(narrower) > 0.9
    evs = [o.ev for o in solved.options]
    assert evs == sorted(evs, reverse=True)


def test_a_seed_gives_the_same_answer_on_any_number_of_threads():
    args = ("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", PINEAPPLE)
    one = place(*args, opponents=["Kc 7d / 5s 5d / 8c 8h 3d"], samples=3 * BLOCK, seed=9, jobs=1)
    many = place(*args, opponents=["Kc 7d / 5s 5d / 8c 8h 3d"], samples=3 * BLOCK, seed=9, jobs=2)
    assert one.to_dict()["placements"] == many.to_dict()["placements"] and one.seed == 9


@pytest.mark.parametrize("call, error, words", [
    (lambda: place("- / - / -", "As Kd 9c 9h", PINEAPPLE), CardError, "dealt 5 cards"),
    (lambda: place("Qh / 9s 9d / Ah Kh", "Qd 7c", PINEAPPLE), CardError, "dealt 3 cards"),
    (lambda: place("Qh / 9s 9d / Ah", "Qd 7c 2s", PINEAPPLE), ArrangementError, "holds 4 cards"),
    (lambda: place(COMPLETE, "Qd", OFC), ArrangementError, "full"),
    (lambda: place("Qh / 9s 9d / Ah Kh", "Qh 7c 2s", PINEAPPLE), CardError, "Qh is both in your board"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, opponents=["Qh / As 2c / 3d 4d"]), CardError,
     "As is both"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, opponents=["-/-/-"] * 3), OptionError, "1 to 2"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, samples=0), OptionError, "samples"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, fantasyland_value=-1), OptionError, "fantasyland"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, opponents="Qh / - / -"), ArrangementError, "list"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, opponents=["-/-/-"] * 2,
                   dead="2c 2d"), CardError, "need 46 cards but only 45 are unseen"),
])
def test_bad_input_names_the_problem(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_the_command_prints_the_ranking_and_json(capsys):
    args = ["ofc", "place", "--rules", "pineapple", "--board", "Qh / 9s 9d / Ah Kh", "--cards", "Qd", "7c", "2s",
            "--opponent", "Kc 7d / 5s 5d / 8c 8h 3d", "--samples", str(BLOCK), "--seed", "4", "--top", "3"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "seed 4" in text and text.count("EV ") == 3 and "24 more of 27" in text
    assert main(args + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["placements"]) == 27 and data["seed"] == 4 and data["samples"] == BLOCK
    first = data["placements"][0]
    assert set(first) >= {"board", "discard", "ev", "interval"} and first["interval"][0] <= first["ev"]
    assert main(["ofc", "place", "--cards", "As", "Kd", "--rules", "pineapple"]) == 2
    assert "dealt 5 cards" in capsys.readouterr().err


def test_a_real_ctrl_c_returns_the_ranking_so_far():
    place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, samples=BLOCK, seed=1)  # compiled and warm
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        solved = place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, samples=1_000_000, seed=1)
    finally:
        timer.cancel()
    assert solved.partial and 0 < solved.samples < 1_000_000 and solved.samples % BLOCK == 0
    again = place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, samples=solved.samples, seed=1)
    assert [o.ev for o in again.options] == [o.ev for o in solved.options]  # exactly the blocks of a shorter run


def test_options_of_a_round_follow_itertools(capsys):
    """(The listing order the CLI shows for equal values: kept subsets as itertools.combinations gives them.)"""
    hand = parse_cards("Qd 7c 2s")
    subsets = [tuple(c for c in hand if c not in d) for _, d in options_of(Board.parse("Qh / 9s 9d / Ah Kh"), hand, 2)]
    assert list(dict.fromkeys(subsets)) == list(itertools.combinations(hand, 2))


def test_positions_no_deal_reaches_are_refused():
    """An opponent three decisions ahead of the player, not in Fantasyland, is no table's position: one line, not
    a ranking; one decision ahead (it acted first this round), level, or an empty board (a Fantasyland, face
    down) are."""
    with pytest.raises(ArrangementError, match=r"opponent 1's board \(11 cards\) is 3 decisions ahead of yours "
                                               r"\(5\): no deal of pineapple"):
        place("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", "pineapple", opponents=["Kc 7d 8d / 5s 5d 6h 6c / 8c 8h 3d 2h"],
              samples=1)
    with pytest.raises(ArrangementError, match="1 behind yours"):
        place("Qh Qs / 9s 9d 3c / Ah Kh", "Qd 7c 2s", "pineapple", opponents=["Kc / 5s 5d / 8c 8h"], samples=1)
    for opponent in ("Kc 7d / 5s 5d / 8c 8h 3d", "Kc / 5s 5d / 8c 8h", "- / - / -"):
        assert place("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", "pineapple", opponents=[opponent], samples=1).options


def test_an_exact_last_round_says_each_boards_foul_fantasyland_and_royalties():
    """No card unknown: each option's chances are 0 or 1 and its royalties exact, as its board scores."""
    solved = place("Qh Qd / 9s 9d 8c 8h 7c / As Ah Ad Kc", "Qs 6s 2h", PINEAPPLE,
                   opponents=["Kh 2d 2c / 3c 3d 4c 4d 4h / 5c 5d 5h 6c 6d"])
    assert solved.exact and len(solved.options) == 6
    for option in solved.options:
        scored = score_board(option.board, PINEAPPLE)
        assert option.foul_chance == scored.fouled and option.royalties == scored.total
        assert option.fantasyland_chance == (scored.fantasyland is not None)
    # (both cases are there: queens in front earn Fantasyland and 7; trips in front foul under two pair)
    assert {(o.foul_chance, o.fantasyland_chance, o.royalties) for o in solved.options} == {(0, 1, 7), (1, 0, 0)}
    data = solved.to_dict()["placements"][0]
    assert {"foul_chance", "fantasyland_chance", "royalties"} <= set(data)
