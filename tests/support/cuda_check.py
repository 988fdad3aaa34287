"""The CUDA kernels against the CPU kernels on the same inputs; prints one JSON line.

Run by ``tests/kernels/test_cuda.py`` under numba's simulator (``NUMBA_ENABLE_CUDASIM=1``,
small sizes: the simulator runs each GPU thread in Python), and by hand on a
real GPU with larger sizes: ``python tests/support/cuda_check.py ROWS HANDS``.
"""

import contextlib
import json
import sys
from unittest import mock

import numpy as np

from cpoker import evaluate_batch, evaluate_best_batch
from cpoker.strategies.policy import arrange_by_tables, default_tables
from cpoker.game.dealing import sample_hands


def random_rows(count: int, width: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :width].astype(np.uint8)


cuda = None


def rank_leaves_equal() -> bool:
    """The GPU's bit-instruction leaves give the CPU's tables on all 8,192 rank sets (see evaluate.count_ranks)."""
    from cpoker._kernels import evaluate
    from cpoker._kernels.cuda import THREADS, device_twins, import_cuda

    global cuda  # a module global: the simulator swaps it for its own inside kernels
    cuda = import_cuda()
    twins = device_twins(cuda)
    count_ranks, top_rank, straight_top = twins["count_ranks"], twins["top_rank"], twins["straight_top"]

    @cuda.jit
    def leaves(out):
        ranks = cuda.grid(1)
        if ranks < out.shape[0]:
            out[ranks, 0] = count_ranks(ranks)
            out[ranks, 1] = top_rank(ranks)
            out[ranks, 2] = straight_top(ranks)

    out = cuda.to_device(np.full((1 << 13, 3), -1, dtype=np.int64))
    leaves[(1 << 13) // THREADS, THREADS](out)
    expected = np.stack([evaluate.POPCOUNT, evaluate.TOP_BIT, evaluate.STRAIGHT_TOP], axis=1)
    return bool(np.array_equal(out.copy_to_host(), expected))


@contextlib.contextmanager
def memories_made(**options):
    """Within it, each :class:`cpoker.jobs.nearbest.NearBestMemory` made is kept in the list it yields (its counts of
    hands searched and certified: a build's self-play's, then on a CPU its learnings of the correction's), and made
    with ``options`` (``memory=0``: no lists)."""
    import cpoker.jobs.nearbest
    import cpoker.jobs.removal_learning
    import cpoker.jobs.selfplay

    made = []

    class Kept(cpoker.jobs.nearbest.NearBestMemory):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, **options})
            made.append(self)

    with mock.patch("cpoker.jobs.nearbest.NearBestMemory", Kept), mock.patch("cpoker.jobs.selfplay.NearBestMemory",
    Kept), \
            mock.patch("cpoker.jobs.removal_learning.NearBestMemory", Kept):
        yield made


def counts_mask(lists: tuple, i: int) -> np.ndarray:
    """Which entries of near-best list array ``i`` hold something (rows and splits: those below each count; a
    certificate's margin and leader: those of the hands certified since their search)."""
    rows, _, counts = lists[:3]
    listed = np.arange(rows.shape[1]) < counts[:, None]
    if i in (7, 8):
        return np.asarray(lists[6]) >= 0
    return listed[:, :, None] if i == 0 else listed if i == 1 else np.ones(len(counts), dtype=bool)


