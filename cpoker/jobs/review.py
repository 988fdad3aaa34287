"""What a session of real hands cost: ``cpoker.review`` and ``cpoker review``.

Each played hand (:mod:`cpoker.jobs.played`) is solved as ``solve(hand, compare=played)`` does it: the best
arrangement and the player's own are scored on the very same Monte Carlo deals, so the **EV lost**
(best minus played, never negative) has the small interval of a paired difference.  When the line gives
the real opponents' arrangements, the deal is settled as it was played: the **actual** points, and the
**luck**, actual minus the player's EV.  The summary adds the hands up.

Every hand's deals derive from ``(seed, hand number)`` (:func:`cpoker.game.dealing.derived_seed`), so a review
gives the same numbers for any ``jobs``, block order or backend; hands run in blocks through
:func:`cpoker.run.runner.run_blocks` (progress, Ctrl-C, time budget, Dask), and a partial review continues
to the numbers of an unbroken one (``resume=``).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Optional

from cpoker.game.arrangements import ROW_NAMES, Arrangement
from cpoker.system.errors import CpokerError, OptionError, RulesError
from cpoker.system.limits import MAX_SAMPLES, check_int, check_seed
from cpoker.jobs.played import MAX_HANDS, MAX_OPPONENTS, PlayedHand, actual_points, checked_hands
from cpoker.game.rules import MAX_SESSION_DEALS, Rules, resolve_rules
from cpoker.run.stats import Z95

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from cpoker.strategies.policy import PolicyTables
    from cpoker.strategies.strategy import StrategyLike
    from cpoker.run.saved import Reading

BLOCK_HANDS = 16  # hands a block: a Dask task, the step of a checkpoint, and the hands solved side by side
REVIEW_STATE = "cpoker review state 1"
DEFAULT_TOP = 10


@dataclass(frozen=True)
class ReviewedHand:
    """One played hand next to the best arrangement (see :func:`review`).

    Attributes
    ----------
    number, id, line
        Its position in the review (0-based), the input's own id, and its input line.
    played, best
        The player's arrangement and the best one found.
    ev_played, ev_best
        Their EVs (points per deal, summed over the opponents), on the same deals.
    ev_lost, ev_lost_stderr
        ``ev_best - ev_played`` (never negative) and the standard error of that paired difference.
    rows_differ
        The rows of ``played`` whose cards differ from ``best``'s.
    opponents, rules, seed, samples
        How it was solved: ``solve(hand, opponents=, rules=, seed=, samples=, compare=played)`` again gives it.
    actual, luck
        With the real opponents' arrangements: the points the player won on the deal, and ``actual -
        ev_played``; otherwise ``None``.
    should_surrender
        Under rules that allow surrender, whether surrendering was worth more than the best arrangement:
        ``ev_best`` is then surrendering's value (``-N`` per opponent, exact), and ``ev_lost`` what the played
        arrangement lost against it, with the played arrangement's standard error.
    """

    number: int
    id: Optional[str]
    line: int
    played: Arrangement
    best: Arrangement
    ev_played: float
    ev_best: float
    ev_lost: float
    ev_lost_stderr: float
    rows_differ: tuple
    opponents: int
    rules: str
    seed: int
    samples: int
    actual: Optional[int] = None
    luck: Optional[float] = None
    should_surrender: bool = False

    @property
    def fouled(self) -> bool:
        """Whether the played arrangement fouls."""
        return self.played.is_foul

    @property
    def ev_lost_interval(self) -> tuple[float, float]:
        """95% interval of :attr:`ev_lost`."""
        half = Z95 * self.ev_lost_stderr
        return self.ev_lost - half, self.ev_lost + half

    @property
    def as_well_as_best(self) -> bool:
        """Played as well as the best within the noise: the EV lost's 95% interval reaches 0."""
        return self.ev_lost_interval[0] <= 0.0

    def to_dict(self) -> dict:
        """One hand's fields as plain data (a line of ``--out review.csv``, an entry of ``--json``)."""
        return {"number": self.number, "id": self.id, "line": self.line, "played": str(self.played),
                "best": str(self.best), "fouled": self.fouled, "foul_reason": self.played.foul_reason,
                "ev_played": self.ev_played, "ev_best": self.ev_best, "ev_lost": self.ev_lost,
                "ev_lost_stderr": self.ev_lost_stderr, "ev_lost_interval_95": list(self.ev_lost_interval),
                "as_well_as_best": self.as_well_as_best, "rows_differ": list(self.rows_differ),
                "opponents": self.opponents, "rules": self.rules, "seed": self.seed, "samples": self.samples,
                "actual": self.actual, "luck": self.luck, "should_surrender": self.should_surrender}

    @classmethod
    def from_dict(cls, data: dict) -> "ReviewedHand":
        """A hand of a saved review read back (``resume=``); ``ValueError``/``KeyError``/``TypeError`` if damaged."""
        from cpoker.run.saved import count, flag, number

        numbers = {name: number(data[name]) for name in ("ev_played", "ev_best", "ev_lost", "ev_lost_stderr")}
        actual, luck = data["actual"], data["luck"]
        if (actual is None) != (luck is None):
            raise ValueError("actual and luck go together")
        rows = tuple(data["rows_differ"])
        if not set(rows) <= set(ROW_NAMES):
            raise ValueError(f"{rows!r} are not rows")
        return cls(number=count(data["number"]), id=None if data["id"] is None else str(data["id"]),
                   line=count(data["line"]), played=Arrangement.parse(data["played"]),
                   best=Arrangement.parse(data["best"]), rows_differ=rows, opponents=count(data["opponents"]),
                   rules=str(data["rules"]), seed=count(data["seed"]), samples=count(data["samples"]),
                   actual=None if actual is None else int(number(actual)),
                   luck=None if luck is None else number(luck),
                   should_surrender=flag(data.get("should_surrender", False)), **numbers)


