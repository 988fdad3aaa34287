"""Open-face hand histories: one JSON record a hand, written by every table of cpoker and read back checked.

A record (:class:`HandHistory`, docs/ofc.md "Hand histories", the JSON Schema ``cpoker/data/
ofc_history.schema.json``) holds the rules, the players in the order they act (from the button's left) with
their table seats, every decision in the order taken -- the board before, the cards dealt, the board after,
the discards, and what the player saw (the other boards as they stood, the opponents' Fantasylands, their own
discards) -- and each player's final board, points, royalties, foul and next Fantasyland.  A Fantasyland hand
is one decision: all of its cards, and the full board set from them.

A file of histories is JSON Lines (one record a line, as ``cpoker ofc match --record`` streams them); a JSON
array of records, or an object with a ``"hands"`` array (the web page's export), reads too.

Reading replays every record on :class:`~cpoker.game.ofc.hand.OfcHand`, the one hand engine: a decision the
rules do not make legal (a card moved, a board that does not follow from the one before, a card dealt twice, a
player out of turn) or a result the boards do not score is a problem naming the hand and the decision, and
:func:`read_histories` reports every problem of the file at once (:class:`HistoryError`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from cpoker.game.cards import format_cards, parse_cards
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.hand import Decision, OfcHand, OfcView, placed_board
from cpoker.game.ofc.rules import DECK, SEAT_CARDS, OfcRules
from cpoker.system.errors import ArrangementError, CardError, CpokerError, OptionError, StrategyError

FORMAT = "cpoker-ofc-hand"
VERSION = 1
MAX_HANDS = 1_000_000  # hands one file may hold (a review of more is split into files)
PROBLEMS_SHOWN = 20  # problems a command prints; the error carries them all


class HistoryError(ArrangementError):
    """Hand histories that cannot be read: ``problems`` lists every one, a line each (``"hand 3 (id x), decision
    4: ..."``)."""

    def __init__(self, message: str, problems: "list[str]", source: str = "input") -> None:
        super().__init__(message)
        self.problems = problems
        self.source = source


@dataclass(frozen=True)
class HistoryPlayer:
    """One player of a recorded hand: their name (a strategy's, a bot's, the web page's ``you``), table seat, the
    Fantasyland they played (cards, 0: none), and how the hand ended for them."""

    name: str
    seat: int
    fantasyland: int
    board: Board
    discards: tuple
    fault: Optional[str]
    points: int
    royalties: tuple
    fouled: bool
    next_fantasyland: int

    def to_dict(self) -> dict:
        return {"name": self.name, "seat": self.seat, "fantasyland": self.fantasyland, "board": str(self.board),
                "discards": format_cards(self.discards), "fault": self.fault, "points": self.points,
                "royalties": list(self.royalties), "fouled": self.fouled, "next_fantasyland": self.next_fantasyland}


@dataclass(frozen=True)
class HandHistory:
    """One hand as played (see the module docstring).

    Attributes
    ----------
    id
        The hand's name: a match's ``seed-session-hand-copy``, or the caller's.
    rules
        The rules it was played under (house rules whole).
    button
        The button's table seat.
    players
        :class:`HistoryPlayer` each, in the order they act (the first sits left of the button).
    decisions
        Every :class:`~cpoker.game.ofc.hand.Decision` in the order taken; its ``seat`` is the player's place in
        ``players``.
    source
        Where the hand comes from (a match's seed, session, hand and copy; free-form, kept as it is).
    """

    id: str
    rules: OfcRules
    button: int
    players: tuple
    decisions: tuple
    source: dict = field(default_factory=dict)

    def view(self, number: int) -> OfcView:
        """What the player of decision ``number`` saw when making it (the seed aside, as the table showed it)."""
        decision = self.decisions[number]
        return OfcView(rules=self.rules, board=decision.board, cards=decision.cards, keep=decision.keep,
                       opponents=decision.opponents, discards=decision.dead, fantasyland=decision.step == 0,
                       seat=decision.seat, seed=decision.seed,
                       in_fantasyland=tuple(bool(size) for size in decision.opponent_fantasylands),
                       opponent_fantasylands=decision.opponent_fantasylands)

    def to_dict(self) -> dict:
        """The record as strict JSON data (docs/ofc.md, the schema ``cpoker/data/ofc_history.schema.json``)."""
        return {"format": FORMAT, "version": VERSION, "id": self.id, "rules": self.rules.to_dict(),
                "button": self.button, "players": [player.to_dict() for player in self.players],
                "decisions": [_decision_dict(d) for d in self.decisions], "source": self.source}

    @classmethod
    def from_dict(cls, data: object) -> "HandHistory":
        """A record read back and replayed on the hand engine.

        Raises
        ------
        ArrangementError
            (or a subclass) naming the first thing wrong: a missing or mistyped field, a decision the rules do
            not make legal (``decision N: ...``), a result the boards do not score.
        """
        return _read_record(data)


def hand_history(hand: OfcHand, names: Sequence[str], id: str = "", seats: "Sequence[int] | None" = None,
                 button: "int | None" = None, source: "dict | None" = None) -> HandHistory:
    """The record of a finished ``hand``: ``names[k]`` and table seat ``seats[k]`` (default ``k``) for the player
    ``k`` places after the button; ``button`` the button's table seat (default: the last to act's).

    Raises
    ------
    StrategyError
        When the hand is not over.
    OptionError
        When ``names`` or ``seats`` do not give one per player.
    """
    record = hand.record()
    seats = list(range(hand.players)) if seats is None else [int(s) for s in seats]
    if len(names) != hand.players or len(seats) != hand.players:
        raise OptionError(f"a hand of {hand.players} players needs {hand.players} names and seats")
    players = tuple(HistoryPlayer(
        name=str(names[k]), seat=seats[k], fantasyland=hand.fantasyland[k], board=record.boards[k],
        discards=record.discards[k], fault=record.faults[k], points=int(record.settlement.results[k]),
        royalties=tuple(int(u) for u in record.settlement.boards[k].royalties),
        fouled=bool(record.settlement.boards[k].fouled), next_fantasyland=int(record.next_fantasyland[k]))
        for k in range(hand.players))
    return HandHistory(id=str(id), rules=hand.rules, button=seats[-1] if button is None else int(button),
                       players=players, decisions=record.decisions, source=dict(source or {}))


def replay(history: HandHistory) -> OfcHand:
    """The hand of ``history`` played again on :class:`~cpoker.game.ofc.hand.OfcHand`, decision by decision,
    each checked against what the record says the player saw and did.

    Raises
    ------
    ArrangementError
        Naming the first decision that does not follow (``decision N: ...``), or a hand left unfinished.
    """
    rules, players = history.rules, len(history.players)
    dealt: list = [[] for _ in range(players)]
    where: dict = {}
    for number, decision in enumerate(history.decisions, 1):
        if not 0 <= decision.seat < players:
            raise ArrangementError(f"decision {number}: player {decision.seat} is not one of the {players} players "
                                   "(numbered from 0, the first to act)")
        for card in decision.cards:
            if card in where:
                raise CardError(f"decision {number}: card {card} was dealt already (decision {where[card]})")
            where[card] = number
        dealt[decision.seat].extend(decision.cards)
    if any(len(cards) > SEAT_CARDS for cards in dealt):
        raise ArrangementError(f"a player is dealt more than the {SEAT_CARDS} cards a hand deals a seat")
    spare = iter(sorted(set(range(DECK)) - {int(card) for card in where}))
    deck = np.array([int(card) for cards in dealt for card in (*cards, *(next(spare) for _ in
                                                                          range(SEAT_CARDS - len(cards))))],
                    dtype=np.int64)
    seeds = {(d.seat, d.step): d.seed for d in history.decisions}
    try:
        hand = OfcHand(rules, deck, [player.fantasyland for player in history.players],
                       lambda seat, step: seeds.get((seat, step), 0))
    except OptionError as error:
        raise ArrangementError(str(error)) from None
    for number, decision in enumerate(history.decisions, 1):
        if hand.is_over:
            raise ArrangementError(f"decision {number}: the hand was over")
        view = hand.view()
        if (view.seat, hand.step) != (decision.seat, decision.step):
            raise ArrangementError(f"decision {number}: player {decision.seat} (step {decision.step}) acts out of "
                                   f"turn: player {view.seat} was to decide (step {hand.step})")
        _check_seen(number, decision, view)
        if decision.fault is not None:
            hand.forfeit(decision.fault)
            continue
        try:
            placed = placed_board(view, decision.placed)
        except StrategyError as error:
            raise ArrangementError(f"decision {number}: the board after ({decision.placed}) {error}") from None
        hand.apply(placed)
        if set(hand.decisions[-1].discards) != set(decision.discards):
            raise ArrangementError(f"decision {number}: the discards are {format_cards(decision.discards)}, but the "
                                   f"board after leaves {format_cards(hand.decisions[-1].discards) or 'none'}")
    if not hand.is_over:
        raise ArrangementError(f"the hand ends before it is over: player {hand.actor} still has cards to place "
                               f"(step {hand.step})")
    return hand


def _check_seen(number: int, decision: Decision, view: OfcView) -> None:
    """Refuse a decision whose record of what was seen is not what the table showed."""
    def text(cards) -> str:
        return format_cards(cards, sort=False) or "none"

    if decision.board != view.board:
        raise ArrangementError(f"decision {number}: the board before is {decision.board}, but the player's board "
                               f"stood at {view.board}")
    if tuple(decision.cards) != tuple(view.cards):
        raise ArrangementError(f"decision {number}: the cards dealt are {text(decision.cards)}, not the "
                               f"{len(view.cards)} cards the rules deal now ({text(view.cards)})")
    if decision.keep != view.keep:
        raise ArrangementError(f"decision {number}: keeps {decision.keep} cards, but the rules keep {view.keep}")
    if tuple(decision.opponents) != tuple(view.opponents):
        raise ArrangementError(f"decision {number}: the boards seen are {[str(b) for b in decision.opponents]}, "
                               f"but the table showed {[str(b) for b in view.opponents]}")
    if tuple(decision.opponent_fantasylands) != tuple(view.fantasyland_cards):
        raise ArrangementError(f"decision {number}: the opponents' Fantasylands are "
                               f"{list(decision.opponent_fantasylands)}, but the table had "
                               f"{list(view.fantasyland_cards)}")
    if set(decision.dead) != set(view.discards):
        raise ArrangementError(f"decision {number}: the player's discards before it are {text(decision.dead)}, "
                               f"not {text(view.discards)}")


def _decision_dict(decision: Decision) -> dict:
    """The engine's record of a decision (:meth:`Decision.to_dict`), its seat named ``player``: its place in the
    history's ``players``."""
    data = decision.to_dict()
    return {"player": data.pop("seat"), **data}


# reading


def _field(data: dict, name: str, kinds: tuple, where: str = "") -> Any:
    if name not in data:
        raise ArrangementError(f"{where}{name} is missing")
    value = data[name]
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        wanted = " or ".join("null" if k is type(None) else {"str": "text", "int": "a whole number",
                                                              "list": "a list", "dict": "an object",
                                                              "bool": "true or false"}.get(k.__name__, k.__name__)
                             for k in kinds)
        raise ArrangementError(f"{where}{name} is {wanted}, got {json.dumps(value)[:40]}")
    return value


def _count(data: dict, name: str, where: str = "", low: int = 0, high: int = 2 ** 63 - 1) -> int:
    value = _field(data, name, (int,), where)
    if not low <= value <= high:
        raise ArrangementError(f"{where}{name} is {low} to {high}, got {value}")
    return int(value)


def _board(data: dict, name: str, where: str = "") -> Board:
    text = _field(data, name, (str,), where)
    try:
        return Board.parse(text)
    except CpokerError as error:
        raise ArrangementError(f"{where}{name}: {error}") from None


def _cards(data: dict, name: str, where: str = "") -> tuple:
    text = _field(data, name, (str,), where)
    if not str(text).strip():
        return ()
    try:
        return tuple(parse_cards(text))
    except CpokerError as error:
        raise ArrangementError(f"{where}{name}: {error}") from None


def _read_decision(data: object, number: int) -> Decision:
    where = f"decision {number}: "
    if not isinstance(data, dict):
        raise ArrangementError(f"{where}a decision is an object, got {json.dumps(data)[:40]}")
    placed = _field(data, "placed", (str, type(None)), where)
    fault = _field(data, "fault", (str, type(None)), where)
    if (placed is None) == (fault is None):
        raise ArrangementError(f"{where}a decision has a board after (placed) or a fault, one of the two")
    opponents = _field(data, "opponents", (list,), where)
    try:
        seen = tuple(Board.parse(board) for board in opponents)
    except CpokerError as error:
        raise ArrangementError(f"{where}opponents: {error}") from None
    sizes = _field(data, "opponent_fantasylands", (list,), where)
    if len(sizes) != len(seen) or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= 17
                                          for s in sizes):
        raise ArrangementError(f"{where}opponent_fantasylands is one count of cards an opponent (0: none)")
    return Decision(seat=_count(data, "player", where, 0, 3), step=_count(data, "step", where, 0, 20),
                    board=_board(data, "board", where), cards=_cards(data, "cards", where),
                    keep=_count(data, "keep", where, 1, 13), seed=_count(data, "seed", where),
                    placed=None if placed is None else _board(data, "placed", where),
                    discards=_cards(data, "discards", where), fault=fault,
                    opponents=seen, opponent_fantasylands=tuple(sizes), dead=_cards(data, "dead", where))


