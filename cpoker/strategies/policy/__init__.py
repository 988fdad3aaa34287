"""The table policy: per-row expected results indexed by row strength, learned by self-play.

A row of dense strength ``s`` (see :func:`cpoker.game.lookup_tables.strength_keys`) is
worth ``P(opponent's row < s) - P(opponent's row > s)`` against an opponent
whose row strengths follow a known distribution.  Under pagat scoring the
table policy arranges a hand by the non-fouling split with the largest sum of
its three row values; under other rules, by the largest expected settlement
under those rules, scoring bonus and royalties included (:class:`RowModel`).
Each rules preset ships tables learned under its own rules.

The package holds the row model (:mod:`.model`), the tables and their file
format (:mod:`.storage`), and the batch arrangement by the policy
(:mod:`.arrange`); the tables are learned by self-play
(:mod:`cpoker.jobs.selfplay`).
"""

from cpoker.strategies.policy.play import arrange_by_tables, arrange_greedy, arrange_one_by_tables
from cpoker.strategies.policy.model import RowModel
from cpoker.strategies.policy.tables import (BUILD_OPTIONS, DEFAULT_BUILD, DEFAULT_TABLES_FILE, TABLES_FILE_LIMIT,
                                             PolicyTables, checked_build_options, default_tables,
                                             require_tables_front, resolve_tables, shipped_tables_path, tables_file)

__all__ = ["BUILD_OPTIONS", "DEFAULT_BUILD", "DEFAULT_TABLES_FILE", "TABLES_FILE_LIMIT", "PolicyTables", "RowModel",
           "arrange_by_tables", "arrange_greedy", "arrange_one_by_tables", "checked_build_options", "default_tables",
           "require_tables_front", "resolve_tables", "shipped_tables_path", "tables_file"]
