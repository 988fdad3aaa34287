"""Long jobs: ``simulate``, ``match`` and ``exploit``, with their ``--out`` files, checkpoints and resumes."""

from __future__ import annotations

import io
import json
import math
import sys
from pathlib import Path
from typing import Any, Optional

from cpoker.system.errors import CpokerError
from cpoker.cli.common import fixed, PARTIAL, percent, played, print_bot_faults, print_json, show_progress, unwritten
from cpoker.system.limits import MAX_DEALS, MAX_SAMPLES, MAX_SESSIONS
from cpoker.cli.options import (OPPONENT_HELP, STRATEGY_HELP, backend_options, bot_options, command, int_in,
                                playing_job_options, positive_seconds, resume_options, seed_option, silence_option,
                                job_options, with_bot_options)


OUT_SUFFIXES = (".json", ".csv")  # what --out writes; cpoker review writes Parquet too


def check_out(path: Optional[str], suffixes: tuple = OUT_SUFFIXES) -> None:
    """Refuse a bad ``--out`` before a long job, not after it (Parquet without pyarrow included)."""
    from cpoker.system.errors import OptionError
    from cpoker.system.files import check_writable

    if path is None:
        return
    suffix = Path(path).suffix.lower()
    if suffix not in suffixes:
        listed = ", ".join(suffixes[:-1]) + " or " + suffixes[-1]
        raise OptionError(f"--out must end in {listed}, got {path!r}")
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise OptionError("--out FILE.parquet needs pyarrow: pip install 'cpoker[parquet]' "
                              "(or write .csv or .json)") from None
    check_writable(path)


def write_out(path: str, data: dict, rows: list[dict]) -> None:
    """Save results atomically: ``.json`` gets ``data``; ``.csv`` and ``.parquet`` get ``rows`` (one dict per
    line).

    The path was checked by :func:`check_out` before the job started.
    """
    import csv

    from cpoker.system.errors import OptionError
    from cpoker.system.files import atomic_write

    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        data_bytes = json_text(data).encode("utf-8")
    elif suffix == ".parquet":
        import pyarrow
        import pyarrow.parquet

        sink = pyarrow.BufferOutputStream()
        pyarrow.parquet.write_table(pyarrow.Table.from_pylist(rows), sink)
        data_bytes = sink.getvalue().to_pybytes()
    else:
        buffer = io.StringIO(newline="")
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        data_bytes = buffer.getvalue().encode("utf-8")
    try:
        atomic_write(path, data_bytes)
    except OptionError as error:  # checked before the job, failed after it (a full disk): keep the result
        unwritten(f"{error}; the result is printed instead")