def _read_player(data: object, number: int) -> HistoryPlayer:
    where = f"player {number}: "
    if not isinstance(data, dict):
        raise ArrangementError(f"{where}a player is an object, got {json.dumps(data)[:40]}")
    royalties = _field(data, "royalties", (list,), where)
    if len(royalties) != 3 or not all(isinstance(u, int) and not isinstance(u, bool)
                                      for u in royalties):
        raise ArrangementError(f"{where}royalties are three whole numbers (front, middle, back)")
    return HistoryPlayer(name=str(_field(data, "name", (str,), where)), seat=_count(data, "seat", where, 0, 3),
                         fantasyland=_count(data, "fantasyland", where, 0, 17), board=_board(data, "board", where),
                         discards=_cards(data, "discards", where),
                         fault=_field(data, "fault", (str, type(None)), where),
                         points=int(_field(data, "points", (int,), where)),
                         royalties=tuple(royalties),
                         fouled=bool(_field(data, "fouled", (bool,), where)),
                         next_fantasyland=_count(data, "next_fantasyland", where, 0, 17))


def _read_record(data: object) -> HandHistory:
    """A record checked field by field, then replayed (see :meth:`HandHistory.from_dict`)."""
    if not isinstance(data, dict):
        raise ArrangementError(f"a hand is an object, got {json.dumps(data)[:40]}")
    if data.get("format") != FORMAT:
        raise ArrangementError(f"not an open-face hand history: format is {json.dumps(data.get('format'))[:40]}, "
                               f"not {FORMAT!r}")
    if data.get("version") != VERSION:
        raise ArrangementError(f"hand history version {json.dumps(data.get('version'))[:20]}; this cpoker reads "
                               f"version {VERSION}")
    try:
        rules = OfcRules.from_dict(_field(data, "rules", (dict,)), "the hand's rules")
    except CpokerError as error:
        raise ArrangementError(f"rules: {error}") from None
    players = _field(data, "players", (list,))
    if not 2 <= len(players) <= rules.max_players:
        raise ArrangementError(f"{rules.name} deals 2 to {rules.max_players} players, the hand has "
                               f"{len(players)}")
    decisions = _field(data, "decisions", (list,))
    if len(decisions) > 17 * len(players):
        raise ArrangementError(f"{len(decisions)} decisions are more than a hand has")
    source = data.get("source", {})
    if not isinstance(source, dict):
        raise ArrangementError("source is an object")
    history = HandHistory(id=str(_field(data, "id", (str,))), rules=rules,
                          button=_count(data, "button", "", 0, 3),
                          players=tuple(_read_player(p, k) for k, p in enumerate(players)),
                          decisions=tuple(_read_decision(d, k) for k, d in enumerate(decisions, 1)),
                          source=source)
    record = replay(history).record()
    for k, player in enumerate(history.players):
        scored = record.settlement.boards[k]
        found = {"board": str(record.boards[k]), "points": int(record.settlement.results[k]),
                 "royalties": list(scored.royalties), "fouled": bool(scored.fouled),
                 "next_fantasyland": int(record.next_fantasyland[k]),
                 "discards": format_cards(record.discards[k]), "fault": record.faults[k]}
        said = {name: value for name, value in player.to_dict().items() if name in found}
        for name in found:
            if said[name] != found[name]:
                raise ArrangementError(f"player {k}: {name} is {json.dumps(said[name])}, but the hand played "
                                       f"gives {json.dumps(found[name])}")
    return history


