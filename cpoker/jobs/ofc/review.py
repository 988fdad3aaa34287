"""What a session of open-face hands cost: ``cpoker.ofc.review`` and ``cpoker ofc review FILE``.

Each decision of the players reviewed (a file of hand histories, :mod:`cpoker.game.ofc.history`) is valued as
the player saw it -- their board, the cards dealt, the other boards as they stood, the opponents'
Fantasylands, their own discards -- by the placement solver (:func:`cpoker.jobs.ofc.placement.place`, at
``samples`` rollouts) or, for a Fantasyland, against the Fantasyland solver's ``"ev"`` board on the same
opponent boards (:func:`cpoker.strategies.ofc.fantasyland.fantasyland_values`).  Each gives the EV of the
option chosen, the best's, the **EV lost** (best minus chosen, on the same deals: a paired difference, with
its own small interval; never negative) and the rank of the choice.

A player's **result** (the points the histories say they won) splits into **skill**, minus the EV their
decisions lost, and **luck**, the rest (the cards, the opponents' play): ``result = skill + luck``, each with
the 95% interval of the summed EV lost (the decisions' Monte Carlo errors are independent), as
:func:`cpoker.review` splits a closed-game session.

The hands are the blocks of the job skeleton (:func:`cpoker.jobs.job.run_job`): progress, Ctrl-C keeps the
hands reviewed (``partial``), a time budget, checkpoints and ``resume=`` to the numbers of an unbroken review;
decision ``d`` of hand ``h`` is solved with ``derived_seed(seed, h, d)``, so the numbers do not depend on the
threads or on how the review was cut.  The solver runs on all cores.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.history import HandHistory, read_histories
from cpoker.run.stats import Z95, strict_json_data
from cpoker.system.errors import OptionError
from cpoker.system.limits import check_int, check_seed

if TYPE_CHECKING:  # pragma: no cover
    import pandas

KIND, STATE_FORMAT = "ofc-review", "ofc-review-1"
DEFAULT_SAMPLES = 1000
MAX_SAMPLES = 100_000
DEFAULT_TOP = 10


@dataclass(frozen=True)
class ReviewedDecision:
    """One decision next to the best option (see the module docstring).

    Attributes
    ----------
    hand, hand_id, decision
        The hand's place in the input (from 0), its id, and the decision's place in the hand (from 1, as the
        history's errors count them).
    player, seat, step, fantasyland
        Who decided (their name, their place in the hand: 0 acts first), the step (0: a Fantasyland, 1: the
        first cards, then 1 more a round), and whether it set a Fantasyland.
    board, cards, chosen, best
        The board before, the cards dealt, the board the player left and the best one found.
    ev_chosen, ev_best, ev_lost, ev_lost_stderr
        The EVs (points this hand against every opponent, plus the Fantasyland earned), on the same deals, and
        the EV lost (``ev_best - ev_chosen`` on the deals they share, never negative) with its standard error.
    rank, options
        The choice's rank among the options by the solver's ranking (1: the best) and how many there were;
        ``None`` for a Fantasyland (its boards are too many to rank).
    samples, seed, exact
        The chosen option's rollouts (the opponent boards of a Fantasyland), the decision's seed, and whether
        the value is exact (no card unknown).
    """

    hand: int
    hand_id: str
    decision: int
    player: str
    seat: int
    step: int
    fantasyland: bool
    board: str
    cards: str
    chosen: str
    best: str
    ev_chosen: float
    ev_best: float
    ev_lost: float
    ev_lost_stderr: float
    rank: Optional[int]
    options: Optional[int]
    samples: int
    seed: int
    exact: bool

    @property
    def ev_lost_interval(self) -> tuple:
        """95% interval of :attr:`ev_lost`."""
        half = Z95 * self.ev_lost_stderr
        return self.ev_lost - half, self.ev_lost + half

    @property
    def mistake(self) -> bool:
        """Whether the choice lost EV beyond the noise: the EV lost's 95% interval is above 0."""
        return self.ev_lost_interval[0] > 0.0

    def to_dict(self) -> dict:
        """The decision as strict JSON data (a row of ``--out FILE.csv``)."""
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data.update(ev_lost_interval=list(self.ev_lost_interval), mistake=self.mistake)
        return strict_json_data(data)  # type: ignore[return-value]

    @classmethod
    def from_dict(cls, data: dict) -> "ReviewedDecision":
        """A decision of a saved review read back (``resume=``); ``ValueError``/``KeyError``/``TypeError`` if
        damaged."""
        from cpoker.run.saved import count, flag, number

        numbers: dict = {name: number(data[name]) for name in ("ev_chosen", "ev_best", "ev_lost", "ev_lost_stderr")}
        optional: dict = {name: None if data[name] is None else count(data[name]) for name in ("rank", "options")}
        for name in ("board", "chosen", "best"):
            Board.parse(data[name])
        return cls(hand=count(data["hand"]), hand_id=str(data["hand_id"]), decision=count(data["decision"]),
                   player=str(data["player"]), seat=count(data["seat"]), step=count(data["step"]),
                   fantasyland=flag(data["fantasyland"]), board=str(data["board"]), cards=str(data["cards"]),
                   chosen=str(data["chosen"]), best=str(data["best"]), samples=count(data["samples"]),
                   seed=count(data["seed"]), exact=flag(data["exact"]), **numbers, **optional)


@dataclass(frozen=True)
class PlayerReview:
    """One player's decisions added up, over the hands reviewed.

    ``points`` is the result the histories give (what they won); ``skill`` is minus the EV their decisions
    lost and ``luck`` the rest, ``points = skill + luck``; both intervals are the summed EV lost's.
    ``mistakes``: decisions whose EV lost is above 0 beyond the noise; ``best_choices``: decisions that chose
    the solver's best; ``mean_ev_lost``: a decision.
    """

    name: str
    hands: int
    decisions: int
    points: int
    ev_lost: float
    ev_lost_interval: tuple
    mean_ev_lost: float
    mean_ev_lost_interval: tuple
    skill: float
    skill_interval: tuple
    luck: float
    luck_interval: tuple
    mistakes: int
    best_choices: int
    fouls: int
    faults: int

    @classmethod
    def of(cls, name: str, decisions: "list[ReviewedDecision]", hands: "list[HandHistory]") -> "PlayerReview":
        lost = math.fsum(d.ev_lost for d in decisions)
        half = Z95 * math.sqrt(math.fsum(d.ev_lost_stderr ** 2 for d in decisions))
        seats = [(h, p) for h in hands for p in h.players if p.name == name]
        points = sum(p.points for _, p in seats)
        n = max(len(decisions), 1)
        return cls(name=name, hands=len(seats), decisions=len(decisions), points=points, ev_lost=lost,
                   ev_lost_interval=(lost - half, lost + half), mean_ev_lost=lost / n,
                   mean_ev_lost_interval=((lost - half) / n, (lost + half) / n), skill=-lost,
                   skill_interval=(-lost - half, -lost + half), luck=points + lost,
                   luck_interval=(points + lost - half, points + lost + half),
                   mistakes=sum(d.mistake for d in decisions), best_choices=sum(d.rank == 1 or d.fantasyland and
                                                                                d.ev_lost == 0 for d in decisions),
                   fouls=sum(p.fouled for _, p in seats), faults=sum(p.fault is not None for _, p in seats))

    def to_dict(self) -> dict:
        return strict_json_data({name: list(value) if isinstance(value, tuple) else value  # type: ignore[return-value]
                                 for name, value in self.__dict__.items()})


@dataclass(frozen=True)
class OfcReviewResult:
    """The answer of :func:`review`: every decision reviewed (in the order of the input), each player's sums,
    the costliest decisions, and every setting that reruns it."""

    decisions: tuple
    players: tuple
    costliest: tuple
    hands: int
    asked: int
    samples: int
    seed: int
    adaptive: bool
    policy: str
    partial: bool
    seconds: float
    top: int = DEFAULT_TOP
    state: dict = field(default_factory=dict, repr=False)

    def player(self, name: str) -> PlayerReview:
        """The sums of the player called ``name``."""
        for player in self.players:
            if player.name == name:
                return player
        raise OptionError(f"no player {name!r} was reviewed; reviewed: {', '.join(p.name for p in self.players)}")

    def to_dict(self) -> dict:
        """The review as strict JSON data, with the ``state`` that ``review(..., resume=...)`` continues."""
        from cpoker._version import __version__

        return strict_json_data({  # type: ignore[return-value]
            "kind": KIND, "version": __version__, "hands": self.hands, "asked_hands": self.asked,
            "samples": self.samples, "seed": self.seed, "adaptive": self.adaptive, "policy": self.policy,
            "partial": self.partial, "seconds": self.seconds, "top": self.top,
            "players": [p.to_dict() for p in self.players], "costliest": list(self.costliest),
            "decisions": [d.to_dict() for d in self.decisions], "state": self.state})

    def rows(self) -> "list[dict]":
        """The decisions as flat rows (``--out FILE.csv``/``.parquet``), with the review's settings."""
        rows = []
        for decision in self.decisions:
            row = decision.to_dict()
            row["ev_lost_low"], row["ev_lost_high"] = row.pop("ev_lost_interval")
            row.update(review_seed=self.seed, review_samples=self.samples)
            rows.append(row)
        return rows

    def to_pandas(self) -> "pandas.DataFrame":
        """The decisions as a ``pandas.DataFrame``, a row each (needs pandas: ``pip install 'cpoker[pandas]'``)."""
        try:
            import pandas
        except ImportError:
            raise OptionError("to_pandas needs pandas: pip install 'cpoker[pandas]'") from None
        return pandas.DataFrame(self.rows())


def review(histories: "str | Sequence[HandHistory | dict]", players: "Sequence[str] | None" = None,
           samples: int = DEFAULT_SAMPLES, seed: Optional[int] = None, adaptive: bool = True,
           policy: "str | None" = None, top: int = DEFAULT_TOP, jobs: Optional[int] = None, progress: bool = False,
           time_budget: "float | None" = None, resume: object = None,
           checkpoint: "Callable[[OfcReviewResult], None] | None" = None,
           checkpoint_seconds: float = 10.0) -> OfcReviewResult:
    """Review open-face hands: what each decision of the players cost against the best, and their sums.

    Parameters
    ----------
    histories
        Hand histories: :class:`~cpoker.game.ofc.history.HandHistory` objects, their dicts, or the text of a file
        of them (JSON Lines; :func:`~cpoker.game.ofc.history.read_histories`).  All are read and replayed before
        any solving.
    players
        The names of the players to review (default: every player of the hands).
    samples
        The placement solver's rollouts a decision (as :func:`cpoker.ofc.place`'s ``samples``), and the
        opponent boards a Fantasyland is valued against; 1 to 100,000 (default 1,000).
    seed
        Seeds every decision (default: drawn, and reported).
    adaptive, policy
        The placement solver's search and rollout policy (as :func:`cpoker.ofc.place`).
    top
        How many of the costliest decisions the result names.
    jobs, progress, time_budget
        Threads (default: every core), a progress bar on standard error (in hands), seconds after which no new
        hand starts (the review is then ``partial``).
    resume, checkpoint, checkpoint_seconds
        Continue a saved partial review of the same hands and settings to the numbers of an unbroken one; save
        the partial result with ``checkpoint(result)`` at most every ``checkpoint_seconds``.

    Raises
    ------
    HistoryError
        Naming every hand that cannot be read (its place, its id, its decision), a line each.
    OptionError
        For a bad size, seed, player name or saved review.
    """
    from cpoker.game.dealing import new_seed
    from cpoker.jobs.job import run_job, runs
    from cpoker.run import saved
    from cpoker.run.blocks import blocks_of
    from cpoker.strategies.ofc.rollout_policy import DEFAULT_POLICY, policy_model
    from cpoker.system import interrupts

    hands = _hands(histories)
    names = _names(hands, players)
    samples = check_int("samples", samples, 1, MAX_SAMPLES)
    top = check_int("top", top, 0, 10 ** 9)
    seed = check_seed(seed)
    if not isinstance(adaptive, bool):
        raise OptionError(f"adaptive is True or False, got {adaptive!r}")
    for rules in {h.rules for h in hands}:
        policy_model(rules, policy)  # a bad policy file is refused before any solving
    settings = runs(jobs=jobs, progress=progress, time_budget=time_budget, checkpoint=checkpoint,
                    checkpoint_seconds=checkpoint_seconds)
    fingerprint = _fingerprint(hands, names, samples, adaptive, policy)
    done: dict = {}  # hand -> its reviewed decisions
    earlier = 0.0
    if resume is not None:
        (done, earlier), seed = saved.resumed(
            resume, KIND, STATE_FORMAT, _reader(fingerprint), seed=seed, rules=None,  # type: ignore[arg-type]
            tables_sha256="", now={}, unit="hands", asked=len(hands), block=1, label="open-face review")
    seed = new_seed() if seed is None else seed
    started = time.perf_counter()

    def work(block: tuple) -> list:
        index, _ = block
        with interrupts.deferred():  # a signal drops the hand in flight; its solves never see it
            return [_decision(hands[index], index, number, samples, seed, adaptive, policy)
                    for number, decision in enumerate(hands[index].decisions, 1)
                    if decision.fault is None and hands[index].players[decision.seat].name in names]

    def combine(block: tuple, reviewed: list) -> None:
        done[block[0]] = reviewed

    def result(partial: bool) -> OfcReviewResult:
        reviewed = [d for index in sorted(done) for d in done[index]]
        covered = [hands[index] for index in sorted(done)]
        by_player = tuple(PlayerReview.of(name, [d for d in reviewed if d.player == name], covered)
                          for name in names)
        costliest = tuple(k for k, _ in sorted(enumerate(reviewed), key=lambda kd: (-kd[1].ev_lost, kd[0]))[:top])
        seconds = earlier + time.perf_counter() - started
        state = {"format": STATE_FORMAT, "input_sha256": fingerprint, "reviewed": sorted(done),
                 "seconds": seconds}
        return OfcReviewResult(decisions=tuple(reviewed), players=by_player, costliest=costliest,
                               hands=len(done), asked=len(hands), samples=samples, seed=seed, adaptive=adaptive,
                               policy=str(policy or DEFAULT_POLICY), partial=partial, seconds=seconds, top=top,
                               state=state)

    first = len(done)
    return run_job(settings, blocks_of(len(hands) - first, 1, first_index=first), work, combine, result,
                   has_result=lambda: bool(done), complete=lambda: len(done) == len(hands),
                   total=len(hands) - first, unit="hand", description="open-face review")


def _decision(hand: HandHistory, index: int, number: int, samples: int, seed: int, adaptive: bool,
              policy: "str | None") -> ReviewedDecision:
    """Decision ``number`` (from 1) of ``hand`` (the ``index``-th) valued as its player saw it."""
    from cpoker.game.dealing import derived_seed
    from cpoker.game.cards import format_cards

    decision = hand.decisions[number - 1]
    view = hand.view(number - 1)
    own_seed = derived_seed(seed, index, number)
    chosen = decision.placed
    assert chosen is not None  # (faults are not reviewed)
    common = dict(hand=index, hand_id=hand.id, decision=number, player=hand.players[decision.seat].name,
                  seat=decision.seat, step=decision.step, fantasyland=view.fantasyland, board=str(decision.board),
                  cards=format_cards(decision.cards, sort=False), chosen=str(chosen), seed=own_seed)
    if view.fantasyland:
        return _fantasyland_decision(view.cards, chosen, hand, samples, own_seed, common)
    from cpoker.jobs.ofc.placement import place

    placement = place(view.board, view.cards, hand.rules, opponents=list(view.opponents), dead=view.discards,
                      samples=samples, seed=own_seed, fantasylands=view.fantasyland_cards, adaptive=adaptive,
                      policy=policy, compare=chosen)
    option = placement.compared_option
    assert option is not None and placement.compared is not None  # (placed with compare=)
    low, high = option.loss_interval
    return ReviewedDecision(**common, best=str(placement.best.board), ev_chosen=option.ev, ev_best=placement.best.ev,
                            ev_lost=max(option.loss, 0.0), ev_lost_stderr=(high - low) / (2 * Z95),
                            rank=placement.compared, options=len(placement.options), samples=option.samples,
                            exact=placement.exact)


def _fantasyland_decision(cards: tuple, chosen: Board, hand: HandHistory, samples: int, seed: int,
                          common: dict) -> ReviewedDecision:
    """A Fantasyland set by the player against the Fantasyland solver's ``"ev"`` board, on the same opponent
    boards (:func:`~cpoker.strategies.ofc.fantasyland.compare_fantasyland`)."""
    from cpoker.strategies.ofc.fantasyland import compare_fantasyland

    compared = compare_fantasyland(cards, chosen, hand.rules, samples=samples, seed=seed)
    return ReviewedDecision(**common, best=str(compared.best.board), ev_chosen=compared.value,
                            ev_best=compared.best.value, ev_lost=compared.loss, ev_lost_stderr=compared.loss_stderr,
                            rank=None, options=None, samples=samples, exact=False)


def _hands(histories: object) -> "list[HandHistory]":
    """The hands to review, read and replayed (objects and dicts as a file's lines are)."""
    if isinstance(histories, str):
        return read_histories(histories)
    if isinstance(histories, (HandHistory, dict)):
        histories = [histories]
    try:
        items = list(histories)  # type: ignore[call-overload]
    except TypeError:
        raise OptionError(f"histories is the text of a file of hand histories or a list of them, got "
                          f"{type(histories).__name__}") from None
    lines = []
    for item in items:
        if not isinstance(item, (HandHistory, dict)):
            raise OptionError(f"a hand history is a HandHistory or its dict, got {type(item).__name__}")
        try:
            lines.append(json.dumps(item.to_dict() if isinstance(item, HandHistory) else item, allow_nan=False))
        except (TypeError, ValueError) as error:
            raise OptionError(f"a hand history is not JSON data: {error}") from None
    return read_histories("".join(line + "\n" for line in lines), "the histories")


def _names(hands: "list[HandHistory]", players: "Sequence[str] | None") -> tuple:
    """The players to review, in the order they first appear (checked against the hands)."""
    present = list(dict.fromkeys(p.name for h in hands for p in h.players))
    if players is None:
        return tuple(present)
    if isinstance(players, str):
        players = [players]
    unknown = [name for name in players if name not in present]
    if unknown:
        raise OptionError(f"no player {unknown[0]!r} in the hands; their players: {', '.join(present)}")
    return tuple(dict.fromkeys(players))


def _fingerprint(hands: "list[HandHistory]", names: tuple, samples: int, adaptive: bool, policy: "str | None") -> str:
    """sha256 of everything a review's numbers depend on but its seed."""
    data = {"hands": [h.to_dict() for h in hands], "players": list(names), "samples": samples, "adaptive": adaptive,
            "policy": str(policy)}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()


def _reader(fingerprint: str) -> Callable:
    """How a saved review is read back for the resume protocol: its decisions by hand, its seconds."""
    from cpoker.run import saved

    def read(data: dict, state: dict) -> saved.Reading:
        decisions = [ReviewedDecision.from_dict(d) for d in data["decisions"]]
        reviewed = [saved.count(h) for h in state["reviewed"]]
        done: dict = {index: [] for index in reviewed}
        for decision in decisions:
            done[decision.hand].append(decision)  # (a decision of a hand not reviewed: KeyError, damaged)
        return saved.Reading(tally=(done, saved.seconds(state["seconds"])), done=len(reviewed),
                             consistent=reviewed == list(range(len(reviewed))),
                             why="its hands are not the first ones of the input",
                             refusal=None if saved.text(state["input_sha256"]) == fingerprint else (
                                 "the saved review is of other hands, players, samples or policy (review the same "
                                 "file with the same options)"))

    return read



__all__ = ["OfcReviewResult", "PlayerReview", "ReviewedDecision", "review"]
