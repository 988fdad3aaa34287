"""Shared fixtures of the pytest-benchmark suites (run with ``pytest benchmarks/``)."""

import numpy as np
import pytest


def random_cards(count: int, size: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sort(np.argsort(rng.random((count, 52)), axis=1)[:, :size], axis=1).astype(np.uint8)


@pytest.fixture(scope="session")
def hands13():
    return random_cards(2_000, 13, seed=1)


def report_rate(benchmark, items: int, name: str) -> None:
    """Record items per second at the best round (the least disturbed by other load)."""
    best = benchmark.stats.stats.min
    benchmark.extra_info[name] = items / best
    print(f"\n{benchmark.name}: {items / best:,.0f} {name} (best round {best * 1e3:.2f} ms)")
