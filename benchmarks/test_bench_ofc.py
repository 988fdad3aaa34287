"""The open-face game's solvers: the Fantasyland solver on one core (royalties objective: 100 random hands of
each size, the mean time a hand; the issue's bar: 3 ms for 14 cards, 100 ms for 17; the Rust anchor publishes
6.7 ms and 0.67 s; ev objective: 20 hands of 14 and 17 cards, 1000 opponent boards), and the placement solver
on every core (the issue's bar on 2 cores: the opening five, 232 placements at 500 rollouts, in 3 s; a later
Pineapple round at 1000 rollouts in 0.5 s)."""

import pytest
from conftest import random_cards

from cpoker.strategies.ofc.fantasyland import fantasyland


@pytest.mark.parametrize("size", [13, 14, 15, 16, 17])
def test_fantasyland_royalties(benchmark, size):
    hands = [hand.tolist() for hand in random_cards(100, size, seed=size)]
    fantasyland(hands[0], "pineapple", "royalties")  # compiled (or loaded from the cache) before the clock starts

    def solve_all():
        for hand in hands:
            fantasyland(hand, "pineapple", "royalties")

    benchmark.pedantic(solve_all, rounds=3)
    per_hand = benchmark.stats.stats.min / len(hands)
    benchmark.extra_info["ms a hand"] = per_hand * 1e3
    print(f"\nFantasyland, {size} cards: {per_hand * 1e3:.2f} ms a hand (mean of {len(hands)}, best round)")


@pytest.mark.parametrize("size", [14, 17])
def test_fantasyland_ev(benchmark, size):
    from cpoker.jobs.job import numba_threads

    hands = [hand.tolist() for hand in random_cards(20, size, seed=size)]
    fantasyland(hands[0], "progressive", seed=1)

    def solve_all():
        with numba_threads(1):
            for hand in hands:
                fantasyland(hand, "progressive", seed=1)

    benchmark.pedantic(solve_all, rounds=2)
    per_hand = benchmark.stats.stats.min / len(hands)
    benchmark.extra_info["ms a hand"] = per_hand * 1e3
    print(f"\nFantasyland ev, {size} cards: {per_hand * 1e3:.1f} ms a hand (mean of {len(hands)}, best round)")


@pytest.mark.parametrize("decision, board, cards, opponent, samples", [
    ("opening five", "- / - / -", "As Kd 9c 9h 4s", "- / - / -", 500),
    ("a later round", "Qh / 9s 9d / Ah Kh", "Qd 7c 2s", "Kc 7d / 5s 5d / 8c 8h 3d", 1000),
])
def test_placement(benchmark, decision, board, cards, opponent, samples):
    from cpoker.jobs.ofc.placement import place

    place(board, cards, "pineapple", opponents=[opponent], samples=64, seed=1)
    result = benchmark.pedantic(lambda: place(board, cards, "pineapple", opponents=[opponent], samples=samples,
                                              seed=1), rounds=3)
    seconds = benchmark.stats.stats.min
    benchmark.extra_info["seconds"] = seconds
    print(f"\nplacement, {decision}: {len(result.options)} placements x {samples} rollouts in {seconds:.2f} s")
