"""``cpoker ofc``: the open-face game (OFC, Pineapple, progressive Pineapple), beside the closed game."""

from __future__ import annotations

import json
import sys

from cpoker.cli.common import fail, print_json, print_matrix
from cpoker.cli.options import (OFC_RULES_HELP, POLICY_HELP, Parser, backend_options, bot_options, command, fraction,
                                int_in, resume_options, seed_option, thread_options, with_bot_options)
from cpoker.game.cards import format_cards
from cpoker.system.errors import OptionError

MAX_PLACEMENT_SAMPLES = 1_000_000



def cmd_ofc(args) -> int:
    if args.ofc_command == "score":
        return _score(args)
    if args.ofc_command == "fantasy":
        return _fantasy(args)
    if args.ofc_command == "place":
        return _place(args)
    if args.ofc_command == "fantasy-worth":
        return _worth(args)
    if args.ofc_command == "match":
        return _match(args)
    if args.ofc_command == "policy":
        return _policy(args)
    if args.ofc_command == "review":
        from cpoker.cli.ofc_review import cmd_ofc_review

        return cmd_ofc_review(args)
    return fail(f"unknown ofc action {args.ofc_command!r}")  # pragma: no cover  (argparse refuses it first)


def _fantasy(args) -> int:
    import sys

    from cpoker.cli.common import fixed
    from cpoker.game.ofc.boards import ROW_NAMES
    from cpoker.strategies.ofc.fantasyland import fantasyland, warm_up
    from cpoker.game.ofc.rules import resolve_ofc_rules

    rules = resolve_ofc_rules(args.rules)
    warm_up(rules, args.objective)  # compiled (or loaded) before the solver is timed, under the cold start's notice
    best = fantasyland(" ".join(args.cards), rules, args.objective, samples=args.samples, seed=args.seed,
                       fantasyland_value=args.fantasyland_value, runners_up=args.runners_up)
    dealt = rules.fantasyland_sizes
    if len(best.cards) not in dealt:
        print(f"cpoker: note: {rules.name} deals a Fantasyland of {' or '.join(map(str, dealt)) or 'no'} cards; "
              f"{len(best.cards)} solved as given", file=sys.stderr)
    if args.json:
        print_json(best.to_dict())
        return 0
    symbols = args.symbols
    print(f"best Fantasyland board of {len(best.cards)} cards ({best.rules.name}, objective {best.objective}):")
    for name, row, units in zip(ROW_NAMES, best.board.rows, best.royalties):
        print(f"  {name:<7}{format_cards(row, symbols=symbols):<18}royalty {units}")
    if best.discards:
        print(f"  discard {format_cards(best.discards, symbols=symbols)}")
    stays = (f"stays in Fantasyland ({best.next_fantasyland} cards next hand)" if best.stays
             else "leaves Fantasyland")
    value = ""
    if best.objective == "ev":
        value = (f"; EV {fixed(best.value, '+.3f')} against {best.samples:,} opponent boards (seed {best.seed}, "
                 f"staying counts {best.fantasyland_value:g})")
    print(f"royalties {best.total}; {stays}{value}  ({fixed(best.seconds * 1e3, '.1f')} ms)")
    if best.runners_up:
        print("the runners-up:")
    for rank, board in enumerate(best.runners_up, 2):
        print(f"  {rank:>2}. {board.board.format(symbols=symbols):<42} EV {fixed(board.value, '+.3f')}  royalties "
              f"{board.total}{'; stays' if board.stays else ''}")
    return 0


