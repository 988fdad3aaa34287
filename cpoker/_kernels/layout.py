"""Bit layouts of the card codes and keys that the lookup tables are built for and the kernels read.

The tables (:mod:`cpoker.game.lookup_tables`) and the kernels that read them (:mod:`cpoker._kernels.lookup` and the
split search) must agree on these numbers, so both import them from here.  Plain Python: reading them
loads no numba.
"""

from __future__ import annotations

# The table policy's card codes (card_codes; see cpoker._kernels.lookup): a 3-bit count per rank in bits
# 0..38, a 4-bit count per suit from bit 40, each suit count started at 3 so that five of a suit sets its bit 3.
SUIT_SHIFT = 40
RANK_FIELD = (1 << 39) - 1
SUIT_BIAS = 0x3333 << SUIT_SHIFT
FLUSH_BITS = 0x8888 << SUIT_SHIFT

LOOKUP_SIZES = (3, 5, 6, 7)  # hand sizes of the evaluator's row-displacement tables
# Per-rank constants (two .. ace) whose sums are distinct between any two rank multisets of the same size,
# up to 7 cards of at most 4 per rank (found by search_rank_constants): the evaluator's rank key of a hand.
RANK_CONSTANTS = (1, 2, 6, 23, 99, 454, 2032, 8699, 22855, 83662, 262350, 636346, 1479182)
ROW_SHIFT = 10  # row displacement: slot = key + displacements[key >> ROW_SHIFT]
# The evaluator's card codes (eval_codes): a 4-bit count per suit in bits 0..15, started at 3 as above, and
# the card's rank constant from bit 16 (the rank key, whose sums stay below 2**24).  The suits sit low so
# that the flush test is an AND with a 16-bit constant and the rank key and its row are one shift each.
EVAL_SUIT_BIAS = 0x3333
EVAL_FLUSH_BITS = 0x8888
EVAL_KEY_SHIFT = 16


def key_rows(shift: int = ROW_SHIFT) -> int:
    """The rows of ``2**shift`` keys that a sum of up to 7 rank constants can reach."""
    return (7 * RANK_CONSTANTS[-1] >> shift) + 1


# five cards of one suit are looked up at their rank key plus FLUSH_KEY_OFFSET, in rows of their own after those
# of the rank keys (a 5-card flush's ranks are all of the hand's ranks)
FLUSH_KEY_OFFSET = key_rows() << ROW_SHIFT
EVAL_ROWS_AT = 1 << 13  # where an evaluator table's row displacements start: after the 8,192 flush keys
