"""``python -m cpoker``: the command-line interface."""

from .cli import run

run()
