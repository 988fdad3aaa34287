"""The ``cpoker`` command: argument parsing, calling the public API, formatting.

No game logic lives here.  ``main(argv)`` returns the exit status, so tests
call it directly.  Bad input prints one line on standard error and exits 2;
a damaged installation, a GPU that fails during a job, or a job this
machine (or its ``ulimit -v``) has not the memory for, one line and 1.
SIGINT (Ctrl-C) and SIGTERM never interrupt a kernel: long jobs stop at the
next block and print their partial result; a command that has its result
when the signal comes prints it (and writes its file) as usual; one that has
none yet prints ``cpoker: interrupted`` and writes nothing.  Either way the
status is 128 + the signal number (130 for Ctrl-C, 143 for SIGTERM).  A second
Ctrl-C ends the process at once.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from . import interrupts
from ._version import __version__
from .errors import CpokerError, DeviceError, InstallationError, Interrupted, MemoryLimitError, out_of_memory
from .environment import address_space_advice, address_space_limit, address_space_needed, check_kernel_environment

EXIT_USAGE = 2
PARTIAL = -1  # returned by a command whose result is partial: main turns it into 128 + the signal number
RULES_HELP = "pagat (default), 1-6, 2-4, seed001-royalties, or a house-rules .toml file"


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
                _drop_stdout()
        except (OSError, AttributeError) as error:
            if file is not sys.stdout:  # standard error itself: nowhere left to say it
                return
            _drop_stdout()
            reason = getattr(error, "strerror", None) or error
            self.exit(1, f"cpoker: error: cannot write to standard output: {reason}\n")


def _fail(message: str) -> int:
    message = " ".join(str(message).split())  # always one line
    print(f"cpoker: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _memory_advice() -> str:
    """What to do about a MemoryError: a job smaller, memory freed, or the address-space limit raised."""
    limit = address_space_limit()
    if limit is not None and limit < address_space_needed():
        return address_space_advice(limit)
    return ("this machine cannot hold the job now; ask for fewer hands, samples or deals, or free some memory"
            + (f" (this process may use {limit} MiB of address space, ulimit -v)" if limit is not None else ""))


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
    from .limits import MAX_SEED

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


def _cards_text(cards, symbols: bool) -> str:
    from .cards import format_cards

    return format_cards(cards, symbols=symbols)


def _print_json(data) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


# --- eval -------------------------------------------------------------------------------------

def _cmd_eval(args) -> int:
    from .cards import parse_cards
    from .evaluation import evaluate

    cards = parse_cards(" ".join(args.cards))
    value = evaluate(cards)  # table lookups in Python: no kernel, so numba is never loaded
    if args.json:
        _print_json({"cards": _cards_text(cards, False), "category": value.category,
                     "description": value.describe(), "key": value.key,
                     "strength_index": value.strength_index, "strength_rank": value.strength_index + 1,
                     "strengths": 7917})
    else:
        print(f"{_cards_text(cards, args.symbols)}: {value.describe()}")
        print(f"category {value.category}, key {value.key}, strength {value.strength_index + 1} of 7917 "
              "(1 = the weakest row, 7917 = a royal flush)")
    return 0


# --- score ------------------------------------------------------------------------------------

def _read_deal_file(path: str) -> list:
    """Players' arrangements from a JSON file: a list, or ``{"players": [...]}``.

    Each player is ``"front / middle / back"`` text, a list of the three rows,
    or ``{"front": ..., "middle": ..., "back": ...}``; anything else is an
    :class:`ArrangementError` naming the player.
    """
    from .errors import ArrangementError
    from .files import read_json

    data = read_json(path, "deal file", ArrangementError)
    players = data.get("players") if isinstance(data, dict) else data
    if not isinstance(players, list):
        raise ArrangementError(f"{path}: expected a list of arrangements or {{\"players\": [...]}}")
    out = []
    for number, item in enumerate(players, 1):
        if isinstance(item, dict):
            missing = [row for row in ("front", "middle", "back") if row not in item]
            if missing:
                raise ArrangementError(f"{path}: player {number} lacks the {missing[0]!r} row")
            item = [item["front"], item["middle"], item["back"]]
        if isinstance(item, list):
            if len(item) != 3 or not all(isinstance(row, str) for row in item):
                raise ArrangementError(f"{path}: player {number}'s rows must be three strings of cards")
        elif not isinstance(item, str):
            raise ArrangementError(f"{path}: player {number} must be 'front / middle / back' text, three rows, "
                                   f"or {{\"front\", \"middle\", \"back\"}}; got {json.dumps(item)[:40]}")
        out.append(item)
    return out


def _cmd_score(args) -> int:
    from .naturals import Natural
    from .rules import resolve_rules
    from .scoring import pair_breakdown, row_results, settle_details

    if bool(args.player) == bool(args.file):
        return _fail("give each player's rows with --player (2 to 4 times) or a JSON file with --file")
    rules = resolve_rules(args.rules)
    settlement = settle_details(args.player or _read_deal_file(args.file), rules,
                                misset="foul" if args.misset_fouls else "error")
    deal = list(settlement.entries)
    matrix = settlement.total
    results = settlement.results
    parts = ("rows", "scoring_bonus", "royalties", "naturals")
    if args.json:
        _print_json({
            "rules": rules.to_dict(),
            "players": [{"player": i + 1, ("natural" if isinstance(a, Natural) else "arrangement"): a.to_dict(),
                         "result": r} for i, (a, r) in enumerate(zip(deal, results))],
            "matrix": matrix.tolist(),
            "parts": {name: getattr(settlement, name).tolist() for name in parts},
            "pairs": {f"{i + 1}v{j + 1}": pair_breakdown(deal[i], deal[j], rules)
                      for i in range(len(deal)) for j in range(len(deal)) if i < j},
            "rows": {f"{i + 1}v{j + 1}": dict(zip(("front", "middle", "back"), row_results(deal[i], deal[j])))
                     for i in range(len(deal)) for j in range(len(deal)) if i < j
                     and not isinstance(deal[i], Natural) and not isinstance(deal[j], Natural)},
        })
        return 0
    for i, (entry, result) in enumerate(zip(deal, results)):
        if isinstance(entry, Natural):
            shown, status = f"declares {entry}", f"natural worth {entry.payout} per opponent"
        else:
            shown = entry.format(symbols=args.symbols)
            status = f"FOUL: {entry.foul_reason}" if entry.is_foul else ""
        print(f"player {i + 1}: {result:+d}   {shown}   {status}".rstrip())
    extra = [name for name in parts[1:] if getattr(settlement, name).any()]
    if extra:
        print(f"(rules {rules.name}: " + ", ".join(
            f"{name.replace('_', ' ')} {[int(x) for x in getattr(settlement, name).sum(axis=1)]}"
            for name in ("rows",) + tuple(extra)) + ")")
    print("\nwho won what from whom (row player from column player):")
    n = len(deal)
    print("          " + "".join(f"{'P' + str(j + 1):>6}" for j in range(n)))
    for i in range(n):
        cells = "".join(f"{'.' if i == j else format(int(matrix[i, j]), '+d'):>6}" for j in range(n))
        print(f"      P{i + 1}  {cells}")
    return 0


# --- deal -------------------------------------------------------------------------------------

def _cmd_deal(args) -> int:
    from .cards import deal
    from .solver import _new_seed

    seed = _new_seed() if args.seed is None else args.seed
    hands = deal(args.players, seed)
    if args.json:
        _print_json({"seed": seed, "players": [_cards_text(h, False) for h in hands]})
    else:
        for i, hand in enumerate(hands):
            print(f"player {i + 1}: {_cards_text(hand, args.symbols)}")
        print(f"(seed {seed}: 'cpoker deal --players {args.players} --seed {seed}' deals these hands again)")
    return 0


# --- solve ------------------------------------------------------------------------------------

def _percent(p: float) -> str:
    return f"{100 * p:5.1f}%"


def _cmd_solve(args) -> int:
    from .solver import solve

    solution = solve(" ".join(args.hand), opponents=args.opponents, samples=args.samples, seed=args.seed,
                     rules=args.rules, method=args.method, opponent=args.opponent, tables=args.tables,
                     progress=_show_progress(args), device=args.device, compare=args.compare)
    if args.json:
        _print_json(solution.to_dict())
        return PARTIAL if solution.partial else 0
    sym = args.symbols
    print(f"hand: {_cards_text(solution.hand, sym)}")
    if solution.method == "mc":
        low, high = solution.interval
        status = (f"  (PARTIAL: stopped after {solution.samples} of {solution.requested_samples} samples)"
                  if solution.partial else "")
        print(f"best arrangement: EV {solution.ev:+.3f} points per deal, 95% interval [{low:+.3f}, {high:+.3f}], "
              f"against {solution.opponents} '{solution.opponent_model}' opponent(s), {solution.samples} samples, "
              f"seed {solution.seed}{status}")
    else:
        print(f"best arrangement by the table policy: table value {solution.ev:+.3f} (the sum of its row values "
              f"against the average self-play opponent: a score to rank by, not an EV; "
              f"'--method mc' simulates the EV)")
    for name, row, value in zip(("front", "middle", "back"), solution.best.rows, solution.best.values):
        line = f"  {name:<7}{_cards_text(row, sym):<16}{value.describe():<46}"
        if solution.row_probabilities:
            p = solution.row_probabilities[name]
            line += f"win {_percent(p['win'])}  tie {_percent(p['tie'])}  loss {_percent(p['loss'])}"
        print(line.rstrip())
    if solution.alternatives:
        print("alternatives:" if solution.method == "mc" else "alternatives (table value):")
        for i, candidate in enumerate(solution.alternatives, 1):
            shown = candidate.arrangement.format(symbols=sym)
            if candidate.interval is not None:
                low, high = candidate.interval
                print(f"  {i}. {shown:<50} EV {candidate.ev:+.3f}  [{low:+.3f}, {high:+.3f}]")
            else:
                print(f"  {i}. {shown:<50} table value {candidate.ev:+.3f}")
    if solution.compared is not None:
        _print_compared(solution, sym)
    print(f"({solution.candidates} non-fouling arrangements scored in {solution.seconds:.2f} s)")
    if solution.declare_natural:
        natural = solution.natural
        print(f"DECLARE the natural {natural.kind}: it wins {natural.payout} from each opponent "
              f"({natural.payout * solution.opponents:+d} per deal), more than the best arrangement.")
    return PARTIAL if solution.partial else 0


def _print_compared(solution, symbols: bool) -> None:
    """Your arrangement (``--compare``) beside the best one: its value and what it costs."""
    yours = solution.compared
    shown = yours.arrangement.format(symbols=symbols)
    if solution.method == "table":
        print(f"your arrangement: {shown}  table value {yours.ev:+.3f}, {solution.ev_lost:.3f} below the best"
              + (f" (it fouls: {yours.arrangement.foul_reason})" if yours.arrangement.is_foul else ""))
        return
    if yours.arrangement.is_foul:
        print(f"your arrangement: {shown}  fouls ({yours.arrangement.foul_reason}): {yours.ev:+.3f} points per deal")
    else:
        low, high = yours.interval
        print(f"your arrangement: {shown}  EV {yours.ev:+.3f}  [{low:+.3f}, {high:+.3f}]")
    low, high = solution.ev_lost_interval
    verdict = ("it scores as the best one on every sample" if solution.ev_lost == 0 == solution.ev_lost_stderr
               else f"it costs {solution.ev_lost:.3f} points per deal, 95% interval [{low:.3f}, {high:.3f}] "
                    "(both scored on the same samples)")
    print(f"  {verdict}")


def _cmd_natural(args) -> int:
    from .naturals import find_naturals, natural
    from .rules import resolve_rules

    hand = " ".join(args.hand)
    rules = resolve_rules(args.rules) if args.rules else None
    found = find_naturals(hand, rules)
    counted = natural(hand, rules) if rules is not None else None
    if args.json:
        _print_json({"naturals": [n.to_dict() for n in found],
                     "declare": None if counted is None else counted.to_dict()})
        return 0
    if not found:
        print("no natural")
    for item in found:
        print(f"{item.kind}: {item.arrangement.format(symbols=args.symbols) if item.arrangement else ''}".rstrip(": "))
    if args.rules:
        print(f"under {rules.name}: " + (
            f"declare {counted.kind} for {counted.payout} per opponent" if counted else "no natural counts"))
    return 0


# --- simulate, match, odds ------------------------------------------------------------------

def _check_out(path: Optional[str]) -> None:
    """Refuse a bad ``--out`` before a long job, not after it."""
    from .errors import OptionError
    from .files import check_writable

    if path is None:
        return
    if Path(path).suffix.lower() not in (".json", ".csv"):
        raise OptionError(f"--out must end in .json or .csv, got {path!r}")
    check_writable(path)


def _write_out(path: str, data: dict, rows: list[dict]) -> None:
    """Save results atomically: ``.json`` gets ``data``; ``.csv`` gets ``rows`` (one dict per line).

    The path was checked by :func:`_check_out` before the job started.
    """
    import csv

    from .errors import OptionError
    from .files import atomic_write

    if Path(path).suffix.lower() == ".json":
        text = _json_text(data)
    else:
        buffer = io.StringIO(newline="")
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        text = buffer.getvalue()
    try:
        atomic_write(path, text.encode("utf-8"))
    except OptionError as error:  # checked before the job, failed after it (a full disk): keep the result
        _unwritten(f"{error}; the result is printed instead")


def _json_text(data: dict) -> str:
    """A result as the JSON text of an ``--out FILE.json``."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


