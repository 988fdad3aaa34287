"""The ``cpoker`` command's argument parser: every command, in the order ``cpoker --help`` lists them, each
registered by the module that runs it."""

from __future__ import annotations

import argparse

from cpoker._version import __version__
from cpoker.cli import jobs, ofc, play, review, serve, tables
from cpoker.cli.options import Parser


def make_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cpoker`` command."""
    parser = Parser(prog="cpoker", description="Closed 13-card Chinese poker: evaluate, score, deal, solve, "
                                               "simulate, match, tournament; and the open-face game (cpoker ofc).",
                    epilog='example: cpoker solve "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"')
    parser.add_argument("--version", action="version", version=f"cpoker {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for add in (play.add_eval, play.add_score, play.add_natural, play.add_deal, play.add_solve, jobs.add_simulate,
                jobs.add_match, jobs.add_tournament, jobs.add_exploit, review.add_review, jobs.add_bot_check,
                play.add_odds, serve.add_compile, serve.add_serve, tables.add_tables, ofc.add_ofc):
        add(commands)
    return parser
