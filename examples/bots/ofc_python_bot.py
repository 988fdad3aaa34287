#!/usr/bin/env python3
"""An open-face bot that speaks cpoker's line protocol (docs/bots.md), placing cards with cpoker's heuristic.

    cpoker ofc match heuristic "cmd:python examples/bots/ofc_python_bot.py" --rules pineapple --hands 100

It reads one JSON request a line (one decision: the board, the cards dealt, how many to keep, what it can see)
and answers each with one line: the board it leaves.  It ends when its input ends.
"""

import json
import sys

from cpoker.game.cards import parse_cards
from cpoker.game.ofc.boards import Board
from cpoker.strategies.ofc.heuristic import heuristic
from cpoker.game.ofc.hand import OfcView
from cpoker.game.ofc.rules import OfcRules


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels every decision uses, before the first request is read:
    the first answer has the start-up allowance, the later ones only their time (docs/bots.md)."""
    from cpoker.strategies.ofc.fantasyland import fantasyland

    fantasyland("As Ad Ac Kh Kd Qs Jh Th 9c 8c 7c 6c 5c 2d", "pineapple", "royalties")
    heuristic(OfcView(rules=OfcRules.preset("pineapple"), board=Board(), cards=parse_cards("As Kd 9c 9h 4s"),
                      keep=5, opponents=(), discards=(), fantasyland=False, seat=0, seed=0))


def main() -> int:
    warm_up()
    for line in sys.stdin:
        request = json.loads(line)
        view = OfcView(rules=OfcRules.preset(request["game"]), board=Board.parse(request["board"]),
                       cards=parse_cards(request["cards"]), keep=request["keep"],
                       opponents=tuple(Board.parse(b) for b in request["opponents"]),
                       discards=parse_cards(request["discards"]) if request["discards"] else (),
                       fantasyland=request["fantasyland"], seat=request["seat"], seed=0)
        sys.stdout.write(json.dumps({"board": str(heuristic(view))}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
