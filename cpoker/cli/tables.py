"""``cpoker tables``: show, build, check and resume the table policy's tables."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from cpoker.cli.common import fixed, PARTIAL, print_json, unwritten
from cpoker.cli.jobs import checkpoint_writer
import argparse

from cpoker.system.limits import MAX_ITERATIONS, MAX_REMOVAL_DEALS, MAX_REMOVAL_ROUNDS, MAX_SEED, MAX_TABLE_HANDS
from cpoker.strategies.policy import DEFAULT_BUILD
from cpoker.cli.common import RULES_HELP
from cpoker.cli.options import Parser, backend_options, device_option, fraction, int_in


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _shipped_tables_path(rules) -> "Path | None":
    """The shipped tables file of ``rules`` (a preset), or ``None`` for other rules."""
    from cpoker.strategies.policy import shipped_tables_path
    from cpoker.game.rules import PRESETS

    return shipped_tables_path(rules.name) if rules.name in PRESETS else None


def cmd_tables(args) -> int:
    from cpoker.system.errors import OptionError
    from cpoker.system.files import check_writable
    from cpoker.strategies.policy import PolicyTables, tables_file
    from cpoker.game.rules import resolve_rules
    from cpoker.strategies.policy import DEFAULT_BUILD
    from cpoker.jobs.selfplay import build_tables, self_play_ended

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
            print_json(info)
        else:
            unfinished = (f" (unfinished: 'cpoker tables build --resume {path}' continues it)" if info["resumable"]
                          else " (partial)" if tables.partial else "")
            removal = "with" if tables.removal is not None else "without"
            joint = "; with a joint model of the opponent's rows" if tables.joint is not None else ""
            print(f"{path}\nsha256 {info['sha256']}\nrules {tables.rules.name}: self-play on {tables.hands} hands, "
                  f"seed {tables.seed}, {tables.iterations} iterations{unfinished}; {removal} a card-removal "
                  f"correction{joint}")
            for step in tables.history:
                print(f"  iteration {step['iteration']:3d}: {fixed(100 * step['changed'], '6.2f')}% of hands changed "
                      f"arrangement, row values moved {fixed(step['values_moved'], '.4f')}")
            for step in tables.removal_rounds:
                print(f"  with card removal, round {step['round']:3d}: "
                      f"{fixed(100 * step['changed'], '6.2f')}% of hands "
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
                          checkpoint=checkpoint_writer(out) if args.checkpoint else None,
                          removal_deals=args.removal_deals, removal_rounds=args.removal_rounds)
    rules = tables.rules
    try:
        tables.save(out)
    except OptionError as error:  # checked before the build, failed after it (a full disk): save them elsewhere
        import tempfile

        rescue = Path(tempfile.gettempdir()) / f"cpoker-tables-{os.getpid()}.npz"
        try:
            tables.save(rescue)
            unwritten(f"{error}; the tables were saved to {rescue} instead")
        except OptionError:
            unwritten(f"{error}; nor could the tables be saved to {rescue}: they are lost")
        return 1
    digest = _sha256(out)
    shipped = _shipped_tables_path(rules)
    same = shipped is not None and shipped.exists() and _sha256(shipped) == digest
    last = tables.history[-1]
    if args.json:
        print_json({"out": str(out), "sha256": digest, "identical_to_shipped": same, "rules": rules.to_dict(),
                     "hands": tables.hands, "seed": tables.seed, "iterations": tables.iterations,
                     "resumed_after": resume.iterations if resume else None, "partial": tables.partial,
                     "history": list(tables.history), "card_removal": tables.removal is not None,
                     "removal_rounds": list(tables.removal_rounds), "joint_rows": tables.joint is not None})
    else:
        # stopped after the last iteration of the self-play: in the rounds with the card-removal correction
        asked = tables.build or DEFAULT_BUILD  # (a partial build's tables record what it was asked for)
        done = self_play_ended(tables.history, int(asked["max_iterations"]), asked["tolerance"])
        stopped = "the rounds with the card-removal correction" if done else f"iteration {tables.iterations + 1}"
        status = (f" (PARTIAL: stopped during {stopped}; the file holds the tables of "
                  f"iteration {tables.iterations}; 'cpoker tables build --resume {out}' continues it)"
                  if tables.partial else "")
        if tables.removal_rounds:
            status += (f"; then {len(tables.removal_rounds)} rounds with the card-removal correction (last: "
                       f"{fixed(100 * tables.removal_rounds[-1]['changed'], '.2f')}% changed)")
        resumed = f", resumed after iteration {resume.iterations}" if resume else ""
        print(f"wrote {out} ({rules.name} rules) after {tables.iterations} iterations on {tables.hands} hands, "
              f"seed {tables.seed}{resumed} "
              f"(last: {fixed(100 * last['changed'], '.2f')}% of hands changed, values moved "
              f"{fixed(last['values_moved'], '.4f')})"
              + status)
        print(f"sha256 {digest}" + ("  (identical to the shipped tables)" if same else ""))
    return PARTIAL if tables.partial else 0


def add_tables(commands) -> None:
    """The ``tables`` command's parser, with its ``build`` and ``info`` actions."""
    sub = commands.add_parser("tables", help="build or inspect the table policy's tables",
                              description="build or inspect the table policy's tables",
                              epilog="example: cpoker tables build --rules 2-4")
    tables = sub.add_subparsers(dest="tables_command", metavar="ACTION", required=True, parser_class=Parser)
    build = tables.add_parser("build", help="learn the tables by self-play under some rules (defaults rebuild the "
                                            "shipped ones)",
                              epilog="examples: cpoker tables build --rules 2-4\n"
                                     "          cpoker tables build --rules house.toml --hands 20000 --out house.npz",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    build.add_argument("--hands", type=int_in(1, MAX_TABLE_HANDS), default=None,
                       help=f"self-play sample size (default {DEFAULT_BUILD['hands']}; resuming: the build's)")
    build.add_argument("--seed", type=int_in(0, MAX_SEED), default=None,
                       help=f"seed of the sample, 0 to 2**63-1 (default {DEFAULT_BUILD['seed']}; "
                            "resuming: the build's)")
    build.add_argument("--max-iterations", type=int_in(1, MAX_ITERATIONS), default=None,
                       help=f"iterations of self-play at most (default {DEFAULT_BUILD['max_iterations']}; with "
                            "--resume, the build's own, as its other options)")
    build.add_argument("--tolerance", type=fraction, default=None,
                       help="stop when fewer hands than this share (0 to 1) change arrangement (default "
                            f"{DEFAULT_BUILD['tolerance']})")
    build.add_argument("--rules", default=None, help=RULES_HELP + "; the self-play plays under them")
    build.add_argument("--removal-deals", type=int_in(0, MAX_REMOVAL_DEALS), default=None,
                       help="deals of four hands from which the policy's card-removal correction (and, under a "
                            "scoring bonus, the joint model of an opponent's rows) is learned "
                            f"(default {DEFAULT_BUILD['removal_deals']:,}, about 10 s; a quarter of them in the rounds "
                            "before the last; 0 for none)")
    build.add_argument("--removal-rounds", type=int_in(0, MAX_REMOVAL_ROUNDS), default=None,
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
    device_option(build)
    backend_options(build)
    build.add_argument("--json", action="store_true", help="machine-readable output")
    info = tables.add_parser("info", help="show the shipped tables' provenance and convergence")
    info.add_argument("file", nargs="?", default=None, help="a tables file (default: the shipped tables of --rules)")
    info.add_argument("--rules", default=None, help="the preset whose shipped tables to show (default pagat)")
    info.add_argument("--json", action="store_true", help="machine-readable output")
    sub.set_defaults(run=cmd_tables)
