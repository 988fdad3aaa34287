"""The per-hand kernels compiled for NVIDIA GPUs from the very same Python source.

Every per-hand function of :mod:`.evaluate`, the split kernels (:mod:`.subsets`, :mod:`.bonus`,
:mod:`.search`, :mod:`.policy`), :mod:`.scoring`
and :mod:`.deal` (strength keys, best-of-7, subset strengths, the table
policy's search, greedy, the pair settlement with scoring bonuses and
royalties, the seeded deal) is an ``@jit`` function of scalars and small
arrays.  Here each one's code object is re-bound in a namespace where the
helpers it calls are *their* CUDA twins, and compiled with
``numba.cuda.jit(device=True)``: one source, two targets, so the GPU cannot
drift from the CPU.  Only three leaves differ (:data:`GPU_LEAVES`: bit
instructions where the CPU reads small tables).  The kernels below only add
the thread layout: a grid-stride loop for batch evaluation, one thread per
hand (its scratch in local memory) for the table policy and self-play.

Nothing here is imported unless ``device="cuda"`` is asked for.  Under
``NUMBA_ENABLE_CUDASIM=1`` numba's simulator runs these kernels on the CPU,
which is how CI (without a GPU) tests them against the CPU kernels.
"""

from __future__ import annotations

import types

import numpy as np

from cpoker.system.jit import cache_cuda_kernel
from cpoker._kernels import bonus, deal, evaluate, lookup, nearbest, policy, removal, scoring, search, subsets

TWINNED = {
    deal: ("_mul_high", "_mul128", "_add128", "pcg_step", "pcg_output", "pcg_advance", "deal_hands"),
    evaluate: ("suit_ranks", "rank_groups", "_make_key", "key5", "key3", "mask_of_ids", "_top_ranks", "best_key"),
    lookup: ("perfect_hash_value", "perfect_hash_slot", "flush_ranks", "flagged_suit_ranks"),
    removal: ("rank_feature", "suit_counts", "blocker_feature", "suit_feature", "hand_correction",
              "hand_correction_column", "hand_correction_rows", "hand_correction_at"),
    subsets: ("subset_strengths", "hand_subsets", "rest_caps"),
    bonus: ("joint_below", "joint_slope", "rows_bonus", "bonus_ceiling", "corrected_row", "hand_removal"),
    search: ("strength_threshold", "plain_cards", "lower_twin", "backs_at_least", "tight_bound",
             "best_split_by_row_values"),
    policy: ("table_policy_hand", "greedy_hand"),
    nearbest: ("split_value", "near_best_rows", "hand_drift", "hand_drift_bound", "certified_split",
               "kept_split", "recertified", "policy_remembering_hand"),
    scoring: ("_royalty", "one_royalty", "pair_parts", "pair_points"),
}
N_SUBSETS5, N_SUBSETS3 = 1287, 286
N_CORRECTIONS = policy.CORRECTIONS
N_LISTED = nearbest.CAPACITY  # a global of this module: a local array's size must be a compile-time constant, and
# an attribute of another module is typed as a plain integer (the simulator, which allocates anything, cannot tell)
N_COLUMNS = nearbest.COLUMNS  # the same
THREADS = 128
# backs a lane searches before it gives its hand up to a second launch, of those hands only, without a budget
# (search.best_split_by_row_values): fewer passes of a warp through the search (benchmarks/gpu.py times 8-32)
SEARCH_BUDGET = 16
# how certify_lists sums a hand's own drift under a card-removal correction (nearbest.hand_drift): each column in a
# register, not passes over a thread's array of them in local memory; the same bits either way (benchmarks/gpu.py)
DRIFT_BY_COLUMN = True


