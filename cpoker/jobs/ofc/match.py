"""Open-face matches: strategies play whole hands at one table, Fantasyland carried from hand to hand.

:func:`match` plays ``hands`` deals in **sessions** of ``session_hands`` (default 10): a session is hands in a
row at one table, the button moving each hand and Fantasyland carried from one hand to the next; every
session starts with nobody in Fantasyland.  Sessions are the blocks of the job skeleton
(:func:`cpoker.jobs.job.run_job`: all cores, a progress bar, Ctrl-C returns the sessions done, ``partial=True``,
a broken bot the sessions played), and session ``i`` deals from
``default_rng([seed, i, hand])``, so a seed gives the same match on any machine and number of threads.

Heads-up matches are **duplicate**: each session is played twice on the same decks, the strategies in
swapped seats, so a strategy holds, hand for hand, the cards its opponent held (as far as the two tables'
Fantasylands let the deals run alike), and luck largely cancels.  Three-handed, the seats rotate from one
session to the next.

Strategies: ``heuristic`` (the rollout policy, :func:`cpoker.strategies.ofc.heuristic.heuristic`), ``mc`` (the
placement solver's adaptive search, :data:`MC_ROLLOUTS` rollouts for the options in contention; ``mc:N`` for
``N``), ``mc-flat`` (0.8.0's ``mc``: :data:`MC_FLAT_ROLLOUTS` rollouts for every option; ``mc-flat:N``),
``package.module:function``
(called with an :class:`~cpoker.game.ofc.hand.OfcView`, answering a board), ``cmd:COMMAND`` (a program that
speaks the bot protocol, docs/bots.md), or a callable.  A player in
Fantasyland sets it with the Fantasyland solver (``heuristic``: royalties; ``mc``: expected value) unless its
strategy is its own.
"""

from __future__ import annotations

import math
import re
import time
from fractions import Fraction
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from cpoker.game.dealing import new_seed
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.hand import OfcStrategy, OfcView, played_hand, seeded, table_deck
from cpoker.game.ofc.history import HandHistory, hand_history, history_lines
from cpoker.strategies.ofc.heuristic import heuristic, heuristic_static
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
from cpoker.run.blocks import blocks_of
from cpoker.run import saved
from cpoker.run.stats import mean_interval, normal_interval, sample_variance, strict_json_data, wilson_interval
from cpoker.strategies.bots import Bot
from cpoker.strategies.ofc.bot import OfcBot, is_bot_name
from cpoker.strategies.strategy import load_plugin
from cpoker.system import interrupts
from cpoker.system.errors import OptionError, StrategyError
from cpoker.system.limits import check_int, check_seed

KIND, STATE_FORMAT = "ofc-match", "ofc-match-2"
MC_ROLLOUTS = 300  # mc: the depth of the adaptive search's contenders
MC_FLAT_ROLLOUTS = 100  # mc-flat: every option's rollouts
MAX_HANDS = 10_000_000
MAX_SESSION_HANDS = 1000
STRATEGY_NAMES = ("heuristic", "heuristic-static", "mc", "mc:N", "mc-flat", "mc-flat:N", "cmd:COMMAND")
MAX_MC_ROLLOUTS = 100_000
_MC = re.compile(r"(mc|mc-flat)(?::(.*))?", re.DOTALL)


class MonteCarloPlacer:
    """The ``mc`` strategy: the placement solver's best placement, seeded by the view, searched adaptively to
    ``rollouts`` rollouts for the options in contention, played out by the learned rollout policy
    (``adaptive=False``, ``mc-flat``: every option ``rollouts`` times by the static policy, 0.8.0's ``mc``); in
    Fantasyland, the Fantasyland solver's ``ev`` board against
    ``rollouts`` opponent boards (at most :data:`MC_FLAT_ROLLOUTS`)."""

    def __init__(self, rollouts: "int | None" = None, adaptive: bool = True) -> None:
        default = MC_ROLLOUTS if adaptive else MC_FLAT_ROLLOUTS
        self.rollouts = default if rollouts is None else rollouts
        self.adaptive = adaptive
        name = "mc" if adaptive else "mc-flat"
        self.__name__ = name if self.rollouts == default else f"{name}:{self.rollouts}"

    def __call__(self, view: OfcView) -> Board:
        from cpoker.strategies.ofc.fantasyland import fantasyland
        from cpoker.jobs.ofc.placement import place

        if view.fantasyland:
            return fantasyland(view.cards, view.rules, "ev", samples=min(self.rollouts, MC_FLAT_ROLLOUTS),
                               seed=view.seed).board
        return place(view.board, view.cards, view.rules, opponents=list(view.opponents), dead=view.discards,
                     samples=self.rollouts, seed=view.seed, fantasylands=view.fantasyland_cards,
                     adaptive=self.adaptive, policy="learned" if self.adaptive else "static").best.board


