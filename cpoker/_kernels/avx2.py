"""Rank keys of 8 rows of card ids at a time, in AVX2 vector code (the batch evaluator's path on processors
without AVX-512 VBMI: Intel client chips since Haswell, AMD since Zen 1).

:mod:`.lookup`'s scalar loop spends more of a row on its cards (five byte
loads, five code loads, the adds) than on the two table loads that give the
key.  Here four rows at a time are one 256-bit vector, each row in a 64-bit
lane, and every per-card table is a register:

* one 32-byte load, one dword permute (``vpermd``) and one byte shuffle
  (``vpshufb``) put row ``r``'s cards in the low bytes of lane ``r`` (the
  lane's other bytes zero);
* a card's rank is its id less 13 as many times as that leaves a number
  not below zero: three subtracts and unsigned minimums, no table;
* a rank constant (``layout.RANK_CONSTANTS``, up to 21 bits) is three bytes,
  each looked up by ``vpshufb`` in a 16-entry register table, and each byte
  plane is summed over the lane's cards by ``vpsadbw``: three sums that shift
  and add to the row's rank key, the very key the scalar loop computes;
* five cards hold a flush when their ``id - rank`` (13 times the suit) are
  all equal, which adds ``FLUSH_KEY_OFFSET`` (the 5-card table holds the
  flushes there); six or seven cards hold one when a suit counts five, from
  4-bit suit counters looked up and summed the same way: those rows come
  back as a bit mask for the caller to finish in scalar code.

The caller looks the keys up in the evaluator table with scalar loads, which
then overlap with the vector work of the next rows.  Every instruction here is
AVX2 (``vpshufb``, ``vpermd``, ``vpsadbw`` on 256 bits); :func:`available` says
whether numba compiles for a processor that has it.  Elsewhere (ARM, older
x86) the scalar loops serve.  An unchecked id above 51 gives a meaningless key
but never a read outside the table (the shuffles read only their registers).
"""

from __future__ import annotations

import functools

from cpoker.system.jit import jit  # first: it checks the environment before numba loads
from llvmlite import ir

from cpoker._kernels.evaluate import call_intrinsic
from cpoker._kernels.simd import compiles_with, row_group_intrinsic
from cpoker._kernels.layout import FLUSH_KEY_OFFSET, RANK_CONSTANTS

ROWS = 8  # rows a step: two vectors of four rows, whose 8 keys are stored as one 256-bit vector
FEATURES = ("avx2",)

_I8, _I32, _I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
_BYTES, _DWORDS, _QWORDS = ir.VectorType(_I8, 32), ir.VectorType(_I32, 8), ir.VectorType(_I64, 4)

# rank -> the three bytes of its constant (ranks 13-15: none), one 16-byte table per 128-bit half of a vector
CONSTANT_BYTES = [[(constant >> 8 * plane) & 0xFF for constant in list(RANK_CONSTANTS) + [0] * 3] * 2
                  for plane in range(3)]
# 13 * suit (0, 13, 26, 39: four different low nibbles) -> a 4-bit counter of suits 0-1, then of suits 2-3
SUIT_COUNTERS = ([{0: 1, 13: 16}.get(index, 0) for index in range(16)] * 2,
                 [{26 % 16: 1, 39 % 16: 16}.get(index, 0) for index in range(16)] * 2)


@functools.cache
def available() -> bool:
    """Whether numba compiles for a processor with AVX2 (the host's, unless ``NUMBA_CPU_NAME`` or
    ``NUMBA_CPU_FEATURES`` name another)."""
    return compiles_with(FEATURES)


