"""cpoker's evaluators against the fastest C++ evaluators, on the same saved hands, in one run.

    python benchmarks/compare_cpp.py --ompeval ~/src/OMPEval --skpokereval ~/src/SKPokerEval
    python benchmarks/compare_cpp.py --quick ...      # 1M hands instead of 10M

OMPEval (github.com/zekyll/OMPEval) and SKPokerEval
(github.com/kennethshackleton/SKPokerEval) are C++ sources, not pip
packages, and none of their code is in this repository: point this script to
your own checkouts.  For each one it writes a small harness (our code, in a
temporary directory), compiles it with ``g++ -O3 -march=native`` against the
checkout, and runs it on the very hands cpoker evaluates (a fixed seed, saved
to a binary file).  Every rate is the best of several passes on one thread,
card conversion excluded; the table reports each rate as a ratio to OMPEval's
measured in the same run.  cpoker is timed as users call it: the default call
(checked input, an output it allocates) first, then ``out=``, then
``check=False``.  It also checks agreement: each library's ranking must be a
strictly increasing function of cpoker's key on those hands.

``--no-avx512`` measures the path a processor without AVX-512 runs (Intel client chips since Alder Lake, AMD
before Zen 4), on this machine: numba compiles for this processor with every ``avx512*`` feature turned off
(``NUMBA_CPU_FEATURES``), and the C++ harnesses are built with ``-mno-avx512f``, so both sides lose the same
instructions.

Without any source directory it says how to get them and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

GET_SOURCES = """\
compare_cpp.py compares cpoker with C++ evaluators built from your own checkouts of their sources:
    git clone https://github.com/zekyll/OMPEval ~/src/OMPEval
    git clone https://github.com/kennethshackleton/SKPokerEval ~/src/SKPokerEval
    python benchmarks/compare_cpp.py --ompeval ~/src/OMPEval --skpokereval ~/src/SKPokerEval
(needs g++ with C++20)."""

# One harness per library: read N rows of k card ids (cpoker ids: 13 * suit + rank), convert them to
# the library's card index outside the timed loop, evaluate every row `repeats` times, print the best
# pass in seconds, write the last pass's 16-bit rankings.
HARNESS = r"""
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
%(include)s

int main(int argc, char** argv) {
    const char* in_path = argv[1];
    const long n = std::atol(argv[2]);
    const int k = std::atoi(argv[3]);
    const int repeats = std::atoi(argv[4]);
    const char* out_path = argv[5];
    std::vector<uint8_t> ids(n * k);
    FILE* f = std::fopen(in_path, "rb");
    if (!f || std::fread(ids.data(), 1, ids.size(), f) != ids.size()) return 3;
    std::fclose(f);
    for (auto& c : ids) { int rank = c %% 13, suit = c / 13; c = (uint8_t)(%(card_index)s); }
    std::vector<uint16_t> out(n);
    %(setup)s
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        const uint8_t* c = ids.data();
        if (k == 5) {
            for (long i = 0; i < n; ++i, c += 5) { %(eval5)s }
        } else {
            for (long i = 0; i < n; ++i, c += 7) { %(eval7)s }
        }
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < best) best = s;
    }
    f = std::fopen(out_path, "wb");
    std::fwrite(out.data(), 2, n, f);
    std::fclose(f);
    std::printf("%%.9f\n", best);
    return 0;
}
"""

# Not a library: a loop that reads each hand and does one load from a 128 KiB table, the floor of an
# evaluator that takes a row at a time (always built; it needs no sources).  cpoker's AVX-512 path,
# 16 rows at a time, runs above it.
FLOOR = {
    "include": "static uint16_t TABLE[65536];",
    "card_index": "13 * suit + rank",
    "setup": "for (int i = 0; i < 65536; ++i) TABLE[i] = (uint16_t)(i * 40503u);",
    "eval5": "out[i] = TABLE[(c[0] | c[1] << 6 | c[2] << 12 ^ c[3] << 3 ^ c[4] << 9) & 0xFFFF];",
    "eval7": ("out[i] = TABLE[(c[0] | c[1] << 6 | c[2] << 12 ^ c[3] << 3 ^ c[4] << 9 ^ c[5] << 1 ^ c[6] << 7)"
              " & 0xFFFF];"),
    "sources": [], "includes": [], "marker": "", "widths": (5, 7),
}

LIBRARIES = {
    "OMPEval": {
        "include": '#include "omp/HandEvaluator.h"',
        "card_index": "4 * rank + suit",
        "setup": "omp::HandEvaluator evaluator;",
        "eval5": "out[i] = evaluator.evaluate(omp::Hand::empty() + c[0] + c[1] + c[2] + c[3] + c[4]);",
        "eval7": ("out[i] = evaluator.evaluate(omp::Hand::empty() + c[0] + c[1] + c[2] + c[3] + c[4] + c[5]"
                  " + c[6]);"),
        "sources": ["omp/HandEvaluator.cpp"],
        "includes": ["."],
        "marker": "omp/HandEvaluator.h",
        "widths": (5, 7),
    },
    "SKPokerEval": {
        "include": '#include "SevenEval.h"',
        "card_index": "4 * (12 - rank) + suit",
        "setup": "",
        "eval5": "",
        "eval7": "out[i] = SevenEval::GetRank(c[0], c[1], c[2], c[3], c[4], c[5], c[6]);",
        "sources": [],
        "includes": ["src"],
        "marker": "src/SevenEval.h",
        "widths": (7,),  # the current SKPokerEval has no 5-card evaluator
    },
}


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    """``n`` random k-card hands of cpoker card ids (uint8), the same for every library (built 1M at a time)."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, k), dtype=np.uint8)
    for start in range(0, n, 1_000_000):
        rows = min(n, start + 1_000_000) - start
        out[start:start + rows] = np.argsort(rng.random((rows, 52), dtype=np.float32), axis=1)[:, :k]
    return out