def _place(args) -> int:
    from cpoker.cli.common import PARTIAL, fixed, show_progress
    from cpoker.jobs.ofc.placement import place

    hidden: list = args.fantasyland_opponent or []  # (opponents in Fantasyland: after those --opponent gives)
    seen: list = args.opponent or []
    if args.position:
        position = _position(args)
    elif not args.cards:
        raise OptionError("give the cards to place (--cards), or a position file (--position FILE.json)")
    else:
        position = {"board": args.board, "cards": " ".join(args.cards), "rules": args.rules,
                    "opponents": [*seen, *["- / - / -"] * len(hidden)] if hidden else args.opponent,
                    "dead": " ".join(args.dead or []), "fantasylands": [0] * len(seen) + hidden if hidden else None}
    solved = place(**position, samples=args.samples, seed=args.seed, fantasyland_value=args.fantasyland_value,
                   progress=show_progress(args), jobs=args.jobs, adaptive=not args.flat, policy=args.policy)
    if args.json:
        print_json(solved.to_dict())
        return PARTIAL if solved.partial else 0
    symbols = args.symbols
    opponents = len(solved.opponents)
    how = "exact: no card is unknown" if solved.exact else (
        f"up to {solved.samples:,} rollouts each, those out of contention stopped early, seed {solved.seed}"
        if solved.adaptive else f"{solved.samples:,} rollouts each, seed {solved.seed}")
    in_fantasyland = sum(1 for size in solved.fantasylands if size)
    if in_fantasyland:
        how += f"; {in_fantasyland} in Fantasyland ({', '.join(f'{s} cards' for s in solved.fantasylands if s)})"
    print(f"placing {format_cards(solved.cards, symbols=symbols)} on {solved.board.format(symbols=symbols)} "
          f"({solved.rules.name}, {opponents} opponent{'s' * (opponents > 1)}, {how}; Fantasyland counts "
          f"{_worth_text(solved.fantasyland_values)}):")
    shown = solved.options if args.all else solved.options[:args.top]
    width = max(len(option.board.format(symbols=symbols)) for option in shown)
    for rank, option in enumerate(shown, 1):
        low, high = option.interval
        line = (f"{rank:>4}. {option.board.format(symbols=symbols):<{width}}  "
                f"{'discard ' + format_cards(option.discard, symbols=symbols) + '  ' if option.discard else ''}"
                f"EV {fixed(option.ev, '+.3f')}")
        if not solved.exact:
            line += f" [{fixed(low, '+.3f')}, {fixed(high, '+.3f')}]"
        if rank > 1:
            loss_low, loss_high = option.loss_interval
            line += f"  loses {fixed(option.loss, '.3f')}"
            if not solved.exact:
                line += f" [{fixed(loss_low, '+.3f')}, {fixed(loss_high, '+.3f')}]"
        line += (f"  fouls {fixed(100 * option.foul_chance, '.0f')}%, Fantasyland "
                 f"{fixed(100 * option.fantasyland_chance, '.0f')}%, royalties {fixed(option.royalties, '.2f')}")
        if option.samples < solved.samples:
            line += f"  ({option.samples:,} rollouts)"
        print(line)
    if len(shown) < len(solved.options):
        print(f"  ... {len(solved.options) - len(shown)} more of {len(solved.options)} (--all shows every one)")
    if solved.partial:
        print(f"PARTIAL: stopped after {solved.samples:,} of {solved.asked:,} rollouts")
    print(f"({fixed(solved.seconds, '.2f')} s)")
    return PARTIAL if solved.partial else 0


def _position(args) -> dict:
    """``place``'s arguments from ``--position FILE`` (docs/ofc.md "Positions"), refused beside the options that
    would say the same."""
    from cpoker.game.ofc.position import read_position
    from cpoker.system.files import read_text

    clashing = [flag for flag, value in [("--board", args.board != "- / - / -"), ("--cards", args.cards),
                                         ("--opponent", args.opponent), ("--dead", args.dead),
                                         ("--fantasyland-opponent", args.fantasyland_opponent)] if value]
    if clashing:
        raise OptionError(f"--position gives the whole position: drop {clashing[0]}")
    text = read_text(args.position, "position file") if args.position != "-" else sys.stdin.read()
    return read_position(text, args.rules).place_arguments()


def _worth_text(values: dict) -> str:
    """What each Fantasyland counts, in points: one number, or one a size."""
    if len(set(values.values())) <= 1:
        return f"{next(iter(values.values()), 0.0):g} points"
    return ", ".join(f"{value:g} points for {size} cards" for size, value in sorted(values.items()))


