"""Strength keys by table lookup on a sum of per-card codes (the fast path).

The method of the fastest C++ evaluators (OMPEval, SKPokerEval), written
for cpoker's cards and keys:

* every card id has a 64-bit *code*: ``8 ** rank`` (a 3-bit counter per rank,
  bits 0..38) plus ``16 ** suit << 40`` (a 4-bit counter per suit).  The code
  of a hand is the sum of its cards' codes, started at ``SUIT_BIAS`` (3 in
  every suit counter), so a suit holding five or more cards sets bit 3 of its
  counter: one AND tells whether the hand holds a flush;
* without a flush, the key depends only on the rank counts, i.e. on the low
  39 bits; they go through a *perfect hash* (multiply, shift, one displacement
  per bucket) into a table of keys: no collisions, no probing;
* with a flush, the suit's 13-bit rank set indexes ``flush_keys``, the key of
  the best straight flush or flush of those ranks.  Five cards need no
  branch for it: a 5-card flush's ranks are the hand's ranks, so the 5-card
  table holds the flushes too, at the rank key plus ``FLUSH_KEY_OFFSET``,
  and the flush test only decides whether the offset is added (a branch
  that is almost never taken still cost 12% of the 5-card rate).

The tables (:func:`cpoker.tables.lookup_tables`) hold cpoker's own keys, so
every answer is exactly the key of :mod:`.evaluate` (the tests compare all
5-card and 3-card hands).  Everything here is a plain function of scalars
and small arrays, like the rest of ``_kernels``.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit

from ..tables import (FLUSH_BITS, FLUSH_KEY_OFFSET, KEY_FIELD, RANK_FIELD, ROW_SHIFT, SUIT_BIAS,  # noqa: F401
                      SUIT_SHIFT)


@jit
def perfect_hash_slot(counts, multiplier, bucket_shift, slot_mask, displacements):
    """The slot of the rank-count word ``counts`` (:func:`perfect_hash_value` reads ``values`` there).

    For tables that share the hash's slots: the table policy reads the 8-card
    caps and, at the same slot, the best middle-and-front value of its model.
    """
    h = ((counts * multiplier) >> 32) & 0xFFFFFFFF
    # unsigned indices: numba then skips its negative-index wraparound (~10% here)
    return np.uint64((h + displacements[np.uint64(h >> bucket_shift)]) & slot_mask)


@jit
def perfect_hash_value(counts, multiplier, bucket_shift, slot_mask, displacements, values):
    """``values`` at the slot of the rank-count word ``counts`` (see :func:`cpoker.tables.perfect_hash`).

    ``slot_mask`` (``len(values) - 1``) is passed in rather than read from the
    array: LLVM cannot hoist that read out of a loop that stores keys.
    """
    return values[perfect_hash_slot(counts, multiplier, bucket_shift, slot_mask, displacements)]


@jit
def flush_ranks(code, mask):
    """The 13-bit rank set of the suit with five or more cards (``code`` says which) in card ``mask``.

    Exactly one suit must hold five or more cards (true of any 5 to 9 cards
    with a flush).  The suit is picked by arithmetic on its flag, not by a
    branch per suit: which suit holds a flush is random, and those branches
    mispredicted often enough to cost the 7-card loop an eighth of its rate.
    """
    flags = code >> (SUIT_SHIFT + 3)  # bit 4 * suit: that suit holds five or more cards
    shift = ((flags >> 4) & 1) * 13 + ((flags >> 8) & 1) * 26 + ((flags >> 12) & 1) * 39
    return (mask >> shift) & 0x1FFF


@jit(inline="always")
def _flush_key(ids, i, width, code, flush_keys):
    """Key of row ``i`` of ``ids`` (``width`` cards, a constant at the call) given that its ``code`` shows a flush.

    Inlined where it is called (numba's IR inlining): a call that passes
    arrays is not inlined by LLVM, and that call, though taken on 3% of the
    rows, cost the 7-card loop a tenth of its rate.
    """
    mask = np.int64(0)
    for j in range(width):
        mask |= np.int64(1) << np.int64(ids[i, j])
    return flush_keys[flush_ranks(code, mask)]


@jit
def keys_from_ids_lookup(ids, eval_codes, displacements, values, flush_keys, out):
    """``out[i]`` = key of row ``i`` of ``(N, k)`` card ids, k = 5, 6 or 7 (the best five); the table is k's.

    ``eval_codes`` give each card its rank constant and suit counter
    (:func:`cpoker.tables.eval_codes`); the rank key indexes the size's
    row-displacement table (:class:`cpoker.tables.RowDisplacement`).  One
    loop per row width, each with a constant inner trip count that LLVM
    unrolls (a loop over a run-time width costs 3x), and nothing but scalars
    on the common path: a call that passes arrays is not inlined and costs
    reference counting per row.
    """
    width = ids.shape[1]
    if width == 5:  # flushes are in the table (see the module docstring): no branch
        for i in range(ids.shape[0]):
            code = np.int64(SUIT_BIAS)
            for j in range(5):
                code += eval_codes[ids[i, j]]
            out[i] = row_value((code & KEY_FIELD) + np.int64((code & FLUSH_BITS) != 0) * FLUSH_KEY_OFFSET,
                               displacements, values)
    elif width == 6:
        for i in range(ids.shape[0]):
            code = np.int64(SUIT_BIAS)
            for j in range(6):
                code += eval_codes[ids[i, j]]
            if code & FLUSH_BITS:
                out[i] = _flush_key(ids, i, 6, code, flush_keys)
            else:
                out[i] = row_value(code & KEY_FIELD, displacements, values)
    else:
        for i in range(ids.shape[0]):
            code = np.int64(SUIT_BIAS)
            for j in range(7):
                code += eval_codes[ids[i, j]]
            if code & FLUSH_BITS:
                out[i] = _flush_key(ids, i, 7, code, flush_keys)
            else:
                out[i] = row_value(code & KEY_FIELD, displacements, values)


@jit
def row_value(key, displacements, values):
    """``values[key + displacements[key >> ROW_SHIFT]]`` (unsigned indices: no wraparound test)."""
    return values[np.uint64(key + displacements[np.uint64(key >> ROW_SHIFT)])]
