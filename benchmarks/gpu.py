"""The CUDA backend on a real GPU: correctness against the CPU at scale, then speed.

    python benchmarks/gpu.py [--quick | --tiny] [--target [--build-first] [--seconds N]] [--out FILE.json]

``--target`` times a small build's start with the CUDA kernels compiled and
then loaded from the disk cache (first and later runs), checks the GPU
against the CPU on small inputs, then runs issue 11's build, ``cpoker tables
build --device cuda --hands 100000000``, in a fresh process timed pass by
pass (``build_stages.py``; at most ``TARGET_SECONDS``, its passes so far kept
in ``FILE.json.events.jsonl``), and last makes a build run out of the GPU's
memory (``tests/kernels/test_cuda.py``'s real-GPU test): the first run to make on a
GPU lent for a few minutes.  ``--target --build-first`` gives that build all
the time but ``BUILD_FIRST_KEEP`` seconds, then checks the GPU against the
CPU and times a late pass's floor with what is left: the run that times the
whole build, which a plain ``--target`` (its build at most ``TARGET_SECONDS``)
has never seen end.  ``--tiny`` is a dry run for numba's simulator
(``NUMBA_ENABLE_CUDASIM=1``), also of ``--target``.  Each stage is reported
on standard error as it ends, and the JSON so far is rewritten to ``--out``
after each one: a run cut short still tells what it saw.

Prints one JSON object.  Speeds are kernel time on device-resident data
(evaluations or hands per second) and end-to-end time through the public API
(host arrays in, host arrays out), next to the CPU kernels measured in the same
run on every core of the same machine.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def stage(out: dict, name: str, started: float, path: "str | None") -> float:
    """Report a finished stage (standard error, and the JSON so far to ``path``); returns the time now."""
    now = time.perf_counter()
    print(f"[{now - STARTED:7.1f} s] {name} ({now - started:.1f} s)", file=sys.stderr, flush=True)
    if path:
        Path(path).write_text(json.dumps(out, indent=1))
    return now


STARTED = time.perf_counter()


def best_of(function, repeats=3):
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def measure_evaluation(cuda, kernels, name: str, masks: np.ndarray, n_cards: int, tile: int) -> dict:
    import cpoker
    from cpoker._kernels.cuda import THREADS
    from cpoker.game.lookup_tables import keys_of_masks

    device_masks = cuda.to_device(np.tile(masks, tile))
    keys = cuda.device_array(len(masks) * tile, dtype=np.int32)

    grid = min(132 * 32, -(-len(masks) * tile // THREADS))

    def launch():
        kernels["keys_from_masks"][grid, THREADS](device_masks, n_cards, keys)
        cuda.synchronize()

    def through_the_api():
        batch = cpoker.evaluate_batch if n_cards == 5 else cpoker.evaluate_best_batch
        return batch(masks, device="cuda", check=False)

    launch()
    seconds = best_of(launch)
    cpu_rows = min(len(masks), 2_000_000)
    cpu_masks = masks[:cpu_rows]
    batch = cpoker.evaluate_batch if n_cards == 5 else cpoker.evaluate_best_batch
    batch(cpu_masks[:100], check=False)
    return {f"{name} GPU evals/s (kernel, device data)": len(masks) * tile / seconds,
            f"{name} GPU evals/s (API, host arrays)": len(masks) / best_of(through_the_api, 2),
            f"{name} CPU evals/s (bit-sliced kernel, one core)":
                cpu_rows / best_of(lambda: keys_of_masks(cpu_masks, n_cards)),
            f"{name} CPU evals/s (API, {os.cpu_count()} cores)":
                cpu_rows / best_of(lambda: batch(cpu_masks, check=False))}


# one launch of the table policy, no search budget: block sizes, then register caps (more threads resident to hide
# local memory's latency): the same code, so the same answers, which are checked
VARIANTS = [(None, 64), (None, 128), (None, 256), (56, 128), (48, 128), (40, 128), (32, 128)]


def table_policy_speeds(cuda, kernels, tables, values, hands: np.ndarray, cpu_policy_hands: int,
                        variants: list, budgets: tuple = (8, 16, 32, None)) -> dict:
    """The table policy's hands/s on the GPU (through the API, under search budgets, one launch of the kernel on
    device data per variant) and on the CPU; a GPU figure whose choices differ from the CPU's says so instead."""
    from cpoker._kernels.search import UNLIMITED_SEARCHES
    from cpoker.game.devices import arrange_cuda
    from cpoker.strategies.policy import arrange_by_tables

    out = {}
    arrange_by_tables(hands[:1000], values, "cuda")
    gpu_seconds = best_of(lambda: arrange_by_tables(hands, values, "cuda"), 2)
    arrange_by_tables(hands[:100], values)
    cpu_hands = hands[:cpu_policy_hands]
    cpu_seconds = best_of(lambda: arrange_by_tables(cpu_hands, values), 2)
    out["table policy GPU hands/s (API)"] = len(hands) / gpu_seconds
    out[f"table policy CPU hands/s ({os.cpu_count()} cores)"] = len(cpu_hands) / cpu_seconds

    # the search budget: hands over it are arranged again by a second launch (same answers, checked)
    checked_hands = hands[:200_000]
    cpu_choices = arrange_by_tables(checked_hands, values)[0]
    for budget in (UNLIMITED_SEARCHES if budget is None else budget for budget in budgets):
        name = f"table policy GPU hands/s (API, search budget {budget if budget < UNLIMITED_SEARCHES else 'none'})"
        out[name] = len(hands) / best_of(lambda budget=budget: arrange_cuda(hands, values.model, budget), 2)
        if not np.array_equal(arrange_cuda(checked_hands, values.model, budget)[0], cpu_choices):
            out[name] = "differs from the CPU"
    device_hands = cuda.to_device(hands)
    model_arguments = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in values.model.kernel_arguments()]
    chosen = cuda.device_array(len(hands), dtype=np.int32)
    chosen_strengths = cuda.device_array((len(hands), 3), dtype=np.int16)
    expected = cpu_choices[:100_000]
    for registers, threads in variants:
        kernel = kernels["table_policy"]
        if registers is not None:
            kernel = cuda.jit(max_registers=registers)(kernel.py_func)

        def launch(kernel=kernel, threads=threads):
            kernel[-(-len(hands) // threads), threads](
                device_hands, np.int64(UNLIMITED_SEARCHES), *model_arguments, *tables["policy_lookups"],
                *tables["split_columns"], chosen, chosen_strengths)
            cuda.synchronize()

        launch()
        cap = "" if registers is None else f", at most {registers} registers"
        name = f"table policy GPU hands/s (kernel, device data, {threads} threads a block{cap})"
        out[name] = len(hands) / best_of(launch, 2)
        if not np.array_equal(chosen.copy_to_host()[:len(expected)], expected):
            out[name] = "differs from the CPU"
    return out


def self_play_speeds(values, hands: int) -> dict:
    """A self-play pass's hands/s, dealt on the GPU from the seeded stream: the greedy start, then the policy."""
    from cpoker.game.devices import self_play_cuda

    self_play_cuda(1, 0, min(1000, hands), None)  # compiled or loaded
    self_play_cuda(1, 0, min(1000, hands), values.model)
    return {"self-play greedy GPU hands/s (dealt on the GPU)":
            hands / best_of(lambda: self_play_cuda(2026, 0, hands, None), 2),
            "self-play policy GPU hands/s (dealt on the GPU)":
            hands / best_of(lambda: self_play_cuda(2026, 0, hands, values.model), 2)}


def timed_build(options: dict, lists: bool) -> tuple:
    """``(seconds, its NearBestMemory, the tables' bytes)`` of ``build_tables(**options)``, with each hand's
    near-best rows or with none (``memory=0``: every hand searched in every pass)."""
    from cuda_check import memories_made

    from cpoker.jobs.selfplay import build_tables

    with memories_made(**({} if lists else {"memory": 0})) as made:
        started = time.perf_counter()
        tables = build_tables(**options).to_bytes()
        return time.perf_counter() - started, made[0], tables


FLOOR_HANDS = {"full": 10**7, "quick": 10**7, "tiny": 3}  # hands of late_pass_floor's pass in --target
SIZES = {  # check rows, check hands, evaluation rows, tile, policy hands, CPU policy hands, self-play hands,
    #         build hands, build iterations (None: the default build: the target), match deals (the command:
    #         10x)
    "full": (2_000_000, 50_000, 4_000_000, 25, 2_000_000, 40_000, 10_000_000, 100_000_000, None, 10_000_000),
    "quick": (200_000, 5_000, 10_000_000, 1, 200_000, 40_000, 1_000_000, 1_000_000, None, 100_000),
    "tiny": (50, 3, 200, 1, 2, 2, 3, 20, 2, 2),
}


# the target build's limit (6 times the target).  On an H200 (2026-12-04) the build had not ended at 350 s (its
# self-play 270 s, then the first of 8 rounds with the correction 72 s): to time all of it, give a call of its own
# to build_stages.py alone (docs/scale-out.md)
TARGET_SECONDS = 360
# cuda_check's rows and hands: 92 s on an H200 with every kernel it needs compiled first (100,000 and 2,000 had
# not ended in 60 s)
TARGET_CHECK = (20_000, 500)
# a small build, once with the CUDA kernels' disk cache emptied and once more: the first run's start, and every
# later one's (the simulator: a smaller one)
START_BUILD = {"full": ["--hands", "20000", "--max-iterations", "2", "--removal-deals", "2000"],
               "tiny": ["--hands", "20", "--max-iterations", "1", "--removal-deals", "20"]}
START_SECONDS = 240
# --build-first: the seconds kept from the build for the checks against the CPU (cuda_check at TARGET_CHECK_FIRST,
# the kernels the build compiled then loaded) and a late pass's floor
BUILD_FIRST_KEEP = 110
TARGET_CHECK_FIRST = (2_000, 50)
# the test that fills the GPU from another process and expects a build to stop in one line (skipped without a GPU)
OUT_OF_MEMORY_TEST = ("tests/kernels/test_cuda.py::"
                      "test_a_build_on_a_gpu_another_process_fills_stops_in_one_line_with_status_1")
CUDA_CACHE_FILES = "cuda.build_kernels.*"  # the CUDA kernels' index and data files in numba-cuda's cache folder


class _TimedKernel:
    """A kernel of :func:`cpoker.game.devices.cuda_runtime` that adds the seconds of each launch, the GPU synchronized
    before and after, to ``seconds[name]``."""

    def __init__(self, cuda, kernel, name: str, seconds: dict) -> None:
        self.cuda, self.kernel, self.name, self.seconds = cuda, kernel, name, seconds

    def __getitem__(self, configuration):
        launch = self.kernel[configuration]

        def timed(*arguments):
            self.cuda.synchronize()
            started = time.perf_counter()
            launch(*arguments)
            self.cuda.synchronize()
            self.seconds[self.name] = self.seconds.get(self.name, 0.0) + time.perf_counter() - started

        return timed


def kernel_seconds(function) -> tuple[float, dict]:
    """``(seconds, seconds by kernel)`` of one call of ``function``: its whole time, and that of the launches of
    each of cpoker's CUDA kernels in it (the rest is the host's: transfers, allocations, Python)."""
    from cpoker.game.devices import cuda_runtime

    cuda, kernels, _ = cuda_runtime()
    seconds: dict = {}
    plain = dict(kernels)
    kernels.update({name: _TimedKernel(cuda, kernel, name, seconds) for name, kernel in plain.items()})
    try:
        started = time.perf_counter()
        function()
        cuda.synchronize()
        return time.perf_counter() - started, seconds
    finally:
        kernels.update(plain)


def late_pass_floor(models: list, hands: int) -> dict:
    """The floor of a late pass of a build on the GPU, by model (``(name, model listing, model)`` triples):
    ``hands`` hands whose near-best rows were all listed under the first model (the pass's own, or one near it:
    the rounds with the correction add each hand's own drift, which a change of terms makes worth computing),
    so that (almost) every hand is certified: the hands a second (best of 2), the share certified, and one pass
    again with each kernel's time apart from the host's.  Under the correction, with the hands' own drifts summed
    a column at a time and as the CPU sums them (``cpoker._kernels.cuda.DRIFT_BY_COLUMN``).  Then the same in a
    pass after those, under the same model: the splits certified are kept (``kept_split``), nothing valued."""
    from cpoker._kernels import cuda as cuda_kernels
    from cpoker.jobs.nearbest import NearBestMemory, corrected, model_snapshot

    out = {}
    for name, listing, model in models:
        memory = NearBestMemory(hands, 1_000_000, "cuda")
        memory.start_pass(listing)
        memory.listing = True  # (a build's first pass does not list)
        memory.arrange(2026, 0, hands)
        memory.start_pass(model)
        listed = memory.arrange(2026, 0, hands)  # (hands searched in it are listed under the model: each pass after
        # this one is the same)
        try:
            for by_column in (True, False) if corrected(model_snapshot(model)) else (True,):
                cuda_kernels.DRIFT_BY_COLUMN = by_column
                label = f"{name}{'' if by_column else ', drifts summed as on the CPU'}"
                rate, by_kernel = timed_pass(memory, listed, hands)
                out[f"late self-play pass ({label}), GPU hands/s"] = rate
                out[f"late self-play pass ({label}), share certified"] = round(
                    memory.by_pass[-1][1] / max(1, sum(memory.by_pass[-1])), 4)
                out[f"late self-play pass ({label}), seconds by kernel"] = by_kernel
        finally:
            cuda_kernels.DRIFT_BY_COLUMN = True
        memory.start_pass(model)  # a later pass under the same model: the splits certified are kept, nothing valued
        rate, by_kernel = timed_pass(memory, listed, hands)
        out[f"late self-play pass ({name}), splits kept, GPU hands/s"] = rate
        out[f"late self-play pass ({name}), share kept"] = round(
            memory.kept_by_pass[-1] / max(1, sum(memory.by_pass[-1])), 4)
        out[f"late self-play pass ({name}), splits kept, seconds by kernel"] = by_kernel
    return out


def timed_pass(memory, listed: tuple, hands: int) -> tuple:
    """The ``hands`` of ``memory``'s pass arranged again (:func:`late_pass_floor`): ``(hands a second, best of 2, or
    "differs from the first" when the answers are not ``listed``'s; each kernel's seconds apart from the host's)``.
    """
    again = memory.arrange(2026, 0, hands)
    seconds = best_of(lambda: memory.arrange(2026, 0, hands), 2)
    whole, kernels = kernel_seconds(lambda: memory.arrange(2026, 0, hands))
    same = all(np.array_equal(a, b) for a, b in zip(listed, again))
    return (hands / seconds if same else "differs from the first",
            {"hands": hands, "whole": whole, **kernels, "host": whole - sum(kernels.values())})


def floor_models(values) -> list:
    """:func:`late_pass_floor`'s models for tables ``values``: their distribution's without the correction, and
    theirs after a model's with the correction's terms 2% apart (cuda_check's change of terms)."""
    from cpoker.strategies.policy import RowModel

    plain = RowModel.from_distribution(values.distribution, values.rules)
    nearby = RowModel.from_distribution(values.distribution, values.rules, values.model.removal * np.float32(1.02),
                                        values.joint)
    return [("full deck", plain, plain), ("corrected, listed with terms 2% apart", nearby, values.model)]


def versions() -> dict:
    import numba

    out = {"numba": numba.__version__, "numpy": np.__version__, "cpu_count": os.cpu_count()}
    try:
        from importlib.metadata import version

        out["numba-cuda"] = version("numba-cuda")
    except Exception:  # noqa: BLE001 -- the simulator needs no numba-cuda
        out["numba-cuda"] = None
    from cpoker.game.devices import cuda_runtime

    cuda = cuda_runtime()[0]
    try:
        name = cuda.get_current_device().name
        out["device"] = name.decode() if isinstance(name, bytes) else str(name)
    except AttributeError:  # the simulator
        out["device"] = "simulator"
    return out


def cold_and_warm_start(options: list, left=lambda: START_SECONDS) -> dict:
    """``cpoker tables build --device cuda`` with ``options`` in a fresh process, first with no CUDA kernel in the
    disk cache (each compiled at its first launch: a first run), then again (each loaded): seconds of each, the
    cache's size, and whether both wrote the same tables.  The CPU kernels' cache is left as it is (on a fresh
    machine the first run compiles them too).  Each run is let run ``min(START_SECONDS, left())`` seconds."""
    from cpoker.game.devices import cuda_runtime

    stats = getattr(cuda_runtime()[1]["table_policy"], "stats", None)  # the simulator's kernels have none
    folder = Path(stats.cache_path) if stats is not None and stats.cache_path else None  # None: no disk cache
    out: dict = {"command": "cpoker tables build --device cuda " + " ".join(options)}
    for run in ("first run", "later run"):
        if run == "first run" and folder is not None:
            for cached in folder.glob(CUDA_CACHE_FILES):
                cached.unlink()
        done = bounded(["-m", "cpoker", "tables", "build", "--device", "cuda", *options,
                        "--out", f"/tmp/gpu_start_{run[0]}.npz", "--quiet"], min(START_SECONDS, left()))
        if isinstance(done["status"], str):  # stopped at its limit
            out[f"{run} seconds"] = done["status"]
            return out
        out[f"{run} seconds"] = done["seconds"] if done["status"] == 0 else done["stderr"][-2000:]
    if all(isinstance(out[f"{run} seconds"], float) for run in ("first run", "later run")):  # both wrote tables
        out["same tables"] = Path("/tmp/gpu_start_f.npz").read_bytes() == Path("/tmp/gpu_start_l.npz").read_bytes()
    if folder is not None:
        out["CUDA kernel cache MB"] = sum(f.stat().st_size for f in folder.glob(CUDA_CACHE_FILES)) / 1e6
    return out


def bounded(command: list, seconds: float, timeout_message: str = "") -> dict:
    """``command`` (a Python script or module and its arguments) in a fresh process in the repository's root, for
    at most ``seconds``: its status (or how long it was let run), seconds, and the ends of its output."""
    started = time.perf_counter()
    seconds = max(1.0, seconds)
    try:
        done = subprocess.run([sys.executable, *command], capture_output=True, text=True, cwd=ROOT, timeout=seconds,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        status, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        status = f"stopped after {seconds:.0f} s{timeout_message}"
        stdout, stderr = (text.decode() if isinstance(text, bytes) else text or ""
                          for text in (expired.stdout, expired.stderr))
    return {"status": status, "seconds": time.perf_counter() - started, "stdout": stdout, "stderr": stderr}


def target_build(size: str, path: "str | None", seconds: float) -> dict:
    """Issue 11's build, ``cpoker tables build --device cuda --hands 100000000`` (``--tiny``: a small one), in a
    fresh process for at most ``seconds``, timed pass by pass by ``build_stages.py`` (each pass appended to
    ``PATH.events.jsonl`` as it ends, the summary in ``PATH.build.json``; PATH ``/tmp/gpu`` without ``--out``)."""
    hands = SIZES[size][7]
    command = ["tables", "build", "--device", "cuda", "--hands", str(hands), "--out", "/tmp/gpu_tables.npz",
               "--json"]
    if size == "tiny":  # the simulator: a few iterations, a small correction
        command += ["--max-iterations", "2", "--removal-deals", "20", "--removal-rounds", "1"]
    events, report = f"{path or '/tmp/gpu'}.events.jsonl", f"{path or '/tmp/gpu'}.build.json"
    build = bounded([str(ROOT / "benchmarks" / "build_stages.py"), "--events", events, "--report", report, "--",
                     *command], seconds, " (its passes so far: the events file)")
    out = {"command": " ".join(["cpoker", *command]), "hands": hands, "seconds": build["seconds"],
           "status": build["status"], "stdout": build["stdout"][-600:], "stderr": build["stderr"][-3000:]}
    if os.path.exists(report):
        out["stages"] = json.loads(Path(report).read_text())["summary"]
    return out


def target_check(size: str, seconds: float, rows_and_hands: tuple = TARGET_CHECK) -> dict:
    """``tests/support/cuda_check.py`` (the GPU against the CPU) in a fresh process for at most ``seconds``: its report,
    or its status and the end of its errors."""
    rows, check_hands = rows_and_hands if size != "tiny" else SIZES["tiny"][:2]
    check = bounded([str(ROOT / "tests" / "cuda_check.py"), str(rows), str(check_hands)], seconds)
    try:
        out = json.loads(check["stdout"].strip().splitlines()[-1])
    except (ValueError, IndexError):
        out = {"status": check["status"], "stderr": check["stderr"][-3000:]}
    out["seconds"] = check["seconds"]
    return out


def target(size: str, path: "str | None", seconds: float, build_first: bool = False) -> dict:
    """Issue 11's run for a GPU lent for a few minutes, each stage bounded so that all of it ends within
    ``seconds``: a small build's first and later starts (which leave the GPU's kernels compiled in the disk
    cache), issue 11's build timed pass by pass, the GPU against the CPU, a build on a GPU another process fills,
    and then the kernels' speeds for as long as time is left, last a late pass's floor kernel by kernel.

    ``build_first``: issue 11's build first, with all the time but :data:`BUILD_FIRST_KEEP` seconds, then the
    checks against the CPU on small inputs and a late pass's floor."""
    deadline = STARTED + seconds

    def left(keep: float = 0.0) -> float:
        """Seconds until the deadline, keeping ``keep`` for the stages after."""
        return deadline - keep - time.perf_counter()

    started = time.perf_counter()
    out = versions()
    out["seconds allowed"] = seconds
    if build_first:
        out["tables build --device cuda"] = target_build(size, path, left(BUILD_FIRST_KEEP))
        started = stage(out, "tables build", started, path)
        out["correctness"] = target_check(size, left(50), TARGET_CHECK_FIRST)
        started = stage(out, "checked against the CPU", started, path)
        if left() > 20:  # (the kernels the build compiled are loaded from the disk cache)
            from cpoker.strategies.policy import default_tables

            out.update(late_pass_floor(floor_models(default_tables()), FLOOR_HANDS[size]))
            stage(out, "a late pass's floor", started, path)
        return out
    out["start"] = cold_and_warm_start(START_BUILD["tiny" if size == "tiny" else "full"], lambda: left(300))
    started = stage(out, "a small build with the GPU's kernels compiled, then loaded", started, path)

    out["tables build --device cuda"] = target_build(size, path, min(TARGET_SECONDS, left(150)))
    started = stage(out, "tables build", started, path)

    out["correctness"] = target_check(size, min(150, left(60)))
    started = stage(out, "checked against the CPU", started, path)

    if size != "tiny":  # the simulator has no memory to run out of
        test = bounded(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-rs", "-s",
                        OUT_OF_MEMORY_TEST], min(120, left(60)))
        out["out of memory test"] = {"status": test["status"], "seconds": test["seconds"],
                                     "output": test["stdout"][-1500:]}
        started = stage(out, "a build on a GPU another process fills", started, path)

    # the kernels' speeds, in this process, a stage at a time while time is left (the JSON kept after each)
    from cpoker.game.devices import cuda_runtime
    from cpoker.strategies.policy import default_tables
    from cpoker.game.dealing import sample_hands

    quick = SIZES["quick" if size != "tiny" else "tiny"]
    cuda, kernels, tables = cuda_runtime()
    if left() > 60:
        uniforms = np.random.default_rng(1).random((quick[2], 52), dtype=np.float32)
        ids = np.argpartition(uniforms, 7, axis=1)[:, :7].astype(np.uint8)
        del uniforms
        masks5 = np.bitwise_or.reduce(np.int64(1) << ids[:, :5].astype(np.int64), axis=1)
        out.update(measure_evaluation(cuda, kernels, "5-card", masks5, 5, 4 if size != "tiny" else 1))
        started = stage(out, "5-card evaluation", started, path)
    values = default_tables()
    if left() > 60:
        out.update(table_policy_speeds(cuda, kernels, tables, values, sample_hands(quick[4], 7), quick[5],
                                       VARIANTS[:3], budgets=(16, None)))
        started = stage(out, "table policy", started, path)
    if left() > 30:
        out.update(self_play_speeds(values, quick[6]))
        started = stage(out, "self-play passes", started, path)
    if left() > 60:  # a late pass's floor (the H200's 10**8 builds: 0.9-1.4 s a pass, 17 s with the correction):
        out.update(late_pass_floor(floor_models(values), FLOOR_HANDS[size]))
        started = stage(out, "a late pass's floor", started, path)
    return out


def main(size: str, path: "str | None" = None) -> dict:
    import cuda_check

    from cpoker.game.devices import cuda_runtime
    from cpoker.strategies.policy import arrange_by_tables, default_tables
    from cpoker.game.dealing import sample_hands

    started = time.perf_counter()
    out = versions()
    cuda, kernels, tables = cuda_runtime()
    (check_rows, check_hands, rows, tile, policy_hands, cpu_policy_hands, self_play_hands, build_hands,
     build_iterations, match_deals) = SIZES[size]
    out["correctness"] = cuda_check.main(check_rows, check_hands)
    out["compile_and_check_seconds"] = time.perf_counter() - started
    started = stage(out, "compiled and checked against the CPU", started, path)

    # 5-card and 7-card evaluation: 10M distinct random hands, tiled on the device to 100M
    uniforms = np.random.default_rng(1).random((rows, 52), dtype=np.float32)
    ids5 = np.argpartition(uniforms, 7, axis=1)[:, :7].astype(np.uint8)  # 7 distinct cards a row
    del uniforms
    masks5 = np.bitwise_or.reduce(np.int64(1) << ids5[:, :5].astype(np.int64), axis=1)
    masks7 = np.bitwise_or.reduce(np.int64(1) << ids5.astype(np.int64), axis=1)
    for name, masks, n_cards in (("5-card", masks5, 5), ("7-card", masks7, 7)):
        out.update(measure_evaluation(cuda, kernels, name, masks, n_cards, tile))
        started = stage(out, f"{name} evaluation", started, path)

    # the table policy
    values = default_tables()
    hands = sample_hands(policy_hands, 7)
    out.update(table_policy_speeds(cuda, kernels, tables, values, hands, cpu_policy_hands,
                                   variants=VARIANTS if out["device"] != "simulator" else VARIANTS[:3]))
    started = stage(out, "table policy", started, path)

    # self-play passes: hands dealt on the GPU from the seeded stream (greedy start, then the policy)
    out.update(self_play_speeds(values, self_play_hands))
    from cpoker._kernels.search import UNLIMITED_SEARCHES
    from cpoker.game.devices import self_play_cuda
    from cpoker.strategies.policy import RowModel, arrange_greedy
    from cpoker.game.dealing import sample_block

    full_deck = RowModel.from_distribution(values.distribution, values.rules)  # the passes before the correction
    for budget in (8, 16, 32, UNLIMITED_SEARCHES):
        label = budget if budget < UNLIMITED_SEARCHES else "none"
        for name, model in (("corrected", values.model), ("full deck", full_deck)):
            key = f"self-play policy GPU hands/s ({name}, search budget {label})"
            out[key] = self_play_hands / best_of(
                lambda budget=budget, model=model: self_play_cuda(2026, 0, self_play_hands, model, budget), 2)
            count = min(self_play_hands, 100_000)
            if not np.array_equal(self_play_cuda(2026, 0, count, model, budget)[0],
                                  arrange_by_tables(sample_block(2026, 0, count), model)[0]):
                out[key] = "differs from the CPU"
    # self-play with near-best rows (cpoker.jobs.nearbest): iterations of a build with the lists on the GPU, then two
    # rounds with the card-removal correction, then the same with none (every hand searched in every pass): the
    # same tables, checked, and the time of each, with the share of hands certified pass by pass
    iterations = 3 if size == "tiny" else 20
    options = dict(hands=self_play_hands, seed=2026, max_iterations=iterations, tolerance=0,
                   removal_deals=20 if size == "tiny" else 20_000, removal_rounds=2, device="cuda")
    built = {}
    for lists in (True, False):
        seconds, memory, built[lists] = timed_build(options, lists)
        key = (f"self-play {iterations} iterations and 2 rounds with the correction, {self_play_hands} hands, GPU, "
               f"{'with' if lists else 'no'} lists")
        out[key] = {"seconds": seconds, "hands searched": memory.searched, "hands certified": memory.certified,
                    "share certified by pass": [round(certified / max(1, searched + certified), 3)
                                                for searched, certified in memory.by_pass]}
    out["self-play with near-best rows: the same tables"] = built[True] == built[False]
    out.update(late_pass_floor(floor_models(values), self_play_hands))
    sample_block(1, 0, 100)
    arrange_greedy(hands[:100])
    out[f"dealing CPU hands/s ({os.cpu_count()} cores)"] = 10 * cpu_policy_hands / best_of(
        lambda: sample_block(2026, 0, 10 * cpu_policy_hands), 2)
    out[f"self-play greedy CPU hands/s ({os.cpu_count()} cores)"] = cpu_policy_hands / best_of(
        lambda: arrange_greedy(sample_block(2026, 0, cpu_policy_hands)), 2)
    started = stage(out, "self-play passes", started, path)

    # matches and simulations: dealt on the host (every core), arranged on the GPU ~2**18 hands a call
    import cpoker

    hand = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
    for device in ("cuda", "cpu"):  # compiled and warm
        cpoker.match(["table", "greedy"], deals=min(1000, match_deals), seed=1, device=device)
        cpoker.simulate(hand, opponents=3, samples=min(1000, match_deals), seed=1, device=device)
    for device, deals in (("GPU", match_deals), (f"CPU, {os.cpu_count()} cores", max(1000, match_deals // 100))):
        name = "cuda" if device == "GPU" else "cpu"
        seconds = best_of(lambda deals=deals, name=name: cpoker.match(["table", "greedy"], deals=deals, seed=1,
                                                                      device=name), 1)
        out[f"match table-greedy deals/s ({device})"] = deals / seconds
        seconds = best_of(lambda deals=deals, name=name: cpoker.simulate(hand, opponents=3, samples=deals, seed=1,
                                                                         device=name), 1)
        out[f"simulate 3 opponents samples/s ({device})"] = deals / seconds
    started = stage(out, "matches and simulations", started, path)

    command = [sys.executable, "-m", "cpoker", "match", "table", "greedy", "--deals", str(10 * match_deals),
               "--device", "cuda", "--seed", "1", "--json"]
    match_started = time.perf_counter()
    played = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    out["match --device cuda"] = {"deals": 10 * match_deals, "seconds": time.perf_counter() - match_started,
                                  "status": played.returncode, "stdout": played.stdout[-400:],
                                  "stderr": played.stderr[-300:]}
    started = stage(out, "cpoker match --device cuda", started, path)

    # a self-play build on the GPU, in a fresh process (the command a user runs)
    command = [sys.executable, "-m", "cpoker", "tables", "build", "--device", "cuda", "--hands", str(build_hands),
               "--out", "/tmp/gpu_tables.npz", "--json"]
    if build_iterations is not None:
        command += ["--max-iterations", str(build_iterations), "--tolerance", "0"]
    if size == "tiny":  # the simulator: the correction is learned on the (simulated) GPU too
        command += ["--removal-deals", "20", "--removal-rounds", "1"]
    started = time.perf_counter()
    build = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    out["tables build --device cuda"] = {"hands": build_hands, "iterations": build_iterations,
                                         "seconds": time.perf_counter() - started, "status": build.returncode,
                                         "stderr": build.stderr[-300:]}
    stage(out, "tables build", started, path)
    return out


if __name__ == "__main__":
    size = "quick" if "--quick" in sys.argv else "tiny" if "--tiny" in sys.argv else "full"
    path = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    if "--target" in sys.argv:
        seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 900.0
        print(json.dumps(target(size, path, seconds, "--build-first" in sys.argv), indent=1))
    else:
        print(json.dumps(main(size, path), indent=1))
