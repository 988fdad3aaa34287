"""The open-face rollout policy (its kernels: the static estimate a board is completed by) and the ``heuristic``
strategy that plays it: legal choices, the best by its own value, rare fouls, every card dealt once."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from cpoker._kernels.ofc_board import board_points, scored_board
from cpoker._kernels.ofc_policy import board_value, place_round
from cpoker.game.cards import cards_mask, parse_cards
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.hand import OfcHand, options_of, placed_board, seeded, table_deck
from cpoker.game.ofc.rules import OfcRules
from cpoker.strategies.ofc.heuristic import heuristic
from cpoker.strategies.ofc.rollout_policy import (DEFAULT_FANTASYLAND_VALUE, MAX_FANTASYLAND_VALUE, POLICY_WEIGHTS,
                                                  STATIC_MODEL, fantasyland_value_of, policy_model, policy_weights)
from cpoker.system.errors import OptionError

PINEAPPLE = OfcRules.preset("pineapple")
OFC = OfcRules.preset("ofc")
WEIGHTS = np.array((8.0, *POLICY_WEIGHTS))
MODEL = policy_model(PINEAPPLE)


def _rows(board):
    return cards_mask(board.front), cards_mask(board.middle), cards_mask(board.back)


@pytest.mark.parametrize("policy", ["static", "learned"])
@pytest.mark.parametrize("rules, board, cards", [
    (PINEAPPLE, "- / - / -", "As Kd 9c 9h 4s"),
    (PINEAPPLE, "Qh / 9s 9d / Ah Kh", "Qd 7c 2s"),
    (OFC, "Qh 2d / 9s 9d 3c / Ah Kh 4d 4h", "Qd"),
    (PINEAPPLE, "Qh Qd / 9s 9d 8c / As Ah Ad Kc", "7c 7d 3h"),
])
def test_the_policy_plays_the_best_legal_option_by_its_own_value(rules, board, cards, policy):
    """The kernel's choice is a legal option, and no option has a higher value by the policy's estimate: the
    static estimate, or the learned model's weights (of the board's count of cards) times the board's features,
    computed here apart."""
    board, hand = Board.parse(board), parse_cards(cards)
    keep = rules.first_cards if not board.cards else rules.round_places
    table = rules.kernel_rules()
    model = policy_model(rules, policy)
    options = options_of(board, hand, keep)
    values = [board_value(*_rows(b), table, WEIGHTS) if policy == "static" else
              float(model[len(b.cards)] @ _features(b, table)) for b, _ in options]
    chosen = place_round(*_rows(board), np.array([int(c) for c in hand], dtype=np.int64), len(hand), keep, table,
                         WEIGHTS, model)
    legal = {_rows(b): v for (b, _), v in zip(options, values)}
    assert tuple(int(x) for x in chosen) in legal
    assert legal[tuple(int(x) for x in chosen)] == pytest.approx(max(values), abs=1e-9)


def _features(board, table):
    from cpoker._kernels.ofc_policy import FEATURE_COUNT, board_features

    out = np.empty(FEATURE_COUNT)
    board_features(*_rows(board), table, WEIGHTS, out)
    return out


def test_the_policy_fouls_rarely_and_beats_a_naive_placer():
    """Pineapple, 400 duplicate pairs of hands: the policy fouls under 10% and beats the policy with no foul
    awareness (its foul cost and row weights zero), which fouls far more."""
    from cpoker._kernels.ofc_board import enters_fantasyland  # noqa: F401  (the kernels the match uses)
    from cpoker._kernels.ofc_policy import complete_board

    table = PINEAPPLE.kernel_rules()
    naive = np.array((8.0, 0.0, 0.0, 0.3, 0.35, 0.3))
    rng = np.random.default_rng(2)
    points = fouls = naive_fouls = 0
    hands = 400
    for _ in range(hands):
        deck = rng.permutation(52).astype(np.int64)
        for ours, theirs in ((deck[:17], deck[17:34]), (deck[17:34], deck[:17])):
            a = scored_board(*complete_board(0, 0, 0, ours, 0, 5, 3, 2, table, WEIGHTS, STATIC_MODEL)[:3], table)
            b = scored_board(*complete_board(0, 0, 0, theirs, 0, 5, 3, 2, table, naive, STATIC_MODEL)[:3], table)
            points += board_points(*a, *b, table[46])
            fouls += a[4]
            naive_fouls += b[4]
    assert fouls / (2 * hands) < 0.10 < naive_fouls / (2 * hands)
    assert points / (2 * hands) > 1.0


def test_every_card_is_dealt_once_in_a_rollout():
    """The rollout kernel's boards: the opponents' and the player's later cards come from distinct deck slots."""
    from cpoker._kernels.ofc_policy import complete_board

    table = PINEAPPLE.kernel_rules()
    placed = {int(c) for c in parse_cards("Qh 9s 9d Ah Kh")}
    deck = np.random.default_rng(4).permutation([c for c in range(52) if c not in placed]).astype(np.int64)
    mine = complete_board(cards_mask(parse_cards("Qh")), cards_mask(parse_cards("9s 9d")),
                          cards_mask(parse_cards("Ah Kh")), deck, 0, 5, 3, 2, table, WEIGHTS, MODEL)
    theirs = complete_board(0, 0, 0, deck, mine[3], 5, 3, 2, table, WEIGHTS, MODEL)
    assert mine[3] == 12 and theirs[3] == 12 + 17
    boards = [int(x) for x in mine[:3]] + [int(x) for x in theirs[:3]]
    assert sum(bin(mask).count("1") for mask in boards) == 26  # (5 placed, 4 kept of 6, 13 of 17)
    assert bin(int(np.bitwise_or.reduce(np.array(boards)))).count("1") == 26


@given(seed=st.integers(0, 2**32), game=st.sampled_from(["ofc", "pineapple", "progressive"]))
def test_the_heuristic_answers_a_legal_board_at_every_decision(seed, game):
    """Whole hands of heuristic against heuristic, Fantasylands included: every answer is legal for its view."""
    rules = OfcRules.preset(game)
    size = rules.smallest_fantasyland or 13
    hand = OfcHand(rules, table_deck(seed), [size if seed % 3 == 0 else 0, 0], seeded(seed))
    while not hand.is_over:
        view = hand.view()
        board = heuristic(view)
        assert placed_board(view, board) == board
        hand.apply(board)
    assert all(board.is_complete for board in hand.record().boards)


def test_the_fantasyland_value_and_weights_are_checked():
    for game in ("ofc", "pineapple", "progressive"):
        assert fantasyland_value_of(OfcRules.preset(game), None) == DEFAULT_FANTASYLAND_VALUE[game]
    assert fantasyland_value_of(PINEAPPLE, 0) == 0 and policy_weights(3.5)[0] == 3.5
    for bad in (-1, MAX_FANTASYLAND_VALUE + 1, float("nan"), True, "8"):
        with pytest.raises(OptionError):
            fantasyland_value_of(PINEAPPLE, bad)
