"""Seeded 13-card deals, drawn from NumPy's PCG64 stream inside the kernels.

Every deal in cpoker is defined by NumPy: ``Generator(PCG64(...)).random((N,
len(deck)))`` gives deal ``i`` one double per card of the deck, and the cards
in the order of their doubles go 13 to each player (``dealing.deal_from``; the
self-play sample of ``dealing.sample_block`` is its one-player case).  NumPy
computes that on one thread (the doubles, then a sort of each row): 10**8
deals are minutes, longer than the policy itself on a GPU.
Here the same stream is stepped in the kernels:

* PCG64 is a 128-bit LCG with an XSL-RR output; its state is kept as two
  uint64 halves, and the 128-bit products use 32-bit pieces, so the same
  scalar code runs on the CPU and as CUDA device functions (``cuda.py``);
* a double is ``(output >> 11) * 2**-53``, so comparing the 53-bit integers
  compares the doubles: no floating point is needed;
* the ``13 * players`` smallest values are kept sorted in a scratch array
  (insertion), packed with their position (``value << 6 | position``), so
  ties go to the lower position as in a stable sort; each player's 13 are
  then emitted in card order.

(The self-play sample picks its 13 cards with ``argpartition``, which may
break a tie either way: two draws of a hand tie with probability ~2**-44.)
Any deal of a stream can be reached with the LCG's jump-ahead
(``pcg_advance``, O(log n) steps), so blocks and GPU threads deal
independently and no result depends on how the work is split.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.jit import jit

MULTIPLIER_HIGH = np.uint64(2549297995355413924)  # PCG's default 128-bit multiplier
MULTIPLIER_LOW = np.uint64(4865540595714422341)
CARDS_PER_HAND = 13
SUB_BLOCK = 256  # hands a CPU thread deals after one jump


@jit
def _mul_high(a, b):
    """The high 64 bits of the 128-bit product of two uint64 (32-bit pieces: no 128-bit type needed)."""
    low32 = np.uint64(0xFFFFFFFF)
    a_low, a_high = a & low32, a >> np.uint64(32)
    b_low, b_high = b & low32, b >> np.uint64(32)
    p0 = a_low * b_low
    p1 = a_low * b_high
    p2 = a_high * b_low
    middle = (p0 >> np.uint64(32)) + (p1 & low32) + (p2 & low32)
    return a_high * b_high + (p1 >> np.uint64(32)) + (p2 >> np.uint64(32)) + (middle >> np.uint64(32))


@jit
def _mul128(a_high, a_low, b_high, b_low):
    """``a * b mod 2**128`` on (high, low) uint64 halves."""
    return _mul_high(a_low, b_low) + a_low * b_high + a_high * b_low, a_low * b_low


@jit
def _add128(a_high, a_low, b_high, b_low):
    """``a + b mod 2**128`` on (high, low) uint64 halves."""
    low = a_low + b_low
    return a_high + b_high + np.uint64(low < a_low), low


@jit
def pcg_step(state_high, state_low, inc_high, inc_low):
    """The next PCG64 state: ``state * multiplier + inc``."""
    high, low = _mul128(state_high, state_low, MULTIPLIER_HIGH, MULTIPLIER_LOW)
    return _add128(high, low, inc_high, inc_low)


@jit
def pcg_output(state_high, state_low):
    """PCG64's XSL-RR output of a state: the halves xor-ed, rotated right by the state's top 6 bits."""
    value = state_high ^ state_low
    rotation = state_high >> np.uint64(58)
    return (value >> rotation) | (value << ((np.uint64(64) - rotation) & np.uint64(63)))


@jit
def pcg_advance(state_high, state_low, inc_high, inc_low, delta):
    """The state ``delta`` steps later (Brown's jump-ahead: O(log delta) 128-bit products)."""
    multiplier_high, multiplier_low = MULTIPLIER_HIGH, MULTIPLIER_LOW
    plus_high, plus_low = inc_high, inc_low
    total_high, total_low = np.uint64(0), np.uint64(1)  # the accumulated multiplier
    add_high, add_low = np.uint64(0), np.uint64(0)  # the accumulated increment
    delta = np.uint64(delta)
    while delta:
        if delta & np.uint64(1):
            total_high, total_low = _mul128(total_high, total_low, multiplier_high, multiplier_low)
            add_high, add_low = _mul128(add_high, add_low, multiplier_high, multiplier_low)
            add_high, add_low = _add128(add_high, add_low, plus_high, plus_low)
        factor_high, factor_low = _add128(multiplier_high, multiplier_low, np.uint64(0), np.uint64(1))
        plus_high, plus_low = _mul128(factor_high, factor_low, plus_high, plus_low)
        multiplier_high, multiplier_low = _mul128(multiplier_high, multiplier_low, multiplier_high, multiplier_low)
        delta >>= np.uint64(1)
    high, low = _mul128(total_high, total_low, state_high, state_low)
    return _add128(high, low, add_high, add_low)


@jit
def deal_hands(state_high, state_low, inc_high, inc_low, first, count, deck, smallest, out, row):
    """Deal deals ``first .. first + count`` of a stream into ``out[row ...]``: ``(N, players, 13)``.

    Each deal draws one double per card of ``deck`` (sorted card ids); the
    cards in the order of their draws, ties to the lower position (a stable
    argsort), are dealt 13 to each player in turn, and each hand is written in
    card order: ``np.sort(deck[np.argsort(draws, kind="stable")[:13 * players]]
    .reshape(players, 13))``.  The stream's state is that before deal 0, and
    deal ``i`` starts ``len(deck) * i`` draws later.  ``smallest`` is
    uint64 scratch of ``13 * players`` entries.
    """
    n = deck.shape[0]
    players = out.shape[1]
    dealt = CARDS_PER_HAND * players
    state_high, state_low = pcg_advance(state_high, state_low, inc_high, inc_low, np.uint64(n) * np.uint64(first))
    for h in range(count):
        kept = 0
        for card in range(n):
            state_high, state_low = pcg_step(state_high, state_low, inc_high, inc_low)
            packed = ((pcg_output(state_high, state_low) >> np.uint64(11)) << np.uint64(6)) | np.uint64(card)
            if kept < dealt:
                kept += 1
            elif packed >= smallest[dealt - 1]:
                continue
            j = kept - 1  # insert in order, dropping the largest when full
            while j > 0 and smallest[j - 1] > packed:
                smallest[j] = smallest[j - 1]
                j -= 1
            smallest[j] = packed
        for player in range(players):
            mask = np.uint64(0)
            for j in range(CARDS_PER_HAND * player, CARDS_PER_HAND * (player + 1)):
                mask |= np.uint64(1) << (smallest[j] & np.uint64(63))
            j = 0
            for card in range(n):
                if (mask >> np.uint64(card)) & np.uint64(1):
                    out[row + h, player, j] = deck[card]
                    j += 1
