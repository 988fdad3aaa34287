"""Lookup tables, loaded or built once on first use and cached for the process.

Nothing here runs at import: each table comes from a ``functools.cache``'d
function the first time a caller needs it.

* :func:`lookup_tables` -- the evaluators' tables (card codes, row-displacement
  tables, perfect hashes, flush tables), shipped in ``data/lookup_tables.npz``
  and rebuilt bit for bit by :func:`build_lookup_tables`;
* :func:`strength_keys` -- the sorted 7,917 distinct strength keys of all
  5-card (7,462) and 3-card (455) rows, so a key maps to a dense strength
  index with ``searchsorted``;
* :func:`split_tables` -- for the 13 positions of a hand, the 1,287 5-subsets,
  the 286 3-subsets, and the 72,072 back/middle/front splits as triples of
  subset indices.
"""

from __future__ import annotations

import functools
from itertools import combinations
from typing import NamedTuple

import numpy as np

from cpoker._kernels.layout import (EVAL_KEY_SHIFT, EVAL_ROWS_AT, FLUSH_KEY_OFFSET, LOOKUP_SIZES, RANK_CONSTANTS,
                                    ROW_SHIFT, SUIT_SHIFT, key_rows)

HAND_SIZE = 13
N_SPLITS = 72_072
SPLITS_PER_BACK = 56  # C(8, 5): the splits of back subset b are rows 56*b .. 56*b+55


@functools.cache
def row_keys(size: int) -> np.ndarray:
    """Sorted distinct keys of all ``size``-card rows (5: 7,462 keys; 3: 455 keys).

    Built from one representative mask per rank multiset (plus a flush variant
    for five distinct ranks), not from the 2.6 million hands.
    """
    from cpoker._kernels.evaluate import key3, key5

    key = {5: key5, 3: key3}[size]
    keys: set[int] = set()
    for ranks in _rank_multisets(size):
        # deal the ranks over the suits in turn: no flush unless forced below
        counts: dict[int, int] = {}
        mask = 0
        for rank in ranks:
            suit = counts.get(rank, 0)
            counts[rank] = suit + 1
            mask |= 1 << (13 * ((suit + len(counts)) % 4) + rank)
        keys.add(int(key(mask)))
        if size == 5 and len(counts) == 5:
            keys.add(int(key(sum(1 << r for r in ranks))))  # all spades
    return np.array(sorted(keys), dtype=np.int32)


def strength_keys(front_code: int = 0) -> np.ndarray:
    """Sorted distinct keys of every 5-card and 3-card row (``int32``, 7,917 entries; read-only).

    Shipped with the lookup tables (:func:`lookup_tables`), so that nothing is
    evaluated to get them; :func:`build_strength_keys` rebuilds them.  With a
    low ``front_code`` (``Rules.front_code``), those of its :class:`StrengthScale`.
    """
    if front_code:
        return strength_scale(front_code).keys
    return lookup_tables().strength_keys


def build_strength_keys() -> np.ndarray:
    """The union of :func:`row_keys` for both row sizes (evaluates one hand per rank multiset)."""
    return np.union1d(row_keys(5), row_keys(3)).astype(np.int32)


def _rank_multisets(size: int):
    from itertools import combinations_with_replacement

    for ranks in combinations_with_replacement(range(13), size):
        if max(ranks.count(r) for r in set(ranks)) <= 4:
            yield ranks


class SplitTables(NamedTuple):
    """Index tables over the 13 positions of a hand (see module docstring)."""

    subsets5: np.ndarray  # (1287, 5) uint8 positions
    subsets3: np.ndarray  # (286, 3) uint8 positions
    splits: np.ndarray  # (72072, 3) int16: back, middle (indices into subsets5), front (into subsets3)
    middles: np.ndarray  # (72072,) uint16: splits[:, 1] as a contiguous column (the kernels read columns)
    fronts: np.ndarray  # (72072,) uint16: splits[:, 2]


