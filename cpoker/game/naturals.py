"""Naturals: 13-card hands declared instead of arranged (docs/rules.md "Variants", seeds 001-003).

* dragon -- 13 distinct ranks, 2 to A;
* four trips -- four separate three-of-a-kinds (quads count as trips) plus one card;
* three flushes -- a back and a middle flush and a front of three cards of one suit;
* three straights -- back and middle straights and a front of three consecutive ranks;
* six pairs -- six pairs among the 13 cards (quads count as two pairs);
* no people -- no jack, queen or king (seed 002).

Natural against natural (seed 003): the stronger kind wins (the order above);
six pairs against six pairs compares the pairs from the highest down, else a
tie with no bonus; three flushes or three straights compare the back, then the
middle, then the front; other equal kinds tie.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional

import numpy as np

from cpoker.game.arrangements import Arrangement, arrangement_of_split, parse_hand
from cpoker.game.cards import CardsLike, format_cards
from cpoker.game.rules import NATURAL_KINDS, Rules, resolve_rules


@dataclass(frozen=True)
class Natural:
    """A natural held by a hand, as declared to the table.

    ``payout`` is what it wins from each opponent under the rules it was
    found with (``None`` when looked for without rules); ``arrangement`` is the
    arrangement that shows it, for three flushes and three straights.
    """

    kind: str
    hand: tuple
    payout: Optional[int] = None
    arrangement: Optional[Arrangement] = None
    tiebreak: tuple = ()

    @property
    def strength(self) -> int:
        return len(NATURAL_KINDS) - NATURAL_KINDS.index(self.kind)

    def compare(self, other: "Natural") -> int:
        """+1 if this natural beats ``other``, -1 if it loses, 0 for a tie (seed 003)."""
        if self.strength != other.strength:
            return 1 if self.strength > other.strength else -1
        return (self.tiebreak > other.tiebreak) - (self.tiebreak < other.tiebreak)

    def __str__(self) -> str:
        shown = self.arrangement.format() if self.arrangement is not None else format_cards(self.hand)
        return f"{self.kind} ({shown})"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "hand": format_cards(self.hand), "payout": self.payout,
                "arrangement": None if self.arrangement is None else self.arrangement.format()}


def _three_of_a_shape(hand_ids: np.ndarray, kind: str) -> Optional[tuple[Arrangement, tuple]]:
    """The best split whose three rows are all flushes (or all straights), if any."""
    from cpoker.game.arrangements import arrangements
    from cpoker.game.lookup_tables import split_tables

    found = arrangements(hand_ids.tolist())
    if not len(found):
        return None
    t = split_tables()
    ranks, suits = hand_ids % 13, hand_ids // 13
    front_ranks = np.sort(ranks[t.subsets3], axis=1)
    if kind == "three flushes":
        five = {5, 8}
        front_ok = (suits[t.subsets3] == suits[t.subsets3][:, :1]).all(axis=1)
    else:
        five = {4, 8}
        consecutive = (np.diff(front_ranks, axis=1) == 1).all(axis=1)
        ace_two_three = (front_ranks == [0, 1, 12]).all(axis=1)
        front_ok = consecutive | ace_two_three
    splits = t.splits[found.split_ids]
    ok = (np.isin(found.back_keys >> 26, list(five)) & np.isin(found.middle_keys >> 26, list(five))
          & front_ok[splits[:, 2]])
    if not ok.any():
        return None
    candidates = np.flatnonzero(ok)
    best = candidates[np.lexsort((found.front_keys[candidates], found.middle_keys[candidates],
                                  found.back_keys[candidates]))[-1]]
    tiebreak = (int(found.back_keys[best]), int(found.middle_keys[best]), int(found.front_keys[best]))
    return arrangement_of_split(found.hand, int(found.split_ids[best])), tiebreak


def find_naturals(hand: CardsLike, rules: "Rules | str | None" = None) -> list[Natural]:
    """Every natural a 13-card hand holds, strongest first.

    With ``rules``, each carries the payout those rules give it (``None`` for a
    kind the rules do not count); without, no payouts are given.
    """
    if rules is not None:
        rules = resolve_rules(rules)
        counted = rules.naturals
        return [Natural(n.kind, n.hand, counted.payout(n.kind) if counted else None, n.arrangement, n.tiebreak)
                for n in find_naturals(hand)]
    hand_ids = parse_hand(hand)
    cards = tuple(int(c) for c in hand_ids)
    counts = Counter(int(c) % 13 for c in hand_ids)
    found: list[Natural] = []
    if len(counts) == 13:
        found.append(Natural("dragon", cards))
    trips = sorted((r for r, n in counts.items() if n >= 3), reverse=True)
    if len(trips) >= 4:
        found.append(Natural("four trips", cards, tiebreak=tuple(trips)))
    for kind in ("three flushes", "three straights"):
        shown = _three_of_a_shape(hand_ids, kind)
        if shown is not None:
            found.append(Natural(kind, cards, arrangement=shown[0], tiebreak=shown[1]))
    pairs = sorted((r for r, n in counts.items() for _ in range(n // 2)), reverse=True)
    if len(pairs) >= 6:
        found.append(Natural("six pairs", cards, tiebreak=tuple(pairs)))
    if not {9, 10, 11} & set(counts):
        found.append(Natural("no people", cards))
    return found


def natural(hand: CardsLike, rules: "Rules | str | None" = None) -> Optional[Natural]:
    """The strongest natural of a 13-card hand that ``rules`` count, with its payout.

    With ``rules=None`` every kind is looked for and no payout is given; with
    rules that count no naturals (the default Pagat game) the answer is ``None``
    whenever ``rules`` is passed.

    >>> natural("As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s").kind
    'dragon'
    """
    found = find_naturals(hand)
    if rules is None:
        return found[0] if found else None
    rules = resolve_rules(rules)
    if rules.naturals is None:
        return None
    for item in found:
        payout = rules.naturals.payout(item.kind)
        if payout is not None:
            return Natural(item.kind, item.hand, payout, item.arrangement, item.tiebreak)
    return None
