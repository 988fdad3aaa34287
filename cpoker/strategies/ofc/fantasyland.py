"""The Fantasyland solver: the best board to set from the 13 to 17 cards a Fantasyland deals.

* ``objective="ev"`` (the default): the board that does not foul with the highest expected value: its
  royalties, plus what its rows win against an opponent (the scoop bonus included), plus what staying in
  Fantasyland is worth when it stays.  The opponent is ``samples`` boards dealt from the cards left and set
  by the rollout policy, as the placement solver completes boards
  (:mod:`cpoker.strategies.ofc.rollout_policy`); the best board against them is found exactly
  (:func:`cpoker._kernels.fantasyland.top_fantasyland_boards_ev`: a bound on every board of a back, and of a
  back and middle, from each row's own points).
* ``objective="royalties"``: the board that does not foul with the most royalties, found exactly
  (:mod:`cpoker._kernels.fantasyland`: every row evaluated once, a search bounded by royalties that provably
  keeps the best); ties go to the board that stays in Fantasyland, then to the strongest back, middle and front.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from cpoker.game.cards import Card, CardsLike, format_cards, parse_cards
from cpoker.game.ofc.boards import ROW_NAMES, Board
from cpoker.game.dealing import new_seed, rest_of_deck
from cpoker.strategies.ofc.rollout_policy import fantasyland_value_of, sampled_opponents
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
from cpoker.game.ofc.scoring import next_fantasyland, score_board
from cpoker.system.errors import CardError, OptionError
from cpoker.system.limits import check_int, check_seed

MIN_CARDS, MAX_CARDS = 13, 17
OBJECTIVES = ("ev", "royalties")
MAX_SAMPLES = 100_000
MAX_RUNNERS_UP = 20


@dataclass(frozen=True)
class FantasylandBoard:
    """The answer of :func:`fantasyland`.

    Attributes
    ----------
    board, discards
        The board to set, and the cards left out of it (face down).
    royalties
        ``(front, middle, back)`` units of the board (the rules' multiplier applied).
    stays
        Whether the board keeps the player in Fantasyland, and ``next_fantasyland`` the cards of that next
        Fantasyland (``None`` when it does not stay).
    value
        What the objective maximised: for ``"ev"``, the board's expected points against the sampled opponent
        plus ``fantasyland_value`` if it stays; for ``"royalties"``, the royalty total.
    samples, seed, fantasyland_value
        The ``"ev"`` objective's opponent boards, their seed, and what staying was counted (0 and ``None``
        for ``"royalties"``).
    """

    cards: tuple
    board: Board
    discards: tuple
    royalties: tuple
    stays: bool
    next_fantasyland: "int | None"
    objective: str
    value: float
    rules: OfcRules
    seconds: float
    samples: int = 0
    seed: "int | None" = None
    fantasyland_value: float = 0.0
    runners_up: tuple = ()

    @property
    def total(self) -> int:
        return sum(self.royalties)

    def to_dict(self) -> dict:
        return {"cards": format_cards(self.cards), "board": str(self.board), "rows": self.board.to_dict(),
                "discards": format_cards(self.discards), "royalties": dict(zip(ROW_NAMES, self.royalties)),
                "royalty_total": self.total, "stays": self.stays, "next_fantasyland": self.next_fantasyland,
                "objective": self.objective, "value": self.value, "samples": self.samples, "seed": self.seed,
                "fantasyland_value": self.fantasyland_value, "rules": self.rules.to_dict(), "seconds": self.seconds,
                "runners_up": [board.to_dict() for board in self.runners_up]}


def _tables(rules: OfcRules) -> tuple:
    """The kernel's royalty arrays: front pairs and trips by rank, middle and back by hand (from the rules'
    kernel table, :mod:`cpoker._kernels.ofc_board`)."""
    table = rules.kernel_rules()
    return table[0:13].copy(), table[13:26].copy(), table[26:36].copy(), table[36:46].copy()


def fantasyland(cards: CardsLike, rules: "OfcRules | str | None" = None, objective: str = "ev",
                samples: int = 1000, seed: "int | None" = None,
                fantasyland_value: "float | None" = None, runners_up: int = 0) -> FantasylandBoard:
    """The best board of a Fantasyland hand: 13 of ``cards`` (13 to 17 distinct cards), the rest discarded.

    Parameters
    ----------
    cards
        The Fantasyland's cards, e.g. ``"As Ad Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d 3h"`` (14, Pineapple's).
    rules
        Open-face rules (default ``ofc``): their royalty tables and what keeps a player in Fantasyland.
    objective
        ``"ev"`` (default): the non-fouling board with the highest expected value against ``samples`` opponent
        boards; ``"royalties"``: the non-fouling board with the most royalties.  Both exactly.
    samples, seed
        The ``"ev"`` objective's opponent boards (1 to 100,000; default 1000) and their seed (default: drawn,
        and reported).
    fantasyland_value
        Points a board that stays in Fantasyland counts under ``"ev"`` (default: the rules' measured value,
        :data:`~cpoker.strategies.ofc.rollout_policy.DEFAULT_FANTASYLAND_VALUE`).
    runners_up
        Under ``"ev"``: the next best boards too, up to 20, best first, each of other rows than the boards above
        it (another kicker discarded is the same board), with their values and whether they stay
        (``FantasylandBoard.runners_up``, found exactly by the same search).

    Raises
    ------
    CardError
        Unless ``cards`` are 13 to 17 distinct known cards.
    OptionError
        For an unknown objective, a bad sample count, seed or Fantasyland value.

    Examples
    --------
    >>> best = fantasyland("As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d", objective="royalties")
    >>> str(best.board), best.royalties, best.discards
    ('As Ad Kh / Ac Kd Qs Jh Th / 9c 8c 7c 6c 5c', (9, 4, 15), (Card('2d'),))
    """
    from cpoker._kernels.fantasyland import best_fantasyland_board
    from cpoker.system.interrupts import shielded

    rules = resolve_ofc_rules(rules)
    if not isinstance(objective, str) or objective not in OBJECTIVES:
        raise OptionError(f"unknown objective {objective!r}; known: {', '.join(OBJECTIVES)}")
    dealt = parse_cards(cards)
    if not MIN_CARDS <= len(dealt) <= MAX_CARDS:
        raise CardError(f"a Fantasyland hand has {MIN_CARDS} to {MAX_CARDS} cards, got {len(dealt)}")
    ids = np.array(sorted(int(c) for c in dealt), dtype=np.int64)
    stays = rules.stay_flags
    started = time.perf_counter()
    others = check_int("runners_up", runners_up, 0, MAX_RUNNERS_UP)
    if others and objective != "ev":
        raise OptionError("runners_up are the ev objective's next best boards; the royalties objective gives one")
    if objective == "ev":
        samples = check_int("samples", samples, 1, MAX_SAMPLES)
        seed = new_seed() if check_seed(seed) is None else seed
        worth = fantasyland_value_of(rules, fantasyland_value)
        with shielded():
            found = _best_by_ev(ids, rules, stays, samples, int(seed), worth, 1 + others)  # type: ignore
    else:
        samples, seed, worth = 0, None, 0.0
        with shielded():
            back, middle, front, _, _ = best_fantasyland_board(ids, *_tables(rules), *stays)
        found = [(back, middle, front, None)]
    seconds = time.perf_counter() - started

    def row(mask: int) -> tuple:
        return tuple(Card(int(ids[i])) for i in range(len(ids)) if mask >> i & 1)

    def answer(back: int, middle: int, front: int, value: "float | None", runners: tuple) -> FantasylandBoard:
        board = Board(row(front), row(middle), row(back))
        discards = tuple(Card(int(c)) for c in ids if Card(int(c)) not in set(board.cards))
        scored = score_board(board, rules, in_fantasyland=True)
        return FantasylandBoard(cards=tuple(sorted(dealt)), board=board, discards=discards,
                                royalties=scored.royalties, stays=scored.stays,
                                next_fantasyland=next_fantasyland(scored, rules, True) or None, objective=objective,
                                value=float(scored.total) if value is None else float(value), rules=rules,
                                seconds=seconds, samples=samples, seed=seed, fantasyland_value=worth,
                                runners_up=runners)

    runners = tuple(answer(back, middle, front, value, ()) for back, middle, front, value in found[1:])
    back, middle, front, value = found[0]
    return answer(back, middle, front, value, runners)


def fantasyland_values(boards: "list[Board]", cards: CardsLike, rules: "OfcRules | str | None" = None,
                       samples: int = 1000, seed: int = 0, fantasyland_value: "float | None" = None) -> np.ndarray:
    """Each board's value in each sample of the ``"ev"`` objective: ``[board, sample]``, against the very
    opponent boards ``fantasyland(cards, rules, "ev", samples, seed, fantasyland_value)`` meets (the points the
    board wins from the sample's board, plus what staying is worth when it stays); a row's mean is the value
    that objective gives the board.  The review (:mod:`cpoker.jobs.ofc.review`) compares a Fantasyland set by
    a player with the solver's on them, pair by pair.

    Raises
    ------
    CardError
        Unless each board is 13 of ``cards`` (13 to 17 distinct cards).
    """
    from cpoker._kernels.ofc_board import board_points

    rules = resolve_ofc_rules(rules)
    dealt = parse_cards(cards)
    ids = np.array(sorted(int(c) for c in dealt), dtype=np.int64)
    worth = fantasyland_value_of(rules, fantasyland_value)
    keys, royalty, fouled = sampled_opponents(rules, rest_of_deck(ids).astype(np.int64), samples,
                                              np.random.default_rng([seed, len(ids)]), worth)
    values = np.empty((len(boards), samples))
    for row, board in enumerate(boards):
        if not board.is_complete or not set(board.cards) <= set(dealt):
            raise CardError(f"{board} is not a full board of the Fantasyland's cards ({format_cards(dealt)})")
        scored = score_board(board, rules, in_fantasyland=True)
        mine = (*scored.keys, scored.total, scored.fouled)
        values[row] = [board_points(*mine, keys[j, 0], keys[j, 1], keys[j, 2], royalty[j], fouled[j], rules.scoop)
                       for j in range(samples)]
        values[row] += worth * scored.stays
    return values


@dataclass(frozen=True)
class FantasylandComparison:
    """A Fantasyland board set by a player next to the solver's ``"ev"`` board, on the same opponent boards
    (:func:`compare_fantasyland`): the board's value, and what it lost against the best with the standard error
    of that paired difference (0 for the best's own rows)."""

    best: FantasylandBoard
    board: Board
    value: float
    loss: float
    loss_stderr: float

    def to_dict(self) -> dict:
        return {"board": str(self.board), "value": self.value, "loss": self.loss, "loss_stderr": self.loss_stderr,
                "best": str(self.best.board), "best_value": self.best.value}


def compare_fantasyland(cards: CardsLike, board: "Board | str", rules: "OfcRules | str | None" = None,
                        samples: int = 1000, seed: "int | None" = None,
                        fantasyland_value: "float | None" = None) -> FantasylandComparison:
    """``board`` (13 of ``cards``, fouled or not) against :func:`fantasyland`'s ``"ev"`` board: both valued on the
    very same opponent boards (:func:`fantasyland_values`), so the loss has the small error of a paired difference
    (the review of a Fantasyland, the web page's drill).

    Raises
    ------
    CardError, ArrangementError
        Unless ``board`` is a full board of 13 of the Fantasyland's cards; as :func:`fantasyland` otherwise.
    """
    import math

    from cpoker.game.ofc.boards import as_board

    best = fantasyland(cards, rules, "ev", samples=samples, seed=seed, fantasyland_value=fantasyland_value)
    chosen = as_board(board)
    values = fantasyland_values([best.board, chosen], cards, best.rules, best.samples, int(best.seed),  # type: ignore
                                fantasyland_value)
    if chosen.same_rows(best.board):
        lost, spread = 0.0, 0.0
    else:
        differences = values[0] - values[1]
        lost = max(float(differences.mean()), 0.0)
        spread = float(differences.std(ddof=1)) / math.sqrt(best.samples) if best.samples > 1 else 0.0
    return FantasylandComparison(best=best, board=chosen, value=float(values[1].mean()), loss=lost, loss_stderr=spread)


def warm_up(rules: "OfcRules | str | None" = None, objective: str = "ev") -> None:
    """Compile (or load from numba's cache) the kernels of :func:`fantasyland` under the cold start's notice
    (:func:`~cpoker.system.notice.compile_notice`), so that a first call's time is the solver's own: a cold
    install spends some 19 s compiling them once."""
    from cpoker.system.notice import compile_notice

    with compile_notice():
        fantasyland("As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c", rules, objective, samples=4, seed=0)


def _best_by_ev(ids: np.ndarray, rules: OfcRules, stays: tuple, samples: int, seed: int, worth: float,
                count: int = 1) -> list:
    """The ``"ev"`` objective's ``count`` best boards, ``(back, middle, front, value)`` each (position masks; fewer
    when fewer exist): the kernel's search against the sampled opponent boards that do not foul, plus what the
    fouled ones pay whatever the board."""
    from cpoker._kernels.fantasyland import top_fantasyland_boards_ev

    unseen = rest_of_deck(ids).astype(np.int64)
    keys, royalty, fouled = sampled_opponents(rules, unseen, samples, np.random.default_rng([seed, len(ids)]),
                                              worth)
    pairs, trips, middle, back = (units * rules.royalty_multiplier for units in _tables(rules))
    standing = np.ascontiguousarray(keys[~fouled])
    masks, values = top_fantasyland_boards_ev(ids, pairs, trips, middle, back, *stays, worth, standing, samples,
                                              rules.scoop, count)
    # a fouled opponent pays the rows and the scoop; one that stands is paid its royalties
    paid = (int(fouled.sum()) * (3 + rules.scoop) - int(royalty[~fouled].sum())) / samples
    return [(int(m[0]), int(m[1]), int(m[2]), float(v) + paid) for m, v in zip(masks, values) if np.isfinite(v)]
