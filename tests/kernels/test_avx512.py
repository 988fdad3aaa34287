"""The AVX-512 batch evaluator (``_kernels/avx512.py``) against the scalar loops of ``_kernels/lookup.py``.

The batch calls take the vector path wherever the processor has AVX-512 VBMI, so the tests of
``test_lookup.py`` and ``test_evaluate.py`` exercise it there; these compare the two kernels directly, on
every 5-card hand, on every group boundary and lane, and on flushes in every lane.  On a processor without
VBMI they are skipped, and the batch calls run the scalar loops those other tests cover.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import all_combinations, flush_row

from cpoker._kernels import avx512
from cpoker._kernels.lookup import AVX512_KERNELS, keys_from_ids_lookup
from cpoker.game.lookup_tables import evaluator_pair_codes, evaluator_table, lookup_tables

needs_vbmi = pytest.mark.skipif(not avx512.available(), reason="this processor has no AVX-512 VBMI")


def both_kernels(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The keys of ``ids`` by the scalar loop and by the vector one."""
    scalar = np.full(len(ids), -1, dtype=np.int32)
    vector = np.full(len(ids), -2, dtype=np.int32)
    keys_from_ids_lookup(ids, lookup_tables().eval_codes, evaluator_pair_codes(), evaluator_table(ids.shape[1]), scalar)
    assert vector_kernel(ids, False, vector) == 0
    return scalar, vector


def vector_kernel(ids: np.ndarray, check: bool, out: np.ndarray) -> int:
    """The vector kernel of ``ids``' width into ``out``: its flag of a bad row with ``check``, else 0."""
    width = ids.shape[1]
    return AVX512_KERNELS[width](ids, check, lookup_tables().eval_codes, evaluator_table(width), out)


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    return np.argsort(np.random.default_rng(seed).random((n, 52)), axis=1)[:, :k].astype(np.uint8)


@needs_vbmi
@pytest.mark.parametrize("width", [3, 5])
def test_every_five_and_three_card_hand_gets_the_scalar_key(width):
    hands = all_combinations(width)
    scalar, vector = both_kernels(hands)
    assert np.array_equal(vector, scalar)
    checked = np.empty(len(hands), dtype=np.int32)
    assert vector_kernel(hands, True, checked) == 0
    assert np.array_equal(checked, scalar)


@needs_vbmi
@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_every_length_of_the_last_group(width):
    """16 rows a step, then the rows after the last whole group one by one: every count from 0 to 50 (3-card
    groups also leave out a last group whose 64-byte load would read past the ids)."""
    hands = random_hands(50, width, seed=width)
    for n in range(51):
        scalar, vector = both_kernels(np.ascontiguousarray(hands[:n]))
        assert np.array_equal(vector, scalar), n


@needs_vbmi
@pytest.mark.parametrize("width", [5, 6, 7])
def test_a_flush_in_every_lane(width):
    """Six or seven cards with a flush are finished in scalar code from a bit mask of lanes: a flush in each lane
    alone, in all lanes, and in random lanes of many groups, with five, six or seven cards of the suit."""
    rng = np.random.default_rng(100 + width)

    plain = random_hands(16, width, seed=width)
    for lane in range(16):
        for suited in range(5, width + 1):
            group = plain.copy()
            group[lane] = flush_row(rng, width, suited)
            scalar, vector = both_kernels(group)
            assert np.array_equal(vector, scalar), (lane, suited)
    every = np.array([flush_row(rng, width, rng.integers(5, width + 1)) for _ in range(16)])
    scalar, vector = both_kernels(every)
    assert np.array_equal(vector, scalar)
    mixed = random_hands(20_000, width, seed=7 * width)
    picked = rng.random(len(mixed)) < 0.3
    mixed[picked] = [flush_row(rng, width, rng.integers(5, width + 1)) for _ in range(picked.sum())]
    scalar, vector = both_kernels(mixed)
    assert np.array_equal(vector, scalar)


@needs_vbmi
@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_random_hands_and_the_checked_kernel(width):
    hands = random_hands(300_001, width, seed=width)
    scalar, vector = both_kernels(hands)
    assert np.array_equal(vector, scalar)
    checked = np.empty(len(hands), dtype=np.int32)
    assert vector_kernel(hands, True, checked) == 0
    assert np.array_equal(checked, scalar)
    hands[123_457, 1] = hands[123_457, 0]
    assert vector_kernel(hands, True, checked) != 0


