"""The intervals every job reports, each written once in cpoker.run.stats, against independent references: a
Wilson interval found by bisection of its defining inequality, normal intervals from the observations
themselves (NumPy), a delta-method interval from the linearised observations; and strict JSON data."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from cpoker.run.stats import (Z95, delta_interval, finite_or_none, mean_interval, normal_interval, sample_variance,
                              strict_json_data, wilson_interval)


def wilson_by_bisection(hits: int, n: int) -> tuple:
    """The Wilson interval's ends: the ``p`` where ``(hits/n - p)**2 == z**2 p (1 - p) / n``, found by bisection
    on each side of ``hits/n`` (no closed form used)."""
    observed = hits / n

    def outside(p: float) -> bool:
        return (observed - p) ** 2 > Z95 ** 2 * p * (1 - p) / n

    def bisect(inside: float, out: float) -> float:
        for _ in range(200):
            middle = (inside + out) / 2
            if outside(middle):
                out = middle
            else:
                inside = middle
        return (inside + out) / 2

    low = 0.0 if not outside(0.0) else bisect(observed, 0.0)
    high = 1.0 if not outside(1.0) else bisect(observed, 1.0)
    return low, high


@given(n=st.integers(1, 10_000), share=st.floats(0, 1))
def test_wilson_interval_solves_its_inequality(n, share):
    hits = round(share * n)
    p, (low, high) = wilson_interval(hits, n)
    assert p == hits / n and 0 <= low <= p <= high <= 1
    expected = wilson_by_bisection(hits, n)
    assert low == pytest.approx(expected[0], abs=1e-9) and high == pytest.approx(expected[1], abs=1e-9)
    if hits == 0:
        assert low == 0 and high > 0  # none seen is not "never"


def test_a_rate_of_nothing_is_nan():
    p, (low, high) = wilson_interval(0, 0)
    assert math.isnan(p) and math.isnan(low) and math.isnan(high)


@given(values=st.lists(st.integers(-60, 60), min_size=2, max_size=300))
def test_mean_interval_from_sums_is_the_observations_normal_interval(values):
    data = np.array(values, dtype=np.float64)
    mean, (low, high) = mean_interval(sum(values), sum(v * v for v in values), len(values))
    half = Z95 * data.std(ddof=1) / math.sqrt(len(values))
    assert mean == pytest.approx(data.mean(), abs=1e-12)
    assert low == pytest.approx(data.mean() - half, abs=1e-9) and high == pytest.approx(data.mean() + half, abs=1e-9)


def test_sums_of_integers_and_fractions_are_exact():
    # a variance that floating point gets wrong: a large offset
    values = [10**12 + 1, 10**12 + 2, 10**12 + 3]
    assert sample_variance(sum(values), sum(v * v for v in values), 3) == 1
    fractions = [Fraction(1, 3), Fraction(2, 3)]
    assert sample_variance(sum(fractions), sum(f * f for f in fractions), 2) == Fraction(1, 18)
    assert math.isnan(sample_variance(5, 25, 1))
    one = mean_interval(5, 25, 1)
    assert one[0] == 5 and all(math.isnan(end) for end in one[1])
    assert all(math.isnan(end) for end in normal_interval(1.0, math.nan, 3))


@given(seed=st.integers(0, 2**32), n=st.integers(3, 400))
def test_delta_interval_is_the_linearised_observations_interval(seed, n):
    """For a ratio ``m / (1 - p)`` (what a Fantasyland is worth), the delta method's interval is the normal
    interval of the linearised observations ``(x - m) / (1 - p) + m (y - p) / (1 - p)**2``."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-20, 60, n).astype(np.float64)
    y = (rng.random(n) < 0.3).astype(np.float64)
    m, p = x.mean(), y.mean()
    if p >= 1:
        return
    value = m / (1 - p)
    low, high = delta_interval(value, [1 / (1 - p), m / (1 - p) ** 2], np.cov(x, y, ddof=1), n)
    linear = (x - m) / (1 - p) + m * (y - p) / (1 - p) ** 2
    # the same variance (compared as variances: where the observations barely vary, a rounding of 1e-13 in one
    # of them is a half-width of 1e-7 after the square root)
    spread = (high - low) / (2 * Z95) * math.sqrt(n)
    assert spread ** 2 == pytest.approx(linear.var(ddof=1), rel=1e-9, abs=1e-9)
    assert (low + high) / 2 == pytest.approx(value, rel=1e-12)
    assert delta_interval(math.inf, [1, 1], [[1, 0], [0, 1]], n) == (math.inf, math.inf)


def test_strict_json_data_has_no_nan_nor_infinity():
    data = {"a": math.nan, "b": [1.5, math.inf, (-math.inf, np.float64("nan"))], "c": {"d": np.float32(2.5)},
            "e": "NaN", "f": 3, "g": None, "h": True}
    strict = strict_json_data(data)
    text = json.dumps(strict, allow_nan=False)  # raises on any NaN or infinity left
    assert json.loads(text) == {"a": None, "b": [1.5, None, [None, None]], "c": {"d": 2.5}, "e": "NaN", "f": 3,
                                "g": None, "h": True}
    assert finite_or_none(2.0) == 2.0 and finite_or_none(math.nan) is None and finite_or_none(None) is None