_UNWRITTEN: list = []  # what a command computed but could not write, reported as status 1 (see _run_command)


def _unwritten(message: str) -> None:
    """Report a file the job's result could not be written to; the command still prints the result."""
    _fail(message)
    _UNWRITTEN.append(message)


def _flatten(data, prefix: str = "") -> list[dict]:
    rows = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows.extend(_flatten(value, name + "."))
        else:
            rows.append({"field": name, "value": json.dumps(value) if isinstance(value, list) else value})
    return rows


def _show_progress(args) -> bool:
    return not args.quiet and sys.stderr.isatty()


def _histogram(distribution: dict, width: int = 40) -> list[str]:
    total = sum(distribution.values())
    peak = max(distribution.values())
    lines = []
    for points in range(min(distribution), max(distribution) + 1):
        count = distribution.get(points, 0)
        bar = "█" * round(width * count / peak)
        lines.append(f"  {points:+3d} | {bar:<{width}} {100 * count / total:5.1f}%")
    return lines


def _save_and_print_json(args, result, out: Optional[str] = None) -> Optional[int]:
    """Write ``out`` (default ``--out``: all of ``result.to_dict()``) and, with ``--json``, print it; then return
    the exit status."""
    data = result.to_dict()
    out = out or args.out
    if out:
        _write_out(out, data, _flatten(data))
    if args.json:
        _print_json(data)
        return PARTIAL if result.partial else 0
    return None


