"""What every command shares: exit statuses, the one-line error, and printing cards and JSON."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

from cpoker.system.environment import address_space_advice, address_space_limit, address_space_needed

EXIT_USAGE = 2
PARTIAL = -1  # returned by a command whose result is partial: main turns it into 128 + the signal number
RULES_HELP = ("pagat (default), 1-6, 2-4, seed001-royalties, low-a5, low-27, pusoy (= 1-6), or a house-rules .toml "
              "file")


def fail(message: str) -> int:
    message = " ".join(str(message).split())  # always one line
    print(f"cpoker: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def memory_advice() -> str:
    """What to do about a MemoryError: a job smaller, memory freed, or the address-space limit raised."""
    limit = address_space_limit()
    if limit is not None and limit < address_space_needed():
        return address_space_advice(limit)
    return ("this machine cannot hold the job now; ask for fewer hands, samples or deals, or free some memory"
            + (f" (this process may use {limit} MiB of address space, ulimit -v)" if limit is not None else ""))


def cards_text(cards, symbols: bool) -> str:
    from cpoker.game.cards import format_cards

    return format_cards(cards, symbols=symbols)


def print_json(data) -> None:
    """``data`` as strict JSON on standard output: NaN and the infinities are ``null``, never ``NaN``."""
    from cpoker.run.stats import strict_json_data

    print(json.dumps(strict_json_data(data), indent=2, ensure_ascii=False, allow_nan=False))


def print_matrix(matrix: "Sequence[Sequence[int]]") -> None:
    """A deal's settlement matrix, ``matrix[i][j]`` what player ``i`` won from ``j`` (``cpoker score``, ``cpoker ofc
    score``)."""
    n = len(matrix)
    print("\nwho won what from whom (row player from column player):")
    print("          " + "".join(f"{'P' + str(j + 1):>6}" for j in range(n)))
    for i in range(n):
        cells = "".join(f"{'.' if i == j else format(int(matrix[i][j]), '+d'):>6}" for j in range(n))
        print(f"      P{i + 1}  {cells}")


# what a command computed but could not write, reported as status 1 (see cpoker.cli.command._run_command)
UNWRITTEN: list = []


# a bot that broke during the job, whose partial result the command prints: status 1 (see _run_command)
BROKEN: list = []


def played(job, *args, **kwargs):
    """``job(*args, **kwargs)``; when a bot breaks (:class:`~cpoker.BotBroken`) after some of the job's
    blocks, its one line goes to standard error and the partial result is returned for the command to print, the
    command then ending with status 1.  With nothing to print, the error goes on up."""
    from cpoker.system.errors import BotBroken

    try:
        return job(*args, **kwargs)
    except BotBroken as broken:
        if broken.result is None:
            raise
        fail(str(broken))
        BROKEN.append(broken)
        return broken.result


def print_bot_faults(names, counts) -> None:
    """A line for each bot that had hands settled as fouls for its faults (``counts[i]`` hands of ``names[i]``)."""
    for name, hands in zip(names, counts):
        if hands:
            print(f"bot faults: {name} had {hands:,} hand{'s' * (hands != 1)} settled as fouls (crashed, out of "
                  "time, or answered nonsense)")


def print_problems(heading: str, problems: "Sequence[str]", shown: int) -> int:
    """A file's problems on standard error: ``heading``, then one line a problem (``shown`` at most, and how many
    more); the command's exit status (2)."""
    print(f"cpoker: error: {heading}", file=sys.stderr)
    for problem in problems[:shown]:
        print(f"  {' '.join(problem.split())}", file=sys.stderr)
    if len(problems) > shown:
        print(f"  and {len(problems) - shown} more", file=sys.stderr)
    return EXIT_USAGE


def interval_text(interval: "Sequence[float]", spec: str, scale: float = 1.0, unknown: str = "no interval") -> str:
    """``[low, high]`` formatted as :func:`fixed` does, or ``[unknown]`` when the interval cannot be given (NaN
    ends: a single observation)."""
    low, high = interval
    if low != low or high != high:
        return f"[{unknown}]"
    return f"[{fixed(scale * low, spec)}, {fixed(scale * high, spec)}]"


def percent(p: float) -> str:
    return f"{fixed(100 * p, '5.1f')}%"


def unwritten(message: str) -> None:
    """Report a file the job's result could not be written to; the command still prints the result."""
    fail(message)
    UNWRITTEN.append(message)


def show_progress(args) -> bool:
    return not args.quiet and sys.stderr.isatty()


def drop_stdout() -> None:
    """Point standard output at the null device: what is still buffered would fail again, with a traceback, when
    the interpreter flushes it on exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # (no file descriptor: nothing will be flushed to one)
        pass


def fixed(value: float, spec: str) -> str:
    """``value`` formatted with ``spec`` (``"+.3f"``, ``">9.4f"``), never as a negative zero: a value that rounds
    to zero is shown as zero (``+0.000``, ``0.0000``), not ``-0.000``; NaN as ``-`` (nothing to show) and an
    infinity as a word."""
    if value != value:
        return "-"
    if value in (float("inf"), float("-inf")):
        return "infinite" if value > 0 else "minus infinite"
    text = format(value, spec)
    if "-" in text and not any(digit in text for digit in "123456789"):
        text = format(0.0, spec)
    return text
