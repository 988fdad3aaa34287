import numpy as np
import pytest
from hypothesis import settings


settings.register_profile("ci", max_examples=200, deadline=None)
settings.load_profile("ci")


def pytest_collection_modifyitems(items):
    """The cold ``cpoker compile`` of test_precompile first: in a new checkout it fills the kernel cache that the
    rest of the suite then reads (see ``test_precompile.cold_suite_cache``)."""
    items.sort(key=lambda item: item.name != "test_after_cpoker_compile_no_command_compiles_a_kernel")  # stable


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