def _cmd_simulate(args) -> int:
    from .errors import OptionError
    from .simulation import simulate

    saved, out = _resumed_job(args, "simulate")
    state = saved["state"] if saved else {}
    arrangement = args.arrangement
    if arrangement is None:
        if not saved:
            raise OptionError('give the arrangement to simulate, "FRONT / MIDDLE / BACK" (or --resume FILE.json)')
        rows = saved.get("arrangement")
        arrangement = " / ".join(str(rows.get(row)) for row in ("front", "middle", "back")) \
            if isinstance(rows, dict) else str(rows)
    result = simulate(arrangement, opponents=_given(args.opponents, saved, "opponents", 1),
                      samples=_given(args.samples, saved, "requested_samples", 10_000), seed=args.seed,
                      opponent=_given(args.opponent, state, "opponent", "table"), rules=_rules_of(args, saved),
                      jobs=args.jobs, progress=_show_progress(args), tables=args.tables, device=args.device,
                      backend=args.backend, scheduler=args.scheduler, resume=saved, **_checkpointing(args, out))
    status = _save_and_print_json(args, result, out)
    if status is not None:
        return status
    arrangement = result.arrangement
    print(f"arrangement: {arrangement.format(symbols=args.symbols)}")
    if result.fouled:
        print(f"FOUL: {arrangement.foul_reason}")
        print(f"exact value: {result.ev:+.0f} points per deal ({result.opponents} opponent(s) each win every row)")
        return 0
    status = _partial_status(result.partial, f"{result.samples} of {result.requested_samples} samples", out,
                             "simulate")
    low, high = result.interval
    print(f"EV {result.ev:+.4f} points per deal, 95% interval [{low:+.4f}, {high:+.4f}], against "
          f"{result.opponents} '{result.opponent_model}' opponent(s), {result.samples} samples, "
          f"seed {result.seed}{_resumed_after(saved, 'samples')}{status}")
    print(f"  {'row':<8}{'hand':<46}{'win':>7}{'tie':>7}{'loss':>7}")
    for name, value in zip(("front", "middle", "back"), arrangement.values):
        p = result.rows[name]
        print(f"  {name:<8}{value.describe():<46}{_percent(p['win']):>7}{_percent(p['tie']):>7}"
              f"{_percent(p['loss']):>7}")
    print(f"all three rows won against an opponent: {_percent(result.scoop).strip()}; "
          f"all three lost: {_percent(result.scooped).strip()}")
    print("net points per deal:")
    print("\n".join(_histogram(result.distribution)))
    return PARTIAL if result.partial else 0


