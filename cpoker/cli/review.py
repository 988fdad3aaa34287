"""``cpoker review FILE``: what each played hand of a session cost, and the session's sum."""

from __future__ import annotations

import sys
from typing import Optional

from cpoker.cli.common import (PARTIAL, fixed, played, print_bot_faults, print_json, print_problems,
                               show_progress)
from cpoker.cli.options import (OPPONENT_HELP, backend_options, bot_options, command, int_in, resume_options,
                                job_options, with_bot_options)
from cpoker.system.limits import MAX_SAMPLES

OUT_SUFFIXES = (".json", ".csv", ".parquet")
SHOWN_HANDS = 50  # hands a terminal table lists; --out and --json carry them all


def cmd_review(args) -> int:
    from cpoker.jobs.played import PROBLEMS_SHOWN, PlayedHandsError, problem_heading, read_played
    from cpoker.jobs.review import review
    from cpoker.cli.jobs import checkpointing, given, resumed_job, rules_of, write_out

    saved, out = resumed_job(args, "review", OUT_SUFFIXES)
    text, source = read_input(args.file)
    try:
        hands, skipped = read_played(text, source, skip_bad=args.skip_bad)
    except PlayedHandsError as error:
        if not error.problems:  # no hand at all: one line
            raise
        return print_problems(problem_heading(error.problems, error.source),
                              [f"line {line}: {reason}" for line, reason in error.problems], PROBLEMS_SHOWN)
    for line, reason in skipped:
        print(f"cpoker: warning: skipped line {line}: {' '.join(reason.split())}", file=sys.stderr)
    opponent = with_bot_options(args, args.opponent or (saved or {}).get("opponent_model", "table"))
    result = played(review, hands, rules=rules_of(args, (saved or {}).get("state")),
                    opponents=given(args.opponents, saved, "opponents", 1),
                    samples=given(args.samples, saved, "samples", 2000), seed=args.seed, opponent=opponent,
                    tables=args.tables, jobs=args.jobs, top=given(args.top, saved, "top", 10),
                    progress=show_progress(args), backend=args.backend, scheduler=args.scheduler, resume=saved,
                    skipped=tuple(skipped), **checkpointing(args, out))
    if out:
        write_out(out, result.to_dict(), [_flat_row(h.to_dict(), result) for h in result.hands])
    if args.json:
        print_json(result.to_dict())
        return PARTIAL if result.partial else 0
    _print_review(result, source, args.symbols, out)
    return PARTIAL if result.partial else 0


def read_input(path: str) -> "tuple[str, str]":
    """The text of FILE (``-``: standard input), and its name for messages."""
    from cpoker.system.files import MAX_INPUT_BYTES, read_text

    if path != "-":
        return read_text(path, "file of played hands"), path
    from cpoker.system.errors import OptionError

    data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise OptionError(f"standard input is larger than {MAX_INPUT_BYTES // 2**20} MiB; is it the right file?")
    try:
        return data.decode("utf-8"), "standard input"
    except UnicodeDecodeError as failure:
        raise OptionError(f"standard input is not UTF-8 text (byte {failure.start})") from None


def _flat_row(hand: dict, result) -> dict:
    """A hand's fields as one flat row, with the review's parameters to rerun it."""
    low, high = hand.pop("ev_lost_interval_95")
    return {**hand, "ev_lost_low": low, "ev_lost_high": high, "rows_differ": " ".join(hand["rows_differ"]),
            "opponent_model": result.opponent_model, "review_seed": result.seed}


