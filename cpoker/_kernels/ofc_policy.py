"""The open-face rollout policy: where a player puts a round's cards, from their own board and cards alone.

Every legal choice of the round (which cards to keep, which row each goes to) is scored by
:func:`board_value`, a static estimate in points of the board it leaves, and the best is played (ties: the
first in the order of :func:`place_round`, so the policy is a function of its inputs).  The estimate:

* a full board is valued exactly: its royalty, the Fantasyland it earns, and its rows' strength (what wins
  rows), or ``-foul cost`` when it fouls;
* a partial board by what its rows hold now (a pair only grows), what their empty slots may add (a pair or
  better from each slot, a flush or straight drawn to by suited or connected cards), and the chance that a row
  ends above the row below it (a foul), which scales the royalties and the Fantasyland down and costs the
  foul's points.

The policy sees no card it could not see at a table: not the cards still to come, nor the other boards.  It
is fast (a few dozen choices a round, each scored in well under a microsecond), so that the placement
solver's rollouts can play whole hands by it; docs/ofc.md measures its strength.  The weights are an array
(:data:`WEIGHTS` names them) so that they can be measured and changed without recompiling.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.evaluate import key3, key5, lowest_bit, popcount, rank_groups, suit_ranks
from cpoker._kernels.ofc_board import (BACK, ENTRY_PAIR, FRONT_PAIRS, FRONT_TRIPS, MIDDLE, MULTIPLIER,
                                       enters_fantasyland, front_royalty, row_hand, scored_board, top_rank)

# the weights array: its entries, in order
WEIGHTS = ("fantasyland", "row", "foul", "slot_gain", "flush_draw", "straight_draw")
FANTASYLAND, ROW, FOUL, SLOT_GAIN, FLUSH_DRAW, STRAIGHT_DRAW = range(6)
CATEGORY_SHIFT = 26
STRAIGHT, FLUSH = 4, 5
FRONT_SIZE, ROW_SIZE = 3, 5
# what a row's strength is divided by in the row term: the strongest a front, middle, back usually gets
FRONT_SCALE, MIDDLE_SCALE, BACK_SCALE = 3.0, 6.0, 8.0


@jit
def made_strength(mask, five):
    """What a row's cards make now, on the keys' scale: the category plus the top rank of its group over 13
    (a high card's 0 to 0.92); a 5-card row's trips and pair count as a full house."""
    s, h, d, c = suit_ranks(mask)
    singles, pairs, trips, quads = rank_groups(s, h, d, c)
    if quads:
        return 7.0 + top_rank(quads) / 13.0
    if trips:
        if five and pairs:
            return 6.0 + top_rank(trips) / 13.0
        return 3.0 + top_rank(trips) / 13.0
    if pairs:
        if pairs & (pairs - 1):
            return 2.0 + top_rank(pairs) / 13.0
        return 1.0 + top_rank(pairs) / 13.0
    if singles:
        return top_rank(singles) / 13.0
    return 0.0


@jit
def key_strength(key):
    """A full row's strength from its key: category plus its deciding top rank over 13."""
    return (key >> CATEGORY_SHIFT) + top_rank((key >> 13) & 0x1FFF) / 13.0


@jit
def draws(mask):
    """``(flush, straight)``: whether the cards of a 5-card row with room left draw to a flush (all of one
    suit, two or more) and to a straight (no pair, within five ranks, the ace low too)."""
    s, h, d, c = suit_ranks(mask)
    ranks = s | h | d | c
    count = popcount(mask)
    flush = count >= 2 and (ranks == s or ranks == h or ranks == d or ranks == c) and popcount(ranks) == count
    straight = False
    if popcount(ranks) == count and count >= 2:
        low_ace = ((ranks << 1) & 0x1FFE) | (ranks >> 12)  # the ace moved below the two, to bit 0
        for window in (ranks << 1, low_ace):
            spread = top_rank(window) - lowest_bit(window)
            if spread <= 4:
                straight = True
    return flush, straight


@jit
def row_outlook(mask, free, five, weights, table, row):
    """``(made, expected, royalty)`` of a row not yet full (``free`` slots left): its strength now, what it is
    expected to reach, and its royalty expected from what it holds (made trips, a flush or straight drawn to)."""
    made = made_strength(mask, five)
    expected = made + weights[SLOT_GAIN] * free
    royalty = 0.0
    multiplier = table[MULTIPLIER]
    if not five:
        if made >= 1.0:
            royalty = front_royalty(key3(mask), table[FRONT_PAIRS:FRONT_TRIPS], table[FRONT_TRIPS:MIDDLE])
        return made, expected, royalty * multiplier
    base = MIDDLE if row == 1 else BACK
    if made >= 3.0:
        royalty = table[base + int(made)]
    if made < 1.0 and free > 0:
        flush, straight = draws(mask)
        chance = 1.0
        for _ in range(free - 1):
            chance *= 0.35
        if flush:
            expected += weights[FLUSH_DRAW] * chance * (FLUSH - made)
            royalty += weights[FLUSH_DRAW] * chance * table[base + FLUSH]
        if straight:
            expected += weights[STRAIGHT_DRAW] * chance * (STRAIGHT - made)
            royalty += weights[STRAIGHT_DRAW] * chance * table[base + STRAIGHT]
    return made, expected, royalty * multiplier


@jit
def full_row(mask, base, table):
    """``(made, expected, royalty)`` of a full 5-card row: its strength both now and at the end, and its royalty
    (the row table at ``base``)."""
    key = key5(mask)
    strength = key_strength(key)
    return strength, strength, float(table[base + row_hand(key)] * table[MULTIPLIER])


@jit
def order_risk(upper_made, upper_free, lower_made, lower_expected, lower_free):
    """The chance, roughly, that a row ends stronger than the row below it (a foul)."""
    if lower_free == 0:
        if upper_made > lower_made:
            return 1.0
        if upper_free == 0:
            return 0.0
        return min(1.0, max(0.0, 0.3 * upper_free - (lower_made - upper_made)))
    gap = upper_made - lower_made
    risk = (gap + 0.3) / (1.0 * lower_free + 0.3) + 0.05 * upper_free / (lower_free + 1.0)
    if lower_expected > upper_made + 2.0:
        risk *= 0.5
    return min(1.0, max(0.0, risk))


@jit
def partial_terms(front, middle, back, front_free, middle_free, back_free, table, weights):
    """The parts of a partial board's estimate: ``(front made, middle made, back made, front risk, middle risk,
    safe, royalties, Fantasyland, rows)`` -- each row's strength now, the chances of the two fouls, the chance of
    neither, the royalties expected, whether the front holds a Fantasyland's entry, and the rows' term."""
    front_made, front_expected, front_royalty_ = row_outlook(front, front_free, False, weights, table, 0)
    middle_made, middle_expected, middle_royalty = (full_row(middle, MIDDLE, table) if middle_free == 0
                                                    else row_outlook(middle, middle_free, True, weights, table, 1))
    back_made, back_expected, back_royalty = (full_row(back, BACK, table) if back_free == 0
                                              else row_outlook(back, back_free, True, weights, table, 2))
    risk_front = order_risk(front_made, front_free, middle_made, middle_expected, middle_free)
    risk_middle = order_risk(middle_made, middle_free, back_made, back_expected, back_free)
    safe = (1.0 - risk_front) * (1.0 - risk_middle)
    royalties = front_royalty_ + middle_royalty + back_royalty
    entry = front_made >= 1.0 and enters_fantasyland(key3(front), table)
    rows = weights[ROW] * (min(front_expected, 3.9) / FRONT_SCALE + middle_expected / MIDDLE_SCALE
                           + back_expected / BACK_SCALE)
    return front_made, middle_made, back_made, risk_front, risk_middle, safe, royalties, entry, rows


@jit
def full_estimate(royalty, front_strength, middle_strength, back_strength, earns, weights):
    """The static estimate of a full board that does not foul: its royalty, the rows' strength, its Fantasyland."""
    value = float(royalty) + weights[ROW] * (front_strength / FRONT_SCALE + middle_strength / MIDDLE_SCALE
                                             + back_strength / BACK_SCALE)
    if earns:
        value += weights[FANTASYLAND]
    return value


@jit
def partial_estimate(safe, royalties, entry, rows, weights):
    """The static estimate of a partial board from its parts (:func:`partial_terms`): what it gains when it does
    not foul, less the foul's cost when it does."""
    gain = royalties
    if entry:
        gain += weights[FANTASYLAND]
    return safe * (gain + rows) - (1.0 - safe) * weights[FOUL]


@jit
def board_value(front, middle, back, table, weights):
    """The policy's estimate, in points, of a board as it stands (see the module docstring)."""
    front_free = FRONT_SIZE - popcount(front)
    middle_free, back_free = ROW_SIZE - popcount(middle), ROW_SIZE - popcount(back)
    if front_free == 0 and middle_free == 0 and back_free == 0:
        front_key, middle_key, back_key, royalty, fouled = scored_board(front, middle, back, table)
        if fouled:
            return -weights[FOUL]
        return full_estimate(royalty, key_strength(front_key), key_strength(middle_key), key_strength(back_key),
                             enters_fantasyland(front_key, table), weights)
    _, _, _, _, _, safe, royalties, entry, rows = partial_terms(front, middle, back, front_free, middle_free,
                                                                back_free, table, weights)
    return partial_estimate(safe, royalties, entry, rows, weights)


# the learned value's features (board_features), in order
FEATURES = ("static", "bias", "foul", "royalties", "fantasyland", "rows", "front_risk", "middle_risk", "front_made",
            "middle_made", "back_made", "front_free", "middle_free", "back_free", "middle_flush_draw",
            "back_flush_draw", "middle_straight_draw", "back_straight_draw", "middle_over_front", "back_over_middle",
            "fantasyland_at_risk", "front_high", "entry_rank", "back_trips")
FEATURE_COUNT = len(FEATURES)
STAGES = 14  # a learned model's rows: one a count of cards on the board (0 .. 13)


@jit
def entry_rank(front_key, table):
    """How far above the rules' smallest entry a front earning Fantasyland is: 0 for the smallest pair, the
    ranks above it, 3 more for trips (progressive's bigger Fantasylands)."""
    if front_key >> CATEGORY_SHIFT == 3:
        return 3.0 + 12 - table[ENTRY_PAIR]
    return float(top_rank((front_key >> 13) & 0x1FFF) - table[ENTRY_PAIR])


@jit
def board_features(front, middle, back, table, weights, out):
    """Fill ``out`` with the board's :data:`FEATURES`: the static estimate (:func:`board_value`), its parts
    (:func:`partial_terms`), each row's strength and room, draws, the rows' order, and the Fantasyland's entry.
    A full board's are what it is: its foul, royalty, Fantasyland and rows' strengths."""
    out[:] = 0.0
    out[1] = 1.0
    front_free = FRONT_SIZE - popcount(front)
    middle_free, back_free = ROW_SIZE - popcount(middle), ROW_SIZE - popcount(back)
    if front_free == 0 and middle_free == 0 and back_free == 0:
        front_key, middle_key, back_key, royalty, fouled = scored_board(front, middle, back, table)
        if fouled:
            out[0] = -weights[FOUL]
            out[2] = 1.0
            return
        earns = enters_fantasyland(front_key, table)
        front_made, middle_made, back_made = key_strength(front_key), key_strength(middle_key), key_strength(back_key)
        out[0] = full_estimate(royalty, front_made, middle_made, back_made, earns, weights)
        out[3] = float(royalty)
        out[4] = 1.0 if earns else 0.0
        out[5] = front_made / FRONT_SCALE + middle_made / MIDDLE_SCALE + back_made / BACK_SCALE
        out[8], out[9], out[10] = front_made, middle_made, back_made
        out[18] = min(3.0, max(-3.0, middle_made - front_made))
        out[19] = min(3.0, max(-3.0, back_made - middle_made))
        if earns:
            out[22] = entry_rank(front_key, table)
        out[23] = 1.0 if back_made >= 3.0 else 0.0
        return
    front_made, middle_made, back_made, risk_front, risk_middle, safe, royalties, entry, rows = partial_terms(
        front, middle, back, front_free, middle_free, back_free, table, weights)
    out[0] = partial_estimate(safe, royalties, entry, rows, weights)
    out[2] = 1.0 - safe
    out[3] = safe * royalties
    out[4] = safe if entry else 0.0
    out[5] = safe * rows
    out[6], out[7] = risk_front, risk_middle
    out[8], out[9], out[10] = front_made, middle_made, back_made
    out[11], out[12], out[13] = front_free, middle_free, back_free
    if middle_free > 0:
        flush, straight = draws(middle)
        out[14], out[16] = 1.0 if flush else 0.0, 1.0 if straight else 0.0
    if back_free > 0:
        flush, straight = draws(back)
        out[15], out[17] = 1.0 if flush else 0.0, 1.0 if straight else 0.0
    out[18] = min(3.0, max(-3.0, middle_made - front_made))
    out[19] = min(3.0, max(-3.0, back_made - middle_made))
    if entry:
        out[20] = 1.0 - safe
        out[22] = entry_rank(key3(front), table)
    elif front_made < 1.0 and front != 0:
        out[21] = front_made
    out[23] = 1.0 if back_made >= 3.0 else 0.0


@jit
def policy_value(front, middle, back, table, weights, model, features):
    """The value the policy places by: the static estimate (:func:`board_value`) for a one-column ``model``
    (:data:`cpoker.strategies.ofc.rollout_policy.STATIC_MODEL`), else the learned model's row for the board's
    count of cards times its :func:`board_features` (``features``: room for them)."""
    if model.shape[1] == 1:
        return board_value(front, middle, back, table, weights)
    board_features(front, middle, back, table, weights, features)
    stage = popcount(front) + popcount(middle) + popcount(back)
    value = 0.0
    for k in range(features.shape[0]):
        value += model[stage, k] * features[k]
    return value


@jit
def placed_rows(front, middle, back, kept, keep, code, free):
    """``(legal, front, middle, back)``: the board with the ``keep`` cards ``kept`` placed by ``code`` (a row a
    card in base 3: front, middle, back; the first card's the slowest digit), legal when the rows' ``free``
    slots hold them."""
    f, m, b = front, middle, back
    used_f = used_m = used_b = 0
    rest = code
    for i in range(keep - 1, -1, -1):
        row = rest % 3
        rest //= 3
        card = np.int64(1) << kept[i]
        if row == 0:
            used_f += 1
            f |= card
        elif row == 1:
            used_m += 1
            m |= card
        else:
            used_b += 1
            b |= card
    return used_f <= free[0] and used_m <= free[1] and used_b <= free[2], f, m, b


@jit
def kept_cards(cards, count, subset, kept):
    """Fill ``kept`` with the cards of ``cards[:count]`` at the bits of ``subset``."""
    k = 0
    for i in range(count):
        if subset >> i & 1:
            kept[k] = cards[i]
            k += 1


@jit
def legal_choice(front, middle, back, cards, count, keep, target):
    """``(index, front, middle, back)``: the legal choice number ``target`` in :func:`place_round`'s order, or,
    when there is no such choice (``target = -1``), how many there are and the board unchanged."""
    free = (FRONT_SIZE - popcount(front), ROW_SIZE - popcount(middle), ROW_SIZE - popcount(back))
    kept = np.empty(keep, dtype=np.int64)
    index = 0
    for subset in range(1 << count):
        if popcount(subset) != keep:
            continue
        kept_cards(cards, count, subset, kept)
        for code in range(3 ** keep):
            legal, f, m, b = placed_rows(front, middle, back, kept, keep, code, free)
            if legal:
                if index == target:
                    return index, f, m, b
                index += 1
    return index, front, middle, back


@jit
def choose_round(front, middle, back, cards, count, keep, table, weights, model, explore):
    """A round's placement: the policy's (``explore < 0``: :func:`place_round`), or, for ``explore`` in
    ``[0, 1)``, the legal choice at that fraction of the choices in :func:`place_round`'s order (a uniform
    ``explore`` picks one at random: the learning's exploration)."""
    if explore < 0.0:
        return place_round(front, middle, back, cards, count, keep, table, weights, model)  # (the policy's)
    total = legal_choice(front, middle, back, cards, count, keep, -1)[0]
    _, f, m, b = legal_choice(front, middle, back, cards, count, keep, int(explore * total))
    return f, m, b


@jit
def place_round(front, middle, back, cards, count, keep, table, weights, model):
    """The policy's choice for a round: ``keep`` of the ``count`` first ``cards`` (card ids) placed on the
    board ``(front, middle, back)``, the rest discarded.  Returns the new board's three masks.

    Choices are tried by the kept cards (subsets in increasing bit order), then by each kept card's row
    (front, middle, back: the first card's row varying slowest); the first of the best values wins.
    """
    return best_placement(front, middle, back, cards, count, keep, table, weights, model,
                          np.empty(FEATURE_COUNT), np.empty(keep, dtype=np.int64))


@jit
def best_placement(front, middle, back, cards, count, keep, table, weights, model, features, kept):
    """:func:`place_round`, with room for the features and the kept cards given (a board's rounds share it)."""
    free = (FRONT_SIZE - popcount(front), ROW_SIZE - popcount(middle), ROW_SIZE - popcount(back))
    best = -np.inf
    best_front, best_middle, best_back = front, middle, back
    assignments = 3 ** keep
    for subset in range(1 << count):
        if popcount(subset) != keep:
            continue
        kept_cards(cards, count, subset, kept)
        for code in range(assignments):
            legal, f, m, b = placed_rows(front, middle, back, kept, keep, code, free)
            if not legal:
                continue
            value = policy_value(f, m, b, table, weights, model, features)
            if value > best:
                best = value
                best_front, best_middle, best_back = f, m, b
    return best_front, best_middle, best_back


@jit
def complete_board(front, middle, back, deck, position, first_cards, round_cards, round_places, table, weights,
                   model):
    """The board the policy ends with, dealt from ``deck[position:]`` as the rules deal (the first cards to an
    empty board, then rounds), and the position after the cards it took."""
    placed = popcount(front) + popcount(middle) + popcount(back)
    features = np.empty(FEATURE_COUNT)
    kept = np.empty(max(first_cards, round_places), dtype=np.int64)
    while placed < 13:
        if placed == 0:
            count, keep = first_cards, first_cards
        else:
            count, keep = round_cards, round_places
        front, middle, back = best_placement(front, middle, back, deck[position:position + count], count, keep,
                                             table, weights, model, features, kept)
        position += count
        placed += keep
    return front, middle, back, position
