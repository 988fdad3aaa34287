"""The Fantasyland solver: the best board to set from the 13 to 17 cards a Fantasyland deals.

``objective="royalties"``: the board that does not foul with the most royalties, found exactly
(:mod:`cpoker._kernels.fantasyland`: every row evaluated once, a search bounded by royalties that provably
keeps the best); ties go to the board that stays in Fantasyland, then to the strongest back, middle and front.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from cpoker.game.cards import Card, CardsLike, format_cards, parse_cards
from cpoker.game.ofc.boards import ROW_NAMES, Board
from cpoker.game.ofc.rules import FIVE_CARD_HANDS, RANK_NAMES, OfcRules, resolve_ofc_rules
from cpoker.game.ofc.scoring import score_board
from cpoker.system.errors import CardError, OptionError

MIN_CARDS, MAX_CARDS = 13, 17
OBJECTIVES = ("royalties",)


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
        What the objective maximised: for ``"royalties"``, the royalty total.
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

    @property
    def total(self) -> int:
        return sum(self.royalties)

    def to_dict(self) -> dict:
        return {"cards": format_cards(self.cards), "board": str(self.board), "rows": self.board.to_dict(),
                "discards": format_cards(self.discards), "royalties": dict(zip(ROW_NAMES, self.royalties)),
                "royalty_total": self.total, "stays": self.stays, "next_fantasyland": self.next_fantasyland,
                "objective": self.objective, "value": self.value, "rules": self.rules.to_dict(),
                "seconds": self.seconds}


def _tables(rules: OfcRules) -> tuple:
    """The kernel's royalty arrays: front pairs and trips by rank, middle and back by hand."""
    pairs, trips = dict(rules.royalties.front_pairs), dict(rules.royalties.front_trips)
    middle, back = dict(rules.royalties.middle), dict(rules.royalties.back)
    return (np.array([pairs.get(rank, 0) for rank in RANK_NAMES], dtype=np.int64),
            np.array([trips.get(rank, 0) for rank in RANK_NAMES], dtype=np.int64),
            np.array([middle.get(hand, 0) for hand in FIVE_CARD_HANDS], dtype=np.int64),
            np.array([back.get(hand, 0) for hand in FIVE_CARD_HANDS], dtype=np.int64))


def fantasyland(cards: CardsLike, rules: "OfcRules | str | None" = None,
                objective: str = "royalties") -> FantasylandBoard:
    """The best board of a Fantasyland hand: 13 of ``cards`` (13 to 17 distinct cards), the rest discarded.

    Parameters
    ----------
    cards
        The Fantasyland's cards, e.g. ``"As Ad Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d 3h"`` (14, Pineapple's).
    rules
        Open-face rules (default ``ofc``): their royalty tables and what keeps a player in Fantasyland.
    objective
        ``"royalties"``: the non-fouling board with the most royalties, exactly.

    Raises
    ------
    CardError
        Unless ``cards`` are 13 to 17 distinct known cards.
    OptionError
        For an unknown objective.

    Examples
    --------
    >>> best = fantasyland("As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d")
    >>> str(best.board), best.royalties, best.discards
    ('As Ad Kh / Ac Kd Qs Jh Th / 9c 8c 7c 6c 5c', (9, 4, 15), (Card('2d'),))
    """
    from cpoker._kernels.fantasyland import best_fantasyland_board
    from cpoker.system.interrupts import shielded

    rules = resolve_ofc_rules(rules)
    if not isinstance(objective, str) or objective not in OBJECTIVES:
        raise OptionError(f"unknown objective {objective!r}; known: {', '.join(OBJECTIVES)} (the expected value "
                          "comes with the placement solver)")
    dealt = parse_cards(cards)
    if not MIN_CARDS <= len(dealt) <= MAX_CARDS:
        raise CardError(f"a Fantasyland hand has {MIN_CARDS} to {MAX_CARDS} cards, got {len(dealt)}")
    ids = np.array(sorted(int(c) for c in dealt), dtype=np.int64)
    started = time.perf_counter()
    with shielded():
        back, middle, front, _, _ = best_fantasyland_board(
            ids, *_tables(rules), "front trips" in rules.stay, "middle full house" in rules.stay,
            "back four of a kind" in rules.stay)
    seconds = time.perf_counter() - started

    def row(mask: int) -> tuple:
        return tuple(Card(int(ids[i])) for i in range(len(ids)) if mask >> i & 1)

    board = Board(row(front), row(middle), row(back))
    discards = tuple(Card(int(c)) for c in ids if Card(int(c)) not in set(board.cards))
    scored = score_board(board, rules, in_fantasyland=True)
    next_fantasyland = None
    if scored.stays:
        # the repeat's size, else what its front earns, else the smallest Fantasyland the rules deal
        next_fantasyland = rules.fantasyland_repeat or scored.fantasyland or min(dict(rules.fantasyland).values())
    return FantasylandBoard(cards=tuple(sorted(dealt)), board=board, discards=discards, royalties=scored.royalties,
                            stays=scored.stays, next_fantasyland=next_fantasyland, objective=objective,
                            value=float(scored.total), rules=rules, seconds=seconds)
