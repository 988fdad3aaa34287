"""A GPU warp's passes through the table policy's search, modelled on the CPU from the kernel's own schedule.

    python benchmarks/warp_model.py [--hands N] [--against REV]

On a GPU each lane of a 32-lane warp arranges its own hand, and the lanes run
each pass of a loop together: a warp takes as many passes as its slowest
lane, and a pass in which any lane searches a back (56 splits) costs a search
for the whole warp.  This script runs the CPU kernel (the very source the GPU
compiles) on ``N`` sample hands, records for each hand the steps of its search
loop at which a back is searched, and counts, per warp of 32 consecutive hands:

- ``search passes``: passes through the 56-split search (the most searches of
  any lane, since d5a4824 steps over the backs not worth searching in an inner
  loop; before it, every step at which some lane searched: ``--against REV``
  counts the kernel of ``REV`` that way);
- with a search budget ``B`` (``cuda.SEARCH_BUDGET``): at most ``B`` passes in
  the first launch, plus those of the second launch, which arranges the hands
  over the budget again, 32 to a warp; and the share of hands arranged again.

A model, not a measurement: it counts passes, and takes a search pass as the
unit of cost.  ``benchmarks/gpu.py`` measures the kernels on a real GPU.
"""

import argparse
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TRACE = 1287  # the search's trace is kept in the tail of the `candidates` scratch, past the 1,287 backs
TRACE_LENGTH = 4096


def kernel_source(revision: "str | None" = None) -> str:
    """The search and the table policy's kernels as one module's source: ``_kernels/search.py`` followed by
    ``_kernels/policy.py`` (which then calls the traced search), of the working tree or of a git ``revision``
    (one before they were split reads ``_kernels/splits.py``, which held both)."""
    def read(name: str) -> "str | None":
        if revision is None:
            return (ROOT / "cpoker" / "_kernels" / name).read_text()
        done = subprocess.run(["git", "show", f"{revision}:cpoker/_kernels/{name}"], cwd=ROOT, capture_output=True,
                              text=True)
        return done.stdout if done.returncode == 0 else None

    joined = read("splits.py") if revision is not None else None
    if joined is not None:
        return joined
    policy = "\n".join(line for line in read("policy.py").splitlines()
                        if not line.startswith(("from __future__", "from .search import")))
    return read("search.py") + "\n" + policy


def traced_kernels(source: str, name: str):
    """The kernel module of ``source`` (:func:`kernel_source`) with its search traced into ``candidates``.

    ``candidates[TRACE]`` counts the searched backs and ``candidates[TRACE + i]`` holds the step of the i-th;
    the last slot holds the step at which the search ended.  Two insertions, each checked to apply once.
    """
    from cpoker._kernels import policy as kernels

    insertions = [
        ("\n        back_rank = rank5[back]\n",
         "\n        candidates[TRACE] += 1\n        candidates[TRACE + candidates[TRACE]] = step\n"),
        ("\n    return best, best_value", f"\n    candidates[TRACE + {TRACE_LENGTH - 1}] = step\n"),  # (its end)
    ]
    for anchor, statement in insertions:
        if source.count(anchor) != 1:
            raise SystemExit(f"the search loop has changed: {anchor.strip()!r} is not found once; update this script")
        position = source.index(anchor) + 1
        source = source[:position] + statement.lstrip("\n") + source[position:]
    source += f"\nTRACE = {TRACE}\n"
    path = Path(kernels.__file__).with_name(f"_warp_model_{name}.py")  # in the package: its relative imports resolve
    path.write_text(source)
    try:
        spec = importlib.util.spec_from_file_location(f"cpoker._kernels._warp_model_{name}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    finally:
        path.unlink()
    return module


def search_schedules(kernels, hands: np.ndarray, model) -> list:
    """For each hand, the steps at which its search searched a back, and the step at which it ended."""
    scratch = list(kernels.policy_scratch())
    scratch[5] = np.zeros(TRACE + TRACE_LENGTH, dtype=np.int32)  # candidates, with room for the trace
    takes_budget = "search_budget" in inspect.signature(kernels.table_policy_hand.py_func).parameters
    budget = (1 << 30,) if takes_budget else ()
    schedules = []
    for hand in hands:
        scratch[5][TRACE:] = 0
        kernels.table_policy_hand(hand, *model.search_arguments, *scratch, *budget)
        trace = scratch[5][TRACE:]
        schedules.append((trace[1:1 + trace[0]].copy(), int(trace[-1])))
    return schedules


def warp_passes(schedules: list, lockstep: bool) -> float:
    """Search passes per warp of 32 hands: the most searches of a lane, or, ``lockstep``, the steps at which
    some lane searches (a loop whose every pass is a step)."""
    total = 0
    for start in range(0, len(schedules), 32):
        warp = schedules[start:start + 32]
        if lockstep:
            total += len(set().union(*(steps.tolist() for steps, _ in warp)))
        else:
            total += max(len(steps) for steps, _ in warp)
    return total * 32 / len(schedules)


def budget_passes(searches: np.ndarray, budget: int) -> tuple:
    """``(first launch, second launch)`` search passes per warp of 32 hands, and the share arranged again."""
    first = np.minimum(searches, budget)
    first = sum(first[i:i + 32].max() for i in range(0, len(first), 32))
    over = searches[searches > budget]
    second = sum(over[i:i + 32].max() for i in range(0, len(over), 32))
    return first * 32 / len(searches), second * 32 / len(searches), len(over) / len(searches)


def main() -> None:
    try:
        report()
    finally:  # numba's cache files of the traced modules, whose source is gone
        from cpoker._kernels import policy as kernels

        for stale in (Path(kernels.__file__).parent / "__pycache__").glob("_warp_model_*"):
            stale.unlink(missing_ok=True)


def report() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=6400, help="sample hands (default 6,400: 200 warps)")
    parser.add_argument("--against", metavar="REV", help="also count the kernel of this git revision, in lockstep")
    arguments = parser.parse_args()

    from cpoker.game.dealing import sample_block
    from cpoker.strategies.policy import RowModel, default_tables

    current = traced_kernels(kernel_source(), "current")
    earlier = traced_kernels(kernel_source(arguments.against), "earlier") if arguments.against else None
    hands = sample_block(7, 0, arguments.hands)
    budgets = (8, 16, 32)
    print(f"search passes per warp of 32 hands, {arguments.hands} hands; with budget B: first launch + second "
          "launch (share of hands arranged again)")
    for preset in ("pagat", "2-4", "1-6", "seed001-royalties"):
        tables = default_tables(preset)
        for label, model in (("corrected", tables.model),
                             ("full deck", RowModel.from_distribution(tables.distribution, tables.rules))):
            schedules = search_schedules(current, hands, model)
            searches = np.array([len(steps) for steps, _ in schedules])
            line = [f"{preset} {label}: {searches.mean():.2f} searches a hand (p99 {np.percentile(searches, 99):.0f})"]
            if earlier is not None:
                before = warp_passes(search_schedules(earlier, hands, model), lockstep=True)
                line.append(f"{arguments.against} in lockstep {before:.1f}")
            line.append(f"now {warp_passes(schedules, lockstep=False):.1f}")
            for budget in budgets:
                first, second, again = budget_passes(searches, budget)
                line.append(f"B={budget}: {first:.1f} + {second:.1f} = {first + second:.1f} ({again:.1%})")
            print("; ".join(line))


if __name__ == "__main__":
    main()
