"""Commands about one hand or deal: ``eval``, ``score``, ``deal``, ``solve``, ``natural`` and ``odds``."""

from __future__ import annotations

import json
import sys

from cpoker.cli.common import (fixed, PARTIAL, cards_text, fail, percent, print_bot_faults, print_json, print_matrix,
                               show_progress)
from cpoker.system.limits import MAX_SAMPLES
from cpoker.cli.options import (OPPONENT_HELP, bot_options, command, device_option, int_in, seed_option, tables_option,
                      with_bot_options)
from cpoker.cli.common import RULES_HELP


def cmd_eval(args) -> int:
    from cpoker.game.cards import parse_cards
    from cpoker.game.evaluation import evaluate

    cards = parse_cards(" ".join(args.cards))
    value = evaluate(cards)  # table lookups in Python: no kernel, so numba is never loaded
    if args.json:
        print_json({"cards": cards_text(cards, False), **value.to_dict()})
    else:
        print(f"{cards_text(cards, args.symbols)}: {value.describe()}")
        print(f"category {value.category}, key {value.key}, strength {value.strength_index + 1} of 7917 "
              "(1 = the weakest row, 7917 = a royal flush)")
    return 0


def _pair_stakes(given: "list[str]", players: int) -> "list[list[int]]":
    """The stakes matrix of ``--stakes A-B=UNITS`` options (every other pair plays for 1)."""
    import re

    from cpoker.system.errors import OptionError

    stakes = [[1] * players for _ in range(players)]
    for text in given:
        found = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*=\s*(\d+)\s*", text)
        if not found:
            raise OptionError(f"--stakes takes PLAYER-PLAYER=UNITS, e.g. 1-2=10, got {text!r}")
        a, b, units = (int(x) for x in found.groups())
        if not (1 <= a <= players and 1 <= b <= players) or a == b:
            raise OptionError(f"--stakes {text.strip()}: name two different players from 1 to {players}")
        stakes[a - 1][b - 1] = stakes[b - 1][a - 1] = units
    return stakes


def _read_deal_file(path: str) -> list:
    """Players' arrangements from a JSON file: a list, or ``{"players": [...]}``.

    Each player is ``"front / middle / back"`` text, a list of the three rows,
    or ``{"front": ..., "middle": ..., "back": ...}``; anything else is an
    :class:`ArrangementError` naming the player.
    """
    from cpoker.system.errors import ArrangementError
    from cpoker.system.files import read_json

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


def cmd_score(args) -> int:
    from cpoker.game.naturals import Natural
    from cpoker.game.rules import resolve_rules
    from cpoker.game.scoring import PARTS, Surrendered, pair_breakdown, row_results, settle_details

    if bool(args.player) == bool(args.file):
        return fail("give each player's rows with --player (2 to 4 times) or a JSON file with --file")
    rules = resolve_rules(args.rules)
    entries = args.player or _read_deal_file(args.file)
    stakes = _pair_stakes(args.stakes, len(entries)) if args.stakes else None
    settlement = settle_details(entries, rules, misset="foul" if args.misset_fouls else "error", stakes=stakes)
    deal = list(settlement.entries)
    matrix = settlement.total
    results = settlement.results
    parts = PARTS
    shows = [not isinstance(entry, (Natural, Surrendered)) for entry in deal]  # an arrangement, rows to compare

    def kind(entry) -> str:
        return "natural" if isinstance(entry, Natural) else "surrender" if isinstance(entry, Surrendered) \
            else "arrangement"

    if args.json:
        print_json({
            "rules": rules.to_dict(),
            "players": [{"player": i + 1, kind(a): True if isinstance(a, Surrendered) else a.to_dict(),
                         "result": r} for i, (a, r) in enumerate(zip(deal, results))],
            "matrix": matrix.tolist(),
            "stakes": None if settlement.stakes is None else settlement.stakes.tolist(),
            "parts": {name: getattr(settlement, name).tolist() for name in parts},
            "pairs": {f"{i + 1}v{j + 1}": pair_breakdown(deal[i], deal[j], rules)
                      for i in range(len(deal)) for j in range(len(deal)) if i < j},
            "rows": {f"{i + 1}v{j + 1}": dict(zip(("front", "middle", "back"), row_results(deal[i], deal[j])))
                     for i in range(len(deal)) for j in range(len(deal)) if i < j and shows[i] and shows[j]},
        })
        return 0
    for i, (entry, result) in enumerate(zip(deal, results)):
        if isinstance(entry, Natural):
            shown, status = f"declares {entry}", f"natural worth {entry.payout} per opponent"
        elif isinstance(entry, Surrendered):
            shown, status = "surrenders", f"pays {rules.surrender} to each opponent who plays"
        else:
            shown = entry.format(symbols=args.symbols)
            status = f"FOUL: {entry.foul_reason}" if entry.is_foul else ""
        print(f"player {i + 1}: {result:+d}   {shown}   {status}".rstrip())
    extra = [name for name in parts[1:] if getattr(settlement, name).any()]
    if extra:
        print(f"(rules {rules.name}: " + ", ".join(
            f"{name.replace('_', ' ')} {[int(x) for x in getattr(settlement, name).sum(axis=1)]}"
            for name in ("rows",) + tuple(extra)) + ")")
    if settlement.stakes is not None:
        n = len(deal)
        print("stakes: " + ", ".join(f"P{i + 1}-P{j + 1} {int(settlement.stakes[i, j])}" for i in range(n)
                                     for j in range(i + 1, n)))
    print_matrix(matrix.tolist())
    return 0


