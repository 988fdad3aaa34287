"""Equity simulations of one arrangement, and matches between strategies.

Work is cut into chunks of a fixed size; chunk ``i`` draws its cards from
``numpy.random.default_rng([seed, i])``.  Results therefore depend on the
seed alone -- never on ``jobs`` (the numba threads that arrange opponents'
hands in parallel) or on how the work is scheduled.  Chunks run through
:func:`cpoker.run.runner.run_blocks`: they are generated lazily, summarised as
exact integer sums (memory does not grow with the number of deals), and a
SIGINT or SIGTERM between chunks stops the run and returns what was done,
marked ``partial``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np

from cpoker._version import __version__
from cpoker.game.arrangements import ROW_NAMES, Arrangement, ArrangementLike, as_arrangement
from cpoker.game.dealing import deal_seeded, new_seed, rest_of_deck
from cpoker.game.rules import Rules
from cpoker.game.scoring import SURRENDER_KEY, dealt_royalties, dealt_royalty, dealt_units_of
from cpoker.jobs.job import Clock, run_job
from cpoker.jobs.prepared import prepare_job, seat_strategies
from cpoker.jobs.solve import MAX_OPPONENTS
from cpoker.run import saved
from cpoker.run.blocks import blocks_of
from cpoker.run.stats import Moments
from cpoker.strategies.bots import faulted_hands
from cpoker.strategies.strategy import Player, StrategyLike, arrange_keys
from cpoker.system.errors import OptionError
from cpoker.system.limits import MAX_DEALS, MAX_SAMPLES, MAX_SESSIONS, check_int

if TYPE_CHECKING:  # pragma: no cover
    from cpoker.strategies.policy import PolicyTables

SAMPLE_CHUNK = 1_000
DEAL_CHUNK = 500
DEALS_PER_SESSION = 8
GPU_HANDS_PER_CALL = 1 << 18  # hands a GPU arranges in one call: enough to keep a large GPU busy


def _blocks_per_call(device: str, hands_per_block: int) -> int:
    """Blocks each arrangement call takes: one on the CPU, enough for ~GPU_HANDS_PER_CALL hands on a GPU."""
    return 1 if device == "cpu" else max(1, GPU_HANDS_PER_CALL // hands_per_block)


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
    # the exact sums so far, for simulate(..., resume=...): see _SimulationTally
    state: Optional[dict] = field(default=None, repr=False, compare=False)
    # opponents' hands settled as fouls because the opponent model, a bot, faulted
    bot_faults: int = 0

    def to_dict(self) -> dict:
        return {
            "kind": "simulate", "version": __version__, "arrangement": self.arrangement.to_dict(),
            "opponents": self.opponents, "samples": self.samples, "requested_samples": self.requested_samples,
            "seed": self.seed, "opponent_model": self.opponent_model, "rules": self.rules.to_dict(),
            "ev": self.ev, "stderr": self.stderr, "interval_95": list(self.interval), "rows": self.rows,
            "scoop": self.scoop, "scooped": self.scooped,
            "distribution": {str(k): v for k, v in self.distribution.items()},
            "fouled": self.fouled, "partial": self.partial, "seconds": self.seconds, "bot_faults": self.bot_faults,
            "state": self.state,
        }


def simulate(arrangement: ArrangementLike, opponents: int = 1, samples: int = 10_000, seed: Optional[int] = None,
             opponent: StrategyLike = "table", rules: "Rules | str | None" = None, jobs: Optional[int] = None,
             progress: bool = False, tables: "PolicyTables | str | None" = None, device: str = "cpu",
             backend: str = "local", scheduler: Optional[str] = None,
             time_budget: Optional[float] = None, resume: "SimulationResult | dict | None" = None,
             checkpoint: "Callable[[SimulationResult], None] | None" = None,
             checkpoint_seconds: float = 10.0) -> SimulationResult:
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
    ``resume``, ``checkpoint`` and ``checkpoint_seconds`` continue and save a
    long simulation as in :func:`match` (the same arrangement, opponents,
    opponent model, rules and tables; the seed by default).

    Raises
    ------
    ArrangementError, CardError
        If the arrangement cannot be read or is malformed (rows of the wrong
        size, a repeated card): that is an input error, not a foul.
    OptionError
        For opponents outside 1..3, samples outside 1..10**9, a bad seed or
        ``jobs``, or an unknown opponent strategy or tables file.
    """
    from cpoker._kernels.montecarlo import candidate_results
    from cpoker._kernels.scoring import sample_totals
    from cpoker.game.scoring import fouled_hand_points, fouled_rows, row_keys

    arrangement = as_arrangement(arrangement)
    opponents = check_int("opponents", opponents, 1, MAX_OPPONENTS)
    samples = check_int("samples", samples, 1, MAX_SAMPLES)
    job = prepare_job([opponent], seed=seed, rules=rules, tables=tables, device=device, backend=backend,
                 scheduler=scheduler, progress=progress, time_budget=time_budget, checkpoint=checkpoint,
                 checkpoint_seconds=checkpoint_seconds, jobs=jobs)
    rules, ((opponent_name, opponent),) = job.rules, job.players
    players, tables, device = job.players, job.tables, job.device  # what a block needs (a Dask worker's copy)
    arrangement = arrangement.under(rules.front)  # (a low front: only back < middle fouls)
    if arrangement.is_foul and rules.royalties is None:
        # every opponent is paid a scoop, whatever the cards: nothing to simulate (nor to resume: it is exact)
        loss = fouled_rows()
        ev = float(opponents * fouled_hand_points(rules))
        return SimulationResult(arrangement=arrangement, opponents=opponents, samples=0,
                                seed=new_seed() if job.seed is None else job.seed, opponent_model=opponent_name,
                                rules=rules, ev=ev, stderr=0.0, interval=(ev, ev), rows=loss, scoop=0.0,
                                scooped=1.0, distribution={int(ev): 1}, fouled=True, requested_samples=samples)
    ours = np.array([row_keys(arrangement)], dtype=np.int32)  # a foul under royalties: keys -1, simulated
    rest = rest_of_deck([int(c) for c in arrangement.cards])
    kernel_rules = rules.kernel_arguments()
    own_dealt = dealt_royalty(arrangement, rules)
    played_tables = job.tables_fingerprint
    tally, seed = job.start(resume, _SimulationTally, _SimulationTally.reader(arrangement), kind="simulate",
                            state_format=SIMULATION_STATE, label="simulation", unit="samples", asked=samples,
                            block=SAMPLE_CHUNK, now={"arrangement": arrangement.format(), "opponents": opponents,
                                                     "opponent": opponent_name})
    moments, distribution, outcomes, sweeps = tally.moments, tally.distribution, tally.outcomes, tally.sweeps

    def work_many(blocks):
        counts = [count for _, count in blocks]
        dealt = deal_seeded(rest, [[seed, index] for index, _ in blocks], counts, opponents)
        (all_keys,), (faults,) = arrange_all(players, dealt.reshape(-1, opponents, 13), tables, device, rules,
                                             opponents)
        summaries = []
        for start, count in zip(np.cumsum([0, *counts[:-1]]), counts):
            keys = np.ascontiguousarray(all_keys[start:start + count], dtype=np.int32)
            totals, block_outcomes, block_sweeps = candidate_results(ours, keys)
            if not rules.is_row_additive:
                totals = sample_totals(ours, keys, *kernel_rules)
            if rules.pays_dealt:  # four of a kind and straight flushes dealt: paid whatever the rows
                paid = dealt_royalties(dealt[start:start + count], keys, rules).sum(axis=1)
                totals = totals + (own_dealt * opponents - paid)[None, :]
            points, point_counts = np.unique(totals[0], return_counts=True)
            summaries.append((totals[0], dict(zip(points.tolist(), point_counts.tolist())), block_outcomes[0],
                              block_sweeps[0], faults))
            faults = 0  # a group's faults go with its first block
        return summaries

    def work(block):
        return work_many([block])[0]

    def combine(block, summary):
        totals, counts, block_outcomes, block_sweeps, faults = summary
        tally.bot_faults += faults
        moments.add(totals)
        distribution.update(counts)
        outcomes[:] += block_outcomes
        sweeps[:] += block_sweeps
        tally.blocks += 1

    def result(partial: bool) -> SimulationResult:
        done = moments.count
        rows = {name: dict(zip(("win", "tie", "loss"), (outcomes[r] / (done * opponents)).tolist()))
                for r, name in enumerate(ROW_NAMES)}
        seconds = clock.seconds()
        return SimulationResult(arrangement=arrangement, opponents=opponents, samples=done, seed=seed,
                                opponent_model=opponent_name, rules=rules, ev=moments.mean(), stderr=moments.stderr(),
                                interval=moments.interval(), rows=rows, scoop=float(sweeps[0] / (done * opponents)),
                                scooped=float(sweeps[1] / (done * opponents)),
                                distribution=dict(sorted(distribution.items())), fouled=arrangement.is_foul,
                                partial=partial, requested_samples=samples, seconds=seconds,
                                state=tally.state(opponent_name, played_tables, seconds), bot_faults=tally.bot_faults)

    clock = Clock(tally.seconds)
    # the blocks this simulation lacks: a resumed one's first blocks are in its tally already
    return run_job(job, blocks_of(samples - SAMPLE_CHUNK * tally.blocks, SAMPLE_CHUNK, tally.blocks), work, combine,
                   result, has_result=lambda: tally.blocks > 0, complete=lambda: moments.count >= samples,
                   total=samples - moments.count, clock=clock, warm_up=(0, 2),
                   group=_blocks_per_call(job.device, SAMPLE_CHUNK * opponents), work_many=work_many)