@dataclass(frozen=True)
class ReviewSummary:
    """The hands of a review added up.

    Attributes
    ----------
    hands, fouls, as_well_as_best
        Hands reviewed, hands whose played arrangement fouled, and hands played as well as the best within
        the noise.
    total_ev_lost, total_ev_lost_interval
        The sum of the hands' EV lost, and its 95% interval (the hands' Monte Carlo errors are independent).
    mean_ev_lost, mean_ev_lost_interval
        The same per hand.
    costliest
        The numbers of the ``top`` hands that lost the most EV, costliest first.
    real_deals, total_actual, total_ev, total_luck
        The hands with the real opponents given, and over them: the points actually won, the played
        arrangements' EV, and the luck (their difference); ``None`` without any such hand.
    """

    hands: int
    fouls: int
    as_well_as_best: int
    total_ev_lost: float
    total_ev_lost_interval: tuple
    mean_ev_lost: float
    mean_ev_lost_interval: tuple
    costliest: tuple
    real_deals: int = 0
    total_actual: Optional[int] = None
    total_ev: Optional[float] = None
    total_luck: Optional[float] = None
    should_surrender: int = 0  # hands that surrendering would have played better (rules that allow it)

    @classmethod
    def of(cls, hands: "list[ReviewedHand]", top: int) -> "ReviewSummary":
        total = math.fsum(h.ev_lost for h in hands)
        half = Z95 * math.sqrt(math.fsum(h.ev_lost_stderr ** 2 for h in hands))
        n = max(len(hands), 1)
        costliest = tuple(h.number for h in sorted(hands, key=lambda h: (-h.ev_lost, h.number))[:top])
        real = [h for h in hands if h.actual is not None]
        actual = sum(h.actual for h in real) if real else None  # type: ignore[misc]
        ev = math.fsum(h.ev_played for h in real) if real else None
        return cls(hands=len(hands), fouls=sum(h.fouled for h in hands),
                   as_well_as_best=sum(h.as_well_as_best for h in hands), total_ev_lost=total,
                   total_ev_lost_interval=(total - half, total + half), mean_ev_lost=total / n,
                   mean_ev_lost_interval=((total - half) / n, (total + half) / n), costliest=costliest,
                   real_deals=len(real), total_actual=actual, total_ev=ev,
                   total_luck=None if actual is None else actual - ev,  # type: ignore[operator]
                   should_surrender=sum(h.should_surrender for h in hands))

    def to_dict(self) -> dict:
        return {"hands": self.hands, "fouls": self.fouls, "as_well_as_best": self.as_well_as_best,
                "total_ev_lost": self.total_ev_lost, "total_ev_lost_interval_95": list(self.total_ev_lost_interval),
                "mean_ev_lost": self.mean_ev_lost, "mean_ev_lost_interval_95": list(self.mean_ev_lost_interval),
                "costliest": list(self.costliest), "real_deals": self.real_deals, "total_actual": self.total_actual,
                "total_ev": self.total_ev, "total_luck": self.total_luck, "should_surrender": self.should_surrender}


