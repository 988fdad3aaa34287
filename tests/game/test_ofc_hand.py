"""The open-face hand engine (:class:`OfcHand`): the deal, the order of decisions, the checks of an answer,
faults, the record, against an independent loop written as the rules read (the loop the hand engine replaced)."""

import numpy as np
import pytest
from helpers import RecordingHeuristic
from hypothesis import given, strategies as st

from cpoker import OptionError, StrategyError
from cpoker.game.cards import Card
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.hand import (SEAT_CARDS, OfcHand, OfcView, option_moves, options_of, placed_board, play_hand,
                                  seeded, table_deck)
from cpoker.strategies.ofc.heuristic import heuristic
from cpoker.game.ofc.rules import OfcRules
from cpoker.game.ofc.scoring import next_fantasyland, settle

PINEAPPLE = OfcRules.preset("pineapple")
OFC = OfcRules.preset("ofc")


def reference_hand(strategies, rules, deck, fantasyland, seeds):
    """A hand played as the rules read, written apart from the engine: Fantasylands first, then rounds, each
    player in seat order; a bad answer forfeits.  ``(boards, discards, faults, views, results, next sizes)``."""
    players = len(strategies)
    cards = [[Card(int(c)) for c in deck[SEAT_CARDS * k:SEAT_CARDS * (k + 1)]] for k in range(players)]
    boards, discards, faults, dealt, views = [Board()] * players, [()] * players, [None] * players, \
        [0] * players, []

    def decide(k, count, keep, step):
        hand = tuple(cards[k][dealt[k]:dealt[k] + count])
        dealt[k] += count
        view = OfcView(rules=rules, board=boards[k], cards=hand, keep=keep,
                       opponents=tuple(Board() if fantasyland[j] else boards[j]
                                       for j in ((k + i) % players for i in range(1, players))),
                       discards=discards[k], fantasyland=bool(fantasyland[k]), seat=k, seed=seeds(k, step))
        views.append(view)
        try:
            board = placed_board(view, strategies[k](view))
        except StrategyError as error:
            faults[k] = str(error)
            return
        discards[k] = tuple(sorted((*discards[k], *(c for c in hand if c not in board.cards))))
        boards[k] = board

    for k in range(players):
        if fantasyland[k]:
            decide(k, fantasyland[k], 13, 0)
    step = 1
    while any(not fantasyland[k] and not boards[k].is_complete and faults[k] is None for k in range(players)):
        for k in range(players):
            if fantasyland[k] or faults[k] is not None or boards[k].is_complete:
                continue
            decide(k, *rules.deal_after(len(boards[k].cards)), step)
        step += 1
    flags = [bool(size) for size in fantasyland]
    settled = settle(boards, rules, flags, forfeited=[k + 1 for k in range(players) if faults[k] is not None])
    sizes = [next_fantasyland(scored, rules, flag) for scored, flag in zip(settled.boards, flags)]
    return boards, discards, faults, views, settled.results, sizes


def test_a_hand_deals_each_seat_its_own_cards_in_the_rules_order():
    first, second = RecordingHeuristic(), RecordingHeuristic()
    deck = np.random.default_rng(1).permutation(52)
    record = play_hand([first, second], PINEAPPLE, deck[:2 * SEAT_CARDS], [0, 0], lambda k, step: step)
    for seat, recorder in enumerate((first, second)):
        views = recorder.views
        assert [len(v.cards) for v in views] == [5, 3, 3, 3, 3] and [v.keep for v in views] == [5, 2, 2, 2, 2]
        dealt = [int(c) for v in views for c in v.cards]
        assert dealt == list(deck[SEAT_CARDS * seat:SEAT_CARDS * (seat + 1)])
        assert len(views[-1].discards) == 3 and all(v.seat == seat for v in views)
    # the second seat sees the first's board as it stands after the first has placed this round
    assert [len(v.opponents[0].cards) for v in second.views] == [5, 7, 9, 11, 13]
    assert [len(v.opponents[0].cards) for v in first.views] == [0, 5, 7, 9, 11]
    assert record.settlement.results[0] == -record.settlement.results[1]


def test_a_fantasyland_is_dealt_whole_and_hidden():
    fantasy, other = RecordingHeuristic(), RecordingHeuristic()
    deck = np.random.default_rng(2).permutation(52)
    record = play_hand([other, fantasy], PINEAPPLE, deck[:2 * SEAT_CARDS], [0, 14], lambda k, step: step)
    assert len(fantasy.views) == 1 and fantasy.views[0].fantasyland and len(fantasy.views[0].cards) == 14
    assert fantasy.views[0].keep == 13 and record.fantasyland == (False, True)
    assert all(not v.opponents[0].cards for v in other.views)  # set face down
    assert record.boards[1].is_complete


def test_answers_are_checked():
    view = OfcView(rules=PINEAPPLE, board=Board.parse("Qh / 9s 9d / Ah Kh"), cards=tuple(Board.parse(
        "Qd 7c 2s / - / -").front), keep=2, opponents=(), discards=(), fantasyland=False, seat=0, seed=1)
    assert placed_board(view, "Qh Qd / 9s 9d 7c / Ah Kh").cards
    for answer, words in (("Qh Qd 7c 2s / 9s 9d / Ah Kh", "front holds 3"), ("Qd / 9s 9d / Ah Kh 7c 2s", "moved"),
                          ("Qh Qd / 9s 9d 3c / Ah Kh", "not among"), ("Qh Qd / 9s 9d / Ah Kh", "placed 1"),
                          (42, "answered int")):
        with pytest.raises(StrategyError, match=words):
            placed_board(view, answer)