def _cmd_match(args) -> int:
    from .simulation import match

    saved, out = _resumed_job(args, "match")
    state = saved["state"] if saved else {}
    strategies = args.strategies or state.get("strategies", [])
    result = match(strategies, deals=_given(args.deals, saved, "requested_deals", 10_000), seed=args.seed,
                   sessions=_given(args.sessions, state, "requested_sessions", 0), rules=_rules_of(args, saved),
                   jobs=args.jobs, progress=_show_progress(args), tables=args.tables, device=args.device,
                   backend=args.backend, scheduler=args.scheduler, resume=saved, **_checkpointing(args, out))
    data = result.to_dict()
    if out:
        common = {k: data[k] for k in ("version", "format", "deals", "sessions", "seed", "partial")}
        common["strategies"] = " ".join(result.strategies)
        common["rules"] = result.rules.name
        rows = [{**common, **score, "interval_95": json.dumps(score["interval_95"])} for score in data["scores"]]
        _write_out(out, data, rows)
    if args.json:
        _print_json(data)
        return PARTIAL if result.partial else 0
    status = _partial_status(result.partial, f"{result.deals} of {result.requested_deals} deals", out, "match")
    print(f"{' vs '.join(result.strategies)}: {result.format} format, {result.deals} deals, seed {result.seed}"
          f"{_resumed_after(saved, 'deals')}{status}")
    header = f"  {'strategy':<28}{'points/deal':>12}   {'95% interval':<21}"
    if result.sessions:
        header += f"{'first place':>12}{'mean place':>12}"
    print(header)
    for score in result.scores:
        line = f"  {score.name:<28}{score.points:>+12.4f}   [{score.interval[0]:+.4f}, {score.interval[1]:+.4f}]"
        if result.sessions:
            line += f"{_percent(score.first_places):>12}{score.mean_place:>12.2f}"
        print(line)
    if result.sessions:
        print(f"({result.sessions} sessions of 8 deals; tied players share a place)")
    return PARTIAL if result.partial else 0


def _resumed_job(args, kind: str) -> "tuple[Optional[dict], Optional[str]]":
    """``(saved result or None, output path)`` of a ``match``/``simulate``/``exploit`` command, checked first.

    With ``--resume FILE`` the saved result is read (and checked further by the
    job), and the result goes to FILE unless ``--out`` says otherwise;
    ``--checkpoint`` needs a JSON output.
    """
    from .errors import OptionError
    from .files import read_json

    noun = {"match": "match", "simulate": "simulation", "exploit": "study"}[kind]
    saved = None
    if args.resume:
        saved = read_json(args.resume, f"saved {noun}")
        if not isinstance(saved, dict) or saved.get("kind") != kind or not isinstance(saved.get("state"), dict):
            raise OptionError(f"{args.resume} is not a {noun} result that can be resumed "
                              f"(cpoker {kind} --out FILE.json writes one)")
    out = args.out or args.resume  # a resumed job's file becomes the continued one's
    if args.checkpoint and not (out and Path(out).suffix.lower() == ".json"):
        raise OptionError(f"--checkpoint saves the {noun} so far to its --out FILE.json; give one")
    _check_out(out)
    return saved, out


def _rules_of(args, saved: Optional[dict]):
    """``--rules`` as given, else a resumed job's rules (``saved``: a result, or the state holding its rules)."""
    from .rules import Rules

    if args.rules is not None or not saved:
        return args.rules
    return Rules.from_dict(saved.get("rules"), f"rules in {args.resume}")


def _partial_status(partial: bool, done: str, out: Optional[str], kind: str) -> str:
    """The note after a partial result: how far it got, and the command that continues it when it was saved."""
    if not partial:
        return ""
    resumable = out and Path(out).suffix.lower() == ".json"
    return f"  (PARTIAL: stopped after {done}" + (f"; 'cpoker {kind} --resume {out}' continues it)" if resumable
                                                  else ")")