SIMULATION_STATE = "cpoker simulate state 1"


@dataclass
class _SimulationTally:
    """What a simulation has summed so far, exactly (see :class:`_MatchTally`)."""

    moments: Moments = field(default_factory=Moments)
    distribution: Counter = field(default_factory=Counter)
    outcomes: np.ndarray = field(default_factory=lambda: np.zeros((3, 3), dtype=np.int64))
    sweeps: np.ndarray = field(default_factory=lambda: np.zeros(2, dtype=np.int64))
    blocks: int = 0
    seconds: float = 0.0
    bot_faults: int = 0

    def state(self, opponent_name: str, played_tables: str, seconds: float) -> dict:
        """The tally as JSON-ready values, with what a continuation must agree on."""
        m = self.moments
        return {"format": SIMULATION_STATE, "opponent": opponent_name, "tables_sha256": played_tables,
                "blocks": self.blocks, "moments": [m.count, m.total, m.squares],
                "distribution": [[int(points), int(n)] for points, n in sorted(self.distribution.items())],
                "outcomes": self.outcomes.tolist(), "sweeps": self.sweeps.tolist(), "seconds": seconds,
                "bot_faults": self.bot_faults}

    @classmethod
    def reader(cls, arrangement: Arrangement) -> "Callable[[dict, dict], saved.Reading]":
        """How a saved simulation's tally is read back, for the resume protocol (:func:`cpoker.run.saved.resumed`):
        its sums, checked to fit together, and its arrangement, opponents, opponent model, rules and tables."""
        def read(data: dict, state: dict) -> saved.Reading:
            tally = cls(saved.moments(state["moments"]),
                        Counter({saved.integer(points): saved.count(k) for points, k in state["distribution"]}),
                        np.array([[saved.count(v) for v in row] for row in state["outcomes"]], dtype=np.int64),
                        np.array([saved.count(v) for v in state["sweeps"]], dtype=np.int64),
                        saved.count(state["blocks"]), saved.seconds(state["seconds"]),
                        saved.count(state.get("bot_faults", 0)))
            saved_arrangement = Arrangement(*(data["arrangement"][row] for row in ROW_NAMES))
            done = tally.moments.count
            saved_opponents = check_int("saved opponents", data["opponents"], 1, MAX_OPPONENTS)
            seated = done * saved_opponents  # one outcome a row, an opponent and a sample
            consistent = (tally.outcomes.shape == (3, 3) and tally.sweeps.shape == (2,)
                          and (tally.outcomes.sum(axis=1) == seated).all() and tally.sweeps.sum() <= seated
                          and sum(tally.distribution.values()) == done
                          and saved.whole_blocks(done, tally.blocks, SAMPLE_CHUNK))
            return saved.Reading(
                tally, done, bool(consistent),
                settings={"arrangement": (saved_arrangement.format() if saved_arrangement != arrangement
                                          else arrangement.format()),  # the same cards, in the order given now
                          "opponents": saved_opponents, "opponent": state.get("opponent")},
                rules=Rules.from_dict(data["rules"], "the saved simulation's rules"),
                tables_sha256=saved.text(state["tables_sha256"]))

        return read


