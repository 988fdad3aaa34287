"""A closed-game job's options, checked and resolved once: :func:`prepare_job`.

A job that plays strategies on dealt hands (a match, a tournament, a simulation, an exploitability study, a
review) takes the same options: a seed, rules, tables, strategies, a device, a backend and its scheduler, a
progress bar, a time budget, a saved result to resume, a checkpoint.  :func:`prepare_job` checks them, in that
order, and turns them into a :class:`Job`: rules resolved, tables loaded, each strategy resolved into the
callable that plays it (a tables file is read once, a bot described once), the backend checked.
:meth:`Job.start` then draws the seed, or takes the saved one and the saved sums
(:func:`cpoker.run.saved.resumed`), and :func:`cpoker.jobs.job.run_job` runs the blocks.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, TypeVar

import numpy as np

from cpoker.game.dealing import new_seed
from cpoker.game.devices import check_device
from cpoker.game.rules import Rules, resolve_rules
from cpoker.jobs.job import Runs, runs
from cpoker.jobs.solve import MonteCarloStrategy, resolve_player
from cpoker.run import saved
from cpoker.strategies.policy import resolve_tables
from cpoker.strategies.strategy import Player, Strategy, StrategyLike, TablePolicy
from cpoker.system.errors import OptionError
from cpoker.system.limits import check_seed

if TYPE_CHECKING:  # pragma: no cover
    from cpoker.strategies.policy import PolicyTables

Tally = TypeVar("Tally")


def tables_fingerprint(players: Sequence[Player], tables: "PolicyTables") -> str:
    """sha256 (hex) of the policy tables each player plays by, in seat order: what a saved run records.

    ``table`` and ``table@...`` play by their tables, ``mc`` arranges its
    opponents by ``tables``; greedy and plug-ins read none (``-``).  A run
    continued with other tables -- another ``--tables`` file, or a
    ``table@FILE.npz`` rewritten since -- then shows another fingerprint.
    """
    parts = [player.strategy.tables.fingerprint if isinstance(player.strategy, TablePolicy)
             else tables.fingerprint if isinstance(player.strategy, MonteCarloStrategy) else "-"
             for player in players]
    return hashlib.sha256(" ".join(parts).encode("ascii")).hexdigest()


@dataclass(frozen=True, kw_only=True)
class Job(Runs):
    """A job's options, checked and resolved once (:func:`prepare_job`): how its blocks run (:class:`Runs`), and
    the seed, rules, tables, players and device."""

    seed: Optional[int]  # None: drawn by :meth:`start`, unless a resumed job takes its saved one
    rules: Rules
    tables: "PolicyTables"
    players: tuple[Player, ...]
    device: str = "cpu"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(player.name for player in self.players)

    @property
    def strategies(self) -> tuple[Strategy, ...]:
        return tuple(player.strategy for player in self.players)

    @functools.cached_property
    def tables_fingerprint(self) -> str:
        """:func:`tables_fingerprint` of the job's players (hashed once: each saved state records it)."""
        return tables_fingerprint(self.players, self.tables)

    def start(self, resume: object, new: Callable[[], Tally], read: "Callable[[dict, dict], saved.Reading]", *,
              kind: str, state_format: str, unit: str, asked: int, block: int,
              now: "dict[str, object] | None" = None, label: Optional[str] = None) -> tuple[Tally, int]:
        """``(tally, seed)`` to run from: ``new()`` and the seed (drawn now when none was given), or, resuming,
        the saved tally and seed, checked by the shared protocol (:func:`cpoker.run.saved.resumed`) against this
        job's seed, rules, tables fingerprint and ``now`` (the job's own settings)."""
        if resume is None:
            return new(), new_seed() if self.seed is None else self.seed
        return saved.resumed(resume, kind, state_format, read, seed=self.seed, rules=self.rules,
                             tables_sha256=self.tables_fingerprint, now=now or {}, unit=unit, asked=asked,
                             block=block, label=label)


def seat_strategies(strategies: object, most: int, job: str, per_seat: str = "") -> list:
    """The strategies of a job with a seat for each, 2 to ``most`` of them, as a list (a NumPy array of names
    too, e.g. a column of a table of results).

    Raises
    ------
    OptionError
        For one string, something that is not a sequence, or too few or too many strategies.
    """
    if isinstance(strategies, np.ndarray):
        strategies = strategies.tolist()
    if isinstance(strategies, str) or not isinstance(strategies, Sequence) or not 2 <= len(strategies) <= most:
        shown = "one string" if isinstance(strategies, str) else \
            f"{len(strategies)}" if isinstance(strategies, Sequence) else type(strategies).__name__
        raise OptionError(f"{job} needs 2 to {most} strategies{per_seat}, got {shown}")
    return list(strategies)


def prepare_job(strategies: Sequence[StrategyLike], *, seed: object = None, rules: "Rules | str | None" = None,
           tables: "PolicyTables | str | None" = None, device: object = "cpu", backend: object = "local",
           scheduler: object = None, progress: bool = False, time_budget: object = None,
           checkpoint: object = None, checkpoint_seconds: object = 10.0, jobs: Optional[int] = None) -> Job:
    """A :class:`Job` of these options, checked in the order they are reported: the seed, the rules, the tables
    (by default those shipped for the rules), each strategy, the device, the backend, the time budget, the
    checkpoint.  ``jobs`` (threads) is checked when the job runs (:func:`numba_threads`).

    Raises
    ------
    OptionError, RulesError, StrategyError
        Naming the first option that is wrong.
    """
    seed = check_seed(seed)
    rules = resolve_rules(rules)
    tables = resolve_tables(tables, rules)
    players = tuple(resolve_player(strategy, tables, rules) for strategy in strategies)
    device = check_device(device)
    run = runs(jobs=jobs, backend=backend, scheduler=scheduler, progress=progress, time_budget=time_budget,
               checkpoint=checkpoint, checkpoint_seconds=checkpoint_seconds)
    return Job(seed=seed, rules=rules, tables=tables, players=players, device=device,
               **{option.name: getattr(run, option.name) for option in dataclasses.fields(run)})