@functools.cache
def split_tables() -> SplitTables:
    """All back/middle/front splits of 13 positions, ordered by back then middle subset."""
    subsets5 = np.array(list(combinations(range(HAND_SIZE), 5)), dtype=np.uint8)
    subsets3 = np.array(list(combinations(range(HAND_SIZE), 3)), dtype=np.uint8)
    bits5 = (1 << subsets5.astype(np.int32)).sum(axis=1)
    bits3 = (1 << subsets3.astype(np.int32)).sum(axis=1)
    index5, index3 = np.full(1 << HAND_SIZE, -1, dtype=np.int32), np.full(1 << HAND_SIZE, -1, dtype=np.int32)
    index5[bits5], index3[bits3] = np.arange(len(bits5)), np.arange(len(bits3))
    # the 8 positions each back leaves, ascending; their 5-subsets in lexicographic order are middles of
    # increasing index (so the splits come out ordered by back, then middle), the 3 positions left the front
    left = np.nonzero((bits5[:, None] >> np.arange(HAND_SIZE)) & 1 == 0)[1].reshape(len(bits5), 8)
    chosen = np.zeros((8, SPLITS_PER_BACK), dtype=np.int32)  # which of the 8 each middle takes
    for column, five in enumerate(combinations(range(8), 5)):
        chosen[five, column] = 1
    middle_bits = (1 << left).astype(np.int32) @ chosen  # (1287, 56)
    splits = np.empty((N_SPLITS, 3), dtype=np.int16)
    splits[:, 0] = np.repeat(np.arange(len(bits5), dtype=np.int16), SPLITS_PER_BACK)
    splits[:, 1] = middle = index5[middle_bits].ravel()
    splits[:, 2] = front = index3[((1 << HAND_SIZE) - 1) ^ bits5[:, None] ^ middle_bits].ravel()
    assert len(splits) == N_SPLITS and (front >= 0).all() and (np.diff(middle.reshape(-1, SPLITS_PER_BACK)) > 0).all()
    # unsigned: a kernel indexing with them then needs no negative-index wraparound
    middles, fronts = (np.ascontiguousarray(splits[:, column], dtype=np.uint16) for column in (1, 2))
    for table in (subsets5, subsets3, splits, middles, fronts):
        table.flags.writeable = False
    return SplitTables(subsets5, subsets3, splits, middles, fronts)


# ---------------------------------------------------------------------------
# Lookup evaluation (cpoker._kernels.lookup): card codes, perfect hashes, flush keys

ROWS = "rows"  # the hash of every 3-card and 5-card rank multiset, to dense strength indices
REST = "rest"  # the hash of every 8-card rank multiset (what a back leaves), to its best middle and front
# (slot bits, bucket bits) per table: about 0.75-0.9 keys per slot and 6-7 per bucket
_HASH_SHAPES = {ROWS: (13, 10), REST: (17, 14)}
_HASH_MULTIPLIER_SEED = 20261130


class PerfectHash(NamedTuple):
    """A collision-free map from rank-count words to keys (see :mod:`cpoker._kernels.lookup`)."""

    multiplier: int  # odd, < 2**63
    bucket_shift: int  # bucket = hash >> bucket_shift (hash is 32 bits)
    slot_mask: int  # len(values) - 1
    displacements: np.ndarray  # (2**bucket_bits,) int32, added to the hash before masking
    values: np.ndarray  # (2**slot_bits,) int32 keys, 0 in unused slots


class RowDisplacement(NamedTuple):
    """A collision-free table from rank keys to strength keys: ``values[key + displacements[key >> ROW_SHIFT]]``.

    The method of OMPEval: the key range is cut into rows of ``2**ROW_SHIFT``
    keys, and each row is shifted (its displacement) to where its keys land on
    free slots, the fullest rows first.  No multiplication, two loads.

    The 5-card table also holds every flush, at its rank key plus
    ``FLUSH_KEY_OFFSET``: five cards of one suit have five distinct ranks, so
    the rank key names the flush, and the evaluator adds the offset when the
    suit counters show one -- a multiply by 0 or 1 instead of a branch.
    """

    displacements: np.ndarray  # (rows,) int32
    values: np.ndarray  # int32 strength keys, 0 in unused slots


