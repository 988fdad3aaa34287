"""Equity simulations of one arrangement, and matches between strategies.

Work is cut into chunks of a fixed size; chunk ``i`` draws its cards from
``numpy.random.default_rng([seed, i])``.  Results therefore depend on the
seed alone -- never on ``jobs`` (the numba threads that arrange opponents'
hands in parallel) or on how the work is scheduled.  Chunks run through
:func:`cpoker.runner.run_blocks`: they are generated lazily, summarised as
exact integer sums (memory does not grow with the number of deals), and a
SIGINT or SIGTERM between chunks stops the run and returns what was done,
marked ``partial``.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np

from ._jit import compile_notice
from .arrange import ROW_NAMES, Arrangement, ArrangementLike, as_arrangement
from .cards import deal_seeded
from .interrupts import shielded
from .errors import MAX_DEALS, MAX_SAMPLES, MAX_SESSIONS, OptionError, check_int, check_seed
from .rules import Rules, resolve_rules
from .devices import check_device
from .runner import blocks_of, check_backend, run_blocks
from .solver import MAX_OPPONENTS, _new_seed
from .stats import Moments
from .strategies import StrategyLike, arrange_keys, resolve_strategy

if TYPE_CHECKING:  # pragma: no cover
    from .policy import PolicyTables

SAMPLE_CHUNK = 1_000
DEAL_CHUNK = 500
DEALS_PER_SESSION = 8
GPU_HANDS_PER_CALL = 1 << 18  # hands a GPU arranges in one call: ~30 ms of table policy, enough to fill an H200


def _blocks_per_call(device: str, hands_per_block: int) -> int:
    """Blocks each arrangement call takes: one on the CPU, enough for ~GPU_HANDS_PER_CALL hands on a GPU."""
    return 1 if device == "cpu" else max(1, GPU_HANDS_PER_CALL // hands_per_block)


@contextmanager
def numba_threads(jobs: Optional[int]):
    """Run numba's parallel kernels on ``jobs`` threads (default: all cores)."""
    import numba

    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    if jobs is None:
        jobs = most
    if isinstance(jobs, int) and not isinstance(jobs, bool) and jobs > most:
        jobs = most  # more threads than cores would not change a result, only slow it down
    jobs = check_int("jobs", jobs, 1, most, " (the cores numba may use)")
    previous = numba.get_num_threads()
    numba.set_num_threads(int(jobs))
    try:
        yield int(jobs)
    finally:
        numba.set_num_threads(previous)


@dataclass(frozen=True)
class SimulationResult:
    """Equity of one arrangement against ``opponents`` players dealt from the other cards.

    ``ev`` is in points per deal summed over opponents, ``interval`` its 95%
    interval; ``rows`` gives win/tie/loss probabilities per row and opponent;
    ``scoop``/``scooped`` the probability of winning/losing all three rows
    against one opponent; ``distribution`` maps net points of a deal to a count.
    """

    arrangement: Arrangement
    opponents: int
    samples: int
    seed: Optional[int]
    opponent_model: str
    rules: Rules
    ev: float
    stderr: float
    interval: tuple[float, float]
    rows: dict
    scoop: float
    scooped: float
    distribution: dict
    fouled: bool = False
    partial: bool = False
    requested_samples: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        from . import __version__

        return {
            "kind": "simulate", "version": __version__, "arrangement": self.arrangement.to_dict(),
            "opponents": self.opponents, "samples": self.samples, "requested_samples": self.requested_samples,
            "seed": self.seed, "opponent_model": self.opponent_model, "rules": self.rules.to_dict(),
            "ev": self.ev, "stderr": self.stderr, "interval_95": list(self.interval), "rows": self.rows,
            "scoop": self.scoop, "scooped": self.scooped,
            "distribution": {str(k): v for k, v in self.distribution.items()},
            "fouled": self.fouled, "partial": self.partial, "seconds": self.seconds,
        }


