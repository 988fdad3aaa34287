"""The Fantasyland solver: the best board to set from the 13 to 17 cards a Fantasyland deals.

* ``objective="ev"`` (the default): the board that does not foul with the highest expected value: its
  royalties, plus what its rows win against an opponent (the scoop bonus included), plus what staying in
  Fantasyland is worth when it stays.  The opponent is ``samples`` boards dealt from the cards left and set
  by the rollout policy, as the placement solver completes boards
  (:mod:`cpoker.strategies.ofc.rollout_policy`); the best board against them is found exactly
  (:func:`cpoker._kernels.fantasyland.best_fantasyland_board_ev`: a bound on every board of a back, and of a
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

    @property
    def total(self) -> int:
        return sum(self.royalties)

    def to_dict(self) -> dict:
        return {"cards": format_cards(self.cards), "board": str(self.board), "rows": self.board.to_dict(),
                "discards": format_cards(self.discards), "royalties": dict(zip(ROW_NAMES, self.royalties)),
                "royalty_total": self.total, "stays": self.stays, "next_fantasyland": self.next_fantasyland,
                "objective": self.objective, "value": self.value, "samples": self.samples, "seed": self.seed,
                "fantasyland_value": self.fantasyland_value, "rules": self.rules.to_dict(), "seconds": self.seconds}


def _tables(rules: OfcRules) -> tuple:
    """The kernel's royalty arrays: front pairs and trips by rank, middle and back by hand (from the rules'
    kernel table, :mod:`cpoker._kernels.ofc_board`)."""
    table = rules.kernel_rules()
    return table[0:13].copy(), table[13:26].copy(), table[26:36].copy(), table[36:46].copy()


def fantasyland(cards: CardsLike, rules: "OfcRules | str | None" = None, objective: str = "ev",
                samples: int = 1000, seed: "int | None" = None,
                fantasyland_value: "float | None" = None) -> FantasylandBoard:
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
    if objective == "ev":
        samples = check_int("samples", samples, 1, MAX_SAMPLES)
        seed = new_seed() if check_seed(seed) is None else seed
        worth = fantasyland_value_of(rules, fantasyland_value)
        with shielded():
            back, middle, front, value = _best_by_ev(ids, rules, stays, samples, int(seed), worth)  # type: ignore
    else:
        samples, seed, worth = 0, None, 0.0
        with shielded():
            back, middle, front, _, _ = best_fantasyland_board(ids, *_tables(rules), *stays)
    seconds = time.perf_counter() - started

    def row(mask: int) -> tuple:
        return tuple(Card(int(ids[i])) for i in range(len(ids)) if mask >> i & 1)

    board = Board(row(front), row(middle), row(back))
    discards = tuple(Card(int(c)) for c in ids if Card(int(c)) not in set(board.cards))
    scored = score_board(board, rules, in_fantasyland=True)
    return FantasylandBoard(cards=tuple(sorted(dealt)), board=board, discards=discards, royalties=scored.royalties,
                            stays=scored.stays, next_fantasyland=next_fantasyland(scored, rules, True) or None,
                            objective=objective,
                            value=float(value) if objective == "ev" else float(scored.total), rules=rules,
                            seconds=seconds, samples=samples, seed=seed, fantasyland_value=worth)


def warm_up(rules: "OfcRules | str | None" = None, objective: str = "ev") -> None:
    """Compile (or load from numba's cache) the kernels of :func:`fantasyland` under the cold start's notice
    (:func:`~cpoker.system.notice.compile_notice`), so that a first call's time is the solver's own: a cold
    install spends some 19 s compiling them once."""
    from cpoker.system.notice import compile_notice

    with compile_notice():
        fantasyland("As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c", rules, objective, samples=4, seed=0)


def _best_by_ev(ids: np.ndarray, rules: OfcRules, stays: tuple, samples: int, seed: int, worth: float) -> tuple:
    """The ``"ev"`` objective's board (position masks) and its value: the kernel's search against the sampled
    opponent boards that do not foul, plus what the fouled ones pay whatever the board."""
    from cpoker._kernels.fantasyland import best_fantasyland_board_ev

    unseen = rest_of_deck(ids).astype(np.int64)
    keys, royalty, fouled = sampled_opponents(rules, unseen, samples, np.random.default_rng([seed, len(ids)]),
                                              worth)
    pairs, trips, middle, back = (units * rules.royalty_multiplier for units in _tables(rules))
    standing = np.ascontiguousarray(keys[~fouled])
    back_mask, middle_mask, front_mask, value = best_fantasyland_board_ev(
        ids, pairs, trips, middle, back, *stays, worth, standing, samples, rules.scoop)
    # a fouled opponent pays the rows and the scoop; one that stands is paid its royalties
    value += (int(fouled.sum()) * (3 + rules.scoop) - int(royalty[~fouled].sum())) / samples
    return back_mask, middle_mask, front_mask, value