def cmd_deal(args) -> int:
    from cpoker.game.cards import deal
    from cpoker.game.dealing import new_seed

    seed = new_seed() if args.seed is None else args.seed
    hands = deal(args.players, seed)
    if args.json:
        print_json({"seed": seed, "players": [cards_text(h, False) for h in hands]})
    else:
        for i, hand in enumerate(hands):
            print(f"player {i + 1}: {cards_text(hand, args.symbols)}")
        print(f"(seed {seed}: 'cpoker deal --players {args.players} --seed {seed}' deals these hands again)")
    return 0


def cmd_solve(args) -> int:
    from cpoker.jobs.solve import solve

    solution = solve(" ".join(args.hand), opponents=args.opponents, samples=args.samples, seed=args.seed,
                     rules=args.rules, method=args.method, opponent=with_bot_options(args, args.opponent),
                     tables=args.tables,
                     progress=show_progress(args), device=args.device, compare=args.compare)
    if args.json:
        print_json(solution.to_dict())
        return PARTIAL if solution.partial else 0
    sym = args.symbols
    print(f"hand: {cards_text(solution.hand, sym)}")
    if solution.method == "mc":
        assert solution.interval is not None  # (the mc method's)
        low, high = solution.interval
        status = (f"  (PARTIAL: stopped after {solution.samples} of {solution.requested_samples} samples)"
                  if solution.partial else "")
        print(f"best arrangement: EV {fixed(solution.ev, '+.3f')} points per deal, 95% interval ["
              f"{fixed(low, '+.3f')}, {fixed(high, '+.3f')}], "
              f"against {solution.opponents} '{solution.opponent_model}' opponent(s), {solution.samples} samples, "
              f"seed {solution.seed}{status}")
    else:
        print(f"best arrangement by the table policy: table value "
              f"{fixed(solution.ev, '+.3f')} (the sum of its row values "
              f"against the average self-play opponent: a score to rank by, not an EV; "
              f"'--method mc' simulates the EV)")
    for name, row, value in zip(("front", "middle", "back"), solution.best.rows,
                                 (solution.best.front_value, solution.best.middle_value, solution.best.back_value)):
        line = f"  {name:<7}{cards_text(row, sym):<16}{value.describe():<46}"
        if solution.row_probabilities:
            p = solution.row_probabilities[name]
            line += f"win {percent(p['win'])}  tie {percent(p['tie'])}  loss {percent(p['loss'])}"
        print(line.rstrip())
    if solution.alternatives:
        print("alternatives:" if solution.method == "mc" else "alternatives (table value):")
        for i, candidate in enumerate(solution.alternatives, 1):
            shown = candidate.arrangement.format(symbols=sym)
            if candidate.interval is not None:
                low, high = candidate.interval
                print(f"  {i}. {shown:<50} EV {fixed(candidate.ev, '+.3f')}  [{fixed(low, '+.3f')}, "
                      f"{fixed(high, '+.3f')}]")
            else:
                print(f"  {i}. {shown:<50} table value {fixed(candidate.ev, '+.3f')}")
    if solution.compared is not None:
        _print_compared(solution, sym)
    print(f"({solution.candidates} non-fouling arrangements scored in {fixed(solution.seconds, '.2f')} s)")
    print_bot_faults([solution.opponent_model], [solution.bot_faults])
    if solution.declare_natural:
        natural = solution.natural
        assert natural is not None and natural.payout is not None  # (declared: it counts under the rules)
        print(f"DECLARE the natural {natural.kind}: it wins {natural.payout} from each opponent "
              f"({natural.payout * solution.opponents:+d} per deal), more than the best arrangement.")
    if solution.surrender is not None:
        advice = solution.surrender
        worth = "table value" if solution.method == "table" else "EV"
        interval = "" if advice.play_interval is None else \
            f" [{fixed(advice.play_interval[0], '+.3f')}, {fixed(advice.play_interval[1], '+.3f')}]"
        print(f"{'SURRENDER' if advice.advised else 'play'}: surrendering costs "
              f"{fixed(advice.surrender_value, '+.0f')} per deal ({solution.rules.surrender} to each opponent); "
              f"playing the best arrangement is worth {worth} {fixed(advice.play_ev, '+.3f')}{interval}")
    return PARTIAL if solution.partial else 0


