"""cpoker: hand evaluation and solving for closed 13-card Chinese poker.

The public API is re-exported here and loaded lazily (no submodule shares a
name with an exported function, so importing one never shadows the other): ``import cpoker`` is
cheap, and numba kernels and lookup tables are loaded on first use.

>>> import cpoker
>>> cpoker.evaluate("As Ks Qs Js Ts").describe()
'royal flush'
>>> cpoker.settle(["2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac",
...                "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"])
[1, -1]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

_EXPORTS = {
    "Card": "cards", "parse_cards": "cards", "format_cards": "cards", "deal": "cards",
    "CpokerError": "errors", "CardError": "errors", "ArrangementError": "errors", "OptionError": "errors",
    "RulesError": "errors", "StrategyError": "errors", "Interrupted": "errors", "InstallationError": "errors",
    "DeviceError": "errors", "MemoryLimitError": "errors", "BotBroken": "errors", "Bot": "bots",
    "HandValue": "evaluation", "evaluate": "evaluation", "evaluate_batch": "evaluation",
    "evaluate_masks": "evaluation", "evaluate_best": "evaluation", "evaluate_best_batch": "evaluation",
    "Arrangement": "arrange", "Arrangements": "arrange", "arrangements": "arrange", "is_foul": "arrange",
    "Rules": "rules", "Royalties": "rules", "Naturals": "rules",
    "natural": "naturals", "Natural": "naturals", "find_naturals": "naturals",
    "settle": "scoring", "settle_matrix": "scoring", "settle_details": "scoring", "Session": "scoring",
    "Strategy": "strategies", "greedy": "strategies", "table": "strategies", "mc": "solver",
    "solve": "solver", "Solution": "solver",
    "PolicyTables": "policy", "build_tables": "selfplay", "default_tables": "policy", "RowModel": "policy",
    "TablePolicy": "strategies",
    "simulate": "simulation", "match": "simulation", "SimulationResult": "simulation",
    "MatchResult": "simulation",
    "exploit": "exploitability", "ExploitResult": "exploitability",
    "tournament": "tournaments", "TournamentResult": "tournaments",
    "review": "reviews", "ReviewResult": "reviews", "read_played": "played", "PlayedHand": "played",
    "compile_kernels": "precompile", "CompiledKernels": "precompile",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cpoker' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"cpoker.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover  (names for type checkers; loaded lazily above)
    from .arrange import Arrangement, Arrangements, arrangements, is_foul  # noqa: F401
    from .cards import Card, deal, format_cards, parse_cards  # noqa: F401
    from .errors import (ArrangementError, CardError, CpokerError, DeviceError, InstallationError,  # noqa: F401
                         Interrupted, MemoryLimitError, OptionError, RulesError, StrategyError)
    from .evaluation import HandValue, evaluate, evaluate_batch, evaluate_best, evaluate_best_batch, evaluate_masks  # noqa: F401
    from .policy import PolicyTables, RowModel, default_tables  # noqa: F401
    from .selfplay import build_tables  # noqa: F401
    from .naturals import Natural, find_naturals, natural  # noqa: F401
    from .rules import Naturals, Royalties, Rules  # noqa: F401
    from .scoring import Session, settle, settle_details, settle_matrix  # noqa: F401
    from .simulation import MatchResult, SimulationResult, match, simulate  # noqa: F401
    from .solver import Solution, mc, solve  # noqa: F401
    from .strategies import Strategy, TablePolicy, greedy, table  # noqa: F401
    from .exploitability import ExploitResult, exploit  # noqa: F401
    from .played import PlayedHand, read_played  # noqa: F401
    from .reviews import ReviewResult, review  # noqa: F401
    from .precompile import CompiledKernels, compile_kernels  # noqa: F401