def _policy(args) -> int:
    import sys

    from cpoker.cli.common import PARTIAL, fixed, show_progress
    from cpoker.jobs.ofc.policy_learning import learn_policy
    from cpoker.strategies.ofc.rollout_policy import model_file
    from cpoker.system.files import check_writable

    learned = learn_policy(args.rules, hands=args.hands, rounds=args.rounds, seed=args.seed, epsilon=args.epsilon,
                           pool=args.pool, checks=args.checks, progress=show_progress(args), jobs=args.jobs)
    if learned.partial:
        print("cpoker: interrupted: the policy is unfinished and was not written", file=sys.stderr)
        return PARTIAL
    out = args.out or model_file(learned.rules.game if args.rules is None or learned.rules.source is None
                                 else "custom")
    check_writable(out)
    learned.save(out)
    report = {**learned.to_dict(), "out": str(out)}
    if args.json:
        print_json(report)
        return 0
    print(f"learned the {learned.rules.name} rollout policy: {learned.rounds} rounds of {learned.hands:,} boards, "
          f"seed {learned.seed} ({fixed(learned.seconds, '.1f')} s) -> {out}")
    for step in learned.history:
        print(f"  round {step['round']}: the policy played foul {fixed(100 * step['pool_fouls'], '.1f')}%, "
              f"royalties {fixed(step['pool_royalties'], '.2f')}; learned weights kept for boards of "
              f"{', '.join(map(str, step['learned_stages']))} cards, {fixed(step['margin'], '+.2f')} points a "
              "board over it")
    print(f"sha256 {report['sha256']}" + ("  (identical to the shipped policy)" if report["identical_to_shipped"]
                                          else ""))
    return 0


def _worth(args) -> int:
    from cpoker.cli.common import PARTIAL, fixed, interval_text, show_progress
    from cpoker.jobs.ofc.fantasyland_worth import fantasyland_worth

    worth = fantasyland_worth(args.rules, hands=args.hands, seed=args.seed, cards=args.cards,
                              progress=show_progress(args), jobs=args.jobs, policy=args.policy)
    if args.json:
        print_json(worth.to_dict())
        return PARTIAL if worth.partial else 0
    worth_text = (f"{fixed(worth.value, '.2f')} points {interval_text(worth.interval, '.2f')}"
                  if worth.value != float("inf") else "points without end (every hand stayed in Fantasyland)")
    print(f"a Fantasyland of {worth.cards} cards ({worth.rules.name}) is worth {worth_text}: "
          f"{fixed(worth.mean_points, '+.3f')} a hand, staying "
          f"{fixed(100 * worth.stay_rate, '.1f')}% of hands"
          + (f", each stay a Fantasyland of {worth.repeat.cards} worth {fixed(worth.repeat.value, '.2f')}"
             if worth.repeat else "")
          + f" ({worth.hands:,} hands, seed {worth.seed}"
          f"{', PARTIAL' if worth.partial else ''}; {fixed(worth.seconds, '.1f')} s)")
    return PARTIAL if worth.partial else 0


def _match(args) -> int:
    from cpoker.cli.common import PARTIAL, fixed, interval_text, played as contained, show_progress
    from cpoker.cli.jobs import checkpointing, given, partial_status, resumed_after, resumed_job, write_out
    from cpoker.game.ofc.rules import OfcRules
    from cpoker.jobs.ofc.match import match

    saved, out = resumed_job(args, "ofc-match")
    if args.record:
        from cpoker.system.files import check_writable

        check_writable(args.record)
    strategies = [with_bot_options(args, name) for name in args.strategies or (saved or {}).get("strategies", [])]
    rules = args.rules if args.rules is not None or not saved else OfcRules.from_dict(saved["rules"])
    played = contained(match, strategies, hands=given(args.hands, saved, "asked_hands", 1000), rules=rules,
                       seed=args.seed, session_hands=given(args.session_hands, saved, "session_hands", 10),
                       progress=show_progress(args), jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                       resume=saved, record=args.record, **checkpointing(args, out))
    data = played.to_dict()
    if out:
        common = {key: data[key] for key in ("version", "session_hands", "seed", "partial")}
        common.update(deals=data["hands"], rules=played.rules.name)  # (each score's "hands": its own)
        write_out(out, data, [{**common, **{k: json.dumps(v, allow_nan=False) if isinstance(v, list) else v
                                            for k, v in score.items()}} for score in data["scores"]])
    if args.json:
        print_json(data)
        return PARTIAL if played.partial else 0
    status = partial_status(played.partial, f"{played.hands:,} of {played.asked:,} deals", out, "ofc match")

    def rate(value: float, interval: tuple) -> str:
        if value != value:  # NaN: nothing to count
            return "-"
        return f"{fixed(100 * value, '.1f')}% {interval_text(interval, '.1f', 100)}"

    kind = "duplicate, seats swapped" if played.duplicate else "seats rotating"
    print(f"{played.hands:,} deals of {played.rules.name} ({kind}; sessions of {played.session_hands} hands, "
          f"Fantasyland carried within one), seed {played.seed}{resumed_after(saved, 'hands')}{status}:")
    width = max(len(name) for name in played.names)
    print(f"  {'strategy':<{width}}  {'points a hand':<24}{'fouls':<22}{'enters Fantasyland':<22}"
          f"{'stays':<22}royalties")
    for score in played.scores:
        points = f"{fixed(score.points, '+.3f')} {interval_text(score.interval, '+.3f', unknown='one session')}"
        print(f"  {score.name:<{width}}  {points:<24}{rate(score.foul_rate, score.foul_interval):<22}"
              f"{rate(score.fantasyland_entry_rate, score.fantasyland_entry_interval):<22}"
              f"{rate(score.fantasyland_stay_rate, score.fantasyland_stay_interval):<22}"
              f"{fixed(score.royalties, '.2f')}{f'  ({score.faults} faults)' if score.faults else ''}")
    recorded = f"; the hands' histories in {args.record} ('cpoker ofc review {args.record}' reviews them)" \
        if args.record else ""
    print(f"({fixed(played.seconds, '.1f')} s{recorded})")
    return PARTIAL if played.partial else 0


