"""Seeded dealing: hands and deals drawn from PCG64 streams, the same on every machine and thread count.

A sample of hands is a pure function of ``(seed, start, count)`` (:func:`sample_block`), so any worker can
deal any block of it; a deal of several hands (:func:`deal_from`) leaves its generator where NumPy's own
draws would.  The draws run in the kernels of :mod:`cpoker._kernels.deal`, in parts on the thread pool
(:mod:`cpoker.system.threads`).
"""

from __future__ import annotations

from typing import Optional

import numpy as np


DECK_IDS = np.arange(52, dtype=np.uint8)  # every card id, the deck a sample of hands is dealt from


def rest_of_deck(cards) -> np.ndarray:
    """The sorted ``uint8`` ids of the cards not in ``cards`` (ids): the deck the other players are dealt from."""
    return np.setdiff1d(DECK_IDS, np.asarray(cards, dtype=np.int64)).astype(np.uint8)


def pcg64_halves(bit_generator: np.random.PCG64) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """A PCG64's state (high, low) and increment (high, low) as uint64, the dealing kernels' arguments."""
    state = bit_generator.state["state"]
    low = (1 << 64) - 1
    return (np.uint64(state["state"] >> 64), np.uint64(state["state"] & low), np.uint64(state["inc"] >> 64),
            np.uint64(state["inc"] & low))


def deal_stream(state_high, state_low, inc_high, inc_low, count: int, deck: np.ndarray, players: int) -> np.ndarray:
    """``count`` deals of ``players`` hands from ``deck`` (sorted card ids), from the PCG64 stream state given
    (the halves of its state and increment): ``(count, players, 13)`` card ids, each hand sorted.

    Deal ``i`` draws from its own place in the stream (:func:`cpoker._kernels.deal.deal_hands` jumps there),
    so parts of the deals are dealt side by side (:mod:`cpoker.system.threads`, a sub-block of 256 deals or more
    each) and the deals are the same on any number of threads.  A few sub-blocks' worth, a few milliseconds of
    work, are dealt on this thread alone.
    """
    from cpoker._kernels.deal import CARDS_PER_HAND, SUB_BLOCK, deal_hands  # (numba loads on first use, not on import)
    from cpoker.system.threads import in_parts

    out = np.empty((count, players, CARDS_PER_HAND), dtype=deck.dtype)

    def deal_part(start: int, stop: int) -> None:
        deal_hands(state_high, state_low, inc_high, inc_low, start, stop - start, deck,
                   np.empty(CARDS_PER_HAND * players, dtype=np.uint64), out, start)

    if count <= 4 * SUB_BLOCK:  # (waking threads can cost more, on a busy machine much more)
        deal_part(0, count)
    else:
        in_parts(deal_part, count, SUB_BLOCK)
    return out


def shuffled(cards: np.ndarray, rng: np.random.Generator, count: int, take: int) -> np.ndarray:
    """``(count, take)``: the first ``take`` of ``cards`` in each of ``count`` orders drawn from ``rng``.  Order
    ``i`` draws ``rng.random(len(cards))`` and puts the cards in the order of their draws (a stable argsort), as
    :func:`deal_from` does: the same generator state gives the same orders on every machine."""
    order = np.argsort(rng.random((count, len(cards))), axis=1, kind="stable")[:, :take]
    return np.ascontiguousarray(np.asarray(cards)[order])


def deal_from(rest: np.ndarray, rng: np.random.Generator, count: int, hands: int) -> np.ndarray:
    """``(count, hands, 13)`` hands dealt from the cards ``rest`` (sorted ids), each sorted by id.

    Deal ``i`` draws ``rng.random(len(rest))``; the cards in the order of their
    draws (a stable argsort) go 13 to each hand in turn: the same generator
    state gives the same deal on every machine.  With NumPy's default PCG64
    the draws are made in a kernel on every core (:func:`deal_stream`),
    which leaves ``rng`` where ``rng.random((count, len(rest)))`` would.
    """
    rest = np.asarray(rest)
    bit_generator = rng.bit_generator
    if type(bit_generator) is not np.random.PCG64 or len(rest) > 63 or 13 * hands > len(rest):
        return np.sort(shuffled(rest, rng, count, 13 * hands).reshape(count, hands, 13), axis=2)
    dealt = deal_stream(*pcg64_halves(bit_generator), count, np.ascontiguousarray(rest), hands)
    buffered = bit_generator.state  # random() leaves the 32-bit buffer alone; advance() would clear it
    bit_generator.advance(count * len(rest))
    state = bit_generator.state
    state["has_uint32"], state["uinteger"] = buffered["has_uint32"], buffered["uinteger"]
    bit_generator.state = state
    return dealt


