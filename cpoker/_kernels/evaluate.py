"""Strength keys of 5-card and 3-card rows, computed from card masks.

A key is ``category << 26 | major << 13 | minor`` where ``major`` and
``minor`` are 13-bit rank sets: the ranks that decide first (the quad, the
trips, the pairs, the straight's top card, or all ranks of a flush or high
card) and then the kickers.  Comparing two rank sets as integers compares
their ranks from the top down, and a missing rank loses to any real one, so
3-card and 5-card keys share one scale and docs/rules.md's "a missing kicker is
lower than any real card" holds by construction.
"""

from __future__ import annotations

import numpy as np
from cpoker.system.jit import jit  # first: it checks the environment before numba loads
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


CATEGORY_SHIFT = 26
MAJOR_SHIFT = 13
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
WHEEL = 0x100F  # A-2-3-4-5


@jit
def suit_ranks(mask):
    """The four 13-bit rank sets of a card mask, spades first."""
    return mask & 0x1FFF, (mask >> 13) & 0x1FFF, (mask >> 26) & 0x1FFF, (mask >> 39) & 0x1FFF


@jit
def rank_groups(s, h, d, c):
    """Rank sets of ranks held once, twice, three and four times (bit-sliced count)."""
    sum_sh, carry_sh = s ^ h, s & h
    sum_dc, carry_dc = d ^ c, d & c
    bit0 = sum_sh ^ sum_dc
    carry = sum_sh & sum_dc
    bit1 = carry_sh ^ carry_dc ^ carry
    quads = carry_sh & carry_dc
    return bit0 & ~bit1, bit1 & ~bit0, bit0 & bit1, quads


@jit
def _make_key(category, major, minor):
    return (category << CATEGORY_SHIFT) | (major << MAJOR_SHIFT) | minor


@jit
def key5(mask):
    """Strength key of the 5 cards in ``mask``."""
    s, h, d, c = suit_ranks(mask)
    singles, pairs, trips, quads = rank_groups(s, h, d, c)
    if quads:
        return _make_key(QUADS, quads, singles)
    if trips:
        if pairs:
            return _make_key(FULL_HOUSE, trips, pairs)
        return _make_key(TRIPS, trips, singles)
    if pairs:
        if pairs & (pairs - 1):
            return _make_key(TWO_PAIR, pairs, singles)
        return _make_key(PAIR, pairs, singles)
    ranks = singles
    flush = ranks == s or ranks == h or ranks == d or ranks == c
    run = ranks & (ranks >> 1) & (ranks >> 2) & (ranks >> 3) & (ranks >> 4)
    if run:
        top = run << 4
    elif ranks == WHEEL:
        top = 1 << 3
    else:
        top = 0
    if top:
        return _make_key(STRAIGHT_FLUSH if flush else STRAIGHT, top, 0)
    return _make_key(FLUSH if flush else HIGH_CARD, ranks, 0)


@jit
def key3(mask):
    """Strength key of the 3 cards in ``mask`` (front row: no straights or flushes)."""
    s, h, d, c = suit_ranks(mask)
    singles, pairs, trips, quads = rank_groups(s, h, d, c)
    if trips:
        return _make_key(TRIPS, trips, 0)
    if pairs:
        return _make_key(PAIR, pairs, singles)
    return _make_key(HIGH_CARD, singles, 0)


# how a front is ranked (Rules.front): "high" as every row, or played for low ("low-a5": the ace low, "low-27":
# the ace high; docs/rules.md, variants)
FRONT_HIGH, FRONT_LOW_A5, FRONT_LOW_27 = 0, 1, 2
LOW_FRONT_TOP = 1 << 14  # every low front's key lies in 1 .. LOW_FRONT_TOP - 7: below any 5-card key


