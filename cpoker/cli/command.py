"""``main(argv)``: run one command, turn errors and signals into one line and an exit status."""

from __future__ import annotations

import contextlib
import io
import sys
from typing import Optional, Sequence

from cpoker.system.errors import (BotBroken, CpokerError, DeviceError, InstallationError, Interrupted, MemoryLimitError,
                      out_of_memory)
from cpoker.cli.common import BROKEN, EXIT_USAGE, PARTIAL, UNWRITTEN, drop_stdout, fail, memory_advice
from cpoker.cli.parser import make_parser


def _run_command(argv: Optional[Sequence[str]]) -> "tuple[int, str]":
    """Parse ``argv`` and run the command; returns its status and what it printed."""
    from cpoker.system import notice as _notice

    parser = make_parser()
    args = parser.parse_args(argv)
    if getattr(args, "command", None) == "match":
        args.strategies = list(args.strategies) + list(args.extra_strategies)
    if getattr(args, "run", None) is None:
        return EXIT_USAGE, parser.format_help()
    _notice.NOTICE["enabled"] = sys.stderr.isatty()
    output = io.StringIO()
    UNWRITTEN.clear()
    BROKEN.clear()
    with contextlib.redirect_stdout(output):  # printed once the command is done, or not at all
        status = args.run(args)
    return (1 if BROKEN else (status or 1) if UNWRITTEN else status), output.getvalue()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``cpoker`` command; returns the exit status (see the module docstring)."""
    from cpoker.system import interrupts
    from cpoker.system.interrupts import shielded

    try:
        with shielded(hard_exit=True) as shield:
            status, text = _run_command(argv)
            # the command has its result (complete, or partial for a signal its job acted on): a signal since
            # then only sets the exit status -- the result, and any file it wrote, are reported as usual
            interrupts.consume()
        # leaving the block restored the handlers, or raised Interrupted for a signal that came before any result
    except CpokerError as error:
        return fail(str(error))
    except (InstallationError, DeviceError, BotBroken) as error:  # not the user's input: status 1
        fail(str(error))
        return 1
    except MemoryError as error:  # this machine's memory, not the user's input: status 1
        fail(str(error) if isinstance(error, MemoryLimitError) else out_of_memory(error, memory_advice()))
        return 1
    except Interrupted as stop:
        print("cpoker: interrupted", file=sys.stderr)
        return 128 + stop.signum
    signum = shield.first if shield is not None else None
    if sys.stdout is None:  # started with its standard output closed (`>&-`): Python then has none
        fail("cannot write the result: standard output is closed")
        return 1
    try:
        try:
            sys.stdout.write(text)
        except UnicodeEncodeError:  # a terminal or pipe that is not UTF-8 (cp1252, PYTHONIOENCODING=ascii...)
            sys.stdout.write(_encodable(text, sys.stdout.encoding or "ascii"))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader is gone (`| head -1`): what it read was all it wanted
        drop_stdout()
        return 0
    except OSError as error:  # a full disk or an I/O error under `> FILE`: the result is not all there
        drop_stdout()
        fail(f"cannot write the result to standard output: {error.strerror or error}")
        return 1
    if status == PARTIAL or signum is not None:
        return 128 + (signum or 2)
    return status


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as one line on stderr, like cpoker's errors (no source location: this is a command)."""
    print(f"cpoker: warning: {str(message).removeprefix('cpoker: ')}", file=sys.stderr)


# what the output's few non-ASCII characters become where stdout cannot encode them
_ASCII_FALLBACK = str.maketrans({"█": "#", "♠": "s", "♥": "h", "♦": "d", "♣": "c", "±": "+/-", "×": "x",
                                 "·": ".", "—": "-", "–": "-", "…": "...", "≥": ">=", "≤": "<="})


def _encodable(text: str, encoding: str) -> str:
    """``text`` with what ``encoding`` cannot write spelled in ASCII (the rest replaced): the result, not a crash."""
    def fits(character: str) -> bool:
        try:
            character.encode(encoding)
            return True
        except (UnicodeEncodeError, LookupError):
            return False

    spelled = "".join(c if c.isascii() or fits(c) else c.translate(_ASCII_FALLBACK) for c in text)
    return spelled.encode(encoding, errors="replace").decode(encoding, errors="replace")


def run() -> None:
    """The console-script entry point: ``cpoker ...`` on the command line."""
    import signal
    import warnings

    warnings.showwarning = _warning_line
    try:
        status = main()
    except KeyboardInterrupt:  # a signal in the instant before the handlers were installed
        print("cpoker: interrupted", file=sys.stderr)
        status = 130
    # everything is done and printed: while the interpreter shuts down (when Python puts the default
    # handlers back) a late Ctrl-C could only kill the process with no message, so ignore it instead
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    sys.exit(status)
