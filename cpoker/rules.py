"""Rules of the game being scored.

``Rules()`` is the Pagat base game of RULES.md §1: 1 point per row, no scoop
bonus, no royalties, no naturals.  Variants (RULES.md §2) are opt-in fields.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .errors import OptionError

SCORING_METHODS = ("pagat",)
_PRESETS = {"pagat": {}}


@dataclass(frozen=True)
class Rules:
    """Scoring rules.

    Parameters
    ----------
    scoring
        ``"pagat"`` (the default): each row won +1, lost -1, tied 0, no bonus;
        a valid hand wins all three rows against a fouled one; two fouled
        hands score 0 against each other.
    """

    scoring: str = "pagat"

    def __post_init__(self) -> None:
        if self.scoring not in SCORING_METHODS:
            raise OptionError(f"unknown scoring method {self.scoring!r}; known: {', '.join(SCORING_METHODS)}")

    @classmethod
    def preset(cls, name: str) -> "Rules":
        """Rules by name (``"pagat"``)."""
        if name not in _PRESETS:
            raise OptionError(f"unknown rules preset {name!r}; known: {', '.join(_PRESETS)}")
        return cls(**_PRESETS[name])

    @property
    def name(self) -> str:
        for name, fields in _PRESETS.items():
            if Rules(**fields) == self:
                return name
        return "custom"

    def to_dict(self) -> dict:
        return {"name": self.name, **asdict(self)}


DEFAULT_RULES = Rules()


def resolve_rules(rules: "Rules | str | None") -> Rules:
    """``None`` → the default, a name → its preset, a :class:`Rules` → itself."""
    if rules is None:
        return DEFAULT_RULES
    if isinstance(rules, str):
        return Rules.preset(rules)
    if isinstance(rules, Rules):
        return rules
    raise OptionError(f"rules must be a Rules object or a preset name, got {type(rules).__name__}")
