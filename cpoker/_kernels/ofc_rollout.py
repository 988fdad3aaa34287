"""The placement solver's rollouts: each option's board and every opponent's, played to the end and scored.

Sample ``s`` deals the unknown cards in the order ``decks[s]``: the player's own later cards first, then each
opponent's in turn, so every option of the player meets the same opponents' boards and the same cards of its
own (common random numbers: the differences between options are measured on the same deals).  Each board is
completed by the rollout policy (:mod:`cpoker._kernels.ofc_policy`), which sees only its own board and cards,
then scored against each opponent's (:func:`cpoker._kernels.ofc_board.board_points`), plus what the
Fantasyland the player's board earns is worth.  An opponent in Fantasyland is dealt its hidden cards and sets
them as the Fantasyland solver does for royalties.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit
from cpoker._kernels.fantasyland import best_fantasyland_board
from cpoker._kernels.ofc_board import (BACK, CATEGORY_SHIFT, FRONT_PAIRS, FRONT_TRIPS, MIDDLE, SCOOP, TRIPS,
                                       board_points, enters_fantasyland, scored_board, top_rank)
from cpoker._kernels.ofc_policy import complete_board


@jit
def entry_value(front_key, entry_values):
    """What earning Fantasyland with this front is worth: ``entry_values`` by the front's pair rank, its last
    entry for trips (:func:`cpoker.strategies.ofc.rollout_policy.entry_values`)."""
    if front_key >> CATEGORY_SHIFT == TRIPS:
        return entry_values[entry_values.shape[0] - 1]
    return entry_values[top_rank((front_key >> 13) & 0x1FFF)]


@jit
def earned_value(front_key, fouled, table, entry_values):
    """What a full board's Fantasyland is worth (:func:`entry_value`): 0 for a board that fouls or earns none."""
    if not fouled and enters_fantasyland(front_key, table):
        return entry_value(front_key, entry_values)
    return 0.0


@jit
def fantasyland_board(cards, table, stay_flags):
    """The board a player in Fantasyland sets from the card ids ``cards`` (13 to 17), for the most royalties
    (:func:`best_fantasyland_board`): its ``((front key, middle key, back key, royalty, fouled), stays)``."""
    ids = np.sort(cards)
    back, middle, front, _, stay = best_fantasyland_board(
        ids, table[FRONT_PAIRS:FRONT_TRIPS], table[FRONT_TRIPS:MIDDLE], table[MIDDLE:BACK], table[BACK:SCOOP],
        stay_flags[0], stay_flags[1], stay_flags[2])
    return scored_board(positions_to_cards(front, ids), positions_to_cards(middle, ids),
                        positions_to_cards(back, ids), table), stay == 1