@jit
def low_front_key(key, order):
    """The key of a front whose :func:`key3` is ``key`` when fronts play for low (``order``, one of
    ``FRONT_LOW_A5``, ``FRONT_LOW_27``; ``FRONT_HIGH`` gives ``key`` back): the lower hand gets the higher key.

    Any pair is worse than any front without one, and trips worse than any pair (the order of lowball).  Fronts
    without a pair compare their highest card, then the next, then the last; pairs the pair, then the kicker;
    the ace is the lowest card in ``FRONT_LOW_A5`` (A-5-4 beats 6-4-3) and the highest in ``FRONT_LOW_27``.
    Every such key lies below the key of any 5-card row, so the rule that a middle be at least as strong as
    the front never fouls a low front, and a low front is never paid a front royalty (its category is 0).
    """
    if order == FRONT_HIGH:
        return key
    category = key >> CATEGORY_SHIFT
    major = (key >> MAJOR_SHIFT) & 0x1FFF
    minor = key & 0x1FFF
    if order == FRONT_LOW_A5:  # the ace (bit 12) becomes the lowest rank, below the two
        major = ((major << 1) & 0x1FFE) | (major >> 12)
        minor = ((minor << 1) & 0x1FFE) | (minor >> 12)
    if category == HIGH_CARD:
        badness = major  # three ranks as a set: a smaller number is a lower top card, then a lower next
    elif category == PAIR:
        badness = 0x2000 + 16 * lowest_bit(major) + lowest_bit(minor)
    else:
        badness = 0x2000 + 16 * 13 + lowest_bit(major)
    return LOW_FRONT_TOP - badness


@jit
def low_front_rows(keys, order):
    """:func:`low_front_key` of the front (column 0) of each row of ``(N, 3)`` row keys, in place; a fouled or
    surrendered row's negative keys are left as they are."""
    for i in range(keys.shape[0]):
        if keys[i, 0] >= 0:
            keys[i, 0] = low_front_key(keys[i, 0], order)


@jit
def mask_of_ids(ids):
    """The card mask of a small array of card ids."""
    mask = np.int64(0)
    for j in range(ids.shape[0]):
        mask |= np.int64(1) << np.int64(ids[j])
    return mask


def _rank_tables():
    """Per 13-bit rank set: popcount, highest rank bit, and top-card bit of the best straight (0 if none)."""
    sets = np.arange(1 << 13)
    bits = (sets[:, None] >> np.arange(13)) & 1
    counts = bits.sum(axis=1).astype(np.uint8)
    top_bit = np.where(sets > 0, 1 << np.floor(np.log2(np.maximum(sets, 1))).astype(np.int64), 0)
    run = sets & (sets >> 1) & (sets >> 2) & (sets >> 3) & (sets >> 4)
    straight = np.where(run > 0, 1 << (np.floor(np.log2(np.maximum(run, 1))).astype(np.int64) + 4), 0)
    straight = np.where((straight == 0) & ((sets & WHEEL) == WHEEL), 1 << 3, straight)
    return counts, top_bit.astype(np.uint16), straight.astype(np.uint16)


# 3 x 8 KiB/16 KiB: small enough for numba to freeze into the cached machine code
POPCOUNT, TOP_BIT, STRAIGHT_TOP = _rank_tables()


# The kernels read the three tables only through these three leaves.  On the CPU
# they are one load each (inlined).  Their CUDA twins compute the same values
# with bit instructions (cuda.py): there a table would be a constant-memory copy
# per function that reads it (64 KiB in all) and a serialised read whenever the
# threads of a warp ask for different entries.
@jit
def count_ranks(ranks):
    """The number of ranks in a 13-bit rank set."""
    return POPCOUNT[ranks]


@jit
def top_rank(ranks):
    """The highest rank of a rank set, as a one-bit set (0 for the empty set)."""
    return np.int64(TOP_BIT[ranks])


@jit
def straight_top(ranks):
    """The top card of the best straight in a rank set, as a one-bit set (0 if none; the wheel's is the 5)."""
    return np.int64(STRAIGHT_TOP[ranks])