def _resumed_after(saved: Optional[dict], unit: str) -> str:
    if not saved:
        return ""
    done = saved.get(unit)  # the saved result's deals, samples or hands
    return f", resumed after {done} {unit}" if isinstance(done, int) else ", resumed"


def _given(value, saved: "dict | None", key: str, default):
    """An option's value: as given, else the saved run's (a resumed run keeps its size), else the default."""
    if value is not None:
        return value
    return saved.get(key, default) if saved else default


def _requested(saved: "dict | None", unit: str) -> str:
    """The key of a saved result's requested size: ``requested_<unit>``, or ``<unit>`` in a file that has none
    (a study saved by an earlier cpoker recorded only the hands it had done)."""
    return f"requested_{unit}" if saved and f"requested_{unit}" in saved else unit


def _checkpointing(args, out: Optional[str]) -> dict:
    """A job's ``checkpoint``/``checkpoint_seconds`` from ``--checkpoint``/``--checkpoint-seconds``."""
    if not args.checkpoint:
        return {"checkpoint": None}
    return {"checkpoint": _json_checkpoint(Path(out)), "checkpoint_seconds": args.checkpoint_seconds}


def _json_checkpoint(out: Path):
    """Save each partial result over ``out`` as JSON (atomically); a failed write is reported once, the job goes on."""
    from .files import atomic_write

    return _checkpoint_writer(out, lambda result: atomic_write(out, _json_text(result.to_dict()).encode("utf-8")))


def _cmd_exploit(args) -> int:
    from .errors import OptionError
    from .exploitability import exploit
    from .simulation import numba_threads

    saved, out = _resumed_job(args, "exploit")
    state = saved["state"] if saved else {}
    strategy = args.strategy or (saved or {}).get("strategy")
    if not strategy:
        raise OptionError("give the STRATEGY to study (or --resume FILE.json)")
    saved_counts = state.get("sample_counts")
    saved_trend = isinstance(saved_counts, list) and len(saved_counts) == 3
    with numba_threads(args.jobs):
        result = exploit(strategy, rules=_rules_of(args, state),
                         hands=_given(args.hands, saved, _requested(saved, "hands"), 2000),
                         samples=_given(args.samples, saved, "samples", 2000), seed=args.seed, tables=args.tables,
                         trend=args.trend if args.trend is not None else saved_trend, progress=_show_progress(args),
                         backend=args.backend, scheduler=args.scheduler, resume=saved, **_checkpointing(args, out))
    status = _save_and_print_json(args, result, out)
    if status is not None:
        return status
    status = _partial_status(result.partial, f"{result.hands} of {result.requested_hands} hands", out, "exploit")
    low, high = result.interval
    print(f"best response against '{result.strategy}' under {result.rules.name}: {result.hands} hands, "
          f"{result.samples} samples to choose and {result.samples} fresh samples to score each, "
          f"seed {result.seed}{_resumed_after(saved, 'hands')}{status}")
    print(f"gain {result.gain:+.4f} points per hand, 95% interval [{low:+.4f}, {high:+.4f}]; the choices differ "
          f"in value on {_percent(result.differ).strip()} of hands")
    print("a lower bound: a solver with more samples can only find more"
          + ("" if result.trend else " (--trend shows how it grows with the samples)"))
    for samples, (gain, (trend_low, trend_high)) in sorted(result.trend.items()):
        print(f"  with {samples} samples: {gain:+.4f}  [{trend_low:+.4f}, {trend_high:+.4f}]")
    if result.trend:
        print(f"  with {result.samples} samples: {result.gain:+.4f}  [{low:+.4f}, {high:+.4f}]")
    print("gain per hand:")
    peak = max(n for _, _, n in result.histogram) or 1
    for bin_low, bin_high, count in result.histogram:
        low_text, high_text = ("0" if x == 0 else f"{x:+g}" for x in (bin_low, bin_high))
        label = ("0 (same value)" if bin_low == bin_high else f"below {high_text}" if math.isinf(bin_low) else
                 f"above {low_text}" if math.isinf(bin_high) else f"{low_text} to {high_text}")
        print(f"  {label:>16} | {'█' * round(30 * count / peak):<30} {count}")
    print("mean gain by the strategy's back row (most exploitable first):")
    for kind, (count, gain) in list(result.by_kind.items())[:8]:
        print(f"  {kind:<18}{count:>7} hands  {gain:+.4f}")
    return PARTIAL if result.partial else 0


def _cmd_odds(args) -> int:
    from .odds import hand_odds, odds_table

    entries = (hand_odds(" ".join(args.hand), args.row, tables=args.tables, rules=args.rules) if args.hand
               else odds_table(args.row, tables=args.tables, rules=args.rules))
    rows = [entry.to_dict() for entry in entries]
    if args.json:
        _print_json(rows)
    elif args.csv:
        import csv

        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    else:
        print("odds against a table-policy opponent's same row (kicker ranges: weakest to strongest)")
        print(f"  {'row':<8}{'hand':<46}{'win':>15}{'tie':>15}{'loss':>15}")

        def span(pair):
            return _percent(pair[0]).strip() if abs(pair[0] - pair[1]) < 5e-4 else \
                f"{_percent(pair[0]).strip()}-{_percent(pair[1]).strip()}"

        for entry in entries:
            print(f"  {entry.row:<8}{entry.hand:<46}{span(entry.win):>15}{span(entry.tie):>15}{span(entry.loss):>15}")
    return 0


