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


# --- the open-face game (RULES.md §4), from the rules' tables and the strengths above ---------------------------

FIVE_CARD_NAMES = ("high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house",
                   "four of a kind", "straight flush")
RANK_LETTERS = "23456789TJQKA"


def ofc_score(rows, rules, in_fantasyland: bool = False) -> dict:
    """A full open-face board scored as RULES.md §4 reads: ``rows`` are (front, middle, back) card ids; ``rules``
    an ``OfcRules`` (only its tables are read).  The royalties by row (the multiplier applied), the foul, the
    Fantasyland it sends its player to, whether it stays, and the rows' strengths."""
    front, middle, back = (strength_of_ids(row) for row in rows)
    if not back >= middle >= front:
        return {"royalties": (0, 0, 0), "fouled": True, "fantasyland": None, "stays": False,
                "strengths": (front, middle, back)}

    def hand(strength_: tuple) -> str:
        return "royal flush" if strength_[0] == 8 and strength_[1][0] == 14 else FIVE_CARD_NAMES[strength_[0]]

    counts = Counter(card_of_id(int(c))[0] for c in rows[0])
    rank, count = max(counts.items(), key=lambda item: (item[1], item[0]))
    letter = RANK_LETTERS[rank - 2]
    royalties = rules.royalties
    units = (dict(royalties.front_trips).get(letter, 0) if count == 3
             else dict(royalties.front_pairs).get(letter, 0) if count == 2 else 0,
             dict(royalties.middle).get(hand(middle), 0), dict(royalties.back).get(hand(back), 0))
    entries = dict(rules.fantasyland)
    earned = entries.get("trips") if count == 3 else entries.get(letter * 2) if count == 2 else None
    strong = {"front trips": count == 3, "middle full house": middle[0] >= 6, "back four of a kind": back[0] >= 7}
    stays = any(strong[condition] for condition in rules.stay)
    if in_fantasyland:
        earned = (rules.fantasyland_repeat or earned or min(entries.values(), default=None)) if stays else None
    return {"royalties": tuple(u * rules.royalty_multiplier for u in units), "fouled": False, "fantasyland": earned,
            "stays": stays, "strengths": (front, middle, back)}


def ofc_points(a: dict, b: dict, rules) -> int:
    """What the board scored ``a`` (:func:`ofc_score`) wins from ``b``: a row each, the scoop, the royalties; a
    foul loses everything and pays the other's royalties; two fouls owe nothing."""
    if a["fouled"] and b["fouled"]:
        return 0
    if a["fouled"]:
        return -3 - rules.scoop - sum(b["royalties"])
    if b["fouled"]:
        return 3 + rules.scoop + sum(a["royalties"])
    rows = sum(compare(x, y) for x, y in zip(a["strengths"], b["strengths"]))
    bonus = rules.scoop if rows == 3 else -rules.scoop if rows == -3 else 0
    return rows + bonus + sum(a["royalties"]) - sum(b["royalties"])
