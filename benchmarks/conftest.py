"""Shared fixtures of the pytest-benchmark suites (run with ``pytest benchmarks/``)."""

import numpy as np
import pytest


def random_cards(count: int, size: int, seed: int = 0, sort: bool = True) -> np.ndarray:
    """``count`` random hands of ``size`` card ids (uint8), built a million at a time."""
    rng = np.random.default_rng(seed)
    out = np.empty((count, size), dtype=np.uint8)
    for start in range(0, count, 1_000_000):
        rows = min(count, start + 1_000_000) - start
        dealt = np.argsort(rng.random((rows, 52), dtype=np.float32), axis=1)[:, :size]
        out[start:start + rows] = np.sort(dealt, axis=1) if sort else dealt
    return out


@pytest.fixture(scope="session")
def hands13():
    return random_cards(2_000, 13, seed=1)


def report_rate(benchmark, items: int, name: str) -> None:
    """Record items per second at the best round (the least disturbed by other load)."""
    best = benchmark.stats.stats.min
    benchmark.extra_info[name] = items / best
    print(f"\n{benchmark.name}: {items / best:,.0f} {name} (best round {best * 1e3:.2f} ms)")
