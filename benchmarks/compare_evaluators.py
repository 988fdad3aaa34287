"""cpoker's evaluator against the libraries people already use, on the same hands, in one run.

    pip install ".[bench]"
    python benchmarks/compare_evaluators.py            # full run (about a minute)
    python benchmarks/compare_evaluators.py --quick    # small sizes

For each library and workload (random 5-card hands, random 7-card hands,
fixed seed): evaluations per second on one core through the library's
fastest public path (a batch call where it has one), best of several
repeats, card conversion excluded; the ratio to cpoker; and an agreement
check -- every library must order the same random pairs of hands the same
way as cpoker (0 disagreements expected).  A library that fails to import is
skipped and reported.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Callable, Optional

import numpy as np

RANKS, SUITS = "23456789TJQKA", "shdc"
NAMES = [RANKS[i % 13] + SUITS[i // 13] for i in range(52)]  # cpoker ids: 13 * suit + rank


@dataclass
class Library:
    name: str
    prepare: Callable[[np.ndarray], object]  # card ids (N, k) -> the library's input, not timed
    evaluate: Callable[[object], object]  # evaluates every hand of the prepared input
    strength: Callable[[object], list]  # prepared input -> comparable strengths (larger is stronger)


def _cpoker() -> Library:
    from cpoker import evaluate_batch, evaluate_best_batch

    def run(ids):
        return evaluate_batch(ids) if ids.shape[1] == 5 else evaluate_best_batch(ids)

    return Library("cpoker", lambda ids: np.ascontiguousarray(ids), run, lambda ids: run(ids).tolist())


def _treys() -> Library:
    from treys import Card, Evaluator

    evaluator = Evaluator()
    table = [Card.new(n) for n in NAMES]

    def prepare(ids):
        return [([table[c] for c in row[:2]], [table[c] for c in row[2:]]) for row in ids.tolist()]

    def run(hands):
        evaluate = evaluator.evaluate
        return [evaluate(hole, board) for hole, board in hands]

    return Library("treys", prepare, run, lambda hands: [-x for x in run(hands)])


def _phevaluator() -> Library:
    from phevaluator import evaluate_cards

    # phevaluator ids: 4 * rank + suit, suits in the order c d h s
    table = [4 * (i % 13) + "cdhs".index(SUITS[i // 13]) for i in range(52)]

    def prepare(ids):
        return [[table[c] for c in row] for row in ids.tolist()]

    def run(hands):
        return [evaluate_cards(*hand) for hand in hands]

    return Library("phevaluator", prepare, run, lambda hands: [-x for x in run(hands)])


def _eval7() -> Library:
    import eval7

    table = [eval7.Card(n) for n in NAMES]

    def prepare(ids):
        return [[table[c] for c in row] for row in ids.tolist()]

    def run(hands):
        evaluate = eval7.evaluate
        return [evaluate(hand) for hand in hands]

    return Library("eval7", prepare, run, run)


def _pokerkit() -> Library:
    from pokerkit import StandardHighHand

    def prepare(ids):
        return ["".join(NAMES[c] for c in row) for row in ids.tolist()]

    def run(hands):
        if len(hands[0]) == 10:
            return [StandardHighHand(hand) for hand in hands]
        return [StandardHighHand.from_game(hand[:4], hand[4:]) for hand in hands]

    return Library("pokerkit", prepare, run, run)


LIBRARIES = {"cpoker": _cpoker, "treys": _treys, "phevaluator": _phevaluator, "eval7": _eval7, "pokerkit": _pokerkit}
# hands timed per repeat: enough for ~0.1-1 s a repeat at each library's speed
SIZES = {"cpoker": 1_000_000, "treys": 100_000, "phevaluator": 200_000, "eval7": 200_000, "pokerkit": 20_000}


def random_hands(count: int, size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :size].astype(np.uint8)


def rate(library: Library, ids: np.ndarray, repeats: int) -> float:
    prepared = library.prepare(ids)
    library.evaluate(library.prepare(ids[:10]))  # warm-up (JIT, caches)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        library.evaluate(prepared)
        best = min(best, time.perf_counter() - started)
    return len(ids) / best


def disagreements(library: Library, reference: Library, first: np.ndarray, second: np.ndarray) -> int:
    def signs(lib):
        a, b = lib.strength(lib.prepare(first)), lib.strength(lib.prepare(second))
        return [(x > y) - (x < y) for x, y in zip(a, b)]

    return sum(s != t for s, t in zip(signs(library), signs(reference)))


@dataclass
class Row:
    library: str
    version: str
    rate5: Optional[float] = None
    rate7: Optional[float] = None
    ratio5: Optional[float] = None
    ratio7: Optional[float] = None
    disagree5: Optional[int] = None
    disagree7: Optional[int] = None
    skipped: Optional[str] = None


def _version(name: str) -> str:
    if name == "cpoker":
        import cpoker

        return cpoker.__version__
    return metadata.version(name)


def compare(scale: float = 1.0, repeats: int = 5, pairs: int = 20_000, seed: int = 2026,
            names: Optional[list[str]] = None) -> list[Row]:
    """Measure every library (or ``names``); sizes are multiplied by ``scale``."""
    rows: list[Row] = []
    libraries: dict[str, Library] = {}
    for name in names or list(LIBRARIES):
        try:
            libraries[name] = LIBRARIES[name]()
            version = _version(name)
            rows.append(Row(name, version))
        except Exception as error:  # a missing or broken library is reported, not fatal
            rows.append(Row(name, "-", skipped=f"{type(error).__name__}: {error}"))
    reference = libraries.get("cpoker") or _cpoker()
    for size in (5, 7):
        a, b = random_hands(pairs, size, seed + size), random_hands(pairs, size, seed + 10 + size)
        for row in rows:
            if row.skipped:
                continue
            library = libraries[row.library]
            count = max(100, int(SIZES[row.library] * scale))
            setattr(row, f"rate{size}", rate(library, random_hands(count, size, seed), repeats))
            setattr(row, f"disagree{size}", disagreements(library, reference, a, b))
    base = {size: next((getattr(r, f"rate{size}") for r in rows if r.library == "cpoker"), None) for size in (5, 7)}
    for row in rows:
        for size in (5, 7):
            value = getattr(row, f"rate{size}")
            if value and base[size]:
                setattr(row, f"ratio{size}", value / base[size])
    return rows


def format_table(rows: list[Row]) -> str:
    def millions(x):
        if not x:
            return "         -    "
        return f"{x / 1e6:10.2f} M/s" if x >= 1e5 else f"{x / 1e3:10.1f} k/s"

    def ratio(x):
        return f"{x:10.4f}" if x else "         -"

    lines = [f"{'library':<13}{'version':<10}{'5-card':>14}{'vs cpoker':>10}{'7-card':>14}{'vs cpoker':>10}"
             f"{'disagreements (5/7)':>22}"]
    for r in rows:
        if r.skipped:
            lines.append(f"{r.library:<13}{'-':<10}skipped: {r.skipped}")
            continue
        lines.append(f"{r.library:<13}{r.version:<10}{millions(r.rate5)}{ratio(r.ratio5)}{millions(r.rate7)}"
                     f"{ratio(r.ratio7)}{f'{r.disagree5} / {r.disagree7}':>22}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a tenth of the hands, 2 repeats")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args()
    scale, repeats = (0.1, 2) if args.quick else (1.0, args.repeats)
    rows = compare(scale=scale, repeats=repeats, pairs=2_000 if args.quick else 20_000, seed=args.seed)
    print("evaluations per second on one core, best of", repeats, "repeats; same random hands for every library")
    print(format_table(rows))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump([asdict(r) for r in rows], handle, indent=2)


if __name__ == "__main__":
    main()
