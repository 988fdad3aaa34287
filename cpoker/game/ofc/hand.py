"""One open-face hand at a table, as one state stepped decision by decision: :class:`OfcHand`.

Every caller plays a hand on it: a match (:func:`play_hand`), the reinforcement-learning environment
(:mod:`cpoker.rl.ofc_env`), the web page's table (:mod:`cpoker.jobs.ofc.table`) and the bots' requests.  The
state deals, shows the pending decision (:meth:`OfcHand.view`, :meth:`OfcHand.options`), checks and applies an
answer (:meth:`OfcHand.apply`), records every decision (:attr:`OfcHand.decisions`) and settles the hand
(:meth:`OfcHand.record`).

The players sit clockwise from the button; the player left of the button acts first in every round.  A
player in Fantasyland is dealt all of the Fantasyland's cards at once and sets a full board before the
others start; the others see an empty board in that seat until the end of the hand (it is set face down).
Everyone else is dealt the first cards, then the rounds, one player after another, and sees the other
boards as they stand when it is their turn, and their own discards.

The cards come from one shuffled deck (:func:`table_deck`): the ``k``-th seat after the button takes its
cards, in the order it is dealt them, from ``deck[17 k : 17 k + 17]`` (17 being the most a player is dealt: a
17-card Fantasyland, or Pineapple's 5 + 4 x 3).  A seat's cards therefore do not depend on what the others are
dealt, so a duplicate match can give a strategy the cards another had in the same seat.

A strategy is called with an :class:`OfcView` and answers the board it leaves (a :class:`Board` or its text,
the cards it already had in the same rows, plus ``view.keep`` of ``view.cards``); the cards it did not place
are its discards.  An answer that is not such a board, or an exception, is a **fault**: that player's hand
is scored as a foul (:func:`cpoker.game.ofc.scoring.settle`'s ``forfeited``) and they are asked nothing
more in it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np

from cpoker.game.cards import Card, format_cards
from cpoker.game.dealing import derived_seed
from cpoker.game.ofc.boards import ROW_NAMES, Board
from cpoker.game.ofc.rules import DECK, SEAT_CARDS, OfcRules
from cpoker.game.ofc.scoring import OfcSettlement, next_fantasyland, settle
from cpoker.system.errors import (ArrangementError, BotBroken, BotCannotStart, CardError, OptionError,
                                  StrategyError)


def table_deck(entropy: "int | Sequence[int]") -> np.ndarray:
    """The 52 card ids of a hand's deck in the order they are dealt, shuffled by
    ``numpy.random.default_rng(entropy)``: every table of cpoker (a match's, the environment's, the web page's)
    deals from it, each with its own ``entropy`` (a seed, or a seed and the hand's place in a job)."""
    return np.argsort(np.random.default_rng(entropy).random(DECK), kind="stable")


def seeded(*path: int) -> Callable[[int, int], int]:
    """``seeds(seat, step)`` for a hand: each decision's seed derived from ``path`` (a job's seed and the hand's
    place in it), the seat and the step (0: a Fantasyland, then 1 for the first cards and 1 more a round)."""
    return lambda seat, step: derived_seed(*path, seat, step)


def option_moves(cards: Sequence, keep: int) -> list:
    """Every way to keep ``keep`` of ``cards`` and give each kept card a row, whether the board has room or not:
    ``(kept cards, rows)``, the subsets in the order of :func:`itertools.combinations` and, within one, the
    first card's row (0 front, 1 middle, 2 back) varying slowest.  Its index is a decision's action number (the
    reinforcement-learning environment's ``Discrete`` space)."""
    return [(kept, rows) for kept in itertools.combinations(tuple(cards), keep)
            for rows in itertools.product(range(3), repeat=keep)]


def fits(board: Board, rows: Sequence[int]) -> bool:
    """Whether ``board`` has room for a card in each of ``rows``."""
    return all(rows.count(row) <= free for row, free in enumerate(board.free))


def options_of(board: Board, cards: tuple, keep: int) -> list:
    """Every legal ``(board, discard)`` of a decision: :func:`option_moves` that fit on ``board``, in that
    order, each the board it leaves and the cards it discards."""
    return [(board.plus(kept, rows), tuple(card for card in cards if card not in kept))
            for kept, rows in option_moves(cards, keep) if fits(board, rows)]


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
    in_fantasyland
        For each opponent (same order), whether they play this hand in Fantasyland (their board is set face
        down: empty until the end of the hand).
    opponent_fantasylands
        For each opponent, the cards of the Fantasyland they play (0: a normal hand): what the table knows of
        the hidden cards (progressive's Fantasylands differ in size).
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
    in_fantasyland: tuple = ()
    opponent_fantasylands: tuple = ()

    def to_dict(self) -> dict:
        return {"game": self.rules.game, "board": str(self.board), "cards": format_cards(self.cards, sort=False),
                "keep": self.keep, "opponents": [str(b) for b in self.opponents],
                "opponents_in_fantasyland": list(self.opponents_in_fantasyland),
                "opponent_fantasylands": list(self.fantasyland_cards), "discards": format_cards(self.discards),
                "fantasyland": self.fantasyland, "seat": self.seat,
                "seed": self.seed}

    @property
    def opponents_in_fantasyland(self) -> tuple:
        """:attr:`in_fantasyland`, ``False`` for each opponent when the view was made without it."""
        return self.in_fantasyland or (False,) * len(self.opponents)

    @property
    def fantasyland_cards(self) -> tuple:
        """:attr:`opponent_fantasylands`; for a view made without it, the rules' smallest Fantasyland for each
        opponent in Fantasyland, 0 for the others."""
        if self.opponent_fantasylands:
            return self.opponent_fantasylands
        return tuple((self.rules.smallest_fantasyland or 0) if playing else 0
                     for playing in self.opponents_in_fantasyland)


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


@dataclass(frozen=True)
class Decision:
    """One decision of a hand, as :attr:`OfcHand.decisions` records it.

    ``seat`` decided at ``step`` (0: a Fantasyland, 1: the first cards, then 1 more a round), on ``board``,
    dealt ``cards`` (in the order dealt), with ``seed``; ``placed`` is the board it left and ``discards`` the
    cards it did not place, or ``fault`` says why the answer forfeited the hand (``placed`` is then ``None``).
    """

    seat: int
    step: int
    board: Board
    cards: tuple
    keep: int
    seed: int
    placed: Optional[Board]
    discards: tuple = ()
    fault: Optional[str] = None
    opponents: tuple = ()
    opponent_fantasylands: tuple = ()
    dead: tuple = ()

    def to_dict(self) -> dict:
        return {"seat": self.seat, "step": self.step, "board": str(self.board),
                "cards": format_cards(self.cards, sort=False), "keep": self.keep, "seed": self.seed,
                "placed": None if self.placed is None else str(self.placed),
                "discards": format_cards(self.discards), "fault": self.fault,
                "opponents": [str(board) for board in self.opponents],
                "opponent_fantasylands": list(self.opponent_fantasylands), "dead": format_cards(self.dead)}


@dataclass(frozen=True)
class HandRecord:
    """A hand played: the boards (seat order from the button's left), the settlement, and for each seat whether
    it played in Fantasyland, its fault if any, and the Fantasyland it goes to next (0: none); ``decisions``,
    every decision in the order taken."""

    boards: tuple
    discards: tuple
    settlement: OfcSettlement
    fantasyland: tuple
    faults: tuple
    next_fantasyland: tuple
    decisions: tuple = ()


class OfcHand:
    """One open-face hand as a state that callers step: deal, the pending decision, ``apply``, the record.

    Parameters
    ----------
    rules
        The rules the table plays.
    deck
        At least ``17 x players`` card ids: seat ``k`` (after the button) takes its cards in the order dealt
        from ``deck[17 k:17 k + 17]``; :func:`table_deck` shuffles one.
    fantasyland
        Each seat's Fantasyland size for this hand (0: none); its length is the number of players (2 to the
        rules' most).
    seeds
        ``seeds(seat, step)``: each decision's seed (:func:`seeded`; default ``seeded(0)``).

    Examples
    --------
    >>> from cpoker.game.ofc.rules import OfcRules
    >>> hand = OfcHand(OfcRules.preset("pineapple"), table_deck(1), [0, 0])
    >>> hand.actor, len(hand.view().cards), len(hand.options())
    (0, 5, 232)
    >>> while not hand.is_over:
    ...     board, _ = hand.options()[0]
    ...     _ = hand.apply(board)
    >>> len(hand.decisions), hand.record().settlement.results[0] + hand.record().settlement.results[1]
    (10, 0)
    """

    def __init__(self, rules: OfcRules, deck: "Sequence[int] | np.ndarray", fantasyland: Sequence[int],
                 seeds: Optional[Callable[[int, int], int]] = None) -> None:
        players = len(fantasyland)
        if not 2 <= players <= rules.max_players:
            raise OptionError(f"{rules.name} deals 2 to {rules.max_players} players, not {players}")
        if len(deck) < SEAT_CARDS * players:
            raise OptionError(f"a hand of {players} players deals from {SEAT_CARDS * players} cards, got {len(deck)}")
        sizes = rules.fantasyland_sizes
        for size in fantasyland:
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or int(size) not in (0, *sizes):
                raise OptionError(f"a Fantasyland of {size!r} cards is not one {rules.name} deals "
                                  f"({', '.join(map(str, sizes)) or 'none'})")
        self.rules = rules
        self.players = players
        self.seeds = seeds or seeded(0)
        self._cards = [tuple(Card(int(c)) for c in deck[SEAT_CARDS * k:SEAT_CARDS * (k + 1)])
                       for k in range(players)]
        self._fantasyland = tuple(int(size) for size in fantasyland)
        self._boards = [Board()] * players
        self._discards: list = [()] * players
        self._faults: list = [None] * players
        self._dealt = [0] * players
        self._decisions: list = []
        self._step, self._cursor = 0, 0
        self._actor: Optional[int] = None
        self._view: Optional[OfcView] = None  # the pending decision's, made once
        self._advance()

    # the hand as it stands

    @property
    def boards(self) -> tuple:
        """Each seat's board as it stands (a Fantasyland's too: :meth:`view` hides it from the others)."""
        return tuple(self._boards)

    @property
    def discards(self) -> tuple:
        return tuple(self._discards)

    @property
    def faults(self) -> tuple:
        return tuple(self._faults)

    @property
    def fantasyland(self) -> tuple:
        """Each seat's Fantasyland size this hand (0: none)."""
        return self._fantasyland

    @property
    def decisions(self) -> tuple:
        """Every :class:`Decision` taken so far, in order."""
        return tuple(self._decisions)

    @property
    def actor(self) -> Optional[int]:
        """The seat to decide now, or ``None`` when the hand is over."""
        return self._actor

    @property
    def is_over(self) -> bool:
        return self._actor is None

    @property
    def step(self) -> int:
        """The pending decision's step (0: Fantasyland, 1: the first cards, then 1 more a round)."""
        return self._step

    def _deciding(self, seat: int) -> bool:
        """Whether ``seat`` has a decision in the current step."""
        if self._faults[seat] is not None or self._boards[seat].is_complete:
            return False
        return bool(self._fantasyland[seat]) == (self._step == 0)

    def _advance(self) -> None:
        """Move to the next seat to decide: the Fantasylands first (step 0), then the rounds, each seat once a
        round from the button's left."""
        self._view = None
        while True:
            for seat in range(self._cursor, self.players):
                if self._deciding(seat):
                    self._actor, self._cursor = seat, seat
                    return
            if self._step > 0 and not any(self._deciding(seat) for seat in range(self.players)):
                self._actor = None
                return
            self._step, self._cursor = self._step + 1, 0

    def _pending(self) -> tuple:
        """``(seat, cards dealt now, how many to keep)`` of the pending decision."""
        seat = self._actor
        if seat is None:
            raise StrategyError("the hand is over: no decision is pending")
        size = self._fantasyland[seat]
        if size:
            count, keep = size, 13
        else:
            dealt = self.rules.deal_after(len(self._boards[seat].cards))
            assert dealt is not None  # (every board here was left by a decision)
            count, keep = dealt
        start = self._dealt[seat]
        return seat, self._cards[seat][start:start + count], keep

    def view(self) -> OfcView:
        """What the seat to decide sees (:class:`OfcView`): its board, the cards dealt now, the other boards as
        they stand (a Fantasyland's face down), its own discards.

        Raises
        ------
        StrategyError
            When the hand is over.
        """
        if self._view is None:
            seat, cards, keep = self._pending()
            others = [(seat + i) % self.players for i in range(1, self.players)]
            self._view = OfcView(rules=self.rules, board=self._boards[seat], cards=cards, keep=keep,
                                 opponents=tuple(Board() if self._fantasyland[j] else self._boards[j]
                                                 for j in others),
                                 discards=self._discards[seat], fantasyland=bool(self._fantasyland[seat]),
                                 seat=seat, seed=self.seeds(seat, self._step),
                                 in_fantasyland=tuple(bool(self._fantasyland[j]) for j in others),
                                 opponent_fantasylands=tuple(int(self._fantasyland[j]) for j in others))
        return self._view

    def options(self) -> list:
        """The pending decision's legal ``(board, discard)`` options (:func:`options_of`; a Fantasyland's are too
        many to list: use :func:`cpoker.strategies.ofc.fantasyland.fantasyland`)."""
        seat, cards, keep = self._pending()
        if self._fantasyland[seat]:
            raise StrategyError("a Fantasyland's boards are too many to list: set it with the Fantasyland solver")
        return options_of(self._boards[seat], cards, keep)

    def apply(self, answer: object) -> Board:
        """Place the pending decision's cards as ``answer`` (the board it leaves, or its text) says, and move on.
        An answer of any other type is refused as :func:`placed_board` refuses it.

        Raises
        ------
        StrategyError
            For an answer that is not a legal board for the decision (:func:`placed_board`); the hand is then
            unchanged, and the caller may :meth:`forfeit` it or ask again.
        """
        view = self.view()
        board = placed_board(view, answer)
        kept = set(board.cards)
        discards = tuple(c for c in view.cards if c not in kept)
        seat = view.seat
        self._decisions.append(Decision(seat=seat, step=self._step, board=view.board, cards=view.cards,
                                        keep=view.keep, seed=view.seed, placed=board, discards=discards,
                                        **_seen(view)))
        self._dealt[seat] += len(view.cards)
        self._discards[seat] = tuple(sorted((*self._discards[seat], *discards)))
        self._boards[seat] = board
        self._cursor = seat + 1
        self._advance()
        return board

    def forfeit(self, reason: str) -> None:
        """The seat to decide forfeits the hand (a fault: its answer broke the rules, or its strategy failed): it
        is asked nothing more, and the hand scores it as a foul."""
        view = self.view()
        seat = view.seat
        self._decisions.append(Decision(seat=seat, step=self._step, board=view.board, cards=view.cards,
                                        keep=view.keep, seed=view.seed, placed=None, fault=str(reason),
                                        **_seen(view)))
        self._dealt[seat] += len(view.cards)
        self._faults[seat] = str(reason)
        self._cursor = seat + 1
        self._advance()

    def play(self, strategy: "OfcStrategy") -> Optional[Board]:
        """Ask ``strategy`` the pending decision and apply its answer; a fault (:class:`StrategyError`, or any
        exception of the strategy's) forfeits the hand for that seat (``None``).  A broken bot
        (:class:`~cpoker.BotBroken`), or one that cannot start, stops the job: it is raised."""
        try:
            return self.apply(_ask(strategy, self.view()))
        except BotCannotStart:
            raise
        except StrategyError as error:
            self.forfeit(str(error))
            return None

    def record(self) -> HandRecord:
        """The hand settled (:func:`~cpoker.game.ofc.scoring.settle`): a forfeited seat scores as a foul.

        Raises
        ------
        StrategyError
            When the hand is not over.
        """
        if not self.is_over:
            raise StrategyError(f"the hand is not over: seat {self._actor} is still to decide")
        forfeited = [k + 1 for k, fault in enumerate(self._faults) if fault is not None]
        flags = [bool(size) for size in self._fantasyland]
        settlement = settle(self._boards, self.rules, flags, forfeited=forfeited)
        next_sizes = [next_fantasyland(scored, self.rules, flag) for scored, flag in zip(settlement.boards, flags)]
        return HandRecord(boards=tuple(self._boards), discards=tuple(self._discards), settlement=settlement,
                          fantasyland=tuple(flags), faults=tuple(self._faults), next_fantasyland=tuple(next_sizes),
                          decisions=tuple(self._decisions))


def _seen(view: OfcView) -> dict:
    """What a decision's seat saw beside its own board, as :class:`Decision` records it."""
    return {"opponents": view.opponents, "opponent_fantasylands": view.fantasyland_cards, "dead": view.discards}


def _ask(strategy: OfcStrategy, view: OfcView) -> object:
    """``strategy``'s answer to ``view``: a fault of any kind is a :class:`StrategyError`; a broken bot is raised."""
    try:
        return strategy(view)
    except (StrategyError, BotBroken):  # a fault already named; a broken bot stops the job
        raise
    except Exception as error:  # a strategy of the user's may fail in any way: the fault is its hand's
        raise StrategyError(f"raised {type(error).__name__}: {str(error)[:120]}") from None


def played_hand(strategies: Sequence[OfcStrategy], rules: OfcRules, deck: "Sequence[int] | np.ndarray",
                fantasyland: Sequence[int], seeds: Callable[[int, int], int]) -> OfcHand:
    """Play one hand on an :class:`OfcHand` to its end: ``strategies[k]`` sits ``k`` seats after the button, in
    Fantasyland of ``fantasyland[k]`` cards (0: not); ``deck`` holds at least ``17 x players`` card ids;
    ``seeds(seat, step)`` gives each decision's seed."""
    hand = OfcHand(rules, deck, fantasyland, seeds)
    while hand.actor is not None:
        hand.play(strategies[hand.actor])
    return hand


def play_hand(strategies: Sequence[OfcStrategy], rules: OfcRules, deck: "Sequence[int] | np.ndarray",
              fantasyland: Sequence[int], seeds: Callable[[int, int], int]) -> HandRecord:
    """The :class:`HandRecord` of :func:`played_hand`."""
    return played_hand(strategies, rules, deck, fantasyland, seeds).record()