# --- tables -----------------------------------------------------------------------------------

def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _shipped_tables_path(rules) -> "Path | None":
    """The shipped tables file of ``rules`` (a preset), or ``None`` for other rules."""
    from .policy import shipped_tables_path
    from .rules import PRESETS

    return shipped_tables_path(rules.name) if rules.name in PRESETS else None


def _cmd_tables(args) -> int:
    from .errors import OptionError
    from .files import check_writable
    from .selfplay import DEFAULT_BUILD, build_tables, self_play_ended
    from .policy import PolicyTables, tables_file
    from .rules import resolve_rules

    rules = resolve_rules(args.rules)
    if args.tables_command == "info":
        path = Path(args.file) if args.file else _shipped_tables_path(rules)
        if path is None:
            raise OptionError(f"no tables are shipped for the rules {rules.name!r}; give a tables FILE")
        tables = PolicyTables.load(path)
        info = {"path": str(path), "sha256": _sha256(path), "rules": tables.rules.to_dict(), "hands": tables.hands,
                "seed": tables.seed, "iterations": tables.iterations, "partial": tables.partial,
                "resumable": tables.previous_distribution is not None, "history": list(tables.history),
                "card_removal": tables.removal is not None, "removal_rounds": list(tables.removal_rounds),
                "joint_rows": tables.joint is not None}
        if args.json:
            _print_json(info)
        else:
            unfinished = (f" (unfinished: 'cpoker tables build --resume {path}' continues it)" if info["resumable"]
                          else " (partial)" if tables.partial else "")
            removal = "with" if tables.removal is not None else "without"
            joint = "; with a joint model of the opponent's rows" if tables.joint is not None else ""
            print(f"{path}\nsha256 {info['sha256']}\nrules {tables.rules.name}: self-play on {tables.hands} hands, "
                  f"seed {tables.seed}, {tables.iterations} iterations{unfinished}; {removal} a card-removal "
                  f"correction{joint}")
            for step in tables.history:
                print(f"  iteration {step['iteration']:3d}: {100 * step['changed']:6.2f}% of hands changed "
                      f"arrangement, row values moved {step['values_moved']:.4f}")
            for step in tables.removal_rounds:
                print(f"  with card removal, round {step['round']:3d}: {100 * step['changed']:6.2f}% of hands "
                      "changed arrangement")
        return 0
    show_progress = not args.quiet and sys.stderr.isatty()
    resume = PolicyTables.load(args.resume) if args.resume else None  # checked against the options by build_tables
    if resume is not None:
        default_out = args.resume  # the unfinished build's file becomes the finished one's
    else:
        default_out = tables_file(rules.name) if _shipped_tables_path(rules) else "policy_tables_custom.npz"
    out = check_writable(args.out or default_out)  # before minutes of self-play, not after
    tables = build_tables(hands=args.hands, seed=args.seed, max_iterations=args.max_iterations,
                          tolerance=args.tolerance, progress=show_progress, device=args.device,
                          backend=args.backend, scheduler=args.scheduler, rules=args.rules, resume=resume,
                          checkpoint=_checkpoint_writer(out) if args.checkpoint else None,
                          removal_deals=args.removal_deals, removal_rounds=args.removal_rounds)
    rules = tables.rules
    try:
        tables.save(out)
    except OptionError as error:  # checked before the build, failed after it (a full disk): save them elsewhere
        import tempfile

        rescue = Path(tempfile.gettempdir()) / f"cpoker-tables-{os.getpid()}.npz"
        try:
            tables.save(rescue)
            _unwritten(f"{error}; the tables were saved to {rescue} instead")
        except OptionError:
            _unwritten(f"{error}; nor could the tables be saved to {rescue}: they are lost")
        return 1
    digest = _sha256(out)
    shipped = _shipped_tables_path(rules)
    same = shipped is not None and shipped.exists() and _sha256(shipped) == digest
    last = tables.history[-1]
    if args.json:
        _print_json({"out": str(out), "sha256": digest, "identical_to_shipped": same, "rules": rules.to_dict(),
                     "hands": tables.hands, "seed": tables.seed, "iterations": tables.iterations,
                     "resumed_after": resume.iterations if resume else None, "partial": tables.partial,
                     "history": list(tables.history), "card_removal": tables.removal is not None,
                     "removal_rounds": list(tables.removal_rounds), "joint_rows": tables.joint is not None})
    else:
        # stopped after the last iteration of the self-play: in the rounds with the card-removal correction
        asked = tables.build or DEFAULT_BUILD  # (a partial build's tables record what it was asked for)
        done = self_play_ended(tables.history, asked["max_iterations"], asked["tolerance"])
        stopped = "the rounds with the card-removal correction" if done else f"iteration {tables.iterations + 1}"
        status = (f" (PARTIAL: stopped during {stopped}; the file holds the tables of "
                  f"iteration {tables.iterations}; 'cpoker tables build --resume {out}' continues it)"
                  if tables.partial else "")
        if tables.removal_rounds:
            status += (f"; then {len(tables.removal_rounds)} rounds with the card-removal correction (last: "
                       f"{100 * tables.removal_rounds[-1]['changed']:.2f}% changed)")
        resumed = f", resumed after iteration {resume.iterations}" if resume else ""
        print(f"wrote {out} ({rules.name} rules) after {tables.iterations} iterations on {tables.hands} hands, "
              f"seed {tables.seed}{resumed} "
              f"(last: {100 * last['changed']:.2f}% of hands changed, values moved {last['values_moved']:.4f})"
              + status)
        print(f"sha256 {digest}" + ("  (identical to the shipped tables)" if same else ""))
    return PARTIAL if tables.partial else 0


