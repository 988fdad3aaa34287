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

from cpoker._version import __version__

_EXPORTS = {name: module for module, names in {
    "game.cards": ("Card", "parse_cards", "format_cards", "deal"),
    "system.errors": ("CpokerError", "CardError", "ArrangementError", "OptionError", "RulesError", "StrategyError",
                      "Interrupted", "InstallationError", "DeviceError", "MemoryLimitError", "BotBroken"),
    "strategies.bots": ("Bot",),
    "game.evaluation": ("HandValue", "evaluate", "evaluate_batch", "evaluate_masks", "evaluate_best",
                        "evaluate_best_batch"),
    "game.arrangements": ("Arrangement", "Arrangements", "arrangements", "is_foul"),
    "game.rules": ("Rules", "Royalties", "Naturals"),
    "game.naturals": ("natural", "Natural", "find_naturals"),
    "game.scoring": ("settle", "settle_matrix", "settle_details", "Session", "SURRENDER"),
    "strategies.strategy": ("Strategy", "greedy", "table", "TablePolicy"),
    "jobs.solve": ("mc", "solve", "Solution"),
    "jobs.solution": ("SurrenderAdvice",),
    "strategies.policy": ("PolicyTables", "default_tables", "RowModel"),
    "jobs.selfplay": ("build_tables",),
    "jobs.simulate": ("simulate", "match", "SimulationResult", "MatchResult"),
    "jobs.exploit": ("exploit", "ExploitResult"),
    "jobs.tournament": ("tournament", "TournamentResult"),
    "jobs.review": ("review", "ReviewResult"),
    "jobs.played": ("read_played", "PlayedHand"),
    "jobs.precompile": ("compile_kernels", "CompiledKernels"),
}.items() for name in names}

__all__ = sorted(_EXPORTS) + ["__version__", "ofc"]


def __getattr__(name: str) -> Any:
    if name == "ofc":  # the open-face game's namespace: cpoker.ofc.settle(...), loaded on first use
        import cpoker.ofc  # noqa: F401  (importing a submodule binds it here, as the package's attribute)

        return globals()["ofc"]
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cpoker' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"cpoker.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover  (names for type checkers; loaded lazily above)
    from cpoker.game.cards import Card as Card, deal as deal, format_cards as format_cards, parse_cards as parse_cards
    from cpoker.system.errors import (ArrangementError as ArrangementError, BotBroken as BotBroken,
                                      CardError as CardError, CpokerError as CpokerError, DeviceError as DeviceError,
                                      InstallationError as InstallationError, Interrupted as Interrupted,
                                      MemoryLimitError as MemoryLimitError, OptionError as OptionError,
                                      RulesError as RulesError, StrategyError as StrategyError)
    from cpoker.strategies.bots import Bot as Bot
    from cpoker.game.evaluation import (evaluate as evaluate, evaluate_batch as evaluate_batch,
                                        evaluate_best as evaluate_best, evaluate_best_batch as evaluate_best_batch,
                                        evaluate_masks as evaluate_masks, HandValue as HandValue)
    from cpoker.game.arrangements import (Arrangement as Arrangement, Arrangements as Arrangements,
                                          arrangements as arrangements, is_foul as is_foul)
    from cpoker.game.rules import Naturals as Naturals, Royalties as Royalties, Rules as Rules
    from cpoker.game.naturals import find_naturals as find_naturals, natural as natural, Natural as Natural
    from cpoker.game.scoring import (Session as Session, settle as settle, settle_details as settle_details,
                                     settle_matrix as settle_matrix, SURRENDER as SURRENDER)
    from cpoker.strategies.strategy import (greedy as greedy, Strategy as Strategy, table as table,
                                            TablePolicy as TablePolicy)
    from cpoker.jobs.solve import mc as mc, Solution as Solution, solve as solve
    from cpoker.jobs.solution import SurrenderAdvice as SurrenderAdvice
    from cpoker.strategies.policy import (default_tables as default_tables, PolicyTables as PolicyTables,
                                          RowModel as RowModel)
    from cpoker.jobs.selfplay import build_tables as build_tables
    from cpoker.jobs.simulate import (match as match, MatchResult as MatchResult, simulate as simulate,
                                      SimulationResult as SimulationResult)
    from cpoker.jobs.exploit import exploit as exploit, ExploitResult as ExploitResult
    from cpoker.jobs.tournament import tournament as tournament, TournamentResult as TournamentResult
    from cpoker.jobs.review import review as review, ReviewResult as ReviewResult
    from cpoker.jobs.played import PlayedHand as PlayedHand, read_played as read_played
    from cpoker.jobs.precompile import compile_kernels as compile_kernels, CompiledKernels as CompiledKernels