@jit
def group_count(rows, width):
    """How many groups of 8 rows the kernels of :func:`rank_key_group` can take from ``rows`` rows of ``width``
    cards: the whole groups, less those whose second 32-byte load (from the group's fifth row) would read past
    the ids."""
    ends = rows * width - 4 * width - 32  # the last byte a group may start at
    if ends < 0:
        return 0
    return min(rows // ROWS, ends // (ROWS * width) + 1)


def _constant(vector: ir.VectorType, value: "int | list"):
    return ir.Constant(vector, value if isinstance(value, list) else [value] * vector.count)


def _lookup_bytes(builder: ir.IRBuilder, table, indices):
    """``table[index & 15]`` for each of 32 byte lanes, 0 where bit 7 is set (``vpshufb``; ``table`` holds 16
    bytes for each 128-bit half: a list of constants or a vector)."""
    if isinstance(table, list):
        table = _constant(_BYTES, table)
    return call_intrinsic(builder, "llvm.x86.avx2.pshuf.b", _BYTES, table, indices)


def _lane_sums(builder: ir.IRBuilder, values):
    """The sum of the 8 bytes of each 64-bit lane (``vpsadbw`` against zero)."""
    return call_intrinsic(builder, "llvm.x86.avx2.psad.bw", _QWORDS, values, _constant(_BYTES, 0))


def _row_bytes(width: int) -> tuple[list, list]:
    """The dword permute and the byte shuffle that put each of four rows of ``width`` cards (read as 32 bytes
    from the first row's start) in its own 64-bit lane: the permute gives the upper 128 bits the dwords that
    hold rows 2 and 3, the shuffle then picks each row's bytes (index 0x80: a zero byte)."""
    upper = 2 * width // 4  # the dword rows 2 and 3 start in
    permute = [0, 1, 2, 3, upper, upper + 1, upper + 2, upper + 3]
    shuffle = []
    for row in range(4):
        first = (row % 2) * width + (2 * width - 4 * upper if row >= 2 else 0)
        shuffle += [first + card if card < width else 0x80 for card in range(8)]
    return permute, shuffle


def rank_key_group(width: int):
    """An intrinsic ``rank_keys(ids, row, out)``: writes to ``out[row:row + 8]`` the rank keys of rows ``row`` to
    ``row + 7`` of the C-contiguous ``(N, width)`` ``uint8`` card ids ``ids`` (``width`` 3, 5, 6 or 7) and
    returns, for six or seven cards, a bit mask of the rows that hold a flush (bit ``l`` is row ``row + l``).

    Five cards' keys include the flush offset (the 5-card table holds the flushes), and the mask is 0; three
    cards (a front) have no flush.  The group's loads must lie inside ``ids`` (see :func:`group_count`), and
    ``out`` must be C-contiguous.
    """
    if width not in (3, 5, 6, 7):
        raise ValueError(f"rows of {width} cards")
    permute, shuffle = _row_bytes(width)
    unused = [0x80 if byte % 8 >= width else 0 for byte in range(32)]  # the lane bytes past a row's cards

    def codegen(builder, start, keys_out, row):
        halves, flushes = [], []
        for half in range(2):
            where = builder.gep(start, [ir.Constant(row.type, 4 * width * half)])
            loaded = builder.load(builder.bitcast(where, _DWORDS.as_pointer()), align=1)
            moved = call_intrinsic(builder, "llvm.x86.avx2.permd", _DWORDS, loaded, _constant(_DWORDS, permute))
            cards = call_intrinsic(builder, "llvm.x86.avx2.pshuf.b", _BYTES, builder.bitcast(moved, _BYTES),
                                   _constant(_BYTES, shuffle))
            ranks = cards
            for _ in range(3):  # id % 13 for ids up to 51: take 13 while that leaves a smaller unsigned byte
                less = builder.sub(ranks, _constant(_BYTES, 13))
                ranks = builder.select(builder.icmp_unsigned("<", less, ranks), less, ranks)
            suits = builder.sub(cards, ranks)  # 13 * suit
            ranks = builder.or_(ranks, _constant(_BYTES, unused))
            planes = [_lane_sums(builder, _lookup_bytes(builder, table, ranks)) for table in CONSTANT_BYTES]
            keys = builder.add(planes[0], builder.add(builder.shl(planes[1], _constant(_QWORDS, 8)),
                                                      builder.shl(planes[2], _constant(_QWORDS, 16))))
            if width == 5:  # a flush: cards 0-1, 1-2, 2-3 and 3-4 of the same suit
                lanes = builder.bitcast(suits, _QWORDS)
                differ = builder.and_(builder.xor(lanes, builder.lshr(lanes, _constant(_QWORDS, 8))),
                                      _constant(_QWORDS, 0xFFFFFFFF))
                flush = builder.icmp_unsigned("==", differ, _constant(_QWORDS, 0))
                keys = builder.add(keys, builder.select(flush, _constant(_QWORDS, FLUSH_KEY_OFFSET),
                                                        _constant(_QWORDS, 0)))
            elif width > 5:
                suits = builder.or_(suits, _constant(_BYTES, unused))
                flagged = _constant(_QWORDS, 0)
                for table in SUIT_COUNTERS:
                    counts = _lane_sums(builder, _lookup_bytes(builder, table, suits))
                    # a counter of five or more (at most 7) plus 3 sets its nibble's bit 3
                    flagged = builder.or_(flagged, builder.add(counts, _constant(_QWORDS, 0x33)))
                flagged = builder.and_(flagged, _constant(_QWORDS, 0x88))
                flushes.append(builder.icmp_unsigned("!=", flagged, _constant(_QWORDS, 0)))
            halves.append(builder.trunc(keys, ir.VectorType(_I32, 4)))
        keys = builder.shuffle_vector(halves[0], halves[1], _constant(_DWORDS, list(range(ROWS))))
        builder.store(keys, builder.bitcast(builder.gep(keys_out, [row]), _DWORDS.as_pointer()), align=4)
        if not flushes:
            return ir.Constant(_I64, 0)
        both = builder.shuffle_vector(flushes[0], flushes[1], _constant(_DWORDS, list(range(ROWS))))
        return builder.zext(builder.bitcast(both, ir.IntType(ROWS)), _I64)

    return row_group_intrinsic(width, codegen)


rank_keys_3, rank_keys_5, rank_keys_6, rank_keys_7 = (rank_key_group(width) for width in (3, 5, 6, 7))