@jit
def _top_ranks(ranks, count):
    """The ``count`` highest ranks of a rank set (clears the lowest bits)."""
    while count_ranks(ranks) > count:
        ranks &= ranks - 1
    return ranks


@jit
def best_key(mask):
    """Key of the best 5-card hand among the 5 to 8 cards of ``mask``."""
    s, h, d, c = suit_ranks(mask)
    singles, pairs, trips, quads = rank_groups(s, h, d, c)
    ranks = s | h | d | c
    flush_ranks = 0
    for suited in (s, h, d, c):
        if count_ranks(suited) >= 5:
            flush_ranks = suited
    if flush_ranks:
        top = straight_top(flush_ranks)
        if top:
            return _make_key(STRAIGHT_FLUSH, top, 0)
    if quads:
        top_quads = top_rank(quads)  # eight cards may hold two
        return _make_key(QUADS, top_quads, top_rank(ranks ^ top_quads))
    if trips:
        high_trips = top_rank(trips)
        second = (trips ^ high_trips) | pairs
        if second:
            return _make_key(FULL_HOUSE, high_trips, top_rank(second))
    if flush_ranks:
        return _make_key(FLUSH, _top_ranks(flush_ranks, 5), 0)
    top = straight_top(ranks)
    if top:
        return _make_key(STRAIGHT, top, 0)
    if trips:
        return _make_key(TRIPS, trips, _top_ranks(singles, 2))
    if pairs:
        if pairs & (pairs - 1):
            two = _top_ranks(pairs, 2)
            return _make_key(TWO_PAIR, two, top_rank(ranks ^ two))
        return _make_key(PAIR, pairs, _top_ranks(singles, 3))
    return _make_key(HIGH_CARD, _top_ranks(ranks, 5), 0)


@jit
def best_front_key(mask):
    """Key of the best 3-card front among the 3 or more cards of ``mask``."""
    s, h, d, c = suit_ranks(mask)
    singles, pairs, trips, quads = rank_groups(s, h, d, c)
    ranks = s | h | d | c
    if trips | quads:
        return _make_key(TRIPS, top_rank(trips | quads), 0)
    if pairs:
        top_pair = top_rank(pairs)
        return _make_key(PAIR, top_pair, top_rank(ranks ^ top_pair))
    return _make_key(HIGH_CARD, _top_ranks(ranks, 3), 0)


@jit
def keys_from_masks(masks, n_cards, out):
    """``out[i]`` = key of card mask ``masks[i]`` holding ``n_cards`` (7 means: the best 5 of 5 to 7)."""
    # the choice is hoisted out of the loop by hand: LLVM does not, and it costs ~15% here
    if n_cards == 3:
        for i in range(masks.shape[0]):
            out[i] = key3(masks[i])
    elif n_cards == 5:
        for i in range(masks.shape[0]):
            out[i] = key5(masks[i])
    else:
        for i in range(masks.shape[0]):
            out[i] = best_key(masks[i])


def call_intrinsic(builder: ir.IRBuilder, name: str, result: ir.Type, *args):
    """A call of the LLVM intrinsic ``name`` returning ``result`` (declared once per module, with the types of
    ``args``: llvmlite's ``declare_intrinsic`` knows the argument lists of only some)."""
    function = builder.module.globals.get(name)
    if function is None:
        function = ir.Function(builder.module, ir.FunctionType(result, [arg.type for arg in args]), name)
    return builder.call(function, args)


def _bit_count(llvm_name: str, *flags: int):
    """An intrinsic ``f(value)``: LLVM's ``llvm_name`` (a bit count, one instruction) of an ``int64``, with the
    ``i1`` arguments ``flags`` after it."""

    @intrinsic
    def bit_count(typingctx, value):
        if not isinstance(value, types.Integer):
            return None
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):
            return call_intrinsic(builder, llvm_name, ir.IntType(64), args[0],
                                  *(ir.Constant(ir.IntType(1), flag) for flag in flags))

        return sig, codegen

    return bit_count


