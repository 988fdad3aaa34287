"""``cpoker compile``: every kernel compiled ahead, so that no command compiles one after it.

Real processes on an empty kernel cache (``NUMBA_CACHE_DIR``): ``cpoker compile``
fills it, then commands of every kind, under every preset and with options the
compile step does not use itself, run in a new process that counts numba's
compilations of cpoker's kernels (numba's ``numba:compile`` event fires for a
kernel compiled, not for one loaded from the cache): there must be none.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import cpoker
from cpoker.system.errors import OptionError, RulesError
from cpoker.jobs.precompile import compile_kernels

HAND = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"
ARRANGEMENT = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"

# the commands a user runs, with sizes and options of their own (not those of cpoker.jobs.precompile's jobs)
COMMANDS = [
    ["eval", "As Ks Qs Js Ts"],
    ["eval", "7h 7d 2c"],
    ["score", "--player", ARRANGEMENT, "--player", "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As",
     "--player", "Qs Qh Kd / 8c 8d 8h 4c 4s / Ah Kh 9h 6h 7h", "--rules", "seed001-royalties"],
    ["natural", HAND, "--rules", "seed001-royalties"],
    ["deal", "--players", "3", "--seed", "4"],
    ["solve", HAND, "--seed", "2", "--samples", "300"],
    ["solve", HAND, "--seed", "2", "--samples", "9000", "--opponents", "2", "--rules", "2-4"],
    ["solve", HAND, "--method", "table", "--rules", "1-6"],
    ["solve", HAND, "--seed", "2", "--samples", "500", "--rules", "seed001-royalties", "--opponent", "greedy",
     "--compare", "As Kd Qh / 6s 5d 4h 3c 2s / Jc Ts 9d 8h 7c"],
    ["simulate", ARRANGEMENT, "--opponents", "2", "--samples", "3000", "--rules", "1-6", "--seed", "2"],
    ["simulate", ARRANGEMENT, "--samples", "2000", "--opponent", "table@2-4", "--seed", "2", "--json"],
    ["match", "table", "greedy", "table", "--deals", "700", "--sessions", "3", "--rules", "2-4", "--seed", "2"],
    ["match", "table", "table@pagat", "--deals", "500", "--rules", "seed001-royalties", "--seed", "2"],
    ["exploit", "table", "--hands", "16", "--samples", "100", "--seed", "2", "--rules", "2-4"],
    ["odds", "--row", "back", "--rules", "1-6"],
    ["odds", "--hand", "Qs Qh 4d"],
    ["tables", "build", "--hands", "1000", "--max-iterations", "3", "--removal-deals", "1000", "--removal-rounds",
     "2", "--rules", "1-6", "--seed", "2", "--out", "{tmp}/house.npz"],
    ["tables", "info", "{tmp}/house.npz"],
    ["ofc", "score", "--player", "Qh Qd 2c / 5s 6s 7s 8s Ts / Ah Ad Ac Kd Ks", "--player",
     "Jh Jd 3c / 2s 2h 4d 4c 6d / Th Td Tc 9h 9d", "--rules", "pineapple"],
    ["ofc", "fantasy", *"Ah Kh Qh Jh Th 9s 9d 9c 9h 2c 3d 4s 5s 6s 7d 8d".split(), "--rules", "progressive"],
]

# runs COMMANDS in one process, writing what numba compiled for each (cpoker's kernels only) to a JSON file
COUNTING = """
import json, sys
from numba.core import event

compiled = []

class Counting(event.Listener):
    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        if function.__module__.startswith("cpoker."):
            compiled.append(function.__module__ + "." + function.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Counting())
from cpoker.cli import main

report = []
for argv in json.loads(sys.argv[1]):
    before = len(compiled)
    status = main(argv)
    report.append({"argv": argv, "status": status, "compiled": compiled[before:]})
with open(sys.argv[2], "w") as file:
    json.dump(report, file)