def resolve_ofc_strategy(strategy: object) -> tuple:
    """``(name, callable)`` of a strategy: a built-in name, ``package.module:function``, ``cmd:COMMAND`` (a bot,
    :class:`~cpoker.strategies.ofc.bot.OfcBot`) or a callable.

    Raises
    ------
    StrategyError
        For anything else.
    """
    if isinstance(strategy, Bot) or is_bot_name(strategy):  # (a Bot is callable too: here it places cards)
        bot = OfcBot(strategy)  # type: ignore[arg-type]
        return bot.__name__, bot
    if callable(strategy):
        return getattr(strategy, "__name__", type(strategy).__name__), strategy
    if not isinstance(strategy, str):
        raise StrategyError(f"an open-face strategy is a name ({', '.join(STRATEGY_NAMES)}), package.module:function "
                            f"or a callable, got {type(strategy).__name__}")
    if strategy == "heuristic":
        return "heuristic", heuristic
    if strategy == "heuristic-static":
        return "heuristic-static", heuristic_static
    found = _MC.fullmatch(strategy)
    if found:
        kind, given = found.group(1), found.group(2)
        if given is not None and not re.fullmatch(r"\d{1,12}", given.strip()):
            raise StrategyError(f"{kind}:N takes a whole number of rollouts from 1 to {MAX_MC_ROLLOUTS:,}, got "
                                f"{strategy[:40]!r}")
        rollouts = None if given is None else int(given)
        if rollouts is not None and not 1 <= rollouts <= MAX_MC_ROLLOUTS:
            raise StrategyError(f"{kind}:N takes a whole number of rollouts from 1 to {MAX_MC_ROLLOUTS:,}, got "
                                f"{rollouts:,}")
        placer = MonteCarloPlacer(rollouts, adaptive=kind == "mc")
        return placer.__name__, placer
    if ":" in strategy:
        return strategy, load_plugin(strategy)
    raise StrategyError(f"unknown open-face strategy {strategy[:60]!r}; known: {', '.join(STRATEGY_NAMES)}, or "
                        "package.module:function")


@dataclass(frozen=True)
class OfcStrategyScore:
    """One strategy's figures over a match, each rate with its 95% interval.

    ``points``: its mean points a hand; ``foul_rate``: of its hands; ``fantasyland_entry_rate``: of the hands it
    played out of Fantasyland, those that earned one; ``fantasyland_stay_rate``: of its Fantasyland hands, those
    that stayed; ``royalties``: its mean royalties a hand (a foul earns none); ``faults``: hands it forfeited.
    """

    name: str
    hands: int
    points: float
    interval: tuple
    foul_rate: float
    foul_interval: tuple
    fantasyland_entry_rate: float
    fantasyland_entry_interval: tuple
    fantasyland_hands: int
    fantasyland_stay_rate: float
    fantasyland_stay_interval: tuple
    royalties: float
    royalties_interval: tuple
    faults: int

    def to_dict(self) -> dict:
        """The figures as strict JSON data: a rate with nothing to count (no Fantasyland hand) and an interval
        that one session cannot give are ``null``."""
        return strict_json_data({name: list(value) if isinstance(value, tuple) else value
                                 for name, value in self.__dict__.items()})  # type: ignore[return-value]


@dataclass(frozen=True)
class OfcMatchResult:
    """The answer of :func:`match`: a score for each strategy, and every setting that reruns the match."""

    rules: OfcRules
    names: tuple
    scores: tuple
    hands: int
    asked: int
    session_hands: int
    duplicate: bool
    seed: int
    partial: bool
    seconds: float
    state: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        """The result as JSON-ready data, with the ``state`` that ``match(..., resume=...)`` continues."""
        from cpoker._version import __version__

        return strict_json_data({  # type: ignore[return-value]
            "kind": KIND, "version": __version__, "rules": self.rules.to_dict(), "strategies": list(self.names),
            "hands": self.hands, "asked_hands": self.asked, "session_hands": self.session_hands,
            "duplicate": self.duplicate, "seed": self.seed, "partial": self.partial, "seconds": self.seconds,
            "scores": [score.to_dict() for score in self.scores], "state": self.state})