def deal_seeded(rest: np.ndarray, seeds: "list", counts: "list[int]", hands: int) -> np.ndarray:
    """``deal_from(rest, np.random.default_rng(seed), count, hands)`` for each ``(seed, count)``, concatenated.

    Every stream is dealt at once, the streams in parts side by side (:mod:`cpoker.system.threads`): what a GPU job
    needs, whose arrangement calls take many blocks of deals at once.  Each stream's deals are its own, so the
    threads change nothing.
    """
    from cpoker._kernels.deal import CARDS_PER_HAND, deal_hands
    from cpoker.system.threads import in_parts

    if len(seeds) == 1:  # one stream: deal_from, serial for a small block
        return deal_from(np.asarray(rest), np.random.default_rng(seeds[0]), counts[0], hands)
    deck = np.ascontiguousarray(rest)
    states = [pcg64_halves(np.random.PCG64(seed)) for seed in seeds]
    starts = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
    out = np.empty((int(starts[-1]), hands, CARDS_PER_HAND), dtype=deck.dtype)

    def deal_part(first: int, last: int) -> None:
        scratch = np.empty(CARDS_PER_HAND * hands, dtype=np.uint64)
        for k in range(first, last):
            deal_hands(*states[k], 0, int(counts[k]), deck, scratch, out, int(starts[k]))

    in_parts(deal_part, len(seeds), 1)
    return out


def hands_from_uniforms(uniforms: np.ndarray, deck: np.ndarray) -> np.ndarray:
    hands = deck[np.argpartition(uniforms, 13, axis=1)[:, :13]]
    return np.sort(hands, axis=1).astype(np.uint8)


def sample_hands(count: int, seed: int, exclude: Optional[np.ndarray] = None) -> np.ndarray:
    """``count`` random 13-card hands (sorted ``uint8`` ids per row), reproducible from ``seed``.

    Hand ``i``'s cards are those with the 13 smallest of 52 doubles
    ``default_rng(seed).random((count, 52))[i]`` (of the deck less ``exclude``).
    """
    if exclude is None or len(exclude) == 0:
        return sample_block(seed, 0, count)
    rng = np.random.default_rng(seed)
    deck = rest_of_deck(exclude)
    return hands_from_uniforms(rng.random((count, len(deck))), deck)




def stream_state(seed: int, start: int) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """The PCG64 state (high, low) and increment (high, low) of ``sample_hands(N, seed)`` at hand ``start``."""
    bit_generator = np.random.PCG64(seed)
    bit_generator.advance(52 * start)
    return pcg64_halves(bit_generator)


def sample_block(seed: int, start: int, count: int) -> np.ndarray:
    """Hands ``start .. start + count`` of ``sample_hands(N, seed)`` for any ``N >= start + count``.

    PCG64 is advanced past the earlier hands' draws (52 doubles each), so a
    block is a pure function of ``(seed, start, count)``: the sample is never
    held in memory, and any worker can deal any block.  The draws and the
    choice of the 13 smallest are made in a kernel (:mod:`cpoker._kernels.deal`)
    on every core.
    """
    return deal_stream(*stream_state(seed, start), count, DECK_IDS, 1).reshape(count, 13)


def derived_seed(seed: int, *path: int) -> int:
    """A 63-bit seed for one part of a job (a hand's number, a purpose), from the job's seed alone: the same
    for any block size, thread count, backend or machine (NumPy's ``SeedSequence`` of ``[seed, *path]``)."""
    return int(np.random.SeedSequence([seed, *path]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def new_seed() -> int:
    """A fresh seed from the operating system's entropy, small enough to print and pass back."""
    return int(np.random.SeedSequence().entropy) % (2**63)  # type: ignore[arg-type]