"""


def _cpoker(*argv, env, **options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cpoker", *argv], env=env, capture_output=True, text=True,
                          timeout=900, **options)


def cold_suite_cache() -> "Path | None":
    """The kernel cache of this process and of the commands the suite starts, if nothing is compiled in it yet.

    numba's own, by default the package's ``__pycache__``.  The test below then compiles into it, and the rest of
    the suite loads its kernels instead of compiling them a second time (a cold compile takes 3 minutes on 2
    cores).  conftest runs that test first, so in a new checkout (CI's) the cache is cold and shared; elsewhere
    the test compiles into a cache of its own, as cold.
    """
    from cpoker.jobs.precompile import cache_directory

    directory = cache_directory()
    if directory is None or any(Path(directory).glob("*.nbi")):
        return None
    return Path(directory)


@pytest.mark.slow
def test_after_cpoker_compile_no_command_compiles_a_kernel(tmp_path):
    cache = cold_suite_cache()
    env = dict(os.environ)
    if cache is None:
        cache = tmp_path / "cache"
        env["NUMBA_CACHE_DIR"] = str(cache)
    first = _cpoker("compile", "--json", env=env)
    assert first.returncode == 0, first.stderr
    done = json.loads(first.stdout)
    assert done["compiled"] > 50  # an empty cache: everything compiled here
    assert Path(done["cache_dir"]).is_relative_to(cache) and any(Path(done["cache_dir"]).iterdir())
    assert [job["job"] for job in done["jobs"]][:3] == ["evaluation", "settlement", "solve"]
    assert "solve: " in first.stderr and "kernels compiled" in first.stderr  # a line a job, as it ends

    commands = [[word.replace("{tmp}", str(tmp_path)) for word in argv] for argv in COMMANDS]
    report_path = tmp_path / "report.json"
    ran = subprocess.run([sys.executable, "-c", COUNTING, json.dumps(commands), str(report_path)], env=env,
                         capture_output=True, text=True, timeout=900)
    assert ran.returncode == 0, ran.stderr
    report = json.loads(report_path.read_text())
    assert [(entry["argv"], entry["status"]) for entry in report] == [(argv, 0) for argv in commands]
    assert {" ".join(entry["argv"][:2]): entry["compiled"] for entry in report if entry["compiled"]} == {}

    again = _cpoker("compile", "--quiet", env=env)  # everything loaded from the cache
    assert again.returncode == 0 and again.stderr == ""
    assert again.stdout.startswith("0 kernels compiled in ") and str(cache) in again.stdout


def test_a_ctrl_c_stops_cpoker_compile_after_the_job_it_came_in():
    process = subprocess.Popen([sys.executable, "-m", "cpoker", "compile", "--rules", "pagat"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first_line = process.stderr.readline()  # the first job is done: the next one runs
        assert first_line.startswith("cpoker: evaluation: ")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=600)
    finally:
        process.kill()
    assert process.returncode == 130
    assert err.strip().splitlines()[-1] == "cpoker: interrupted" and out == ""


@pytest.mark.parametrize("argv, message", [
    (["--rules", "nonsense"], "unknown rules preset 'nonsense'"),
    (["--rules", "/nonexistent/house.toml"], "/nonexistent/house.toml"),
    (["--device", "tpu"], "argument --device: invalid choice"),
])
def test_cpoker_compile_refuses_bad_options_in_one_line(argv, message):
    ran = _cpoker("compile", *argv, env=os.environ)
    assert ran.returncode == 2 and ran.stdout == ""
    assert len(ran.stderr.strip().splitlines()) == 1 and message in ran.stderr


def _gpu_usable() -> bool:
    from cpoker.game.devices import cuda_runtime

    try:
        cuda_runtime()
        return True
    except OptionError:
        return False


@pytest.mark.skipif(_gpu_usable(), reason="a GPU is usable here")
def test_cpoker_compile_for_a_gpu_where_none_is_usable_says_so_before_compiling():
    ran = _cpoker("compile", "--device", "cuda", env=os.environ)
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr.startswith("cpoker: error: device='cuda' needs ") and len(ran.stderr.splitlines()) == 1


def test_compile_kernels_refuses_bad_arguments_before_compiling():
    with pytest.raises(RulesError, match="nonsense"):
        compile_kernels(rules="nonsense")
    with pytest.raises(OptionError, match="at least one"):
        compile_kernels(rules=[])
    with pytest.raises(OptionError, match="device"):
        compile_kernels(device="tpu")


@pytest.mark.slow  # (it compiles every command's kernels, some 20 s cold: the full tier, beside the test above)
def test_compile_kernels_reports_each_job_with_the_kernels_it_compiled():
    compile_kernels(rules="pagat")  # (compiled here, or loaded from the package's cache)
    seen = []
    done = compile_kernels(rules=cpoker.Rules.preset("pagat"), report=lambda *step: seen.append(step))
    assert [step[0] for step in seen] == [step[0] for step in done.steps] == [
        "evaluation", "settlement", "solve", "simulate", "match", "exploit", "odds", "tables build",
        "house royalty options", "open face"]
    assert done.compiled == sum(step[2] for step in seen) == 0  # all in this process already
    assert done.seconds == pytest.approx(sum(step[1] for step in seen))
    assert done.cache_dir is not None and os.path.isdir(done.cache_dir)
