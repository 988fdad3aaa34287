"""How fast a review goes: played hands per second of ``cpoker.review``, against one default ``solve`` a hand.

    python benchmarks/review_throughput.py [--hands 200] [--samples 2000] [--passes 3]

The session is the greedy strategy's play of dealt hands.  It measures, in one process on the same hands:

* ``solve(hand, compare=played)`` one hand after another, with every core (the default) and with one thread;
* ``review(hands)`` (every core, the default) and ``review(hands, jobs=1)``.

It prints hands per second, and the review's rate as a ratio to ``cores x`` the one-thread solve's rate: the
review's scaling over the machine's cores (1.0 would be perfect), the issue's target being 0.8 or more.
"""

from __future__ import annotations

import argparse
import time

import numba

import cpoker
from cpoker.game.dealing import derived_seed, sample_hands


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    hands = [cpoker.greedy(hand.tolist()) for hand in sample_hands(args.hands, 7)]
    cores = numba.config.NUMBA_NUM_THREADS
    cpoker.review(hands[:2], samples=args.samples, seed=1)  # compile and load everything first

    def solves(jobs: int) -> float:
        numba.set_num_threads(jobs)
        started = time.perf_counter()
        for number, played in enumerate(hands):
            cpoker.solve([int(c) for c in played.cards], samples=args.samples, seed=derived_seed(1, number),
                         compare=played)
        numba.set_num_threads(cores)
        return len(hands) / (time.perf_counter() - started)

    def reviews(jobs: int) -> float:
        started = time.perf_counter()
        cpoker.review(hands, samples=args.samples, seed=1, jobs=jobs)
        return len(hands) / (time.perf_counter() - started)

    calls = {"solve one hand after another, every core (default)": lambda: solves(cores),
             "solve one hand after another, 1 thread": lambda: solves(1),
             "review, every core (default)": lambda: reviews(cores),
             "review, jobs=1": lambda: reviews(1)}
    rates = dict.fromkeys(calls, 0.0)
    for _ in range(args.passes):  # interleaved passes, the best of each: the machine's noise hits them all alike
        for name, call in calls.items():
            rates[name] = max(rates[name], call())
    single = rates["solve one hand after another, 1 thread"]
    print(f"{args.hands} played hands, {args.samples} samples each, {cores} cores, best of {args.passes} passes")
    for name, value in rates.items():
        print(f"  {name:<52}{value:8.1f} hands/s")
    review = rates["review, every core (default)"]
    print(f"review / (cores x one-thread solve) = {review / (cores * single):.2f}; "
          f"review / default solve = {review / rates['solve one hand after another, every core (default)']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