def import_cuda():
    """``numba.cuda``, after restoring ``numpy.row_stack`` (removed in NumPy 2.5, still used by numba-cuda 0.30),
    with cpoker's kernels compiled without fused multiply-adds (:func:`without_contraction`)."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # type: ignore[attr-defined]
    from numba import cuda
    from numba.cuda.cudadrv import nvvm

    if not getattr(nvvm.compile_ir, "without_contraction", False):
        nvvm.compile_ir = without_contraction(nvvm.compile_ir)
    return cuda


def without_contraction(compile_ir):
    """NVVM's ``compile_ir`` that compiles cpoker's modules with ``fma=0``.

    NVVM fuses a multiply and an add into one fused multiply-add, rounded once, unless told not to, and
    numba-cuda tells it only through ``fastmath``.  The CPU rounds the product and the sum apart, so a card-removal
    correction's or a bonus's value could then differ by an ulp from the CPU's, and a tie between two splits
    break the other way: the same answers on both need the same roundings.  (Checked on the PTX: 252 fused
    multiply-adds in ``certify_lists`` before, none after.)  Other modules compile as numba-cuda asks.
    """
    def compile_cpoker_ir(llvmir, **options):
        modules = [llvmir] if isinstance(llvmir, str) else llvmir
        if any(isinstance(module, str) and "cpoker" in module for module in modules):
            options.setdefault("fma", False)
        return compile_ir(llvmir, **options)

    compile_cpoker_ir.without_contraction = True
    return compile_cpoker_ir


def count_ranks(ranks):
    """:func:`.evaluate.count_ranks` with the population-count instruction."""
    return cuda.popc(np.int64(ranks))


def top_rank(ranks):
    """:func:`.evaluate.top_rank` from the count of leading zeros of 32 bits (``ranks | 1``: 0 maps to 0).

    The argument of ``clz`` is cast after the ``|``: numba widens int32 operations to 64 bits, and the
    simulator's ``clz`` counts 32 bits whatever it is given.
    """
    return (ranks != 0) * (np.int64(1) << np.int64(31 - cuda.clz(np.int32(ranks | 1))))


def straight_top(ranks):
    """:func:`.evaluate.straight_top`: the top of the highest run of five, else the wheel's 5, else 0."""
    ranks = np.int64(ranks)
    run = ranks & (ranks >> 1) & (ranks >> 2) & (ranks >> 3) & (ranks >> 4)
    if run:
        return top_rank(run) << 4
    return np.int64(1 << 3) if ranks & evaluate.WHEEL == evaluate.WHEEL else np.int64(0)


# evaluate's table leaves, replaced on the GPU (see evaluate.count_ranks): constant memory holds 64 KiB per module,
# numba copies a global array into each function that reads it, and a warp's reads of different entries serialise
GPU_LEAVES = {"count_ranks": count_ranks, "top_rank": top_rank, "straight_top": straight_top}


def simulator_proof(cuda, *namespaces: dict):
    """What the leaves call ``cuda``, after making ``namespaces`` (device functions' globals) safe to share
    between the simulator's threads; on a GPU, ``cuda`` itself and nothing done.

    numba's simulator runs a block's threads as Python threads, and at every call of a device function it walks
    the function's globals and puts its fake module in place of each one that is ``numba.cuda``, putting the real
    one back at the return.  Two races follow, each seen in CI and every time with ``sys.setswitchinterval(1e-6)``:

    * two threads in the same device function interleave, and the first to return puts the real module back
      under the other, whose ``cuda.clz`` then fails.  The leaves use only ``popc`` and ``clz``, which depend on
      no thread, so under the simulator they get them from one fake module made here, which is not
      ``numba.cuda`` and so is never swapped;
    * a warning (numpy's overflow warning on the hash's wrapping multiply, silent on both real targets) adds
      ``__warningregistry__`` to the globals of the code that raised it while another thread walks them.  It is
      put there beforehand.
    """
    from numba import config

    if not config.ENABLE_CUDASIM:
        return cuda
    from numba.cuda.simulator.kernelapi import FakeCUDAModule

    for namespace in namespaces:
        namespace.setdefault("__warningregistry__", {})
    return FakeCUDAModule(grid_dim=(1, 1, 1), block_dim=(1, 1, 1), dynshared_size=0)


