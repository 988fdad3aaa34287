"""Shared fixtures, and the import paths the test folders share.

The tests mirror the package's folders (``tests/game/``, ``tests/jobs/``...).  ``tests/`` itself is on the
import path (its ``helpers.py`` and ``naive.py`` are shared by every folder), and so is ``tests/support/``: the
scripts that tests start as processes, and the plug-in strategies they name (``plugin_strategy:weakest_back``).
"""

import sys
from pathlib import Path

import numpy as np
import pytest

SUPPORT = Path(__file__).resolve().parent / "support"
if str(SUPPORT) not in sys.path:
    sys.path.insert(0, str(SUPPORT))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