@jit
def rollout_values(options, opponents, opponent_fantasylands, decks, own_cards, first_cards, round_cards,
                   round_places, table, weights, model, entry_values, stay_flags, values, outcomes, start, stop):
    """Fill ``values[o, s]`` for samples ``start .. stop``: what option ``o`` (a row of ``options``: front,
    middle, back masks) wins in sample ``s`` against every opponent (rows of ``opponents``), plus what the
    Fantasyland its board earns is worth (``entry_values``, :func:`entry_value`); and ``outcomes[o, s]``: how its
    own board ends, ``royalty * 4 + 2 * earns Fantasyland + fouled`` (what players decide by, from the same
    rollouts).  ``own_cards``: how many cards of a deck the player's own board takes (the opponents' come after).
    An opponent with ``opponent_fantasylands[p] > 0`` plays a Fantasyland of that many cards, dealt hidden and
    set for the most royalties (:func:`fantasyland_board`, ``stay_flags`` the rules'); the others' boards are
    completed by the rollout policy."""
    n_opponents = opponents.shape[0]
    keys = np.empty((n_opponents, 3), dtype=np.int64)
    royalty = np.empty(n_opponents, dtype=np.int64)
    fouled = np.empty(n_opponents, dtype=np.bool_)
    scoop = table[SCOOP]
    for s in range(start, stop):
        deck = decks[s]
        # the player's cards come first: every option places as many cards, so each takes the same ones
        position = own_cards
        for p in range(n_opponents):
            size = opponent_fantasylands[p]
            if size > 0:
                (keys[p, 0], keys[p, 1], keys[p, 2], royalty[p], fouled[p]), _ = fantasyland_board(
                    deck[position:position + size], table, stay_flags)
                position += size
                continue
            front, middle, back, position = complete_board(opponents[p, 0], opponents[p, 1], opponents[p, 2], deck,
                                                           position, first_cards, round_cards, round_places,
                                                           table, weights, model)
            keys[p, 0], keys[p, 1], keys[p, 2], royalty[p], fouled[p] = scored_board(front, middle, back, table)
        for o in range(options.shape[0]):
            front, middle, back, _ = complete_board(options[o, 0], options[o, 1], options[o, 2], deck, 0,
                                                    first_cards, round_cards, round_places, table, weights, model)
            front_key, middle_key, back_key, own, own_foul = scored_board(front, middle, back, table)
            total = 0.0
            for p in range(n_opponents):
                total += board_points(front_key, middle_key, back_key, own, own_foul, keys[p, 0], keys[p, 1],
                                      keys[p, 2], royalty[p], fouled[p], scoop)
            earns = not own_foul and enters_fantasyland(front_key, table)
            if earns:
                total += entry_value(front_key, entry_values)
            values[o, s - start] = total
            outcomes[o, s - start] = own * 4 + 2 * earns + own_foul


@jit
def policy_boards(decks, first_cards, round_cards, round_places, table, weights, model):
    """The boards the rollout policy makes from each deck (one row of ``decks`` a board, dealt from its start as
    the rules deal an empty board): each one's front, middle and back keys, royalty and foul."""
    count = decks.shape[0]
    keys = np.empty((count, 3), dtype=np.int64)
    royalty = np.empty(count, dtype=np.int64)
    fouled = np.empty(count, dtype=np.bool_)
    for s in range(count):
        front, middle, back, _ = complete_board(np.int64(0), np.int64(0), np.int64(0), decks[s], 0, first_cards,
                                                round_cards, round_places, table, weights, model)
        keys[s, 0], keys[s, 1], keys[s, 2], royalty[s], fouled[s] = scored_board(front, middle, back, table)
    return keys, royalty, fouled


@jit
def positions_to_cards(positions, ids):
    """The card mask of the cards at the bit ``positions`` of ``ids``."""
    mask = np.int64(0)
    for i in range(ids.shape[0]):
        if positions >> i & 1:
            mask |= np.int64(1) << ids[i]
    return mask


@jit
def fantasyland_hands(decks, size, first_cards, round_cards, round_places, table, weights, model, stay_flags,
                      points, stays, start, stop):
    """Hands ``start .. stop`` of a Fantasyland against an opponent: ``decks[h, :size]`` are the Fantasyland's
    cards, set for the most royalties (:func:`fantasyland_board`); the opponent is dealt the next cards as the
    rules deal a hand and sets them by the rollout policy.  Fills ``points[h]`` (the Fantasyland's points
    against the opponent) and ``stays[h]``."""
    for h in range(start, stop):
        mine, stay = fantasyland_board(decks[h, :size], table, stay_flags)
        other_front, other_middle, other_back, _ = complete_board(np.int64(0), np.int64(0), np.int64(0), decks[h],
                                                                  size, first_cards, round_cards, round_places,
                                                                  table, weights, model)
        theirs = scored_board(other_front, other_middle, other_back, table)
        points[h] = board_points(mine[0], mine[1], mine[2], mine[3], mine[4], theirs[0], theirs[1], theirs[2],
                                 theirs[3], theirs[4], table[SCOOP])
        stays[h] = stay
