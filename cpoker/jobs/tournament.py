"""Tournaments: every pair of 2 to 16 strategies in duplicate format, on the same deals.

Each deal gives two hands; every strategy arranges both once, and each pair
plays them both ways round (the duplicate format of :func:`cpoker.match`), so
the luck of the cards cancels within a pair and every pair plays the very same
deals.  A pair's entry is therefore exactly what ``match([a, b], deals, seed)``
reports.  Each strategy's *mean against the field* averages its pairs, per
deal, with its own 95% interval.  Strategies may be built-ins,
``package.module:function`` callables and ``cmd:`` bots alike (:mod:`cpoker.strategies.bots`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np

from cpoker._version import __version__
from cpoker.game.dealing import deal_seeded
from cpoker.game.rules import Rules
from cpoker.game.scoring import dealt_units_of
from cpoker.jobs.job import Clock, run_job
from cpoker.jobs.prepared import prepare_job, seat_strategies
from cpoker.jobs.simulate import DEAL_CHUNK, arrange_all, seat_names, seat_points
from cpoker.run import saved
from cpoker.run.blocks import blocks_of
from cpoker.run.stats import Moments
from cpoker.strategies.strategy import StrategyLike
from cpoker.system.limits import MAX_DEALS, check_int

if TYPE_CHECKING:  # pragma: no cover
    from cpoker.strategies.policy import PolicyTables

MAX_STRATEGIES = 16
TOURNAMENT_STATE = "cpoker tournament state 1"


@dataclass(frozen=True)
class TournamentResult:
    """The answer of :func:`tournament`.

    ``points[i][j]`` is what strategy ``i`` wins from ``j`` per deal (duplicate
    format; ``-points[j][i]``, NaN on the diagonal), ``intervals[i][j]`` its 95%
    interval; ``against_field[i]`` is ``i``'s mean against the others, with
    ``against_field_intervals[i]``.  :attr:`ranking` orders the strategies by it.
    """

    strategies: tuple
    deals: int
    requested_deals: int
    seed: int
    rules: Rules
    points: np.ndarray = field(repr=False)
    intervals: np.ndarray = field(repr=False)
    against_field: np.ndarray = field(repr=False)
    against_field_intervals: np.ndarray = field(repr=False)
    partial: bool = False
    seconds: float = 0.0
    bot_faults: tuple = ()  # hands each strategy had settled as fouls for its bot's faults
    state: Optional[dict] = field(default=None, repr=False, compare=False)

    @property
    def ranking(self) -> list[tuple[str, float, tuple[float, float]]]:
        """``(name, mean against the field, 95% interval)``, best first (ties keep the given order)."""
        order = sorted(range(len(self.strategies)), key=lambda i: -self.against_field[i])
        return [(self.strategies[i], float(self.against_field[i]),
                 (float(self.against_field_intervals[i][0]), float(self.against_field_intervals[i][1])))
                for i in order]

    def to_dict(self) -> dict:
        """Plain data for JSON output, with every parameter needed to rerun."""
        n = len(self.strategies)
        return {
            "kind": "tournament", "version": __version__, "strategies": list(self.strategies),
            "format": "duplicate", "deals": self.deals, "requested_deals": self.requested_deals, "seed": self.seed,
            "rules": self.rules.to_dict(), "partial": self.partial, "seconds": self.seconds,
            "cross_table": [[None if i == j else {"points_per_deal": float(self.points[i, j]),
                                                  "interval_95": list(map(float, self.intervals[i, j]))}
                             for j in range(n)] for i in range(n)],
            "ranking": [{"strategy": name, "points_per_deal": mean, "interval_95": list(interval)}
                        for name, mean, interval in self.ranking],
            "bot_faults": list(self.bot_faults), "state": self.state,
        }


@dataclass
class _TournamentTally:
    """Exact sums so far: per pair (``i < j``) the duplicate points of ``i``, per strategy its points against the
    field, the blocks done, and the bot faults (see the match's tally, :mod:`cpoker.jobs.simulate`)."""

    pairs: list
    fields: list
    bot_faults: list
    blocks: int = 0
    seconds: float = 0.0

    @classmethod
    def empty(cls, n: int) -> "_TournamentTally":
        return cls([Moments() for _ in range(n * (n - 1) // 2)], [Moments() for _ in range(n)], [0] * n)

    def state(self, raw_names: list, played_tables: str, seconds: float) -> dict:
        return {"format": TOURNAMENT_STATE, "strategies": list(raw_names), "tables_sha256": played_tables,
                "blocks": self.blocks, "pairs": [[m.count, m.total, m.squares] for m in self.pairs],
                "fields": [[m.count, m.total, m.squares] for m in self.fields],
                "bot_faults": list(self.bot_faults), "seconds": seconds}

    @classmethod
    def read(cls, data: dict, state: dict) -> saved.Reading:
        """A saved tournament's tally, for the resume protocol (:func:`cpoker.run.saved.resumed`)."""
        tally = cls([saved.moments(v) for v in state["pairs"]], [saved.moments(v) for v in state["fields"]],
                    [saved.count(v) for v in state["bot_faults"]], saved.count(state["blocks"]),
                    saved.seconds(state["seconds"]))
        saved_names = list(state["strategies"])
        done = tally.fields[0].count if tally.fields else 0
        consistent = (len(saved_names) == len(tally.fields) == len(tally.bot_faults)
                      and len(tally.pairs) == len(saved_names) * (len(saved_names) - 1) // 2
                      and all(m.count == done for m in tally.pairs + tally.fields)
                      and saved.whole_blocks(done, tally.blocks, DEAL_CHUNK))
        return saved.Reading(tally, done, consistent, settings={"strategies": " ".join(map(str, saved_names))},
                             rules=Rules.from_dict(data["rules"], "the saved tournament's rules"),
                             tables_sha256=saved.text(state["tables_sha256"]))


def tournament(strategies: Sequence[StrategyLike], deals: int = 10_000, seed: Optional[int] = None,
               rules: "Rules | str | None" = None, jobs: Optional[int] = None, progress: bool = False,
               tables: "PolicyTables | str | None" = None, device: str = "cpu", backend: str = "local",
               scheduler: Optional[str] = None, resume: "TournamentResult | dict | None" = None,
               checkpoint: "Callable[[TournamentResult], None] | None" = None,
               checkpoint_seconds: float = 10.0) -> TournamentResult:
    """Play every pair of 2 to 16 strategies in duplicate format on the same ``deals``.

    Parameters are those of :func:`cpoker.match` (strategies as built-in
    names, ``package.module:function``, callables, ``cmd:COMMAND`` bots or
    :class:`~cpoker.Bot`).  Each strategy arranges each hand once, whatever
    the number of pairs.  ``resume``/``checkpoint`` continue and save a long
    tournament as a match's; a signal returns the deals done, ``partial``.

    Raises
    ------
    OptionError
        Fewer than 2 or more than 16 strategies, or a bad size, seed or option.
    BotBroken
        When a bot broke; its ``result`` is the tournament of the deals before.
    """
    strategies = seat_strategies(strategies, MAX_STRATEGIES, "a tournament")
    deals = check_int("deals", deals, 1, MAX_DEALS)
    job = prepare_job(strategies, seed=seed, rules=rules, tables=tables, device=device, backend=backend,
                 scheduler=scheduler, progress=progress, checkpoint=checkpoint,
                 checkpoint_seconds=checkpoint_seconds, jobs=jobs)
    rules, raw_names = job.rules, list(job.names)
    names = seat_names(raw_names)
    n = len(strategies)
    players, tables, device = job.players, job.tables, job.device  # what a block needs (a Dask worker's copy)
    played_tables = job.tables_fingerprint
    tally, seed = job.start(resume, lambda: _TournamentTally.empty(n), _TournamentTally.read, kind="tournament",
                            state_format=TOURNAMENT_STATE, unit="deals", asked=deals, block=DEAL_CHUNK,
                            now={"strategies": " ".join(raw_names)})
    deck = np.arange(52)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]

    def work(block):
        index, count = block
        hands = deal_seeded(deck, [[seed, index]], [count], 2)
        keys, faults = arrange_all(players, hands, tables, device, rules, may_surrender=True)
        dealt = dealt_units_of(hands, rules) if rules.pays_dealt else None
        pair_points = []
        field_points = np.zeros((count, n), dtype=np.int64)
        for i, j in pairs:
            # i's duplicate points against j: both hands, both ways round (what match([i, j]) sums per deal)
            points = (seat_points([keys[i], keys[j]], [0, 1], rules, dealt)[:, 0]
                      + seat_points([keys[i], keys[j]], [1, 0], rules, dealt)[:, 0])
            pair_points.append(points)
            field_points[:, i] += points
            field_points[:, j] -= points
        return pair_points, field_points, faults

    def combine(block, summary):
        pair_points, field_points, faults = summary
        for moments, points in zip(tally.pairs, pair_points):
            moments.add(points)
        for i, moments in enumerate(tally.fields):
            moments.add(field_points[:, i])
        tally.bot_faults[:] = [total + new for total, new in zip(tally.bot_faults, faults)]
        tally.blocks += 1

    def result(partial: bool) -> TournamentResult:
        points = np.full((n, n), np.nan)
        intervals = np.full((n, n, 2), np.nan)
        for (i, j), moments in zip(pairs, tally.pairs):
            points[i, j], points[j, i] = moments.mean(2), 0.0 - moments.mean(2)  # (0.0 - 0.0 is 0.0, not -0.0)
            low, high = moments.interval(2)
            intervals[i, j], intervals[j, i] = (low, high), (0.0 - high, 0.0 - low)
        field_means = np.array([m.mean(2 * (n - 1)) for m in tally.fields])
        field_intervals = np.array([m.interval(2 * (n - 1)) for m in tally.fields])
        seconds = clock.seconds()
        return TournamentResult(strategies=names, deals=tally.fields[0].count, requested_deals=deals, seed=seed,
                                rules=rules, points=points, intervals=intervals, against_field=field_means,
                                against_field_intervals=field_intervals, partial=partial, seconds=seconds,
                                bot_faults=tuple(tally.bot_faults),
                                state=tally.state(list(raw_names), played_tables, seconds))

    remaining = deals - tally.fields[0].count
    clock = Clock(tally.seconds)
    return run_job(job, blocks_of(remaining, DEAL_CHUNK, tally.blocks), work, combine, result,
                   has_result=lambda: tally.blocks > 0, complete=lambda: tally.fields[0].count >= deals,
                   total=remaining, clock=clock, description="tournament", warm_up=(0, 2))