def simulate(arrangement: ArrangementLike, opponents: int = 1, samples: int = 10_000, seed: Optional[int] = None,
             opponent: StrategyLike = "table", rules: "Rules | str | None" = None, jobs: Optional[int] = None,
             progress: bool = False, tables: "PolicyTables | str | None" = None, device: str = "cpu",
             backend: str = "local", scheduler: Optional[str] = None,
             time_budget: Optional[float] = None) -> SimulationResult:
    """Expected points of an arrangement against opponents dealt from the remaining 39 cards.

    An arrangement whose rows are out of order fouls; it is not simulated: it
    loses every row to every valid hand, so its value is exactly -3 per
    opponent under the default rules (a lost scoop under 1-6 or 2-4; the
    opponent models never foul); ``fouled`` is then true.  Under royalties a
    foul also pays the opponents' royalties, which depend on their cards, so it
    is simulated.  Opponents are arranged by the opponent strategy (``tables``
    for the table policy) and never declare naturals.  ``device="cuda"`` arranges
    them on a GPU; ``backend="dask"`` runs the blocks on a Dask cluster (the one
    at ``scheduler``, or a local one); neither changes a single result.  After
    ``time_budget`` seconds no new block starts and the result is ``partial``.

    Raises
    ------
    ArrangementError, CardError
        If the arrangement cannot be read or is malformed (rows of the wrong
        size, a repeated card): that is an input error, not a foul.
    OptionError
        For opponents outside 1..3, samples outside 1..10**9, a bad seed or
        ``jobs``, or an unknown opponent strategy or tables file.
    """
    from ._kernels.montecarlo import _candidate_results
    from ._kernels.scoring import _sample_totals
    from .policy import resolve_tables
    from .scoring import fouled_hand_points, row_keys

    arrangement = as_arrangement(arrangement)
    opponents = check_int("opponents", opponents, 1, MAX_OPPONENTS)
    samples = check_int("samples", samples, 1, MAX_SAMPLES)
    seed = check_seed(seed)
    rules = resolve_rules(rules)
    tables = resolve_tables(tables, rules)
    opponent_name, _ = resolve_strategy(opponent, tables, rules)
    device = check_device(device)
    check_backend(backend, scheduler)
    seed = _new_seed() if seed is None else seed
    if arrangement.is_foul and rules.royalties is None:
        # every opponent is paid a scoop, whatever the cards: nothing to simulate
        loss = {name: {"win": 0.0, "tie": 0.0, "loss": 1.0} for name in ROW_NAMES}
        ev = float(opponents * fouled_hand_points(rules))
        return SimulationResult(arrangement, opponents, 0, seed, opponent_name, rules, ev, 0.0, (ev, ev), loss,
                                0.0, 1.0, {int(ev): 1}, fouled=True, requested_samples=samples)
    ours = np.array([row_keys(arrangement)], dtype=np.int32)  # a foul under royalties: keys -1, simulated
    rest = np.setdiff1d(np.arange(52), [int(c) for c in arrangement.cards])
    kernel_rules = rules.kernel_arguments()
    moments = Moments()
    distribution: Counter = Counter()
    outcomes = np.zeros((3, 3), dtype=np.int64)
    sweeps = np.zeros(2, dtype=np.int64)

    def work_many(blocks):
        counts = [count for _, count in blocks]
        dealt = deal_seeded(rest, [[seed, index] for index, _ in blocks], counts, opponents)
        all_keys = arrange_keys(opponent, dealt.reshape(-1, 13), tables, device, rules).reshape(-1, opponents, 3)
        summaries = []
        for start, count in zip(np.cumsum([0, *counts[:-1]]), counts):
            keys = np.ascontiguousarray(all_keys[start:start + count], dtype=np.int32)
            totals, block_outcomes, block_sweeps = _candidate_results(ours, keys)
            if not rules.is_row_additive:
                totals = _sample_totals(ours, keys, *kernel_rules)
            points, point_counts = np.unique(totals[0], return_counts=True)
            summaries.append((totals[0], dict(zip(points.tolist(), point_counts.tolist())), block_outcomes[0],
                              block_sweeps[0]))
        return summaries

    def work(block):
        return work_many([block])[0]

    def combine(block, summary):
        nonlocal outcomes, sweeps
        totals, counts, block_outcomes, block_sweeps = summary
        moments.add(totals)
        distribution.update(counts)
        outcomes += block_outcomes
        sweeps += block_sweeps

    with shielded(), numba_threads(jobs):
        with compile_notice():
            work((0, 2))  # compile (or load) the kernels first, so `seconds` is simulation time only
        started = time.perf_counter()
        deadline = None if time_budget is None else time.monotonic() + float(time_budget)
        partial = run_blocks(blocks_of(samples, SAMPLE_CHUNK), work, combine, total=samples, progress=progress,
                             backend=backend, scheduler=scheduler, deadline=deadline,
                             group=_blocks_per_call(device, SAMPLE_CHUNK * opponents), work_many=work_many)
    done = moments.count
    ev, stderr = moments.mean(), moments.stderr()
    rows = {name: dict(zip(("win", "tie", "loss"), (outcomes[r] / (done * opponents)).tolist()))
            for r, name in enumerate(ROW_NAMES)}
    return SimulationResult(arrangement, opponents, done, seed, opponent_name, rules, ev, stderr,
                            moments.interval(), rows, float(sweeps[0] / (done * opponents)),
                            float(sweeps[1] / (done * opponents)), dict(sorted(distribution.items())),
                            fouled=arrangement.is_foul, partial=partial, requested_samples=samples,
                            seconds=time.perf_counter() - started)


