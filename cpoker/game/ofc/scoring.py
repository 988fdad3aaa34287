"""Scoring full open-face boards: royalties, fouls, Fantasyland, and the settlement of 2 to 4 players.

The rows are evaluated, and a board fouls, exactly as in the closed game (:class:`cpoker.Arrangement`): back at
least as strong as the middle, the middle as the front.  Between two boards (RULES.md §4): 1 unit a row, the
scoop bonus (3) for all three rows, and the difference of their royalties; a fouled board earns no royalty,
loses every row and the scoop, and pays the other's royalties; two fouled boards owe nothing.

The library scores with the kernels every open-face solver uses (:mod:`cpoker._kernels.ofc_board`, the rules
as :meth:`~cpoker.game.ofc.rules.OfcRules.kernel_rules`), so a settlement and a rollout cannot disagree; the
tests hold a slow Python reference, compared under house rules of every kind.

>>> from cpoker.game.ofc.scoring import settle
>>> settle(["Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks", "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"]).results
[15, -15]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np

from cpoker.game.arrangements import Arrangement
from cpoker.game.cards import cards_mask, short_repr
from cpoker.game.ofc.boards import ROW_NAMES, Board, BoardLike, full_board
from cpoker.game.ofc.rules import FIVE_CARD_HANDS, RANK_LETTERS, OfcRules, resolve_ofc_rules
from cpoker.system.errors import ArrangementError, CardError, OptionError


MIN_PLAYERS = 2
# a five-card row's hand as the royalty tables (and the kernels' row_hand) index it
FULL_HOUSE, FOUR_OF_A_KIND = FIVE_CARD_HANDS.index("full house"), FIVE_CARD_HANDS.index("four of a kind")


@dataclass(frozen=True)
class BoardScore:
    """One full board under some rules: its rows' royalties, whether it fouls, and its Fantasyland.

    Attributes
    ----------
    royalties
        ``(front, middle, back)`` units, the multiplier applied; all 0 for a foul.
    foul_reason
        Why it fouls, or ``None``.
    fantasyland
        The cards of the Fantasyland this board sends its player to next hand, or ``None``: out of Fantasyland,
        the one its front earns (not fouling); in Fantasyland, the one it stays in (the repeat's size if the
        rules give one, else what its front earns, else the smallest), ``None`` when it leaves.
    stays
        Whether the board keeps a player already in Fantasyland there (any of the rules' ``stay``).
    """

    board: Board
    royalties: tuple
    foul_reason: Optional[str]
    fantasyland: Optional[int]
    stays: bool
    keys: tuple = ()  # the rows' strength keys (front, middle, back); none for a forfeited hand's board

    @property
    def fouled(self) -> bool:
        return self.foul_reason is not None

    @property
    def total(self) -> int:
        return sum(self.royalties)

    def to_dict(self) -> dict:
        return {"board": self.board.to_dict(), "royalties": dict(zip(ROW_NAMES, self.royalties)),
                "royalty_total": self.total, "foul": self.foul_reason, "fantasyland": self.fantasyland,
                "stays_in_fantasyland": self.stays}


def score_board(board: BoardLike, rules: "OfcRules | str | None" = None, in_fantasyland: bool = False) -> BoardScore:
    """Royalties, foul and Fantasyland of a full board (:class:`BoardScore`).

    Raises
    ------
    ArrangementError, CardError
        Unless ``board`` is a full board of 13 distinct cards.
    """
    from cpoker._kernels.ofc_board import (BACK, CATEGORY_SHIFT, FRONT_PAIRS, FRONT_TRIPS, MIDDLE, MULTIPLIER, PAIR,
                                           TRIPS, front_royalty, row_hand, scored_board, top_rank)

    rules = resolve_ofc_rules(rules)
    board = full_board(board)
    table = rules.kernel_rules()
    front_key, middle_key, back_key, _, fouled = scored_board(*(cards_mask(row) for row in board.rows), table)
    keys = (int(front_key), int(middle_key), int(back_key))
    if fouled:
        return BoardScore(board, (0, 0, 0), Arrangement(*board.rows).foul_reason, None, False, keys)
    middle, back = int(row_hand(middle_key)), int(row_hand(back_key))
    multiplier = int(table[MULTIPLIER])
    units = (int(front_royalty(front_key, table[FRONT_PAIRS:FRONT_TRIPS], table[FRONT_TRIPS:MIDDLE])),
             int(table[MIDDLE + middle]), int(table[BACK + back]))
    category = keys[0] >> CATEGORY_SHIFT
    earned = "trips" if category == TRIPS else \
        RANK_LETTERS[top_rank((keys[0] >> 13) & 0x1FFF)] * 2 if category == PAIR else None
    fantasyland = dict(rules.fantasyland).get(earned) if earned is not None else None
    strong = {"front trips": category == TRIPS, "middle full house": middle >= FULL_HOUSE,
              "back four of a kind": back >= FOUR_OF_A_KIND}
    stays = any(strong[condition] for condition in rules.stay)
    if in_fantasyland:  # a player in Fantasyland goes back only by staying
        fantasyland = (rules.fantasyland_repeat or fantasyland or rules.smallest_fantasyland) if stays else None
    return BoardScore(board, tuple(u * multiplier for u in units), None, fantasyland, stays, keys)


def next_fantasyland(score: BoardScore, rules: OfcRules, in_fantasyland: bool) -> int:
    """The Fantasyland a scored board sends its player to next hand, in cards (0: none): the one its front
    earns; or, for a player in Fantasyland whose board stays, the repeat's size, else what its front earns,
    else the smallest the rules deal (``score`` scored with the same ``in_fantasyland``: its
    :attr:`~BoardScore.fantasyland`)."""
    if in_fantasyland and not score.stays:
        return 0
    return score.fantasyland or 0


def row_results(a: BoardScore, b: BoardScore) -> tuple:
    """Each row's result for board ``a`` against board ``b``: 1 won, 0 tied, -1 lost; a foul loses every row
    (two fouls tie them all)."""
    if a.fouled or b.fouled:
        return ((b.fouled - a.fouled),) * 3
    return tuple((x > y) - (x < y) for x, y in zip(a.keys, b.keys))


def pair_points(a: BoardScore, b: BoardScore, rules: OfcRules) -> int:
    """What board ``a`` wins from board ``b`` (both scored under ``rules``), by the kernels' rule."""
    from cpoker._kernels.ofc_board import board_points

    return int(board_points(*(a.keys or (0, 0, 0)), a.total, a.fouled, *(b.keys or (0, 0, 0)), b.total, b.fouled,
                            rules.scoop))


@dataclass(frozen=True)
class OfcSettlement:
    """A settled open-face deal: each board scored, and ``matrix[i][j]``, what player ``i`` won from ``j``."""

    rules: OfcRules
    boards: tuple
    matrix: tuple

    @property
    def results(self) -> list[int]:
        return [sum(row) for row in self.matrix]

    def to_dict(self) -> dict:
        return {"rules": self.rules.to_dict(), "results": self.results, "matrix": [list(r) for r in self.matrix],
                "players": [{"player": i + 1, **board.to_dict()} for i, board in enumerate(self.boards)]}


def settle(boards: Sequence[BoardLike], rules: "OfcRules | str | None" = None,
           in_fantasyland: Sequence[bool] = (), forfeited: Sequence[int] = ()) -> OfcSettlement:
    """Settle full open-face boards of 2 to 4 players (as many as the rules' deck deals: 3 in Pineapple).

    ``in_fantasyland[i]`` says that player ``i`` played this hand in Fantasyland (whether the board stays, and a
    repeat's size, follow).  ``forfeited`` lists the players (numbered from 1) whose hand is scored as a foul
    whatever their board, which may then be unfinished: a strategy that faulted at a table.  The results add up
    to zero.

    Raises
    ------
    OptionError
        For fewer than 2 players, or more than the rules deal.
    ArrangementError, CardError
        For a board that is not full, a card given twice, or a card on two boards.
    """
    rules = resolve_ofc_rules(rules)
    if isinstance(boards, (str, Board)) or not isinstance(boards, Sequence):
        raise ArrangementError("settle takes a list of boards, one per player")
    if not MIN_PLAYERS <= len(boards) <= rules.max_players:
        raise OptionError(f"an open-face deal of {rules.name} has {MIN_PLAYERS} to {rules.max_players} players "
                          f"(each sees {rules.cards_per_player} cards of the deck), got {len(boards)}")
    if isinstance(in_fantasyland, (str, bytes)) or not isinstance(in_fantasyland, Sequence):
        raise OptionError(f"in_fantasyland is a list of True/False, one per player, got "
                          f"{type(in_fantasyland).__name__}")
    for flag in in_fantasyland:
        if not isinstance(flag, (bool, np.bool_)) and not (isinstance(flag, (int, np.integer)) and flag in (0, 1)):
            raise OptionError(f"in_fantasyland holds True or False for each player, got {short_repr(flag)}")
    flags = list(in_fantasyland) + [False] * (len(boards) - len(in_fantasyland))
    if len(flags) != len(boards):
        raise OptionError(f"in_fantasyland has {len(in_fantasyland)} entries for {len(boards)} players")
    if isinstance(forfeited, (str, bytes)) or not isinstance(forfeited, Sequence):
        raise OptionError(f"forfeited is a list of player numbers, got {type(forfeited).__name__}")
    for player in forfeited:
        if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)) or \
                not 1 <= player <= len(boards):
            raise OptionError(f"forfeited names players from 1 to {len(boards)}, got {short_repr(player)}")
    scored = []
    for player, (board, flag) in enumerate(zip(boards, flags), 1):
        try:
            if player in forfeited:
                scored.append(BoardScore(Board.parse(board), (0, 0, 0), "forfeited: the player's strategy faulted",
                                         None, False))
            else:
                scored.append(score_board(board, rules, bool(flag)))
        except (ArrangementError, CardError) as error:
            raise type(error)(f"player {player}: {error}") from None
    owner: dict = {}
    for player, score in enumerate(scored, 1):
        for card in score.board.cards:
            if card in owner:
                raise ArrangementError(f"card {card} is on the boards of both player {owner[card]} and player "
                                       f"{player}")
            owner[card] = player
    n = len(scored)
    matrix = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            points = pair_points(scored[i], scored[j], rules)
            matrix[i][j], matrix[j][i] = points, -points
    return OfcSettlement(rules, tuple(scored), tuple(tuple(row) for row in matrix))


def royalties(board: BoardLike, rules: "OfcRules | str | None" = None) -> int:
    """A full board's royalties in units (0 for a foul): :func:`score_board`'s total."""
    return score_board(board, rules).total
