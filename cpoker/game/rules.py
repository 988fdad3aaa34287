"""Rules of the game being scored (docs/rules.md).

``Rules()`` is the Pagat base game of docs/rules.md §05: 1 point per row, no scoop
bonus, no royalties, no naturals.  Variants (docs/rules.md "Variants", seeds 001-003) are
opt-in fields:

* ``scoring``: ``"pagat"``; ``"1-6"`` (a scoop pays 6 instead of 3);
  ``"2-4"`` (one more unit to whoever wins two or more rows: 2 for two wins
  and a loss, 4 for a scoop).  A foul loses all three rows, so the valid hand
  is paid a scoop.  Seeds 001 and 003.
* ``royalties``: bonus units by (row, category); by default paid only by an
  opponent whose same row loses (seeds 002/003); a fouled hand earns none and
  pays the opponents' (seed 001, *Pénalité de faute*).
* ``naturals``: hands declared instead of arranging, with their payouts per
  opponent (seeds 001/002/003); natural against natural as in seed 003.
* ``surrender``: a player may give up the deal instead of showing an arrangement, and pays that
  many units to each opponent who plays (seed 003).
* ``session_stakes``: deal ``k`` of a session counts ``session_stakes[k]`` times (seed 001's rising
  "variable stake").
* ``front``: ``"high"``, or ``"low-a5"`` / ``"low-27"`` (seed 001's "2-7 Chinese poker": the front plays
  for low, the ace low or high); a low front cannot foul, only back >= middle is required.

Presets: ``Rules.preset("pagat" | "1-6" | "2-4" | "seed001-royalties")``; house rules
from a TOML file with ``Rules.from_toml(path)`` (see ``Rules.to_toml``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional

import numpy as np

from cpoker.game.arrangements import FRONT_ORDERS, ROW_NAMES
from cpoker.game.cards import short_repr
from cpoker.game.rules_base import read_rules_toml, resolve, rules_error, whole
from cpoker.system.errors import RulesError
from cpoker.game.evaluation import CATEGORIES

SCORING_METHODS = ("pagat", "1-6", "2-4")
TOML_FIELDS = ("scoring", "royalties", "naturals", "surrender", "session_stakes", "front")
ROYALTY_FLAGS = ("require_win", "one_per_hand", "dealt")  # the [royalties] table's options, beside its rows
ROWS = ROW_NAMES
FRONT_CATEGORIES = ("high card", "pair", "three of a kind")
# strongest first: the order in which naturals beat each other (seed 003: "the stronger natural wins")
# |units| bound of every royalty and natural: a deal's points then stay far from int64 overflow
# (4 players x 3 rows x 10**6 x 10**10 deals < 2**63), and no real table pays more
# session_stakes: a multiplier per deal of a session; the product with a pair's stake (at most 10**6) and a
# deal's points (below 10**9) stays far from int64 overflow
MAX_SESSION_STAKE = 1000
MAX_SESSION_DEALS = 1000
# royalties.dealt: the categories a hand's 13 cards may hold and break across rows
DEALT_CATEGORIES = (CATEGORIES.index("four of a kind"), CATEGORIES.index("straight flush"))
NATURAL_KINDS = ("dragon", "four trips", "three flushes", "three straights", "six pairs", "no people")

SEED001_ROYALTIES = {
    "back": {"straight flush": 10, "flush": 4, "straight": 2},
    "middle": {"four of a kind": 8, "full house": 2},
    "front": {"three of a kind": 3},
}
# seed 001: 3 units for three flushes / three straights / six pairs, 4 for four trips; the dragon
# "pays a fixed bonus (3 units per opponent) plus the scoop": 3 + 6 under 1-6 scoring
SEED001_NATURALS = {"dragon": 9, "four trips": 4, "three flushes": 3, "three straights": 3, "six pairs": 3}


_fail = rules_error


def _units(value, where: str, source: str) -> int:
    return whole(value, where, source, what="a whole number of units")


@dataclass(frozen=True)
class Royalties:
    """Bonus units by row and hand category.

    Parameters
    ----------
    table
        ``{"back": {"straight flush": 10, ...}, "middle": {...}, "front": {...}}``.
    require_win
        Pay a royalty only when the row beats the opponent's same row (default);
        otherwise each player is paid their own royalties by every opponent.
    one_per_hand
        Pay a hand only its largest row royalty (seed 003: "some rules allow only one royalty per
        hand"); the other rows earn none.  Its row is the one whose royalty is largest (the back, then
        the middle, on a tie), and ``require_win`` applies to that row.
    dealt
        A four of a kind or straight flush among the 13 cards earns its back-row royalty even when it
        is broken across rows (seed 003: "a player dealt four sevens may use three for trips in front
        and one in the middle, and still collect"), and is never paid twice: the hand is paid, by
        each opponent who shows an arrangement, the back-row royalty of the best such combination it
        was dealt (a straight flush before a four of a kind), whatever its rows and unless it fouls,
        and no row earns a royalty for a four of a kind or a straight flush.
    """

    table: tuple = ()
    require_win: bool = True
    one_per_hand: bool = False
    dealt: bool = False

    @classmethod
    def from_mapping(cls, table: Mapping, require_win: bool = True, source: str = "", one_per_hand: bool = False,
                     dealt: bool = False) -> "Royalties":
        if not isinstance(table, Mapping):
            raise _fail(source, "royalties must map rows (front, middle, back) to {category: units} tables")
        for name, flag in (("require_win", require_win), ("one_per_hand", one_per_hand), ("dealt", dealt)):
            if not isinstance(flag, bool):
                raise _fail(source, f"royalties.{name} must be true or false, got {short_repr(flag)}")
        if one_per_hand and dealt:
            raise _fail(source, "royalties.one_per_hand and royalties.dealt cannot be combined: the sources say "
                                "nothing of how a dealt royalty counts among one per hand; choose one")
        items = []
        for row, categories in table.items():
            if row not in ROWS:
                raise _fail(source, f"royalties: unknown row {row!r} (rows are front, middle, back)")
            if not isinstance(categories, Mapping):
                raise _fail(source, f"royalties.{row} must map hand categories to units")
            allowed = FRONT_CATEGORIES if row == "front" else CATEGORIES
            for category, units in categories.items():
                if category not in allowed:
                    raise _fail(source, f"royalties.{row}: unknown category {category!r}; "
                                        f"one of: {', '.join(allowed)}")
                items.append((row, category, _units(units, f"royalties.{row}.{category}", source)))
        return cls(tuple(sorted(items)), require_win, one_per_hand, dealt)

    def as_array(self) -> np.ndarray:
        """``(3, 9)`` int64 units by row (front, middle, back) and category index, as the table gives them."""
        array = np.zeros((3, len(CATEGORIES)), dtype=np.int64)
        for row, category, units in self.table:
            array[ROWS.index(row), CATEGORIES.index(category)] = units
        return array

    def row_array(self) -> np.ndarray:
        """:meth:`as_array` as rows earn it: under ``dealt``, no row earns a four of a kind's or a straight
        flush's royalty (the hand's dealt royalty is that royalty, paid apart: :meth:`dealt_units`)."""
        array = self.as_array()
        if self.dealt:
            array[:, list(DEALT_CATEGORIES)] = 0
        return array

    def dealt_units(self) -> np.ndarray:
        """``(9,)`` int64: under ``dealt``, the back-row royalty of a hand dealt a combination of each category
        (four of a kind, straight flush), else 0."""
        units = np.zeros(len(CATEGORIES), dtype=np.int64)
        if self.dealt:
            back = self.as_array()[ROWS.index("back")]
            units[list(DEALT_CATEGORIES)] = back[list(DEALT_CATEGORIES)]
        return units

    def to_mapping(self) -> dict:
        out: dict = {}
        for row, category, units in self.table:
            out.setdefault(row, {})[category] = units
        return out


@dataclass(frozen=True)
class Naturals:
    """Naturals that count and what each pays per opponent."""

    payouts: tuple = ()

    @classmethod
    def from_mapping(cls, payouts: Mapping, source: str = "") -> "Naturals":
        if not isinstance(payouts, Mapping):
            raise _fail(source, "naturals must map natural names to units")
        items = []
        for kind, units in payouts.items():
            if kind not in NATURAL_KINDS:
                raise _fail(source, f"naturals: unknown natural {kind!r}; one of: {', '.join(NATURAL_KINDS)}")
            items.append((kind, _units(units, f"naturals.{kind}", source)))
        return cls(tuple(sorted(items, key=lambda item: NATURAL_KINDS.index(item[0]))))

    def payout(self, kind: str) -> Optional[int]:
        return dict(self.payouts).get(kind)

    def to_mapping(self) -> dict:
        return dict(self.payouts)


def _session_stakes(value, source: str) -> Optional[tuple]:
    if value is None:
        return None
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__"):
        raise _fail(source, f"session_stakes must be a list of whole numbers, one per deal, got {short_repr(value)}")
    if not 1 <= len(value) <= MAX_SESSION_DEALS:
        raise _fail(source, f"session_stakes must give 1 to {MAX_SESSION_DEALS:,} deals' stakes, got {len(value)}")
    stakes = []
    for k, stake in enumerate(value):
        if (isinstance(stake, (bool, np.bool_)) or not isinstance(stake, (int, np.integer))
                or not 1 <= stake <= MAX_SESSION_STAKE):
            raise _fail(source, f"session_stakes[{k}] (deal {k + 1}) must be a whole number from 1 to "
                                f"{MAX_SESSION_STAKE:,}, got {short_repr(stake)}")
        stakes.append(int(stake))
    return tuple(stakes)


@dataclass(frozen=True)
class Rules:
    """Scoring rules; ``Rules()`` is the Pagat base game.

    Parameters
    ----------
    scoring
        ``"pagat"`` (default), ``"1-6"`` or ``"2-4"``.
    royalties
        A :class:`Royalties`, a mapping ``{row: {category: units}}``, or ``None``.
    naturals
        A :class:`Naturals`, a mapping ``{kind: units}``, or ``None``.
    surrender
        ``None`` (default: every hand is played), or the units a player who gives up the deal pays each
        opponent who plays (seed 003).  Two players who both surrender owe each other nothing; a declared
        natural is paid in full by every opponent, surrendered or not.
    session_stakes
        ``None`` (default: every deal counts once), or one multiplier per deal of a session: deal ``k``
        (from 0) counts ``session_stakes[k]`` times (seed 001's rising "variable stake").  A session may
        not be longer than the list.  A deal's multiplier scales every result of that deal alike, so it
        changes no best play: solving, simulations and matches report points per deal at stake 1.
    front
        ``"high"`` (default: the front ranks as every row), or ``"low-a5"`` / ``"low-27"`` (seed 001's
        "2-7 Chinese poker"): the front wins by being low.  Any pair is worse than any front without one and
        trips worse than any pair; fronts without a pair compare their highest card, then the next, with the
        ace low in ``low-a5`` (A-5-4 is a good front) and high in ``low-27``.  The order rule is then back
        >= middle only: a low front cannot foul, and it earns no front royalty (a table of them is refused).
        Everything plays such rules, the table policy with the tables of the presets ``low-a5`` and ``low-27``
        (learned by self-play under each order), and bots, whose requests then carry the order (``front``).
    """

    scoring: str = "pagat"
    royalties: Optional[Royalties] = None
    naturals: Optional[Naturals] = None
    source: str = field(default="", compare=False)
    surrender: Optional[int] = None
    session_stakes: Optional[tuple] = None
    front: str = "high"

    def __post_init__(self) -> None:
        if not isinstance(self.scoring, str) or self.scoring not in SCORING_METHODS:
            raise _fail(self.source, f"unknown scoring method {self.scoring!r}; known: {', '.join(SCORING_METHODS)}")
        if isinstance(self.royalties, Mapping):
            object.__setattr__(self, "royalties", Royalties.from_mapping(self.royalties, source=self.source))
        if isinstance(self.naturals, Mapping):
            object.__setattr__(self, "naturals", Naturals.from_mapping(self.naturals, source=self.source))
        if self.royalties is not None and not isinstance(self.royalties, Royalties):
            raise _fail(self.source, "royalties must be a Royalties object or a mapping")
        if self.naturals is not None and not isinstance(self.naturals, Naturals):
            raise _fail(self.source, "naturals must be a Naturals object or a mapping")
        if self.surrender is not None:
            object.__setattr__(self, "surrender", _units(self.surrender, "surrender", self.source))
        object.__setattr__(self, "session_stakes", _session_stakes(self.session_stakes, self.source))
        if not isinstance(self.front, str) or self.front not in FRONT_ORDERS:
            raise _fail(self.source, f"front must be one of {', '.join(map(repr, FRONT_ORDERS))}, "
                                     f"got {short_repr(self.front)}")
        if self.front != "high" and self.royalties is not None and self.royalties.as_array()[0].any():
            raise _fail(self.source, f"front = {self.front!r} plays the front for low, where pairs and trips are the "
                                     "worst fronts: it takes no front royalties (remove the royalties' front row)")

    @property
    def front_code(self) -> int:
        """The kernels' code of :attr:`front` (``evaluate.FRONT_HIGH``, ``FRONT_LOW_A5``, ``FRONT_LOW_27``)."""
        return FRONT_ORDERS.index(self.front)

    def deal_stake(self, deal: int) -> int:
        """The multiplier of deal ``deal`` (from 0) of a session: ``session_stakes[deal]``, or 1 without them.

        Raises
        ------
        RulesError
            For a deal past the end of ``session_stakes``.
        """
        if self.session_stakes is None:
            return 1
        if not 0 <= deal < len(self.session_stakes):
            raise RulesError(f"the rules ({self.name}) give session_stakes for {len(self.session_stakes)} deals; "
                             f"there is no deal {deal + 1}")
        return self.session_stakes[deal]

    @classmethod
    def preset(cls, name: str) -> "Rules":
        """Rules by name: ``pagat``, ``1-6``, ``2-4``, ``seed001-royalties`` (1-6, seed 001 royalties, naturals),
        or ``pusoy`` (Philippine Pusoy: the 1-6 preset, :data:`ALIASES`)."""
        if isinstance(name, str) and name in ALIASES:
            name = ALIASES[name]
        if not isinstance(name, str) or name not in PRESETS:
            raise RulesError(f"unknown rules preset {name!r}; known: {KNOWN_NAMES}, or a .toml file")
        return PRESETS[name]

    @classmethod
    def from_toml(cls, path: "str | Path") -> "Rules":
        """House rules from a TOML file (the format :meth:`to_toml` writes)."""
        from cpoker.system.files import read_text

        text = read_text(path, "rules file", RulesError)
        if not text.strip():  # every field has a default, so an empty file would silently mean pagat
            raise RulesError(f"rules file {path} is empty; write at least scoring = \"pagat\" (or 1-6, 2-4) "
                             "for the base game, or use --rules pagat")
        return cls.from_toml_text(text, str(path))

    @classmethod
    def from_toml_text(cls, text: str, source: str = "rules") -> "Rules":
        """House rules from TOML text (the web page's rules box, a string in a script)."""
        data = read_rules_toml(text, source)
        unknown = set(data) - set(TOML_FIELDS)
        if unknown:
            raise _fail(source, f"unknown field {sorted(unknown)[0]!r} (fields: {', '.join(TOML_FIELDS)})")
        royalties = data.get("royalties")
        if royalties is not None:
            if not isinstance(royalties, Mapping):
                raise _fail(source, "royalties must be a table")
            royalties = dict(royalties)
            flags = {name: royalties.pop(name, name == "require_win") for name in ROYALTY_FLAGS}
            royalties = Royalties.from_mapping(royalties, flags["require_win"], source, flags["one_per_hand"],
                                               flags["dealt"])
        naturals = data.get("naturals")
        if naturals is not None:
            if not isinstance(naturals, Mapping):
                raise _fail(source, "naturals must be a table")
            naturals = Naturals.from_mapping(naturals, source)
        scoring = data.get("scoring", "pagat")
        if not isinstance(scoring, str):
            raise _fail(source, f"scoring must be a string, got {scoring!r}")
        return cls(scoring, royalties, naturals, source, data.get("surrender"), data.get("session_stakes"),
                   data.get("front", "high"))

    def to_toml(self) -> str:
        """The rules as the TOML text :meth:`from_toml_text` reads back to equal rules."""
        lines = [f'scoring = "{self.scoring}"']
        if self.surrender is not None:
            lines.append(f"surrender = {self.surrender}")
        if self.session_stakes is not None:
            lines.append(f"session_stakes = [{', '.join(map(str, self.session_stakes))}]")
        if self.front != "high":
            lines.append(f'front = "{self.front}"')
        if self.royalties is not None:
            lines += ["", "[royalties]", f"require_win = {str(self.royalties.require_win).lower()}"]
            lines += [f"{name} = true" for name in ROYALTY_FLAGS[1:] if getattr(self.royalties, name)]
            for row, categories in self.royalties.to_mapping().items():
                pairs = ", ".join(f'"{c}" = {u}' for c, u in categories.items())
                lines.append(f"{row} = {{ {pairs} }}")
        if self.naturals is not None:
            lines += ["", "[naturals]"] + [f'"{kind}" = {units}' for kind, units in self.naturals.payouts]
        return "\n".join(lines) + "\n"

    @property
    def is_row_additive(self) -> bool:
        """True when a deal's points are the sum of independent row results (the fast solver path)."""
        return self.scoring == "pagat" and self.royalties is None

    @property
    def scoring_code(self) -> int:
        return SCORING_METHODS.index(self.scoring)

    def kernel_arguments(self) -> tuple:
        """``(scoring, royalties array, require_win, one_per_hand)`` for the settlement kernels (the royalties
        rows earn: :meth:`Royalties.row_array`)."""
        royalties = self.royalties.row_array() if self.royalties else np.zeros((3, len(CATEGORIES)), dtype=np.int64)
        require_win = self.royalties.require_win if self.royalties else True
        one_per_hand = self.royalties.one_per_hand if self.royalties else False
        return self.scoring_code, royalties, require_win, one_per_hand

    @property
    def royalties_by_row(self) -> bool:
        """True when a hand's royalties are a sum over its rows, each row's alone (not under ``one_per_hand``)."""
        return self.royalties is None or not self.royalties.one_per_hand

    @property
    def pays_dealt(self) -> bool:
        """True when a hand is paid for a four of a kind or straight flush dealt (``royalties.dealt``)."""
        return self.royalties is not None and self.royalties.dealt

    @property
    def name(self) -> str:
        for name, preset in PRESETS.items():
            if preset is self or preset == self:
                return name
        return self.source or "custom"

    @classmethod
    def from_dict(cls, data: object, source: str = "rules") -> "Rules":
        """The rules :meth:`to_dict` wrote (a saved result's ``rules``): a preset by its name, others field by field.

        Raises
        ------
        RulesError
            Unless ``data`` is such a mapping, with known fields and values.
        """
        if not isinstance(data, Mapping) or not isinstance(data.get("scoring"), str):
            raise RulesError(f"{source}: not a rules record (a mapping with scoring, royalties, naturals)")
        royalties = data.get("royalties")
        if royalties is not None:
            if (not isinstance(royalties, Mapping) or not {"table", "require_win"} <= set(royalties)
                    or not set(royalties) <= {"table", *ROYALTY_FLAGS}):
                raise RulesError(f"{source}: royalties must be a mapping with table, require_win, one_per_hand "
                                 "and dealt")
            royalties = Royalties.from_mapping(royalties["table"], royalties["require_win"], source,
                                               royalties.get("one_per_hand", False), royalties.get("dealt", False))
        given = data.get("name")
        name = given if isinstance(given, str) else ""
        session_stakes = data.get("session_stakes")  # (records of cpoker 0.3 and earlier have neither)
        rules = cls(data["scoring"], royalties, data.get("naturals"), source=name or source,
                    surrender=data.get("surrender"), session_stakes=session_stakes,
                    front=data.get("front", "high"))  # (records of cpoker 0.5.1 and earlier have none)
        preset = PRESETS.get(name)
        return preset if preset == rules else rules

    def to_dict(self) -> dict:
        return {"name": self.name, "scoring": self.scoring,
                "royalties": None if self.royalties is None else {
                    "table": self.royalties.to_mapping(), "require_win": self.royalties.require_win,
                    "one_per_hand": self.royalties.one_per_hand, "dealt": self.royalties.dealt},
                "naturals": None if self.naturals is None else self.naturals.to_mapping(),
                "surrender": self.surrender,
                "session_stakes": None if self.session_stakes is None else list(self.session_stakes),
                "front": self.front}


PRESETS = {
    "pagat": Rules(),
    "1-6": Rules(scoring="1-6"),
    "2-4": Rules(scoring="2-4"),
    "seed001-royalties": Rules("1-6", Royalties.from_mapping(SEED001_ROYALTIES),
                               Naturals.from_mapping(SEED001_NATURALS)),
    # seed 001's "2-7 Chinese poker" (the front plays low only), with the ace low or high, pagat scoring
    "low-a5": Rules(front="low-a5"),
    "low-27": Rules(front="low-27"),
}
DEFAULT_RULES = PRESETS["pagat"]
# other names of presets: the same rules, shown under the preset's own name.  Philippine Pusoy is the classic
# game with 1-6 scoring (seed 001), so it is the 1-6 preset, tables and all
ALIASES = {"pusoy": "1-6"}
KNOWN_NAMES = ", ".join([*PRESETS, *(f"{alias} (= {name})" for alias, name in ALIASES.items())])


def resolve_rules(rules: "Rules | str | None") -> Rules:
    """``None`` → the default; a preset name or a ``.toml`` path → those rules; a :class:`Rules` → itself."""
    return resolve(rules, Rules, DEFAULT_RULES, PRESETS, ALIASES, Rules.preset, Rules.from_toml, KNOWN_NAMES,
                   "rules")