@dataclass(frozen=True)
class ReviewResult:
    """The answer of :func:`review`: ``hands`` (one :class:`ReviewedHand` each, in input order), ``summary``
    (:class:`ReviewSummary`), and every parameter needed to rerun it."""

    hands: tuple
    summary: ReviewSummary
    rules: Rules
    opponents: int
    samples: int
    seed: int
    opponent_model: str
    partial: bool
    requested_hands: int
    skipped: tuple = ()  # (line, reason) of the input lines skipped as bad (skip_bad=True)
    seconds: float = 0.0
    bot_faults: int = 0
    top: int = DEFAULT_TOP
    state: Optional[dict] = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """Plain data for JSON output, with every parameter needed to rerun (and ``state`` to resume)."""
        from cpoker._version import __version__

        return {"kind": "review", "version": __version__, "rules": self.rules.name, "opponents": self.opponents,
                "samples": self.samples, "seed": self.seed, "opponent_model": self.opponent_model,
                "top": self.top, "hands_reviewed": len(self.hands), "requested_hands": self.requested_hands,
                "partial": self.partial, "seconds": self.seconds, "bot_faults": self.bot_faults,
                "skipped": [{"line": line, "reason": reason} for line, reason in self.skipped],
                "summary": self.summary.to_dict(), "hands": [h.to_dict() for h in self.hands], "state": self.state}

    def to_pandas(self) -> "pandas.DataFrame":
        """The hands as a ``pandas.DataFrame``, one row each (needs pandas: ``pip install 'cpoker[pandas]'``)."""
        try:
            import pandas
        except ImportError:
            raise OptionError("to_pandas needs pandas: pip install 'cpoker[pandas]'") from None
        rows = [h.to_dict() for h in self.hands]
        for row in rows:
            row["ev_lost_low"], row["ev_lost_high"] = row.pop("ev_lost_interval_95")
            row["rows_differ"] = " ".join(row["rows_differ"])
        return pandas.DataFrame(rows)