def _print_review(result, source: str, symbols: bool, out: Optional[str]) -> None:
    def text(arrangement) -> str:
        return arrangement.format(symbols=symbols)

    summary = result.summary
    status = ""
    if result.partial:
        status = f"  (PARTIAL: stopped after {len(result.hands)} of {result.requested_hands} hands" + (
            f"; 'cpoker review {source} --resume {out}' continues it)" if out and out.endswith(".json") else ")")
    print(f"review of {len(result.hands)} hands from {source}: rules {result.rules.name}, against "
          f"'{result.opponent_model}' opponents, {result.samples} samples a hand, seed {result.seed}{status}")
    print(f"  {'#':>4} {'line':>5}  {'played':<46}{'EV':>8}{'best EV':>9}{'EV lost':>9}  {'95% interval':<18} rows")
    for hand in result.hands[:SHOWN_HANDS]:
        low, high = hand.ev_lost_interval
        rows = "FOUL" if hand.fouled else ",".join(hand.rows_differ) or "same"
        rows += "; SURRENDER was best" if hand.should_surrender else ""
        print(f"  {hand.number + 1:>4} {hand.line:>5}  {text(hand.played):<46}{fixed(hand.ev_played, '>+8.3f')}"
              f"{fixed(hand.ev_best, '>+9.3f')}"
              f"{fixed(hand.ev_lost, '>9.3f')}  [{fixed(low, '+.3f')}, {fixed(high, '+.3f')}] {rows}")
    if len(result.hands) > SHOWN_HANDS:
        print(f"  ... and {len(result.hands) - SHOWN_HANDS} more hands (--out FILE.csv or --json lists them all)")
    if summary.costliest:
        print(f"the {len(summary.costliest)} costliest hands:")
        for number in summary.costliest:
            hand = result.hands[number]
            name = f" ({hand.id})" if hand.id else ""
            print(f"  #{number + 1}{name}, line {hand.line}: lost {fixed(hand.ev_lost, '.3f')}; played "
                  f"{text(hand.played)}; "
                  f"best {text(hand.best)}")
    low, high = summary.total_ev_lost_interval
    mean_low, mean_high = summary.mean_ev_lost_interval
    print(f"hands reviewed: {summary.hands}; fouled: {summary.fouls}; played as well as the best within the noise: "
          f"{summary.as_well_as_best}")
    print(f"EV lost: {fixed(summary.total_ev_lost, '.3f')} in all [{fixed(low, '.3f')}, {fixed(high, '.3f')}], "
          f"{fixed(summary.mean_ev_lost, '.4f')} a hand "
          f"[{fixed(mean_low, '.4f')}, {fixed(mean_high, '.4f')}] (95%)")
    if summary.should_surrender:
        print(f"surrendering was the best play of {summary.should_surrender} hands (their best EV is surrendering's)")
    if summary.real_deals:
        print(f"on the {summary.real_deals} real deals: won {summary.total_actual:+d} points, EV "
              f"{fixed(summary.total_ev, '+.3f')}, luck {fixed(summary.total_luck, '+.3f')}")
    if result.skipped:
        print(f"skipped {len(result.skipped)} bad lines: "
              + ", ".join(str(line) for line, _ in result.skipped[:20]) + (" ..." if len(result.skipped) > 20 else ""))
    print_bot_faults([result.opponent_model], [result.bot_faults])


def add_review(commands) -> None:
    """The ``review`` command's parser."""
    sub = command(commands, "review", "what each hand of a played session cost against the best arrangement",
                  "cpoker review session.txt --seed 1 --out review.csv\n"
                  "         cpoker review hands.jsonl --opponents 3 --samples 4000 --top 5 --json")
    sub.add_argument("file", metavar="FILE",
                     help="played hands, one a line (- reads standard input): 'front / middle / back' text, JSON "
                          "Lines with \"arrangement\" (and \"id\", \"rules\", \"opponents\": a count or the real "
                          "opponents' arrangements), or CSV with an arrangement column")
    sub.add_argument("--opponents", type=int_in(1, 3), default=None,
                     help="opponents of the hands that do not say (default 1)")
    sub.add_argument("--samples", type=int_in(1, MAX_SAMPLES), default=None,
                     help="deals a hand is solved on (default 2000)")
    sub.add_argument("--top", type=int_in(0, 10**5), default=None, help="costliest hands to list (default 10)")
    sub.add_argument("--opponent", default=None, help=OPPONENT_HELP)
    sub.add_argument("--skip-bad", action="store_true",
                     help="review the good lines and list the bad ones (default: a bad line stops everything)")
    job_options(sub)
    backend_options(sub)
    bot_options(sub)
    resume_options(sub, "review", "lines")
    for action in sub._actions:  # the review writes Parquet too
        if action.dest == "out":
            action.help = "save the review to FILE.json (all of it), FILE.csv or FILE.parquet (a row a hand)"
    sub.set_defaults(run=cmd_review)
