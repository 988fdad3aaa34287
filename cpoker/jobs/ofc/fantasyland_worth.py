"""What Fantasyland is worth: cpoker's own simulation of Fantasyland hands, heads-up.

A hand in Fantasyland deals the player the Fantasyland's cards at once (the rules' smallest: 13 in OFC, 14 in
Pineapple) and sets them for the most royalties (the Fantasyland solver's ``royalties`` objective); the
opponent is dealt a hand as the rules deal it and sets it by the rollout policy.  A Fantasyland is then
worth its hand's mean points ``m`` and, when the board stays (probability ``p``), another Fantasyland:

    V = m + p V,   so   V = m / (1 - p),

counted against the hand the player would otherwise have played, worth 0 against a like opponent.  Where a
board that stays is dealt another size (progressive Pineapple: every repeat is 14 cards, whatever the entry),
the stay is worth the repeat's own ``V_r``, measured first with as many hands: ``V = m + p V_r``.  The
opponent's own Fantasyland entries are left out (a few percent of hands, the same whichever hand the player
plays).  The interval is the delta method's on the hands' points and stays.  The placement solver and the
Fantasyland solver's ``ev`` objective take ``V`` as their ``fantasyland_value``
(:data:`cpoker.strategies.ofc.rollout_policy.DEFAULT_FANTASYLAND_VALUE` holds this measure for each preset;
docs/ofc.md).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np

from cpoker.game.dealing import new_seed, shuffled
from cpoker.strategies.ofc.rollout_policy import fantasyland_value_of, policy_model, policy_weights
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
from cpoker.run.blocks import blocks_of
from cpoker.run.stats import Z95, delta_interval, sample_variance, strict_json_data
from cpoker.system.limits import check_int, check_seed

BLOCK = 500  # hands a block
MAX_HANDS = 10_000_000


@dataclass(frozen=True)
class FantasylandWorth:
    """The answer of :func:`fantasyland_worth`: ``value`` (V, points) with its 95% ``interval``, from the mean
    points of a Fantasyland hand and the rate at which it stays."""

    rules: OfcRules
    cards: int
    hands: int
    seed: int
    mean_points: float
    stay_rate: float
    value: float
    interval: tuple
    partial: bool
    seconds: float
    repeat: "FantasylandWorth | None" = None

    def to_dict(self) -> dict:
        """The answer as strict JSON data: a value without end (every hand stayed) is ``null``."""
        repeat = None if self.repeat is None else self.repeat.to_dict()
        return strict_json_data({"rules": self.rules.to_dict(), "cards": self.cards, "hands": self.hands,
                                 "seed": self.seed, "mean_points": self.mean_points, "stay_rate": self.stay_rate,
                                 "value": self.value, "interval": list(self.interval), "partial": self.partial,
                                 "seconds": self.seconds, "repeat": repeat})  # type: ignore[return-value]


def fantasyland_worth(rules: "OfcRules | str | None" = None, hands: int = 20_000, seed: Optional[int] = None,
                      cards: Optional[int] = None, progress: bool = False, jobs: Optional[int] = None,
                      time_budget: "float | None" = None, policy: str = "static") -> FantasylandWorth:
    """Measure what a Fantasyland is worth under ``rules`` (see the module docstring).

    Parameters
    ----------
    rules
        Open-face rules (default ``ofc``).
    hands
        Fantasyland hands to play (default 20,000).
    seed
        Seeds the deals (default: drawn, and reported).
    cards
        The Fantasyland's cards (default: the smallest the rules deal).
    progress, jobs
        A progress bar on standard error; the threads (default: all cores).
    time_budget
        Seconds after which no new block of hands starts (the hands so far are returned, ``partial=True``).
    policy
        The opponent's rollout policy (:func:`~cpoker.strategies.ofc.rollout_policy.policy_model`; default
        ``"static"``, against which the shipped values were measured and the learned policy was learned: the
        learned one plays better, and a Fantasyland is worth a point or so less against it).

    Examples
    --------
    >>> worth = fantasyland_worth("pineapple", hands=500, seed=1)
    >>> worth.hands, worth.cards, worth.value > 0
    (500, 14, True)
    """
    from cpoker._kernels.ofc_rollout import fantasyland_hands
    from cpoker.jobs.job import run_job, runs
    from cpoker.system.threads import in_parts

    rules = resolve_ofc_rules(rules)
    hands = check_int("hands", hands, 2, MAX_HANDS)
    seed = check_seed(seed)
    settings = runs(jobs=jobs, progress=progress, time_budget=time_budget)
    seed = new_seed() if seed is None else seed
    cards = check_int("cards", (rules.smallest_fantasyland or 13) if cards is None else cards, 13, 17)
    repeat = None
    if rules.fantasyland_repeat and rules.fantasyland_repeat != cards:
        repeat_seed = int(np.random.SeedSequence([seed, 1]).generate_state(1)[0])  # other deals than this one's
        repeat = fantasyland_worth(rules, hands, seed=repeat_seed, cards=rules.fantasyland_repeat, progress=progress,
                                   jobs=jobs, time_budget=time_budget, policy=policy)
    table = rules.kernel_rules()
    weights = policy_weights(fantasyland_value_of(rules, None))
    model = policy_model(rules, policy)
    dealt = cards + rules.cards_per_player
    sums = [0, 0, 0, 0, 0]  # hands, points, points squared, stays, points of the hands that stayed: exact, O(1)

    def work(block: tuple) -> tuple:
        index, count = block
        rng = np.random.default_rng([seed, index])
        decks = shuffled(np.arange(52), rng, count, dealt)
        points = np.empty(count, dtype=np.int64)
        stays = np.empty(count, dtype=np.bool_)

        def part(start: int, stop: int) -> None:
            fantasyland_hands(decks, cards, rules.first_cards, rules.round_cards, rules.round_places, table,
                              weights, model, np.array(rules.stay_flags, dtype=np.bool_), points, stays, start, stop)

        in_parts(part, count, 16)
        return points, stays

    def combine(block: tuple, result: tuple) -> None:
        points, stays = (values.astype(np.int64) for values in result)
        for at, total in enumerate((len(points), points.sum(), (points * points).sum(), stays.sum(),
                                    (points * stays).sum())):
            sums[at] += int(total)

    started = time.perf_counter()

    def result(partial: bool) -> FantasylandWorth:
        n, points, squares, stays, stayed_points = sums
        value, interval = _ratio(n, points, squares, stays, stayed_points, repeat)
        return FantasylandWorth(rules=rules, cards=cards, hands=n, seed=seed, mean_points=points / n,
                                stay_rate=stays / n, value=value, interval=interval,
                                partial=partial or bool(repeat and repeat.partial),
                                seconds=time.perf_counter() - started + (repeat.seconds if repeat else 0.0),
                                repeat=repeat)

    return run_job(settings, blocks_of(hands, BLOCK), work, combine, result, has_result=lambda: sums[0] > 0,
                   complete=lambda: sums[0] == hands, total=hands, unit="hand", description="Fantasyland hands")


def _ratio(n: int, points: int, squares: int, stays: int, stayed_points: int,
           repeat: "FantasylandWorth | None" = None) -> tuple:
    """``m / (1 - p)`` and its 95% interval by the delta method, from the hands' exact sums: points, their
    squares, stays (0/1: their own squares) and the points of the hands that stayed.  Every hand staying: a
    Fantasyland without end, worth infinity.  With the ``repeat``'s worth ``V_r`` (measured on other deals):
    ``m + p V_r``, the two measures' variances added."""
    m, p = points / n, stays / n
    together = (stayed_points - points * stays / n) / (n - 1) if n > 1 else 0.0  # (hands >= 2: n > 1 always)
    covariance = [[float(sample_variance(points, squares, n)), together],
                  [together, float(sample_variance(stays, stays, n))]]
    if repeat is not None:
        if math.isinf(repeat.value):
            return math.inf, (math.inf, math.inf)
        value = m + p * repeat.value
        spread = float(np.array([1, repeat.value]) @ np.array(covariance) @ np.array([1, repeat.value])) / n
        repeat_spread = ((repeat.interval[1] - repeat.interval[0]) / (2 * Z95)) ** 2
        half = Z95 * math.sqrt(max(spread, 0.0) + p * p * repeat_spread)
        return float(value), (float(value - half), float(value + half))
    if stays == n:
        return math.inf, (math.inf, math.inf)
    value = m / (1 - p)
    return float(value), delta_interval(value, [1 / (1 - p), m / (1 - p) ** 2], covariance, n)
