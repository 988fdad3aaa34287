import itertools
import json
import os
import shlex
import subprocess
import sys
import textwrap

import pytest

import cpoker
from cpoker.cli import main
from cpoker.system.environment import KERNEL_ADDRESS_SPACE, address_space_needed, kernel_threads, thread_stack_size

HAND = "As Ad Kc Kd Qs Jh Th 9c 7s 6d 4h 3c 2s"
A = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
B = "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_eval_prints_category_description_and_key(capsys):
    status, out, _ = run(capsys, "eval", "As Ks Qs Js Ts")
    assert status == 0 and "royal flush" in out and "straight flush" in out and "key 570425344" in out
    status, out, _ = run(capsys, "eval", "--json", "Kh", "Kd", "9s", "9c", "Ah")
    data = json.loads(out)
    assert data["description"] == "two pair, kings and nines, ace kicker" and data["category"] == "two pair"


def test_score_settles_the_worked_example(capsys):
    status, out, _ = run(capsys, "score", "--player", A, "--player", B)
    assert status == 0 and "player 1: +1" in out and "player 2: -1" in out
    status, out, _ = run(capsys, "score", "--json", "--player", A, "--player", B)
    data = json.loads(out)
    assert [p["result"] for p in data["players"]] == [1, -1] and data["matrix"] == [[0, 1], [-1, 0]]
    assert data["rows"]["1v2"] == {"front": -1, "middle": 1, "back": 1}
    assert data["pairs"]["1v2"] == {"rows": 1, "scoring_bonus": 0, "royalties": 0, "naturals": 0,
                                     "surrender": 0, "total": 1}


def test_score_reads_a_json_file(capsys, tmp_path):
    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps({"players": [A, {"front": "3s 3h 4d", "middle": "6c 6d 8s 5c 2d",
                                                "back": "9c 9d Th Ts As"}]}))
    status, out, _ = run(capsys, "score", "--file", str(deal))
    assert status == 0 and "player 1: +1" in out


def test_score_reports_fouls(capsys):
    foul = "Ks Kh Qd / 4s 4h 8h 5s 2c / 7s 7h 3c Js Jh"
    status, out, _ = run(capsys, "score", "--player", A, "--player", foul)
    assert status == 0 and "player 1: +3" in out and "FOUL: middle" in out


def test_deal_is_seeded(capsys):
    _, first, _ = run(capsys, "deal", "--players", "4", "--seed", "1")
    _, again, _ = run(capsys, "deal", "--players", "4", "--seed", "1", "--json")
    assert first.count("player ") == 4 and json.loads(again)["players"][0] in first and "seed 1" in first
    _, drawn, _ = run(capsys, "deal", "--players", "2")
    seed = int(drawn.split("(seed ")[1].split(":")[0])
    _, replay, _ = run(capsys, "deal", "--players", "2", "--seed", str(seed))
    assert replay == drawn  # a deal without --seed shows the seed that replays it


def test_solve_prints_rows_ev_and_alternatives(capsys):
    status, out, _ = run(capsys, "solve", HAND, "--samples", "300", "--seed", "2")
    assert status == 0 and "EV" in out and "95% interval [" in out and "seed 2" in out and "alternatives:" in out
    for row in ("front", "middle", "back"):
        assert row in out
    status, out, _ = run(capsys, "solve", *HAND.split(), "--samples", "300", "--seed", "2", "--json")
    data = json.loads(out)
    assert data["best"]["foul"] is None and data["samples"] == 300 and len(data["alternatives"]) == 5
    status, out, _ = run(capsys, "solve", HAND, "--method", "table")
    assert status == 0 and "table policy" in out


def test_solve_compare_says_what_your_arrangement_costs(capsys):
    solution = cpoker.solve(HAND, samples=300, seed=2)
    mine = solution.alternatives[1].arrangement.format()
    status, out, _ = run(capsys, "solve", HAND, "--samples", "300", "--seed", "2", "--compare", mine)
    compared = cpoker.solve(HAND, samples=300, seed=2, compare=mine)
    low, high = compared.ev_lost_interval
    assert status == 0 and f"your arrangement: {mine}" in out
    assert f"it costs {compared.ev_lost:.3f} points per deal, 95% interval [{low:.3f}, {high:.3f}]" in out
    status, out, _ = run(capsys, "solve", HAND, "--samples", "300", "--seed", "2", "--compare",
                         solution.best.format(), "--json")
    data = json.loads(out)["compared"]
    assert data["ev_lost"] == 0 and data["ev_lost_interval_95"] == [0, 0]
    status, out, _ = run(capsys, "solve", HAND, "--samples", "300", "--seed", "2", "--compare", solution.best.format())
    assert "it scores as the best one on every sample" in out
    status, out, _ = run(capsys, "solve", HAND, "--method", "table", "--compare", mine)
    assert status == 0 and "below the best" in out


