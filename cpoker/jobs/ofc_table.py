"""An open-face hand against a strategy, one decision at a time, for a person at a screen (the web page's Open
face tab, ``POST /api/ofc/play``).

Nothing is kept between requests: a request names the session's seed, the hand's number, who starts it in
Fantasyland, and the person's placements so far; the hand (an :class:`~cpoker.game.ofc.hand.OfcHand`, the same
deck and the same seeded opponent decisions every time) is stepped up to the person's next decision, whose view
is returned, or to its end, which is settled and reviewed: each of the person's decisions with what the placement
solver says it cost.  Hand ``h`` of a session deals from ``default_rng([seed, h])``; the person acts first in
even hands, second in odd ones (the button moves).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from cpoker.game.cards import format_cards
from cpoker.game.dealing import derived_seed
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.hand import HandRecord, OfcHand, OfcView, seeded, table_deck
from cpoker.game.ofc.rules import OfcRules
from cpoker.jobs.ofc_match import resolve_ofc_strategy
from cpoker.system.errors import ArrangementError, OptionError, StrategyError
from cpoker.system.limits import check_int, check_seed

MAX_HAND = 10_000
REVIEW_SAMPLES = 200


@dataclass(frozen=True)
class TableTurn:
    """Where a hand stands for the person: their next decision, or the hand's end with its review."""

    view: Optional[OfcView]
    opponent: Board
    seat: int
    record: Optional[HandRecord] = None
    reviews: tuple = ()

    def to_dict(self) -> dict:
        data: dict = {"seat": self.seat, "opponent": str(self.opponent), "done": self.view is None}
        if self.view is not None:
            data["you"] = self.view.to_dict()
            return data
        record = self.record
        assert record is not None  # (a hand over has its record)
        you, other = self.seat, 1 - self.seat
        data["you"] = {"board": str(record.boards[you]), "discards": format_cards(record.discards[you])}
        data["opponent"] = str(record.boards[other])
        data["settlement"] = record.settlement.to_dict()
        data["points"] = record.settlement.results[you]
        data["next_fantasyland"] = {"you": record.next_fantasyland[you], "opponent": record.next_fantasyland[other]}
        data["review"] = list(self.reviews)
        return data


def table_turn(rules: OfcRules, seed: int, hand: int, placements: Sequence[str], fantasyland: Sequence[int] = (0, 0),
               opponent: str = "mc", review_samples: int = REVIEW_SAMPLES) -> TableTurn:
    """Replay hand ``hand`` of the session ``seed`` with the person's ``placements`` (each the board after one of
    their decisions) and return their next decision or the hand's end (see the module docstring).

    ``fantasyland``: the person's and the opponent's Fantasyland sizes for this hand (0: none), as the previous
    hand's answer said.

    Raises
    ------
    ArrangementError
        For a placement that is not a legal board for its decision, or more placements than the hand has.
    OptionError, StrategyError
        For a bad seed, hand number, Fantasyland size or opponent.
    """
    seed = check_seed(seed)
    hand = check_int("hand", hand, 0, MAX_HAND)
    sizes = list(fantasyland) + [0] * (2 - len(fantasyland))
    _, other = resolve_ofc_strategy(opponent)
    seat = hand % 2
    given = list(placements)
    seat_sizes = [sizes[0], sizes[1]] if seat == 0 else [sizes[1], sizes[0]]
    try:
        table = OfcHand(rules, table_deck([seed, hand]), seat_sizes, seeded(seed, hand))
    except OptionError as error:
        raise ArrangementError(str(error)) from None
    views: list = []
    while table.actor is not None:
        if table.actor != seat:
            table.play(other)
            continue
        if len(views) == len(given):
            view = table.view()
            return TableTurn(view=view, opponent=view.opponents[0], seat=seat)
        view = table.view()
        try:
            board = table.apply(given[len(views)])
        except StrategyError as error:
            raise ArrangementError(f"placement {len(views) + 1}: {error}") from None
        views.append((view, board))
    if len(views) < len(given):
        raise ArrangementError(f"the hand took {len(views)} placements, not {len(given)}")
    record = table.record()
    reviews = tuple(_review(view, board, seed, hand, i, review_samples) for i, (view, board) in enumerate(views))
    return TableTurn(view=None, opponent=record.boards[1 - seat], seat=seat, record=record, reviews=reviews)


def _review(view: OfcView, chosen: Board, seed: int, hand: int, index: int, samples: int) -> dict:
    """One decision of the person's: the placement solver's best option and what theirs cost, on the same deals."""
    from cpoker.jobs.placement import place

    entry = {"decision": index + 1, "board": str(view.board), "cards": format_cards(view.cards, sort=False),
             "chosen": str(chosen)}
    if view.fantasyland:
        from cpoker.game.ofc.fantasyland import fantasyland

        best = fantasyland(view.cards, view.rules, seed=derived_seed(seed, hand, 99, index), samples=samples)
        return {**entry, "fantasyland": True, "best": str(best.board), "ev_best": best.value}
    solved = place(view.board, view.cards, view.rules, opponents=list(view.opponents), dead=view.discards,
                   samples=samples, seed=derived_seed(seed, hand, 98, index))
    mine = next(option for option in solved.options
                if all(set(a) == set(b) for a, b in zip(option.board.rows, chosen.rows)))
    return {**entry, "fantasyland": False, "best": str(solved.best.board), "ev_best": solved.best.ev,
            "ev_chosen": mine.ev, "loss": mine.loss, "loss_interval": list(mine.loss_interval),
            "options": len(solved.options)}
