"""Open-face boards in kernels: a full board's keys, royalty, foul and Fantasyland, and two boards' points.

A board is three card masks (front, middle, back).  The rules come as one small int64 array, the
**rule table** (:func:`cpoker.game.ofc.rules.OfcRules.kernel_rules` builds it):

* ``[0:13]`` a front pair's royalty by rank (0 = two .. 12 = ace), ``[13:26]`` front trips';
* ``[26:36]`` a middle's royalty by hand (the nine categories, then the royal flush), ``[36:46]`` a back's;
* ``[46]`` the scoop bonus, ``[47]`` the royalty multiplier;
* ``[48]`` the smallest front pair's rank that enters Fantasyland (13: none), ``[49]`` 1 if front trips enter.

Plain functions of scalars and small arrays, so that every open-face kernel shares them.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.evaluate import key3, key5

CATEGORY_SHIFT = 26
PAIR, TRIPS = 1, 3
ROYAL = 9  # the row tables' tenth entry: a straight flush to the ace
ROYAL_KEY = (8 << CATEGORY_SHIFT) | (0x1000 << 13)  # key5 of ten to ace of one suit
FRONT_PAIRS, FRONT_TRIPS, MIDDLE, BACK = 0, 13, 26, 36
SCOOP, MULTIPLIER, ENTRY_PAIR, ENTRY_TRIPS = 46, 47, 48, 49
RULE_TABLE_SIZE = 50
NO_ENTRY = 13


@jit
def top_rank(ranks):
    """The highest rank (0 = two .. 12 = ace) of a non-empty 13-bit rank set."""
    rank = 0
    while ranks > 1:
        ranks >>= 1
        rank += 1
    return rank


@jit
def front_royalty(key, pairs, trips):
    """A front's royalty from its key (``category << 26 | rank bits << 13 | kickers``): its pair's or trips'."""
    category = key >> CATEGORY_SHIFT
    if category == 0:
        return 0
    rank = top_rank((key >> 13) & 0x1FFF)
    return trips[rank] if category == TRIPS else pairs[rank]


@jit
def row_hand(key):
    """Index of a 5-card row's hand in the row tables: its category, or :data:`ROYAL`."""
    return ROYAL if key == ROYAL_KEY else key >> CATEGORY_SHIFT


@jit
def enters_fantasyland(front_key, table):
    """Whether a front of this key earns Fantasyland (on a board that does not foul)."""
    category = front_key >> CATEGORY_SHIFT
    if category == TRIPS:
        return table[ENTRY_TRIPS] == 1
    if category == PAIR:
        return top_rank((front_key >> 13) & 0x1FFF) >= table[ENTRY_PAIR]
    return False


@jit
def scored_board(front, middle, back, table):
    """A full board's ``(front key, middle key, back key, royalty, fouled)``: the royalty in units, the
    multiplier applied, 0 for a foul (back >= middle >= front, as in the closed game)."""
    front_key, middle_key, back_key = key3(front), key5(middle), key5(back)
    if middle_key > back_key or front_key > middle_key:
        return front_key, middle_key, back_key, np.int64(0), True
    royalty = (front_royalty(front_key, table[FRONT_PAIRS:FRONT_TRIPS], table[FRONT_TRIPS:MIDDLE])
               + table[MIDDLE + row_hand(middle_key)] + table[BACK + row_hand(back_key)])
    return front_key, middle_key, back_key, royalty * table[MULTIPLIER], False


@jit
def board_points(front_a, middle_a, back_a, royalty_a, fouled_a, front_b, middle_b, back_b, royalty_b, fouled_b,
                 scoop):
    """What board ``a`` wins from board ``b``, from their keys, royalties and fouls (RULES.md §4): a row each,
    the scoop bonus for all three, the difference of the royalties; a foul loses all and pays the other's
    royalties; two fouls owe nothing."""
    if fouled_a and fouled_b:
        return np.int64(0)
    if fouled_a:
        return -3 - scoop - royalty_b
    if fouled_b:
        return 3 + scoop + royalty_a
    rows = ((front_a > front_b) - (front_a < front_b) + (middle_a > middle_b) - (middle_a < middle_b)
            + (back_a > back_b) - (back_a < back_b))
    bonus = scoop if rows == 3 else -scoop if rows == -3 else 0
    return np.int64(rows + bonus + royalty_a - royalty_b)
