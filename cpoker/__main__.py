"""``python -m cpoker``: the command-line interface."""

from cpoker._entry import run

run()
