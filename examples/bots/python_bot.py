#!/usr/bin/env python3
"""A bot that speaks cpoker's line protocol (docs/bots.md), playing one of cpoker's own strategies.

    cpoker match table "cmd:python examples/bots/python_bot.py --strategy greedy" --deals 10000

It reads one JSON request a line from standard input and answers each with one
line: the arrangements of the request's hands, in order.  It ends when its
input ends.  A bot in any language does the same.
"""

import argparse
import json
import sys

from cpoker import parse_cards
from cpoker.strategies.strategy import resolve_strategy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="greedy", help="greedy (default), table, or any cpoker strategy name")
    args = parser.parse_args()
    for line in sys.stdin:
        request = json.loads(line)
        rules = request.get("rules", "pagat")
        # the table policy of the rules in force, as cpoker's own `table` plays it
        name = f"table@{rules}" if args.strategy == "table" else args.strategy
        _, strategy = resolve_strategy(name)
        hands = [[int(card) for card in parse_cards(text, count=13)] for text in request["hands"]]
        answer = {"arrangements": [str(strategy(hand)) for hand in hands]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