@dataclass(frozen=True)
class StrategyScore:
    """One strategy's result in a match."""

    name: str
    points: float  # per deal
    stderr: float
    interval: tuple[float, float]
    first_places: float = float("nan")  # share of sessions finished first (ties share the place)
    mean_place: float = float("nan")


@dataclass(frozen=True)
class MatchResult:
    """Points per deal of each strategy, with 95% intervals, and session finishes."""

    strategies: tuple[str, ...]
    scores: tuple[StrategyScore, ...]
    deals: int
    sessions: int
    seed: int
    rules: Rules
    format: str
    partial: bool = False
    requested_deals: int = 0
    seconds: float = 0.0
    # per-deal points (deals, players), kept only with match(..., keep_points=True)
    points: Optional[np.ndarray] = field(default=None, repr=False)

    def to_dict(self) -> dict:
        from . import __version__

        return {
            "kind": "match", "version": __version__, "strategies": list(self.strategies), "format": self.format,
            "deals": self.deals, "requested_deals": self.requested_deals, "sessions": self.sessions,
            "seed": self.seed, "rules": self.rules.to_dict(), "partial": self.partial, "seconds": self.seconds,
            "scores": [{"strategy": s.name, "points_per_deal": s.points, "stderr": s.stderr,
                        "interval_95": list(s.interval),
                        "first_place_share": None if np.isnan(s.first_places) else s.first_places,
                        "mean_place": None if np.isnan(s.mean_place) else s.mean_place} for s in self.scores],
        }


def _seat_points(keys: list[np.ndarray], hand_of_seat: Sequence[int], rules: Rules) -> np.ndarray:
    """Points of each seat for a batch of deals; seat ``i`` plays hand ``hand_of_seat[i]``."""
    from ._kernels.scoring import _pair_points_batch

    seats = len(keys)
    points = np.zeros((keys[0].shape[0], seats), dtype=np.int64)
    for i in range(seats):
        for j in range(i + 1, seats):
            a = np.ascontiguousarray(keys[i][:, hand_of_seat[i]])
            b = np.ascontiguousarray(keys[j][:, hand_of_seat[j]])
            result = _pair_points_batch(a, b, *rules.kernel_arguments())
            points[:, i] += result
            points[:, j] -= result
    return points


def _arrange_all(strategies: Sequence[StrategyLike], hands: np.ndarray, tables, device: str = "cpu",
                 rules: "Rules | None" = None) -> list[np.ndarray]:
    """Row keys ``(count, players, 3)`` of every hand as each strategy arranges it (once per distinct strategy)."""
    done: dict = {}
    out = []
    count, players, _ = hands.shape
    for strategy in strategies:
        name = strategy if isinstance(strategy, str) else id(strategy)
        if name not in done:
            done[name] = arrange_keys(strategy, hands.reshape(-1, 13), tables, device, rules).reshape(count, players, 3)
        out.append(done[name])
    return out


def seat_names(names: Sequence[str]) -> tuple[str, ...]:
    """Strategy names, with ``(seat N)`` added where one strategy sits in several seats."""
    repeated = {name for name in names if list(names).count(name) > 1}
    return tuple(f"{name} (seat {seat})" if name in repeated else name for seat, name in enumerate(names, 1))


