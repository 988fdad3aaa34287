"""An open-face position from JSON, in the shape public OFC tools give one: ``read_position``.

The tools that publish a position as JSON (solvers' and trainers' APIs, bots' game states) agree on its parts
if not on their names: the player's three rows, the cards to place, the dead cards, the street, the other
boards.  :func:`read_position` reads any of those names (docs/ofc.md, "Positions"):

- the rows: ``top``/``front``, ``middle``/``mid``, ``bottom``/``back`` (cards as a list of strings or text:
  ``"Ah"``, ``"10h"``, ``"A♥"``), or ``board`` as cpoker's ``"front / middle / back"``;
- the cards to place: ``cards``, ``hand``, ``to_place``, ``dealt``;
- the dead cards: ``dead``, ``dead_cards``, ``discards``, ``burned`` (all that are given are joined);
- ``street`` (1: the first five cards, then 1 more a round), checked against the rows when given;
- ``opponents``: a list of boards, each rows as above or text; ``opponent_fantasylands`` (cards, 0: none), or an
  opponent given as ``{"fantasyland": 14}`` (their board face down);
- ``rules``/``game``/``variant``: ``ofc``, ``pineapple``, ``progressive`` (default: the caller's).

A field of another name is refused, naming it, rather than ignored: a position read wrong is a wrong answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from cpoker.game.cards import format_cards, parse_cards
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
from cpoker.system.errors import ArrangementError, CpokerError, OptionError

ROWS = {"top": 0, "front": 0, "middle": 1, "mid": 1, "bottom": 2, "back": 2}
CARDS = ("cards", "hand", "to_place", "dealt")
DEAD = ("dead", "dead_cards", "discards", "burned")
RULES = ("rules", "game", "variant")
OTHERS = ("board", "street", "opponents", "opponent_fantasylands")
KNOWN = (*ROWS, *CARDS, *DEAD, *RULES, *OTHERS)


@dataclass(frozen=True)
class Position:
    """A decision to make: ``place(position.board, position.cards, position.rules, opponents=..., dead=...,
    fantasylands=...)`` solves it (:meth:`place_arguments`)."""

    rules: OfcRules
    board: Board
    cards: tuple
    dead: tuple
    opponents: tuple
    fantasylands: tuple

    def place_arguments(self) -> dict:
        """The keyword arguments of :func:`cpoker.ofc.place` for this position."""
        return {"board": self.board, "cards": self.cards, "rules": self.rules, "opponents": list(self.opponents),
                "dead": self.dead, "fantasylands": list(self.fantasylands)}

    def to_dict(self) -> dict:
        """The position in cpoker's own names (which :func:`read_position` reads back)."""
        return {"rules": self.rules.name, "board": str(self.board), "cards": format_cards(self.cards, sort=False),
                "dead": format_cards(self.dead), "opponents": [str(b) for b in self.opponents],
                "opponent_fantasylands": list(self.fantasylands)}


def _cards(value: object, what: str) -> tuple:
    if value is None or value == "" or value == []:
        return ()
    if isinstance(value, list) and all(isinstance(card, str) for card in value):
        value = " ".join(value)
    if not isinstance(value, str):
        raise ArrangementError(f"{what} is a list of cards or their text, got {json.dumps(value)[:40]}")
    try:
        return tuple(parse_cards(value, unique=False))
    except CpokerError as error:
        raise type(error)(f"{what}: {error}") from None