def device_twins(cuda) -> dict:
    """A namespace holding a CUDA device function for every per-hand kernel, built from its source."""
    namespace: dict = {}
    for module in TWINNED:
        namespace.update(module.__dict__)
    leaves = dict(globals())  # the leaves call each other as device functions: straight_top, top_rank
    leaves["cuda"] = simulator_proof(cuda, namespace, leaves, globals())
    for name, leaf in GPU_LEAVES.items():
        namespace[name] = cuda.jit(device=True)(types.FunctionType(leaf.__code__, leaves, name))
        leaves[name] = namespace[name]
    for module, names in TWINNED.items():
        for name in names:
            source = getattr(module, name).py_func
            clone = types.FunctionType(source.__code__, namespace, source.__name__, source.__defaults__,
                                       source.__closure__)
            namespace[name] = cuda.jit(device=True)(clone)
    return namespace


cuda = None  # numba.cuda once build_kernels runs: a module global, which the simulator swaps for its own


def build_kernels(cuda_module) -> dict:
    """CUDA kernels over the device twins, compiled at their first launch or loaded from the disk cache
    (:func:`cpoker.system.jit.cache_cuda_kernel`).

    One long function on purpose: each kernel is a closure over the device twins it calls, which exist only once
    ``numba.cuda`` is loaded (never unless a GPU is asked for)."""
    global cuda
    cuda = cuda_module
    twins = device_twins(cuda)
    key3, key5, best_key, mask_of_ids = twins["key3"], twins["key5"], twins["best_key"], twins["mask_of_ids"]
    table_policy_hand, greedy_hand, deal_hands = twins["table_policy_hand"], twins["greedy_hand"], twins["deal_hands"]
    pair_points = twins["pair_points"]
    from numba import float64, int32, int64, uint8, uint16, uint64

    @cuda.jit
    def settle_pairs(a, b, scoring_method, royalties, require_win, one_per_hand, out):
        """Points of ``a[i]`` against ``b[i]`` (rows of keys), the CPU's ``pair_points`` on each thread."""
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for i in range(start, a.shape[0], stride):
            out[i] = pair_points(a[i, 0], a[i, 1], a[i, 2], b[i, 0], b[i, 1], b[i, 2], scoring_method, royalties,
                                 require_win, one_per_hand)

    @cuda.jit
    def keys_from_ids(ids, out):
        """Keys of ``(N, k)`` card ids (k = 3, 5 or 5-7 for the best five), a grid-stride loop."""
        start, stride = cuda.grid(1), cuda.gridsize(1)
        width = ids.shape[1]
        for i in range(start, ids.shape[0], stride):
            mask = mask_of_ids(ids[i])
            if width == 3:
                out[i] = key3(mask)
            elif width == 5:
                out[i] = key5(mask)
            else:
                out[i] = best_key(mask)

    @cuda.jit
    def keys_from_masks(masks, n_cards, out):
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for i in range(start, masks.shape[0], stride):
            if n_cards == 3:
                out[i] = key3(masks[i])
            elif n_cards == 5:
                out[i] = key5(masks[i])
            else:
                out[i] = best_key(masks[i])

    @cuda.jit(device=True)
    def policy_into(hand, h, search_budget, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint,
                    rest_best, self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask,
                    displacements, strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask,
                    rest_displacements, rest_values, middles, fronts, chosen, chosen_strengths):
        """The CPU's ``table_policy_hand`` of ``hand``, its scratch in local memory, stored at row ``h`` (split -1
        when its search needs more than ``search_budget`` backs)."""
        index5 = cuda.local.array(N_SUBSETS5, uint16)
        index3 = cuda.local.array(N_SUBSETS3, uint16)
        masks5 = cuda.local.array(N_SUBSETS5, int64)
        codes5 = cuda.local.array(N_SUBSETS5, int64)
        front_values = cuda.local.array(N_SUBSETS3, float64)
        candidates = cuda.local.array(N_SUBSETS5, int32)
        candidate_bounds = cuda.local.array(N_SUBSETS5, float64)
        corrections = cuda.local.array(N_CORRECTIONS, float64)
        best, front, middle, back = table_policy_hand(
            hand, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best, self_bounds,
            removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
            flush_strengths, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements, rest_values, middles,
            fronts, index5, index3, masks5, codes5, front_values, candidates, candidate_bounds, corrections,
            search_budget)
        chosen[h] = best
        chosen_strengths[h, 0] = front
        chosen_strengths[h, 1] = middle
        chosen_strengths[h, 2] = back

    @cuda.jit(device=True)
    def greedy_into(hand, h, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                    flush_strengths, middles, fronts, chosen, chosen_strengths):
        """The CPU's ``greedy_hand`` of ``hand``, its scratch in local memory, stored at row ``h``."""
        index5 = cuda.local.array(N_SUBSETS5, uint16)
        index3 = cuda.local.array(N_SUBSETS3, uint16)
        masks5 = cuda.local.array(N_SUBSETS5, int64)
        codes5 = cuda.local.array(N_SUBSETS5, int64)
        best, front, middle, back = greedy_hand(hand, card_codes, multiplier, bucket_shift, slot_mask, displacements,
                                                strengths, flush_strengths, middles, fronts, index5, index3, masks5,
                                                codes5)
        chosen[h] = best
        chosen_strengths[h, 0] = front
        chosen_strengths[h, 1] = middle
        chosen_strengths[h, 2] = back

    @cuda.jit
    def table_policy(hands, search_budget, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint,
                     rest_best, self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask,
                     displacements, strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask,
                     rest_displacements, rest_values, middles, fronts, chosen, chosen_strengths):
        """One thread per hand: the CPU's ``table_policy_hand`` (split -1 over ``search_budget``)."""
        h = cuda.grid(1)
        if h < hands.shape[0]:
            policy_into(hands[h], h, search_budget, row_values, row_bounds, row_wins, row_losses, scoop, majority,
                        joint, rest_best, self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift,
                        slot_mask, displacements, strengths, flush_strengths, rest_multiplier, rest_shift,
                        rest_slot_mask, rest_displacements, rest_values, middles, fronts, chosen, chosen_strengths)

    @cuda.jit
    def greedy(hands, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths, flush_strengths,
               middles, fronts, chosen, chosen_strengths):
        """One thread per hand: the CPU's ``greedy_hand``."""
        h = cuda.grid(1)
        if h < hands.shape[0]:
            greedy_into(hands[h], h, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                        flush_strengths, middles, fronts, chosen, chosen_strengths)

    @cuda.jit
    def self_play_policy(state_high, state_low, inc_high, inc_low, first, positions, search_budget, deck, row_values,
                         row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best, self_bounds,
                         removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask, displacements,
                         strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements,
                         rest_values, middles, fronts, chosen, chosen_strengths):
        """Hand ``first + positions[h]`` of the sample (``first + h`` when ``positions`` is ``[-1]``), dealt by
        thread ``h`` from the seeded stream, arranged by the policy (split -1 over ``search_budget``).

        A self-play pass on the GPU: the hands never exist outside the thread that deals them.
        """
        h = cuda.grid(1)
        if h < chosen.shape[0]:
            hand = cuda.local.array((1, 1, 13), uint8)
            position = first + (h if positions[0] < 0 else positions[h])
            deal_hands(state_high, state_low, inc_high, inc_low, position, 1, deck, cuda.local.array(13, uint64), hand,
                       0)
            policy_into(hand[0, 0], h, search_budget, row_values, row_bounds, row_wins, row_losses, scoop, majority,
                        joint, rest_best, self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift,
                        slot_mask, displacements, strengths, flush_strengths, rest_multiplier, rest_shift,
                        rest_slot_mask, rest_displacements, rest_values, middles, fronts, chosen, chosen_strengths)

    @cuda.jit
    def self_play_greedy(state_high, state_low, inc_high, inc_low, first, deck, card_codes, multiplier, bucket_shift,
                         slot_mask, displacements, strengths, flush_strengths, middles, fronts, chosen,
                         chosen_strengths):
        """The greedy start of self-play: :func:`self_play_policy` with the CPU's ``greedy_hand``."""
        h = cuda.grid(1)
        if h < chosen.shape[0]:
            hand = cuda.local.array((1, 1, 13), uint8)
            deal_hands(state_high, state_low, inc_high, inc_low, first + h, 1, deck, cuda.local.array(13, uint64), hand,
                       0)
            greedy_into(hand[0, 0], h, card_codes, multiplier, bucket_shift, slot_mask, displacements, strengths,
                        flush_strengths, middles, fronts, chosen, chosen_strengths)

    kept_split, recertified = twins["kept_split"], twins["recertified"]
    policy_remembering_hand = twins["policy_remembering_hand"]

    @cuda.jit
    def certify_lists(kept_rows, kept_splits, counts, ceilings, since, masks, checked, margins, leaders, current,
                      drifts, slots, shape_rises, delta_terms, drift_bounds, slope_units, swings, swing_bounds,
                      row_values, row_wins, row_losses, scoop, majority, joint, removal_terms, buckets, by_column,
                      chosen, chosen_strengths, kept):
        """One thread per hand: the CPU's ``nearbest.certify_block`` (split -1 where a search is needed), the hands' own
        drifts summed ``by_column`` (:data:`DRIFT_BY_COLUMN`) or not, ``kept[0]`` counting the splits kept (one
        atomic add a block of threads)."""
        h = cuda.grid(1)
        steady = False
        if h < counts.shape[0]:
            split, front, middle, back = kept_split(h, kept_rows, kept_splits, masks, checked, margins, leaders,
                                                    slots, swings, swing_bounds, removal_terms.shape[0] > 1)
            steady = split >= 0
            if not steady:
                split, front, middle, back = recertified(
                    h, kept_rows, kept_splits, counts, ceilings, since, masks, checked, margins, leaders, current,
                    drifts, slots, shape_rises, delta_terms, drift_bounds, slope_units, row_values, row_wins,
                    row_losses, scoop, majority, joint, removal_terms, buckets,
                    cuda.local.array(N_CORRECTIONS, float64), cuda.local.array(N_COLUMNS, int32), by_column)
            chosen[h] = split
            chosen_strengths[h, 0] = front
            chosen_strengths[h, 1] = middle
            chosen_strengths[h, 2] = back
        block_count = cuda.syncthreads_count(steady)  # every thread of the block reaches it
        if cuda.threadIdx.x == 0 and block_count > 0:
            cuda.atomic.add(kept, 0, block_count)

    @cuda.jit
    def count_strengths(chosen, chosen_strengths, chunk, histograms):
        """Thread ``h``: the strengths of its hand's rows counted in the histogram of its block of ``chunk`` hands
        (``histograms[h // chunk, row, strength]``), for a hand that has its split (``chosen`` >= 0): the host's
        ``policy.block_histograms``, with no strengths leaving the device."""
        h = cuda.grid(1)
        if h < chosen.shape[0] and chosen[h] >= 0:
            for row in range(3):
                cuda.atomic.add(histograms, (h // chunk, row, chosen_strengths[h, row]), 1)

    @cuda.jit
    def gather_unsettled(chosen, candidates, todo, found):
        """Thread ``i``: position ``p`` (``candidates[i]``, or ``i`` itself when ``candidates`` is ``[-1]``) appended
        to ``todo`` when its hand has no split yet (``chosen[p]`` -1), ``found[0]`` counting them.  The order in
        ``todo`` is whatever the atomics give: each hand's answer is stored at its own position, so none depends
        on it."""
        i = cuda.grid(1)
        everyone = candidates[0] < 0
        if i < (chosen.shape[0] if everyone else candidates.shape[0]):
            p = i if everyone else candidates[i]
            if chosen[p] < 0:
                todo[cuda.atomic.add(found, 0, 1)] = p

    @cuda.jit
    def replace_choices(previous, offset, chosen, both, changed):
        """Thread ``h``: hand ``offset + h``'s last choice ``previous`` replaced by ``chosen[h]``, and ``changed[0]``
        counting those of the first ``both`` that differ (one atomic add a block of threads)."""
        h = cuda.grid(1)
        differs = 0
        if h < chosen.shape[0]:
            if h < both and previous[offset + h] != chosen[h]:
                differs = 1
            previous[offset + h] = chosen[h]
        block_count = cuda.syncthreads_count(differs)  # every thread of the block reaches it
        if cuda.threadIdx.x == 0 and block_count > 0:
            cuda.atomic.add(changed, 0, block_count)

    @cuda.jit
    def self_play_remembering(state_high, state_low, inc_high, inc_low, positions, search_budget, delta, current,
                              deck, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best,
                              self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask,
                              displacements, strengths, flush_strengths, rest_multiplier, rest_shift,
                              rest_slot_mask, rest_displacements, rest_values, middles, fronts, chosen,
                              chosen_strengths, kept_rows, kept_splits, counts, ceilings, since, masks):
        """Hand ``positions[h]`` of a block (the stream's state before its first), dealt by thread ``h`` and
        arranged by the policy, its split, strengths and near-best rows stored at that position (the rows listed
        for pass ``current``; none with ``delta`` below 0): the CPU's ``nearbest.remembering_block`` (split -1,
        nothing listed, over ``search_budget``)."""
        h = cuda.grid(1)
        if h < positions.shape[0]:
            position = positions[h]
            hand = cuda.local.array((1, 1, 13), uint8)
            deal_hands(state_high, state_low, inc_high, inc_low, position, 1, deck, cuda.local.array(13, uint64),
                       hand, 0)
            best, front, middle, back, count, ceiling, hand_mask = policy_remembering_hand(
                hand[0, 0], delta, row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best,
                self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask, displacements,
                strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask, rest_displacements,
                rest_values, middles, fronts, cuda.local.array(N_SUBSETS5, uint16),
                cuda.local.array(N_SUBSETS3, uint16), cuda.local.array(N_SUBSETS5, int64),
                cuda.local.array(N_SUBSETS5, int64), cuda.local.array(N_SUBSETS3, float64),
                cuda.local.array(N_SUBSETS5, int32), cuda.local.array(N_SUBSETS5, float64),
                cuda.local.array(N_CORRECTIONS, float64), search_budget, kept_rows[position], kept_splits[position],
                cuda.local.array(N_LISTED, float64))
            chosen[position] = best
            chosen_strengths[position, 0] = front
            chosen_strengths[position, 1] = middle
            chosen_strengths[position, 2] = back
            if count >= 0:  # listed (not over the budget, nor a pass that does not list)
                counts[position] = count
                ceilings[position] = ceiling
                since[position] = current
                masks[position] = hand_mask

    kernels = {"keys_from_ids": keys_from_ids, "keys_from_masks": keys_from_masks, "table_policy": table_policy,
               "settle_pairs": settle_pairs, "greedy": greedy, "self_play_policy": self_play_policy,
               "self_play_greedy": self_play_greedy, "certify_lists": certify_lists,
               "count_strengths": count_strengths, "gather_unsettled": gather_unsettled,
               "replace_choices": replace_choices, "self_play_remembering": self_play_remembering}
    for kernel in kernels.values():  # compiled once, then loaded from disk by every later process
        cache_cuda_kernel(kernel)
    return kernels
