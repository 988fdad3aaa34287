"""An open-face hand against a strategy, one decision at a time, for a person at a screen (the web page's Open
face tab, ``POST /api/ofc/play``).

Nothing is kept between requests: a request names the session's seed, the hand's number, who starts it in
Fantasyland, and the person's placements so far; the hand (an :class:`~cpoker.game.ofc.hand.OfcHand`, the same
deck and the same seeded opponent decisions every time) is stepped up to the person's next decision, whose view
is returned, or to its end, which is settled and reviewed: each of the person's decisions with what the placement
solver says it cost.  Hand ``h`` of a session deals from ``default_rng([seed, h])``; the person acts first in
even hands, second in odd ones (the button moves).

**One ranking of a decision.**  A decision's options are ranked by :func:`ranked` with the decision's
``ranking_seed`` (in its view) and the review's samples: the page's Hint asks exactly that, and the review at the
hand's end finds the same ranking (kept, complete, in a small cache), so following the Hint is never called a
mistake.  The opponent's decisions are kept too (a pure function of what it sees), so each request computes only
what is new; the review runs under the request's time budget (a partial ranking says so).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from cpoker.game.cards import format_cards, parse_cards
from cpoker.game.ofc.boards import Board, as_board
from cpoker.game.ofc.hand import HandRecord, OfcHand, OfcView, seeded, table_deck
from cpoker.game.ofc.rules import OfcRules
from cpoker.game.ofc.scoring import row_results
from cpoker.jobs.ofc.match import resolve_ofc_strategy
from cpoker.system.errors import ArrangementError, CpokerError, OptionError, StrategyError
from cpoker.system.limits import check_int, check_seed

MAX_HAND = 10_000
REVIEW_SAMPLES = 1000
JS_SEEDS = 2**53  # the seeds a JavaScript number holds exactly
KEPT_RANKINGS = 64  # rankings kept, the least recently used dropped first (an opening's 232 options: ~0.2 MB)
KEPT_BOARDS = 4096  # opponent decisions kept (a board each)


class _Kept:
    """A small thread-safe cache of results that are pure functions of their key (least recently used out)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], Any], keep: Callable[[Any], bool] = lambda _: True) -> Any:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = compute()
        if keep(value):
            with self.lock:
                self.items[key] = value
                while len(self.items) > self.size:
                    self.items.popitem(last=False)
        return value


_RANKINGS = _Kept(KEPT_RANKINGS)
_OPPONENT_BOARDS = _Kept(KEPT_BOARDS)


def ranking_seed(view: OfcView) -> int:
    """The seed a decision's options are ranked with (the Hint's and the review's): the decision's own seed, cut
    to what a JavaScript number holds."""
    return view.seed % JS_SEEDS


def ranked(board: object, cards: object, rules: OfcRules, opponents: Optional[Sequence] = None, dead: object = (),
           samples: int = 1000, seed: Optional[int] = None, fantasyland_value: Optional[float] = None,
           jobs: Optional[int] = None, time_budget: Optional[float] = None,
           fantasylands: Optional[Sequence[int]] = None, compare: object = None):
    """:func:`cpoker.jobs.ofc.placement.place`, a complete answer kept for the next call with the same question (the
    web page's Hint, then its review)."""
    from cpoker.jobs.ofc.placement import place

    def solve():
        return place(board, cards, rules, opponents=opponents, dead=dead, samples=samples, seed=seed,
                     fantasyland_value=fantasyland_value, jobs=jobs, time_budget=time_budget,
                     fantasylands=fantasylands, compare=compare)

    if seed is None:  # (a drawn seed: nothing to find again)
        return solve()
    try:  # the question in one spelling: the page's text and the table's objects find the same answer
        key = ("place", str(as_board(board)), format_cards(parse_cards(cards, unique=False), sort=False), rules,  # type: ignore
               tuple(str(as_board(other)) for other in opponents or ()),
               format_cards(parse_cards(dead, unique=False)) if dead not in (None, "", ()) else "",  # type: ignore
               samples, seed, fantasyland_value,
               tuple(fantasylands) if isinstance(fantasylands, (list, tuple)) else fantasylands,
               None if compare is None else str(as_board(compare)))  # type: ignore[arg-type]
    except CpokerError:
        return solve()  # (which says what is wrong)
    return _RANKINGS.get(key, solve, keep=lambda answer: not answer.partial)