popcount = _bit_count("llvm.ctpop.i64")  # the number of bits set
lowest_bit = _bit_count("llvm.cttz.i64", 1)  # the index of the lowest bit set, of a nonzero value


# each id's card bit, and none for an id above 51: a row's bits then count fewer than its ids when it repeats a
# card or holds an id that is no card
CARD_BITS = np.array([1 << card for card in range(52)] + [0] * 204, dtype=np.int64)


@jit(inline="always")
def row_problem(ids, i, width):
    """Nonzero when row ``i`` of ``ids`` (``width`` ids, a constant at the call) repeats a card or has an id above
    51: the OR of its cards' bits counts fewer than ``width`` bits.  A load from a 2 KiB table and an OR a card."""
    union = np.int64(0)
    for j in range(width):
        union |= CARD_BITS[ids[i, j]]
    return popcount(union) ^ width


# rows a vectorised check takes at a time: one 32-byte vector of card ids per 32 bytes of rows
GROUP_ROWS = 32


def _group_check(width: int):
    """An intrinsic ``group_problem(flat, offset)``: nonzero when one of the 32 rows of ``width`` card ids that
    start at byte ``offset`` (a row's start) of the C-contiguous ``uint8`` array ``flat`` repeats a card or has
    an id above 51.  It reads ``width - 1`` bytes past the rows: the caller keeps them inside the array.

    Explicit vector code, as LLVM does not vectorise a loop over rows of 5 or 7 bytes: the 32 rows are ``width``
    vectors of 32 bytes, each compared with itself shifted by 1 to ``width - 1`` bytes.  A constant mask leaves
    out the lanes whose shifted byte is in the next row, and the unsigned minimum of the XORs finds a zero (a
    repeat); the maximum finds an id above 51.  About 3 vector operations a 5-card row, against some 12 scalar
    ones for :func:`row_problem`; the flags are read once per 32 rows.
    """
    vector = ir.VectorType(ir.IntType(8), GROUP_ROWS)

    @intrinsic
    def group_problem(typingctx, flat, offset):
        if not (isinstance(flat, types.Array) and flat.dtype == types.uint8 and flat.layout == "C"
                and isinstance(offset, types.Integer)):
            return None
        sig = types.int64(flat, types.intp)

        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            start = args[1]

            def load(at: int):
                where = builder.gep(data, [builder.add(start, ir.Constant(start.type, at))])
                return builder.load(builder.bitcast(where, vector.as_pointer()), align=1)

            def pick(a, b, smaller: bool):  # the unsigned minimum or maximum, lane by lane (vpminub, vpmaxub)
                return builder.select(builder.icmp_unsigned("<" if smaller else ">", a, b), a, b)

            least = most = None
            for k in range(width):
                cards = load(GROUP_ROWS * k)
                most = cards if most is None else pick(most, cards, False)
                for shift in range(1, width):
                    # 0xFF where the card ``shift`` places on belongs to the next row: never a zero there
                    next_row = [0 if (GROUP_ROWS * k + j) % width + shift < width else 0xFF
                                for j in range(GROUP_ROWS)]
                    if all(next_row):
                        continue
                    differ = builder.or_(builder.xor(cards, load(GROUP_ROWS * k + shift)),
                                         ir.Constant(vector, next_row))
                    least = differ if least is None else pick(least, differ, True)
            repeated = builder.icmp_unsigned("==", least, ir.Constant(vector, [0] * GROUP_ROWS))
            unknown = builder.icmp_unsigned(">", most, ir.Constant(vector, [51] * GROUP_ROWS))
            flags = builder.bitcast(builder.or_(repeated, unknown), ir.IntType(GROUP_ROWS))
            return builder.zext(flags, ir.IntType(64))

        return sig, codegen

    return group_problem


_group_problem_3, _group_problem_5, _group_problem_6, _group_problem_7 = (_group_check(w) for w in (3, 5, 6, 7))


