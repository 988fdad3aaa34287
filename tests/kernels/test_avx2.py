"""The AVX2 batch evaluator (``_kernels/avx2.py``) against the scalar loops of ``_kernels/lookup.py``.

The batch calls take the AVX2 path on a processor with AVX2 but not AVX-512 VBMI.  On any processor with AVX2
(one with AVX-512 too) these tests call its kernels directly: every 5-card and 3-card hand, every length of the
last group, a flush in every lane, the check by blocks, garbage ids.  Two real processes then compile for this
processor with AVX-512 turned off (and with AVX2 turned off as well) and check that the batch calls take the
path such a processor runs, and give the same keys on every batch length and width.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import all_combinations, flush_row

from cpoker._kernels import avx2
from cpoker._kernels.simd import compiles_with
from cpoker._kernels.lookup import AVX2_KERNELS, CHECK_ROWS, keys_from_ids_lookup
from cpoker.game.lookup_tables import evaluator_pair_codes, evaluator_table, lookup_tables

from cpoker._kernels import avx512

needs_avx2 = pytest.mark.skipif(not avx2.available(), reason="this processor has no AVX2")
# Where the batch calls take the AVX-512 path, the AVX2 kernels are not this processor's: their tests (about 20 s
# of compiling) then run in the full tier, and in the default tier on a processor whose batch calls take them.
path_tier = pytest.mark.slow if avx512.available() else pytest.mark.skipif(False, reason="")


def scalar_keys(ids: np.ndarray) -> np.ndarray:
    """The keys of ``ids`` by the scalar loop (itself checked against ``evaluate``'s keys on every hand)."""
    out = np.full(len(ids), -1, dtype=np.int32)
    keys_from_ids_lookup(ids, lookup_tables().eval_codes, evaluator_pair_codes(), evaluator_table(ids.shape[1]), out)
    return out


def avx2_keys(ids: np.ndarray, check: bool = False) -> tuple[np.ndarray, int]:
    """The keys of ``ids`` by the AVX2 kernel of their width, and its flag of a bad row (0 without ``check``)."""
    out = np.full(len(ids), -2, dtype=np.int32)
    width = ids.shape[1]
    flagged = AVX2_KERNELS[width](ids, check, lookup_tables().eval_codes, evaluator_table(width), out)
    return out, flagged


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    return np.argsort(np.random.default_rng(seed).random((n, 52)), axis=1)[:, :k].astype(np.uint8)


@needs_avx2
@path_tier
@pytest.mark.parametrize("width", [3, 5])
def test_every_five_and_three_card_hand_gets_the_scalar_key(width):
    hands = all_combinations(width)
    expected = scalar_keys(hands)
    for check in (False, True):
        keys, flagged = avx2_keys(hands, check)
        assert flagged == 0 and np.array_equal(keys, expected), check


@needs_avx2
@path_tier
@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_every_length_of_the_last_group(width):
    """8 rows a step, then the rows after the last whole group one by one: every count from 0 to 40 (a group
    whose second 32-byte load would read past the ids is left to the scalar loop too)."""
    hands = random_hands(40, width, seed=width)
    for n in range(41):
        rows = np.ascontiguousarray(hands[:n])
        for check in (False, True):
            keys, flagged = avx2_keys(rows, check)
            assert flagged == 0 and np.array_equal(keys, scalar_keys(rows)), (n, check)


def test_groups_never_read_past_the_ids():
    """The count of groups is the largest whose two loads (32 bytes from the first row, 32 from the fifth) end
    inside the ids, and never more than the whole groups."""
    for width in (3, 5, 6, 7):
        for rows in range(200):
            groups = avx2.group_count(rows, width)
            assert groups * avx2.ROWS <= rows
            if groups:
                last = (groups - 1) * avx2.ROWS * width
                assert last + 4 * width + 32 <= rows * width
            if (groups + 1) * avx2.ROWS <= rows:  # one more whole group would read past the end
                assert groups * avx2.ROWS * width + 4 * width + 32 > rows * width


@needs_avx2
@path_tier
@pytest.mark.parametrize("width", [5, 6, 7])
def test_a_flush_in_every_lane(width):
    """Five cards get the flush offset in the vector code, six or seven come back flagged and are finished in
    scalar code: a flush in each lane alone, in every lane, and in random lanes of many groups."""
    rng = np.random.default_rng(200 + width)

    plain = random_hands(24, width, seed=width)  # three groups: the last one's loads stay inside
    for lane in range(avx2.ROWS):
        for suited in range(5, width + 1):
            group = plain.copy()
            group[lane] = flush_row(rng, width, suited)
            assert np.array_equal(avx2_keys(group)[0], scalar_keys(group)), (lane, suited)
    every = np.array([flush_row(rng, width, rng.integers(5, width + 1)) for _ in range(24)])
    assert np.array_equal(avx2_keys(every)[0], scalar_keys(every))
    mixed = random_hands(20_000, width, seed=11 * width)
    picked = rng.random(len(mixed)) < 0.3
    mixed[picked] = [flush_row(rng, width, rng.integers(5, width + 1)) for _ in range(picked.sum())]
    assert np.array_equal(avx2_keys(mixed)[0], scalar_keys(mixed))


@needs_avx2
@path_tier
@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_the_check_by_blocks_finds_a_bad_row_anywhere(width):
    """The check runs a block of rows at a time: a repeat or an unknown id in the first and last row of a block,
    in the rows of a group and of the scalar tail, is found; a good batch of several blocks is not flagged."""
    hands = random_hands(2 * CHECK_ROWS + 13, width, seed=width)
    keys, flagged = avx2_keys(hands, True)
    assert flagged == 0 and np.array_equal(keys, scalar_keys(hands))
    for row in (0, 7, CHECK_ROWS - 1, CHECK_ROWS, 2 * CHECK_ROWS - 1, len(hands) - 1):
        for position, value in ((1, None), (width - 1, 52), (0, 255)):
            bad = hands.copy()
            bad[row, position] = bad[row, 0] if value is None else value
            assert avx2_keys(bad, True)[1] != 0, (row, position, value)


@needs_avx2
@path_tier
@pytest.mark.parametrize("width", [3, 5, 6, 7])
def test_garbage_reads_inside_the_tables(width):
    """Unchecked ids above 51: a meaningless key, never a read outside the table; every key is then one of the
    table's values."""
    garbage = np.random.default_rng(width).integers(0, 256, size=(100_000, width), dtype=np.uint8)
    keys, flagged = avx2_keys(garbage)
    assert flagged == 0 and np.isin(keys, evaluator_table(width)).all()


# A process compiling for this processor with some features turned off: which path it takes, and the keys of its
# batch calls on every width and every batch length up to 40, plus one long batch, checked and not.
WITHOUT_FEATURES = """
import json, sys
import numpy as np
from cpoker import evaluate_batch, evaluate_best_batch
from cpoker._kernels import avx2, avx512
hands = {width: np.load(sys.argv[1])[:, :width].copy() for width in (3, 5, 6, 7)}
keys = {}
for width, rows in hands.items():
    evaluate = evaluate_batch if width in (3, 5) else evaluate_best_batch
    for check in (True, False):
        keys[f"{width} {check}"] = [evaluate(rows[:n], check=check).tolist() for n in range(41)] + [
            evaluate(rows, check=check).tolist()]
print(json.dumps({"avx512": avx512.available(), "avx2": avx2.available(), "keys": keys}))
"""


def without_features(tmp_path, prefixes: tuple) -> dict:
    """The answer of :data:`WITHOUT_FEATURES`, run with every host feature named by ``prefixes`` turned off."""
    import llvmlite.binding as llvm

    features = ",".join("-" + flag[1:] if flag[1:].startswith(prefixes) else flag
                        for flag in llvm.get_host_cpu_features().flatten().split(","))
    hands_file = tmp_path / "hands.npy"
    np.save(hands_file, random_hands(5_003, 7, seed=67))
    env = {**os.environ, "NUMBA_CPU_NAME": llvm.get_host_cpu_name(), "NUMBA_CPU_FEATURES": features}
    run = subprocess.run([sys.executable, "-c", WITHOUT_FEATURES, str(hands_file)], capture_output=True, text=True,
                         env=env, check=True)
    return {**json.loads(run.stdout), "hands": np.load(hands_file)}


def assert_scalar_keys(answer: dict) -> None:
    for width in (3, 5, 6, 7):
        rows = np.ascontiguousarray(answer["hands"][:, :width])
        expected = scalar_keys(rows).tolist()
        for check in (True, False):
            got = answer["keys"][f"{width} {check}"]
            assert got[-1] == expected, (width, check)
            for n in range(41):
                assert got[n] == expected[:n], (width, check, n)


@needs_avx2
@pytest.mark.slow  # (real processes compiling the kernels for other processors: the full tier)
def test_a_processor_without_avx512_takes_the_avx2_path(tmp_path):
    answer = without_features(tmp_path, ("avx512",))
    assert (answer["avx512"], answer["avx2"]) == (False, True)
    assert_scalar_keys(answer)


@pytest.mark.slow
def test_a_processor_without_avx2_takes_the_scalar_loop(tmp_path):
    """Nothing x86-only without a fallback: with AVX2 (and so AVX-512) turned off, the scalar loops serve."""
    answer = without_features(tmp_path, ("avx2", "avx512"))
    assert (answer["avx512"], answer["avx2"]) == (False, False)
    assert_scalar_keys(answer)


def test_turning_avx2_off_turns_avx512_off(monkeypatch):
    """LLVM takes AVX-512 away with AVX2: a feature string with ``-avx2`` after ``+avx512vbmi`` gets neither
    vector path, whose code would not compile there."""
    from numba.core import config

    monkeypatch.setattr(config, "CPU_FEATURES", "+avx,+avx2,+avx512f,+avx512bw,+avx512vbmi,-avx2")
    assert not compiles_with(avx512.FEATURES) and not compiles_with(avx2.FEATURES)
    monkeypatch.setattr(config, "CPU_FEATURES", "+avx,+avx2,+avx512f,+avx512bw,+avx512vbmi")
    assert compiles_with(avx512.FEATURES) and compiles_with(avx2.FEATURES)