def _checkpoint_writer(out: Path, write=None):
    """Save each checkpoint over ``out`` (atomically); a failed write is reported once and the job goes on.

    ``write(item)`` saves one (default: ``item.save(out)``, for tables).
    """
    failed: list = []

    def save(item) -> None:
        if failed:
            return
        try:
            write(item) if write is not None else item.save(out)
        except (OSError, CpokerError) as error:  # saving raises OptionError("cannot write ...: reason")
            failed.append(error)
            reason = error.strerror if isinstance(error, OSError) else str(error).rpartition(": ")[2]
            print(f"cpoker: warning: cannot write the checkpoint {out} ({reason or error}); "
                  "the job goes on without checkpoints", file=sys.stderr)

    return save


# --- serve ------------------------------------------------------------------------------------

def _cmd_serve(args) -> int:
    """Run the web page and API until Ctrl-C (see :mod:`cpoker.web.app`)."""
    from .errors import OptionError

    try:
        import uvicorn

        from .web.app import create_app, warm_up
    except ImportError as error:
        raise OptionError(f"cpoker serve needs the web extra: pip install 'cpoker[web]' ({error})") from None
    check_kernel_environment()  # before numba is loaded (as cpoker._jit does)
    import numba

    workers = None
    numba.config.THREADING_LAYER = "threadsafe"  # solves run side by side on server threads
    print("cpoker: compiling kernels and loading tables...", file=sys.stderr, flush=True)
    try:
        warm_up()
    except ValueError:  # no thread-safe threading layer (TBB or OpenMP) here: one solve at a time
        numba.config.THREADING_LAYER = "default"
        workers = 1
        warm_up()
    signum = interrupts.consume()
    if signum is not None:  # Ctrl-C while it warmed up: no server (it used to say "ready", then stop)
        raise Interrupted(signum)
    import socket

    try:  # listen first, so that "ready" is true the moment it is printed
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((args.host, args.port))
        listener.listen(128)
    except (OSError, OverflowError) as error:
        raise OptionError(f"cannot serve on {args.host}:{args.port}: {getattr(error, 'strerror', None) or error}") \
            from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"cpoker: warning: serving on {args.host}, reachable from other machines; the default "
              "127.0.0.1 serves this machine only", file=sys.stderr, flush=True)
    url = f"http://{'localhost' if args.host in ('127.0.0.1', '::1') else args.host}:{args.port}/"
    print(f"cpoker: ready at {url} (Ctrl-C to stop)", file=sys.stderr, flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    server = _server_class()(uvicorn.Config(create_app(workers=workers), log_level="warning"))
    server.run(sockets=[listener])
    return 0


def _server_class():
    """uvicorn's ``Server``, taking over a signal that came before its own handlers were installed."""
    import uvicorn

    class Server(uvicorn.Server):
        """A Ctrl-C between "ready" and uvicorn's handlers (its loop starting, tens of milliseconds) was held
        by cpoker's shield, which uvicorn then replaced: the server ran on, the signal ignored."""

        @contextlib.contextmanager
        def capture_signals(self):
            with super().capture_signals():
                if interrupts.consume() is not None:  # shut down as uvicorn does for its own signal
                    self.should_exit = True
                yield

    return Server


def _cmd_compile(args) -> int:
    """Compile every kernel into numba's cache, a line on stderr per job as it ends (see :mod:`cpoker.precompile`)."""
    from .precompile import compile_kernels

    def report(job: str, seconds: float, compiled: int) -> None:
        if not args.quiet:
            print(f"cpoker: {job}: {_kernels(compiled)} compiled, {seconds:.1f} s", file=sys.stderr, flush=True)

    done = compile_kernels(rules=args.rules or None, device=args.device, report=report)
    if args.json:
        _print_json({"compiled": done.compiled, "seconds": round(done.seconds, 3), "cache_dir": done.cache_dir,
                     "device": args.device,
                     "jobs": [{"job": job, "seconds": round(seconds, 3), "compiled": compiled}
                              for job, seconds, compiled in done.steps]})
        return 0
    where = (f"cached in {done.cache_dir}" if done.cache_dir is not None
             else "not cached: no writable cache directory (set NUMBA_CACHE_DIR)")
    print(f"{_kernels(done.compiled)} compiled in {done.seconds:.1f} s, the others loaded from the cache; {where}")
    return 0


def _kernels(count: int) -> str:
    return f"{count:,} kernel{'' if count == 1 else 's'}"


# --- parser -----------------------------------------------------------------------------------

def make_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cpoker`` command."""
    from .limits import (MAX_DEALS, MAX_ITERATIONS, MAX_REMOVAL_DEALS, MAX_REMOVAL_ROUNDS, MAX_SAMPLES, MAX_SEED,
                         MAX_SESSIONS, MAX_TABLE_HANDS)
    from .selfplay import DEFAULT_BUILD

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
    sub.set_defaults(run=_cmd_eval)

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
    sub.set_defaults(run=_cmd_score)

    sub = command("natural", "find the naturals of a 13-card hand (dragon, six pairs, three flushes...)",
                  'cpoker natural "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s" --rules seed001-royalties')
    sub.add_argument("hand", nargs="+", help="13 cards")
    sub.add_argument("--rules", default=None, help="rules whose naturals count (preset name or .toml file)")
    sub.set_defaults(run=_cmd_natural)

    sub = command("deal", "deal 13 random cards to each player", "cpoker deal --players 4 --seed 1")
    sub.add_argument("--players", type=_int_in(2, 4), default=4, help="2 to 4 (default 4)")
    _seed_option(sub)
    sub.set_defaults(run=_cmd_deal)

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
    sub.set_defaults(run=_cmd_solve)

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
    sub.set_defaults(run=_cmd_simulate)

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
    sub.set_defaults(run=_cmd_match)

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
    sub.set_defaults(run=_cmd_exploit)

    sub = command("odds", "how often a row wins, ties or loses against a table-policy opponent",
                  'cpoker odds --row front --hand "6s 6h 2d"')
    sub.add_argument("--row", choices=("front", "middle", "back"), help="only this row")
    sub.add_argument("--hand", nargs="+", help="one 3- or 5-card row to look up")
    sub.add_argument("--csv", action="store_true", help="CSV output")
    sub.add_argument("--rules", default=None, help=RULES_HELP + "; the opponent plays their tables")
    _tables_option(sub)
    sub.set_defaults(run=_cmd_odds)

    sub = command("compile", "compile every kernel ahead of the first command (after installing, in a container "
                             "image, on a cluster's nodes)",
                  "cpoker compile\n         cpoker compile --rules pagat --rules house.toml")
    sub.add_argument("--rules", action="append", default=None,
                     help="compile for these rules only (repeatable; default: every preset)")
    sub.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                     help="cuda: the GPU's kernels too (they are cached as well); cpu by default")
    sub.add_argument("--quiet", action="store_true", help="no line per job on stderr")
    sub.set_defaults(run=_cmd_compile)

    sub = commands.add_parser("serve", help="a local web page to solve hands and to train, with a JSON API",
                              description="a local web page to solve hands and to train, with a JSON API "
                                          "(its schema at /openapi.json)",
                              epilog="example: cpoker serve --port 8000 --open")
    sub.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    sub.add_argument("--port", type=_int_in(1, 65535), default=8000, help="port (default 8000)")
    sub.add_argument("--open", action="store_true", help="open the page in a browser")
    sub.set_defaults(run=_cmd_serve)

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
    sub.set_defaults(run=_cmd_tables)
    return parser


def _run_command(argv: Optional[Sequence[str]]) -> "tuple[int, str]":
    """Parse ``argv`` and run the command; returns its status and what it printed."""
    from . import _notice

    parser = make_parser()
    args = parser.parse_args(argv)
    if getattr(args, "command", None) == "match":
        args.strategies = list(args.strategies) + list(args.extra_strategies)
    if getattr(args, "run", None) is None:
        return EXIT_USAGE, parser.format_help()
    _notice.NOTICE["enabled"] = sys.stderr.isatty()
    output = io.StringIO()
    _UNWRITTEN.clear()
    with contextlib.redirect_stdout(output):  # printed once the command is done, or not at all
        status = args.run(args)
    return ((status or 1) if _UNWRITTEN else status), output.getvalue()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``cpoker`` command; returns the exit status (see the module docstring)."""
    from . import interrupts
    from .interrupts import shielded

    try:
        with shielded(hard_exit=True) as shield:
            status, text = _run_command(argv)
            # the command has its result (complete, or partial for a signal its job acted on): a signal since
            # then only sets the exit status -- the result, and any file it wrote, are reported as usual
            interrupts.consume()
        # leaving the block restored the handlers, or raised Interrupted for a signal that came before any result
    except CpokerError as error:
        return _fail(str(error))
    except (InstallationError, DeviceError) as error:  # not the user's input: status 1
        _fail(str(error))
        return 1
    except MemoryError as error:  # this machine's memory, not the user's input: status 1
        _fail(str(error) if isinstance(error, MemoryLimitError) else out_of_memory(error, _memory_advice()))
        return 1
    except Interrupted as stop:
        print("cpoker: interrupted", file=sys.stderr)
        return 128 + stop.signum
    signum = shield.first if shield is not None else None
    if sys.stdout is None:  # started with its standard output closed (`>&-`): Python then has none
        _fail("cannot write the result: standard output is closed")
        return 1
    try:
        try:
            sys.stdout.write(text)
        except UnicodeEncodeError:  # a terminal or pipe that is not UTF-8 (cp1252, PYTHONIOENCODING=ascii...)
            sys.stdout.write(_encodable(text, sys.stdout.encoding or "ascii"))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader is gone (`| head -1`): what it read was all it wanted
        _drop_stdout()
        return 0
    except OSError as error:  # a full disk or an I/O error under `> FILE`: the result is not all there
        _drop_stdout()
        _fail(f"cannot write the result to standard output: {error.strerror or error}")
        return 1
    if status == PARTIAL or signum is not None:
        return 128 + (signum or 2)
    return status


def _drop_stdout() -> None:
    """Point standard output at the null device: what is still buffered would fail again, with a traceback, when
    the interpreter flushes it on exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # (no file descriptor: nothing will be flushed to one)
        pass


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
