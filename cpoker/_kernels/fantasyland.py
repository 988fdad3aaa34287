"""The Fantasyland solver's kernel: the board of 13 of 13-17 cards with the most royalties, exactly.

Every 5-subset of the cards is a back or a middle, every 3-subset a front; each is evaluated once (the closed
game's ``key5``/``key3``) with its royalty.  The search visits the backs richest first and, for each, the
middles richest first and then the fronts, skipping any that shares a card or fouls (back >= middle >= front),
and it stops a loop as soon as no board left in it can reach the best one found: the royalties are sums of
one row each, so a back's boards are bounded by its royalty and the richest middle and front of all.  Ties go
to the board that stays in Fantasyland, then to the strongest back, middle and front, so the answer is
unique.  Plain loops over scalars and arrays made once a call.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.evaluate import key3, key5
from cpoker._kernels.ofc_board import front_royalty as royalty_of_front, row_hand

CATEGORY_SHIFT = 26
TRIPS, FULL_HOUSE, QUADS = 3, 6, 7


@jit
def _better(royalty, stays, back, middle, front, best_royalty, best_stays, best_back, best_middle, best_front):
    """Whether ``(royalty, stays, back, middle, front)`` beats the best's (or may, as a bound: ties do not)."""
    if royalty != best_royalty:
        return royalty > best_royalty
    if stays != best_stays:
        return stays > best_stays
    if back != best_back:
        return back > best_back
    if middle != best_middle:
        return middle > best_middle
    return front > best_front


@jit
def row_subsets(ids, front_pairs, front_trips, middle_units, back_units):
    """Every 5-card subset of ``ids`` (a mask of positions, its key, its royalty as a middle and as a back) and
    every 3-card subset (its mask, key and royalty as a front), each evaluated once."""
    n = ids.shape[0]
    count5 = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) // 120
    masks5 = np.empty(count5, dtype=np.int64)
    keys5 = np.empty(count5, dtype=np.int64)
    middle_royalty = np.empty(count5, dtype=np.int64)
    back_royalty = np.empty(count5, dtype=np.int64)
    i = 0
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                for d in range(c + 1, n):
                    for e in range(d + 1, n):
                        cards = ((np.int64(1) << ids[a]) | (np.int64(1) << ids[b]) | (np.int64(1) << ids[c])
                                 | (np.int64(1) << ids[d]) | (np.int64(1) << ids[e]))
                        masks5[i] = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e)
                        keys5[i] = key5(cards)
                        hand = row_hand(keys5[i])
                        middle_royalty[i] = middle_units[hand]
                        back_royalty[i] = back_units[hand]
                        i += 1
    count3 = n * (n - 1) * (n - 2) // 6
    masks3 = np.empty(count3, dtype=np.int64)
    keys3 = np.empty(count3, dtype=np.int64)
    front_royalty = np.empty(count3, dtype=np.int64)
    i = 0
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                cards = (np.int64(1) << ids[a]) | (np.int64(1) << ids[b]) | (np.int64(1) << ids[c])
                masks3[i] = (1 << a) | (1 << b) | (1 << c)
                keys3[i] = key3(cards)
                front_royalty[i] = royalty_of_front(keys3[i], front_pairs, front_trips)
                i += 1
    return masks5, keys5, middle_royalty, back_royalty, masks3, keys3, front_royalty