@dataclass(frozen=True)
class StrategyScore:
    """One strategy's result in a match."""

    name: str
    points: float  # per deal
    stderr: float
    interval: tuple[float, float]
    first_places: float = float("nan")  # share of sessions finished first (ties share the place)
    mean_place: float = float("nan")
    surrender_rate: float = float("nan")  # share of its hands surrendered (rules that allow surrender only)


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
    # the exact sums so far, for match(..., resume=...): see _MatchTally
    state: Optional[dict] = field(default=None, repr=False, compare=False)
    # hands each seat's strategy had settled as fouls because its bot faulted (0 for strategies that are not bots)
    bot_faults: tuple = ()

    def to_dict(self) -> dict:
        return {
            "kind": "match", "version": __version__, "strategies": list(self.strategies), "format": self.format,
            "deals": self.deals, "requested_deals": self.requested_deals, "sessions": self.sessions,
            "seed": self.seed, "rules": self.rules.to_dict(), "partial": self.partial, "seconds": self.seconds,
            "scores": [{"strategy": s.name, "points_per_deal": s.points, "stderr": s.stderr,
                        "interval_95": list(s.interval),
                        "first_place_share": None if np.isnan(s.first_places) else s.first_places,
                        "mean_place": None if np.isnan(s.mean_place) else s.mean_place,
                        "surrender_rate": None if np.isnan(s.surrender_rate) else s.surrender_rate}
                       for s in self.scores],
            "bot_faults": list(self.bot_faults),
            "state": self.state,
        }


