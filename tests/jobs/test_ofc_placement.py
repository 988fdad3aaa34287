"""The open-face placement solver: its options, its exact last rounds, its rollouts against exact expectations,
its seeds, its errors, positions no deal reaches, and a real Ctrl-C."""

import itertools
import json
import os
import signal
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


@pytest.mark.parametrize("adaptive", [True, False])
def test_rollouts_match_the_exact_expectation_over_the_unknown_cards(adaptive):
    """OFC, each board two and one cards short: the player's last card and the opponent's are any two unseen
    cards, each forced into its board's last slot, so each option's exact value is an average over the ordered
    pairs of unseen cards, which every rollout estimate must hold within 4 standard errors (of its own rollouts:
    the adaptive search stops the worse option early)."""
    board, opponent = "Qh 2d / 9s 9d 8c 8h / As Ah Ad Kc 3h", "Kh Kd 2c / 3c 3d 4c 4d / 5c 5d 5h 6s 6d"
    solved = place(board, "7c", OFC, opponents=[opponent], samples=3000, seed=11, fantasyland_value=0,
                   adaptive=adaptive)
    assert [option.samples for option in solved.options] == ([3000, BLOCK] if adaptive else [3000, 3000])
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
            spread = np.std(np.asarray(exact, dtype=float)) / np.sqrt(option.samples)
            assert abs(estimate - np.mean(exact)) <= 4 * spread + 1e-12, (str(mine), estimate, np.mean(exact))