def match(strategies: Sequence[StrategyLike], deals: int = 10_000, seed: Optional[int] = None,
          sessions: int = 0, rules: "Rules | str | None" = None, jobs: Optional[int] = None,
          progress: bool = False, tables: "PolicyTables | str | None" = None,
          keep_points: bool = False, device: str = "cpu", backend: str = "local",
          scheduler: Optional[str] = None) -> MatchResult:
    """Play 2-4 strategies against each other, one seat each.

    Every deal is played once per seat rotation, so each strategy plays each
    hand: for two players this is the duplicate format (the same two hands
    played both ways round), and a strategy against itself scores exactly 0.
    Points per deal are averaged over the rotations.  With ``sessions > 0``,
    that many 8-deal sessions are also played (fixed seats, fresh cards) and
    each strategy's share of first places (ties share) and mean place reported.

    Strategies are built-in names (``greedy``, ``table``, ``mc``),
    ``package.module:function`` paths, or callables ``hand -> Arrangement``;
    ``tables`` are the table policy's tables.  Memory does not grow with
    ``deals`` (up to 10**10) or ``sessions`` (up to 10**9) unless
    ``keep_points`` asks for every deal's points in :attr:`MatchResult.points`.
    ``device`` and ``backend``/``scheduler`` as in :func:`simulate`.
    """
    from .policy import resolve_tables
    from .scoring import places

    if isinstance(strategies, str) or not isinstance(strategies, Sequence) or not 2 <= len(strategies) <= 4:
        raise OptionError("a match needs 2 to 4 strategies, one per seat")
    deals = check_int("deals", deals, 1, MAX_DEALS)
    sessions = check_int("sessions", sessions, 0, MAX_SESSIONS)
    seed = check_seed(seed)
    rules = resolve_rules(rules)
    tables = resolve_tables(tables, rules)
    names = seat_names([resolve_strategy(s, tables, rules)[0] for s in strategies])
    device = check_device(device)
    check_backend(backend, scheduler)
    seed = _new_seed() if seed is None else seed
    players = len(strategies)
    deck = np.arange(52)
    deal_moments = [Moments() for _ in range(players)]
    kept: list = []
    first_places = np.zeros(players, dtype=np.int64)
    place_sums = np.zeros(players, dtype=np.int64)
    sessions_done = 0
    n_deal_chunks = -(-deals // DEAL_CHUNK)

    def work_many(blocks):
        # a session draws from a stream apart from the match deals
        seeds = [[seed, index] if index < n_deal_chunks else [seed, 1, index - n_deal_chunks] for index, _ in blocks]
        counts = [count for _, count in blocks]
        keys = _arrange_all(strategies, deal_seeded(deck, seeds, counts, players), tables, device, rules)
        if any(index < n_deal_chunks for index, _ in blocks):
            # summed over the rotations: `players` times the points per deal, an exact integer
            rotated = sum(_seat_points(keys, [(i + r) % players for i in range(players)], rules)
                          for r in range(players))
        if any(index >= n_deal_chunks for index, _ in blocks):
            seated = _seat_points(keys, list(range(players)), rules)
        summaries = []
        for (index, _), start, count in zip(blocks, np.cumsum([0, *counts[:-1]]), counts):
            if index < n_deal_chunks:
                summaries.append(("deals", rotated[start:start + count]))
            else:
                summaries.append(("session", np.array(places(seated[start:start + count].sum(axis=0).tolist()))))
        return summaries

    def work(block):
        return work_many([block])[0]

    def combine(block, summary):
        nonlocal sessions_done
        kind, values = summary
        if kind == "deals":
            for i in range(players):
                deal_moments[i].add(values[:, i])
            if keep_points:
                kept.append(values / players)
        else:
            first_places[:] += values == 1
            place_sums[:] += values
            sessions_done += 1

    work_items = itertools.chain(blocks_of(deals, DEAL_CHUNK),
                                 ((n_deal_chunks + s, DEALS_PER_SESSION) for s in range(sessions)))
    with shielded(), numba_threads(jobs):
        with compile_notice():
            work((0, 2))  # compile (or load) the kernels first, so `seconds` is play time only
        started = time.perf_counter()
        partial = run_blocks(work_items, work, combine, total=deals + sessions * DEALS_PER_SESSION,
                             progress=progress, backend=backend, scheduler=scheduler,
                             group=_blocks_per_call(device, DEAL_CHUNK * players), work_many=work_many)
    scores = []
    for i, name in enumerate(names):
        moment = deal_moments[i]
        first = float(first_places[i] / sessions_done) if sessions_done else float("nan")
        mean_place = float(place_sums[i] / sessions_done) if sessions_done else float("nan")
        scores.append(StrategyScore(name, moment.mean(players), moment.stderr(players), moment.interval(players),
                                    first, mean_place))
    return MatchResult(names, tuple(scores), deal_moments[0].count, sessions_done, seed, rules,
                       "duplicate" if players == 2 else "seat rotation", partial, deals,
                       time.perf_counter() - started, np.concatenate(kept) if keep_points and kept else None)