def random_strategy(view):
    """A uniformly random legal placement (a Fantasyland: the heuristic's), seeded by the view."""
    if view.fantasyland:
        return heuristic(view)
    options = options_of(view.board, view.cards, view.keep)
    return options[np.random.default_rng(view.seed).integers(len(options))][0]


def sometimes_wrong(view):
    """Random, but one decision in seven answers a board that moves nothing: a fault."""
    if view.seed % 7 == 0:
        return str(view.board)
    return random_strategy(view)


@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 3]), game=st.sampled_from(["pineapple", "ofc"]),
       fantasy=st.lists(st.sampled_from([0, 0, 14]), min_size=3, max_size=3), wrong=st.booleans())
def test_the_engine_plays_the_hand_the_rules_describe(seed, players, game, fantasy, wrong):
    rules = OfcRules.preset(game)
    sizes = [size if game == "pineapple" else size and 13 for size in fantasy[:players]]
    strategy = sometimes_wrong if wrong else random_strategy
    deck, seeds = table_deck(seed), seeded(seed)
    recorded = []

    def watched(view):
        recorded.append(view)
        return strategy(view)

    record = play_hand([watched] * players, rules, deck, sizes, seeds)
    boards, discards, faults, views, results, next_sizes = reference_hand([strategy] * players, rules, deck, sizes,
                                                                          seeds)
    assert record.boards == tuple(boards) and record.discards == tuple(discards)
    assert record.faults == tuple(faults) and list(record.settlement.results) == list(results)
    assert list(record.next_fantasyland) == next_sizes
    assert [(v.seat, v.cards, v.board, v.opponents, v.seed, v.fantasyland) for v in recorded] == \
        [(v.seat, v.cards, v.board, v.opponents, v.seed, v.fantasyland) for v in views]
    # the record holds every decision, in order, each the view it answered
    assert [(d.seat, d.cards, d.board, d.seed) for d in record.decisions] == \
        [(v.seat, v.cards, v.board, v.seed) for v in views]
    for decision in record.decisions:
        if decision.fault is None:
            assert set(decision.placed.cards) == set(decision.board.cards) | (set(decision.cards) -
                                                                             set(decision.discards))
        else:
            assert decision.placed is None


def test_a_hand_is_stepped_and_a_wrong_answer_changes_nothing():
    hand = OfcHand(PINEAPPLE, table_deck(3), [0, 14, 0], seeded(3))
    assert hand.actor == 1 and hand.step == 0 and hand.view().fantasyland and len(hand.view().cards) == 14
    with pytest.raises(StrategyError, match="too many to list"):
        hand.options()
    hand.apply(heuristic(hand.view()))
    assert hand.actor == 0 and hand.step == 1
    view = hand.view()
    assert view.opponents == (Board(), Board()) and view.in_fantasyland == (True, False)
    assert view.to_dict()["opponents_in_fantasyland"] == [True, False]
    assert view.opponent_fantasylands == (14, 0) and view.to_dict()["opponent_fantasylands"] == [14, 0]
    for answer in ("As Ks / - / -", str(view.board), 7):
        with pytest.raises(StrategyError):
            hand.apply(answer)
        assert hand.actor == 0 and not hand.decisions[1:]  # unchanged
    options = hand.options()
    assert [board for board, _ in options] == [board for board, _ in options_of(view.board, view.cards, 5)]
    assert len(options) == 3 ** 5 - 11  # the rows with room: no more than 3 cards in front
    hand.apply(options[0][0])
    assert hand.actor == 2
    hand.forfeit("left the table")
    assert hand.faults[2] == "left the table" and hand.actor == 0 and hand.step == 2
    with pytest.raises(StrategyError, match="not over"):
        hand.record()
    while not hand.is_over:
        hand.apply(hand.options()[-1][0])
    record = hand.record()
    assert record.settlement.boards[2].fouled and record.fantasyland == (False, True, False)
    # the Fantasyland, the first cards, the fault, the four rounds
    assert sum(record.settlement.results) == 0 and len(record.decisions) == 1 + 1 + 1 + 4
    with pytest.raises(StrategyError, match="over"):
        hand.view()


def test_option_moves_number_every_move_and_options_keep_those_that_fit():
    cards = tuple(Card.parse(c) for c in "Qd 7c 2s".split())
    moves = option_moves(cards, 2)
    assert len(moves) == 3 * 9 and moves[0] == (cards[:2], (0, 0)) and moves[-1] == (cards[1:], (2, 2))
    board = Board.parse("Qh Qs / 9s 9d 8c 8h / Ah Kh")
    fitting = [(kept, rows) for kept, rows in moves if rows.count(0) <= 1 and rows.count(1) <= 1]
    assert [b for b, _ in options_of(board, cards, 2)] == [board.plus(k, r) for k, r in fitting]


def test_impossible_hands_are_refused():
    with pytest.raises(OptionError, match="2 to 3 players"):
        OfcHand(PINEAPPLE, table_deck(1), [0] * 4)
    with pytest.raises(OptionError, match="a Fantasyland of 15 cards is not one ofc deals"):
        OfcHand(OFC, table_deck(1), [0, 15])
    with pytest.raises(OptionError, match="got 20"):
        OfcHand(OFC, table_deck(1)[:20], [0, 0])
    with pytest.raises(OptionError, match="True"):
        OfcHand(OFC, table_deck(1), [True, 0])