def _print_compared(solution, symbols: bool) -> None:
    """Your arrangement (``--compare``) beside the best one: its value and what it costs."""
    yours = solution.compared
    shown = yours.arrangement.format(symbols=symbols)
    if solution.method == "table":
        print(f"your arrangement: {shown}  table value {fixed(yours.ev, '+.3f')}, "
              f"{fixed(solution.ev_lost, '.3f')} below the best"
              + (f" (it fouls: {yours.arrangement.foul_reason})" if yours.arrangement.is_foul else ""))
        return
    if yours.arrangement.is_foul:
        print(f"your arrangement: {shown}  fouls ({yours.arrangement.foul_reason}): "
              f"{fixed(yours.ev, '+.3f')} points per deal")
    else:
        low, high = yours.interval
        print(f"your arrangement: {shown}  EV {fixed(yours.ev, '+.3f')}  [{fixed(low, '+.3f')}, {fixed(high, '+.3f')}]")
    low, high = solution.ev_lost_interval
    verdict = ("it scores as the best one on every sample" if solution.ev_lost == 0 == solution.ev_lost_stderr
               else f"it costs {fixed(solution.ev_lost, '.3f')} points per deal, 95% interval ["
                    f"{fixed(low, '.3f')}, {fixed(high, '.3f')}] "
                    "(both scored on the same samples)")
    print(f"  {verdict}")


def cmd_natural(args) -> int:
    from cpoker.game.naturals import find_naturals, natural
    from cpoker.game.rules import resolve_rules

    hand = " ".join(args.hand)
    rules = resolve_rules(args.rules) if args.rules else None
    found = find_naturals(hand, rules)
    counted = natural(hand, rules) if rules is not None else None
    if args.json:
        print_json({"naturals": [n.to_dict() for n in found],
                     "declare": None if counted is None else counted.to_dict()})
        return 0
    if not found:
        print("no natural")
    for item in found:
        print(f"{item.kind}: {item.arrangement.format(symbols=args.symbols) if item.arrangement else ''}".rstrip(": "))
    if rules is not None:
        print(f"under {rules.name}: " + (
            f"declare {counted.kind} for {counted.payout} per opponent" if counted else "no natural counts"))
    return 0


def cmd_odds(args) -> int:
    from cpoker.jobs.odds import hand_odds, odds_table

    entries = (hand_odds(" ".join(args.hand), args.row, tables=args.tables, rules=args.rules) if args.hand
               else odds_table(args.row, tables=args.tables, rules=args.rules))
    rows = [entry.to_dict() for entry in entries]
    if args.json:
        print_json(rows)
    elif args.csv:
        import csv

        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    else:
        print("odds against a table-policy opponent's same row (kicker ranges: weakest to strongest)")
        print(f"  {'row':<8}{'hand':<46}{'win':>15}{'tie':>15}{'loss':>15}")

        def span(pair):
            return percent(pair[0]).strip() if abs(pair[0] - pair[1]) < 5e-4 else \
                f"{percent(pair[0]).strip()}-{percent(pair[1]).strip()}"

        for entry in entries:
            print(f"  {entry.row:<8}{entry.hand:<46}{span(entry.win):>15}{span(entry.tie):>15}{span(entry.loss):>15}")
    return 0


