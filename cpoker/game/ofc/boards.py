"""An open-face board: three rows filled as the cards come, written as the closed game's arrangements are.

``"Qh Qd / - / As Ks 7c"``: front, middle and back, each holding up to 3, 5 and 5 cards, ``-`` for an empty row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from cpoker.game.cards import format_cards, parse_cards
from cpoker.system.errors import ArrangementError, CardError

ROW_NAMES = ("front", "middle", "back")
ROW_SIZES = (3, 5, 5)


@dataclass(frozen=True)
class Board:
    """The cards a player has placed in each row (none may move once placed).

    Raises
    ------
    ArrangementError
        For a row over its size, or a card placed twice.
    CardError
        For an unknown card.
    """

    front: tuple = ()
    middle: tuple = ()
    back: tuple = ()

    def __post_init__(self) -> None:
        rows = []
        for name, size, row in zip(ROW_NAMES, ROW_SIZES, (self.front, self.middle, self.back)):
            cards = _row(row, name)
            if len(cards) > size:
                raise ArrangementError(f"the {name} holds {size} cards, got {len(cards)}: {format_cards(cards)}")
            rows.append(cards)
        seen: set = set()
        for cards in rows:
            for card in cards:
                if card in seen:
                    raise ArrangementError(f"card {card} is placed twice on the board")
                seen.add(card)
        for name, cards in zip(ROW_NAMES, rows):
            object.__setattr__(self, name, cards)

    @classmethod
    def parse(cls, text: "str | Board") -> "Board":
        """A board from ``"front / middle / back"`` text (``-`` or nothing for an empty row)."""
        if isinstance(text, Board):
            return text
        if not isinstance(text, str):
            raise ArrangementError(f"a board is 'front / middle / back' text, got {type(text).__name__}")
        parts = text.split("/")
        if len(parts) != 3:
            raise ArrangementError(f"a board has three rows, 'front / middle / back' ('-' for an empty one), got "
                                   f"{len(parts)} in {text.strip()[:60]!r}")
        return cls(*(_row(part, name) for part, name in zip(parts, ROW_NAMES)))

    @property
    def rows(self) -> tuple:
        return self.front, self.middle, self.back

    @property
    def cards(self) -> tuple:
        return (*self.front, *self.middle, *self.back)

    @property
    def free(self) -> tuple:
        """Empty slots of each row."""
        return tuple(size - len(row) for size, row in zip(ROW_SIZES, self.rows))

    @property
    def is_complete(self) -> bool:
        return len(self.cards) == 13

    def same_rows(self, other: "Board") -> bool:
        """Whether ``other`` holds the same cards in each row, whatever order they are written in (the same
        placement)."""
        return all(set(mine) == set(theirs) for mine, theirs in zip(self.rows, other.rows))

    def plus(self, cards: tuple, rows: tuple) -> "Board":
        """This board with ``cards[i]`` added to row ``rows[i]`` (0 front, 1 middle, 2 back), after its own."""
        placed = [list(row) for row in self.rows]
        for card, row in zip(cards, rows):
            placed[row].append(card)
        return Board(*(tuple(row) for row in placed))

    def format(self, symbols: bool = False) -> str:
        return " / ".join(format_cards(row, symbols=symbols) if row else "-" for row in self.rows)

    def __str__(self) -> str:
        return self.format()

    def to_dict(self) -> dict:
        return {name: format_cards(row) for name, row in zip(ROW_NAMES, self.rows)}


def _row(row: object, name: str) -> tuple:
    if isinstance(row, str) and row.strip() in ("", "-"):
        return ()
    try:
        return parse_cards(row, unique=False)  # type: ignore[arg-type]
    except CardError as error:
        raise CardError(f"the {name}: {error}") from None


BoardLike = Union[Board, str]


def as_board(board: BoardLike) -> Board:
    """A :class:`Board` from a board or its text."""
    return Board.parse(board)


def full_board(board: BoardLike) -> Board:
    """``board``, which must be complete (13 cards) to be scored."""
    board = as_board(board)
    if not board.is_complete:
        missing = ", ".join(f"{free} in the {name}" for name, free in zip(ROW_NAMES, board.free) if free)
        raise ArrangementError(f"the board {board} is not complete ({missing} to fill): only a full board is scored")
    return board
