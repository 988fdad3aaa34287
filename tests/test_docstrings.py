"""Every example in a docstring of the package runs, and shows what it says (doctest).

The modules are found by reading the sources, so an example added anywhere is run without a list to keep.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cpoker"


def modules_with_examples() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>> " in path.read_text():
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_the_examples_are_found():
    assert {"cpoker", "cpoker.game.evaluation", "cpoker.game.scoring", "cpoker.jobs.solve"} <= set(
        modules_with_examples())


@pytest.mark.parametrize("name", modules_with_examples())
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    failures, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                                          report=True, verbose=False)
    assert attempted > 0 and failures == 0