def add_eval(commands) -> None:
    """The ``eval`` command's parser."""
    sub = command(commands, "eval", "evaluate a 3-card front or a 5-card row", 'cpoker eval "As Ks Qs Js Ts"')
    sub.add_argument("cards", nargs="+", help='cards, e.g. "As Kd Th 9c 9d" (10, ♠♥♦♣ and commas accepted)')
    sub.set_defaults(run=cmd_eval)


def add_score(commands) -> None:
    """The ``score`` command's parser."""
    sub = command(commands, "score", "settle one deal between 2 to 4 players",
                  'cpoker score --player "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac" '
                  '--player "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"\n'
                  '         cpoker score --file deal.json   (JSON: {"players": ["front / middle / back", ...]})')
    sub.add_argument("--player", action="append", metavar='"FRONT / MIDDLE / BACK"',
                     help="one player's rows, 'natural: CARDS' for a declared natural, or 'surrender' when the "
                          "rules allow it; repeat for each player")
    sub.add_argument("--file", help="JSON file with the players' arrangements")
    sub.add_argument("--rules", default=None, help=RULES_HELP)
    sub.add_argument("--stakes", action="append", metavar="A-B=UNITS",
                     help="players A and B play for UNITS a point (seed 003's stakes between pairs), e.g. "
                          "--stakes 1-2=10; repeat for other pairs; every other pair plays for 1")
    sub.add_argument("--misset-fouls", action="store_true",
                     help="settle a mis-set arrangement (wrong row sizes, a repeated card) as a foul, as at the "
                          "table (RULES §04), instead of refusing it")
    sub.set_defaults(run=cmd_score)


def add_natural(commands) -> None:
    """The ``natural`` command's parser."""
    sub = command(commands, "natural", "find the naturals of a 13-card hand (dragon, six pairs, three flushes...)",
                  'cpoker natural "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s" --rules seed001-royalties')
    sub.add_argument("hand", nargs="+", help="13 cards")
    sub.add_argument("--rules", default=None, help="rules whose naturals count (preset name or .toml file)")
    sub.set_defaults(run=cmd_natural)


def add_deal(commands) -> None:
    """The ``deal`` command's parser."""
    sub = command(commands, "deal", "deal 13 random cards to each player", "cpoker deal --players 4 --seed 1")
    sub.add_argument("--players", type=int_in(2, 4), default=4, help="2 to 4 (default 4)")
    seed_option(sub)
    sub.set_defaults(run=cmd_deal)


def add_solve(commands) -> None:
    """The ``solve`` command's parser."""
    sub = command(commands, "solve", "find the best non-fouling arrangement of a 13-card hand",
                  'cpoker solve "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s" --opponents 2 --seed 1')
    sub.add_argument("hand", nargs="+", help="13 cards")
    sub.add_argument("--opponents", type=int_in(1, 3), default=1, help="1 to 3 (default 1)")
    sub.add_argument("--samples", type=int_in(1, MAX_SAMPLES), default=2000, help="Monte Carlo deals (default 2000)")
    seed_option(sub)
    sub.add_argument("--method", choices=("mc", "table"), default="mc", help="mc (default) or table")
    sub.add_argument("--opponent", default="table",
                     help=OPPONENT_HELP)
    sub.add_argument("--rules", default=None, help=RULES_HELP)
    sub.add_argument("--compare", metavar="ARRANGEMENT", default=None,
                     help='your own arrangement of the hand, "front / middle / back": scored on the same samples as '
                          "the best one, with what it costs and its 95%% interval")
    tables_option(sub)
    device_option(sub)
    bot_options(sub)
    sub.add_argument("--quiet", action="store_true", help="no progress bar (none is shown off a terminal)")
    sub.set_defaults(run=cmd_solve)


def add_odds(commands) -> None:
    """The ``odds`` command's parser."""
    sub = command(commands, "odds", "how often a row wins, ties or loses against a table-policy opponent",
                  'cpoker odds --row front --hand "6s 6h 2d"')
    sub.add_argument("--row", choices=("front", "middle", "back"), help="only this row")
    sub.add_argument("--hand", nargs="+", help="one 3- or 5-card row to look up")
    sub.add_argument("--csv", action="store_true", help="CSV output")
    sub.add_argument("--rules", default=None, help=RULES_HELP + "; the opponent plays their tables")
    tables_option(sub)
    sub.set_defaults(run=cmd_odds)
