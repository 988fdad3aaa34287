"""What the bot protocol costs: deals per second of a match against a bot, against the same match built in.

    python benchmarks/bot_overhead.py [--deals 20000] [--c-bot]

Plays ``match greedy greedy`` (both seats in numba), ``match greedy
cmd:<a bot that does no work>`` (the protocol's own cost) and ``match greedy
cmd:<python bot playing greedy>``, the bots at batch sizes 1 and 1,000, and
prints deals per second with each as a ratio to the built-in match.  With
``--c-bot`` it also compiles ``examples/bots/greedy_bot.c`` (with ``cc``) and
plays it.  The bots' start-up is excluded (the match starts them
in its warm-up).  The Python bot arranges hand by hand with cpoker's greedy:
most of its cost is its own, not the protocol's.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cpoker

ROOT = Path(__file__).resolve().parents[1]
NULL_BOT = """import json, sys
for line in sys.stdin:
    hands = [hand.split() for hand in json.loads(line)["hands"]]
    answer = [" ".join(h[:3]) + " / " + " ".join(h[3:8]) + " / " + " ".join(h[8:]) for h in hands]
    sys.stdout.write(json.dumps({"arrangements": answer}) + "\\n")
    sys.stdout.flush()
"""


def rate(strategies, deals: int) -> float:
    started = time.perf_counter()
    result = cpoker.match(strategies, deals=deals, seed=1)
    assert result.deals == deals and not any(result.bot_faults), result
    return deals / result.seconds if result.seconds else deals / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--c-bot", action="store_true")
    args = parser.parse_args()
    python_bot = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'examples/bots/python_bot.py'))}"
    rows = [("match greedy greedy (built in)", ["greedy", "greedy"], args.deals)]
    null_bot = Path(tempfile.mkdtemp()) / "null_bot.py"  # the protocol alone: a bot that does no work
    null_bot.write_text(NULL_BOT)
    for batch, deals in ((1000, args.deals), (1, max(1000, args.deals // 20))):
        rows.append((f"match greedy cmd:null_bot.py, batch {batch}",
                     ["greedy", cpoker.Bot(f"{shlex.quote(sys.executable)} {null_bot}", batch=batch)], deals))
    for batch, deals in ((1000, args.deals), (1, max(1000, args.deals // 20))):
        rows.append((f"match greedy cmd:python_bot.py, batch {batch}",
                     ["greedy", cpoker.Bot(python_bot, batch=batch)], deals))
    if args.c_bot:
        binary = Path(tempfile.mkdtemp()) / "greedy_bot"
        subprocess.run([shutil.which("cc") or "cc", "-O2", "-o", str(binary), str(ROOT / "examples/bots/greedy_bot.c")],
                       check=True)
        for batch, deals in ((1000, args.deals), (1, max(1000, args.deals // 20))):
            rows.append((f"match greedy cmd:greedy_bot (C), batch {batch}",
                         ["greedy", cpoker.Bot(str(binary), batch=batch)], deals))
    base = None
    print(f"{'call':<48}{'deals':>8}{'deals/s':>12}{'vs built in':>13}")
    for label, strategies, deals in rows:
        measured = rate(strategies, deals)
        base = base or measured
        print(f"{label:<48}{deals:>8}{measured:>12,.0f}{measured / base:>12.4f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