def seat_points(keys: list[np.ndarray], hand_of_seat: Sequence[int], rules: Rules,
                dealt: Optional[np.ndarray] = None) -> np.ndarray:
    """Points of each seat for a batch of deals; seat ``i`` plays hand ``hand_of_seat[i]``.

    ``dealt`` (``(count, hands)``, :func:`~cpoker.game.scoring.dealt_units_of`) is needed under
    ``royalties.dealt``: what each hand is paid, shown, for a four of a kind or straight flush dealt.
    """
    from cpoker._kernels.scoring import pair_points_batch
    from cpoker.game.scoring import surrender_points

    seats = len(keys)
    kernel_rules = rules.kernel_arguments()
    points = np.zeros((keys[0].shape[0], seats), dtype=np.int64)
    for i in range(seats):
        for j in range(i + 1, seats):
            a = np.ascontiguousarray(keys[i][:, hand_of_seat[i]])
            b = np.ascontiguousarray(keys[j][:, hand_of_seat[j]])
            result = pair_points_batch(a, b, *kernel_rules)
            if rules.pays_dealt:
                assert dealt is not None, "royalties.dealt: seat_points needs the hands' dealt units"
                result += (dealt[:, hand_of_seat[i]] * (a[:, 0] >= 0)) - (dealt[:, hand_of_seat[j]] * (b[:, 0] >= 0))
            if rules.surrender is not None:
                result = surrender_points(result, a, b, rules.surrender)
            points[:, i] += result
            points[:, j] -= result
    return points