def review(hands: "Iterable | PlayedHand", rules: "Rules | str | None" = None, opponents: int = 1,
           samples: int = 2000, seed: Optional[int] = None,
           opponent: "StrategyLike" = "table", tables: "PolicyTables | str | None" = None,
           jobs: Optional[int] = None, top: int = DEFAULT_TOP, progress: bool = False,
           time_budget: Optional[float] = None, backend: str = "local", scheduler: Optional[str] = None,
           resume: "ReviewResult | dict | None" = None,
           checkpoint: "Callable[[ReviewResult], None] | None" = None, checkpoint_seconds: float = 10.0,
           skipped: tuple = ()) -> ReviewResult:
    """Review played hands: what each one cost against the best arrangement, and the session's sum.

    Parameters
    ----------
    hands
        The played hands: :class:`~cpoker.jobs.played.PlayedHand` objects (``cpoker.jobs.played.read_played`` reads
        a file of them), arrangements or their text ``"front / middle / back"``, or dicts of the JSON Lines
        fields (``arrangement``, ``id``, ``rules``, ``opponents``).  All are checked before any solving.
    rules, opponents
        The rules and opponent count of the hands that do not set their own.
    samples
        Monte Carlo deals per hand (as :func:`cpoker.solve`).
    seed
        Seeds every hand's deals (hand ``i`` uses ``derived_seed(seed, i)``); ``None`` draws one, recorded.
    opponent, tables
        The opponent model of the deals and its tables, as for :func:`cpoker.solve`: by default the tables of
        each hand's rules (a hand whose line sets other rules plays theirs); tables given serve every hand.
    jobs
        Threads (default: every core); the numbers do not depend on it.
    top
        How many of the costliest hands the summary names.
    progress, time_budget
        A progress bar on standard error; seconds after which no new block of hands starts (the review is
        then ``partial``).
    backend, scheduler
        ``"local"`` or ``"dask"`` (blocks of 16 hands on a Dask cluster); the same numbers.
    resume, checkpoint, checkpoint_seconds
        Continue a saved partial review of the same hands and settings to the numbers of an unbroken one;
        save the partial result with ``checkpoint(result)`` at most every ``checkpoint_seconds``.
    skipped
        ``(line, reason)`` of input lines the caller skipped, recorded in the result.

    Raises
    ------
    PlayedHandsError
        Naming every bad hand (its position, or its line).
    OptionError
        For a bad size, seed, backend or saved review.
    """
    from cpoker.jobs.job import Clock, HandTally, run_job
    from cpoker.jobs.prepared import prepare_job
    from cpoker.jobs.solve import resolve_player
    from cpoker.strategies.policy import resolve_tables
    from cpoker.strategies.strategy import Player
    from cpoker.run.blocks import blocks_of
    from cpoker.strategies.bots import faulted_hands
    from cpoker.system.interrupts import deferred

    played = _played_list(hands)
    opponents = check_int("opponents", opponents, 1, MAX_OPPONENTS)
    samples = check_int("samples", samples, 1, MAX_SAMPLES)
    top = check_int("top", top, 0, MAX_HANDS)
    given_tables = tables is not None
    job = prepare_job([opponent], seed=seed, rules=rules, tables=tables, backend=backend, scheduler=scheduler,
                 progress=progress, time_budget=time_budget, checkpoint=checkpoint,
                 checkpoint_seconds=checkpoint_seconds, jobs=jobs)
    rules, (player,) = job.rules, job.players
    opponent_name = player.name
    # tables given are every hand's; by default a hand with rules of its own plays its rules' shipped tables,
    # and so the opponent model is resolved again for such a hand (by name; once for the job otherwise)
    hand_tables = job.tables if given_tables else None
    for hand in played:  # a real deal that cannot be settled under the review's rules is a bad hand too
        if hand.real_opponents and hand.rules is None:
            _check_real_deal(hand, rules)
    fingerprint = _fingerprint(played, rules, opponents, samples, opponent_name, job.tables_fingerprint)
    tally, seed = job.start(resume, HandTally, _reader(fingerprint), kind="review",
                            state_format=REVIEW_STATE, unit="hands", asked=len(played), block=BLOCK_HANDS)
    results = tally.results

    by_rules: dict = {}

    def opponent_of(hand: PlayedHand) -> Player:
        """The opponent model of a hand: the job's, or, for a hand with rules of its own, the opponent resolved
        under them and their shipped tables (once for each such rules)."""
        if hand.rules is None or given_tables:
            return player
        if hand.rules not in by_rules:
            by_rules[hand.rules] = resolve_player(opponent, resolve_tables(None, hand.rules), hand.rules)
        return by_rules[hand.rules]

    def review_block(block):
        first = block[0] * BLOCK_HANDS
        (before,) = faulted_hands([player.strategy])
        with deferred():  # a signal drops the block in flight; the hands' own solves never see it
            reviewed = _side_by_side(lambda i: _review_hand(played[i], i, rules, opponents, samples, seed,
                                                            opponent_of(played[i]), hand_tables),
                                     range(first, first + block[1]), shareable)
        return reviewed, faulted_hands([player.strategy])[0] - before

    def keep(block, summary):
        reviewed, block_faults = summary
        tally.bot_faults += block_faults
        for hand in reviewed:
            results[hand.number] = hand

    def result(partial: bool) -> ReviewResult:
        done = [results[i] for i in sorted(results)]
        seconds = clock.seconds()
        state = {"format": REVIEW_STATE, "input_sha256": fingerprint, "rules": rules.to_dict(), "seconds": seconds,
                 "bot_faults": tally.bot_faults}
        return ReviewResult(hands=tuple(done), summary=ReviewSummary.of(done, top), rules=rules,
                            opponents=opponents, samples=samples, seed=seed, opponent_model=opponent_name,
                            partial=partial, requested_hands=len(played), skipped=tuple(skipped),
                            seconds=seconds, bot_faults=tally.bot_faults, top=top, state=state)

    # the built-in opponent models are plain kernels, safe to run on several threads; a bot or a plug-in may not be
    shareable = isinstance(opponent, str) and opponent_name.split("@")[0] in ("table", "greedy")
    first = len(results) // BLOCK_HANDS
    clock = Clock(tally.seconds)
    return run_job(job, blocks_of(len(played) - BLOCK_HANDS * first, BLOCK_HANDS, first), review_block, keep,
                   result, has_result=lambda: bool(results), complete=lambda: len(results) >= len(played),
                   total=len(played) - len(results), clock=clock, unit="hand", description="review")


