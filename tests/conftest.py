import numpy as np
import pytest
from hypothesis import settings

from cpoker.rules import Rules

settings.register_profile("ci", max_examples=200, deadline=None)
settings.load_profile("ci")


def pytest_collection_modifyitems(items):
    """The cold ``cpoker compile`` of test_precompile first: in a new checkout it fills the kernel cache that the
    rest of the suite then reads (see ``test_precompile.cold_suite_cache``)."""
    items.sort(key=lambda item: item.name != "test_after_cpoker_compile_no_command_compiles_a_kernel")  # stable


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def random_hands(count: int, seed: int, size: int = 13) -> np.ndarray:
    """``count`` random sets of ``size`` distinct card ids (sorted rows)."""
    rng = np.random.default_rng(seed)
    return np.sort(np.argsort(rng.random((count, 52)), axis=1)[:, :size], axis=1).astype(np.uint8)


def few_rank_hands(count: int, seed: int) -> np.ndarray:
    """Hands of four to six ranks: many backs of one strength, so many splits of equal value."""
    rng = np.random.default_rng(seed)
    hands = []
    for _ in range(count):
        ranks = rng.choice(13, size=int(rng.integers(4, 7)), replace=False)
        pool = [13 * suit + int(rank) for rank in ranks for suit in range(4)]
        hands.append(np.sort(rng.choice(pool, 13, replace=False)))
    return np.array(hands, dtype=np.uint8)


def skewed_distribution(seed: int, power: float = 8) -> np.ndarray:
    """A random distribution over the dense strengths of each row (``power`` concentrates it on a few)."""
    from cpoker.tables import strength_keys

    weights = np.random.default_rng(seed).random((3, len(strength_keys()))) ** power
    return weights / weights.sum(axis=1, keepdims=True)


# a hand whose two best splits tie (backs of one strength): a bound summed in another order than the splits'
# values once fell an ulp below them and lost the tie to the later split
TIED_HAND = "As Ks Qh Jh Jd Td 8s 7d 6h 5h 4h 3h 3c"
# house rules whose back royalties are not monotone in the category: the policy's bound must still hold
ODD_ROYALTIES = Rules("2-4", {"back": {"straight": 6, "flush": 0, "full house": 1}, "front": {"pair": 1}})
