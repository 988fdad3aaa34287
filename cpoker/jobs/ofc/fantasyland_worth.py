"""What Fantasyland is worth: cpoker's own simulation of Fantasyland hands, heads-up.

A hand in Fantasyland deals the player the Fantasyland's cards at once (the rules' smallest: 13 in OFC, 14 in
Pineapple) and sets them for the most royalties (the Fantasyland solver's ``royalties`` objective); the
opponent is dealt a hand as the rules deal it and sets it by the rollout policy.  A Fantasyland is then
worth its hand's mean points ``m`` and, when the board stays (probability ``p``), another Fantasyland:

    V = m + p V,   so   V = m / (1 - p),

counted against the hand the player would otherwise have played, worth 0 against a like opponent.  The
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
from cpoker.strategies.ofc.rollout_policy import fantasyland_value_of, policy_weights
from cpoker.game.ofc.rules import OfcRules, resolve_ofc_rules
from cpoker.run.blocks import blocks_of
from cpoker.run.stats import delta_interval, sample_variance, strict_json_data
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

    def to_dict(self) -> dict:
        """The answer as strict JSON data: a value without end (every hand stayed) is ``null``."""
        return strict_json_data({"rules": self.rules.to_dict(), "cards": self.cards, "hands": self.hands,
                                 "seed": self.seed, "mean_points": self.mean_points, "stay_rate": self.stay_rate,
                                 "value": self.value, "interval": list(self.interval), "partial": self.partial,
                                 "seconds": self.seconds})  # type: ignore[return-value]


def fantasyland_worth(rules: "OfcRules | str | None" = None, hands: int = 20_000, seed: Optional[int] = None,
                      cards: Optional[int] = None, progress: bool = False, jobs: Optional[int] = None,
                      time_budget: "float | None" = None) -> FantasylandWorth:
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
    table = rules.kernel_rules()
    weights = policy_weights(fantasyland_value_of(rules, None))
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
                              weights, *rules.stay_flags, points, stays, start, stop)

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
        value, interval = _ratio(n, points, squares, stays, stayed_points)
        return FantasylandWorth(rules=rules, cards=cards, hands=n, seed=seed, mean_points=points / n,
                                stay_rate=stays / n, value=value, interval=interval, partial=partial,
                                seconds=time.perf_counter() - started)

    return run_job(settings, blocks_of(hands, BLOCK), work, combine, result, has_result=lambda: sums[0] > 0,
                   complete=lambda: sums[0] == hands, total=hands, unit="hand", description="Fantasyland hands")


def _ratio(n: int, points: int, squares: int, stays: int, stayed_points: int) -> tuple:
    """``m / (1 - p)`` and its 95% interval by the delta method, from the hands' exact sums: points, their
    squares, stays (0/1: their own squares) and the points of the hands that stayed.  Every hand staying: a
    Fantasyland without end, worth infinity."""
    m, p = points / n, stays / n
    if stays == n:
        return math.inf, (math.inf, math.inf)
    value = m / (1 - p)
    covariance = [[float(sample_variance(points, squares, n)), (stayed_points - points * stays / n) / (n - 1)],
                  [(stayed_points - points * stays / n) / (n - 1), float(sample_variance(stays, stays, n))]]
    return float(value), delta_interval(value, [1 / (1 - p), m / (1 - p) ** 2], covariance, n)
