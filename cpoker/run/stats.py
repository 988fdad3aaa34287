"""Exact running sums for results reported with 95% intervals.

Per-deal points are integers (or integers over a fixed divisor), so a job
keeps ``sum`` and ``sum of squares`` as Python integers: exact, in O(1)
memory whatever the number of deals, and the same whatever order blocks
finish in.  Every interval cpoker prints is ``mean ± 1.96 standard errors``
(:func:`normal_interval`), but a rate's, which is Wilson's (:func:`wilson_interval`),
and a ratio's, by the delta method (:func:`delta_interval`): each written here once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

Z95 = 1.959963984540054


@dataclass
class Moments:
    """Count, sum and sum of squares of integer observations, exactly."""

    count: int = 0
    total: int = 0
    squares: int = 0

    def add(self, values: np.ndarray) -> None:
        """Fold in a block of integer observations."""
        values = np.asarray(values, dtype=np.int64).ravel()
        self.count += int(values.size)
        if not values.size:
            return
        if int(np.abs(values).max()) < 2**20 and values.size < 2**22:  # int64 sums cannot overflow
            self.total += int(values.sum())
            self.squares += int(np.square(values).sum())
        else:  # exact Python integers
            exact = values.astype(object)
            self.total += int(exact.sum())
            self.squares += int((exact * exact).sum())

    def mean(self, scale: float = 1.0) -> float:
        return self.total / self.count / scale if self.count else float("nan")

    def variance(self) -> float:
        """Sample variance (with ``n - 1``)."""
        n = self.count
        if n < 2:
            return float("nan")
        return max((self.squares - self.total * self.total / n) / (n - 1), 0.0)  # exact integers until here

    def stderr(self, scale: float = 1.0, count: "int | None" = None) -> float:
        """Standard error of a mean over ``count`` observations (default: those added)."""
        n = self.count if count is None else count
        if self.count < 2:
            return float("nan")
        return math.sqrt(self.variance() / n) / scale

    def interval(self, scale: float = 1.0) -> tuple[float, float]:
        """The 95% normal interval of the mean."""
        mean, half = self.mean(scale), Z95 * self.stderr(scale)
        return mean - half, mean + half


def sample_variance(total: "float | int | Fraction", squares: "float | int | Fraction", n: int,
                    mean: "float | Fraction | None" = None) -> "float | Fraction":
    """The sample variance (``n - 1``) of ``n`` observations from their sum and their sum of squares (``mean``:
    their mean, when the caller has it already, to reuse its rounding); exact for integers and fractions, NaN
    for fewer than two."""
    if n < 2:
        return math.nan
    exact = isinstance(total, (int, Fraction)) and isinstance(squares, (int, Fraction)) and \
        (mean is None or isinstance(mean, Fraction))
    if exact:
        total, squares = Fraction(total), Fraction(squares)
    if mean is None:
        mean = total / n
    variance = (squares / n - mean * mean) * n / (n - 1)
    return max(variance, 0)


def normal_interval(mean: float, variance: "float | Fraction", n: int) -> tuple[float, float]:
    """``mean ± 1.96 standard errors``: the 95% normal interval of a mean of ``n`` observations with this sample
    variance (NaN ends when the variance is unknown)."""
    if n < 1 or variance != variance:  # NaN: fewer than two observations
        return math.nan, math.nan
    half = Z95 * math.sqrt(float(variance) / n)
    return float(mean - half), float(mean + half)


def mean_interval(total: "float | int | Fraction", squares: "float | int | Fraction",
                  n: int) -> tuple[float, tuple[float, float]]:
    """The mean of ``n`` observations and its 95% normal interval, from their sum and sum of squares (NaN for no
    observation, NaN ends for one)."""
    if n < 1:
        return math.nan, (math.nan, math.nan)
    mean = Fraction(total) / n if isinstance(total, (int, Fraction)) else total / n
    return float(mean), normal_interval(mean, sample_variance(total, squares, n), n)  # type: ignore[arg-type]


def wilson_interval(hits: int, n: int) -> tuple[float, tuple[float, float]]:
    """``hits / n`` and its 95% Wilson score interval, which stays within 0 and 1 and is not empty for rare
    events (a foul rate of 0 out of 50 is not "0 exactly"); NaN for ``n = 0``, where there is no rate."""
    if not n:
        return math.nan, (math.nan, math.nan)
    p = hits / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # (the ends hold p: rounding could put a 0-out-of-n rate's lower end a hair above 0)
    return p, (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def delta_interval(value: float, gradient: "Sequence[float]", covariance: "Sequence[Sequence[float]]",
                   n: int) -> tuple[float, float]:
    """The 95% interval of ``value = g(means)`` by the delta method: ``gradient`` of ``g`` at the means, the
    observations' sample ``covariance`` (``n`` of them).  Infinite ``value``: infinite ends."""
    if math.isinf(value):
        return value, value
    grad = np.asarray(gradient, dtype=np.float64)
    spread = float(grad @ np.asarray(covariance, dtype=np.float64) @ grad)
    return normal_interval(value, max(spread, 0.0), n)


def finite_or_none(value: "float | None") -> "float | None":
    """``value``, or ``None`` for NaN and the infinities: what strict JSON can hold (``null``)."""
    if value is None or not math.isfinite(value):
        return None
    return float(value)


def strict_json_data(data: object) -> object:
    """``data`` with every NaN and infinity (Python's or NumPy's) replaced by ``None``, at any depth: JSON that
    every parser reads (``NaN`` and ``Infinity`` are not JSON; JavaScript's ``JSON.parse`` refuses them)."""
    if isinstance(data, (float, np.floating)):
        return finite_or_none(float(data))
    if isinstance(data, dict):
        return {key: strict_json_data(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [strict_json_data(value) for value in data]
    return data