@needs_vbmi
@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_garbage_reads_inside_the_tables(width):
    """Unchecked ids above 63 read their low six bits: a meaningless key, never a read outside the table.  Every
    key is then one of the table's values."""
    garbage = np.random.default_rng(width).integers(0, 256, size=(100_000, width), dtype=np.uint8)
    _, vector = both_kernels(garbage)
    assert np.isin(vector, evaluator_table(width)).all()


@needs_vbmi
def test_a_strided_out_takes_the_scalar_loop():
    """The vector code stores 16 keys at once: an ``out`` that is not contiguous gets the scalar loop, and the
    same keys."""
    from cpoker import evaluate_batch, evaluate_best_batch

    hands = random_hands(1_000, 7, seed=3)
    strided = np.full(2_000, -1, dtype=np.int32)
    evaluate_best_batch(hands, out=strided[::2])
    assert np.array_equal(strided[::2], evaluate_best_batch(hands)) and (strided[1::2] == -1).all()
    evaluate_batch(hands[:, :5], out=strided[1::2])
    assert np.array_equal(strided[1::2], evaluate_batch(hands[:, :5]))


@pytest.mark.slow  # (a real process compiling for a processor without VBMI: the full tier)
def test_a_named_processor_without_vbmi_gets_the_scalar_loop():
    """``NUMBA_CPU_FEATURES`` makes numba compile for another processor: here this one without VBMI (a later ``-``
    undoes a ``+``).  cpoker then emits no AVX-512 VBMI, and the batch calls give the same keys."""
    import llvmlite.binding as llvm

    from cpoker import evaluate_best_batch

    code = ("import numpy as np; from cpoker._kernels import avx512; from cpoker import evaluate_best_batch;"
            "print(avx512.available(), evaluate_best_batch(np.array([[0, 1, 2, 3, 4, 13, 26]])).tolist())")
    expected = evaluate_best_batch(np.array([[0, 1, 2, 3, 4, 13, 26]])).tolist()
    settings = {"NUMBA_CPU_NAME": llvm.get_host_cpu_name(),
                "NUMBA_CPU_FEATURES": llvm.get_host_cpu_features().flatten() + ",-avx512vbmi"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, **settings}, check=True)
    assert out.stdout.strip() == f"False {expected}"


def test_a_processor_named_without_its_features_is_not_trusted_with_avx512(monkeypatch):
    """``NUMBA_CPU_NAME`` alone: cpoker cannot tell that processor's features, and takes the scalar loop."""
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", "generic")
    monkeypatch.setattr(config, "CPU_FEATURES", None)
    avx512.available.cache_clear()
    try:
        assert not avx512.available()
        monkeypatch.setattr(config, "CPU_FEATURES", "+avx512f,+avx512bw,+avx512vbmi,-avx512bw")
        avx512.available.cache_clear()
        assert not avx512.available()
        monkeypatch.setattr(config, "CPU_FEATURES", "-avx512vbmi,+avx512f,+avx512bw,+avx512vbmi")
        avx512.available.cache_clear()
        assert avx512.available()
    finally:
        avx512.available.cache_clear()


@needs_vbmi
@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_the_fused_check_finds_every_repeat_and_every_unknown_id(width):
    """The checked kernel tests 16 rows on the vectors it evaluates, and the rows after the last group one by one:
    a repeat of any two positions, and an id above 51 at any position, is found in every row of either part."""
    import itertools

    ids = random_hands(3 * avx512.LANES + 7, width, seed=width)
    out = np.empty(len(ids), dtype=np.int32)
    assert vector_kernel(ids, True, out) == 0
    for row in range(len(ids)):
        for a, b in itertools.permutations(range(width), 2):
            bad = ids.copy()
            bad[row, b] = bad[row, a]
            assert vector_kernel(bad, True, out), (row, a, b)
        for position, value in zip(range(width), (52, 63, 64, 255, 128, 100, 200)):
            bad = ids.copy()
            bad[row, position] = value
            assert vector_kernel(bad, True, out), (row, position, value)