def _score(args) -> int:
    from cpoker.game.ofc.boards import ROW_NAMES
    from cpoker.game.ofc.scoring import settle
    players = len(args.player)
    flags = [False] * players
    for number in args.fantasyland or []:
        if not 1 <= number <= players:
            raise OptionError(f"--fantasyland {number}: name a player from 1 to {players}")
        if flags[number - 1]:
            raise OptionError(f"--fantasyland {number} is given twice: name each player once")
        flags[number - 1] = True
    settlement = settle(args.player, args.rules, flags)
    if args.json:
        print_json(settlement.to_dict())
        return 0
    print(f"rules {settlement.rules.name}:")
    for i, (score, result) in enumerate(zip(settlement.boards, settlement.results)):
        status = ""
        if score.fouled:
            status = f"FOUL: {score.foul_reason}"
        elif score.total:
            paid = ", ".join(f"{name} {units}" for name, units in zip(ROW_NAMES, score.royalties) if units)
            status = f"royalties {paid} (total {score.total})"
        if score.fantasyland is not None:
            status += f"; Fantasyland next hand: {score.fantasyland} cards"
        if flags[i]:
            status += "; stays in Fantasyland" if score.stays else "; leaves Fantasyland"
        print(f"player {i + 1}: {result:+d}   {score.board.format(symbols=args.symbols)}   {status}".rstrip())
    print_matrix(settlement.matrix)
    return 0


