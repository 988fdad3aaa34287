"""Equity simulations of one arrangement, and matches between strategies.

Work is cut into chunks of a fixed size; chunk ``i`` draws its cards from
``numpy.random.default_rng([seed, i])``.  Results therefore depend on the
seed alone -- never on ``jobs`` (the numba threads that arrange opponents'
hands in parallel) or on how the work is scheduled.  A Ctrl-C between chunks
stops the run and returns what was done, marked ``partial``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .arrange import ROW_NAMES, Arrangement, ArrangementLike, as_arrangement
from .cards import deal_from
from .errors import ArrangementError, OptionError, check_int
from .rules import Rules, resolve_rules
from .solver import MAX_OPPONENTS, _new_seed
from .strategies import StrategyLike, arrange_keys, resolve_strategy

SAMPLE_CHUNK = 1_000
DEAL_CHUNK = 500
DEALS_PER_SESSION = 8
Z95 = 1.959963984540054


def _interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean, standard error and half-width of the 95% normal interval."""
    n = len(values)
    mean = float(values.mean()) if n else float("nan")
    stderr = float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return mean, stderr, Z95 * stderr


@contextmanager
def numba_threads(jobs: Optional[int]):
    """Run numba's parallel kernels on ``jobs`` threads (default: all cores)."""
    import numba

    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    if jobs is None:
        jobs = most
    jobs = check_int("jobs", jobs, 1, most, " (the cores numba may use)")
    previous = numba.get_num_threads()
    numba.set_num_threads(int(jobs))
    try:
        yield int(jobs)
    finally:
        numba.set_num_threads(previous)


def _progress(total: int, enabled: bool, unit: str):
    from tqdm import tqdm

    return tqdm(total=total, disable=not enabled, unit=unit, unit_scale=True, leave=False, dynamic_ncols=True)


def _chunks(total: int, size: int):
    for index, start in enumerate(range(0, total, size)):
        yield index, min(size, total - start)


def _run_chunks(chunks, step, bar) -> bool:
    """Run ``step(index, count)`` for each chunk, advancing ``bar``.

    A Ctrl-C stops the run between chunks: the result is then partial
    (returns True); one during the first chunk is raised, as nothing was done.
    """
    done = 0
    try:
        for index, count in chunks:
            step(index, count)
            bar.update(count)
            done += 1
    except KeyboardInterrupt:
        if not done:
            raise
        return True
    return False


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
             progress: bool = False) -> SimulationResult:
    """Expected points of an arrangement against opponents dealt from the remaining 39 cards.

    A fouled arrangement is not simulated: it loses every row to every valid
    hand, so its value is exactly -3 per opponent under the default rules (a
    lost scoop under 1-6 or 2-4; the opponent models never foul); ``fouled``
    is then true.  Under royalties a foul also pays the opponents' royalties,
    which depend on their cards, so it is simulated.  Opponents are arranged by
    the opponent strategy and never declare naturals.

    Raises
    ------
    ArrangementError, CardError
        If the arrangement cannot be read, or (when it does not foul) lacks 13 distinct cards.
    OptionError
        For opponents outside 1..3, samples < 1, bad ``jobs`` or an unknown opponent strategy.
    """
    from ._kernels.montecarlo import _candidate_results
    from ._kernels.scoring import _sample_totals
    from .scoring import row_keys

    started = time.perf_counter()
    arrangement = as_arrangement(arrangement)
    opponents = check_int("opponents", opponents, 1, MAX_OPPONENTS)
    samples = check_int("samples", samples, 1)
    rules = resolve_rules(rules)
    opponent_name, _ = resolve_strategy(opponent)
    seed = _new_seed() if seed is None else int(seed)
    if arrangement.is_foul and rules.royalties is None:
        # every opponent is paid a scoop, whatever the cards: nothing to simulate
        loss = {name: {"win": 0.0, "tie": 0.0, "loss": 1.0} for name in ROW_NAMES}
        ev = float(opponents * _foul_points(rules))
        return SimulationResult(arrangement, opponents, 0, seed, opponent_name, rules, ev, 0.0, (ev, ev), loss,
                                0.0, 1.0, {int(ev): 1}, fouled=True, requested_samples=samples,
                                seconds=time.perf_counter() - started)
    if len(set(arrangement.cards)) != 13:
        raise ArrangementError("an arrangement to simulate needs 13 distinct cards")
    ours = np.array([row_keys(arrangement)], dtype=np.int32)  # a foul under royalties: keys -1, simulated
    rest = np.setdiff1d(np.arange(52), [int(c) for c in arrangement.cards])
    totals: list[np.ndarray] = []
    outcomes = np.zeros((3, 3), dtype=np.int64)
    sweeps = np.zeros(2, dtype=np.int64)

    def step(index: int, count: int) -> None:
        nonlocal outcomes, sweeps
        dealt = deal_from(rest, np.random.default_rng([seed, index]), count, opponents)
        keys = arrange_keys(opponent, dealt.reshape(-1, 13)).reshape(count, opponents, 3)
        chunk_totals, chunk_outcomes, chunk_sweeps = _candidate_results(ours, keys)
        if not rules.is_row_additive:
            chunk_totals = _sample_totals(ours, keys, *rules.kernel_arguments())
        totals.append(chunk_totals[0])
        outcomes += chunk_outcomes[0]
        sweeps += chunk_sweeps[0]

    with numba_threads(jobs), _progress(samples, progress, "deal") as bar:
        partial = _run_chunks(_chunks(samples, SAMPLE_CHUNK), step, bar)
    values = np.concatenate(totals)
    done = len(values)
    ev, stderr, half = _interval(values.astype(np.float64))
    rows = {name: dict(zip(("win", "tie", "loss"), (outcomes[r] / (done * opponents)).tolist()))
            for r, name in enumerate(ROW_NAMES)}
    points, counts = np.unique(values, return_counts=True)
    return SimulationResult(arrangement, opponents, done, seed, opponent_name, rules, ev, stderr,
                            (ev - half, ev + half), rows, float(sweeps[0] / (done * opponents)),
                            float(sweeps[1] / (done * opponents)), dict(zip(points.tolist(), counts.tolist())),
                            fouled=arrangement.is_foul, partial=partial, requested_samples=samples,
                            seconds=time.perf_counter() - started)