FLOOR_NAME = "read + one load (scalar floor)"


def without_avx512(features: str) -> str:
    """LLVM's feature string ``features`` with every ``avx512*`` feature turned off (the rest as they are)."""
    return ",".join("-" + flag[1:] if flag[1:].startswith("avx512") else flag for flag in features.split(","))


def mask_avx512() -> None:
    """Make numba compile for this processor without AVX-512 (before numba is imported: it reads its
    configuration once)."""
    if "numba" in sys.modules:
        raise RuntimeError("--no-avx512 must take effect before numba is imported")
    import llvmlite.binding as llvm

    os.environ["NUMBA_CPU_FEATURES"] = without_avx512(llvm.get_host_cpu_features().flatten())


def build(name: str, source_dir: Path, work: Path, flags: tuple[str, ...] = ()) -> Path:
    spec = FLOOR if name == FLOOR_NAME else LIBRARIES[name]
    stem = "floor" if name == FLOOR_NAME else name
    harness = work / f"{stem}.cpp"
    harness.write_text(HARNESS % spec)
    binary = work / stem
    command = ["g++", "-O3", "-march=native", *flags, "-std=c++20", "-w", "-o", str(binary), str(harness),
               *(str(source_dir / s) for s in spec["sources"]),
               *(f"-I{source_dir / i}" for i in spec["includes"])]
    subprocess.run(command, check=True)
    return binary


# cpoker's calls, as users make them: the defaults first (checked input, an output cpoker allocates), then into
# a preallocated output, then unchecked; each a single call over every row
CPOKER_CALLS = {
    "cpoker, default call": {},
    "cpoker, out=": {"out": True},
    "cpoker, check=False": {"check": False},
    "cpoker, out=, check=False": {"out": True, "check": False},
}


def time_cpoker(ids: np.ndarray, out: bool = False, check: bool = True) -> tuple[float, np.ndarray]:
    """One pass of cpoker's batch call over all rows, as a user calls it: ``evaluate_batch(ids)`` (or
    ``evaluate_best_batch``), with ``out=`` a preallocated output and ``check`` as given.

    The preallocated output is written once before the clock starts, as the C++ harnesses' output vector is
    (value-initialised); a plain call allocates its output inside the timed call, as it does for a user."""
    from cpoker import evaluate_batch, evaluate_best_batch

    evaluate = evaluate_batch if ids.shape[1] in (3, 5) else evaluate_best_batch
    evaluate(ids[:100], check=check)
    if not out:
        start = time.perf_counter()
        keys = evaluate(ids, check=check)
        return time.perf_counter() - start, keys
    keys = np.zeros(len(ids), dtype=np.int32)
    keys.fill(0)  # np.zeros may map pages lazily: touch them
    start = time.perf_counter()
    evaluate(ids, check=check, out=keys)
    return time.perf_counter() - start, keys


