"""Rank keys of 16 rows of card ids at a time, in AVX-512 vector code (the batch evaluator's fast path).

:mod:`.lookup`'s scalar loop spends most of a 5-card row on its cards: five
byte loads, five code loads and four adds before the two table loads that
give the key.  Here the cards of 16 rows are read as 64-byte vectors and
every per-card table lives in a register:

* one two-source byte shuffle (``vpermt2b``) turns the row-major bytes into
  four positions of 16 rows each (lane ``16 * j + l`` is card ``j`` of row
  ``l``);
* a 64-entry byte table in a register (``vpermb``) maps each card id to its
  rank, and another to its suit;
* a 16-entry dword table (``vpermd``) maps each rank to its constant
  (``layout.RANK_CONSTANTS``), and 16 lanes of sums of those are the rows'
  rank keys, the very keys the scalar loop computes (all a front of three
  cards needs: one 64-byte load holds its 16 rows);
* five cards hold a flush when all five share a suit: the AND of their suit
  bits, which adds ``FLUSH_KEY_OFFSET`` to the key (the 5-card table holds the
  flushes at that offset).  Six or seven cards hold one when a suit counts
  five: per-suit counters in nibbles, and the rows that have one are returned
  as a bit mask for the caller to finish in scalar code.

The caller then looks the 16 keys up in the evaluator table with scalar
loads: on a Zen 4 a gather of 16 lanes cost more than 16 loads.  Gathers
being out, the card tables must fit in registers, which needs ``vpermb``
(AVX-512 VBMI: Ice Lake, Zen 4 and later).  :func:`available` says whether the
code numba generates may use it; without it :mod:`.lookup`'s scalar loops
serve.  An id above 63 reads its low six bits (the shuffle's index), so
unchecked garbage gives a meaningless key but never a read outside the table.
"""

from __future__ import annotations

import functools

from cpoker.system.jit import jit  # first: it checks the environment before numba loads
from llvmlite import ir

from cpoker._kernels.layout import FLUSH_KEY_OFFSET, RANK_CONSTANTS
from cpoker._kernels.evaluate import call_intrinsic
from cpoker._kernels.simd import compiles_with, row_group_intrinsic

LANES = 16  # rows a step: one 512-bit vector of int32 keys
FEATURES = ("avx512f", "avx512bw", "avx512vbmi")

_I8, _I32 = ir.IntType(8), ir.IntType(32)

