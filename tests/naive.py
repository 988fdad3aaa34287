"""Slow, obvious reference implementations, written from docs/rules.md alone.

Nothing here imports cpoker's kernels: cards are (rank, suit) pairs with
rank 2..14, hand strengths are Python tuples compared lexicographically.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "shdc"


def card_of_id(card_id: int) -> tuple[int, int]:
    """cpoker's id layout (13 * suit + rank) as (rank 2..14, suit 0..3)."""
    return card_id % 13 + 2, card_id // 13


def strength(cards) -> tuple:
    """(category, ranks in deciding order) of a 3- or 5-card row.

    Categories: 0 high card .. 8 straight flush.  Tuples compare the way
    docs/rules.md compares rows: category, then group ranks, then kickers, and a
    shorter tuple (missing kicker) loses to a longer one with the same prefix.
    """
    ranks = [r for r, _ in cards]
    counts = Counter(ranks)
    # ranks ordered by (how many, rank), highest first: groups, then kickers
    ordered = tuple(sorted(ranks, key=lambda r: (counts[r], r), reverse=True))
    deciding = tuple(dict.fromkeys(ordered))  # each rank once, in deciding order
    shape = sorted(counts.values(), reverse=True)
    if len(cards) == 3:
        if shape == [3]:
            return (3, deciding)
        if shape == [2, 1]:
            return (1, deciding)
        return (0, deciding)
    flush = len({s for _, s in cards}) == 1
    distinct = sorted(set(ranks))
    straight_top = None
    if len(distinct) == 5:
        if distinct[4] - distinct[0] == 4:
            straight_top = distinct[4]
        elif distinct == [2, 3, 4, 5, 14]:
            straight_top = 5
    if straight_top and flush:
        return (8, (straight_top,))
    if shape == [4, 1]:
        return (7, deciding)
    if shape == [3, 2]:
        return (6, deciding)
    if flush:
        return (5, deciding)
    if straight_top:
        return (4, (straight_top,))
    if shape == [3, 1, 1]:
        return (3, deciding)
    if shape == [2, 2, 1]:
        return (2, deciding)
    if shape == [2, 1, 1, 1]:
        return (1, deciding)
    return (0, deciding)


def strength_of_ids(ids) -> tuple:
    return strength([card_of_id(int(c)) for c in ids])


def low_front_strength(cards, ace_low: bool) -> tuple:
    """A front's strength when it plays for low (docs/rules.md, "a low front"), the higher tuple the better front:
    no pair beats a pair, a pair beats trips; then the deciding ranks, each lower one better (the ace below the
    two when ``ace_low``)."""
    ranks = [1 if rank == 14 and ace_low else rank for rank, _ in cards]
    counts = Counter(ranks)
    ordered = sorted(ranks, key=lambda r: (counts[r], r), reverse=True)  # the group, then the kickers, high first
    unpaired_first = {1: 2, 2: 1, 3: 0}[max(counts.values())]
    return (unpaired_first, tuple(-rank for rank in dict.fromkeys(ordered)))


def low_front_strength_of_ids(ids, ace_low: bool) -> tuple:
    return low_front_strength([card_of_id(int(c)) for c in ids], ace_low)


def compare(a: tuple, b: tuple) -> int:
    return (a > b) - (a < b)


def non_fouling_splits(hand_ids) -> set:
    """Every (front, middle, back) split of 13 ids that does not foul, as frozensets."""
    hand = list(hand_ids)
    memo: dict = {}

    def value(cards):
        key = frozenset(cards)
        if key not in memo:
            memo[key] = strength_of_ids(cards)
        return memo[key]

    out = set()
    for back in combinations(hand, 5):
        rest = [c for c in hand if c not in back]
        for middle in combinations(rest, 5):
            front = [c for c in rest if c not in middle]
            if value(back) >= value(middle) >= value(front):
                out.add((frozenset(front), frozenset(middle), frozenset(back)))
    return out


def settle_pair(a, b) -> int:
    """Points arrangement ``a`` wins from ``b``; each is (front, middle, back) ids or None for a foul."""
    if a is None or b is None:
        return 0 if a is None and b is None else (3 if b is None else -3)
    return sum(compare(strength_of_ids(x), strength_of_ids(y)) for x, y in zip(a, b))
