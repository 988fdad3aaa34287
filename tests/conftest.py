import numpy as np
import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=200, deadline=None)
settings.load_profile("ci")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def random_hands(count: int, seed: int, size: int = 13) -> np.ndarray:
    """``count`` random sets of ``size`` distinct card ids (sorted rows)."""
    rng = np.random.default_rng(seed)
    return np.sort(np.argsort(rng.random((count, 52)), axis=1)[:, :size], axis=1).astype(np.uint8)