@pytest.mark.parametrize("argv, message", [
    (["eval", "As Ks Xs Js Ts"], "unknown rank 'X'"),
    (["eval", "As Ks"], "3 or 5 cards"),
    (["solve", HAND.rsplit(" ", 1)[0]], "13 cards, got 12"),
    (["solve", HAND + " 5c"], "13 cards, got 14"),
    (["solve", HAND.replace("2s", "As")], "duplicate card As"),
    (["solve", HAND, "--opponents", "4"], "--opponents: must be 1 to 3, got 4"),
    (["solve", HAND, "--samples", "0"], "--samples: must be 1 to 1,000,000,000, got 0"),
    (["solve", HAND, "--samples", "many"], "expected a whole number, got 'many'"),
    (["solve", HAND, "--method", "exact"], "invalid choice"),
    (["solve", HAND, "--compare", "As Ad Kc / Kd Qs Jh Th 9c / 7s 6d 4h 3c 5c"], "card 5c is not in the hand"),
    (["solve", HAND, "--compare", "As Ad / Kd Qs Jh Th 9c / 7s 6d 4h 3c 2s"], "front has 2 cards, needs 3"),
    (["score", "--player", A], "2 to 4 players, got 1"),
    (["score"], "--player"),
    (["score", "--player", A, "--player", A], "held by both"),
    (["score", "--file", "/nonexistent/deal.json"], "cannot read"),
    (["deal", "--players", "5"], "--players: must be 2 to 4, got 5"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_on_stderr_with_status_2(capsys, argv, message):
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse's own errors (bad int, bad choice) exit from parsing
        status = stop.code
    _, err = capsys.readouterr()
    assert status == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_help_has_examples(capsys):
    for command in ("eval", "score", "deal", "solve"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out, _ = capsys.readouterr()
        assert "example: cpoker " + command in out


@pytest.mark.slow  # (the first table build of a run compiles the build's kernels: half a minute cold)
def test_tables_info_and_small_build(capsys, tmp_path):
    status, out, _ = run(capsys, "tables", "info", "--json")
    assert status == 0 and json.loads(out)["hands"] >= 10_000
    target = tmp_path / "t.npz"
    status, out, _ = run(capsys, "tables", "build", "--hands", "200", "--max-iterations", "2", "--quiet",
                         "--removal-deals", "300", "--removal-rounds", "1",
                         "--out", str(target))
    assert status == 0 and target.exists() and "sha256" in out


def test_python_dash_m_entry_point():
    result = subprocess.run([sys.executable, "-m", "cpoker", "eval", "As", "Ks", "Qs", "Js", "Ts"],
                            capture_output=True, text=True)
    assert result.returncode == 0 and "royal flush" in result.stdout
    result = subprocess.run([sys.executable, "-m", "cpoker", "eval", "As"], capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


PEAK = ("import sys\nfrom cpoker.cli import main\nstatus = main(sys.argv[1:])\n"
        "print(status, open('/proc/self/status').read().split('VmPeak:')[1].split()[0])")


def _peak_kb(*argv: str) -> int:
    """The address space (VmPeak, KiB) a real process running ``cpoker *argv`` reached; the command must pass."""
    probe = subprocess.run([sys.executable, "-c", PEAK, *argv], capture_output=True, text=True, timeout=600)
    status, peak_kb = probe.stdout.split()[-2:]
    assert status == "0" and "numba" not in probe.stderr, probe.stderr[-2000:]
    return int(peak_kb)


def _run_limited(limit_kb: int, cwd, *argv: str, timeout: float = 600, env=None) -> subprocess.CompletedProcess:
    """``cpoker *argv`` in a real process under ``ulimit -v limit_kb``."""
    command = shlex.join([sys.executable, "-m", "cpoker", *argv])
    return subprocess.run(["sh", "-c", f"ulimit -v {limit_kb} && exec {command}"], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=env)


@pytest.mark.slow  # (16 s of real processes under ulimit: the full tier)
def test_a_job_this_machine_has_not_the_memory_for_stops_in_one_line_with_status_1(tmp_path):
    """Real processes under a real address-space limit (``ulimit -v``), 256 MB above what a small build took (and
    at least 128 MiB above what the kernels need): a build of 10**8 hands (about 1.5 GB) stops in one line naming
    the allocation, with status 1 (the machine, not the input) and no file or temporary file (numpy's traceback
    before); the small build passes under it."""
    build = ["tables", "build", "--max-iterations", "1", "--removal-rounds", "0", "--removal-deals", "0", "--quiet"]
    peak_kb = _peak_kb(*build, "--hands", "2000", "--out", str(tmp_path / "p.npz"))
    limit_kb = max(peak_kb + 256 * 1024, (address_space_needed() + 128) * 1024)  # over what the kernels need

    def limited(hands: str, out: str):
        return _run_limited(limit_kb, tmp_path, *build, "--hands", hands, "--out", out)

    done = limited("100000000", "big.npz")
    assert done.returncode == 1 and done.stdout == "", done.stderr[-2000:]
    assert done.stderr.startswith("cpoker: error: out of memory (Unable to allocate ") and \
        done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert "fewer hands" in done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["p.npz"]  # nothing written, nothing left
    small = limited("2000", "small.npz")
    assert small.returncode == 0, small.stderr[-2000:]
    assert (tmp_path / "small.npz").read_bytes() == (tmp_path / "p.npz").read_bytes()


@pytest.mark.slow
def test_a_memory_limit_too_small_for_cpoker_is_one_line_that_names_it(tmp_path):
    """Real processes under ``ulimit -v`` limits from 16 MiB above what ``cpoker eval`` (which compiles nothing)
    took up to just below what the kernels and this machine's threads need (:func:`~cpoker.system.environment.
    address_space_needed`, 1 GiB with 2 threads): a solve, a simulation and the server stop in one line that names
    the limit and the need, status 1, before numba is loaded.  Before, depending on the limit: llvmlite's chained
    tracebacks, the traceback of an ImportError (an extension module that could not be mapped) or of a
    SystemError, LLVM aborting mid-compile (SIGABRT, when the kernels were not cached yet), or OpenMP's "Thread
    creation failed".  eval runs under the smallest limit, and a solve under the need, its kernels compiled or
    not."""
    def limited(limit_mb: int, *argv: str):
        return _run_limited(limit_mb * 1024, tmp_path, *argv, timeout=300)

    needed = address_space_needed()
    smallest = _peak_kb("eval", "As Ks Qs Js Ts") // 1024 + 16
    evaluated = limited(smallest, "eval", "As Ks Qs Js Ts")
    assert evaluated.returncode == 0 and "royal flush" in evaluated.stdout, evaluated.stderr
    outcomes = []
    commands = (["solve", HAND, "--samples", "100", "--seed", "1"], ["simulate", A, "--samples", "100"],
                ["serve", "--port", "1"])
    for limit_mb, command in zip([*range(smallest, needed, 32), needed - 1], itertools.cycle(commands)):
        done = limited(limit_mb, *command)
        outcomes.append(f"{limit_mb} MiB: status {done.returncode}, {done.stderr.strip()}")
        assert done.returncode == 1 and done.stdout == "" and done.stderr.count("\n") == 1, outcomes[-1]
        assert done.stderr.startswith(f"cpoker: error: this process may use {limit_mb} MiB of address space "
                                      f"(ulimit -v), and cpoker's compiled kernels need at least {needed} MiB"), \
            outcomes[-1]
        assert "; raise the limit" in done.stderr, outcomes[-1]
    print("\n".join(outcome[:160] for outcome in outcomes))
    solved = limited(needed, "solve", HAND, "--samples", "100", "--seed", "1")
    assert solved.returncode == 0 and "EV" in solved.stdout, solved.stderr[-2000:]


@pytest.mark.slow
def test_the_limit_a_process_needs_grows_with_its_threads_and_their_arenas_are_capped_under_it(tmp_path):
    """64 numba threads, as on a 64-core node (NUMBA_NUM_THREADS here), in real processes under ``ulimit -v``.
    Each thread reserves its stack (8 MiB under the usual ``ulimit -s``): under 1 GiB, enough for 2 threads, a
    solve with 128 of them ended in OpenMP's "Thread creation failed", and a build with 64 in LLVM's
    ``std::bad_alloc`` abort.  Now the need counts them: just below it, one line naming the threads and how many
    would fit, and with that many a solve runs.  Under the need itself a tables build with the card-removal
    correction passes; before, glibc gave each thread a malloc arena reserving 64 MiB (16 of them on 2 cores),
    and that build ran out of memory for a 12.7 MiB array (at 1.5 GiB, twice what it took)."""
    env = {**os.environ, "NUMBA_NUM_THREADS": "64"}
    stack = thread_stack_size()
    needed = KERNEL_ADDRESS_SPACE + 64 * stack
    fitting = (needed - 1 - KERNEL_ADDRESS_SPACE) // stack
    refused = _run_limited((needed - 1) * 1024, tmp_path, "solve", HAND, "--samples", "100", env=env)
    assert refused.returncode == 1 and refused.stdout == "", refused.stderr[-2000:]
    assert refused.stderr == (f"cpoker: error: this process may use {needed - 1} MiB of address space (ulimit -v), "
                              f"and cpoker's compiled kernels need at least {needed} MiB with 64 threads ({stack} MiB "
                              f"of stack each); raise the limit, or run fewer threads (NUMBA_NUM_THREADS={fitting})\n")
    fewer = _run_limited((needed - 1) * 1024, tmp_path, "solve", HAND, "--samples", "100", "--seed", "1",
                         env={**env, "NUMBA_NUM_THREADS": str(fitting)})
    assert fewer.returncode == 0 and "EV" in fewer.stdout, fewer.stderr[-2000:]
    build = ["tables", "build", "--hands", "4000", "--max-iterations", "1", "--removal-deals", "1000",
             "--removal-rounds", "1", "--quiet"]
    built = _run_limited(needed * 1024, tmp_path, *build, "--out", "t.npz", env=env)
    assert built.returncode == 0, built.stderr[-2000:]
    unlimited = subprocess.run([sys.executable, "-m", "cpoker", *build, "--out", "u.npz"], capture_output=True,
                               text=True, timeout=600, cwd=tmp_path)
    assert unlimited.returncode == 0, unlimited.stderr[-2000:]
    assert (tmp_path / "t.npz").read_bytes() == (tmp_path / "u.npz").read_bytes()  # the same tables


def test_the_thread_count_and_stack_size_the_need_counts_are_read_as_numba_and_openmp_read_them(monkeypatch):
    """NUMBA_NUM_THREADS (a whole number from 1 to 4096, or an OptionError), else the CPUs this process may run
    on; OMP_STACKSIZE in KiB unless a unit says otherwise, else the stack limit."""
    import resource

    monkeypatch.delenv("OMP_STACKSIZE", raising=False)
    monkeypatch.delenv("GOMP_STACKSIZE", raising=False)
    for setting in ("7", " 7 ", "4096", "1"):
        monkeypatch.setenv("NUMBA_NUM_THREADS", setting)
        assert kernel_threads() == int(setting)
    for setting in ("0", "-3", "", " ", "abc", "4097", "1e3", "\u00b2", "3.5"):
        monkeypatch.setenv("NUMBA_NUM_THREADS", setting)
        with pytest.raises(cpoker.OptionError, match=r"^NUMBA_NUM_THREADS=.* is not a number of threads: set it "
                                                     r"to a whole number from 1 to 4096, or unset it"):
            kernel_threads()
    monkeypatch.delenv("NUMBA_NUM_THREADS")
    assert kernel_threads() == len(os.sched_getaffinity(0))
    soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
    glibc_default = 2 if soft == resource.RLIM_INFINITY else -(-soft // 2**20)
    assert thread_stack_size() == glibc_default
    for setting, mib in (("64M", 64), ("65536", 64), ("1g", 1024), ("3000k", 3), ("1048576B", 1), ("100", 1)):
        monkeypatch.setenv("OMP_STACKSIZE", setting)
        assert thread_stack_size() == mib, setting
    monkeypatch.setenv("OMP_STACKSIZE", "lots")  # not a size: OpenMP ignores it, and so does the need
    assert thread_stack_size() == glibc_default
    monkeypatch.setenv("OMP_STACKSIZE", "64M")
    monkeypatch.setenv("NUMBA_NUM_THREADS", "4")
    assert address_space_needed() == KERNEL_ADDRESS_SPACE + 4 * 64


def test_a_numba_thread_count_that_is_no_number_of_threads_is_one_line_and_status_2():
    """Real processes: NUMBA_NUM_THREADS=0 was numba's traceback, an empty one a warning carrying a traceback,
    100000 a segmentation fault; now one line naming the setting, status 2, for a command that runs kernels and
    for the server, and an OptionError from the library, raised again on the next call.  eval needs no kernel
    and runs."""
    for setting, argv in (("0", ["solve", HAND, "--samples", "100"]), ("", ["simulate", A, "--samples", "100"]),
                          ("100000", ["match", "table", "greedy", "--deals", "500"]), ("-1", ["serve", "--port", "1"])):
        done = subprocess.run([sys.executable, "-m", "cpoker", *argv], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "NUMBA_NUM_THREADS": setting})
        assert done.returncode == 2 and done.stdout == "", done.stderr[-2000:]
        assert done.stderr == (f"cpoker: error: NUMBA_NUM_THREADS={setting!r} is not a number of threads: set it to a "
                               f"whole number from 1 to 4096, or unset it to use every core\n"), done.stderr[-2000:]
    script = textwrap.dedent("""
        import cpoker
        print(cpoker.evaluate("As Ks Qs Js Ts").describe())
        for attempt in range(2):
            try:
                cpoker.solve("As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s", samples=100, seed=1)
            except cpoker.OptionError as error:
                print(error)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "NUMBA_NUM_THREADS": "0"})
    refusal = "NUMBA_NUM_THREADS='0' is not a number of threads: set it to a whole number from 1 to 4096, or unset it"
    assert result.returncode == 0 and result.stdout.count(refusal) == 2, result.stdout + result.stderr[-2000:]
    assert result.stdout.startswith("royal flush\n")


def test_the_library_refuses_kernels_under_a_memory_limit_too_small_for_them():
    """A real process limited to 512 MiB: evaluating and parsing work; a solve raises cpoker.MemoryLimitError (a
    MemoryError) naming the limit before numba is loaded, and again on a second call."""
    script = textwrap.dedent("""
        import resource, sys
        import cpoker
        resource.setrlimit(resource.RLIMIT_AS, (512 * 2**20, resource.RLIM_INFINITY))
        print(cpoker.evaluate("As Ks Qs Js Ts").describe())
        for attempt in range(2):
            try:
                cpoker.solve("As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s", samples=100, seed=1)
            except cpoker.MemoryLimitError as error:
                print(isinstance(error, MemoryError), "numba" in sys.modules, error)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    refusal = (f"True False this process may use 512 MiB of address space (ulimit -v), and cpoker's compiled kernels "
               f"need at least {address_space_needed()} MiB")
    lines = result.stdout.splitlines()
    assert lines[0] == "royal flush" and len(lines) == 3 and lines[1] == lines[2], result.stdout
    assert lines[1].startswith(refusal) and lines[1].endswith("; raise the limit"), result.stdout


def test_output_to_a_stream_that_is_not_utf8_is_spelled_in_ascii_not_a_crash():
    """A real process whose stdout is ASCII (a cp1252 console, PYTHONIOENCODING=ascii): the result, not a traceback."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    for argv, expected in ((["eval", "As Ks Qs Js Ts", "--symbols"], "As Ks Qs Js Ts: royal flush"),
                           (["simulate", A, "--samples", "200", "--seed", "1"], "| ###")):
        result = subprocess.run([sys.executable, "-m", "cpoker", *argv], capture_output=True, env=env, timeout=300)
        assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr[-500:]
        assert result.stdout.isascii() and expected in result.stdout.decode()


def test_the_command_line_collects_garbage_rarely_and_exits_with_everything_frozen():
    """The start-up settings of cpoker._entry (see its docstring): at exit, after the command, the collector's
    first threshold is 200,000 and the objects left are frozen, so the interpreter's final collections skip
    them; the command's output is complete."""
    script = ("import atexit, gc, sys; sys.argv = ['cpoker', 'eval', 'As Ks Qs Js Ts']; "
              "atexit.register(lambda: print('gc', gc.get_threshold()[0], gc.get_freeze_count() > 0)); "
              "from cpoker._entry import run; run()")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "royal flush" in result.stdout.lower() and result.stdout.splitlines()[-1] == "gc 200000 True"


def test_a_solve_imports_only_what_it_uses():
    """A command's start is part of its cost: a solve that shows no progress bar (off a terminal) never imports
    tqdm, nor the one-hand policy kernel that only ``cpoker.table(hand)`` uses."""
    code = ("import sys\nfrom cpoker.cli import main\n"
            f"status = main(['solve', {HAND!r}, '--samples', '50'])\n"
            "print(status, 'tqdm' in sys.modules, 'cpoker._kernels.packed' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-800:]
    assert "best arrangement" in done.stdout and done.stderr.splitlines()[-1] == "0 False False"


@pytest.mark.parametrize("value, spec, shown", [
    (-0.0001, "+.3f", "+0.000"), (-0.0001, ".3f", "0.000"), (-0.00001, ">+9.4f", "  +0.0000"), (-0.0, ".4f", "0.0000"),
    (-0.0006, ".3f", "-0.001"), (-0.5, "+.3f", "-0.500"), (0.0, "+.3f", "+0.000"), (-12.0004, ">+9.3f", "  -12.000"),
])
def test_numbers_are_printed_without_a_negative_zero(value, spec, shown):
    from cpoker.cli.common import fixed

    assert fixed(value, spec) == shown