def agrees(cpoker_keys: np.ndarray, ranks: np.ndarray) -> int:
    """Number of violations of "ranks is a strictly increasing function of cpoker's key"."""
    keys, first = np.unique(cpoker_keys, return_index=True)
    inverse = np.searchsorted(keys, cpoker_keys)
    representative = ranks[first][inverse]
    mismatched = int((representative != ranks).sum())  # equal keys, unequal ranks
    return mismatched + int((np.diff(ranks[first].astype(np.int64)) <= 0).sum())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ompeval", type=Path, help="a checkout of github.com/zekyll/OMPEval")
    parser.add_argument("--skpokereval", type=Path, help="a checkout of github.com/kennethshackleton/SKPokerEval")
    parser.add_argument("--hands", type=int, default=10_000_000)
    parser.add_argument("--quick", action="store_true", help="1M hands, 3 passes")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--no-avx512", action="store_true",
                        help="measure the path of a processor without AVX-512: numba and g++ both told not to use it")
    args = parser.parse_args(argv)
    sources = {name: path for name, path in (("OMPEval", args.ompeval), ("SKPokerEval", args.skpokereval)) if path}
    if not sources:
        print(GET_SOURCES)
        return 0
    if shutil.which("g++") is None:
        print("compare_cpp.py: g++ is needed to build the harnesses", file=sys.stderr)
        return 2
    for name, path in sources.items():
        if not (path.expanduser() / LIBRARIES[name]["marker"]).is_file():
            print(f"compare_cpp.py: {path} is not a checkout of {name} (no {LIBRARIES[name]['marker']})",
                  file=sys.stderr)
            return 2
    flags: tuple[str, ...] = ()
    if args.no_avx512:
        mask_avx512()
        flags = ("-mno-avx512f",)
    import numba

    numba.set_num_threads(1)
    n, repeats = (1_000_000, 3) if args.quick else (args.hands, args.repeats)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        binaries = {name: build(name, path.expanduser(), work, flags) for name, path in sources.items()}
        binaries[FLOOR_NAME] = build(FLOOR_NAME, work, work, flags)
        for k in (5, 7):
            ids = random_hands(n, k, args.seed + k)
            hands_file = work / f"hands{k}.bin"
            ids.tofile(hands_file)
            contenders: dict = dict.fromkeys(CPOKER_CALLS)
            contenders.update({name: binary for name, binary in binaries.items()
                               if name == FLOOR_NAME or k in LIBRARIES[name]["widths"]})
            best = dict.fromkeys(contenders, np.inf)
            ranks = {}
            # the contenders take turns, pass after pass, so that a slow spell of a shared machine hits them all
            for _ in range(repeats):
                for label, binary in contenders.items():
                    if binary is None:
                        seconds, keys = time_cpoker(ids, **CPOKER_CALLS[label])
                    else:
                        out_file = work / f"{binary.name}{k}.out"
                        run = subprocess.run([str(binary), str(hands_file), str(n), str(k), "1", str(out_file)],
                                             check=True, capture_output=True, text=True)
                        seconds = float(run.stdout)
                        ranks[label] = np.fromfile(out_file, dtype=np.uint16)
                    best[label] = min(best[label], seconds)
            omp = n / best["OMPEval"] if "OMPEval" in best else None
            for label in contenders:
                rate = n / best[label]
                violations = agrees(keys, ranks[label]) if label in ranks and label != FLOOR_NAME else 0
                results.append({"evaluator": label, "cards": k, "rate": rate,
                                "ratio": rate / omp if omp else float("nan"), "violations": violations})
    print(f"{n:,} random hands per size, one thread, best of {repeats} interleaved passes; "
          "ratio = rate / OMPEval's rate in the same run (above 1: faster than OMPEval)")
    from cpoker._kernels import avx2, avx512

    path = ("AVX-512 VBMI, 16 rows a step" if avx512.available() else "AVX2, 8 rows a step" if avx2.available()
            else "the scalar loop")
    print(f"cpoker's path on this processor: {path}"
          + (" (AVX-512 turned off: numba's NUMBA_CPU_FEATURES, g++ -mno-avx512f)" if args.no_avx512 else ""))
    print(f"{'evaluator':32} {'cards':>5} {'M hands/s':>10} {'ratio':>6} {'order violations':>17}")
    for row in results:
        print(f"{row['evaluator']:32} {row['cards']:>5} {row['rate'] / 1e6:>10.1f} {row['ratio']:>6.2f} "
              f"{row['violations']:>17}")
    if args.json:
        args.json.write_text(json.dumps({"hands": n, "repeats": repeats, "seed": args.seed, "path": path,
                                         "no_avx512": args.no_avx512, "results": results}, indent=1))
    return 1 if any(row["violations"] for row in results) else 0


if __name__ == "__main__":
    sys.exit(main())