def main(rows: int, hands: int) -> dict:
    report = {"rank_leaves_equal": rank_leaves_equal()}
    for width, evaluate in ((3, evaluate_batch), (5, evaluate_batch), (6, evaluate_best_batch),
                            (7, evaluate_best_batch)):
        ids = random_rows(rows, width, width)
        report[f"keys{width}_equal"] = bool(np.array_equal(evaluate(ids, device="cuda"), evaluate(ids)))
    masks = np.bitwise_or.reduce(np.int64(1) << random_rows(rows, 5, 9).astype(np.int64), axis=1)
    report["mask_keys_equal"] = bool(np.array_equal(evaluate_batch(masks, device="cuda"), evaluate_batch(masks)))
    sample = sample_hands(hands, 11)
    for name in ("pagat", "2-4", "seed001-royalties", "low-a5"):  # row values, a bonus, royalties, a low front
        tables = default_tables(name)
        gpu, cpu = arrange_by_tables(sample, tables, "cuda"), arrange_by_tables(sample, tables)
        report[f"table_policy_{name}_equal"] = bool(np.array_equal(gpu[0], cpu[0]) and np.array_equal(gpu[1], cpu[1]))
    from cpoker.game.devices import self_play_cuda
    from cpoker.strategies.policy import arrange_greedy
    from cpoker.game.dealing import sample_block

    start = 10**9 + 7  # far into the stream: each thread jumps there
    dealt = sample_block(3, start, hands)
    for name, model in (("greedy", None), ("pagat", default_tables().model), ("2-4", default_tables("2-4").model),
                        ("low-a5", default_tables("low-a5").model)):
        gpu = self_play_cuda(3, start, hands, model)
        cpu = arrange_greedy(dealt) if model is None else arrange_by_tables(dealt, model)
        report[f"self_play_{name}_equal"] = bool(np.array_equal(gpu[0], cpu[0]) and np.array_equal(gpu[1], cpu[1]))
    # the search budget: a hand over it is split -1 after the first launch, and the second launch arranges it
    from cpoker.game.devices import arrange_cuda, cuda_runtime

    model = default_tables().model
    expected = arrange_by_tables(sample, model)
    cuda, kernels, tables = cuda_runtime()
    chosen = cuda.device_array(len(sample), dtype=np.int32)
    strengths = cuda.device_array((len(sample), 3), dtype=np.int16)
    arguments = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in model.kernel_arguments()]
    from cpoker._kernels.cuda import THREADS

    kernels["table_policy"][-(-len(sample) // THREADS), THREADS](  # blocks of THREADS: a GPU runs this at scale too
        cuda.to_device(sample), np.int64(1), *arguments, *tables["policy_lookups"], *tables["split_columns"], chosen,
        strengths)
    first_launch = chosen.copy_to_host()
    kept = first_launch >= 0
    report["budget_gives_hands_up"] = bool((~kept).any() and np.array_equal(first_launch[kept], expected[0][kept]))
    for budget in (1, 2):
        gpu = arrange_cuda(sample, model, budget)
        report[f"table_policy_budget_{budget}_equal"] = bool(np.array_equal(gpu[0], expected[0])
                                                             and np.array_equal(gpu[1], expected[1]))
        gpu, cpu = self_play_cuda(3, start, hands, model, budget), arrange_by_tables(dealt, model)
        report[f"self_play_budget_{budget}_equal"] = bool(np.array_equal(gpu[0], cpu[0])
                                                          and np.array_equal(gpu[1], cpu[1]))
    # near-best rows (cpoker.jobs.nearbest): a pass that lists each hand's rows, then passes that certify from them
    from cpoker.game.devices import self_play_remembered_cuda
    from cpoker.jobs.nearbest import DELTA, NearBestMemory
    from cpoker.strategies.policy import RowModel
    from cpoker.jobs.nearbest import block_histograms
    from cpoker.game.lookup_tables import strength_keys

    # two blocks: the strengths of each block's hands counted apart, on the GPU for those certified
    size, chunk = len(strength_keys()), -(-hands // 2)
    blocks = np.arange(hands) // chunk
    distribution = default_tables().distribution
    plain = RowModel.from_distribution(distribution)
    nearby = RowModel.from_distribution(0.99 * distribution + 0.01 * default_tables("2-4").distribution)
    # and under the card-removal correction, the hands' own drifts from a change of its terms too
    corrected = default_tables().model
    corrected_nearby = RowModel.from_distribution(0.99 * distribution + 0.01 * default_tables("2-4").distribution,
                                                  removal=corrected.removal * np.float32(1.02))
    # the last pass keeps the splits certified in the one before (the same model: nothing has swung)
    for name, models in (("near_best", (plain, nearby, nearby, nearby)),
                         ("near_best_corrected", (corrected, corrected, corrected_nearby, corrected_nearby))):
        runs = {}
        for device in ("cpu", "cuda"):
            memory = NearBestMemory(hands, chunk, device)
            passes = []
            for model in models:
                memory.start_pass(model)
                passes.append(memory.arrange(3, 0, hands))  # the lists cover the sample's first hands
            runs[device] = passes, memory.by_pass, memory.kept_by_pass
        expected = [arrange_by_tables(sample_block(3, 0, hands), model) for model in models]
        report[f"{name}_equal"] = all(np.array_equal(got[0], want[0])
                                      and np.array_equal(got[1], block_histograms(want[1], size, blocks, 2))
                                      for device in runs for got, want in zip(runs[device][0], expected))
        report[f"{name}_certified_as_on_the_cpu"] = runs["cuda"][1] == runs["cpu"][1] and runs["cpu"][1][-1][1] > 0
        report[f"{name}_kept_as_on_the_cpu"] = runs["cuda"][2] == runs["cpu"][2] and runs["cpu"][2][-1] > 0
    # a first launch that searches one back a hand: the hands given up list their rows in the second launch
    memory = NearBestMemory(hands, hands, "cuda")
    memory.start_pass(plain)
    gpu = self_play_remembered_cuda(3, 0, hands, plain, memory.lists, memory.drift_arguments, 0, DELTA, 1, chunk)
    gpu = (gpu[0].copy_to_host(), *gpu[1:])
    cpu_memory = NearBestMemory(hands, hands)
    cpu_memory.start_pass(plain)
    cpu_memory.listing = True  # as the GPU's launch above does (a build's first pass does not list)
    cpu_memory.arrange(3, 0, hands)
    expected = arrange_by_tables(sample_block(3, 0, hands), plain)
    report["near_best_budget_equal"] = bool(np.array_equal(gpu[0], expected[0]) and gpu[2] == hands
                                            and np.array_equal(gpu[1], block_histograms(expected[1], size, blocks, 2))
                                            and all(
        np.array_equal(np.where(counts_mask(cpu_memory.lists, i), a, 0), np.where(counts_mask(cpu_memory.lists, i),
                                                                                   b.copy_to_host(), 0))
        for i, (a, b) in enumerate(zip(cpu_memory.lists, memory.lists))))
    # a build's last choices on the GPU: replaced block by block, from device or host arrays, the changes among the
    # hands played before counted (over several blocks of threads)
    from cpoker.game.devices import hand_choices_cuda, replace_choices_cuda

    rng, n = np.random.default_rng(hands), 300  # three blocks of THREADS
    on_gpu, on_host = hand_choices_cuda(n + 5), np.full(n + 5, -1, dtype=np.int32)
    counted = []
    for start, count, both, to_device in ((0, n, 0, False), (5, n, n - 40, True), (3, n - 7, n - 7, False)):
        chosen = rng.integers(0, 4, count).astype(np.int32)
        counted.append(replace_choices_cuda(on_gpu, start, cuda.to_device(chosen) if to_device else chosen, both)
                       == int(np.count_nonzero(on_host[start:start + both] != chosen[:both])))
        on_host[start:start + count] = chosen
    report["replace_choices_as_on_the_host"] = all(counted) and np.array_equal(on_gpu.copy_to_host(), on_host)
    # a build: greedy start, self-play certifying from the lists on the GPU, two rounds with the correction; its
    # first two iterations play the sample's first half and a bit more (policy.played_hands), as a large one's do
    import cpoker.strategies.policy
    from cpoker.jobs.selfplay import build_tables, played_hands

    warmup, cpoker.jobs.selfplay.WARMUP_HANDS = cpoker.jobs.selfplay.WARMUP_HANDS, max(1, hands // 2)
    try:
        with memories_made() as made:
            gpu, cpu = (build_tables(hands=hands, seed=2, max_iterations=4, tolerance=0, removal_deals=30,
                                     removal_rounds=2, device=device).to_bytes() for device in ("cuda", "cpu"))
        played = sum(played_hands(hands, iteration) for iteration in range(1, 5)) + 2 * hands
    finally:  # benchmarks/gpu.py runs this check, then builds of its own
        cpoker.jobs.selfplay.WARMUP_HANDS = warmup
    report["tables_build_equal"] = gpu == cpu
    # the correction's learning arranges its deals on the GPU too (a build's above; here with a joint grid as well)
    from cpoker.jobs.removal_learning import learn_removal
    from cpoker.game.rules import resolve_rules

    learned = [learn_removal(default_tables("2-4").model, resolve_rules("2-4"), 5, max(2, hands), device=device)
               for device in ("cuda", "cpu")]
    report["learn_removal_2-4_equal"] = all(np.array_equal(a, b) for a, b in zip(*learned))
    report["tables_build_lists_as_on_the_cpu"] = (made[0].by_pass == made[1].by_pass
                                                  and made[0].searched + made[0].certified == played < 6 * hands)
    import cpoker

    small = max(2, hands)  # the simulator runs each GPU thread in Python
    for name, kwargs in (("match", {"deals": small}), ("match_sessions", {"deals": 2, "sessions": 1})):
        gpu, cpu = (cpoker.match(["table", "greedy"], seed=4, device=device, **kwargs) for device in ("cuda", "cpu"))
        report[f"{name}_equal"] = gpu.to_dict()["scores"] == cpu.to_dict()["scores"]  # nan-free
    gpu, cpu = (cpoker.simulate("2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac", opponents=2, samples=small, seed=4,
                                device=device) for device in ("cuda", "cpu"))
    report["simulate_equal"] = (gpu.ev, gpu.distribution) == (cpu.ev, cpu.distribution)
    from cpoker import Rules
    from cpoker._kernels.scoring import pair_points_batch
    from cpoker.game.devices import settle_pairs_cuda
    from cpoker.game.lookup_tables import strength_keys

    rng = np.random.default_rng(5)
    keys = strength_keys()
    a, b = (np.sort(keys[rng.integers(0, len(keys), (rows, 3))], axis=1) for _ in range(2))
    a[::7] = -1  # fouled hands
    from cpoker import Royalties
    from cpoker.game.rules import SEED001_ROYALTIES

    one_per_hand = Rules("1-6", royalties=Royalties.from_mapping(SEED001_ROYALTIES, one_per_hand=True))
    for name, rules in [(name, Rules.preset(name)) for name in ("pagat", "1-6", "2-4", "seed001-royalties")] + [
            ("one_per_hand", one_per_hand)]:
        arguments = rules.kernel_arguments()
        report[f"settlement_{name}_equal"] = bool(np.array_equal(settle_pairs_cuda(a, b, *arguments),
                                                                 pair_points_batch(a, b, *arguments)))
    report["rows"], report["hands"] = rows, hands
    return report


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]), int(sys.argv[2]))))
