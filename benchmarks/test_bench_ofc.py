"""The open-face game's solvers and jobs: the Fantasyland solver on one core (royalties objective: 100 random hands of
each size, the mean time a hand; the issue's bar: 3 ms for 14 cards, 100 ms for 17; the Rust anchor publishes
6.7 ms and 0.67 s; ev objective: 20 hands of 14 and 17 cards, 1000 opponent boards), and the placement solver
on every core (the issue's bar on 2 cores: the opening five, 232 placements at 500 rollouts, in 3 s; a later
Pineapple round at 1000 rollouts in 0.5 s); a match on the hand engine (heuristic against heuristic, and mc:16
against heuristic, one thread), and the settlement of two boards."""

import pytest
from conftest import random_cards

from cpoker.ofc import fantasyland, match, place, settle  # (the public API: the same file measures any version)


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
    import numba

    hands = [hand.tolist() for hand in random_cards(20, size, seed=size)]
    fantasyland(hands[0], "progressive", seed=1)

    def solve_all():
        previous = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            for hand in hands:
                fantasyland(hand, "progressive", seed=1)
        finally:
            numba.set_num_threads(previous)

    benchmark.pedantic(solve_all, rounds=2)
    per_hand = benchmark.stats.stats.min / len(hands)
    benchmark.extra_info["ms a hand"] = per_hand * 1e3
    print(f"\nFantasyland ev, {size} cards: {per_hand * 1e3:.1f} ms a hand (mean of {len(hands)}, best round)")


@pytest.mark.parametrize("decision, board, cards, opponent, samples", [
    ("opening five", "- / - / -", "As Kd 9c 9h 4s", "- / - / -", 500),
    ("a later round", "Qh / 9s 9d / Ah Kh", "Qd 7c 2s", "Kc 7d / 5s 5d / 8c 8h 3d", 1000),
])
def test_placement(benchmark, decision, board, cards, opponent, samples):
    place(board, cards, "pineapple", opponents=[opponent], samples=64, seed=1)
    result = benchmark.pedantic(lambda: place(board, cards, "pineapple", opponents=[opponent], samples=samples,
                                              seed=1), rounds=3)
    seconds = benchmark.stats.stats.min
    benchmark.extra_info["seconds"] = seconds
    print(f"\nplacement, {decision}: {len(result.options)} placements x {samples} rollouts in {seconds:.2f} s")


@pytest.mark.parametrize("strategies, hands", [(("heuristic", "heuristic"), 200), (("mc:16", "heuristic"), 4)])
def test_ofc_match(benchmark, strategies, hands):
    """Hands a second of a duplicate Pineapple match on one thread: the hand engine, the job skeleton, and the
    strategies' decisions (each deal played twice)."""
    match(list(strategies), hands=2, rules="pineapple", seed=1, jobs=1)  # compiled before the clock starts
    benchmark.pedantic(lambda: match(list(strategies), hands=hands, rules="pineapple", seed=1, jobs=1), rounds=3)
    rate = hands / benchmark.stats.stats.min
    benchmark.extra_info["deals/s"] = rate
    print(f"\nofc match {' vs '.join(strategies)}: {rate:,.1f} deals / s (one thread)")


def test_ofc_settle(benchmark):
    """Settling two full boards (ofc score, a hand's end): royalties, fouls, Fantasyland, the points."""
    boards = ["Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks", "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d"]
    settle(boards, "pineapple")
    benchmark.pedantic(lambda: [settle(boards, "pineapple", [True, False]) for _ in range(200)], rounds=5)
    per_call = benchmark.stats.stats.min / 200
    benchmark.extra_info["us a settlement"] = per_call * 1e6
    print(f"\nofc settle, two boards: {per_call * 1e6:.1f} us")
