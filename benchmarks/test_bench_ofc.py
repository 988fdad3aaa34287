"""The open-face game's solvers on one core: the Fantasyland solver (royalties objective) on 100 random hands of
each size, the mean time a hand (the issue's bar: 3 ms for 14 cards, 100 ms for 17; the Rust anchor publishes
6.7 ms and 0.67 s)."""

import pytest
from conftest import random_cards

from cpoker.game.ofc.fantasyland import fantasyland


@pytest.mark.parametrize("size", [13, 14, 15, 16, 17])
def test_fantasyland_royalties(benchmark, size):
    hands = [hand.tolist() for hand in random_cards(100, size, seed=size)]
    fantasyland(hands[0], "pineapple")  # compiled (or loaded from the cache) before the clock starts

    def solve_all():
        for hand in hands:
            fantasyland(hand, "pineapple")

    benchmark.pedantic(solve_all, rounds=3)
    per_hand = benchmark.stats.stats.min / len(hands)
    benchmark.extra_info["ms a hand"] = per_hand * 1e3
    print(f"\nFantasyland, {size} cards: {per_hand * 1e3:.2f} ms a hand (mean of {len(hands)}, best round)")