@jit(inline="always")
def _group_problem(flat, offset, width):
    """:func:`_group_check`'s test for ``width`` (a constant at the call)."""
    if width == 3:
        return _group_problem_3(flat, offset)
    if width == 5:
        return _group_problem_5(flat, offset)
    if width == 6:
        return _group_problem_6(flat, offset)
    return _group_problem_7(flat, offset)


@jit(inline="always")
def _rows_problem(ids, width):
    """Nonzero when a row of ``ids`` (``width`` ids, a constant at the call) repeats a card or has an id above
    51: 32 rows at a time in vector code, the last rows (whose vectors would read past the array) one by one."""
    n = ids.shape[0]
    flat = ids.reshape(-1)
    groups = (n - 1) // GROUP_ROWS if n else 0  # a group's vectors read width - 1 bytes into the next row
    bad = np.int64(0)
    for group in range(groups):
        bad |= _group_problem(flat, group * GROUP_ROWS * width, width)
    for i in range(groups * GROUP_ROWS, n):
        bad |= row_problem(ids, i, width)
    return bad


@jit
def rows_problem(ids):
    """Nonzero when a row of ``(N, k)`` uint8 card ids (k = 3, 5, 6 or 7) has an id above 51 or repeats a card:
    the check of a batch, one vectorised pass (about a tenth of the scalar evaluation's time for 5-card rows)."""
    width = ids.shape[1]
    if width == 3:
        return _rows_problem(ids, 3)
    if width == 5:
        return _rows_problem(ids, 5)
    if width == 6:
        return _rows_problem(ids, 6)
    if width == 7:
        return _rows_problem(ids, 7)
    return np.int64(1)


@jit
def first_bad_row(ids):
    """Index of the first row of ``(N, k)`` uint8 card ids with an id above 51 or a repeated card, or -1.

    Run once :func:`rows_problem` has flagged a batch, to name the row: the row tests of :func:`row_problem`,
    one loop per width with a constant trip count (a loop over a run-time width is several times slower).
    """
    width = ids.shape[1]
    for i in range(ids.shape[0]):
        if width == 3:
            bad = row_problem(ids, i, 3)
        elif width == 5:
            bad = row_problem(ids, i, 5)
        elif width == 6:
            bad = row_problem(ids, i, 6)
        elif width == 7:
            bad = row_problem(ids, i, 7)
        else:
            bad = 1
        if bad:
            return i
    return -1


@jit
def first_bad_mask(masks, low, high):
    """Index of the first mask with bits above card 51 or not ``low..high`` cards, or -1."""
    for i in range(masks.shape[0]):
        mask = masks[i]
        if mask < 0 or mask >> 52:
            return i
        count = 0
        while mask:
            mask &= mask - 1
            count += 1
        if count < low or count > high:
            return i
    return -1


@jit
def dealt_category(mask):
    """The best category among a hand's combinations that ``royalties.dealt`` pays whole or broken: 8 when the
    cards hold a straight flush, else 7 for a four of a kind, else 0 (a hand of any size, as a card mask)."""
    suit_0 = mask & np.int64(0x1FFF)  # each suit's ranks (card id = 13 * suit + rank)
    suit_1 = (mask >> np.int64(13)) & np.int64(0x1FFF)
    suit_2 = (mask >> np.int64(26)) & np.int64(0x1FFF)
    suit_3 = (mask >> np.int64(39)) & np.int64(0x1FFF)
    for ranks in (suit_0, suit_1, suit_2, suit_3):
        if ranks & (ranks >> 1) & (ranks >> 2) & (ranks >> 3) & (ranks >> 4) or (ranks & WHEEL) == WHEEL:
            return 8
    if suit_0 & suit_1 & suit_2 & suit_3:
        return 7
    return 0


@jit
def dealt_categories(hands):
    """:func:`dealt_category` of each row of card ids ``(N, k)``, as ``int64``."""
    out = np.empty(hands.shape[0], dtype=np.int64)
    for i in range(hands.shape[0]):
        out[i] = dealt_category(mask_of_ids(hands[i]))
    return out
