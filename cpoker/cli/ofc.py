"""``cpoker ofc``: the open-face game (OFC, Pineapple, progressive Pineapple), beside the closed game."""

from __future__ import annotations


from cpoker.cli.common import fail, print_json, print_matrix
from cpoker.cli.options import Parser, command

OFC_RULES_HELP = "ofc (default), pineapple, progressive, or a house-rules .toml file (docs/ofc.md)"


def cmd_ofc(args) -> int:
    if args.ofc_command == "score":
        return _score(args)
    if args.ofc_command == "fantasy":
        return _fantasy(args)
    return fail(f"unknown ofc action {args.ofc_command!r}")  # pragma: no cover  (argparse refuses it first)


def _fantasy(args) -> int:
    from cpoker.cli.common import fixed
    from cpoker.game.cards import format_cards
    from cpoker.game.ofc.boards import ROW_NAMES
    from cpoker.game.ofc.fantasyland import fantasyland

    best = fantasyland(" ".join(args.cards), args.rules, args.objective)
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
    print(f"royalties {best.total}; {stays}  ({fixed(best.seconds * 1e3, '.1f')} ms)")
    return 0


def _score(args) -> int:
    from cpoker.game.ofc.boards import ROW_NAMES
    from cpoker.game.ofc.scoring import settle
    from cpoker.system.errors import OptionError

    players = len(args.player)
    flags = [False] * players
    for number in args.fantasyland or []:
        if not 1 <= number <= players:
            raise OptionError(f"--fantasyland {number}: name a player from 1 to {players}")
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
    fantasy.add_argument("--objective", default="royalties", choices=["royalties"],
                         help="royalties: the board with the most royalties, exactly (ties: the one that stays, then "
                              "the strongest rows)")
    sub.set_defaults(run=cmd_ofc)
