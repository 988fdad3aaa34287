"""One open-face hand at a table: the deal in the rules' order, what each player sees, and their placements.

The players sit clockwise from the button; the player left of the button acts first in every round.  A
player in Fantasyland is dealt all of the Fantasyland's cards at once and sets a full board before the
others start; the others see an empty board in that seat until the end of the hand (it is set face down).
Everyone else is dealt the first cards, then the rounds, one player after another, and sees the other
boards as they stand when it is their turn, and their own discards.

The cards come from one shuffled deck: the ``k``-th seat after the button takes its cards, in the order
it is dealt them, from ``deck[17 k : 17 k + 17]`` (17 being the most a player is dealt: a 17-card
Fantasyland, or Pineapple's 5 + 4 x 3).  A seat's cards therefore do not depend on what the others are
dealt, so a duplicate match can give a strategy the cards another had in the same seat.

A strategy is called with an :class:`OfcView` and answers the board it leaves (a :class:`Board` or its text,
the cards it already had in the same rows, plus ``view.keep`` of ``view.cards``); the cards it did not place
are its discards.  An answer that is not such a board, or an exception, is a **fault**: that player's hand
is scored as a foul (:func:`cpoker.game.ofc.scoring.settle`'s ``forfeited``) and they are asked nothing
more in it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Optional

from cpoker.game.cards import Card, format_cards
from cpoker.game.ofc.boards import ROW_NAMES, Board
from cpoker.game.ofc.rules import OfcRules
from cpoker.game.ofc.scoring import OfcSettlement, next_fantasyland, settle
from cpoker.system.errors import ArrangementError, BotBroken, CardError, StrategyError

SEAT_CARDS = 17  # the most cards a seat is dealt in a hand


@dataclass(frozen=True)
class OfcView:
    """What a player sees when it is their turn to place cards.

    Attributes
    ----------
    rules
        The rules the table plays.
    board, cards, keep
        The player's board, the cards dealt now, and how many of them to place (the rest are discarded).
    opponents
        The other players' boards as they stand, in seat order after this player (a board in Fantasyland
        shows empty until the end of the hand).
    discards
        The player's own discards so far (face down: only they know them).
    fantasyland
        Whether this is a Fantasyland: ``cards`` are all of its cards, and the answer is a full board.
    seat, seed
        The player's seat after the button (0 acts first), and a seed the strategy may use for its own
        randomness (drawn from the match's seed: a rerun gets the same).
    """

    rules: OfcRules
    board: Board
    cards: tuple
    keep: int
    opponents: tuple
    discards: tuple
    fantasyland: bool
    seat: int
    seed: int

    def to_dict(self) -> dict:
        return {"game": self.rules.game, "board": str(self.board), "cards": format_cards(self.cards, sort=False),
                "keep": self.keep, "opponents": [str(b) for b in self.opponents],
                "discards": format_cards(self.discards), "fantasyland": self.fantasyland, "seat": self.seat}


OfcStrategy = Callable[[OfcView], object]


def placed_board(view: OfcView, answer: object) -> Board:
    """The board a strategy's ``answer`` leaves, checked against ``view``.

    Raises
    ------
    StrategyError
        For anything but a board that keeps the cards already placed in their rows and adds ``view.keep`` of
        ``view.cards``.
    """
    try:
        board = Board.parse(answer) if isinstance(answer, (str, Board)) else None
    except (ArrangementError, CardError) as error:
        raise StrategyError(f"answered a board that is not one: {error}") from None
    if board is None:
        raise StrategyError(f"answered {type(answer).__name__}, not a board ('front / middle / back' text or a "
                            "Board)")
    for name, before, after in zip(ROW_NAMES, view.board.rows, board.rows):
        if not set(before) <= set(after):
            raise StrategyError(f"moved or removed a card of its {name} ({format_cards(before)})")
    added = set(board.cards) - set(view.board.cards)
    if not added <= set(view.cards):
        raise StrategyError(f"placed {format_cards(sorted(added - set(view.cards)))}, not among the cards dealt "
                            f"({format_cards(view.cards)})")
    if len(added) != view.keep:
        raise StrategyError(f"placed {len(added)} of the cards dealt, not {view.keep}")
    return board


@dataclass
class Seat:
    """A seat's state during a hand."""

    cards: list
    fantasyland: int  # the Fantasyland's size, 0 out of it
    board: Board = field(default_factory=Board)
    discards: tuple = ()
    fault: Optional[str] = None
    dealt: int = 0


@dataclass(frozen=True)
class HandRecord:
    """A hand played: the boards (seat order from the button's left), the settlement, and for each seat whether
    it played in Fantasyland, its fault if any, and the Fantasyland it goes to next (0: none)."""

    boards: tuple
    discards: tuple
    settlement: OfcSettlement
    fantasyland: tuple
    faults: tuple
    next_fantasyland: tuple


def _ask(strategy: OfcStrategy, view: OfcView) -> Board:
    try:
        answer = strategy(view)
    except (StrategyError, BotBroken):  # a fault already named; a broken bot stops the job
        raise
    except Exception as error:  # a strategy of the user's may fail in any way: the fault is its hand's
        raise StrategyError(f"raised {type(error).__name__}: {str(error)[:120]}") from None
    return placed_board(view, answer)


def play_hand(strategies: Sequence[OfcStrategy], rules: OfcRules, deck: Sequence[int],
              fantasyland: Sequence[int], seeds: Callable[[int, int], int]) -> HandRecord:
    """Play one hand: ``strategies[k]`` sits ``k`` seats after the button, in Fantasyland of
    ``fantasyland[k]`` cards (0: not); ``deck`` holds at least ``17 x players`` card ids; ``seeds(seat, step)``
    gives each decision's seed."""
    players = len(strategies)
    seats = [Seat(cards=[Card(int(c)) for c in deck[SEAT_CARDS * k:SEAT_CARDS * (k + 1)]], fantasyland=size)
             for k, size in enumerate(fantasyland)]

    def decide(k: int, count: int, keep: int, step: int) -> None:
        seat = seats[k]
        dealt = tuple(seat.cards[seat.dealt:seat.dealt + count])
        seat.dealt += count
        others = tuple(Board() if seats[j].fantasyland else seats[j].board
                       for j in ((k + i) % players for i in range(1, players)))
        view = OfcView(rules=rules, board=seat.board, cards=dealt, keep=keep, opponents=others,
                       discards=seat.discards, fantasyland=bool(seat.fantasyland),
                       seat=k, seed=seeds(k, step))
        try:
            board = _ask(strategies[k], view)
        except StrategyError as error:
            seat.fault = str(error)
            return
        seat.discards = tuple(sorted((*seat.discards, *(c for c in dealt if c not in set(board.cards)))))
        seat.board = board

    for k, seat in enumerate(seats):
        if seat.fantasyland:
            decide(k, seat.fantasyland, 13, 0)
    step = 1
    while any(not s.fantasyland and len(s.board.cards) < 13 and s.fault is None for s in seats):
        for k, seat in enumerate(seats):
            if seat.fantasyland or seat.fault is not None or len(seat.board.cards) >= 13:
                continue
            step_cards = rules.deal_after(len(seat.board.cards))
            assert step_cards is not None  # (every decision placed as the rules say)
            decide(k, *step_cards, step)
        step += 1
    forfeited = [k + 1 for k, seat in enumerate(seats) if seat.fault is not None]
    flags = [bool(seat.fantasyland) for seat in seats]
    settlement = settle([seat.board for seat in seats], rules, flags, forfeited=forfeited)
    next_sizes = [next_fantasyland(scored, rules, flag) for scored, flag in zip(settlement.boards, flags)]
    return HandRecord(boards=tuple(seat.board for seat in seats), discards=tuple(seat.discards for seat in seats),
                      settlement=settlement, fantasyland=tuple(flags),
                      faults=tuple(seat.fault for seat in seats), next_fantasyland=tuple(next_sizes))