def test_common_random_numbers_make_differences_tighter_than_independent_samples():
    """Each loss is measured on the same deals as the best option's value: its interval is narrower than two
    independent estimates' would be (sqrt of the sum of their squared widths) for nearly every option."""
    solved = place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, samples=2 * BLOCK, seed=3, adaptive=False)
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
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, fantasylands=[14, 0]), OptionError,
     "2 entries for 1 opponents"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, fantasylands=[15]), OptionError,
     r"0 \(none\) or a size pineapple deals \(14 cards\), got 15"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, fantasylands=14), OptionError, "list of card counts"),
    (lambda: place("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", PINEAPPLE, opponents=["Kc / 5s 5d / 8c 8h"],
                   fantasylands=[14]), ArrangementError, "set face down"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", "progressive", opponents=["-/-/-"] * 2, fantasylands=[17, 17],
                   dead="2c 2d"), CardError, "need 46 cards but only 45"),
    (lambda: place("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE, adaptive="yes"), OptionError, "adaptive"),
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
    # exactly the blocks of a shorter run (whose search may have stopped fewer options at its last depth)
    assert {str(o.board): o.ev for o in again.options} == {str(o.board): o.ev for o in solved.options}


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


def test_the_adaptive_search_measures_every_option_on_a_flat_searchs_deals():
    """An option out of contention stops at 64, 128, 256, ... rollouts; its value and its loss are then exactly
    what a flat search of that many rollouts (same seed: the same deals) measures, and the options in
    contention to the end are measured on every deal.  The search halves the contention down to CONTENDERS."""
    from cpoker.jobs.ofc.placement import CONTENDERS

    args = ("- / - / -", "As Kd 9c 9h 4s", PINEAPPLE)
    solved = place(*args, samples=8 * BLOCK, seed=21)
    assert solved.adaptive and solved.samples == 8 * BLOCK and len(solved.options) == 232
    depths = [option.samples for option in solved.options]
    assert depths == sorted(depths, reverse=True) and depths[0] == 8 * BLOCK
    assert set(depths) <= {BLOCK, 2 * BLOCK, 4 * BLOCK, 8 * BLOCK}
    assert sum(d == 8 * BLOCK for d in depths) <= CONTENDERS
    assert sum(d >= 2 * BLOCK for d in depths) <= 232 // 2  # the first checkpoint halves at least
    best = solved.best.board
    for depth in sorted(set(depths)):
        flat = {str(o.board): o for o in place(*args, samples=depth, seed=21, adaptive=False).options}
        for option in solved.options:
            if option.samples == depth:
                same = flat[str(option.board)]
                assert option.ev == pytest.approx(same.ev, abs=1e-9)
                assert option.foul_chance == same.foul_chance and option.royalties == same.royalties
                assert option.loss == pytest.approx(flat[str(best)].ev - same.ev, abs=1e-9)
                assert option.loss_interval[0] <= option.loss <= option.loss_interval[1]


def test_the_adaptive_search_finds_the_flat_searchs_best_for_far_less():
    """A round of clear and close options: the adaptive search's best is the flat search's at the same depth,
    and it spends a fraction of the rollouts."""
    args = ("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", PINEAPPLE)
    flat = place(*args, samples=16 * BLOCK, seed=4, adaptive=False)
    adaptive = place(*args, samples=16 * BLOCK, seed=4)
    assert str(adaptive.best.board) == str(flat.best.board) and adaptive.best.ev == pytest.approx(flat.best.ev)
    spent = sum(option.samples for option in adaptive.options)
    assert spent < 0.5 * sum(option.samples for option in flat.options)
    assert json.loads(json.dumps(adaptive.to_dict()))["placements"][-1]["samples"] < 16 * BLOCK


def test_an_opponent_in_fantasyland_is_dealt_hidden_cards_and_set_for_royalties():
    """Pineapple's last round against an opponent in a 14-card Fantasyland: each option's board is complete,
    so its exact value is the mean over the opponent's hidden 14 cards, each set by the Fantasyland solver
    for royalties, of what it wins; an independent sample of such Fantasylands (the library's solver and
    settlement, other deals) agrees with the rollouts within 4 standard errors."""
    from cpoker.strategies.ofc.fantasyland import fantasyland

    board, cards = "Qh 7c 2d / 9s 9d 8h 8c / As Ah Ad Kc", "Kd 6s 2h"
    solved = place(board, cards, PINEAPPLE, opponents=["- / - / -"], fantasylands=[14], samples=600, seed=2,
                   fantasyland_value=0, adaptive=False)
    assert solved.fantasylands == (14,) and solved.to_dict()["opponent_fantasylands"] == [14]
    seen = set(parse_cards(board.replace("/", " "))) | set(parse_cards(cards))
    unseen = np.array([c for c in range(52) if Card(c) not in seen])
    rng = np.random.default_rng(99)
    theirs = [fantasyland([Card(int(c)) for c in rng.permutation(unseen)[:14]], PINEAPPLE, "royalties").board
              for _ in range(300)]
    for option in solved.options[:3]:
        results = [settle([option.board, other], PINEAPPLE).results[0] for other in theirs]
        own = (option.interval[1] - option.interval[0]) / 2 / 1.96
        spread = np.hypot(own, np.std(results) / np.sqrt(len(results)))
        assert abs(option.ev - np.mean(results)) < 4 * spread, (str(option.board), option.ev, np.mean(results))
    # against an empty board played as a normal hand the same position is worth something else
    normal = place(board, cards, PINEAPPLE, opponents=["- / - / -"], samples=600, seed=2, fantasyland_value=0,
                   adaptive=False)
    assert abs(normal.best.ev - solved.best.ev) > 1.0


def test_each_fantasyland_counts_its_own_worth():
    """Progressive: a front of kings earns 15 cards, aces 16, trips 17, each counted at its measured worth
    (DEFAULT_FANTASYLAND_VALUES), exactly, when no card is unknown; a number given counts for every size."""
    from cpoker.strategies.ofc.rollout_policy import DEFAULT_FANTASYLAND_VALUES

    progressive = OfcRules.preset("progressive")
    worth = DEFAULT_FANTASYLAND_VALUES["progressive"]
    opponent = COMPLETE
    for front, size in (("Qh Qd", 14), ("Ah Ad", 16)):
        board = f"{front} / 9s 9d 8c 8h / Ts Tc Js Jc Jh"
        solved = place(board, "8d 2s 2h", progressive, opponents=[opponent], seed=1)
        for option in solved.options:
            scored = settle([option.board, opponent], progressive)
            earned = scored.boards[0].fantasyland
            assert option.ev == pytest.approx(scored.results[0] + (worth[earned] if earned else 0.0))
            assert earned in (None, size)
        assert any(option.fantasyland_chance == 1 for option in solved.options)
        flat = place(board, "8d 2s 2h", progressive, opponents=[opponent], seed=1, fantasyland_value=5)
        assert flat.fantasyland_values == {14: 5.0, 15: 5.0, 16: 5.0, 17: 5.0}
        assert {str(o.board): o.ev - (5 if o.fantasyland_chance else 0) for o in flat.options} == \
            pytest.approx({str(o.board): o.ev - (worth[size] if o.fantasyland_chance else 0) for o in solved.options})


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([("- / - / -", "As Kd 9c 9h 4s", "pineapple"),
                                                ("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", "pineapple"),
                                                ("Qh / 9s 9d / Ah Kh", "7c", "ofc")]), st.integers(0, 10**6))
def test_a_compared_placement_is_measured_to_the_end_and_changes_nothing_else(seed, position, pick):
    """``compare`` (the review's): the search without it, the same best and every other option the same, and the
    compared one rolled out on every deal, ranked where the search without it ranked it."""
    board, cards, rules = position
    plain = place(board, cards, rules, samples=128, seed=seed)
    rank = pick % len(plain.options)
    chosen = plain.options[rank].board
    compared = place(board, cards, rules, samples=128, seed=seed, compare=chosen)
    assert [o for o in compared.options if o.board != chosen] == [o for o in plain.options if o.board != chosen]
    option = compared.compared_option
    assert compared.compared == rank + 1 and option.board == chosen and option.samples == compared.samples == 128
    assert option.loss == pytest.approx(compared.best.ev - option.ev, abs=1e-9)
    with pytest.raises(ArrangementError, match="compare: .* is not a placement of"):
        place(board, cards, rules, samples=8, seed=seed, compare="2c 2d 2h / - / -")
