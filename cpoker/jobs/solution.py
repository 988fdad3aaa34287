"""What :func:`cpoker.solve` answers: the best arrangement and its alternatives, each with its estimated value, and
the advice to declare a natural or to surrender where the rules allow them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from cpoker.game.arrangements import Arrangement
from cpoker.game.cards import format_cards
from cpoker.game.rules import Rules
from cpoker.run.stats import Z95

if TYPE_CHECKING:  # pragma: no cover
    from cpoker.game.naturals import Natural


@dataclass(frozen=True)
class Candidate:
    """One arrangement with its estimated value (points per deal, summed over opponents)."""

    arrangement: Arrangement
    ev: float
    stderr: Optional[float]
    rows: dict = field(default_factory=dict)  # row -> {"win", "tie", "loss"} probabilities

    @property
    def interval(self) -> Optional[tuple[float, float]]:
        """95% interval of :attr:`ev` (``None`` for the table method, which estimates nothing)."""
        if self.stderr is None:
            return None
        return self.ev - Z95 * self.stderr, self.ev + Z95 * self.stderr

    def to_dict(self) -> dict:
        return {"arrangement": self.arrangement.to_dict(), "ev": self.ev, "stderr": self.stderr,
                "interval_95": None if self.interval is None else list(self.interval),
                "row_probabilities": self.rows}


@dataclass(frozen=True)
class SurrenderAdvice:
    """Surrender or play, under rules that allow surrender (``Rules(surrender=N)``).

    Surrendering pays ``N`` to each opponent; the solver's opponents always play, so its value is exactly
    ``-N * opponents`` (an interval of no width).  Playing is worth the best arrangement's EV (or its
    table value, for the table method), with that estimate's interval.  Surrender is ``advised`` when
    playing is worth less, unless a natural is worth declaring.
    """

    advised: bool
    surrender_value: float
    play_ev: float
    play_interval: Optional[tuple[float, float]]

    @property
    def surrender_interval(self) -> tuple[float, float]:
        """95% interval of :attr:`surrender_value`: the value itself, which is exact."""
        return self.surrender_value, self.surrender_value

    def to_dict(self) -> dict:
        return {"advised": self.advised, "surrender_value": self.surrender_value,
                "surrender_interval_95": list(self.surrender_interval), "play_ev": self.play_ev,
                "play_interval_95": None if self.play_interval is None else list(self.play_interval)}


def surrender_advice(solution: "Solution") -> Optional[SurrenderAdvice]:
    """:class:`SurrenderAdvice` for ``solution``, or ``None`` when its rules do not allow surrender."""
    if solution.rules.surrender is None:
        return None
    value = -float(solution.rules.surrender * solution.opponents)
    return SurrenderAdvice(advised=solution.ev < value and solution.natural is None, surrender_value=value,
                           play_ev=solution.ev, play_interval=solution.interval)


@dataclass(frozen=True)
class Solution:
    """The answer of :func:`solve`.

    Attributes
    ----------
    best
        The best non-fouling arrangement found.
    ev, stderr, interval
        Its expected points per deal (summed over opponents), the standard
        error of that estimate and its 95% interval (``ev ± 1.96 stderr``).
        For ``method="table"``, ``ev`` is the *table value* -- the sum of the
        row values against the average self-play opponent, a score the policy
        ranks by, not a simulated EV -- and ``stderr``/``interval`` are ``None``.
    row_probabilities
        ``{"front": {"win": p, "tie": p, "loss": p}, ...}`` per opponent row.
    alternatives
        The next best arrangements of different row strengths, best first.
    compared, ev_lost, ev_lost_stderr
        With ``solve(compare=...)``: that arrangement (say, the one a player
        chose) scored like the best one, and what it costs, ``ev - compared.ev``
        (never negative).  Under the Monte Carlo method both are scored on the
        very same samples, so ``ev_lost_stderr`` is the standard error of the
        paired difference, far below either EV's; ``ev_lost_interval`` is its
        95% interval.  Under the table method they are table values and the
        standard error is ``None``.
    surrender
        Under rules that allow surrender, whether to surrender instead of
        playing :attr:`best`, with both values (:class:`SurrenderAdvice`);
        ``None`` otherwise.
    """

    hand: tuple
    best: Arrangement
    ev: float
    stderr: Optional[float]
    row_probabilities: dict
    alternatives: tuple
    method: str
    opponent_model: str
    opponents: int
    samples: int
    seed: Optional[int]
    rules: Rules
    candidates: int
    seconds: float
    natural: Optional["Natural"] = None  # worth more than the best arrangement: declare it instead
    partial: bool = False  # a signal stopped the sampling: the answer rests on `samples` of `requested_samples`
    requested_samples: int = 0
    compared: Optional[Candidate] = None  # solve(compare=...): that arrangement scored on the same samples
    ev_lost: Optional[float] = None
    ev_lost_stderr: Optional[float] = None
    bot_faults: int = 0  # opponents' hands settled as fouls because the opponent model, a bot, faulted
    surrender: Optional[SurrenderAdvice] = None

    @property
    def advise_surrender(self) -> bool:
        """Whether to surrender rather than play :attr:`best` (never without rules that allow it)."""
        return self.surrender is not None and self.surrender.advised

    @property
    def interval(self) -> Optional[tuple[float, float]]:
        """95% interval of :attr:`ev` (``None`` for the table method)."""
        if self.stderr is None:
            return None
        return self.ev - Z95 * self.stderr, self.ev + Z95 * self.stderr

    @property
    def ev_lost_interval(self) -> Optional[tuple[float, float]]:
        """95% interval of :attr:`ev_lost` (``None`` without a comparison, or under the table method)."""
        if self.ev_lost is None or self.ev_lost_stderr is None:
            return None
        return self.ev_lost - Z95 * self.ev_lost_stderr, self.ev_lost + Z95 * self.ev_lost_stderr

    @property
    def declare_natural(self) -> bool:
        """Whether to declare :attr:`natural` instead of playing :attr:`best`."""
        return self.natural is not None

    def to_dict(self) -> dict:
        """Plain data for JSON output, with every parameter needed to rerun."""
        return {
            "hand": format_cards(self.hand),
            "best": self.best.to_dict(),
            "ev": self.ev,
            "stderr": self.stderr,
            "interval_95": None if self.interval is None else list(self.interval),
            "value_kind": "table value (not a simulated EV)" if self.method == "table" else "Monte Carlo EV",
            "row_probabilities": self.row_probabilities,
            "alternatives": [c.to_dict() for c in self.alternatives],
            "method": self.method,
            "opponent_model": self.opponent_model,
            "opponents": self.opponents,
            "samples": self.samples,
            "requested_samples": self.requested_samples,
            "partial": self.partial,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "non_fouling_candidates": self.candidates,
            "seconds": self.seconds,
            "bot_faults": self.bot_faults,
            "declare_natural": None if self.natural is None else self.natural.to_dict(),
            "surrender": None if self.surrender is None else self.surrender.to_dict(),
            "compared": None if self.compared is None else {
                **self.compared.to_dict(), "ev_lost": self.ev_lost, "ev_lost_stderr": self.ev_lost_stderr,
                "ev_lost_interval_95": None if self.ev_lost_interval is None else list(self.ev_lost_interval)},
        }


__all__ = ["Candidate", "Solution", "SurrenderAdvice", "surrender_advice"]