def arrange_all(players: Sequence[Player], hands: np.ndarray, tables, device: str = "cpu",
                rules: "Rules | None" = None, opponents: int = 1,
                may_surrender: bool = False) -> tuple[list[np.ndarray], list[int]]:
    """Row keys ``(count, players, 3)`` of every hand as each player's strategy arranges it (once per distinct
    strategy), and the hands each player's bot had fouled for its faults meanwhile (0 for strategies that are not
    bots).  ``may_surrender``: the players sit at a table (a match's, a tournament's), where the rules may let
    them surrender (:func:`~cpoker.strategies.strategy.arrange_keys`)."""
    done: dict = {}
    out = []
    count, seats, _ = hands.shape
    strategies = [player.strategy for player in players]
    before = faulted_hands(strategies)
    for player in players:
        if player.name not in done:
            done[player.name] = arrange_keys(player, hands.reshape(-1, 13), tables, device, rules,
                                             opponents, may_surrender).reshape(count, seats, 3)
        out.append(done[player.name])
    return out, [after - was for after, was in zip(faulted_hands(strategies), before)]


def seat_names(names: Sequence[str]) -> tuple[str, ...]:
    """Strategy names, with ``(seat N)`` added where one strategy sits in several seats."""
    repeated = {name for name in names if list(names).count(name) > 1}
    return tuple(f"{name} (seat {seat})" if name in repeated else name for seat, name in enumerate(names, 1))


MATCH_STATE = "cpoker match state 1"


@dataclass
class _MatchTally:
    """What a match has summed so far, exactly: its blocks done, per-seat moments, session places.

    Every block's draw depends on the seed and the block's index alone, and the
    sums are exact integers, so a match continued from a tally (``match(...,
    resume=...)``) ends with the very numbers of a match never stopped.
    """

    moments: list
    first_places: list
    place_sums: list
    deal_blocks: int = 0
    session_blocks: int = 0
    seconds: float = 0.0
    bot_faults: list = field(default_factory=list)
    surrenders: list = field(default_factory=list)  # hands each strategy surrendered in the deal blocks

    @classmethod
    def empty(cls, players: int) -> "_MatchTally":
        return cls([Moments() for _ in range(players)], [0] * players, [0] * players, bot_faults=[0] * players,
                   surrenders=[0] * players)

    def state(self, raw_names: list, requested_sessions: int, played_tables: str, seconds: float) -> dict:
        """The tally as JSON-ready values, with what a continuation must agree on."""
        return {"format": MATCH_STATE, "strategies": list(raw_names), "requested_sessions": requested_sessions,
                "tables_sha256": played_tables, "deal_blocks": self.deal_blocks,
                "session_blocks": self.session_blocks,
                "moments": [[m.count, m.total, m.squares] for m in self.moments],
                "first_places": list(self.first_places), "place_sums": list(self.place_sums), "seconds": seconds,
                "bot_faults": list(self.bot_faults), "surrenders": list(self.surrenders)}

    @classmethod
    def read(cls, data: dict, state: dict) -> saved.Reading:
        """A saved match's tally (a :class:`MatchResult`'s ``to_dict()``), for the resume protocol
        (:func:`cpoker.run.saved.resumed`): its sums, checked to fit together, and its strategies, rules, tables."""
        moments = [saved.moments(values) for values in state["moments"]]
        tally = cls(moments, [saved.count(v) for v in state["first_places"]],
                    [saved.count(v) for v in state["place_sums"]], saved.count(state["deal_blocks"]),
                    saved.count(state["session_blocks"]), saved.seconds(state["seconds"]),
                    [saved.count(v) for v in state.get("bot_faults", [0] * len(moments))],
                    [saved.count(v) for v in state.get("surrenders", [0] * len(moments))])
        saved_names = list(state["strategies"])
        done = moments[0].count
        sessions_done = tally.session_blocks
        consistent = (len(moments) == len(tally.first_places) == len(tally.place_sums) == len(saved_names)
                      == len(tally.bot_faults) == len(tally.surrenders)
                      and all(0 <= n <= done * len(moments) for n in tally.surrenders)
                      and all(m.count == done for m in moments)
                      and all(first <= sessions_done and sessions_done <= total <= len(moments) * sessions_done
                              for first, total in zip(tally.first_places, tally.place_sums))
                      and saved.whole_blocks(done, tally.deal_blocks, DEAL_CHUNK))
        return saved.Reading(tally, done, consistent, settings={"strategies": " ".join(map(str, saved_names))},
                             rules=Rules.from_dict(data["rules"], "the saved match's rules"),
                             tables_sha256=saved.text(state["tables_sha256"]))


