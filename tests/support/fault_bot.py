"""A bot for the tests: speaks the protocol (docs/bots.md) and misbehaves on demand.

    python fault_bot.py MODE [--at K] [--pidfile FILE]

It arranges each hand as dealt (its first 3 cards in front, the next 5 in the
middle, the last 5 in the back: often a foul, always an arrangement of the
hand) -- :func:`as_dealt`, also a plug-in strategy, is the same play.  From
request ``K`` on (counted from 1; from its first request once restarted, when
it has a pid file) MODE does its misdeed:
``ok`` none; ``crash`` exits with status 3; ``hang`` sleeps; ``garbage``
answers text that is not JSON; ``few`` answers one arrangement too few;
``flood`` writes endless output with no newline; ``wrong-cards`` answers an
arrangement of other cards; ``chatty`` writes 20 MB to standard error and
answers well; ``crash-once`` crashes on request K of its first life only
(it leaves a mark next to its pid file); ``heartbeat`` works 3 s in silence
but for a ``{"alive": true}`` line every 0.3 s, ``busy`` computes for 3 s
without a word, ``murmur`` sleeps 3 s writing a line on standard error every
0.3 s, each then answering well.  Importing nothing of cpoker, it
starts in a few milliseconds.
"""

import argparse
import json
import os
import sys
import time


def as_dealt(hand) -> str:
    """The plug-in twin of the bot's play: ``hand`` (ids, or text) split as given."""
    if not isinstance(hand, str):
        from cpoker import format_cards

        hand = format_cards(hand)
    cards = hand.split()
    return f"{' '.join(cards[:3])} / {' '.join(cards[3:8])} / {' '.join(cards[8:])}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--pidfile", default=None)
    args = parser.parse_args()
    at = args.at
    if args.pidfile:
        with open(args.pidfile, "a") as file:
            file.write(f"{os.getpid()}\n")
        with open(args.pidfile) as file:
            if len(file.read().split()) > 1:
                at = 1  # restarted after its misdeed: it does it again at once
    mode = args.mode
    if mode == "crash-once":
        mark = f"{args.pidfile}.crashed"
        mode = "ok" if os.path.exists(mark) else "crash"
    requests = 0
    for line in sys.stdin:
        requests += 1
        hands = json.loads(line)["hands"]
        answer = [as_dealt(hand) for hand in hands]
        if requests >= at:
            if mode == "crash":
                if args.mode == "crash-once":
                    open(f"{args.pidfile}.crashed", "w").close()
                sys.stderr.write("fault_bot: crashing on purpose\n")
                return 3
            if mode == "hang":
                time.sleep(3600)
            if mode in ("heartbeat", "murmur"):
                stream = sys.stdout if mode == "heartbeat" else sys.stderr
                for _ in range(10):
                    time.sleep(0.3)
                    stream.write('{"alive": true}\n' if mode == "heartbeat" else "still thinking\n")
                    stream.flush()
            if mode == "busy":
                until = time.monotonic() + 3.0
                while time.monotonic() < until:
                    sum(range(1000))
            if mode == "garbage":
                sys.stdout.write("hello, dealer\n")
                sys.stdout.flush()
                continue
            if mode == "few":
                answer = answer[:-1]
            if mode == "flood":
                chunk = "x" * (1 << 20)
                while True:
                    sys.stdout.write(chunk)
            if mode == "wrong-cards":
                answer[0] = answer[0].replace(answer[0].split()[0], _other_card(hands[0]), 1)
            if mode == "chatty":
                sys.stderr.write(("noise " * 1000 + "\n") * 3400)
        sys.stdout.write(json.dumps({"arrangements": answer}) + "\n")
        sys.stdout.flush()
    return 0


def _other_card(hand: str) -> str:
    ranks, suits = "23456789TJQKA", "cdhs"
    held = set(hand.split())
    return next(r + s for r in ranks for s in suits if r + s not in held)


if __name__ == "__main__":
    sys.exit(main())
