"""Rules of open-face Chinese poker (docs/ofc.md; ../shared/RULES.md §4, seeds 001 and 002).

Three presets, all opt-in (the closed game is cpoker's default):

* ``ofc``: 5 cards face down to start, then 8 single cards; Fantasyland is 13 cards;
* ``pineapple``: 5 cards, then four rounds of 3 cards, 2 placed and 1 discarded face down; Fantasyland is 14
  cards, one discarded;
* ``progressive``: Pineapple whose Fantasyland grows with the front that earned it (QQ 14, KK 15, AA 16, trips
  17), a repeat Fantasyland being 14.

Every number is a field, and a TOML file may change any of them (:meth:`OfcRules.from_toml_text`), because rooms
differ: the royalty tables, the scoop bonus, a royalty multiplier (seed 001's progressive royalties), the card
counts, the Fantasyland entries and their sizes, and what keeps a player in Fantasyland.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping, Optional

from cpoker.game.cards import short_repr
from cpoker.game.evaluation import CATEGORIES
from cpoker.game.rules_base import MAX_UNITS, read_rules_toml, resolve, rules_error, whole
from cpoker.system.errors import RulesError

GAMES = ("ofc", "pineapple", "progressive")
RANK_LETTERS = "23456789TJQKA"
# the royal flush is a straight flush to the ace; in OFC it has a royalty of its own
FIVE_CARD_HANDS = (*CATEGORIES, "royal flush")
FANTASYLAND_FRONTS = ("QQ", "KK", "AA", "trips")  # the fronts that may enter Fantasyland, weakest first
STAY_CONDITIONS = ("front trips", "middle full house", "back four of a kind")
DECK = 52
SEAT_CARDS = 17  # the most a seat is dealt in a hand: a 17-card Fantasyland, or Pineapple's 5 + 4 x 3

# the standard table the public engines share (RULES.md §4)
STANDARD_FRONT_PAIRS = {rank: units for units, rank in enumerate("6789TJQKA", 1)}  # 66 = 1 ... AA = 9
STANDARD_FRONT_TRIPS = {rank: units for units, rank in enumerate(RANK_LETTERS, 10)}  # 222 = 10 ... AAA = 22
STANDARD_MIDDLE = {"three of a kind": 2, "straight": 4, "flush": 8, "full house": 12, "four of a kind": 20,
                   "straight flush": 30, "royal flush": 50}
STANDARD_BACK = {"straight": 2, "flush": 4, "full house": 6, "four of a kind": 10, "straight flush": 15,
                 "royal flush": 25}


_fail = rules_error


def _whole(value: object, where: str, source: str, low: int = 0, high: int = MAX_UNITS) -> int:
    return whole(value, where, source, low, high)


def _table(value: object, keys: tuple, where: str, source: str) -> tuple:
    """A ``{name: units}`` mapping checked against ``keys``, as sorted pairs (a hashable, comparable form)."""
    if not isinstance(value, Mapping):
        raise _fail(source, f"{where} must map {', '.join(keys[:3])}... to units")
    pairs = []
    for name, units in value.items():
        if name not in keys:
            raise _fail(source, f"{where}: unknown entry {short_repr(name)}; one of: {', '.join(keys)}")
        pairs.append((name, _whole(units, f"{where}.{name}", source)))
    return tuple(sorted(pairs, key=lambda pair: keys.index(pair[0])))


@dataclass(frozen=True)
class OfcRoyalties:
    """Royalty tables of the open-face game, in units: a front pair or trips by rank, a middle or back row by
    hand (``"royal flush"`` apart from the other straight flushes).  Paid as the difference of two players'
    totals, whether or not the row wins; a fouled board earns none."""

    front_pairs: tuple = tuple(STANDARD_FRONT_PAIRS.items())
    front_trips: tuple = tuple(STANDARD_FRONT_TRIPS.items())
    middle: tuple = tuple(STANDARD_MIDDLE.items())
    back: tuple = tuple(STANDARD_BACK.items())

    @classmethod
    def from_mapping(cls, data: Mapping, source: str = "") -> "OfcRoyalties":
        """Tables from ``{"front_pairs": {"6": 1, ...}, "front_trips": {...}, "middle": {...}, "back": {...}}``;
        a table not given keeps the standard one."""
        if not isinstance(data, Mapping):
            raise _fail(source, "royalties must be a table")
        unknown = set(data) - {"front_pairs", "front_trips", "middle", "back"}
        if unknown:
            raise _fail(source, f"royalties: unknown table {sorted(unknown)[0]!r} (tables: front_pairs, "
                                "front_trips, middle, back)")
        standard = cls()
        ranks = tuple(RANK_LETTERS)
        return cls(
            front_pairs=_table(data["front_pairs"], ranks, "royalties.front_pairs", source)
            if "front_pairs" in data else standard.front_pairs,
            front_trips=_table(data["front_trips"], ranks, "royalties.front_trips", source)
            if "front_trips" in data else standard.front_trips,
            middle=_table(data["middle"], FIVE_CARD_HANDS, "royalties.middle", source)
            if "middle" in data else standard.middle,
            back=_table(data["back"], FIVE_CARD_HANDS, "royalties.back", source) if "back" in data else standard.back)

    def to_mapping(self) -> dict:
        return {name: dict(getattr(self, name)) for name in ("front_pairs", "front_trips", "middle", "back")}


@dataclass(frozen=True)
class OfcRules:
    """Rules of an open-face game; ``OfcRules.preset("pineapple")`` and the others (see the module).

    Parameters
    ----------
    game
        The preset it starts from: ``"ofc"``, ``"pineapple"`` or ``"progressive"`` (the name results show).
    first_cards
        Cards dealt at once to start, all placed.
    round_cards, round_places
        Cards dealt in each later round, and how many of them are placed (the rest are discarded face down).
    fantasyland
        ``{front: cards}``: the fronts that earn Fantasyland (``"QQ"``, ``"KK"``, ``"AA"``, ``"trips"``; a pair
        counts from the smallest given up, trips always once any pair does) and how many cards it deals.
    fantasyland_repeat
        The cards of a Fantasyland earned while in Fantasyland (``None``: as the front says).
    stay
        What keeps a player in Fantasyland (any one of them): ``"front trips"``, ``"middle full house"`` (or
        better), ``"back four of a kind"`` (or better).
    royalties
        :class:`OfcRoyalties` (default: the standard table).
    scoop
        The bonus for winning all three rows against one opponent (a foul pays it too).
    royalty_multiplier
        Every royalty times this (seed 001's progressive royalties, "adjusted with the pot or blind level").
    """

    game: str = "ofc"
    first_cards: int = 5
    round_cards: int = 1
    round_places: int = 1
    fantasyland: tuple = (("QQ", 13), ("KK", 13), ("AA", 13), ("trips", 13))
    fantasyland_repeat: Optional[int] = None
    stay: tuple = STAY_CONDITIONS
    royalties: OfcRoyalties = field(default_factory=OfcRoyalties)
    scoop: int = 3
    royalty_multiplier: int = 1
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        source = self.source
        if not isinstance(self.game, str) or self.game not in GAMES:
            raise _fail(source, f"unknown open-face game {short_repr(self.game)}; known: {', '.join(GAMES)}")
        _whole(self.first_cards, "first_cards", source, 1, 13)
        _whole(self.round_cards, "round_cards", source, 1, 13)
        _whole(self.round_places, "round_places", source, 1, self.round_cards)
        if (13 - self.first_cards) % self.round_places:
            raise _fail(source, f"the {13 - self.first_cards} cards after the first {self.first_cards} do not "
                                f"come {self.round_places} a round")
        if self.cards_per_player > SEAT_CARDS:
            raise _fail(source, f"first_cards {self.first_cards} + {self.rounds} rounds of round_cards "
                                f"{self.round_cards} (round_places {self.round_places}) deal a player "
                                f"{self.cards_per_player} cards, more than the {SEAT_CARDS} a table deals a seat "
                                "(Pineapple's 5 + 4 x 3: one deck serves three players)")
        fantasyland = dict(self.fantasyland)
        for front, cards in fantasyland.items():
            if front not in FANTASYLAND_FRONTS:
                raise _fail(source, f"fantasyland: unknown front {short_repr(front)}; one of: "
                                    f"{', '.join(FANTASYLAND_FRONTS)}")
            _whole(cards, f"fantasyland.{front}", source, 13, 17)
        pairs = [front for front in FANTASYLAND_FRONTS[:3] if front in fantasyland]
        if pairs and FANTASYLAND_FRONTS[:3][-len(pairs):] != tuple(pairs):
            raise _fail(source, f"fantasyland: the pairs that enter must run up to AA from the smallest, got "
                                f"{', '.join(pairs)}")
        if pairs and "trips" not in fantasyland:
            raise _fail(source, "fantasyland: trips in front must enter when a pair does")
        object.__setattr__(self, "fantasyland", tuple((f, fantasyland[f]) for f in FANTASYLAND_FRONTS
                                                      if f in fantasyland))
        if self.fantasyland_repeat is not None:
            _whole(self.fantasyland_repeat, "fantasyland_repeat", source, 13, 17)
        if isinstance(self.stay, str) or not all(isinstance(c, str) and c in STAY_CONDITIONS for c in self.stay):
            raise _fail(source, f"stay must list conditions among: {', '.join(STAY_CONDITIONS)}; got "
                                f"{short_repr(self.stay)}")
        object.__setattr__(self, "stay", tuple(c for c in STAY_CONDITIONS if c in self.stay))
        if isinstance(self.royalties, Mapping):
            object.__setattr__(self, "royalties", OfcRoyalties.from_mapping(self.royalties, source))
        if not isinstance(self.royalties, OfcRoyalties):
            raise _fail(source, "royalties must be an OfcRoyalties or a mapping of tables")
        _whole(self.scoop, "scoop", source)
        _whole(self.royalty_multiplier, "royalty_multiplier", source, 1)

    @property
    def rounds(self) -> int:
        """Rounds after the first deal."""
        return (13 - self.first_cards) // self.round_places

    @property
    def cards_per_player(self) -> int:
        """Every card a player is dealt in a hand out of Fantasyland, discards included."""
        return self.first_cards + self.rounds * self.round_cards

    def deal_after(self, placed: int) -> "tuple[int, int] | None":
        """``(dealt, kept)``: the cards a board holding ``placed`` cards is dealt next and how many it keeps
        (the first cards to an empty board, then rounds), or ``None`` when ``placed`` is not a count a board
        can have between rounds (or the board is full)."""
        if placed == 0:
            return self.first_cards, self.first_cards
        if placed < self.first_cards or placed >= 13 or (placed - self.first_cards) % self.round_places:
            return None
        return self.round_cards, self.round_places

    def cards_to_come(self, placed: int) -> int:
        """Cards a board holding ``placed`` cards (a count :meth:`deal_after` knows) is dealt before it is full."""
        dealt = 0
        while placed < 13:
            step = self.deal_after(placed)
            assert step is not None
            dealt += step[0]
            placed += step[1]
        return dealt

    @property
    def stay_flags(self) -> tuple:
        """Whether each of :data:`STAY_CONDITIONS` keeps a player in Fantasyland, in that order (the kernels')."""
        return tuple(condition in self.stay for condition in STAY_CONDITIONS)

    @property
    def fantasyland_sizes(self) -> tuple:
        """The sizes, in cards, of every Fantasyland the rules deal (an entry's or a repeat's), smallest first."""
        return tuple(sorted({*dict(self.fantasyland).values(),
                             *([self.fantasyland_repeat] if self.fantasyland_repeat else [])}))

    @property
    def smallest_fantasyland(self) -> Optional[int]:
        """The cards of the smallest Fantasyland the rules deal (``None``: they have none)."""
        return min(dict(self.fantasyland).values(), default=None)

    def decisions_made(self, placed: int) -> int:
        """How many decisions leave a board of ``placed`` cards (a count :meth:`deal_after` knows, or 13)."""
        if placed == 0:
            return 0
        return 1 + (placed - self.first_cards) // self.round_places

    @property
    def max_players(self) -> int:
        """Players one deck deals: 4 in OFC, 3 in Pineapple."""
        return DECK // self.cards_per_player

    @property
    def name(self) -> str:
        for name in GAMES:
            if PRESETS[name] == self:
                return name
        return self.source or f"{self.game} (house)"

    @classmethod
    def preset(cls, name: str) -> "OfcRules":
        """The rules of ``ofc``, ``pineapple`` or ``progressive``."""
        if not isinstance(name, str) or name not in PRESETS:
            raise RulesError(f"unknown open-face rules {short_repr(name)}; known: {', '.join(GAMES)}, or a .toml "
                             "file")
        return PRESETS[name]

    @classmethod
    def from_toml(cls, path: "str | Path") -> "OfcRules":
        """House rules from a TOML file (the format :meth:`to_toml` writes)."""
        from cpoker.system.files import read_text

        return cls.from_toml_text(read_text(path, "rules file", RulesError), str(path))

    @classmethod
    def from_toml_text(cls, text: str, source: str = "rules") -> "OfcRules":
        """House rules from TOML text: ``game = "pineapple"`` picks the preset the other fields change."""
        return cls.from_dict(read_rules_toml(text, source), source)

    @classmethod
    def from_dict(cls, data: object, source: str = "rules") -> "OfcRules":
        """Rules from a mapping of their fields (a TOML file's, or :meth:`to_dict`'s: its ``name`` is ignored)."""
        if not isinstance(data, Mapping):
            raise _fail(source, "open-face rules are a table of fields")
        data = {key: value for key, value in data.items() if key != "name"}
        fields = ("game", "first_cards", "round_cards", "round_places", "fantasyland", "fantasyland_repeat",
                  "stay", "royalties", "scoop", "royalty_multiplier")
        unknown = set(data) - set(fields)
        if unknown:
            raise _fail(source, f"unknown field {sorted(unknown)[0]!r} (fields: {', '.join(fields)})")
        game = data.get("game")
        if game is None:
            raise _fail(source, f"say which game the house plays: game = one of {', '.join(GAMES)}")
        base = cls.preset(game) if isinstance(game, str) and game in PRESETS else None
        if base is None:
            raise _fail(source, f"unknown open-face game {short_repr(game)}; known: {', '.join(GAMES)}")
        changes = {name: data[name] for name in fields[1:] if name in data}
        if "fantasyland" in changes:
            if not isinstance(changes["fantasyland"], Mapping):
                raise _fail(source, "fantasyland must map fronts (QQ, KK, AA, trips) to cards")
            changes["fantasyland"] = tuple(changes["fantasyland"].items())
        if "stay" in changes and isinstance(changes["stay"], list):
            changes["stay"] = tuple(changes["stay"])
        if "royalties" in changes:
            changes["royalties"] = OfcRoyalties.from_mapping(changes["royalties"], source)
        return replace(base, source=source, **changes)

    def to_toml(self) -> str:
        """The rules as TOML text that :meth:`from_toml_text` reads back to equal rules."""
        def table(pairs) -> str:
            return "{ " + ", ".join(f'"{name}" = {units}' for name, units in pairs) + " }"

        lines = [f'game = "{self.game}"', f"first_cards = {self.first_cards}", f"round_cards = {self.round_cards}",
                 f"round_places = {self.round_places}", f"fantasyland = {table(self.fantasyland)}"]
        if self.fantasyland_repeat is not None:
            lines.append(f"fantasyland_repeat = {self.fantasyland_repeat}")
        lines += ["stay = [" + ", ".join(f'"{c}"' for c in self.stay) + "]", f"scoop = {self.scoop}",
                  f"royalty_multiplier = {self.royalty_multiplier}", "", "[royalties]"]
        lines += [f"{name} = {table(getattr(self.royalties, name))}"
                  for name in ("front_pairs", "front_trips", "middle", "back")]
        return "\n".join(lines) + "\n"

    def kernel_rules(self):
        """The rules as the open-face kernels read them: one int64 array (:mod:`cpoker._kernels.ofc_board`)."""
        import numpy as np

        pairs, trips = dict(self.royalties.front_pairs), dict(self.royalties.front_trips)
        middle, back = dict(self.royalties.middle), dict(self.royalties.back)
        entries = dict(self.fantasyland)
        entry_pair = min((RANK_LETTERS.index(front[0]) for front in ("QQ", "KK", "AA") if front in entries),
                         default=len(RANK_LETTERS))
        return np.array([*(pairs.get(rank, 0) for rank in RANK_LETTERS), *(trips.get(rank, 0) for rank in RANK_LETTERS),
                         *(middle.get(hand, 0) for hand in FIVE_CARD_HANDS),
                         *(back.get(hand, 0) for hand in FIVE_CARD_HANDS),
                         self.scoop, self.royalty_multiplier, entry_pair, int("trips" in entries)], dtype=np.int64)

    def to_dict(self) -> dict:
        return {"name": self.name, "game": self.game, "first_cards": self.first_cards,
                "round_cards": self.round_cards, "round_places": self.round_places,
                "fantasyland": dict(self.fantasyland), "fantasyland_repeat": self.fantasyland_repeat,
                "stay": list(self.stay), "royalties": self.royalties.to_mapping(), "scoop": self.scoop,
                "royalty_multiplier": self.royalty_multiplier}


_PINEAPPLE = OfcRules("pineapple", 5, 3, 2, (("QQ", 14), ("KK", 14), ("AA", 14), ("trips", 14)), None,
                      ("front trips", "back four of a kind"))
PRESETS = {
    "ofc": OfcRules(),
    "pineapple": _PINEAPPLE,
    "progressive": replace(_PINEAPPLE, game="progressive",
                           fantasyland=(("QQ", 14), ("KK", 15), ("AA", 16), ("trips", 17)), fantasyland_repeat=14),
}


def resolve_ofc_rules(rules: "OfcRules | str | None") -> OfcRules:
    """``None`` → ``ofc``; a preset name or a ``.toml`` path → those rules; an :class:`OfcRules` → itself."""
    return resolve(rules, OfcRules, PRESETS["ofc"], PRESETS, {}, OfcRules.preset, OfcRules.from_toml,
                   ", ".join(GAMES), "open-face rules")
