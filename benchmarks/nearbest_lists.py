"""How many hands a tables build searches, by the size of its near-best lists (cpoker.jobs.nearbest).

    python benchmarks/nearbest_lists.py [--hands N] [--first N] [--rules NAME] [DELTA,ROWS ...]

Runs one build for each list size given (default: the shipped ``DELTA`` and ``CAPACITY``, then 0.1 rows
deep and 8 rows, those before them) and prints a JSON line for each: the passes' worth of hands its
self-play and its rounds with the card-removal correction searched (hands searched over the sample
size), the share each pass searched, its seconds and its tables' fingerprint, which must not change.

By default the build is the 10**8-hand build's schedule scaled down: 200,000 hands whose first
iteration plays 8,192 (``--first``, patched into :data:`cpoker.jobs.selfplay.WARMUP_HANDS`; 10**8 hands play
4,194,304 first), which searched 4.66 passes' worth in its self-play with lists of 8 rows down to 0.1,
as the 10**8-hand build did on an H200 (4.73).  A GPU build's time is about 1.36 s a pass plus 0.43 µs
a hand searched (the H200's fit), so the searches are what this counts.
"""

import argparse
import json
import sys
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def searched_by_build(hands: int, first: int, delta: float, rows: int, rules: "str | None") -> dict:
    """One build with lists ``rows`` deep down to ``delta`` below the best: what it searched, pass by pass."""
    import cpoker.jobs.nearbest
    import cpoker.jobs.selfplay
    from cuda_check import memories_made

    with memories_made(delta=delta, capacity=rows) as made, mock.patch("cpoker.jobs.selfplay.WARMUP_HANDS", first):
        started = time.perf_counter()
        tables = cpoker.jobs.selfplay.build_tables(hands=hands, seed=2026, rules=rules)
        seconds = time.perf_counter() - started
    memory, *learnings = made  # the self-play's lists, and on a CPU the correction's learnings'
    iterations = len(tables.history)
    passes = memory.by_pass
    return {"hands": hands, "first": first, "delta": delta, "rows": rows, "seconds": round(seconds, 1),
            "bytes a hand": cpoker.jobs.nearbest.bytes_per_hand(rows), "iterations": iterations,
            "self-play searched": round(sum(searched for searched, _ in passes[:iterations]) / hands, 3),
            "rounds searched": round(sum(searched for searched, _ in passes[iterations:]) / hands, 3),
            "share searched by pass": [round(searched / max(1, searched + certified), 4)
                                       for searched, certified in passes],
            "share kept by pass": [round(kept / max(1, sum(counts)), 4)
                                   for kept, counts in zip(memory.kept_by_pass, passes)],
            "learnings, share searched by learning": [round(searched / max(1, searched + certified), 4)
                                                      for learning in learnings
                                                      for searched, certified in learning.by_pass],
            "fingerprint": tables.fingerprint}


def main(argv: list) -> int:
    from cpoker.jobs.nearbest import CAPACITY, DELTA

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--first", type=int, default=8_192)
    parser.add_argument("--rules", default=None)
    parser.add_argument("sizes", nargs="*", default=[f"{DELTA},{CAPACITY}", "0.1,8"], metavar="DELTA,ROWS")
    options = parser.parse_args(argv)
    for size in options.sizes:
        delta, rows = size.split(",")
        print(json.dumps(searched_by_build(options.hands, options.first, float(delta), int(rows), options.rules)),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
