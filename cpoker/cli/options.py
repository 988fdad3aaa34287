"""What the commands' parsers share: a parser whose errors are one line, option types that name their range,
and the options several commands take."""

from __future__ import annotations

import argparse
import math
import sys

from cpoker.system.limits import MAX_SEED
from cpoker.cli.common import EXIT_USAGE, RULES_HELP, drop_stdout

OPPONENT_HELP = ("opponent model: table (default: the tables of the rules in force), table@RULES, greedy, "
                 "package.module:function, or cmd:COMMAND (a bot, docs/bots.md)")
STRATEGY_HELP = ("table, table@RULES (the tables shipped for other rules, e.g. table@pagat), greedy, mc, "
                 "package.module:function, or cmd:COMMAND (a program that speaks the bot protocol, docs/bots.md)")


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str):  # never returns: exits
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


OFC_RULES_HELP = "ofc (default), pineapple, progressive, or a house-rules .toml file (docs/ofc.md)"
POLICY_HELP = ("the rollout policy: learned (default), static (0.8.0's), or a .npz file 'cpoker ofc policy' "
               "wrote")

def seconds(text: str) -> float:
    """An argparse type: a number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise argparse.ArgumentTypeError(f"expected a number of seconds, 0 or more, got {shown!r}")
    return value


def int_in(low: int, high: int):
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


def fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text[:30]!r}") from None
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text[:30]}")
    return value


def seed_option(sub: argparse.ArgumentParser, default=None, drawn: bool = True) -> None:
    sub.add_argument("--seed", type=int_in(0, MAX_SEED), default=default,
                     help=f"seed, 0 to 2**63-1 (default: {'drawn and printed' if drawn else default})")


def device_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                     help="where hands are arranged (table policy, greedy; self-play passes whole): cpu (default) or "
                          "cuda (an NVIDIA GPU); same results")


def backend_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--backend", choices=("local", "dask"), default="local",
                     help="local (default) or dask: run the blocks on a Dask cluster; same results")
    sub.add_argument("--scheduler", metavar="ADDRESS", default=None,
                     help="with --backend dask: a running scheduler, e.g. tcp://127.0.0.1:8786 "
                          "(default: a local cluster for the job)")


def tables_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--tables", metavar="FILE", default=None,
                     help="table-policy tables from 'cpoker tables build --out FILE' (default: the shipped tables "
                          "of the rules in force)")


def command(commands, name: str, help_text: str, example: str) -> argparse.ArgumentParser:
    """A command's parser, with its example and the ``--json`` and ``--symbols`` that every command takes."""
    sub = commands.add_parser(name, help=help_text, description=help_text, epilog=f"example: {example}",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub.add_argument("--json", action="store_true", help="machine-readable output")
    sub.add_argument("--symbols", action="store_true", help="print suits as ♠♥♦♣")
    return sub


def thread_options(sub: argparse.ArgumentParser) -> None:
    """``--jobs`` (threads) and ``--quiet`` (no progress bar): what every command that runs on all cores takes."""
    sub.add_argument("--jobs", type=int_in(1, 4096), default=None,
                     help="threads (default: all cores); never changes results")
    sub.add_argument("--quiet", action="store_true", help="no progress bar (none is shown off a terminal)")


def job_options(sub: argparse.ArgumentParser) -> None:
    """The options every job command takes: --seed, --rules, --tables, --jobs, --quiet, --out."""
    seed_option(sub)
    sub.add_argument("--rules", default=None, help=RULES_HELP)
    tables_option(sub)
    thread_options(sub)
    sub.add_argument("--out", help="save results with every parameter to FILE.json or FILE.csv")

def resume_options(sub: argparse.ArgumentParser, noun: str, more: str) -> None:
    sub.add_argument("--checkpoint", action="store_true",
                     help=f"save the {noun} so far to its --out FILE.json as it runs, for --resume")
    sub.add_argument("--checkpoint-seconds", type=seconds, default=10.0, metavar="SECONDS",
                     help="with --checkpoint: seconds between saves (default 10)")
    sub.add_argument("--resume", metavar="FILE.json", default=None,
                     help=f"continue the {noun} saved in FILE.json (a checkpoint, a stopped {noun}, or a "
                          f"finished one to extend with more --{more}) to the result of one unbroken run; "
                          "what it played and its size default to the saved ones, and the result goes to "
                          "FILE.json unless --out says otherwise")

def long_run_options(sub: argparse.ArgumentParser) -> None:
    """The options of a long job: :func:`job_options`, ``--device``, ``--backend`` and ``--scheduler``."""
    job_options(sub)
    device_option(sub)
    backend_options(sub)


def playing_job_options(sub: argparse.ArgumentParser, noun: str, more: str) -> None:
    """A long job that plays strategies on dealt hands (simulate, match, tournament): :func:`long_run_options`,
    :func:`bot_options` and :func:`resume_options`."""
    long_run_options(sub)
    bot_options(sub)
    resume_options(sub, noun, more)


def bot_options(sub: argparse.ArgumentParser) -> None:
    """``--bot-timeout``, ``--bot-silence`` and ``--bot-batch``: how the job talks to ``cmd:`` strategies."""
    from cpoker.strategies.bots import DECISION_TIMEOUT, DEFAULT_BATCH, DEFAULT_TIMEOUT, MAX_BATCH, STARTUP_SECONDS

    sub.add_argument("--bot-timeout", type=positive_seconds, default=None, metavar="SECONDS",
                     help=f"seconds a cmd: bot has per hand of a request, or per open-face decision (default "
                          f"{DEFAULT_TIMEOUT:g} a hand, {DECISION_TIMEOUT:g} an open-face decision, plus "
                          f"{STARTUP_SECONDS:g} s for its first answer); a bot out of time faults")
    silence_option(sub)
    sub.add_argument("--bot-batch", type=int_in(1, MAX_BATCH), default=DEFAULT_BATCH, metavar="HANDS",
                     help=f"hands per request to a cmd: bot (default {DEFAULT_BATCH})")


def silence_option(sub: argparse.ArgumentParser) -> None:
    """``--bot-silence``: how long a ``cmd:`` bot may work without a sign of life before it is taken for hung."""
    from cpoker.strategies.bots import SILENCE_SECONDS

    sub.add_argument("--bot-silence", type=positive_seconds, default=SILENCE_SECONDS, metavar="SECONDS",
                     help=f"seconds a cmd: bot may work on a request without a sign of life (a line on its "
                          f"standard error, a {{\"alive\": true}} line, processor time) before it faults as hung "
                          f"(default {SILENCE_SECONDS:g})")


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    value = seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value


def with_bot_options(args: argparse.Namespace, strategy):
    """``strategy``, a :class:`~cpoker.Bot` with the command's ``--bot-timeout`` and ``--bot-batch`` when it is
    ``cmd:COMMAND``."""
    from cpoker.strategies.bots import PREFIX, Bot

    if isinstance(strategy, str) and strategy.startswith(PREFIX):
        return Bot(strategy, timeout=args.bot_timeout, batch=args.bot_batch, silence=args.bot_silence)
    return strategy