def add_ofc(commands) -> None:
    """The ``ofc`` command's parser, with its actions."""
    sub = commands.add_parser("ofc", help="open-face Chinese poker (OFC, Pineapple): score boards, set a Fantasyland",
                              description="open-face Chinese poker (OFC, Pineapple, progressive Pineapple)",
                              epilog='example: cpoker ofc score --player "Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks" '
                                     '--player "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"')
    actions = sub.add_subparsers(dest="ofc_command", metavar="ACTION", required=True, parser_class=Parser)
    score = command(actions, "score", "settle full boards of 2 to 4 players: points, royalties, fouls and Fantasyland",
                    'cpoker ofc score --rules pineapple --player "Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks" '
                    '--player "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"')
    score.add_argument("--player", action="append", required=True, metavar='"FRONT / MIDDLE / BACK"',
                       help="one player's full board; repeat for each player (2 to 4: 3 in Pineapple)")
    score.add_argument("--rules", default=None, help=OFC_RULES_HELP)
    score.add_argument("--fantasyland", type=int, action="append", metavar="PLAYER",
                       help="this player played the hand in Fantasyland (says whether the board stays); repeat")
    fantasy = command(actions, "fantasy", "the best board of a Fantasyland hand (13 to 17 cards)",
                      "cpoker ofc fantasy As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d --rules pineapple")
    fantasy.add_argument("cards", nargs="+", metavar="CARD", help="the Fantasyland's 13 to 17 cards")
    fantasy.add_argument("--rules", default=None, help=OFC_RULES_HELP)
    fantasy.add_argument("--objective", default="ev", choices=["ev", "royalties"],
                         help="ev (default): the board with the highest expected value against sampled opponent "
                              "boards, staying in Fantasyland counted; royalties: the board with the most royalties "
                              "(ties: the one that stays, then the strongest rows); both exactly")
    fantasy.add_argument("--samples", type=int_in(1, 100_000), default=1000,
                         help="with --objective ev: the opponent boards (default 1000)")
    fantasy.add_argument("--runners-up", type=int_in(0, 20), default=0, metavar="N",
                         help="with --objective ev: the N next best boards too, with their EV and whether they stay")
    seed_option(fantasy)
    fantasy.add_argument("--fantasyland-value", type=points, default=None, metavar="POINTS",
                         help="with --objective ev: points a board that stays in Fantasyland counts (default: the "
                              "rules' measured value, docs/ofc.md)")
    placing = command(actions, "place", "every placement of the cards in hand, best first, with its expected value",
                      'cpoker ofc place --rules pineapple --board "Qh / 9s 9d / Ah Kh" --cards "Qd 7c 2s" '
                      '--opponent "Kc 7d / 5s 5d / 8c 8h 3d" --seed 1')
    placing.add_argument("--board", default="- / - / -", metavar='"FRONT / MIDDLE / BACK"',
                         help="your board so far ('-' for an empty row; default: empty, to place the first cards)")
    placing.add_argument("--cards", nargs="+", metavar="CARD",
                         help="the cards dealt to place: the first 5, or a round's (1 in OFC, 3 in Pineapple)")
    placing.add_argument("--position", metavar="FILE.json", default=None,
                         help="read the whole position from a JSON file (- reads standard input), in the shape "
                              "public OFC tools use: top/middle/bottom, hand, dead, street, opponents "
                              "(docs/ofc.md, Positions)")
    placing.add_argument("--opponent", action="append", metavar='"FRONT / MIDDLE / BACK"',
                         help="an opponent's board as you see it; repeat for each (default: one, empty)")
    placing.add_argument("--fantasyland-opponent", action="append", type=int_in(13, 17), metavar="CARDS",
                         help="an opponent playing a Fantasyland of CARDS cards (set face down: their board shows "
                              "empty); repeat for each")
    placing.add_argument("--dead", nargs="+", metavar="CARD", help="cards out of play you know: your discards, ...")
    placing.add_argument("--samples", type=int_in(1, MAX_PLACEMENT_SAMPLES), default=1000,
                         help="rollouts of the placements in contention to the end, all sharing the same deals; "
                              "those out of contention stop early (default 1000)")
    placing.add_argument("--policy", default=None, help=POLICY_HELP)
    placing.add_argument("--flat", action="store_true",
                         help="roll every placement out --samples times (no option stops early)")
    seed_option(placing)
    placing.add_argument("--rules", default=None, help=OFC_RULES_HELP)
    placing.add_argument("--fantasyland-value", type=points, default=None, metavar="POINTS",
                         help="points a board that earns Fantasyland counts (default: the rules' measured value, "
                              "docs/ofc.md; 0: this hand's points alone)")
    placing.add_argument("--top", type=int_in(1, 10_000), default=10, help="placements shown (default 10)")
    placing.add_argument("--all", action="store_true", help="show every placement")
    thread_options(placing)
    matching = command(actions, "match", "strategies play whole hands, Fantasyland carried; heads-up is duplicate",
                       "cpoker ofc match mc heuristic --rules pineapple --hands 200 --seed 1")
    matching.add_argument("strategies", nargs="*", metavar="STRATEGY",
                          help="2 or 3 of: heuristic, mc (the placement solver's adaptive search, 300 rollouts "
                               "for the placements in contention), mc:N, mc-flat (0.8.0's mc: 100 rollouts for "
                               "every placement), mc-flat:N, package.module:function, cmd:COMMAND (a bot, "
                               "docs/bots.md)")
    matching.add_argument("--hands", type=int_in(1, 10_000_000), default=None, help="deals (default 1000)")
    matching.add_argument("--rules", default=None, help=OFC_RULES_HELP)
    seed_option(matching)
    matching.add_argument("--session-hands", type=int_in(1, 1000), default=None,
                          help="hands a session: Fantasyland carries within one (default 10)")
    thread_options(matching)
    matching.add_argument("--out", help="save the result with every setting to FILE.json or FILE.csv")
    matching.add_argument("--record", metavar="FILE.jsonl", default=None,
                          help="write every hand's history to FILE, JSON Lines (docs/ofc.md), for 'cpoker ofc "
                               "review'; with --resume, adds to the FILE the saved match wrote")
    backend_options(matching)
    bot_options(matching)
    resume_options(matching, "match", "hands")
    from cpoker.cli.ofc_review import add_ofc_review

    add_ofc_review(actions)
    worth = command(actions, "fantasy-worth", "measure what a Fantasyland is worth, in points, by simulation",
                    "cpoker ofc fantasy-worth --rules pineapple --hands 20000 --seed 1")
    worth.add_argument("--rules", default=None, help=OFC_RULES_HELP)
    worth.add_argument("--hands", type=int_in(2, 10_000_000), default=20_000,
                       help="Fantasyland hands to play (default 20,000)")
    worth.add_argument("--cards", type=int_in(13, 17), default=None,
                       help="the Fantasyland's cards (default: the smallest the rules deal)")
    seed_option(worth)
    thread_options(worth)
    worth.add_argument("--policy", default="static",
                       help="the opponent's rollout policy: static (default: what the shipped values were measured "
                            "against), learned, or a .npz file 'cpoker ofc policy' wrote")
    _add_policy(actions)
    sub.set_defaults(run=cmd_ofc)


