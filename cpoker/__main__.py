"""``python -m cpoker``: the command-line interface."""

from ._entry import run

run()