# the tables of the shuffles: card id (low six bits) -> rank (13: no card), rank -> constant
RANK_OF_ID = [card % 13 if card < 52 else 13 for card in range(64)]
CONSTANT_OF_RANK = list(RANK_CONSTANTS) + [0] * 3
# card id -> its suit's bit (five cards: the AND of five of these is nonzero for a flush)
SUIT_BIT_OF_ID = [1 << (card // 13) if card < 52 else 0 for card in range(64)]
# card id -> a 4-bit counter of its suit, suits 0-1 in one byte and 2-3 in the other (six or seven cards)
SUIT_COUNTERS_OF_ID = ([1 << 4 * (card // 13) if card < 26 else 0 for card in range(64)],
                       [1 << 4 * (card // 13 - 2) if 26 <= card < 52 else 0 for card in range(64)])


@functools.cache
def available() -> bool:
    """Whether numba compiles for a processor with AVX-512 F, BW and VBMI (the host's, unless ``NUMBA_CPU_NAME``
    or ``NUMBA_CPU_FEATURES`` name another)."""
    return compiles_with(FEATURES)


def _vector(element: ir.Type, count: int = LANES) -> ir.VectorType:
    return ir.VectorType(element, count)


def _lookup_bytes(builder: ir.IRBuilder, table: list, ids):
    """``table[id & 63]`` for each of 64 byte lanes (``vpermb``)."""
    return call_intrinsic(builder, "llvm.x86.avx512.permvar.qi.512", _vector(_I8, 64),
                          ir.Constant(_vector(_I8, 64), table), ids)


def _position(builder: ir.IRBuilder, chunks: list, position: int):
    """The 16 lanes of card ``position`` (16 bytes) out of the 64-byte chunks of four positions each."""
    chunk = chunks[position // 4]
    first = LANES * (position % 4)
    return builder.shuffle_vector(chunk, ir.Constant(chunk.type, None),
                                  ir.Constant(_vector(_I32), list(range(first, first + LANES))))


@jit
def group_count(rows, width):
    """How many groups of 16 rows the kernels of :func:`rank_key_group` can take from ``rows`` rows of ``width``
    cards: the whole groups, less those whose 64-byte load would read past the ids (3 cards: 48 bytes a group)."""
    groups = rows // LANES
    if width * LANES < 64:
        ends = rows * width - 64  # the last byte a group may start at
        groups = min(groups, ends // (width * LANES) + 1 if ends >= 0 else 0)
    return groups


# the positions held by the four 16-lane blocks of each 64-byte chunk: cards 0-3, then the rest (repeated to fill)
CHUNK_POSITIONS = {3: ((0, 1, 2, 0),), 5: ((0, 1, 2, 3), (4, 4, 4, 4)), 6: ((0, 1, 2, 3), (4, 5, 4, 5)),
                   7: ((0, 1, 2, 3), (4, 5, 6, 4))}


def _repeat_comparisons(width: int) -> list:
    """The comparisons that find a repeated card: ``(chunk, other, turn, lanes)`` compares chunk ``chunk`` with
    chunk ``other`` turned by ``turn`` blocks of 16 lanes, in ``lanes`` (64 flags: where two different positions
    meet).  Taken while they meet a pair of positions not met before, until every pair is met (asserted)."""
    chunks = CHUNK_POSITIONS[width]
    met, comparisons = set(), []
    for chunk, other, turn in ((0, 0, 1), (0, 0, 2), (0, 1, 0), (1, 1, 1), (1, 1, 2), (0, 1, 1), (0, 1, 2),
                               (0, 1, 3)):
        if other >= len(chunks):
            continue
        pairs = [(chunks[chunk][block], chunks[other][(block + turn) % 4]) for block in range(4)]
        new = {frozenset(pair) for pair in pairs if pair[0] != pair[1]} - met
        if new:
            met |= new
            lanes = [int(a != b) for a, b in pairs for _ in range(LANES)]
            comparisons.append((chunk, other, turn, lanes))
    assert met == {frozenset((a, b)) for a in range(width) for b in range(a)}, width
    return comparisons


def rank_key_group(width: int, checked: bool):
    """An intrinsic ``rank_keys(ids, row, out)``: writes to ``out[row:row + 16]`` the rank keys of rows ``row`` to
    ``row + 15`` of the C-contiguous ``(N, width)`` ``uint8`` card ids ``ids`` (``width`` 3, 5, 6 or 7) and
    returns, for six or seven cards, a bit mask of the rows that hold a flush (lane ``l`` is row ``row + l``).

    Five cards' keys include the flush offset (the 5-card table holds the flushes), and the mask is 0; three
    cards (a front) have no flush.
    ``checked`` adds the batch's check, on the vectors already loaded: bit 16 of the result is set when one of
    the rows has an id above 51 (a compare of the bytes as loaded) or repeats a card (each position compared
    with every other, 64 lanes at a time: 3 compares for 5 cards, 8 for 7; the 16 ids past a 3-card group are
    checked too, and they are rows of the batch).  The group's bytes must lie inside ``ids`` (see
    :func:`group_count`), and ``out`` must be C-contiguous.
    """
    if width not in CHUNK_POSITIONS:
        raise ValueError(f"rows of {width} cards")
    size = LANES * width  # 80, 96 or 112 bytes: two 64-byte loads, the second ending at the group's end
    # 48 bytes for 3 cards: one 64-byte load, which reads 16 bytes past the group (see group_count)
    comparisons = _repeat_comparisons(width) if checked else []

    def codegen(builder, start, keys_out, row):
        late = size - 64

        def load(at: int):
            where = builder.gep(start, [ir.Constant(row.type, at)])
            return builder.load(builder.bitcast(where, _vector(_I8, 64).as_pointer()), align=1)

        early = load(0)
        tail = load(late) if late > 0 else early
        chunks = []
        for positions in CHUNK_POSITIONS[width]:
            picks = []
            for position in positions:
                for lane in range(LANES):
                    at = width * lane + position
                    picks.append(at if at < 64 else at - late + 64)
            chunks.append(builder.shuffle_vector(early, tail, ir.Constant(_vector(_I32, 64), picks)))
        ranks = [_lookup_bytes(builder, RANK_OF_ID, chunk) for chunk in chunks]
        constants = ir.Constant(_vector(_I32), CONSTANT_OF_RANK)
        keys = None
        for position in range(width):
            rank = builder.zext(_position(builder, ranks, position), _vector(_I32))
            constant = call_intrinsic(builder, "llvm.x86.avx512.permvar.si.512", _vector(_I32), constants, rank)
            keys = constant if keys is None else builder.add(keys, constant)
        zero = ir.Constant(_vector(_I8), [0] * LANES)
        if width == 3:  # a front: no flushes, no straights, so the rank key is all
            result = ir.Constant(ir.IntType(64), 0)
        elif width == 5:
            suits = [_lookup_bytes(builder, SUIT_BIT_OF_ID, chunk) for chunk in chunks]
            shared = _position(builder, suits, 0)
            for position in range(1, width):
                shared = builder.and_(shared, _position(builder, suits, position))
            flush = builder.icmp_unsigned("!=", shared, zero)
            offset = builder.select(flush, ir.Constant(_vector(_I32), [FLUSH_KEY_OFFSET] * LANES),
                                    ir.Constant(_vector(_I32), [0] * LANES))
            keys = builder.add(keys, offset)
            result = ir.Constant(ir.IntType(64), 0)
        else:
            flagged = zero
            for table in SUIT_COUNTERS_OF_ID:
                counters = [_lookup_bytes(builder, table, chunk) for chunk in chunks]
                counts = _position(builder, counters, 0)
                for position in range(1, width):
                    counts = builder.add(counts, _position(builder, counters, position))
                # a counter of five or more (at most 7) plus 3 sets its nibble's bit 3
                flagged = builder.or_(flagged, builder.add(counts, ir.Constant(_vector(_I8), [0x33] * LANES)))
            flagged = builder.and_(flagged, ir.Constant(_vector(_I8), [0x88] * LANES))
            mask = builder.bitcast(builder.icmp_unsigned("!=", flagged, zero), ir.IntType(LANES))
            result = builder.zext(mask, ir.IntType(64))
        if checked:
            flags = _vector(ir.IntType(1), 64)
            highest = ir.Constant(_vector(_I8, 64), [51] * 64)
            bad = builder.or_(builder.icmp_unsigned(">", early, highest), builder.icmp_unsigned(">", tail, highest))
            for chunk, other, turn, lanes in comparisons:
                turned = chunks[other]
                if turn:
                    turned = builder.shuffle_vector(turned, ir.Constant(turned.type, None), ir.Constant(
                        _vector(_I32, 64), [(lane + LANES * turn) % 64 for lane in range(64)]))
                same = builder.icmp_unsigned("==", chunks[chunk], turned)
                if not all(lanes):
                    same = builder.and_(same, ir.Constant(flags, lanes))
                bad = builder.or_(bad, same)
            any_bad = builder.icmp_unsigned("!=", builder.bitcast(bad, ir.IntType(64)),
                                            ir.Constant(ir.IntType(64), 0))
            result = builder.or_(result, builder.shl(builder.zext(any_bad, ir.IntType(64)),
                                                     ir.Constant(ir.IntType(64), LANES)))
        target = builder.bitcast(builder.gep(keys_out, [row]), _vector(_I32).as_pointer())
        builder.store(keys, target, align=4)
        return result

    return row_group_intrinsic(width, codegen)


rank_keys_3, rank_keys_5, rank_keys_6, rank_keys_7 = (rank_key_group(width, False) for width in (3, 5, 6, 7))
checked_rank_keys_3, checked_rank_keys_5, checked_rank_keys_6, checked_rank_keys_7 = (
    rank_key_group(width, True) for width in (3, 5, 6, 7))