def _add_policy(actions) -> None:
    """``cpoker ofc policy build``: learn the rollout policy (the defaults rebuild the shipped file)."""
    from cpoker.jobs.ofc.policy_learning import DEFAULT_LEARNING, MAX_HANDS, MAX_POOL, MAX_ROUNDS

    policy = command(actions, "policy", "learn the open-face rollout policy by self-play (the defaults rebuild the "
                     "shipped one, byte for byte)", "cpoker ofc policy --rules pineapple")
    policy.add_argument("--rules", default=None, help=OFC_RULES_HELP)
    policy.add_argument("--hands", type=int_in(1, MAX_HANDS), default=DEFAULT_LEARNING["hands"],
                        help=f"boards a round plays (default {DEFAULT_LEARNING['hands']:,})")
    policy.add_argument("--rounds", type=int_in(1, MAX_ROUNDS), default=DEFAULT_LEARNING["rounds"],
                        help="rounds of learning, each from the last one's policy (default "
                             f"{DEFAULT_LEARNING['rounds']})")
    policy.add_argument("--seed", type=int_in(0, 2**63 - 1), default=DEFAULT_LEARNING["seed"],
                        help=f"the deals' seed (default {DEFAULT_LEARNING['seed']})")
    policy.add_argument("--epsilon", type=fraction, default=DEFAULT_LEARNING["epsilon"],
                        help=f"chance that a board's first recorded decision is a random one (default "
                             f"{DEFAULT_LEARNING['epsilon']})")
    policy.add_argument("--pool", type=int_in(1, MAX_POOL), default=DEFAULT_LEARNING["pool"],
                        help=f"opponent boards each board is measured against (default {DEFAULT_LEARNING['pool']})")
    policy.add_argument("--checks", type=int_in(1, 1_000_000), default=DEFAULT_LEARNING["checks"],
                        help="pairs of deals that choose, count of cards by count, between the fitted weights and "
                             f"the static estimate (default {DEFAULT_LEARNING['checks']:,})")
    policy.add_argument("--out", default=None,
                        help="output file (default: the shipped file's name in this folder, ofc_policy_GAME.npz)")
    thread_options(policy)


def points(text: str) -> float:
    """An argparse type: a number of points from 0 to the placement solver's most."""
    import argparse
    import math

    from cpoker.strategies.ofc.rollout_policy import MAX_FANTASYLAND_VALUE

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= MAX_FANTASYLAND_VALUE:
        raise argparse.ArgumentTypeError(f"expected points from 0 to {MAX_FANTASYLAND_VALUE:g}, got {text[:30]!r}")
    return value