def _side_by_side(work, numbers: range, shareable: bool) -> list:
    """``[work(i) for i in numbers]``, the hands solved side by side on the threads numba may use here (each
    hand's kernels then on its share of them).

    One solve cannot keep many cores busy: its Python steps between kernels leave them idle, and 2,000 samples
    are one block.  Several hands at once fill those gaps (docs/performance.md measures it with
    benchmarks/review_throughput.py).  Each hand's numbers depend on its seed alone, never on the
    threads.  A signal reaches every hand's solve (see :func:`cpoker.system.interrupts.deferred`); the first to stop
    raises, and the hands not started are dropped.
    """
    import numba
    from concurrent.futures import ThreadPoolExecutor

    cores = numba.get_num_threads()
    threads = min(cores, len(numbers)) if shareable else 1
    if threads <= 1:
        return [work(i) for i in numbers]
    share = max(1, cores // threads)

    def on_a_share(i):
        numba.set_num_threads(share)  # this thread's own count (numba's thread count is per thread)
        return work(i)

    with ThreadPoolExecutor(threads, thread_name_prefix="cpoker-review") as pool:
        futures = [pool.submit(on_a_share, i) for i in numbers]
        try:
            return [future.result() for future in futures]
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _played_list(hands) -> "list[PlayedHand]":
    """The hands as checked :class:`PlayedHand` objects (each item's position is its line)."""
    if isinstance(hands, (str, bytes, PlayedHand, Arrangement, dict)):
        hands = [hands]
    try:
        items = list(hands)
    except TypeError:
        raise OptionError(f"hands must be a list of played hands, got {type(hands).__name__}") from None
    return checked_hands(enumerate(items, 1), "the hands")[0]


def _check_real_deal(hand: PlayedHand, rules: Rules) -> None:
    from cpoker.jobs.played import PlayedHandsError

    try:
        actual_points(hand, rules)
    except CpokerError as error:
        where = f"line {hand.line}" if hand.line else "a hand"
        raise PlayedHandsError(f"{where}: {error}", [(hand.line, str(error))]) from None


def _review_hand(hand: PlayedHand, number: int, rules: Rules, opponents: int, samples: int, seed: int,
                 opponent, tables) -> ReviewedHand:
    """Solve one played hand with its own arrangement compared on the same deals."""
    from cpoker.game.dealing import derived_seed
    from cpoker.jobs.solve import solve

    rules = hand.rules or rules
    count = len(hand.real_opponents) or hand.opponents or opponents
    hand_seed = derived_seed(seed, number)
    solution = solve([int(c) for c in hand.arrangement.cards], opponents=count, samples=samples, seed=hand_seed,
                     rules=rules, opponent=opponent, tables=tables, compare=hand.arrangement)
    compared = solution.compared
    assert compared is not None and solution.ev_lost is not None  # (solved with compare=)
    differ = tuple(name for name, mine, best in zip(ROW_NAMES, hand.arrangement.rows, solution.best.rows)
                   if set(mine) != set(best))
    actual = actual_points(hand, rules) if hand.real_opponents else None
    ev_best, ev_lost, ev_lost_stderr = solution.ev, max(solution.ev_lost, 0.0), solution.ev_lost_stderr or 0.0
    if solution.advise_surrender:  # the best play gives the deal up: an exact value, so the played EV's error alone
        ev_best = solution.surrender.surrender_value  # type: ignore[union-attr]
        ev_lost, ev_lost_stderr = max(ev_best - compared.ev, 0.0), compared.stderr or 0.0
    return ReviewedHand(number=number, id=hand.id, line=hand.line, played=hand.arrangement, best=solution.best,
                        ev_played=compared.ev, ev_best=ev_best, ev_lost=ev_lost, ev_lost_stderr=ev_lost_stderr,
                        rows_differ=differ, opponents=count, rules=rules.name, seed=hand_seed,
                        samples=solution.samples, actual=actual, luck=None if actual is None else actual - compared.ev,
                        should_surrender=solution.advise_surrender)


def _fingerprint(played: "list[PlayedHand]", rules: Rules, opponents: int, samples: int, opponent: str,
                 tables: str) -> str:
    """sha256 of everything a review's numbers depend on but its seed: the hands and the settings."""
    data = {"hands": [h.to_dict() for h in played], "rules": rules.to_dict(), "opponents": opponents,
            "samples": samples, "opponent": opponent, "tables": tables}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()


def _reader(fingerprint: str) -> "Callable[[dict, dict], Reading]":
    """How a saved review's hands (``{number: ReviewedHand}``) are read back, for the resume protocol
    (:func:`cpoker.run.saved.resumed`): numbered from the first, and of the same hands and settings
    (``fingerprint``)."""
    from cpoker.jobs.job import HandTally
    from cpoker.run import saved

    def read(data: dict, state: dict) -> "Reading":
        reviewed = [ReviewedHand.from_dict(h) for h in data["hands"]]
        digest = saved.text(state["input_sha256"])
        tally = HandTally({h.number: h for h in reviewed}, saved.seconds(state["seconds"]),
                          saved.count(state.get("bot_faults", 0)))
        return saved.Reading(
            tally, len(reviewed), [h.number for h in reviewed] == list(range(len(reviewed))),
            why="its hands are not numbered 0, 1, 2, ...",
            refusal=None if digest == fingerprint else (
                "the saved review is of other hands, rules, opponents, samples or opponent model (review the "
                "same file with the same options)"))

    return read



@dataclass(frozen=True)
class TableDeal:
    """One deal played at a full table (the web page's Play mode): the player's hand reviewed, and the deal.

    Attributes
    ----------
    hands
        The 13 cards of every seat (the player's first), as :func:`cpoker.deal` deals them for the seed.
    arrangements
        Every seat's arrangement: the player's, then the table policy's for each opponent.
    settlement
        The deal settled (:func:`cpoker.settle_details`): ``settlement.results[0]`` is the player's.
    reviewed
        The player's hand reviewed against the best arrangement (with ``actual`` and ``luck``).
    """

    seed: int
    hands: tuple
    arrangements: tuple
    settlement: object
    reviewed: "ReviewedHand | SurrenderedHand"
    stake: int = 1  # the deal's session stake (rules.session_stakes), already in the settlement

    def to_dict(self) -> dict:
        from cpoker.game.cards import format_cards

        return {"seed": self.seed, "hands": [format_cards(h) for h in self.hands],
                "arrangements": [a.to_dict() for a in self.arrangements],
                "results": self.settlement.results, "matrix": self.settlement.total.tolist(),  # type: ignore
                "stake": self.stake, "review": self.reviewed.to_dict()}


@dataclass(frozen=True)
class SurrenderedHand:
    """A hand the player surrendered at a table, next to the best play of it (:func:`table_deal`).

    ``ev_played`` is surrendering's value, ``-N`` per opponent (the solver's opponents all play), ``ev_best``
    the best of that and the best arrangement's EV: surrendering lost ``ev_lost``, 0 when it was the best play.
    ``actual`` is what the surrender paid on the deal (nothing to an opponent who surrendered too).
    """

    best: Arrangement
    ev_played: float
    ev_arrangement: float
    actual: int

    @property
    def ev_best(self) -> float:
        return max(self.ev_played, self.ev_arrangement)

    def to_dict(self) -> dict:
        return {"played": "surrender", "surrendered": True, "fouled": False, "best": str(self.best),
                "ev_played": self.ev_played, "ev_best": self.ev_best, "ev_best_arrangement": self.ev_arrangement,
                "ev_lost": self.ev_best - self.ev_played, "actual": self.actual,
                "luck": self.actual - self.ev_played}


def table_deal(arrangement, players: int, seed: int, rules: "Rules | str | None" = None,
               samples: int = 1000, deal: int = 0, session_deals: int = 1) -> TableDeal:
    """Play the deal ``cpoker.deal(players, seed)``: the player (seat 1) puts down ``arrangement`` of the first
    hand, each opponent the table policy's play under the rules; the deal is settled, and the player's hand is
    reviewed (:func:`review` of that one hand with the real opponents: its EV, the best's, and the luck).

    Under rules that allow surrender, ``arrangement`` may be ``"surrender"`` (the review is then a
    :class:`SurrenderedHand`), and the table policy surrenders as :func:`cpoker.strategies.strategy.table_play` does.

    ``deal`` is the deal's number (from 0) in a session of ``session_deals``: under rules with
    ``session_stakes`` the deal is settled at its stake, and the review stays per unit.

    Raises
    ------
    ArrangementError, CardError
        Unless ``arrangement`` is an arrangement (it may foul) of exactly the first hand's cards.
    RulesError
        When the rules' ``session_stakes`` are fewer than ``session_deals``.
    OptionError
        For a ``deal`` outside the session.
    """
    from cpoker.game.cards import deal as deal_hands
    from cpoker.game.scoring import Surrendered, is_surrender, settle, settle_details, surrender_under
    from cpoker.strategies.strategy import table_play

    seed = check_seed(seed)
    if seed is None:
        raise OptionError("a table deal needs its seed")
    rules = resolve_rules(rules)
    session_deals = check_int("session_deals", session_deals, 1, MAX_SESSION_DEALS)
    number = check_int("deal", deal, 0, session_deals - 1, f" (a deal of a {session_deals}-deal session, from 0)")
    if rules.session_stakes is not None and len(rules.session_stakes) < session_deals:
        raise RulesError(f"the rules ({rules.name}) give session_stakes for {len(rules.session_stakes)} deals, "
                         f"fewer than this session's {session_deals}")
    stake = rules.deal_stake(number)
    hands = deal_hands(players, seed)
    mine: "Arrangement | Surrendered"
    if is_surrender(arrangement):
        mine = surrender_under(rules)
    elif isinstance(arrangement, Arrangement):
        mine = Arrangement(*arrangement.rows, hand=hands[0])
    else:
        mine = Arrangement.parse(arrangement, hand=hands[0])
    others = tuple(table_play(hand, rules=rules) for hand in hands[1:])
    settlement = settle_details([mine, *others], rules, stakes=[[stake] * players] * players)
    reviewed: "ReviewedHand | SurrenderedHand"
    if isinstance(mine, Arrangement):
        reviewed = review([PlayedHand(mine, real_opponents=others)], rules=rules, samples=samples, seed=seed,
                          jobs=1).hands[0]
    else:
        from cpoker.jobs.solve import solve

        best = solve(hands[0], opponents=players - 1, samples=samples, seed=seed, rules=rules)
        reviewed = SurrenderedHand(best.best, -float(rules.surrender * (players - 1)), best.ev,  # type: ignore
                                   settle([mine, *others], rules)[0])
    return TableDeal(seed=seed, hands=tuple(hands), arrangements=(mine, *others), settlement=settlement,
                     reviewed=reviewed, stake=stake)