def json_text(data: dict) -> str:
    """A result as the JSON text of an ``--out FILE.json``: strict JSON (NaN and the infinities are ``null``)."""
    from cpoker.run.stats import strict_json_data

    return json.dumps(strict_json_data(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _flatten(data, prefix: str = "") -> list[dict]:
    rows = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows.extend(_flatten(value, name + "."))
        else:
            rows.append({"field": name, "value": json.dumps(value) if isinstance(value, list) else value})
    return rows


def _histogram(distribution: dict, width: int = 40) -> list[str]:
    total = sum(distribution.values())
    peak = max(distribution.values())
    lines = []
    for points in range(min(distribution), max(distribution) + 1):
        count = distribution.get(points, 0)
        bar = "█" * round(width * count / peak)
        lines.append(f"  {points:+3d} | {bar:<{width}} {fixed(100 * count / total, '5.1f')}%")
    return lines


def _save_and_print_json(args, result, out: Optional[str] = None) -> Optional[int]:
    """Write ``out`` (default ``--out``: all of ``result.to_dict()``) and, with ``--json``, print it; then return
    the exit status."""
    data = result.to_dict()
    out = out or args.out
    if out:
        write_out(out, data, _flatten(data))
    if args.json:
        print_json(data)
        return PARTIAL if result.partial else 0
    return None


def cmd_simulate(args) -> int:
    from cpoker.system.errors import OptionError
    from cpoker.jobs.simulate import simulate

    saved, out = resumed_job(args, "simulate")
    state = saved["state"] if saved else {}
    arrangement = args.arrangement
    if arrangement is None:
        if not saved:
            raise OptionError('give the arrangement to simulate, "FRONT / MIDDLE / BACK" (or --resume FILE.json)')
        rows = saved.get("arrangement")
        arrangement = " / ".join(str(rows.get(row)) for row in ("front", "middle", "back")) \
            if isinstance(rows, dict) else str(rows)
    opponent = with_bot_options(args, given(args.opponent, state, "opponent", "table"))
    result = played(simulate, arrangement, opponents=given(args.opponents, saved, "opponents", 1),
                      samples=given(args.samples, saved, "requested_samples", 10_000), seed=args.seed,
                      opponent=opponent, rules=rules_of(args, saved),
                      jobs=args.jobs, progress=show_progress(args), tables=args.tables, device=args.device,
                      backend=args.backend, scheduler=args.scheduler, resume=saved, **checkpointing(args, out))
    exit_code = _save_and_print_json(args, result, out)
    if exit_code is not None:
        return exit_code
    arrangement = result.arrangement
    print(f"arrangement: {arrangement.format(symbols=args.symbols)}")
    if result.fouled:
        print(f"FOUL: {arrangement.foul_reason}")
        print(f"exact value: {fixed(result.ev, '+.0f')} points per deal ("
              f"{result.opponents} opponent(s) each win every row)")
        return 0
    status = partial_status(result.partial, f"{result.samples} of {result.requested_samples} samples", out,
                             "simulate")
    low, high = result.interval
    print(f"EV {fixed(result.ev, '+.4f')} points per deal, 95% interval [{fixed(low, '+.4f')}, "
          f"{fixed(high, '+.4f')}], against "
          f"{result.opponents} '{result.opponent_model}' opponent(s), {result.samples} samples, "
          f"seed {result.seed}{resumed_after(saved, 'samples')}{status}")
    print(f"  {'row':<8}{'hand':<46}{'win':>7}{'tie':>7}{'loss':>7}")
    for name, value in zip(("front", "middle", "back"), arrangement.values):
        p = result.rows[name]
        print(f"  {name:<8}{value.describe():<46}{percent(p['win']):>7}{percent(p['tie']):>7}"
              f"{percent(p['loss']):>7}")
    print(f"all three rows won against an opponent: {percent(result.scoop).strip()}; "
          f"all three lost: {percent(result.scooped).strip()}")
    print_bot_faults([result.opponent_model], [result.bot_faults])
    print("net points per deal:")
    print("\n".join(_histogram(result.distribution)))
    return PARTIAL if result.partial else 0


def cmd_match(args) -> int:
    from cpoker.jobs.simulate import match

    saved, out = resumed_job(args, "match")
    state = saved["state"] if saved else {}
    strategies = [with_bot_options(args, strategy) for strategy in args.strategies or state.get("strategies", [])]
    result = played(match, strategies, deals=given(args.deals, saved, "requested_deals", 10_000), seed=args.seed,
                   sessions=given(args.sessions, state, "requested_sessions", 0), rules=rules_of(args, saved),
                   jobs=args.jobs, progress=show_progress(args), tables=args.tables, device=args.device,
                   backend=args.backend, scheduler=args.scheduler, resume=saved, **checkpointing(args, out))
    data = result.to_dict()
    if out:
        common = {k: data[k] for k in ("version", "format", "deals", "sessions", "seed", "partial")}
        common["strategies"] = " ".join(result.strategies)
        common["rules"] = result.rules.name
        rows = [{**common, **score, "interval_95": json.dumps(score["interval_95"])} for score in data["scores"]]
        write_out(out, data, rows)
    if args.json:
        print_json(data)
        return PARTIAL if result.partial else 0
    status = partial_status(result.partial, f"{result.deals} of {result.requested_deals} deals", out, "match")
    print(f"{' vs '.join(result.strategies)}: {result.format} format, {result.deals} deals, seed {result.seed}"
          f"{resumed_after(saved, 'deals')}{status}")
    header = f"  {'strategy':<28}{'points/deal':>12}   {'95% interval':<21}"
    surrender = result.rules.surrender is not None
    if surrender:
        header += f"{'surrenders':>12}"
    if result.sessions:
        header += f"{'first place':>12}{'mean place':>12}"
    print(header)
    for score in result.scores:
        line = (f"  {score.name:<28}{fixed(score.points, '>+12.4f')}   [{fixed(score.interval[0], '+.4f')}, "
                f"{fixed(score.interval[1], '+.4f')}]")
        if surrender:
            line += f"{percent(score.surrender_rate):>12}"
        if result.sessions:
            line += f"{percent(score.first_places):>12}{fixed(score.mean_place, '>12.2f')}"
        print(line)
    if surrender:
        print(f"(surrenders: the share of its hands each strategy gave up, paying {result.rules.surrender} to each "
              "player who played)")
    if result.sessions:
        print(f"({result.sessions} sessions of 8 deals; tied players share a place)")
    print_bot_faults(result.strategies, result.bot_faults)
    return PARTIAL if result.partial else 0


def cmd_tournament(args) -> int:
    from cpoker.jobs.tournament import tournament

    saved, out = resumed_job(args, "tournament")
    state = saved["state"] if saved else {}
    strategies = [with_bot_options(args, strategy) for strategy in args.strategies or state.get("strategies", [])]
    result = played(tournament, strategies, deals=given(args.deals, saved, "requested_deals", 10_000),
                    seed=args.seed, rules=rules_of(args, saved), jobs=args.jobs, progress=show_progress(args),
                    tables=args.tables, device=args.device, backend=args.backend, scheduler=args.scheduler,
                    resume=saved, **checkpointing(args, out))
    data = result.to_dict()
    if out:
        common = {k: data[k] for k in ("version", "format", "deals", "seed", "partial")}
        common["rules"] = result.rules.name
        rows = [{**common, "strategy": a, "opponent": b, "points_per_deal": result.points[i, j],
                 "interval_95": json.dumps(list(result.intervals[i, j]))}
                for i, a in enumerate(result.strategies) for j, b in enumerate(result.strategies) if i != j]
        write_out(out, data, rows)
    if args.json:
        print_json(data)
        return PARTIAL if result.partial else 0
    status = partial_status(result.partial, f"{result.deals} of {result.requested_deals} deals", out, "tournament")
    n = len(result.strategies)
    print(f"tournament of {n} strategies: every pair in duplicate format on the same {result.deals} deals, "
          f"seed {result.seed}, rules {result.rules.name}{resumed_after(saved, 'deals')}{status}")
    for i, name in enumerate(result.strategies, 1):
        print(f"  ({i}) {name}")
    print("points per deal of the row's strategy against the column's, with the 95% interval's half-width:")
    width = 17
    print(f"  {'':<4}" + "".join(f"{f'({j})':>{width}}" for j in range(1, n + 1)))
    half = (result.intervals[..., 1] - result.intervals[..., 0]) / 2
    for i in range(n):
        cells = "".join(f"{'.':>{width}}" if i == j
                        else f"{fixed(result.points[i, j], '>+9.4f')} ±"
                             f"{fixed(half[i, j], '<6.4f')}".rjust(width) for j in range(n))
        print(f"  {f'({i + 1})':<4}{cells}")
    print("ranking by the mean against the field (points per deal, 95% interval):")
    number = {name: i for i, name in enumerate(result.strategies, 1)}
    for place, (name, mean, (low, high)) in enumerate(result.ranking, 1):
        print(f"  {place:>2}. ({number[name]}) {name:<40}{fixed(mean, '>+9.4f')}   [{fixed(low, '+.4f')}, "
              f"{fixed(high, '+.4f')}]")
    print_bot_faults(result.strategies, result.bot_faults)
    return PARTIAL if result.partial else 0


def cmd_bot_check(args) -> int:
    from cpoker.strategies.bots import Bot, check_bot
    from cpoker.strategies.ofc.bot import check_ofc_bot

    bot = Bot(args.bot, timeout=args.bot_timeout, silence=args.bot_silence)
    checks = check_bot(bot, seed=args.seed) if args.game == "closed" else check_ofc_bot(bot, args.game, args.seed)
    if args.json:
        print_json({"bot": args.bot, "game": args.game, "passed": all(c.passed for c in checks),
                    "checks": [c._asdict() for c in checks]})
    else:
        print(f"bot {args.bot}: protocol 1 conformance ({args.game} game)")
        for check in checks:
            print(f"  {'PASS' if check.passed else 'FAIL'}  {check.name}: {check.detail}")
        failed = sum(not c.passed for c in checks)
        print("all checks passed" if not failed else f"{failed} of {len(checks)} checks failed (docs/bots.md)")
    return 0 if all(c.passed for c in checks) else 1


def resumed_job(args, kind: str, suffixes: tuple = OUT_SUFFIXES) -> "tuple[Optional[dict], Optional[str]]":
    """``(saved result or None, output path)`` of a ``match``/``simulate``/``exploit``/``tournament``/``review``
    command, checked first (``--out`` must end in one of ``suffixes``).

    With ``--resume FILE`` the saved result is read (and checked further by the
    job), and the result goes to FILE unless ``--out`` says otherwise;
    ``--checkpoint`` needs a JSON output.
    """
    from cpoker.system.errors import OptionError
    from cpoker.system.files import read_json

    noun = {"match": "match", "simulate": "simulation", "exploit": "exploit run", "tournament": "tournament",
            "review": "review", "ofc-match": "open-face match",
            "ofc-review": "open-face review"}[kind]
    saved: Any = None
    if args.resume:
        saved = read_json(args.resume, f"saved {noun}")
        if not isinstance(saved, dict) or saved.get("kind") != kind or not isinstance(saved.get("state"), dict):
            article = "an" if noun[:1] in "aeiou" else "a"
            raise OptionError(f"{args.resume} is not {article} {noun} result that can be resumed "
                              f"(cpoker {kind.replace('-', ' ')} --out FILE.json writes one)")
    out = args.out or args.resume  # a resumed job's file becomes the continued one's
    if args.checkpoint and not (out and Path(out).suffix.lower() == ".json"):
        raise OptionError(f"--checkpoint saves the {noun} so far to its --out FILE.json; give one")
    check_out(out, suffixes)
    return saved, out


def rules_of(args, saved: Optional[dict]):
    """``--rules`` as given, else a resumed job's rules (``saved``: a result, or the state holding its rules)."""
    from cpoker.game.rules import Rules

    if args.rules is not None or not saved:
        return args.rules
    return Rules.from_dict(saved.get("rules"), f"rules in {args.resume}")


def partial_status(partial: bool, done: str, out: Optional[str], kind: str) -> str:
    """The note after a partial result: how far it got, and the command that continues it when it was saved."""
    if not partial:
        return ""
    resumable = out and Path(out).suffix.lower() == ".json"
    return f"  (PARTIAL: stopped after {done}" + (f"; 'cpoker {kind} --resume {out}' continues it)" if resumable
                                                  else ")")


def resumed_after(saved: Optional[dict], unit: str) -> str:
    if not saved:
        return ""
    done = saved.get(unit)  # the saved result's deals, samples or hands
    return f", resumed after {done} {unit}" if isinstance(done, int) else ", resumed"


def given(value, saved: "dict | None", key: str, default):
    """An option's value: as given, else the saved run's (a resumed run keeps its size), else the default."""
    if value is not None:
        return value
    return saved.get(key, default) if saved else default


def _requested(saved: "dict | None", unit: str) -> str:
    """The key of a saved result's requested size: ``requested_<unit>``, or ``<unit>`` in a file that has none
    (an exploit run saved by an earlier cpoker recorded only the hands it had done)."""
    return f"requested_{unit}" if saved and f"requested_{unit}" in saved else unit


def checkpointing(args, out: Optional[str]) -> dict:
    """A job's ``checkpoint``/``checkpoint_seconds`` from ``--checkpoint``/``--checkpoint-seconds``."""
    if not args.checkpoint:
        return {"checkpoint": None}
    assert out is not None  # (--checkpoint without a JSON output is refused by saved_and_out)
    return {"checkpoint": json_checkpoint(Path(out)), "checkpoint_seconds": args.checkpoint_seconds}


def json_checkpoint(out: Path):
    """Save each partial result over ``out`` as JSON (atomically); a failed write is reported once, the job goes on."""
    from cpoker.system.files import atomic_write

    return checkpoint_writer(out, lambda result: atomic_write(out, json_text(result.to_dict()).encode("utf-8")))


def cmd_exploit(args) -> int:
    from cpoker.system.errors import OptionError
    from cpoker.jobs.exploit import exploit
    from cpoker.jobs.job import numba_threads

    saved, out = resumed_job(args, "exploit")
    state = saved["state"] if saved else {}
    strategy = args.strategy or (saved or {}).get("strategy")
    if not strategy:
        raise OptionError("give the STRATEGY to exploit (or --resume FILE.json)")
    saved_counts = state.get("sample_counts")
    saved_trend = isinstance(saved_counts, list) and len(saved_counts) == 3
    with numba_threads(args.jobs):
        result = played(exploit, with_bot_options(args, strategy), rules=rules_of(args, state),
                         hands=given(args.hands, saved, _requested(saved, "hands"), 2000),
                         samples=given(args.samples, saved, "samples", 2000), seed=args.seed, tables=args.tables,
                         trend=args.trend if args.trend is not None else saved_trend, progress=show_progress(args),
                         backend=args.backend, scheduler=args.scheduler, resume=saved, **checkpointing(args, out))
    exit_code = _save_and_print_json(args, result, out)
    if exit_code is not None:
        return exit_code
    status = partial_status(result.partial, f"{result.hands} of {result.requested_hands} hands", out, "exploit")
    low, high = result.interval
    print(f"best response against '{result.strategy}' under {result.rules.name}: {result.hands} hands, "
          f"{result.samples} samples to choose and {result.samples} fresh samples to score each, "
          f"seed {result.seed}{resumed_after(saved, 'hands')}{status}")
    print(f"gain {fixed(result.gain, '+.4f')} points per hand, 95% interval [{fixed(low, '+.4f')}, "
          f"{fixed(high, '+.4f')}]; the choices differ "
          f"in value on {percent(result.differ).strip()} of hands")
    print("a lower bound: a solver with more samples can only find more"
          + ("" if result.trend else " (--trend shows how it grows with the samples)"))
    for samples, (gain, (trend_low, trend_high)) in sorted(result.trend.items()):
        print(f"  with {samples} samples: {fixed(gain, '+.4f')}  [{fixed(trend_low, '+.4f')}, "
              f"{fixed(trend_high, '+.4f')}]")
    if result.trend:
        print(f"  with {result.samples} samples: {fixed(result.gain, '+.4f')}  [{fixed(low, '+.4f')}, "
              f"{fixed(high, '+.4f')}]")
    print("gain per hand:")
    peak = max(n for _, _, n in result.histogram) or 1
    for bin_low, bin_high, count in result.histogram:
        low_text, high_text = ("0" if x == 0 else f"{x:+g}" for x in (bin_low, bin_high))
        label = ("0 (same value)" if bin_low == bin_high else f"below {high_text}" if math.isinf(bin_low) else
                 f"above {low_text}" if math.isinf(bin_high) else f"{low_text} to {high_text}")
        print(f"  {label:>16} | {'█' * round(30 * count / peak):<30} {count}")
    print("mean gain by the strategy's back row (most exploitable first):")
    for kind, (count, gain) in list(result.by_kind.items())[:8]:
        print(f"  {kind:<18}{count:>7} hands  {fixed(gain, '+.4f')}")
    print_bot_faults([result.strategy], [result.bot_faults])
    return PARTIAL if result.partial else 0


def checkpoint_writer(out: Path, write=None):
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


def add_simulate(commands) -> None:
    """The ``simulate`` command's parser."""
    sub = command(commands, "simulate", "equity of one arrangement against random opponents",
                  'cpoker simulate "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac" --opponents 3 --samples 20000')
    sub.add_argument("arrangement", nargs="?", default=None, help='"FRONT / MIDDLE / BACK"')
    sub.add_argument("--opponents", type=int_in(1, 3), default=None, help="1 to 3 (default 1)")
    sub.add_argument("--samples", type=int_in(1, MAX_SAMPLES), default=None,
                     help="deals to simulate (default 10000)")
    sub.add_argument("--opponent", default=None,
                     help=OPPONENT_HELP)
    playing_job_options(sub, "simulation", "samples")
    sub.set_defaults(run=cmd_simulate)


def add_match(commands) -> None:
    """The ``match`` command's parser."""
    sub = command(commands, "match", "play 2 to 4 strategies against each other",
                  "cpoker match table greedy --deals 100000 --seed 1\n"
                  "         cpoker match table table@pagat --rules 2-4 --deals 200000\n"
                  "         cpoker match table greedy greedy --sessions 1000 --strategy mybot.play:arrange")
    sub.add_argument("strategies", nargs="*", metavar="STRATEGY", help=STRATEGY_HELP + " (one per seat)")
    sub.add_argument("--strategy", action="append", default=[], dest="extra_strategies",
                     help="another seat's strategy as package.module:function (repeatable)")
    sub.add_argument("--deals", type=int_in(1, MAX_DEALS), default=None,
                     help="deals, each played in every seat rotation (default 10000; with --resume, the saved "
                          "match's)")
    sub.add_argument("--sessions", type=int_in(0, MAX_SESSIONS), default=None,
                     help="also play N 8-deal sessions and count first places")
    playing_job_options(sub, "match", "deals or --sessions")
    sub.set_defaults(run=cmd_match)


def add_tournament(commands) -> None:
    """The ``tournament`` command's parser."""
    sub = command(commands, "tournament", "play every pair of 2 to 16 strategies on the same deals",
                  "cpoker tournament table greedy table@1-6 --deals 20000 --seed 1\n"
                  '         cpoker tournament table greedy "cmd:./mybot --level 3" --out cross.json')
    sub.add_argument("strategies", nargs="*", metavar="STRATEGY", help=STRATEGY_HELP)
    sub.add_argument("--deals", type=int_in(1, MAX_DEALS), default=None,
                     help="deals every pair plays, both ways round (default 10000; with --resume, the saved one's)")
    playing_job_options(sub, "tournament", "deals")
    sub.set_defaults(run=cmd_tournament)


def add_bot_check(commands) -> None:
    """The ``bot-check`` command's parser."""
    from cpoker.strategies.bots import DECISION_TIMEOUT, DEFAULT_TIMEOUT

    sub = command(commands, "bot-check", "check that a program speaks the bot protocol (docs/bots.md)",
                  'cpoker bot-check "cmd:./mybot --level 3"')
    sub.add_argument("bot", metavar="cmd:COMMAND", help="the bot's command line")
    sub.add_argument("--bot-timeout", type=positive_seconds, default=None, metavar="SECONDS",
                     help=f"seconds the bot has per hand (default {DEFAULT_TIMEOUT:g}), or per open-face decision "
                          f"(default {DECISION_TIMEOUT:g})")
    silence_option(sub)
    seed_option(sub, default=0, drawn=False)
    sub.add_argument("--game", choices=("closed", "ofc", "pineapple", "progressive"), default="closed",
                     help="closed (default): a bot that arranges 13-card hands; ofc, pineapple, progressive: an "
                          "open-face bot that places cards")
    sub.set_defaults(run=cmd_bot_check)


def add_exploit(commands) -> None:
    """The ``exploit`` command's parser."""
    sub = command(commands, "exploit", "how much a best response wins against a strategy",
                  "cpoker exploit table --hands 2000 --seed 1\n"
                  "         cpoker exploit greedy --rules 2-4 --hands 500 --samples 4000 --trend --json")
    sub.add_argument("strategy", nargs="?", default=None, help=STRATEGY_HELP)
    sub.add_argument("--hands", type=int_in(1, 10**6), default=None, help="random hands to study (default 2000)")
    sub.add_argument("--samples", type=int_in(4, MAX_SAMPLES), default=None,
                     help="deals per hand to choose the best response, and again to score (default 2000)")
    sub.add_argument("--trend", action="store_true", default=None, help="also with 1/4 and 1/2 of the samples")
    job_options(sub)
    backend_options(sub)
    bot_options(sub)
    resume_options(sub, "exploit run", "hands")
    sub.set_defaults(run=cmd_exploit)