@jit
def best_fantasyland_board(ids, front_pairs, front_trips, middle_units, back_units, stay_front_trips,
                           stay_middle_full_house, stay_back_quads):
    """The best board of 13 of the cards ``ids`` (13 to 17 card ids) by royalties.

    ``front_pairs[r]`` and ``front_trips[r]`` are the royalties of a front pair or trips of rank ``r`` (0 = two
    .. 12 = ace); ``middle_units`` and ``back_units`` those of a row by hand (the nine categories, then the royal
    flush); the ``stay_*`` flags, what keeps a player in Fantasyland.  Returns ``(back, middle, front)``, each a
    mask of positions in ``ids``, then the board's royalty and whether it stays.
    """
    masks5, keys5, middle_royalty, back_royalty, masks3, keys3, front_royalty = row_subsets(
        ids, front_pairs, front_trips, middle_units, back_units)
    count5, count3 = keys5.shape[0], keys3.shape[0]
    # richest first, then strongest (keys are below 2**31)
    backs = np.argsort(-(back_royalty * (np.int64(1) << 31) + keys5))
    middles = np.argsort(-(middle_royalty * (np.int64(1) << 31) + keys5))
    fronts = np.argsort(-(front_royalty * (np.int64(1) << 31) + keys3))
    # the rows that may keep a player in Fantasyland, strongest first (a board's "stays" is bounded by them)
    full_houses = np.empty(count5, dtype=np.int64)
    n_full_houses = 0
    for i in range(count5):
        if stay_middle_full_house and (keys5[middles[i]] >> CATEGORY_SHIFT) >= FULL_HOUSE:
            full_houses[n_full_houses] = middles[i]
            n_full_houses += 1
    trips = np.empty(count3, dtype=np.int64)
    n_trips = 0
    for i in range(count3):
        if stay_front_trips and (keys3[fronts[i]] >> CATEGORY_SHIFT) == TRIPS:
            trips[n_trips] = fronts[i]
            n_trips += 1
    top = np.int64(1) << 40  # above every key
    fitting = np.empty(count3, dtype=np.int64)
    best = (np.int64(-1), np.int64(-1), np.int64(-1), np.int64(-1), np.int64(-1))
    best_masks = (np.int64(0), np.int64(0), np.int64(0))
    # Boards are compared by (royalty, stays, back, middle, front).  A back bounds its boards by its royalty
    # plus the richest middle and front that fit beside it, and whether any row beside it may keep the player
    # in Fantasyland; a middle likewise.  Along the sorted middles a bound never rises (the rows that may keep a
    # player in Fantasyland are the strongest of their royalty), so the first below the best ends the loop
    any_middle, any_front = middle_royalty[middles[0]], front_royalty[fronts[0]]
    # cheap bounds of what may sit beside a back of key k, cards aside: the richest middle and front no stronger
    # (a running maximum along the keys), and whether a full house or trips no stronger exists
    by_key5 = np.argsort(keys5)
    sorted_keys5 = keys5[by_key5]
    richest_up_to5 = np.empty(count5, dtype=np.int64)
    running = np.int64(0)
    for i in range(count5):
        running = max(running, middle_royalty[by_key5[i]])
        richest_up_to5[i] = running
    by_key3 = np.argsort(keys3)
    sorted_keys3 = keys3[by_key3]
    richest_up_to3 = np.empty(count3, dtype=np.int64)
    running = np.int64(0)
    for i in range(count3):
        running = max(running, front_royalty[by_key3[i]])
        richest_up_to3[i] = running
    weakest_full_house = top
    for k in range(n_full_houses):
        weakest_full_house = min(weakest_full_house, keys5[full_houses[k]])
    weakest_trips = top
    for k in range(n_trips):
        weakest_trips = min(weakest_trips, keys3[trips[k]])
    for bi in range(count5):
        back = backs[bi]
        if back_royalty[back] + any_middle + any_front < best[0]:
            break  # the backs are richest first: no later one reaches the best royalty even with the richest rows
        back_mask, back_key = masks5[back], keys5[back]
        back_stays = stay_back_quads and (back_key >> CATEGORY_SHIFT) >= QUADS
        below5 = np.searchsorted(sorted_keys5, back_key, side="right") - 1
        below3 = np.searchsorted(sorted_keys3, back_key, side="right") - 1
        cheap = back_royalty[back] + richest_up_to5[below5] + (richest_up_to3[below3] if below3 >= 0 else 0)
        cheap_stays = back_stays or weakest_full_house <= back_key or weakest_trips <= back_key
        if not _better(cheap, np.int64(1 if cheap_stays else 0), back_key, top, top, *best):
            continue
        richest_middle = np.int64(-1)
        for mi in range(count5):
            middle = middles[mi]
            if not masks5[middle] & back_mask and keys5[middle] <= back_key:
                richest_middle = middle_royalty[middle]
                break
        richest_front = np.int64(-1)
        for fi in range(count3):
            front = fronts[fi]
            if not masks3[front] & back_mask and keys3[front] <= back_key:
                richest_front = front_royalty[front]
                break
        may_stay = back_stays
        for k in range(n_full_houses):
            if not may_stay and not masks5[full_houses[k]] & back_mask and keys5[full_houses[k]] <= back_key:
                may_stay = True
        for k in range(n_trips):
            if not may_stay and not masks3[trips[k]] & back_mask:
                may_stay = True
        if not _better(back_royalty[back] + richest_middle + richest_front, np.int64(1 if may_stay else 0),
                       back_key, top, top, *best):
            continue
        # the fronts that fit beside this back, in their order (a few dozen of the hundreds)
        n_fitting = 0
        for fi in range(count3):
            front = fronts[fi]
            if not masks3[front] & back_mask and keys3[front] <= back_key:
                fitting[n_fitting] = front
                n_fitting += 1
        for mi in range(count5):
            middle = middles[mi]
            middle_mask, middle_key = masks5[middle], keys5[middle]
            if middle_mask & back_mask or middle_key > back_key:
                continue
            royalty_middle = back_royalty[back] + middle_royalty[middle]
            middle_stays = back_stays or (stay_middle_full_house and (middle_key >> CATEGORY_SHIFT) >= FULL_HOUSE)
            if not _better(royalty_middle + richest_front, np.int64(1 if middle_stays or n_trips > 0 else 0),
                           back_key, middle_key, top, *best):
                break
            for k in range(n_fitting):
                front = fitting[k]
                royalty = royalty_middle + front_royalty[front]
                if royalty < best[0]:
                    break  # the fronts are richest first
                front_mask, front_key = masks3[front], keys3[front]
                if front_mask & middle_mask or front_key > middle_key:
                    continue
                # the first front that fits is this back and middle's best (richest, then strongest)
                stays = np.int64(1 if middle_stays or (stay_front_trips and (front_key >> CATEGORY_SHIFT) == TRIPS)
                                 else 0)
                if _better(royalty, stays, back_key, middle_key, front_key, *best):
                    best = (royalty, stays, back_key, middle_key, front_key)
                    best_masks = (back_mask, middle_mask, front_mask)
                break
    return best_masks[0], best_masks[1], best_masks[2], best[0], best[1]


