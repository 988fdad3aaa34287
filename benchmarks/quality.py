"""Strategy quality: duplicate head-to-head matches and the table policy's exploitability.

    python benchmarks/quality.py                      # full study (a few minutes on one core)
    python benchmarks/quality.py --deals 2000 --mc-deals 100 --hands 100   # quick look

Head-to-head: each deal gives two random hands; strategy A plays hand 1 and B
hand 2, then they swap.  Points per deal for A, averaged over both games,
with a 95% interval.  Exploitability: for random hands, the Monte Carlo best
response (chosen on one set of samples) and the table policy's own choice,
both scored on an independent set of samples against table-policy opponents;
the mean gain is how much the table policy leaves on the table.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cpoker._kernels.montecarlo import candidate_results
from cpoker.game.arrangements import parse_hand
from cpoker.game.dealing import sample_hands
from cpoker.jobs.solve import deal_opponents, solve
from cpoker.strategies.strategy import arrange_keys


def mean_interval(points: np.ndarray) -> tuple[float, float]:
    return float(points.mean()), float(1.96 * points.std(ddof=1) / np.sqrt(len(points)))


def duplicate_match(a, b, deals: int, seed: int) -> np.ndarray:
    """Points per deal of strategy ``a`` against ``b``, each pair of hands played both ways round."""
    hands = sample_hands(2 * deals, seed).reshape(deals, 2, 13)
    first, second = hands[:, 0], hands[:, 1]

    def score(x, y):
        return np.sign(x.astype(np.int64) - y).sum(axis=1)

    return (score(a(first), b(second)) + score(a(second), b(first))) / 2


def fast(name):
    return lambda hands: arrange_keys(name, hands)


def mc_strategy(samples: int, seed: int):
    def arrange(hands):
        keys = np.empty((len(hands), 3), dtype=np.int32)
        for i, hand in enumerate(hands):
            best = solve(hand.tolist(), samples=samples, seed=seed + i).best
            keys[i] = [v.key for v in best.values]
        return keys

    return arrange


def score_on_fresh_samples(hand_ids, row_keys: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """Mean points of each candidate (rows of (front, middle, back) keys) on an independent deal."""
    dealt = deal_opponents(hand_ids, 1, samples, seed)
    opponents = arrange_keys("table", dealt.reshape(-1, 13)).reshape(samples, 1, 3)
    totals, _, _ = candidate_results(np.ascontiguousarray(row_keys, dtype=np.int32), opponents)
    return totals.mean(axis=1)


def exploitability(hands: int, samples: int, seed: int) -> np.ndarray:
    gains = np.empty(hands)
    for i, hand in enumerate(sample_hands(hands, seed)):
        ids = parse_hand(hand.tolist())
        best = solve(ids.tolist(), samples=samples, seed=seed + 2 * i).best
        own = arrange_keys("table", ids[None, :])[0]
        candidates = np.array([[v.key for v in best.values], own])
        scores = score_on_fresh_samples(ids, candidates, samples, seed + 2 * i + 1)
        gains[i] = scores[0] - scores[1]
    return gains


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=100_000, help="deals for table vs greedy")
    parser.add_argument("--mc-deals", type=int, default=1_000, help="deals for mc vs table")
    parser.add_argument("--hands", type=int, default=1_000, help="hands for the exploitability study")
    parser.add_argument("--samples", type=int, default=2_000, help="Monte Carlo samples per solve")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rows = []
    started = time.perf_counter()
    rows.append(("table vs greedy", args.deals, *mean_interval(
        duplicate_match(fast("table"), fast("greedy"), args.deals, args.seed))))
    rows.append(("mc vs table", args.mc_deals, *mean_interval(
        duplicate_match(mc_strategy(args.samples, args.seed), fast("table"), args.mc_deals, args.seed + 1))))
    print(f"{'match':<18}{'deals':>9}   points per deal (95% interval)")
    for name, deals, mean, half in rows:
        print(f"{name:<18}{deals:>9}   {mean:+.4f} ± {half:.4f}")
    gains = exploitability(args.hands, args.samples, args.seed + 2)
    mean, half = mean_interval(gains)
    print(f"\nexploitability of the table policy (1 opponent, {args.hands} hands, {args.samples} samples):")
    print(f"  mean EV gain of the MC best response over the table choice: {mean:+.4f} ± {half:.4f} points per hand")
    print(f"  hands where the choices differ in value: {np.mean(gains != 0):.1%}")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