class LookupTables(NamedTuple):
    """Everything the lookup evaluators read: ~1.5 MB, shipped in ``cpoker/data/lookup_tables.npz``."""

    card_codes: np.ndarray  # (256,) int64: 8**rank + (16**suit << 40) for ids 0..51, then zeros (the policy's)
    flush_keys: np.ndarray  # (8192,) int32: best flush of a rank set (0 below five ranks)
    hashes: dict  # ROWS -> PerfectHash to dense strengths (int16); REST -> see build_lookup_tables
    flush_strengths: np.ndarray  # (8192,) int16: dense strength of the best flush of a rank set (0 below five)
    strength_keys: np.ndarray  # (7917,) int32: see strength_keys()
    eval_codes: np.ndarray  # (256,) int64: (RANK_CONSTANTS[rank] << 16) + 16**suit for ids 0..51, then zeros
    by_size: dict  # hand size (3, 5, 6, 7) -> RowDisplacement to strength keys


def card_codes() -> np.ndarray:
    """The code of each card id (see :mod:`cpoker._kernels.lookup`), padded with zeros to 256 entries.

    The padding makes any ``uint8`` a safe index: unchecked input
    (``check=False``) with ids above 51 gives meaningless keys, never a read
    outside the table.
    """
    ids = np.arange(52)
    codes = np.zeros(256, dtype=np.int64)
    codes[:52] = (np.int64(1) << (3 * (ids % 13))) + (np.int64(1) << (SUIT_SHIFT + 4 * (ids // 13)))
    return codes


def eval_codes() -> np.ndarray:
    """The evaluator's code of each card id: its rank's constant (from bit 16) plus its suit counter (zeros
    from 52 to 255)."""
    ids = np.arange(52)
    codes = np.zeros(256, dtype=np.int64)
    ranks = np.array(RANK_CONSTANTS, dtype=np.int64)[ids % 13]
    codes[:52] = (ranks << EVAL_KEY_SHIFT) + (np.int64(1) << (4 * (ids // 13)))
    return codes


def search_rank_constants(max_cards: int = 7) -> tuple:
    """The smallest increasing constants, rank by rank, whose sums differ within every multiset size.

    Two multisets of one size with equal sums would stay equal when the same
    higher ranks are added, so every size from 1 to ``max_cards`` must be
    collision-free at every step.  A constant ``c`` is ruled out when
    ``s1 + j1 * c == s2 + j2 * c`` for sums ``s1``, ``s2`` of smaller
    multisets, i.e. when ``(s1 - s2) / (j2 - j1)`` is ``c``: those values are
    marked window by window and the first free one is taken.  About 10 s.
    """
    sums = [np.zeros(1, dtype=np.int64)] + [np.zeros(0, dtype=np.int64)] * max_cards
    constants: list = []
    for _ in range(13):
        low, width = (constants[-1] if constants else 0) + 1, 4096
        while True:
            ruled_out = np.zeros(width, dtype=bool)
            for size in range(1, max_cards + 1):
                for fewer in range(0, min(4, size) + 1):
                    for more in range(fewer + 1, min(4, size) + 1):
                        step, a, b = more - fewer, sums[size - fewer], sums[size - more]
                        left = np.searchsorted(a, b + step * low)
                        counts = np.searchsorted(a, b + step * (low + width)) - left
                        if not counts.sum():
                            continue
                        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
                        gaps = a[np.repeat(left, counts) + offsets] - np.repeat(b, counts)
                        exact = gaps % step == 0
                        ruled_out[gaps[exact] // step - low] = True
            if not ruled_out.all():
                constants.append(low + int(np.argmin(ruled_out)))
                break
            low, width = low + width, width * 2
        c = constants[-1]
        sums = [np.sort(np.concatenate([sums[size - j] + j * c for j in range(min(4, size) + 1)]))
                for size in range(max_cards + 1)]
    return tuple(constants)


def row_displacement(keys: np.ndarray, values: np.ndarray, shift: int = ROW_SHIFT,
                     regions: int = 1) -> RowDisplacement:
    """Place distinct ``keys`` with their ``values`` (see :class:`RowDisplacement`), fullest rows first.

    ``regions``: how many key ranges of ``7 * RANK_CONSTANTS[-1]`` the
    displacements cover (2 for the 5-card table and its flushes).
    """
    rows, columns = keys >> shift, keys & ((1 << shift) - 1)
    order = np.lexsort((columns, rows))
    rows, columns, values = rows[order], columns[order], values[order]
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    stops = np.r_[starts[1:], len(rows)]
    occupied = np.zeros(4 * len(keys) + (1 << shift), dtype=bool)
    # every row a sum of up to 7 codes can reach, so that garbage input (check=False) still reads inside
    # the tables: rows without keys point at slots 0 .. 2**shift - 1, and the table runs 2**shift past
    # the last row's base
    n_rows = key_rows(shift) * regions
    displacements = -(np.arange(n_rows, dtype=np.int64) << shift)
    table = np.zeros(len(occupied) + (1 << shift), dtype=np.int32)
    last_base = 0
    for index in sorted(range(len(starts)), key=lambda i: (starts[i] - stops[i], starts[i])):
        a, b = starts[index], stops[index]
        base = _first_free_base(occupied, columns[a:b])
        occupied[columns[a:b] + base] = True
        table[columns[a:b] + base] = values[a:b]
        displacements[rows[a]] = base - (int(rows[a]) << shift)
        last_base = max(last_base, base)
    return RowDisplacement(displacements.astype(np.int32), table[:last_base + (1 << shift)].copy())


def _first_free_base(occupied: np.ndarray, columns: np.ndarray) -> int:
    base, chunk = 0, 256
    while True:
        candidates = np.arange(base, base + chunk)
        free = ~occupied[columns[:, None] + candidates[None, :]].any(axis=0)
        if free.any():
            return int(candidates[np.argmax(free)])
        base += chunk


def _representative_masks(size: int) -> tuple[np.ndarray, np.ndarray]:
    """One card mask without a flush per rank multiset of ``size`` cards, and the multisets' count words."""
    from itertools import combinations_with_replacement

    masks, words = [], []
    for ranks in combinations_with_replacement(range(13), size):
        counts = np.bincount(ranks, minlength=13)
        if counts.max() > 4:
            continue
        # the k-th copy of the i-th distinct rank goes to suit (i + k) % 4: at most 4 cards per suit
        mask, per_suit = 0, [0] * 4
        for i, rank in enumerate(np.flatnonzero(counts)):
            for k in range(counts[rank]):
                suit = (i + k) % 4
                per_suit[suit] += 1
                mask |= 1 << (13 * suit + int(rank))
        assert max(per_suit) < 5
        masks.append(mask)
        words.append(int(sum(int(c) << (3 * r) for r, c in enumerate(counts))))
    return np.array(masks, dtype=np.int64), np.array(words, dtype=np.int64)


def _hash32(words: np.ndarray, multiplier: int) -> np.ndarray:
    """The kernels' ``((word * multiplier) >> 32) & 0xFFFFFFFF`` (wrapping 64-bit product)."""
    with np.errstate(over="ignore"):
        return ((words.astype(np.uint64) * np.uint64(multiplier)) >> np.uint64(32)).astype(np.int64) & 0xFFFFFFFF


def _first_free_displacement(occupied: np.ndarray, base: np.ndarray) -> int:
    """The smallest ``d`` with every slot ``(base + d) % len(occupied)`` free, or -1 (chunks of candidates)."""
    n_slots, start, chunk = len(occupied), 0, 64
    while start < n_slots:
        candidates = np.arange(start, min(n_slots, start + chunk))
        free = ~occupied[(base[:, None] + candidates[None, :]) & (n_slots - 1)].any(axis=0)
        if free.any():
            return int(candidates[np.argmax(free)])
        start, chunk = start + chunk, chunk * 4
    return -1


def perfect_hash(words: np.ndarray, keys: np.ndarray, slot_bits: int, bucket_bits: int) -> PerfectHash:
    """Place ``keys`` so that ``values[(h + displacements[h >> shift]) & mask]`` finds each word's key.

    ``h`` is the word times an odd multiplier (top 32 bits of the 64-bit
    product).  Buckets are placed largest first, each at the smallest
    displacement whose slots are all free (hash-and-displace); a multiplier
    that puts two words of one bucket on the same slot is skipped.  The
    multipliers come from a fixed seed, so the tables are rebuilt bit for bit.
    """
    n_slots, shift = 1 << slot_bits, 32 - bucket_bits
    rng = np.random.default_rng(_HASH_MULTIPLIER_SEED)
    for _ in range(1000):
        multiplier = int(rng.integers(1 << 61, 1 << 63)) | 1
        h = _hash32(words, multiplier)
        buckets = h >> shift
        order = np.lexsort((h, buckets))
        sorted_buckets, sorted_h = buckets[order], h[order]
        starts = np.flatnonzero(np.r_[True, sorted_buckets[1:] != sorted_buckets[:-1]])
        stops = np.r_[starts[1:], len(order)]
        lows = sorted_h & (n_slots - 1)
        if any(len(np.unique(lows[a:b])) != b - a for a, b in zip(starts, stops)):
            continue
        occupied = np.zeros(n_slots, dtype=bool)
        displacements = np.zeros(1 << bucket_bits, dtype=np.int32)
        values = np.zeros(n_slots, dtype=keys.dtype)
        for index in sorted(range(len(starts)), key=lambda i: (starts[i] - stops[i], starts[i])):
            a, b = starts[index], stops[index]
            base = lows[a:b]
            d = _first_free_displacement(occupied, base)
            if d < 0:
                break
            slots = (base + d) & (n_slots - 1)
            occupied[slots] = True
            displacements[sorted_buckets[a]] = d
            values[slots] = keys[order[a:b]]
        else:
            return PerfectHash(multiplier, shift, n_slots - 1, displacements, values)
    raise RuntimeError("no perfect hash found")  # pragma: no cover - the seed is fixed and works


def keys_of_masks(masks: np.ndarray, n_cards: int) -> np.ndarray:
    """Keys of valid int64 masks of ``n_cards`` cards (7: the best five of 5-7), unchecked (internal use)."""
    from cpoker._kernels.evaluate import keys_from_masks

    out = np.empty(len(masks), dtype=np.int32)
    keys_from_masks(np.ascontiguousarray(masks, dtype=np.int64), n_cards, out)
    return out


def build_lookup_tables() -> LookupTables:
    """Build the lookup tables from :mod:`cpoker._kernels.evaluate`'s keys (about 10 s; shipped prebuilt)."""
    strengths = build_strength_keys()

    ranks = np.arange(1 << 13, dtype=np.int64)
    popcount = np.array([bin(r).count("1") for r in range(1 << 13)])
    flush_keys = np.where(popcount >= 5, keys_of_masks(ranks, 7), 0).astype(np.int32)
    by_size = {}
    constants = np.array(RANK_CONSTANTS, dtype=np.int64)
    for size in LOOKUP_SIZES:
        masks, words = _representative_masks(size)
        counts = (words[:, None] >> (3 * np.arange(13))) & 7
        keys, values = counts @ constants, keys_of_masks(masks, size if size in (3, 5) else 7)
        if size == 5:  # and the 1,287 flushes, after the rows of the rank keys (see RowDisplacement)
            flushes = ranks[popcount == 5]
            flush_counts = (flushes[:, None] >> np.arange(13)) & 1
            keys = np.r_[keys, flush_counts @ constants + FLUSH_KEY_OFFSET]
            values = np.r_[values, flush_keys[flushes]]
        by_size[size] = row_displacement(keys, values, regions=2 if size == 5 else 1)
    hashes = {}
    row_words, row_strengths = [], []
    for size in (3, 5):
        masks, words = _representative_masks(size)
        row_words.append(words)
        row_strengths.append(np.searchsorted(strengths, keys_of_masks(masks, size)))
    hashes[ROWS] = perfect_hash(np.concatenate(row_words), np.concatenate(row_strengths), *_HASH_SHAPES[ROWS])
    hashes[ROWS] = hashes[ROWS]._replace(values=hashes[ROWS].values.astype(np.int16))
    # eight cards: (dense strength of the best five without a flush) << 16 | dense strength of the best three
    masks, words = _representative_masks(8)
    rest = (np.searchsorted(strengths, keys_of_masks(masks, 8)) << 16
            | np.searchsorted(strengths, best_front_keys(masks)))
    hashes[REST] = perfect_hash(words, rest.astype(np.int32), *_HASH_SHAPES[REST])
    flush_strengths = np.where(popcount >= 5, np.searchsorted(strengths, flush_keys), 0).astype(np.int16)
    return LookupTables(card_codes(), flush_keys, hashes, flush_strengths, strengths, eval_codes(), by_size)


LOOKUP_TABLES_FILE = "lookup_tables.npz"


def save_lookup_tables(tables: LookupTables, path) -> None:
    arrays = {"card_codes": tables.card_codes, "flush_keys": tables.flush_keys,
              "flush_strengths": tables.flush_strengths, "strength_keys": tables.strength_keys,
              "eval_codes": tables.eval_codes}
    for size, table in tables.by_size.items():
        arrays[f"rows{size}_displacements"] = table.displacements
        arrays[f"rows{size}_values"] = table.values
    for size, table in tables.hashes.items():
        arrays[f"hash{size}_parameters"] = np.array([table.multiplier, table.bucket_shift], dtype=np.int64)
        arrays[f"hash{size}_displacements"] = table.displacements
        arrays[f"hash{size}_values"] = table.values
    # not compressed: read at every start-up, where decompressing would cost more than the reading (the wheel
    # compresses it)
    np.savez(path, **arrays)  # type: ignore[arg-type]


@functools.cache
def lookup_tables() -> LookupTables:
    """The shipped lookup tables (read once per process); rebuild with :func:`build_lookup_tables`."""
    from importlib.resources import files

    from cpoker.system.errors import InstallationError

    path = files("cpoker") / "data" / LOOKUP_TABLES_FILE
    try:
        with np.load(path) as data:  # type: ignore[arg-type]  # (a package resource: a file, or a zip member)
            return _lookup_tables_of({name: data[name] for name in data.files})
    except MemoryError:  # this machine's memory, not a damaged install
        raise
    except Exception as error:  # missing, truncated, not a zip, a member missing: the install is damaged
        raise InstallationError(f"cpoker's lookup tables {path} cannot be read ({type(error).__name__}: "
                                f"{str(error)[:80]}); reinstall cpoker") from None


def _lookup_tables_of(arrays: dict) -> LookupTables:
    hashes = {}
    for name in (ROWS, REST):
        multiplier, shift = (int(x) for x in arrays[f"hash{name}_parameters"])
        values = arrays[f"hash{name}_values"]
        hashes[name] = PerfectHash(multiplier, shift, len(values) - 1, arrays[f"hash{name}_displacements"], values)
    by_size = {size: RowDisplacement(arrays[f"rows{size}_displacements"], arrays[f"rows{size}_values"])
               for size in LOOKUP_SIZES}
    tables = LookupTables(arrays["card_codes"], arrays["flush_keys"], hashes, arrays["flush_strengths"],
                          arrays["strength_keys"], arrays["eval_codes"], by_size)
    for array in (tables.card_codes, tables.flush_keys, tables.flush_strengths, tables.strength_keys,
                  tables.eval_codes, *(a for t in hashes.values() for a in t[3:]),
                  *(a for t in by_size.values() for a in t)):
        array.flags.writeable = False
    return tables


@functools.cache
def evaluator_table(size: int) -> np.ndarray:
    """The one ``int32`` array that :func:`cpoker._kernels.lookup.keys_from_ids_lookup` reads for ``size`` cards.

    The flush keys (8,192, by rank set), then the size's row displacements
    (from ``EVAL_ROWS_AT``, each shifted to index this array), then its
    values: the slot of rank key ``k`` is ``k + table[EVAL_ROWS_AT + (k >>
    ROW_SHIFT)]``.  One array is one base pointer in the kernel's loop: with
    three tables the 7-card loop reloaded two of its pointers from the stack
    on every row.  Built from the shipped tables at first use.
    """
    tables = lookup_tables()
    rows = tables.by_size[size]
    values_at = EVAL_ROWS_AT + len(rows.displacements)
    table = np.concatenate([tables.flush_keys, rows.displacements + np.int32(values_at), rows.values])
    table.flags.writeable = False
    return table


@functools.cache
def evaluator_pair_codes() -> np.ndarray:
    """``pairs[a + 256 * b] = eval_codes[a] + eval_codes[b]`` for every two bytes ``a``, ``b`` (``int64``).

    The 5-card evaluator loads two card ids as one 16-bit word and looks the
    pair up here.  Every byte pair has its entry (512 KB), so unchecked
    garbage still reads inside the table.  Built at first use.
    """
    codes = lookup_tables().eval_codes
    pairs = (codes[None, :] + codes[:, None]).reshape(-1)
    pairs.flags.writeable = False
    return pairs


def best_front_keys(masks: np.ndarray) -> np.ndarray:
    """Key of the best 3-card front among the cards of each mask (three or more cards)."""
    from cpoker._kernels.evaluate import best_front_key

    return np.array([best_front_key(int(mask)) for mask in masks], dtype=np.int32)


def row_lookup_arguments(front_code: int = 0) -> tuple:
    """The arguments of the kernels' ``subset_strengths``, in order: card codes, the rows' perfect hash, flushes
    (to the dense strengths of the scale of ``front_code``: :func:`strength_scale`)."""
    if front_code:
        return strength_scale(front_code).rows
    tables = lookup_tables()
    rows = tables.hashes[ROWS]
    return (tables.card_codes, rows.multiplier, rows.bucket_shift, rows.slot_mask, rows.displacements, rows.values,
            tables.flush_strengths)


def rest_lookup_arguments(front_code: int = 0) -> tuple:
    """The 8-card table's arguments of the table policy's tight bound: its perfect hash, in order (its caps as
    dense strengths of the scale of ``front_code``: :func:`strength_scale`)."""
    if front_code:
        return strength_scale(front_code).rest
    rest = lookup_tables().hashes[REST]
    return rest.multiplier, rest.bucket_shift, rest.slot_mask, rest.displacements, rest.values


class StrengthScale(NamedTuple):
    """The dense strengths of rows when the front is ranked one way (``Rules.front``): what the table policy's
    kernels compare, look up and learn distributions over.

    In the high order (``front_code`` 0) these are :func:`strength_keys`'s.  When the front plays for low, a
    front's key is :func:`cpoker._kernels.evaluate.low_front_key` of its own, below every 5-card key: the
    455 fronts take the dense strengths 0..454, best low last, and the 7,462 five-card rows the 7,462 above
    them, in their order.  So the same number of strengths (the tables' shapes do not change), the kernels'
    rule ``back >= middle >= front`` is then ``back >= middle`` exactly, and every bound of the policy's branch
    and bound, built from these tables, holds as it is.
    """

    front_code: int
    keys: np.ndarray  # (S,) int32: each strength's key on this scale (a low front's key for a front), sorted
    shape_keys: np.ndarray  # (S,) int32: the row's key in the high order (its category and ranks: its shape)
    rows: tuple  # row_lookup_arguments: the same perfect hash, its values on this scale
    rest: tuple  # rest_lookup_arguments: the same perfect hash; the middle cap and this scale's best front
    from_high: np.ndarray  # (S,) int16: the strength on this scale of each of strength_keys()'s (a row's)


@functools.cache
def strength_scale(front_code: int = 0) -> StrengthScale:
    """The :class:`StrengthScale` of a front order (``Rules.front_code``), made from the shipped tables at first
    use (a low order: 0.03-0.08 s, its kernels compiled: those every policy model uses)."""
    from cpoker._kernels.evaluate import low_front_rows
    from cpoker._kernels.subsets import rest_row_values

    tables = lookup_tables()
    high = tables.strength_keys
    if not front_code:
        same = np.arange(len(high), dtype=np.int16)
        same.flags.writeable = False
        return StrengthScale(0, high, high, row_lookup_arguments(), rest_lookup_arguments(), same)
    fronts = three_card_strengths()  # (of the high order's scale)
    as_fronts = np.zeros((len(high), 3), dtype=np.int32)  # (low_front_rows renames the first column of rows)
    as_fronts[:, 0] = high
    low_front_rows(as_fronts, front_code)
    renamed = np.where(fronts, as_fronts[:, 0], high)
    order = np.argsort(renamed, kind="stable")
    remap = np.empty(len(high), dtype=np.int64)  # high dense strength -> this scale's
    remap[order] = np.arange(len(high))
    keys, shape_keys = renamed[order].astype(np.int32), high[order]
    hashed = tables.hashes[ROWS]
    rows = (tables.card_codes, hashed.multiplier, hashed.bucket_shift, hashed.slot_mask, hashed.displacements,
            remap[hashed.values].astype(np.int16),
            np.where(tables.flush_keys > 0, remap[tables.flush_strengths], 0).astype(np.int16))
    rest = tables.hashes[REST]
    # the best front of each 8 ranks on this scale: the best "middle + front" value of the 8-card kernel with a
    # front's value its dense strength and every middle's 0 (on this scale every middle is stronger than every
    # front, so the kernel's order test passes every split)
    by_strength = np.zeros((3, len(high)))
    by_strength[0] = np.arange(len(high))
    best = np.empty(len(rest.values))
    rest_row_values(by_strength, *rows[1:6], rest.multiplier, rest.bucket_shift, rest.slot_mask, rest.displacements,
                    best)
    used = np.isfinite(best)
    rest_values = np.zeros(len(rest.values), dtype=np.int64)
    rest_values[used] = remap[rest.values[used] >> 16] << 16 | best[used].astype(np.int64)
    rest_args = (rest.multiplier, rest.bucket_shift, rest.slot_mask, rest.displacements, rest_values.astype(np.int32))
    from_high = remap.astype(np.int16)
    for array in (keys, shape_keys, rows[5], rows[6], rest_args[4], from_high):
        array.flags.writeable = False
    return StrengthScale(int(front_code), keys, shape_keys, rows, rest_args, from_high)


def strengths_on_scale(strengths: np.ndarray, front_code: int) -> np.ndarray:
    """Dense strengths of :func:`strength_keys` (a row's ``HandValue.strength_index``, the high order's) on the
    scale of the front order ``front_code`` (:func:`strength_scale`): where a policy of that order's tables
    index them.  The high order's are returned as they are."""
    return strength_scale(front_code).from_high[strengths] if front_code else strengths


@functools.cache
def row_categories(front_code: int = 0) -> np.ndarray:
    """``(S,)``: the category (``key >> 26``: 0 high card ... 8 straight flush) of each strength of the scale of
    ``front_code`` (a low front's is its row's, whose royalty a low front is never paid)."""
    return strength_scale(front_code).shape_keys >> 26


@functools.cache
def three_card_strengths(front_code: int = 0) -> np.ndarray:
    """``(S,)`` bool: which strengths of the scale of ``front_code`` (:func:`strength_scale`) are 3-card rows' (a
    front's); the rest are 5-card rows' (the two sets of keys are disjoint)."""
    three = np.isin(strength_scale(front_code).shape_keys, row_keys(3))
    three.flags.writeable = False
    return three