@jit
def row_scores(keys, opponent_keys, samples):
    """Each row key's ``(wins - losses) / samples`` and ``wins / samples`` against the sorted ``opponent_keys``."""
    count = opponent_keys.shape[0]
    scores = np.empty(keys.shape[0])
    wins = np.empty(keys.shape[0])
    for i in range(keys.shape[0]):
        below = np.searchsorted(opponent_keys, keys[i], side="left")
        above = count - np.searchsorted(opponent_keys, keys[i], side="right")
        scores[i] = (below - above) / samples
        wins[i] = below / samples
    return scores, wins


@jit
def scoops_against(back_key, middle_key, front_key, opponents, scoop):
    """The scoop bonuses three rows win (and lose) against the opponent boards ``opponents`` (rows: front,
    middle, back keys), summed."""
    total = 0
    for j in range(opponents.shape[0]):
        if front_key > opponents[j, 0] and middle_key > opponents[j, 1] and back_key > opponents[j, 2]:
            total += scoop
        elif front_key < opponents[j, 0] and middle_key < opponents[j, 1] and back_key < opponents[j, 2]:
            total -= scoop
    return total


# values closer than this are a tie (each is a sum of points over the samples, added in different orders: an
# ulp apart), decided by the rows' strength; no bound prunes a board that may tie
TIE = 1e-9


@jit
def better_board(value, keys, other_value, other_keys):
    """Whether a board of ``value`` and row ``keys`` (back, middle, front) ranks above another: a value higher
    beyond :data:`TIE`, or a tie decided by the stronger rows."""
    return value > other_value + TIE or (value >= other_value - TIE and keys > other_keys)


