"""``cpoker ofc review FILE``: what each open-face decision of a session cost, and each player's skill and luck."""

from __future__ import annotations

from cpoker.cli.common import PARTIAL, fixed, interval_text, print_json, print_problems, show_progress
from cpoker.cli.options import POLICY_HELP, command, int_in, resume_options, seed_option, thread_options

OUT_SUFFIXES = (".json", ".csv", ".parquet")
SHOWN_DECISIONS = 10  # costliest decisions listed by default (--top)


def cmd_ofc_review(args) -> int:
    from cpoker.cli.common import played
    from cpoker.cli.jobs import checkpointing, given, partial_status, resumed_after, resumed_job, write_out
    from cpoker.cli.review import read_input
    from cpoker.game.ofc.history import PROBLEMS_SHOWN, HistoryError, read_histories
    from cpoker.jobs.ofc.review import review

    saved, out = resumed_job(args, "ofc-review", OUT_SUFFIXES)
    text, source = read_input(args.file)
    try:
        hands = read_histories(text, source)
    except HistoryError as error:
        if not error.problems:
            raise
        return print_problems(str(error), error.problems, PROBLEMS_SHOWN)
    result = played(review, hands, players=args.player or None, samples=given(args.samples, saved, "samples", 1000),
                    seed=args.seed, adaptive=not args.flat, policy=args.policy,
                    top=given(args.top, saved, "top", SHOWN_DECISIONS), jobs=args.jobs, progress=show_progress(args),
                    resume=saved, **checkpointing(args, out))
    if out:
        write_out(out, result.to_dict(), result.rows())
    if args.json:
        print_json(result.to_dict())
        return PARTIAL if result.partial else 0
    status = partial_status(result.partial, f"{result.hands:,} of {result.asked:,} hands", out, "ofc review")
    print(f"review of {result.hands:,} hands from {source}: {result.samples:,} rollouts a decision "
          f"({'adaptive' if result.adaptive else 'flat'}, {result.policy} policy), seed {result.seed}"
          f"{resumed_after(saved, 'hands')}{status}")
    width = max([len(p.name) for p in result.players] + [6])
    print(f"  {'player':<{width}} {'hands':>6} {'decisions':>9} {'result':>7}  {'skill (EV lost)':<27}"
          f"{'luck':<27}{'EV lost a decision':<26}mistakes")
    for p in result.players:
        print(f"  {p.name:<{width}} {p.hands:>6} {p.decisions:>9} {p.points:>+7d}  "
              f"{fixed(p.skill, '+.2f') + ' ' + interval_text(p.skill_interval, '+.2f'):<27}"
              f"{fixed(p.luck, '+.2f') + ' ' + interval_text(p.luck_interval, '+.2f'):<27}"
              f"{fixed(p.mean_ev_lost, '.3f') + ' ' + interval_text(p.mean_ev_lost_interval, '.3f'):<26}"
              f"{p.mistakes}")
    if result.costliest:
        print(f"the {len(result.costliest)} costliest decisions:")
    for number in result.costliest:
        d = result.decisions[number]
        where = "Fantasyland" if d.fantasyland else f"step {d.step}, rank {d.rank} of {d.options}"
        print(f"  hand {d.hand + 1} ({d.hand_id}) decision {d.decision}, {d.player} ({where}): lost "
              f"{fixed(d.ev_lost, '.3f')} {interval_text(d.ev_lost_interval, '.3f')}")
        print(f"      board {d.board}, dealt {d.cards}")
        print(f"      chose {d.chosen}  (EV {fixed(d.ev_chosen, '+.3f')})")
        print(f"      best  {d.best}  (EV {fixed(d.ev_best, '+.3f')})")
    print(f"(result = skill + luck: skill is minus the EV the decisions lost against the placement and Fantasyland "
          f"solvers, luck the rest; 95% intervals; {fixed(result.seconds, '.1f')} s)")
    return PARTIAL if result.partial else 0


def add_ofc_review(actions) -> None:
    """The ``ofc review`` action's parser."""
    from cpoker.jobs.ofc.review import MAX_SAMPLES

    sub = command(actions, "review", "what each open-face decision of a session cost: EV lost, rank, skill and luck",
                  "cpoker ofc match mc heuristic --rules pineapple --hands 20 --seed 1 --record hands.jsonl\n"
                  "         cpoker ofc review hands.jsonl --player heuristic --samples 1000 --out review.csv")
    sub.add_argument("file", metavar="FILE",
                     help="hand histories, JSON Lines (cpoker ofc match --record writes them; docs/ofc.md), a JSON "
                          "list of them, or the web page's export; - reads standard input")
    sub.add_argument("--player", action="append", metavar="NAME",
                     help="review this player's decisions (repeat for more; default: every player's)")
    sub.add_argument("--samples", type=int_in(1, MAX_SAMPLES), default=None,
                     help="the placement solver's rollouts a decision (default 1000)")
    sub.add_argument("--flat", action="store_true",
                     help="every option rolled out --samples times (default: the adaptive search)")
    sub.add_argument("--policy", default=None, help=POLICY_HELP)
    sub.add_argument("--top", type=int_in(0, 10**5), default=None,
                     help=f"costliest decisions to list (default {SHOWN_DECISIONS})")
    seed_option(sub)
    thread_options(sub)
    sub.add_argument("--out", help="save the review to FILE.json (all of it), FILE.csv or FILE.parquet (a row a "
                                   "decision)")
    resume_options(sub, "review", "hands")