def ranked_fantasyland(cards: object, rules: OfcRules, samples: int, seed: int):
    """The Fantasyland solver's ``ev`` board, kept as :func:`ranked` keeps placements."""
    from cpoker.strategies.ofc.fantasyland import fantasyland

    return _RANKINGS.get(("fantasyland", str(cards), rules, samples, seed),
                         lambda: fantasyland(cards, rules, "ev", samples=samples, seed=seed))  # type: ignore


@dataclass(frozen=True)
class TableTurn:
    """Where a hand stands for the person: their next decision, or the hand's end with its review and its history
    (:mod:`cpoker.game.ofc.history`, what the page exports and ``cpoker ofc review`` reads)."""

    view: Optional[OfcView]
    opponents: tuple
    seat: int
    record: Optional[HandRecord] = None
    reviews: tuple = ()
    history: Optional[dict] = None

    @property
    def opponent(self) -> Board:
        """The first opponent's board (the one after the person)."""
        return self.opponents[0]

    def to_dict(self) -> dict:
        data: dict = {"seat": self.seat, "opponent": str(self.opponent),
                      "opponents": [str(board) for board in self.opponents], "done": self.view is None}
        if self.view is not None:
            data["you"] = {**self.view.to_dict(), "ranking_seed": ranking_seed(self.view)}
            del data["you"]["seed"]  # (a 63-bit number JavaScript cannot hold exactly: ranking_seed is the one to use)
            return data
        record = self.record
        assert record is not None  # (a hand over has its record)
        players = len(record.boards)
        you = self.seat
        others = [(you + k) % players for k in range(1, players)]  # in seat order after the person
        data["you"] = {"board": str(record.boards[you]), "discards": format_cards(record.discards[you])}
        data["opponent"] = str(record.boards[others[0]])
        data["opponents"] = [str(record.boards[k]) for k in others]
        data["settlement"] = record.settlement.to_dict()
        data["rows"] = list(row_results(record.settlement.boards[you], record.settlement.boards[others[0]]))
        data["rows_each"] = [list(row_results(record.settlement.boards[you], record.settlement.boards[k]))
                             for k in others]
        data["points"] = record.settlement.results[you]
        data["next_fantasyland"] = {"you": record.next_fantasyland[you],
                                    "opponent": record.next_fantasyland[others[0]],
                                    "opponents": [record.next_fantasyland[k] for k in others]}
        data["review"] = list(self.reviews)
        data["history"] = self.history
        return data


