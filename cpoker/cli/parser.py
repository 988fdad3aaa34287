"""The ``cpoker`` command's argument parser: its commands, their options, and the options' value checks."""

from __future__ import annotations

import argparse
import math
import sys

from .._version import __version__
from .common import EXIT_USAGE, RULES_HELP, drop_stdout
from .jobs import cmd_exploit, cmd_match, cmd_simulate
from .play import cmd_deal, cmd_eval, cmd_natural, cmd_odds, cmd_score, cmd_solve
from .serve import cmd_compile, cmd_serve
from .tables import cmd_tables


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")

    def _print_message(self, message: str, file=None) -> None:
        """argparse's, except that help or a version that cannot be written to standard output (a full disk under
        ``> FILE``) is one line and status 1, as a command's result is: argparse ignored the error, status 0."""
        if not message:
            return
        file = sys.stderr if file is None else file
        try:
            file.write(message)
            file.flush()
        except BrokenPipeError:  # the reader is gone (`| head -1`): what it read was all it wanted
            if file is sys.stdout:
                drop_stdout()
        except (OSError, AttributeError) as error:
            if file is not sys.stdout:  # standard error itself: nowhere left to say it
                return
            drop_stdout()
            reason = getattr(error, "strerror", None) or error
            self.exit(1, f"cpoker: error: cannot write to standard output: {reason}\n")


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise argparse.ArgumentTypeError(f"expected a number of seconds, 0 or more, got {shown!r}")
    return value


