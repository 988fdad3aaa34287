"""Strength keys by table lookup on a sum of per-card codes (the fast path).

The method of the fastest C++ evaluators (OMPEval, SKPokerEval), written
for cpoker's cards and keys:

* every card id has a 64-bit *code*: a 4-bit counter per suit (bits
  0..15) plus its rank's constant from bit 16 (``RANK_CONSTANTS``, whose sums
  differ between any two rank multisets of one size).  The code of a hand is
  the sum of its cards' codes, started at ``EVAL_SUIT_BIAS`` (3 in every suit
  counter), so a suit holding five or more cards sets bit 3 of its counter:
  one AND with a 16-bit constant tells whether the hand holds a flush;
* without a flush, the key depends only on the ranks, i.e. on the *rank key*
  ``code >> 16``: a row displacement (OMPEval's) maps it to its slot, ``key +
  displacements[key >> 10]``: two loads, no collisions, no multiply;
* with a flush, the suit's 13-bit rank set indexes the flush keys, the key of
  the best straight flush or flush of those ranks.  Five cards need no
  branch for it: a 5-card flush's ranks are the hand's ranks, so the 5-card
  table holds the flushes too, at the rank key plus ``FLUSH_KEY_OFFSET``,
  and the flush test only decides whether the offset is added (a branch,
  even one almost never taken, slows the 5-card loop);
* the flush keys, displacements and values of one hand size are one array
  (:func:`cpoker.game.lookup_tables.evaluator_table`).

The table policy (:mod:`.subsets`) counts ranks instead, with ``card_codes``:
``8 ** rank`` (a 3-bit counter per rank, bits 0..38) plus the suit counters
from bit 40; its rank-count words go through a *perfect hash* (multiply,
shift, one displacement per bucket), :func:`perfect_hash_value`.

The tables (:func:`cpoker.game.lookup_tables.lookup_tables`) hold cpoker's own keys, so
every answer is exactly the key of :mod:`.evaluate` (the tests compare all
5-card and 3-card hands).  Everything here is a plain function of scalars
and small arrays, like the rest of ``_kernels``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from cpoker.system.jit import jit  # first: it checks the environment before numba loads
from numba.core import types
from numba.extending import intrinsic

from cpoker._kernels import avx2
from cpoker._kernels.avx512 import (LANES, checked_rank_keys_3, checked_rank_keys_5, checked_rank_keys_6,
                                    checked_rank_keys_7, group_count, rank_keys_3, rank_keys_5, rank_keys_6,
                                    rank_keys_7)
from cpoker._kernels.evaluate import lowest_bit, row_problem, rows_problem
from cpoker._kernels.layout import (EVAL_FLUSH_BITS, EVAL_KEY_SHIFT, EVAL_ROWS_AT, EVAL_SUIT_BIAS, FLUSH_KEY_OFFSET,
                                    ROW_SHIFT, SUIT_SHIFT)


@jit
def perfect_hash_slot(counts, multiplier, bucket_shift, slot_mask, displacements):
    """The slot of the rank-count word ``counts`` (:func:`perfect_hash_value` reads ``values`` there).

    For tables that share the hash's slots: the table policy reads the 8-card
    caps and, at the same slot, the best middle-and-front value of its model.
    """
    h = ((counts * multiplier) >> 32) & 0xFFFFFFFF
    # unsigned indices: numba then skips its negative-index wraparound
    return np.uint64((h + displacements[np.uint64(h >> bucket_shift)]) & slot_mask)


@jit
def perfect_hash_value(counts, multiplier, bucket_shift, slot_mask, displacements, values):
    """``values`` at the slot of the rank-count word ``counts`` (see :func:`cpoker.game.lookup_tables.perfect_hash`).

    ``slot_mask`` (``len(values) - 1``) is passed in rather than read from the
    array: LLVM cannot hoist that read out of a loop that stores keys.
    """
    return values[perfect_hash_slot(counts, multiplier, bucket_shift, slot_mask, displacements)]


@jit
def flush_ranks(code, mask):
    """The 13-bit rank set of the suit with five or more cards (``code``, a table-policy code, says which)
    in card ``mask``; see :func:`flagged_suit_ranks`."""
    return flagged_suit_ranks(code >> (SUIT_SHIFT + 3), mask)


@jit
def flagged_suit_ranks(flags, mask):
    """The 13-bit rank set, in card ``mask``, of the suit whose bit ``4 * suit`` is set in ``flags``.

    Exactly one suit must be flagged (true of the flush bits of any 5 to 9
    cards with a flush).  The suit is picked by arithmetic on its flag, not by
    a branch per suit: which suit holds a flush is random, and those branches
    mispredicted often enough to cost the 7-card loop an eighth of its rate.
    """
    shift = ((flags >> 4) & 1) * 13 + ((flags >> 8) & 1) * 26 + ((flags >> 12) & 1) * 39
    return (mask >> shift) & 0x1FFF


@intrinsic
def _load_pair(typingctx, ids, offset):
    """The two card ids at byte ``offset`` of C-contiguous ``uint8`` ``ids``, as one ``uint16`` (one load).

    The 3-card loop reads a row's first two cards at once and looks the pair up
    in ``pair_codes`` (:func:`cpoker.game.lookup_tables.evaluator_pair_codes`): one
    load and one lookup fewer a row.  The pair table is symmetric, so the byte order of the
    machine does not matter.  (Not for 5 to 7 cards: on a Zen 4 the 512 KiB
    table cost more than the loads it saved.)
    """
    if not (isinstance(ids, types.Array) and ids.dtype == types.uint8 and ids.layout == "C"):
        return None
    sig = types.uint16(ids, types.intp)

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        pointer = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(16).as_pointer())
        return builder.load(pointer, align=1)

    return sig, codegen


@jit(inline="always")
def _eval_code(ids, i, width, eval_codes):
    """The evaluator code of row ``i`` of ``ids`` (``width`` cards, a constant at the call)."""
    code = np.int64(EVAL_SUIT_BIAS)
    for j in range(width):
        code += eval_codes[ids[i, j]]
    return code


@jit(inline="always")
def _eval_key(code, ids, i, width, table):
    """Key of row ``i`` of ``ids`` (``width`` cards, a constant at the call), whose evaluator code is ``code``.

    Inlined where it is called (numba's IR inlining): a call that passes
    arrays is not inlined by LLVM, and that call, though made only on the
    few rows with a flush, slows the whole 7-card loop.
    """
    if code & EVAL_FLUSH_BITS:
        mask = np.int64(0)
        for j in range(width):
            mask |= np.int64(1) << np.int64(ids[i, j])
        return table[np.uint64(flagged_suit_ranks(code >> 3, mask))]
    return evaluator_value(code >> EVAL_KEY_SHIFT, table)


@jit(inline="always")
def _five_card_key(code, table):
    """Key of five cards whose evaluator code is ``code``: a flush reads the table at an offset (see the module
    docstring), chosen without a branch."""
    key = (code >> EVAL_KEY_SHIFT) + np.int64((code & EVAL_FLUSH_BITS) != 0) * FLUSH_KEY_OFFSET
    return evaluator_value(key, table)


@jit(inline="always")
def _row_key(ids, i, width, eval_codes, table):
    """Key of row ``i`` of ``ids`` (``width`` cards, a constant at the call), one row alone."""
    code = _eval_code(ids, i, width, eval_codes)
    if width == 5:
        return _five_card_key(code, table)
    return _eval_key(code, ids, i, width, table)


@jit(inline="always")
def _keys_pipelined(ids, width, eval_codes, table, out):
    """``out[i]`` = key of row ``i`` of ``ids`` (6 or 7 cards: ``width``, a constant at the call).

    Software-pipelined: each row's code is summed two rows ahead of its
    flush test, so the test's operand is ready when the test issues.  The
    test mispredicts on the 3% of rows with a flush, and a misprediction
    discards all the work issued after it; testing a sum issued just before
    let the processor run far ahead before each misprediction was found.
    """
    n = ids.shape[0]
    if n < 2:
        for i in range(n):
            out[i] = _eval_key(_eval_code(ids, i, width, eval_codes), ids, i, width, table)
        return
    ahead1 = _eval_code(ids, 0, width, eval_codes)
    ahead2 = _eval_code(ids, 1, width, eval_codes)
    for i in range(n - 2):
        code = ahead1
        ahead1 = ahead2
        ahead2 = _eval_code(ids, i + 2, width, eval_codes)
        out[i] = _eval_key(code, ids, i, width, table)
    out[n - 2] = _eval_key(ahead1, ids, n - 2, width, table)
    out[n - 1] = _eval_key(ahead2, ids, n - 1, width, table)


@jit(inline="always")
def _keys_from_ids(ids, eval_codes, pair_codes, table, out):
    """The loops of :func:`keys_from_ids_lookup` and :func:`keys_from_ids_checked`, one per row width."""
    width = ids.shape[1]
    if width == 3:  # a front: no flushes, no straights, so the rank key is all
        for i in range(ids.shape[0]):
            code = pair_codes[_load_pair(ids, i * 3)] + eval_codes[ids[i, 2]]
            out[i] = evaluator_value(code >> EVAL_KEY_SHIFT, table)
    elif width == 5:  # flushes are in the table (see the module docstring): no branch
        for i in range(ids.shape[0]):
            out[i] = _five_card_key(_eval_code(ids, i, 5, eval_codes), table)
    elif width == 6:
        _keys_pipelined(ids, 6, eval_codes, table, out)
    else:
        _keys_pipelined(ids, 7, eval_codes, table, out)


@jit(inline="always")
def _rank_keys(ids, row, out, width, checked, wide):
    """The rank keys of a group of rows (:func:`.avx512.rank_key_group`'s kernel for ``width`` and ``checked``
    with ``wide``, else :func:`.avx2.rank_key_group`'s, which checks nothing; all three constants at the call)."""
    if not wide:
        if width == 3:
            return avx2.rank_keys_3(ids, row, out)
        if width == 5:
            return avx2.rank_keys_5(ids, row, out)
        if width == 6:
            return avx2.rank_keys_6(ids, row, out)
        return avx2.rank_keys_7(ids, row, out)
    if checked:
        if width == 3:
            return checked_rank_keys_3(ids, row, out)
        if width == 5:
            return checked_rank_keys_5(ids, row, out)
        if width == 6:
            return checked_rank_keys_6(ids, row, out)
        return checked_rank_keys_7(ids, row, out)
    if width == 3:
        return rank_keys_3(ids, row, out)
    if width == 5:
        return rank_keys_5(ids, row, out)
    if width == 6:
        return rank_keys_6(ids, row, out)
    return rank_keys_7(ids, row, out)


@jit(inline="always")
def _keys_by_vector(ids, width, checked, wide, eval_codes, table, out):
    """``out[i]`` = key of row ``i`` of ``ids`` (3, 5, 6 or 7 cards: ``width``, a constant at the call): the rank keys
    of a group of rows at a time in vector code (16 rows in AVX-512 code with ``wide``, :mod:`.avx512`; else 8 in
    AVX2 code, :mod:`.avx2`), then their values by scalar loads.  With ``checked`` (a constant; AVX-512 only),
    nonzero when a row has an id above 51 or repeats a card, checked on the same vectors; else 0.

    The keys of the next group are computed before the values of these are looked up: reading back keys just
    stored as a vector stalls each load on the store.  The rows
    of six or seven cards that hold a flush (the vector code flags them) are then evaluated one by one.
    """
    n = ids.shape[0]
    lanes = LANES if wide else avx2.ROWS
    groups = group_count(n, width) if wide else avx2.group_count(n, width)
    bad = np.int64(0)
    upcoming = _rank_keys(ids, 0, out, width, checked, wide) if groups else 0
    for group in range(groups):
        start = group * lanes
        flushes = upcoming & ((1 << lanes) - 1)
        bad |= upcoming >> lanes
        if group + 1 < groups:
            upcoming = _rank_keys(ids, start + lanes, out, width, checked, wide)
        for i in range(start, start + lanes):
            out[i] = evaluator_value(np.int64(out[i]), table)
        while flushes:
            i = start + lowest_bit(flushes)
            flushes &= flushes - 1
            out[i] = _row_key(ids, i, width, eval_codes, table)
    for i in range(groups * lanes, n):
        if checked:
            bad |= row_problem(ids, i, width)
        out[i] = _row_key(ids, i, width, eval_codes, table)
    return bad


# One kernel per row width, the check chosen by an argument: a first call compiles only its width (one kernel
# for every width would compile them all at the first call of any)
@jit
def keys_from_ids_avx512_5(ids, check, eval_codes, table, out):
    """:func:`keys_from_ids_lookup` of C-contiguous ``(N, 5)`` ids into C-contiguous ``out``, on a processor with
    AVX-512 VBMI (:func:`.avx512.available`): the same keys, faster (docs/performance.md).  With ``check``, the batch's
    check on the same vectors, as :func:`keys_from_ids_checked` returns it; else 0."""
    if check:
        return _keys_by_vector(ids, 5, True, True, eval_codes, table, out)
    return _keys_by_vector(ids, 5, False, True, eval_codes, table, out)


@jit
def keys_from_ids_avx512_6(ids, check, eval_codes, table, out):
    """:func:`keys_from_ids_avx512_5` for rows of 6 cards (the best five)."""
    if check:
        return _keys_by_vector(ids, 6, True, True, eval_codes, table, out)
    return _keys_by_vector(ids, 6, False, True, eval_codes, table, out)


@jit
def keys_from_ids_avx512_3(ids, check, eval_codes, table, out):
    """:func:`keys_from_ids_avx512_5` for rows of 3 cards (fronts)."""
    if check:
        return _keys_by_vector(ids, 3, True, True, eval_codes, table, out)
    return _keys_by_vector(ids, 3, False, True, eval_codes, table, out)


@jit
def keys_from_ids_avx512_7(ids, check, eval_codes, table, out):
    """:func:`keys_from_ids_avx512_5` for rows of 7 cards (the best five)."""
    if check:
        return _keys_by_vector(ids, 7, True, True, eval_codes, table, out)
    return _keys_by_vector(ids, 7, False, True, eval_codes, table, out)


AVX512_KERNELS = {3: keys_from_ids_avx512_3, 5: keys_from_ids_avx512_5, 6: keys_from_ids_avx512_6,
                  7: keys_from_ids_avx512_7}

# rows the AVX2 kernels check at a time, just before evaluating them: the check's pass then brings the ids into
# the cache for the keys.  A pass of its own over the whole batch kept 0.85 (5 cards) and 0.75 (7) of the rate
# without a check, blocks of 16,384 rows 0.88 and 0.85 (2M rows, Zen 4 with AVX-512 turned off); a check fused
# into the vector code did no better.
CHECK_ROWS = 16384


@jit(inline="always")
def _keys_by_avx2(ids, check, width, eval_codes, table, out):
    """:func:`_keys_by_vector` in AVX2 code; with ``check``, :func:`.evaluate.rows_problem` of each block of
    ``CHECK_ROWS`` rows before its keys (nonzero when a row has an id above 51 or repeats a card), else 0."""
    if not check:
        return _keys_by_vector(ids, width, False, False, eval_codes, table, out)
    bad = np.int64(0)
    for start in range(0, ids.shape[0], CHECK_ROWS):
        stop = min(ids.shape[0], start + CHECK_ROWS)
        bad |= rows_problem(ids[start:stop])
        _keys_by_vector(ids[start:stop], width, False, False, eval_codes, table, out[start:stop])
    return bad


@jit
def keys_from_ids_avx2_5(ids, check, eval_codes, table, out):
    """:func:`keys_from_ids_avx512_5` on a processor with AVX2 but not AVX-512 VBMI (:func:`.avx2.available`): the
    same keys and the same check, 8 rows a step (docs/performance.md)."""
    return _keys_by_avx2(ids, check, 5, eval_codes, table, out)


@jit
def keys_from_ids_avx2_6(ids, check, eval_codes, table, out):
    """:func:`keys_from_ids_avx2_5` for rows of 6 cards (the best five)."""
    return _keys_by_avx2(ids, check, 6, eval_codes, table, out)


@jit
def keys_from_ids_avx2_3(ids, check, eval_codes, table, out):
    """:func:`keys_from_ids_avx2_5` for rows of 3 cards (fronts)."""
    return _keys_by_avx2(ids, check, 3, eval_codes, table, out)


@jit
def keys_from_ids_avx2_7(ids, check, eval_codes, table, out):
    """:func:`keys_from_ids_avx2_5` for rows of 7 cards (the best five)."""
    return _keys_by_avx2(ids, check, 7, eval_codes, table, out)


AVX2_KERNELS = {3: keys_from_ids_avx2_3, 5: keys_from_ids_avx2_5, 6: keys_from_ids_avx2_6, 7: keys_from_ids_avx2_7}


@jit
def keys_from_ids_lookup(ids, eval_codes, pair_codes, table, out):
    """``out[i]`` = key of row ``i`` of C-contiguous ``(N, k)`` card ids, k = 3, 5, 6 or 7 (the best five).

    ``eval_codes`` give each card its rank constant and suit counter
    (:func:`cpoker.game.lookup_tables.eval_codes`), ``pair_codes`` each pair of bytes
    the sum of their codes (:func:`cpoker.game.lookup_tables.evaluator_pair_codes`: the
    3-card loop reads its rows a pair and a card at a time, see
    :func:`_load_pair`); ``table`` is k's
    :func:`cpoker.game.lookup_tables.evaluator_table` (flush keys, row displacements,
    values).  One loop per row width, each with a constant inner trip count
    that LLVM unrolls (a loop over a run-time width is several times slower), and nothing but
    scalars and a few arrays on the common path.  Ids are not checked: any id
    below 256 reads a padded table, never outside it.
    """
    _keys_from_ids(ids, eval_codes, pair_codes, table, out)


@jit
def keys_from_ids_checked(ids, eval_codes, pair_codes, table, out):
    """:func:`keys_from_ids_lookup` after the batch's check, in the same call: nonzero when some row has an id
    above 51 or repeats a card (:func:`.evaluate.rows_problem`, one vectorised pass over the ids, 32 rows a step),
    else 0.  The caller then finds the row (:func:`.evaluate.first_bad_row`) and refuses the batch; the keys
    written for it mean nothing."""
    bad = rows_problem(ids)
    _keys_from_ids(ids, eval_codes, pair_codes, table, out)
    return bad


@jit
def evaluator_value(key, table):
    """``table[key + table[EVAL_ROWS_AT + (key >> ROW_SHIFT)]]``: rank key ``key``'s value in an evaluator table."""
    return table[np.uint64(key + table[np.uint64((key >> ROW_SHIFT) + EVAL_ROWS_AT)])]