def table_turn(rules: OfcRules, seed: int, hand: int, placements: Sequence[str], fantasyland: Sequence[int] = (0, 0),
               opponent: str = "mc", review_samples: int = REVIEW_SAMPLES, jobs: Optional[int] = None,
               time_budget: Optional[float] = None, opponents: int = 1) -> TableTurn:
    """Replay hand ``hand`` of the session ``seed`` with the person's ``placements`` (each the board after one of
    their decisions) and return their next decision or the hand's end (see the module docstring).

    ``opponents``: 1 (heads-up) or 2 (three-handed, as Pineapple is most often played), each playing
    ``opponent``; the person sits ``hand % players`` places after the button.  ``fantasyland``: the person's
    and then each opponent's Fantasyland size for this hand (0: none), in seat order after the person, as the
    previous hand's answer said (missing ones are 0).  ``jobs``: the threads (default: all cores);
    ``time_budget``: seconds the review may take (its rankings then rest on fewer samples and say so).

    Raises
    ------
    ArrangementError
        For a placement that is not a legal board for its decision, or more placements than the hand has.
    OptionError, StrategyError
        For a bad seed, hand number, number of opponents, Fantasyland size or opponent.
    """
    from cpoker.game.ofc.history import hand_history
    from cpoker.jobs.job import numba_threads

    seed = check_seed(seed)
    hand = check_int("hand", hand, 0, MAX_HAND)
    opponents = check_int("opponents", opponents, 1, min(2, rules.max_players - 1))
    players = opponents + 1
    if len(fantasyland) > players:
        raise OptionError(f"fantasyland gives {len(fantasyland)} sizes for {players} players")
    sizes = list(fantasyland) + [0] * (players - len(fantasyland))  # the person's, then each opponent's
    name, other = resolve_ofc_strategy(opponent)
    seat = hand % players
    given = list(placements)
    seat_sizes = [sizes[(k - seat) % players] for k in range(players)]
    started = time.monotonic()
    try:
        table = OfcHand(rules, table_deck([seed, hand]), seat_sizes, seeded(seed, hand))
    except OptionError as error:
        raise ArrangementError(str(error)) from None
    views: list = []
    with numba_threads(jobs):
        while table.actor is not None:
            if table.actor != seat:
                table.play(lambda shown: _OPPONENT_BOARDS.get((name, shown), lambda: other(shown)))
                continue
            view = table.view()
            if len(views) == len(given):
                return TableTurn(view=view, opponents=view.opponents, seat=seat)
            try:
                board = table.apply(given[len(views)])
            except StrategyError as error:
                raise ArrangementError(f"placement {len(views) + 1}: {error}") from None
            views.append((view, board))
        if len(views) < len(given):
            raise ArrangementError(f"the hand took {len(views)} placements, not {len(given)}")
        record = table.record()
        reviews = []
        for index, (view, board) in enumerate(views):
            left = None if time_budget is None else \
                max(time_budget - (time.monotonic() - started), 0.0) / (len(views) - index)
            reviews.append(_review(view, board, index, review_samples, left))
    others = tuple(record.boards[(seat + k) % players] for k in range(1, players))
    names = ["you" if k == seat else name for k in range(players)]
    history = hand_history(table, names, id=f"{seed}-{hand}", source={"kind": "web-table", "seed": seed,
                                                                          "hand": hand, "opponent": name})
    return TableTurn(view=None, opponents=others, seat=seat, record=record, reviews=tuple(reviews),
                     history=history.to_dict())


def _review(view: OfcView, chosen: Board, index: int, samples: int, time_budget: Optional[float]) -> dict:
    """One decision of the person's: the placement solver's best option and what theirs cost, on the same deals,
    ranked as the Hint ranks it (:func:`ranking_seed`)."""
    entry = {"decision": index + 1, "board": str(view.board), "cards": format_cards(view.cards, sort=False),
             "chosen": str(chosen), "ranking_seed": ranking_seed(view), "samples": samples}
    if view.fantasyland:
        best = ranked_fantasyland(view.cards, view.rules, samples, ranking_seed(view))
        return {**entry, "fantasyland": True, "best": str(best.board), "ev_best": best.value}
    solved = ranked(view.board, view.cards, view.rules, opponents=list(view.opponents), dead=view.discards,
                    samples=samples, seed=ranking_seed(view), jobs=None, fantasylands=view.fantasyland_cards,
                    time_budget=None if time_budget is None else max(time_budget, 1e-3))
    mine = next(option for option in solved.options if option.board.same_rows(chosen))
    rank = 1 + solved.options.index(mine)
    return {**entry, "fantasyland": False, "best": str(solved.best.board), "ev_best": solved.best.ev,
            "ev_chosen": mine.ev, "loss": mine.loss, "loss_interval": list(mine.loss_interval), "rank": rank,
            "options": len(solved.options), "samples": solved.samples, "partial": solved.partial}