@jit
def top_fantasyland_boards_ev(ids, front_pairs, front_trips, middle_units, back_units, stay_front_trips,
                              stay_middle_full_house, stay_back_quads, stay_value, opponents, samples, scoop, count):
    """The ``count`` boards of 13 of ``ids`` with the highest expected value against sampled opponent boards,
    exactly, best first: boards of distinct rows (two boards whose rows are the same hands, another kicker
    discarded, are one: their values are equal).

    The value of a board is its royalty, plus ``stay_value`` if it stays in Fantasyland, plus what its rows win
    (the scoop bonus included) against each row of ``opponents`` (the front, middle and back keys of the
    sampled opponent boards that do not foul), over ``samples`` (every sample, fouled ones too: what a fouled
    opponent pays does not depend on the board and is added by the caller).  The row points split into a
    part of each row, computed once for every row (against the opponents' sorted keys), and the scoop, at most
    ``scoop`` times the back's win rate: their sum bounds every board of a back, and of a back and middle, so
    the loops stop when no board left can reach the ``count``-th best found.  Ties go to the strongest back,
    middle, front.  Returns the ``(back, middle, front)`` position masks a board (a row each; 0 where fewer
    boards exist) and the values (less the fouled opponents' part; ``-inf`` where none).
    """
    masks5, keys5, middle_units5, back_units5, masks3, keys3, front_units3 = row_subsets(
        ids, front_pairs, front_trips, middle_units, back_units)
    count5, count3 = keys5.shape[0], keys3.shape[0]
    middle_royalty, back_royalty = middle_units5.astype(np.float64), back_units5.astype(np.float64)
    front_royalty = front_units3.astype(np.float64)
    front_score, front_wins = row_scores(keys3, np.sort(opponents[:, 0]), samples)
    middle_score, middle_wins = row_scores(keys5, np.sort(opponents[:, 1]), samples)
    back_score, back_wins = row_scores(keys5, np.sort(opponents[:, 2]), samples)
    front_value = front_royalty + front_score
    middle_value = middle_royalty + middle_score
    back_value = back_royalty + back_score + scoop * back_wins  # (the scoop's bound rides on the back)
    fronts = np.argsort(-front_value, kind="mergesort")
    middles = np.argsort(-middle_value, kind="mergesort")
    backs = np.argsort(-back_value, kind="mergesort")
    any_front, any_middle = front_value[fronts[0]], middle_value[middles[0]]
    any_stay = stay_value if (stay_front_trips or stay_middle_full_house or stay_back_quads) else 0.0
    values = np.full(count, -np.inf)
    found_keys = np.full((count, 3), -1, dtype=np.int64)
    found_masks = np.zeros((count, 3), dtype=np.int64)
    last = count - 1  # the slot whose value every bound must reach
    for bi in range(count5):
        back = backs[bi]
        if back_value[back] + any_middle + any_front + any_stay < values[last] - TIE:
            break  # the backs by bound: no later one reaches the count-th best
        back_mask, back_key = masks5[back], keys5[back]
        back_stays = stay_back_quads and (back_key >> CATEGORY_SHIFT) >= QUADS
        for mi in range(count5):
            middle = middles[mi]
            if back_value[back] + middle_value[middle] + any_front + any_stay < values[last] - TIE:
                break
            middle_mask, middle_key = masks5[middle], keys5[middle]
            if middle_mask & back_mask or middle_key > back_key:
                continue
            middle_stays = back_stays or (stay_middle_full_house and (middle_key >> CATEGORY_SHIFT) >= FULL_HOUSE)
            may_stay = stay_value if (middle_stays or stay_front_trips) else 0.0
            # the scoop is won at most as often as the middle wins (a tighter bound than the back's)
            two_rows = back_value[back] - scoop * (back_wins[back] - min(back_wins[back], middle_wins[middle]))
            if two_rows + middle_value[middle] + any_front + any_stay < values[last] - TIE:
                continue
            for fi in range(count3):
                front = fronts[fi]
                if back_value[back] + middle_value[middle] + front_value[front] + may_stay < values[last] - TIE:
                    break
                front_mask, front_key = masks3[front], keys3[front]
                if front_mask & (back_mask | middle_mask) or front_key > middle_key:
                    continue
                stays = middle_stays or (stay_front_trips and (front_key >> CATEGORY_SHIFT) == TRIPS)
                rows = back_score[back] + middle_score[middle] + front_score[front]
                fixed = (back_royalty[back] + middle_royalty[middle] + front_royalty[front]
                         + (stay_value if stays else 0.0) + rows)
                if fixed + scoop * min(back_wins[back], middle_wins[middle], front_wins[front]) < values[last] - TIE:
                    continue
                value = fixed + scoops_against(back_key, middle_key, front_key, opponents, scoop) / samples
                keys = (back_key, middle_key, front_key)
                if not better_board(value, keys, values[last], (found_keys[last, 0], found_keys[last, 1],
                                                                 found_keys[last, 2])):
                    continue
                seen = False  # the same rows found again (another kicker discarded): the board found first stays
                for k in range(count):
                    if (found_keys[k, 0] == back_key and found_keys[k, 1] == middle_key
                            and found_keys[k, 2] == front_key):
                        seen = True
                if seen:
                    continue
                at = last
                while at > 0 and better_board(value, keys, values[at - 1], (found_keys[at - 1, 0],
                                                                            found_keys[at - 1, 1],
                                                                            found_keys[at - 1, 2])):
                    values[at] = values[at - 1]
                    found_keys[at] = found_keys[at - 1]
                    found_masks[at] = found_masks[at - 1]
                    at -= 1
                values[at] = value
                found_keys[at, 0], found_keys[at, 1], found_keys[at, 2] = back_key, middle_key, front_key
                found_masks[at, 0], found_masks[at, 1], found_masks[at, 2] = back_mask, middle_mask, front_mask
    return found_masks, values