def _board(data: object, what: str) -> "tuple[Board, int]":
    """A board from rows or text, and the Fantasyland an opponent is said to play (0: none)."""
    if isinstance(data, str):
        try:
            return Board.parse(data), 0
        except CpokerError as error:
            raise type(error)(f"{what}: {error}") from None
    if not isinstance(data, dict):
        raise ArrangementError(f"{what} is a board (rows or 'front / middle / back' text), got "
                               f"{json.dumps(data)[:40]}")
    unknown = [key for key in data if key not in (*ROWS, "board", "fantasyland")]
    if unknown:
        raise ArrangementError(f"{what}: unknown field {unknown[0]!r} (rows: top/front, middle, bottom/back)")
    size = data.get("fantasyland", 0)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ArrangementError(f"{what}: fantasyland is the cards of the Fantasyland it plays, got {size!r}")
    if "board" in data:
        if any(key in data for key in ROWS):
            raise ArrangementError(f"{what}: give the board or its rows, not both")
        return _board(data["board"], what)[0], size
    rows: list = [(), (), ()]
    for key, row in ROWS.items():
        if key in data:
            if rows[row]:
                raise ArrangementError(f"{what}: the {('front', 'middle', 'back')[row]} is given twice")
            rows[row] = _cards(data[key], f"{what}, {key}")
    try:
        return Board(*rows), size
    except CpokerError as error:
        raise type(error)(f"{what}: {error}") from None


def read_position(data: object, rules: "OfcRules | str | None" = None) -> Position:
    """The position of ``data`` (a dict, or JSON text), in the shape public tools give one (module docstring).

    Raises
    ------
    ArrangementError, CardError
        Naming the field that is wrong: an unknown field, cards that are not cards, rows over their size, a
        street the rows do not reach.
    OptionError
        For rules that are not open-face rules.
    """
    if isinstance(data, str):
        try:
            data = json.loads(data, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
        except ValueError as error:
            raise ArrangementError(f"a position is a JSON object: {error}") from None
    if not isinstance(data, dict):
        raise ArrangementError(f"a position is a JSON object, got {json.dumps(data)[:40]}")
    unknown = [key for key in data if key not in KNOWN]
    if unknown:
        raise ArrangementError(f"unknown position field {unknown[0]!r}; known: {', '.join(KNOWN)}")
    named = [data[key] for key in RULES if key in data]
    if len(named) > 1:
        raise OptionError("the rules are given twice (rules, game, variant: one of them)")
    if named:
        if not isinstance(named[0], str):
            raise OptionError(f"the rules are a name (ofc, pineapple, progressive), got {json.dumps(named[0])[:40]}")
        rules = named[0]
    rules = resolve_ofc_rules(rules)
    board, _ = _board({key: data[key] for key in (*ROWS, "board") if key in data}, "the board")
    given = [key for key in CARDS if key in data]
    if len(given) != 1:
        raise ArrangementError("the cards to place are one field: cards, hand, to_place or dealt" if given else
                               "the cards to place are missing (cards, hand, to_place or dealt)")
    cards = _cards(data[given[0]], given[0])
    dead = tuple(card for key in DEAD if key in data for card in _cards(data[key], key))
    street = data.get("street")
    if street is not None:
        if isinstance(street, bool) or not isinstance(street, int):
            raise ArrangementError(f"street is a whole number (1: the first cards), got {json.dumps(street)[:20]}")
        if rules.deal_after(len(board.cards)) is None:
            raise ArrangementError(f"the board holds {len(board.cards)} cards, which no street of {rules.name} "
                                   "leaves")
        made = rules.decisions_made(len(board.cards))
        if street != made + 1:
            raise ArrangementError(f"street {street} does not fit a board of {len(board.cards)} cards, which is at "
                                   f"street {made + 1} of {rules.name}")
    listed = data.get("opponents", [])
    if not isinstance(listed, list):
        raise ArrangementError("opponents is a list of boards")
    opponents, sizes = [], []
    for number, other in enumerate(listed, 1):
        board_of, size = _board(other, f"opponent {number}")
        opponents.append(board_of)
        sizes.append(size)
    if "opponent_fantasylands" in data:
        given_sizes = data["opponent_fantasylands"]
        if not isinstance(given_sizes, list) or len(given_sizes) != len(opponents) or any(sizes):
            raise ArrangementError("opponent_fantasylands is one count of cards an opponent (0: none), given once")
        sizes = given_sizes
    return Position(rules=rules, board=board, cards=cards, dead=dead, opponents=tuple(opponents),
                    fantasylands=tuple(sizes))


__all__ = ["Position", "read_position"]