def _int_in(low: int, high: int):
    """An argparse type: a whole number in ``low..high`` (the message names the range)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            shown = text if len(text) <= 30 else text[:27] + "..."
            raise argparse.ArgumentTypeError(f"expected a whole number, got {shown!r}") from None
        if not low <= value <= high:
            shown = str(value) if len(text) <= 30 else "a number too large"
            raise argparse.ArgumentTypeError(f"must be {low:,} to {high:,}, got {shown}")
        return value
    parse.__name__ = "int"
    return parse


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text[:30]!r}") from None
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text[:30]}")
    return value


def _seed_option(sub: argparse.ArgumentParser, default=None, drawn: bool = True) -> None:
    from ..limits import MAX_SEED

    sub.add_argument("--seed", type=_int_in(0, MAX_SEED), default=default,
                     help=f"seed, 0 to 2**63-1 (default: {'drawn and printed' if drawn else default})")


def _device_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                     help="where hands are arranged (table policy, greedy; self-play passes whole): cpu (default) or "
                          "cuda (an NVIDIA GPU); same results")


def _backend_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--backend", choices=("local", "dask"), default="local",
                     help="local (default) or dask: run the blocks on a Dask cluster; same results")
    sub.add_argument("--scheduler", metavar="ADDRESS", default=None,
                     help="with --backend dask: a running scheduler, e.g. tcp://127.0.0.1:8786 "
                          "(default: a local cluster for the job)")


def _tables_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--tables", metavar="FILE", default=None,
                     help="table-policy tables from 'cpoker tables build --out FILE' (default: the shipped tables "
                          "of the rules in force)")


def make_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cpoker`` command."""
    from ..limits import (
        MAX_DEALS,
        MAX_ITERATIONS,
        MAX_REMOVAL_DEALS,
        MAX_REMOVAL_ROUNDS,
        MAX_SAMPLES,
        MAX_SEED,
        MAX_SESSIONS,
        MAX_TABLE_HANDS,
    )
    from ..policy import DEFAULT_BUILD

    parser = _Parser(prog="cpoker", description="Closed 13-card Chinese poker: evaluate, score, deal, solve, "
                                                "simulate, match.",
                     epilog='example: cpoker solve "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"')
    parser.add_argument("--version", action="version", version=f"cpoker {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def command(name: str, help_text: str, example: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text, epilog=f"example: {example}",
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        sub.add_argument("--symbols", action="store_true", help="print suits as ♠♥♦♣")
        return sub

    sub = command("eval", "evaluate a 3-card front or a 5-card row", 'cpoker eval "As Ks Qs Js Ts"')
    sub.add_argument("cards", nargs="+", help='cards, e.g. "As Kd Th 9c 9d" (10, ♠♥♦♣ and commas accepted)')
    sub.set_defaults(run=cmd_eval)

    sub = command("score", "settle one deal between 2 to 4 players",
                  'cpoker score --player "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac" '
                  '--player "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"\n'
                  '         cpoker score --file deal.json   (JSON: {"players": ["front / middle / back", ...]})')
    sub.add_argument("--player", action="append", metavar='"FRONT / MIDDLE / BACK"',
                     help="one player's rows; repeat for each player")
    sub.add_argument("--file", help="JSON file with the players' arrangements")
    sub.add_argument("--rules", default=None, help=RULES_HELP)
    sub.add_argument("--misset-fouls", action="store_true",
                     help="settle a mis-set arrangement (wrong row sizes, a repeated card) as a foul, as at the "
                          "table (RULES §04), instead of refusing it")
    sub.set_defaults(run=cmd_score)

    sub = command("natural", "find the naturals of a 13-card hand (dragon, six pairs, three flushes...)",
                  'cpoker natural "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s" --rules seed001-royalties')
    sub.add_argument("hand", nargs="+", help="13 cards")
    sub.add_argument("--rules", default=None, help="rules whose naturals count (preset name or .toml file)")
    sub.set_defaults(run=cmd_natural)

    sub = command("deal", "deal 13 random cards to each player", "cpoker deal --players 4 --seed 1")
    sub.add_argument("--players", type=_int_in(2, 4), default=4, help="2 to 4 (default 4)")
    _seed_option(sub)
    sub.set_defaults(run=cmd_deal)

    sub = command("solve", "find the best non-fouling arrangement of a 13-card hand",
                  'cpoker solve "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s" --opponents 2 --seed 1')
    sub.add_argument("hand", nargs="+", help="13 cards")
    sub.add_argument("--opponents", type=_int_in(1, 3), default=1, help="1 to 3 (default 1)")
    sub.add_argument("--samples", type=_int_in(1, MAX_SAMPLES), default=2000, help="Monte Carlo deals (default 2000)")
    _seed_option(sub)
    sub.add_argument("--method", choices=("mc", "table"), default="mc", help="mc (default) or table")
    sub.add_argument("--opponent", default="table",
                     help="opponent model: table (default: the tables of the rules in force), table@RULES, greedy, "
                          "or package.module:function")
    sub.add_argument("--rules", default=None, help=RULES_HELP)
    sub.add_argument("--compare", metavar="ARRANGEMENT", default=None,
                     help='your own arrangement of the hand, "front / middle / back": scored on the same samples as '
                          "the best one, with what it costs and its 95%% interval")
    _tables_option(sub)
    _device_option(sub)
    sub.add_argument("--quiet", action="store_true", help="no progress bar (none is shown off a terminal)")
    sub.set_defaults(run=cmd_solve)

    def study_options(sub: argparse.ArgumentParser) -> None:
        _seed_option(sub)
        sub.add_argument("--rules", default=None, help=RULES_HELP)
        _tables_option(sub)
        sub.add_argument("--jobs", type=_int_in(1, 4096), default=None,
                         help="threads (default: all cores); never changes results")
        sub.add_argument("--quiet", action="store_true", help="no progress bar (none is shown off a terminal)")
        sub.add_argument("--out", help="save results with every parameter to FILE.json or FILE.csv")

    def resume_options(sub: argparse.ArgumentParser, noun: str, more: str) -> None:
        sub.add_argument("--checkpoint", action="store_true",
                         help=f"save the {noun} so far to its --out FILE.json as it runs, for --resume")
        sub.add_argument("--checkpoint-seconds", type=_seconds, default=10.0, metavar="SECONDS",
                         help="with --checkpoint: seconds between saves (default 10)")
        sub.add_argument("--resume", metavar="FILE.json", default=None,
                         help=f"continue the {noun} saved in FILE.json (a checkpoint, a stopped {noun}, or a "
                              f"finished one to extend with more --{more}) to the result of one unbroken run; "
                              "what it played and its size default to the saved ones, and the result goes to "
                              "FILE.json unless --out says otherwise")

    def long_run_options(sub: argparse.ArgumentParser) -> None:
        study_options(sub)
        _device_option(sub)
        _backend_options(sub)

    sub = command("simulate", "equity of one arrangement against random opponents",
                  'cpoker simulate "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac" --opponents 3 --samples 20000')
    sub.add_argument("arrangement", nargs="?", default=None, help='"FRONT / MIDDLE / BACK"')
    sub.add_argument("--opponents", type=_int_in(1, 3), default=None, help="1 to 3 (default 1)")
    sub.add_argument("--samples", type=_int_in(1, MAX_SAMPLES), default=None,
                     help="deals to simulate (default 10000)")
    sub.add_argument("--opponent", default=None,
                     help="opponent model: table (default: the tables of the rules in force), table@RULES, greedy, "
                          "or package.module:function")
    long_run_options(sub)
    resume_options(sub, "simulation", "samples")
    sub.set_defaults(run=cmd_simulate)

    sub = command("match", "play 2 to 4 strategies against each other",
                  "cpoker match table greedy --deals 100000 --seed 1\n"
                  "         cpoker match table table@pagat --rules 2-4 --deals 200000\n"
                  "         cpoker match table greedy greedy --sessions 1000 --strategy mybot.play:arrange")
    sub.add_argument("strategies", nargs="*", metavar="STRATEGY",
                     help="table, table@RULES (the tables shipped for other rules, e.g. table@pagat), greedy, mc, "
                          "or package.module:function (one per seat)")
    sub.add_argument("--strategy", action="append", default=[], dest="extra_strategies",
                     help="another seat's strategy as package.module:function (repeatable)")
    sub.add_argument("--deals", type=_int_in(1, MAX_DEALS), default=None,
                     help="deals, each played in every seat rotation (default 10000; with --resume, the saved "
                          "match's)")
    sub.add_argument("--sessions", type=_int_in(0, MAX_SESSIONS), default=None,
                     help="also play N 8-deal sessions and count first places")
    long_run_options(sub)
    resume_options(sub, "match", "deals or --sessions")
    sub.set_defaults(run=cmd_match)

    sub = command("exploit", "how much a best response wins against a strategy",
                  "cpoker exploit table --hands 2000 --seed 1\n"
                  "         cpoker exploit greedy --rules 2-4 --hands 500 --samples 4000 --trend --json")
    sub.add_argument("strategy", nargs="?", default=None,
                     help="table, table@RULES, greedy, or package.module:function")
    sub.add_argument("--hands", type=_int_in(1, 10**6), default=None, help="random hands to study (default 2000)")
    sub.add_argument("--samples", type=_int_in(4, MAX_SAMPLES), default=None,
                     help="deals per hand to choose the best response, and again to score (default 2000)")
    sub.add_argument("--trend", action="store_true", default=None, help="also with 1/4 and 1/2 of the samples")
    study_options(sub)
    _backend_options(sub)
    resume_options(sub, "study", "hands")
    sub.set_defaults(run=cmd_exploit)

    sub = command("odds", "how often a row wins, ties or loses against a table-policy opponent",
                  'cpoker odds --row front --hand "6s 6h 2d"')
    sub.add_argument("--row", choices=("front", "middle", "back"), help="only this row")
    sub.add_argument("--hand", nargs="+", help="one 3- or 5-card row to look up")
    sub.add_argument("--csv", action="store_true", help="CSV output")
    sub.add_argument("--rules", default=None, help=RULES_HELP + "; the opponent plays their tables")
    _tables_option(sub)
    sub.set_defaults(run=cmd_odds)

    sub = command("compile", "compile every kernel ahead of the first command (after installing, in a container "
                             "image, on a cluster's nodes)",
                  "cpoker compile\n         cpoker compile --rules pagat --rules house.toml")
    sub.add_argument("--rules", action="append", default=None,
                     help="compile for these rules only (repeatable; default: every preset)")
    sub.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                     help="cuda: the GPU's kernels too (they are cached as well); cpu by default")
    sub.add_argument("--quiet", action="store_true", help="no line per job on stderr")
    sub.set_defaults(run=cmd_compile)

    sub = commands.add_parser("serve", help="a local web page to solve hands and to train, with a JSON API",
                              description="a local web page to solve hands and to train, with a JSON API "
                                          "(its schema at /openapi.json)",
                              epilog="example: cpoker serve --port 8000 --open")
    sub.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    sub.add_argument("--port", type=_int_in(1, 65535), default=8000, help="port (default 8000)")
    sub.add_argument("--open", action="store_true", help="open the page in a browser")
    sub.set_defaults(run=cmd_serve)

    sub = commands.add_parser("tables", help="build or inspect the table policy's tables",
                              description="build or inspect the table policy's tables",
                              epilog="example: cpoker tables build --rules 2-4")
    tables = sub.add_subparsers(dest="tables_command", metavar="ACTION", required=True, parser_class=_Parser)
    build = tables.add_parser("build", help="learn the tables by self-play under some rules (defaults rebuild the "
                                            "shipped ones)",
                              epilog="examples: cpoker tables build --rules 2-4\n"
                                     "          cpoker tables build --rules house.toml --hands 20000 --out house.npz",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    build.add_argument("--hands", type=_int_in(1, MAX_TABLE_HANDS), default=None,
                       help=f"self-play sample size (default {DEFAULT_BUILD['hands']}; resuming: the build's)")
    build.add_argument("--seed", type=_int_in(0, MAX_SEED), default=None,
                       help=f"seed of the sample, 0 to 2**63-1 (default {DEFAULT_BUILD['seed']}; "
                            "resuming: the build's)")
    build.add_argument("--max-iterations", type=_int_in(1, MAX_ITERATIONS), default=None,
                       help=f"iterations of self-play at most (default {DEFAULT_BUILD['max_iterations']}; with "
                            "--resume, the build's own, as its other options)")
    build.add_argument("--tolerance", type=_fraction, default=None,
                       help="stop when fewer hands than this share (0 to 1) change arrangement (default "
                            f"{DEFAULT_BUILD['tolerance']})")
    build.add_argument("--rules", default=None, help=RULES_HELP + "; the self-play plays under them")
    build.add_argument("--removal-deals", type=_int_in(0, MAX_REMOVAL_DEALS), default=None,
                       help="deals of four hands from which the policy's card-removal correction (and, under a "
                            "scoring bonus, the joint model of an opponent's rows) is learned "
                            f"(default {DEFAULT_BUILD['removal_deals']:,}, about 10 s; a quarter of them in the rounds "
                            "before the last; 0 for none)")
    build.add_argument("--removal-rounds", type=_int_in(0, MAX_REMOVAL_ROUNDS), default=None,
                       help="rounds of self-play with the correction, each learning it again (default "
                            f"{DEFAULT_BUILD['removal_rounds']}, about a minute; 0: learned once, from play "
                            "without it)")
    build.add_argument("--out", default=None,
                       help="output file (default: the shipped file's name, policy_tables.npz for pagat, "
                            "policy_tables_2-4.npz for 2-4, ...; policy_tables_custom.npz for a rules file)")
    build.add_argument("--checkpoint", action="store_true",
                       help="after every iteration, save the tables so far to the output file, which --resume "
                            "continues: a build killed outright loses one pass at most")
    build.add_argument("--resume", metavar="FILE", default=None,
                       help="continue the unfinished build in FILE (a checkpoint, or tables a signal stopped) to the "
                            "very tables it would have made uninterrupted; its sample and rules are kept, and the "
                            "output goes to FILE unless --out says otherwise")
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    _device_option(build)
    _backend_options(build)
    build.add_argument("--json", action="store_true", help="machine-readable output")
    info = tables.add_parser("info", help="show the shipped tables' provenance and convergence")
    info.add_argument("file", nargs="?", default=None, help="a tables file (default: the shipped tables of --rules)")
    info.add_argument("--rules", default=None, help="the preset whose shipped tables to show (default pagat)")
    info.add_argument("--json", action="store_true", help="machine-readable output")
    sub.set_defaults(run=cmd_tables)
    return parser