# a session's counts for each strategy, in this order
FIELDS = ("hands", "points", "fouls", "royalties", "royalty_squares", "normal_hands", "entries",
          "fantasyland_hands", "stays", "faults")
HANDS, POINTS, FOULS, ROYALTIES, ROYALTY_SQUARES, NORMAL_HANDS, ENTRIES, FANTASYLAND_HANDS, STAYS, FAULTS = \
    range(len(FIELDS))


def _session(index: int, count: int, seed: int, rules: OfcRules, strategies: Sequence[OfcStrategy],
             duplicate: bool, names: "Sequence[str] | None" = None) -> tuple:
    """Play session ``index`` (``count`` hands; twice, seats swapped, when ``duplicate``): an array of the
    :data:`FIELDS` for each strategy, and with ``names`` (the strategies') the hands' histories in the order
    played (:class:`~cpoker.game.ofc.history.HandHistory`; none without)."""
    players = len(strategies)
    totals = np.zeros((players, len(FIELDS)), dtype=np.int64)
    histories = []
    orders = [list(range(players)), list(range(players))[::-1]] if duplicate else \
        [[(i + index) % players for i in range(players)]]
    for copy, order in enumerate(orders):  # the duplicate's copy (0, or 1 with the seats swapped); order[s]: seat s's
        sizes = [0] * players  # each seat's Fantasyland (cards), by seat
        for hand in range(count):
            button = hand % players
            # seat k after the button is seat (button + 1 + k) % players
            seats = [(button + 1 + k) % players for k in range(players)]
            played = played_hand([strategies[order[s]] for s in seats], rules, table_deck([seed, index, hand]),
                                 [sizes[s] for s in seats], seeded(seed, index, hand, copy))
            record = played.record()
            if names is not None:
                histories.append(hand_history(
                    played, [names[order[s]] for s in seats], id=f"{seed}-{index}-{hand}-{copy}", seats=seats,
                    button=button, source={"kind": KIND, "seed": seed, "session": index, "hand": hand, "copy": copy,
                                           "strategies": list(names)}))
            for k, s in enumerate(seats):
                who = order[s]
                scored = record.settlement.boards[k]
                row = totals[who]
                row[HANDS] += 1
                row[POINTS] += record.settlement.results[k]
                row[FOULS] += scored.fouled
                row[ROYALTIES] += scored.total
                row[ROYALTY_SQUARES] += scored.total ** 2
                if record.fantasyland[k]:
                    row[FANTASYLAND_HANDS] += 1
                    row[STAYS] += record.next_fantasyland[k] > 0
                else:
                    row[NORMAL_HANDS] += 1
                    row[ENTRIES] += record.next_fantasyland[k] > 0
                row[FAULTS] += record.faults[k] is not None
                sizes[s] = record.next_fantasyland[k]
    return totals, histories