def match(strategies: Sequence[StrategyLike], deals: int = 10_000, seed: Optional[int] = None,
          sessions: int = 0, rules: "Rules | str | None" = None, jobs: Optional[int] = None,
          progress: bool = False, tables: "PolicyTables | str | None" = None,
          keep_points: bool = False, device: str = "cpu", backend: str = "local",
          scheduler: Optional[str] = None, resume: "MatchResult | dict | None" = None,
          checkpoint: "Callable[[MatchResult], None] | None" = None,
          checkpoint_seconds: float = 10.0) -> MatchResult:
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

    A long match can be stopped and continued.  ``resume`` takes a match
    result (or its ``to_dict()``, e.g. read back from ``cpoker match --out
    FILE.json``): a partial one, or a complete one to extend with more deals or
    sessions.  The match then plays only the blocks it lacks and returns
    exactly the result of a match never stopped (its ``seconds`` add up).  It
    must have the same strategies, rules and tables, and the seed (``None``
    takes the saved one).  ``checkpoint(result)`` is called with the partial
    result at most every ``checkpoint_seconds`` while the match runs, to save
    it somewhere (a job killed outright then loses that much at most).
    Plug-in strategies are taken to be the code that played before.
    """
    from cpoker.game.scoring import places

    strategies = seat_strategies(strategies, 4, "a match", ", one per seat")
    deals = check_int("deals", deals, 1, MAX_DEALS)
    sessions = check_int("sessions", sessions, 0, MAX_SESSIONS)
    job = prepare_job(strategies, seed=seed, rules=rules, tables=tables, device=device, backend=backend,
                 scheduler=scheduler, progress=progress, checkpoint=checkpoint,
                 checkpoint_seconds=checkpoint_seconds, jobs=jobs)
    rules, raw_names = job.rules, list(job.names)
    names = seat_names(raw_names)
    players = len(strategies)
    seat_players, tables, device = job.players, job.tables, job.device  # what a block needs (a Dask worker's copy)
    played_tables = job.tables_fingerprint
    if resume is not None and keep_points:
        raise OptionError("keep_points cannot be combined with resume: the saved match kept no per-deal points")
    tally, seed = job.start(resume, lambda: _MatchTally.empty(players), _MatchTally.read, kind="match",
                            state_format=MATCH_STATE, unit="deals", asked=deals, block=DEAL_CHUNK,
                            now={"strategies": " ".join(raw_names)})
    if tally.session_blocks > sessions:
        raise OptionError(f"cannot resume: the saved match already has {tally.session_blocks:,} sessions; "
                          "ask for at least as many")
    deck = np.arange(52)
    kept: list = []
    n_deal_chunks = -(-deals // DEAL_CHUNK)

    def work_many(blocks):
        # a session draws from a stream apart from the match deals
        seeds = [[seed, index] if index < n_deal_chunks else [seed, 1, index - n_deal_chunks] for index, _ in blocks]
        counts = [count for _, count in blocks]
        hands = deal_seeded(deck, seeds, counts, players)
        keys, faults = arrange_all(seat_players, hands, tables, device, rules, players - 1, may_surrender=True)
        dealt = dealt_units_of(hands, rules) if rules.pays_dealt else None
        if any(index < n_deal_chunks for index, _ in blocks):
            # summed over the rotations: `players` times the points per deal, an exact integer
            rotated = sum(seat_points(keys, [(i + r) % players for i in range(players)], rules, dealt)
                          for r in range(players))
        if any(index >= n_deal_chunks for index, _ in blocks):
            seated = seat_points(keys, list(range(players)), rules, dealt)
        summaries = []
        for (index, _), start, count in zip(blocks, np.cumsum([0, *counts[:-1]]), counts):
            if index < n_deal_chunks:
                surrendered = [int((own[start:start + count, :, 0] == SURRENDER_KEY).sum()) for own in keys]
                summaries.append(("deals", rotated[start:start + count], faults, surrendered))
            else:
                summaries.append(("session", np.array(places(seated[start:start + count].sum(axis=0).tolist())),
                                  faults, None))
            faults = [0] * players  # a group's faults go with its first block
        return summaries

    def work(block):
        return work_many([block])[0]

    def combine(block, summary):
        kind, values, faults, surrendered = summary
        tally.bot_faults[:] = [total + new for total, new in zip(tally.bot_faults, faults)]
        if kind == "deals":
            tally.surrenders[:] = [total + new for total, new in zip(tally.surrenders, surrendered)]
            for i in range(players):
                tally.moments[i].add(values[:, i])
            tally.deal_blocks += 1
            if keep_points:
                kept.append(values / players)
        else:
            for i, place in enumerate(values.tolist()):
                tally.first_places[i] += place == 1
                tally.place_sums[i] += place
            tally.session_blocks += 1

    def result(partial: bool) -> MatchResult:
        scores = []
        sessions_done = tally.session_blocks
        for i, name in enumerate(names):
            moment = tally.moments[i]
            first = tally.first_places[i] / sessions_done if sessions_done else float("nan")
            mean_place = tally.place_sums[i] / sessions_done if sessions_done else float("nan")
            surrender_rate = (tally.surrenders[i] / (moment.count * players)
                              if rules.surrender is not None and moment.count else float("nan"))
            scores.append(StrategyScore(name, moment.mean(players), moment.stderr(players),
                                        moment.interval(players), first, mean_place, surrender_rate))
        seconds = clock.seconds()
        return MatchResult(strategies=names, scores=tuple(scores), deals=tally.moments[0].count,
                           sessions=sessions_done, seed=seed, rules=rules,
                           format="duplicate" if players == 2 else "seat rotation", partial=partial,
                           requested_deals=deals, seconds=seconds,
                           points=np.concatenate(kept) if keep_points and kept else None,
                           state=tally.state(raw_names, sessions, played_tables, seconds),
                           bot_faults=tuple(tally.bot_faults))

    # the blocks this match lacks: a resumed one's first blocks are in its tally already
    work_items = itertools.chain(
        blocks_of(deals - DEAL_CHUNK * tally.deal_blocks, DEAL_CHUNK, tally.deal_blocks),
        ((n_deal_chunks + s, DEALS_PER_SESSION) for s in range(tally.session_blocks, sessions)))
    remaining = deals - tally.moments[0].count + (sessions - tally.session_blocks) * DEALS_PER_SESSION
    clock = Clock(tally.seconds)
    return run_job(job, work_items, work, combine, result,
                   has_result=lambda: tally.deal_blocks > 0 or tally.session_blocks > 0,
                   complete=lambda: tally.deal_blocks >= n_deal_chunks and tally.session_blocks >= sessions,
                   total=remaining, clock=clock, warm_up=(0, 2),
                   group=_blocks_per_call(job.device, DEAL_CHUNK * players), work_many=work_many)