def _foul_points(rules: Rules) -> int:
    """What a fouled hand scores against one valid opponent without royalties: a lost scoop."""
    from ._kernels.scoring import pair_points

    scoring, royalties, require_win = rules.kernel_arguments()
    return int(pair_points(-1, -1, -1, 0, 0, 0, scoring, royalties, require_win))


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
    points: np.ndarray = field(default_factory=lambda: np.empty((0, 0)), repr=False)  # (deals, players)

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


def _arrange_all(strategies: Sequence[StrategyLike], hands: np.ndarray) -> list[np.ndarray]:
    """Row keys ``(count, players, 3)`` of every hand as each strategy arranges it (once per distinct strategy)."""
    done: dict = {}
    out = []
    count, players, _ = hands.shape
    for strategy in strategies:
        name = strategy if isinstance(strategy, str) else id(strategy)
        if name not in done:
            done[name] = arrange_keys(strategy, hands.reshape(-1, 13)).reshape(count, players, 3)
        out.append(done[name])
    return out


def match(strategies: Sequence[StrategyLike], deals: int = 10_000, seed: Optional[int] = None,
          sessions: int = 0, rules: "Rules | str | None" = None, jobs: Optional[int] = None,
          progress: bool = False) -> MatchResult:
    """Play 2-4 strategies against each other, one seat each.

    Every deal is played once per seat rotation, so each strategy plays each
    hand: for two players this is the duplicate format (the same two hands
    played both ways round), and a strategy against itself scores exactly 0.
    Points per deal are averaged over the rotations.  With ``sessions > 0``,
    that many 8-deal sessions are also played (fixed seats, fresh cards) and
    each strategy's share of first places (ties share) and mean place reported.

    Strategies are built-in names (``greedy``, ``table``, ``mc``),
    ``package.module:function`` paths, or callables ``hand -> Arrangement``.
    """
    from .scoring import places

    started = time.perf_counter()
    if isinstance(strategies, str) or not 2 <= len(strategies) <= 4:
        raise OptionError("a match needs 2 to 4 strategies, one per seat")
    names = tuple(resolve_strategy(s)[0] for s in strategies)
    deals = check_int("deals", deals, 1)
    sessions = check_int("sessions", sessions, 0)
    rules = resolve_rules(rules)
    seed = _new_seed() if seed is None else int(seed)
    players = len(strategies)
    deck = np.arange(52)
    chunks: list[np.ndarray] = []
    finishes: list[np.ndarray] = []
    n_deal_chunks = -(-deals // DEAL_CHUNK)

    def step(index: int, count: int) -> None:
        if index < n_deal_chunks:
            hands = deal_from(deck, np.random.default_rng([seed, index]), count, players)
            keys = _arrange_all(strategies, hands)
            points = sum(_seat_points(keys, [(i + r) % players for i in range(players)], rules)
                         for r in range(players))
            chunks.append(points / players)
        else:
            session = index - n_deal_chunks
            rng = np.random.default_rng([seed, 1, session])  # a stream apart from the match deals
            hands = deal_from(deck, rng, DEALS_PER_SESSION, players)
            ledger = _seat_points(_arrange_all(strategies, hands), list(range(players)), rules).sum(axis=0)
            finishes.append(np.array(places(ledger.tolist())))

    work = list(_chunks(deals, DEAL_CHUNK)) + [(n_deal_chunks + s, DEALS_PER_SESSION) for s in range(sessions)]
    with numba_threads(jobs), _progress(deals + sessions * DEALS_PER_SESSION, progress, "deal") as bar:
        partial = _run_chunks(work, step, bar)
    points = np.concatenate(chunks)
    placed = np.array(finishes) if finishes else np.empty((0, players))
    scores = []
    for i, name in enumerate(names):
        mean, stderr, half = _interval(points[:, i])
        first = float(np.mean(placed[:, i] == 1)) if len(placed) else float("nan")
        mean_place = float(placed[:, i].mean()) if len(placed) else float("nan")
        scores.append(StrategyScore(name, mean, stderr, (mean - half, mean + half), first, mean_place))
    return MatchResult(names, tuple(scores), len(points), len(finishes), seed, rules,
                       "duplicate" if players == 2 else "seat rotation", partial, deals,
                       time.perf_counter() - started, points)