def match(strategies: Sequence[object], hands: int = 1000, rules: "OfcRules | str | None" = None,
          seed: Optional[int] = None, session_hands: int = 10, progress: bool = False,
          jobs: Optional[int] = None, backend: str = "local", scheduler: Optional[str] = None,
          resume: object = None, checkpoint: object = None, checkpoint_seconds: float = 10.0,
          record: object = None) -> OfcMatchResult:
    """Play an open-face match (see the module docstring).

    Parameters
    ----------
    strategies
        2 or 3 strategies (Pineapple deals 3 players; OFC up to 4, of which matches play 2 or 3).
    hands
        Deals (heads-up, each is played twice, seats swapped).
    rules
        Open-face rules (default ``ofc``).
    seed
        Seeds every deal and every ``mc`` decision (default: drawn, and reported).
    session_hands
        Hands a session: Fantasyland carries within one.
    progress, jobs
        A progress bar on standard error; the threads (default: all cores: ``mc``'s placements run on them).
    backend, scheduler
        ``"local"`` (default) or ``"dask"``: the sessions on a Dask cluster (the one at ``scheduler``, or a local
        one for the match); the same result.
    resume
        A saved result of this match (``to_dict()``, or its JSON read back) to continue, to the result of one
        unbroken run: more ``hands``, or the rest of a partial one.
    checkpoint, checkpoint_seconds
        ``checkpoint(result)`` is called with the partial result every ``checkpoint_seconds`` (to save it).
    record
        The hands' histories (:mod:`cpoker.game.ofc.history`, docs/ofc.md): a file to write them to, JSON Lines in
        the order played (written whole when the match ends, Ctrl-C included; a match resumed adds to the file
        it wrote), or a callable given each :class:`~cpoker.game.ofc.history.HandHistory`.

    Raises
    ------
    OptionError, StrategyError
        Naming the first option or strategy that is wrong, or a saved result that is not this match's.

    Examples
    --------
    >>> result = match(["heuristic", "heuristic"], hands=20, rules="pineapple", seed=1)
    >>> result.hands, result.duplicate, round(sum(s.points for s in result.scores), 9)
    (20, True, 0.0)
    """
    from cpoker.jobs.job import run_job, runs

    rules = resolve_ofc_rules(rules)
    if isinstance(strategies, str) or not isinstance(strategies, Sequence) or not 2 <= len(strategies) <= 3:
        raise OptionError("an open-face match needs 2 or 3 strategies")
    if len(strategies) > rules.max_players:
        raise OptionError(f"{rules.name} deals {rules.max_players} players, not {len(strategies)}")
    hands = check_int("hands", hands, 1, MAX_HANDS)
    session_hands = check_int("session_hands", session_hands, 1, MAX_SESSION_HANDS)
    seed = check_seed(seed)
    resolved = [resolve_ofc_strategy(strategy) for strategy in strategies]
    names = tuple(name for name, _ in resolved)
    players = [play for _, play in resolved]
    duplicate = len(players) == 2
    settings = runs(jobs=jobs, backend=backend, scheduler=scheduler, progress=progress, checkpoint=checkpoint,
                    checkpoint_seconds=checkpoint_seconds)
    sessions = -(-hands // session_hands)
    totals = np.zeros((len(players), len(FIELDS)), dtype=np.int64)
    observations = SessionMeans.empty(len(players))
    earlier = 0.0
    if resume is not None:
        (totals, observations, earlier), seed = saved.resumed(
            resume, KIND, STATE_FORMAT, _reader(len(players)), seed=seed, rules=None,  # type: ignore[arg-type]
            tables_sha256="", now={"rules": rules.to_dict(), "strategies": list(names),
                                   "session_hands": session_hands},
            unit="hands", asked=hands, block=session_hands, label="open-face match")
    seed = new_seed() if seed is None else seed
    recorder = _recorder(record, keep=resume is not None)

    def work(block: tuple) -> tuple:
        index, _ = block
        count = min(session_hands, hands - index * session_hands)
        with interrupts.deferred():  # a signal drops the session in flight; the mc placements never see it
            return _session(index, count, seed, rules, players, duplicate, names if recorder else None)

    def combine(block: tuple, played: tuple) -> None:
        nonlocal totals
        session, histories = played
        totals = totals + session
        observations.add(session[:, POINTS], session[:, HANDS])  # a session is one observation
        if recorder:
            recorder(histories)

    started = time.perf_counter()

    def result(partial: bool) -> OfcMatchResult:
        return _result(rules, names, totals, observations, hands, session_hands, duplicate, seed, partial,
                       earlier + time.perf_counter() - started)

    first = observations.count
    try:
        answer = run_job(settings, blocks_of(sessions - first, 1, first_index=first), work, combine, result,
                         has_result=lambda: observations.count > 0, complete=lambda: observations.count == sessions,
                         total=hands - min(hands, first * session_hands), unit="deal", description="open-face match",
                         size=lambda block: min(session_hands, hands - block[0] * session_hands))
    except BaseException:
        if recorder:
            recorder.discard()
        raise
    if recorder:
        recorder.commit()
    return answer


class _Recorder:
    """Where a match's histories go: a callable given each, or a file (:class:`~cpoker.system.files.AtomicStream`:
    in place whole when the match ends, dropped when it fails)."""

    def __init__(self, record: object, keep: bool) -> None:
        from cpoker.system.files import AtomicStream

        self.call = record if callable(record) else None
        self.stream = None if self.call else AtomicStream(record, keep=keep)  # type: ignore[arg-type]

    def __call__(self, histories: "list[HandHistory]") -> None:
        if self.call is not None:
            for history in histories:
                self.call(history)
        elif self.stream is not None:
            self.stream.write(history_lines(histories))

    def commit(self) -> None:
        if self.stream is not None:
            self.stream.commit()

    def discard(self) -> None:
        if self.stream is not None:
            self.stream.discard()


def _recorder(record: object, keep: bool) -> "_Recorder | None":
    """The match's :class:`_Recorder` (``None``: no record).

    Raises
    ------
    OptionError
        For a record that is neither a path nor a callable, or a file that cannot be written.
    """
    import os

    if record is None:
        return None
    if not callable(record) and not isinstance(record, (str, os.PathLike)):
        raise OptionError(f"record is a file to write the hands' histories to, or a callable given each, got "
                          f"{type(record).__name__}")
    return _Recorder(record, keep)


@dataclass
class SessionMeans:
    """Each strategy's points a hand in each session (one observation a session: the hands of one are not
    independent), kept as exact running sums: the number of sessions, the sum of the means and of their
    squares, as fractions.  O(1) whatever the match's length, and the same however it was cut and resumed."""

    count: int
    sums: list
    squares: list

    @classmethod
    def empty(cls, players: int) -> "SessionMeans":
        return cls(0, [Fraction(0)] * players, [Fraction(0)] * players)

    def add(self, points: np.ndarray, hands: np.ndarray) -> None:
        self.count += 1
        for who, (won, played) in enumerate(zip(points.tolist(), hands.tolist())):
            mean = Fraction(int(won), int(played))
            self.sums[who] += mean
            self.squares[who] += mean * mean

    def interval(self, who: int) -> tuple:
        """The 95% interval of strategy ``who``'s mean points a hand (NaN ends for fewer than two sessions)."""
        mean = self.sums[who] / self.count if self.count else math.nan
        return normal_interval(mean, sample_variance(self.sums[who], self.squares[who], self.count), self.count)

    def to_state(self) -> dict:
        return {"sessions": self.count, "sums": [[f.numerator, f.denominator] for f in self.sums],
                "squares": [[f.numerator, f.denominator] for f in self.squares]}

    @classmethod
    def from_state(cls, state: dict, players: int) -> "SessionMeans":
        def fractions(pairs: list) -> list:
            values = [Fraction(int(n), int(d)) for n, d in pairs]
            if len(values) != players:
                raise ValueError("one sum a strategy")
            return values

        return cls(int(state["sessions"]), fractions(state["sums"]), fractions(state["squares"]))


def _reader(players: int):
    """How a saved match's state is read back: its totals, its sessions' points a hand, its seconds."""
    def read(data: dict, state: dict) -> saved.Reading:
        totals = np.array(state["totals"], dtype=np.int64).reshape(players, len(FIELDS))
        observations = SessionMeans.from_state(state["sessions"], players)
        done = saved.count(data["hands"])
        settings = {"rules": data["rules"], "strategies": data["strategies"], "session_hands": data["session_hands"]}
        consistent = observations.count == -(-done // int(data["session_hands"])) and int(totals[0, HANDS]) == done * (
            2 if players == 2 else 1)
        return saved.Reading(tally=(totals, observations, float(data["seconds"])), done=done, consistent=consistent,
                             settings=settings)
    return read


def _result(rules: OfcRules, names: tuple, totals: np.ndarray, observations: SessionMeans, hands: int,
            session_hands: int, duplicate: bool, seed: int, partial: bool, seconds: float) -> OfcMatchResult:
    """The match's result from its sums so far."""
    played = int(sum(min(session_hands, hands - i * session_hands) for i in range(observations.count)))
    scores = []
    for who, name in enumerate(names):
        row = totals[who]
        n = int(row[HANDS])
        royalty, royalty_interval = mean_interval(int(row[ROYALTIES]), int(row[ROYALTY_SQUARES]), n)
        foul, foul_interval = wilson_interval(int(row[FOULS]), n)
        entry, entry_interval = wilson_interval(int(row[ENTRIES]), int(row[NORMAL_HANDS]))
        stay, stay_interval = wilson_interval(int(row[STAYS]), int(row[FANTASYLAND_HANDS]))
        scores.append(OfcStrategyScore(name=name, hands=n, points=float(row[POINTS] / n),
                                       interval=observations.interval(who),
                                       foul_rate=foul, foul_interval=foul_interval, fantasyland_entry_rate=entry,
                                       fantasyland_entry_interval=entry_interval,
                                       fantasyland_hands=int(row[FANTASYLAND_HANDS]),
                                       fantasyland_stay_rate=stay, fantasyland_stay_interval=stay_interval,
                                       royalties=royalty, royalties_interval=royalty_interval,
                                       faults=int(row[FAULTS])))
    state = {"format": STATE_FORMAT, "totals": totals.tolist(), "sessions": observations.to_state()}
    return OfcMatchResult(rules=rules, names=names, scores=tuple(scores), hands=played, asked=hands,
                          session_hands=session_hands, duplicate=duplicate, seed=seed, partial=partial,
                          seconds=seconds, state=state)
