"""Exact running sums for results reported with 95% intervals.

Per-deal points are integers (or integers over a fixed divisor), so a job
keeps ``sum`` and ``sum of squares`` as Python integers: exact, in O(1)
memory whatever the number of deals, and the same whatever order blocks
finish in.  Every interval cpoker prints is ``mean ± 1.96 standard errors``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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
