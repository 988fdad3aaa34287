"""Where a ``cpoker tables build`` spends its time: the command itself, run in this process, timed pass by pass.

    python benchmarks/build_stages.py [--events FILE.jsonl] [--report FILE.json] -- tables build ARGS...

The arguments after ``--`` are the ``cpoker`` command's own (``tables build --device cuda --hands 100000000``,
say: the issue-11 target).  Every pass over blocks (:func:`cpoker.run.runner.run_blocks`: the greedy start, each
self-play iteration, each round with the card-removal correction, each learning of the correction) is timed
from its start to its end, with the hands its near-best rows certified and those it searched
(:mod:`cpoker.jobs.nearbest`); the time between passes (making the next model, fitting the correction's terms)
and before the first (starting Python, importing cpoker, reading the tables) is reported as such.  Nothing
else changes: the command writes its tables and prints what it prints, and this adds timestamps only.

Each pass is appended to ``--events`` as one JSON line when it ends, so a run cut short (a time limit) still
tells what it did.  The summary (seconds by kind of pass, and in all) is printed on standard error and written
to ``--report``.
"""

import json
import sys
import time

STARTED = time.perf_counter()  # before numpy, numba and cpoker are imported: a fresh process's whole cost


def kind_of(description: str) -> str:
    """The kind of pass that ``run_blocks``' progress description names."""
    for prefix, kind in (("greedy start", "greedy start"), ("replaying", "replay"),
                         ("self-play with card removal", "rounds with the correction"),
                         ("self-play", "self-play"), ("card removal", "learning the correction")):
        if description.startswith(prefix):
            return kind
    return description or "other"


def summary(passes: list, total: float) -> dict:
    """Seconds and passes by kind, the time outside every pass, and the total."""
    kinds: dict = {}
    for step in passes:
        kind = kinds.setdefault(step["kind"], {"passes": 0, "seconds": 0.0, "searched": 0, "certified": 0,
                                               "kept": 0})
        kind["passes"] += 1
        for name in ("seconds", "searched", "certified", "kept"):
            kind[name] += step[name]
    inside = sum(step["seconds"] for step in passes)
    first = passes[0]["started"] if passes else total
    return {"by kind": kinds, "before the first pass": first, "between passes and after the last": total - first
            - inside, "total": total}


def main(argv: list) -> int:
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    own, command = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    events = own[own.index("--events") + 1] if "--events" in own else None
    report = own[own.index("--report") + 1] if "--report" in own else None
    if events:
        open(events, "w").close()

    import cpoker.jobs.nearbest
    import cpoker.run.runner
    from cpoker.cli import main as cpoker_main

    passes: list = []
    memories: list = []  # the build's near-best rows (one, on the local backend)
    run_blocks, make_memory = cpoker.run.runner.run_blocks, cpoker.jobs.nearbest.NearBestMemory.__init__

    def remembered(self, *args, **kwargs):
        make_memory(self, *args, **kwargs)
        memories.append(self)

    def counts() -> tuple:
        return (sum(memory.searched for memory in memories), sum(memory.certified for memory in memories),
                sum(memory.kept for memory in memories))

    def timed(*args, **kwargs):
        description = kwargs.get("description", "")
        before, started = counts(), time.perf_counter()
        try:
            return run_blocks(*args, **kwargs)
        finally:
            after = counts()
            step = {"pass": description, "kind": kind_of(description), "hands": kwargs.get("total"),
                    "started": started - STARTED, "seconds": time.perf_counter() - started,
                    "searched": after[0] - before[0], "certified": after[1] - before[1],
                    "kept": after[2] - before[2]}  # (of those certified: their splits kept, nothing valued)
            passes.append(step)
            print(f"[{time.perf_counter() - STARTED:8.1f} s] {description}: {step['seconds']:.2f} s"
                  + (f", {step['certified']} certified ({step['kept']} kept), {step['searched']} searched"
                     if step["searched"] or step["certified"] else ""), file=sys.stderr, flush=True)
            if events:
                with open(events, "a") as file:
                    file.write(json.dumps(step) + "\n")

    cpoker.run.runner.run_blocks = timed  # read at call time by build_tables and learn_removal
    cpoker.jobs.nearbest.NearBestMemory.__init__ = remembered
    status = cpoker_main(command)
    result = {"command": command, "status": status, "passes": passes,
              "summary": summary(passes, time.perf_counter() - STARTED)}
    print(json.dumps(result["summary"], indent=1), file=sys.stderr)
    if report:
        with open(report, "w") as file:
            json.dump(result, file, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
