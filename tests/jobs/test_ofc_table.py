"""The web page's open-face table (cpoker.jobs.ofc.table): a hand replayed from its seed and the person's
placements on the hand engine, the opponent's decisions those of a match of the same seed, one ranking of each
decision, and the errors a request can make."""

import pytest

from cpoker import ArrangementError
from cpoker.game.ofc.hand import OfcHand, options_of, seeded, table_deck
from cpoker.game.ofc.rules import OfcRules
from cpoker.jobs.ofc.match import resolve_ofc_strategy
from cpoker.jobs.ofc.table import ranked, ranking_seed, table_turn

PINEAPPLE = OfcRules.preset("pineapple")


def first_option(turn) -> str:
    view = turn.view
    return str(options_of(view.board, view.cards, view.keep)[0][0])


@pytest.mark.parametrize("hand", [0, 1])
def test_a_hand_replayed_is_the_hand_the_engine_plays(hand):
    """The person's placements and mc:8 in the other seat: the boards and points of the same hand played on
    OfcHand directly (the person sits first in even hands), each request computing again what it must."""
    placements: list = []
    while True:
        turn = table_turn(PINEAPPLE, 7, hand, placements, opponent="mc:8", review_samples=16)
        if turn.view is None:
            break
        assert turn.seat == hand % 2 and turn.view.seat == hand % 2
        placements.append(first_option(turn))
    _, opponent = resolve_ofc_strategy("mc:8")
    engine = OfcHand(PINEAPPLE, table_deck([7, hand]), [0, 0], seeded(7, hand))
    mine = iter(placements)
    while not engine.is_over:
        if engine.actor == hand % 2:
            engine.apply(next(mine))
        else:
            engine.play(opponent)
    record = engine.record()
    assert turn.record.boards == record.boards and turn.record.settlement.results == record.settlement.results
    again = table_turn(PINEAPPLE, 7, hand, placements, opponent="mc:8", review_samples=16)
    assert again.to_dict() == turn.to_dict()  # kept answers change nothing
    assert [r["ranking_seed"] for r in turn.reviews] == [ranking_seed(d_view) for d_view in _views(hand, placements)]


def _views(hand: int, placements: list) -> list:
    views, given = [], iter(placements)
    for count in range(len(placements)):
        turn = table_turn(PINEAPPLE, 7, hand, placements[:count], opponent="mc:8", review_samples=16)
        views.append(turn.view)
        next(given)
    return views


def test_the_review_ranks_each_decision_as_ranked_does():
    placements: list = []
    views = []
    while True:
        turn = table_turn(PINEAPPLE, 3, 0, placements, opponent="mc:8", review_samples=24)
        if turn.view is None:
            break
        views.append(turn.view)
        placements.append(first_option(turn))
    for review, view in zip(turn.reviews, views):
        solved = ranked(view.board, view.cards, PINEAPPLE, opponents=list(view.opponents), dead=view.discards,
                        samples=24, seed=ranking_seed(view))
        assert review["best"] == str(solved.best.board) and review["ev_best"] == solved.best.ev
        assert review["options"] == len(solved.options) and not review["partial"]


def test_bad_requests_name_the_problem():
    with pytest.raises(ArrangementError, match="placement 1: moved or removed|placement 1: placed"):
        table_turn(PINEAPPLE, 1, 0, ["As / - / -"], opponent="mc:8")
    with pytest.raises(ArrangementError, match="a Fantasyland of 15 cards is not one pineapple deals"):
        table_turn(PINEAPPLE, 1, 0, [], fantasyland=[15, 0], opponent="mc:8")
    turn = table_turn(PINEAPPLE, 1, 0, [], opponent="heuristic")
    with pytest.raises(ArrangementError, match="took 5 placements, not 6"):
        placements = []
        while turn.view is not None:
            placements.append(first_option(turn))
            turn = table_turn(PINEAPPLE, 1, 0, placements, opponent="heuristic", review_samples=4)
        table_turn(PINEAPPLE, 1, 0, placements + ["- / - / -"], opponent="heuristic")


def test_kept_answers_are_bounded_and_partial_ones_are_not_kept():
    from cpoker.jobs.ofc.table import _Kept

    kept, computed = _Kept(2), []

    def compute(value):
        computed.append(value)
        return value

    for key in ("a", "b", "a", "c", "a", "b"):
        kept.get(key, lambda key=key: compute(key))
    assert computed == ["a", "b", "c", "b"] and list(kept.items) == ["a", "b"]  # b was the least recent
    kept.get("p", lambda: compute("p"), keep=lambda value: False)
    kept.get("p", lambda: compute("p"), keep=lambda value: False)
    assert computed[-2:] == ["p", "p"] and "p" not in kept.items