def read_histories(text: str, source: str = "input") -> "list[HandHistory]":
    """The hands of a file of histories (JSON Lines, a JSON array, or ``{"hands": [...]}``), each replayed.

    Raises
    ------
    HistoryError
        Naming every bad hand (its line or place, its id, its decision), a line each; nothing is read then.
    """
    records, problems = _records(text, source)
    hands, unread = [], len(problems)
    for order, place, data in records:
        try:
            hands.append(_read_record(data))
        except CpokerError as error:
            ident = data.get("id") if isinstance(data, dict) else None
            named = f" (id {str(ident)[:40]})" if isinstance(ident, str) and ident else ""
            problems.append((order, f"{place}{named}: {' '.join(str(error).split())}"))
    if problems:
        raise HistoryError(f"{source}: {len(problems)} of {len(records) + unread} hands cannot be read",
                           [problem for _, problem in sorted(problems)], source)
    if not hands:
        raise HistoryError(f"{source} holds no hand", [], source)
    return hands


def _records(text: str, source: str) -> tuple:
    """``(order, place, data)`` of each record of ``text`` (its line in JSON Lines, or its place in the array),
    and ``(order, problem)`` of the lines that are not JSON."""
    if text.lstrip()[:1] in ("[", "{"):
        try:
            data = json.loads(text, parse_constant=_no_constant)
        except ValueError:
            data = None  # JSON Lines (or not JSON: each line says so below)
        if isinstance(data, dict) and data.get("format") != FORMAT:
            data = data.get("hands")
            if not isinstance(data, list):
                raise HistoryError(f"{source} is neither a hand history nor an object with a list of them (hands)",
                                   [], source)
        if data is not None:
            items = data if isinstance(data, list) else [data]
            if len(items) > MAX_HANDS:
                raise HistoryError(f"{source} holds {len(items):,} hands, more than {MAX_HANDS:,}", [], source)
            return [(k, f"hand {k}", item) for k, item in enumerate(items, 1)], []
    records: list = []
    problems: list = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(records) + len(problems) >= MAX_HANDS:
            raise HistoryError(f"{source} holds more than {MAX_HANDS:,} hands", [], source)
        try:
            records.append((number, f"line {number}", json.loads(line, parse_constant=_no_constant)))
        except ValueError as error:
            problems.append((number, f"line {number}: not JSON ({error})"))
    return records, problems


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def history_lines(histories: Iterable[HandHistory]) -> str:
    """``histories`` as JSON Lines text (strict JSON, a record a line)."""
    return "".join(json.dumps(h.to_dict(), allow_nan=False, separators=(",", ":")) + "\n" for h in histories)


__all__ = ["FORMAT", "VERSION", "HandHistory", "HistoryError", "HistoryPlayer", "hand_history", "history_lines",
           "read_histories", "replay"]
