"""Ctrl-C and SIGTERM, sent as real signals to real processes.

A signal must never surface inside a numba kernel (where it used to become a
``SystemError`` and lose the work).  Long jobs stop at the next block and
return their partial result, marked partial; anything else ends with one line,
``cpoker: interrupted``, and status 128 + the signal number.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import numpy as np
import pytest

import cpoker
from cpoker import Interrupted
from cpoker.jobs.simulate import DEAL_CHUNK, SAMPLE_CHUNK, match, simulate

A = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
HAND = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"
ROOT = Path(__file__).resolve().parents[2]
# the SIGINT handler a job must leave as it found: Python's default_int_handler, or SIG_IGN in a process started in
# the background (a shell's `pytest &`), which cpoker keeps ignoring outside its jobs
SIGINT_HANDLER = signal.getsignal(signal.SIGINT)


class SignalAfter:
    """A plug-in strategy that plays greedy and sends this process a real signal on its ``limit``-th hand (0: never)."""

    __name__ = "signal_after"

    def __init__(self, limit: int = 0, signum: int = signal.SIGINT):
        self.limit, self.signum, self.calls = limit, signum, 0

    def __call__(self, hand):
        self.calls += 1
        if self.calls == self.limit:
            os.kill(os.getpid(), self.signum)
        return cpoker.greedy(hand)


WARM_UP_HANDS = 2  # simulate and match arrange one 2-deal block before timing (compilation)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_a_simulation_after_the_block_in_flight(signum):
    before = signal.getsignal(signum)
    stopper = SignalAfter(WARM_UP_HANDS + SAMPLE_CHUNK + 10, signum)  # during the second block
    result = simulate(A, samples=5 * SAMPLE_CHUNK, seed=1, opponent=stopper)
    assert result.partial and result.samples == 2 * SAMPLE_CHUNK and result.requested_samples == 5 * SAMPLE_CHUNK
    full = simulate(A, samples=2 * SAMPLE_CHUNK, seed=1, opponent="greedy")
    assert (result.ev, result.distribution) == (full.ev, full.distribution)  # exactly the blocks of a shorter run
    assert signal.getsignal(signum) is before  # the handlers are restored


def test_a_signal_stops_a_match_and_the_solver():
    hands_per_block = 2 * DEAL_CHUNK  # two seats
    played = match([SignalAfter(2 * WARM_UP_HANDS + hands_per_block + 10), "greedy"], deals=5 * DEAL_CHUNK, seed=1)
    assert played.partial and played.deals == 2 * DEAL_CHUNK and played.requested_deals == 5 * DEAL_CHUNK
    solved = cpoker.solve(HAND, samples=20_000, seed=3, opponent=SignalAfter(6_000))
    assert solved.partial and solved.samples < 20_000 and solved.requested_samples == 20_000
    assert solved.stderr > 0 and not solved.best.is_foul


class SolvingStrategy:
    """Arranges each hand with :func:`cpoker.solve`, as the ``mc`` strategy does, against ``opponent``."""

    __name__ = "solving"

    def __init__(self, opponent):
        self.opponent = opponent

    def __call__(self, hand):
        return cpoker.solve(hand, samples=20, seed=0, opponent=self.opponent).best


def test_a_signal_inside_a_strategys_own_solve_is_the_matchs(monkeypatch):
    """A strategy that solves each hand (as ``mc`` does) runs cpoker jobs inside the match's block: the signal is
    the match's, which drops that block.  The inner solve used to take it as its own (after its last block, the
    end of a complete solve), and the match played on to its end."""
    from cpoker.jobs import simulate as simulation

    monkeypatch.setattr(simulation, "DEAL_CHUNK", 2)
    calls = []
    for deals in (2, 4):
        counting = SignalAfter()
        match([SolvingStrategy(counting), "greedy"], deals=deals, seed=1)
        calls.append(counting.calls)
    per_block = calls[1] - calls[0]
    first_block_ends = calls[0]  # the warm-up and the first block
    stopper = SignalAfter(first_block_ends + per_block // 2)  # inside an inner solve of the second block
    played = match([SolvingStrategy(stopper), "greedy"], deals=8, seed=1)
    assert played.partial and played.deals == 2 and played.requested_deals == 8
    full = match([SolvingStrategy(SignalAfter()), "greedy"], deals=2, seed=1)
    assert [s.points for s in played.scores] == [s.points for s in full.scores]
    assert stopper.calls < first_block_ends + per_block  # the second block was dropped, not played to its end
    with pytest.raises(Interrupted):  # in the first block: nothing to return
        match([SolvingStrategy(SignalAfter(first_block_ends - per_block // 2)), "greedy"], deals=8, seed=1)


def test_a_signal_before_the_first_block_raises_interrupted():
    with pytest.raises(Interrupted) as stop:
        simulate(A, samples=3 * SAMPLE_CHUNK, seed=1, opponent=SignalAfter(1))
    assert isinstance(stop.value, KeyboardInterrupt) and stop.value.signum == signal.SIGINT
    assert signal.getsignal(signal.SIGINT) is SIGINT_HANDLER


def test_the_shield_holds_a_real_signal_until_the_outermost_block_ends():
    """Nested blocks share one shield; off the main thread there is none; an error in the block wins."""
    import threading

    from cpoker.system.interrupts import shielded

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as stop:
        with shielded() as outer:
            with shielded() as inner:
                assert inner is outer and signal.getsignal(signal.SIGINT) != before[0]
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.01)  # (the handler runs at the next bytecode: it only records the signal)
            assert outer.pending == signal.SIGTERM  # the inner block ended without raising
    assert stop.value.signum == signal.SIGTERM
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    seen = []
    worker = threading.Thread(target=lambda: seen.append(shielded().__enter__()))
    worker.start()
    worker.join()
    assert seen == [None] and signal.getsignal(signal.SIGINT) is before[0]  # off the main thread: nothing
    with pytest.raises(ValueError, match="a failure in the block"):
        with shielded():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)
            raise ValueError("a failure in the block")
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def _signal_on_call(function, call: int, signum: int = signal.SIGINT):
    """``function``, sending this process a real signal on its ``call``-th call (before running it)."""
    calls = []

    def wrapped(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            os.kill(os.getpid(), signum)
        return function(*args, **kwargs)

    return wrapped


def test_a_signal_after_the_last_block_of_a_solve_keeps_its_complete_result(monkeypatch):
    """A real SIGINT while the best candidates' statistics are computed, after every block of samples."""
    from cpoker._kernels import montecarlo

    whole = cpoker.solve(HAND, samples=3_000, seed=3)  # (also loads the kernels: no signal in the warm-up)
    monkeypatch.setattr(montecarlo, "candidate_results", _signal_on_call(montecarlo.candidate_results, 1))
    try:
        solved = cpoker.solve(HAND, samples=3_000, seed=3)
    except Interrupted:  # (a KeyboardInterrupt: it would end the whole test session)
        pytest.fail("the solve raised Interrupted and lost its complete result")
    assert not solved.partial and solved.samples == 3_000 and solved.stderr > 0
    assert (solved.ev, solved.best) == (whole.ev, whole.best)
    assert signal.getsignal(signal.SIGINT) is SIGINT_HANDLER


TABLES_BUILD = ("tables", "build", "--hands", "300", "--max-iterations", "6", "--tolerance", "0", "--json",
                "--removal-deals", "300", "--removal-rounds", "1")


def test_a_signal_between_self_play_passes_returns_the_tables_so_far(monkeypatch):
    """While the next iteration's model is made (no block in flight) the build stops and keeps its tables."""
    from cpoker.strategies.policy import RowModel
    from cpoker.jobs.selfplay import build_tables

    full = build_tables(hands=300, max_iterations=2, tolerance=0, removal_deals=0)
    # made once after the greedy start, then once per iteration: the third is iteration 2's new model
    monkeypatch.setattr(RowModel, "from_distribution", _signal_on_call(RowModel.from_distribution, 3))
    try:
        stopped = build_tables(hands=300, max_iterations=6, tolerance=0, removal_deals=0)
    except Interrupted:  # (a KeyboardInterrupt: it would end the whole test session)
        pytest.fail("the build raised Interrupted and lost the tables of its two completed iterations")
    assert stopped.partial and stopped.iterations == 2 and not full.partial
    assert np.array_equal(stopped.distribution, full.distribution)
    assert signal.getsignal(signal.SIGINT) is SIGINT_HANDLER


def test_a_signal_while_the_correction_is_learned_stops_the_build_at_once(monkeypatch):
    """The card-removal terms' deals run in blocks of 5,000 (hours of them at --removal-deals 10**8): a signal
    drops the terms in flight after the block it came in and returns the self-play's tables, partial, to resume."""
    from cpoker.jobs import removal_learning
    from cpoker.jobs.selfplay import build_tables

    self_play = build_tables(hands=300, max_iterations=2, tolerance=0, removal_deals=0)
    blocks = []
    sample = removal_learning.removal_sample

    def signal_on_the_second_block(seed, start, count):
        blocks.append(start)
        if len(blocks) == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return sample(seed, start, count)

    monkeypatch.setattr(removal_learning, "removal_sample", signal_on_the_second_block)
    try:
        stopped = build_tables(hands=300, max_iterations=2, tolerance=0, removal_deals=20_000, removal_rounds=0)
    except Interrupted:  # (a KeyboardInterrupt: it would end the whole test session)
        pytest.fail("the build raised Interrupted and lost the tables of its completed self-play")
    assert blocks == [0, 5_000]  # of four
    assert stopped.partial and stopped.iterations == 2 and stopped.removal is None
    assert np.array_equal(stopped.distribution, self_play.distribution)
    assert signal.getsignal(signal.SIGINT) is SIGINT_HANDLER


def test_a_signal_while_a_learning_certifies_from_its_lists_stops_the_build_at_once(monkeypatch):
    """The learnings of the correction after the first keep their hands' near-best rows (on a CPU,
    ``removal_learning.learning_lists``): a real
    SIGINT in the last learning, in a block certified from those lists, drops
    the terms in flight and returns the self-play's tables, partial, as in any other learning."""
    from cuda_check import memories_made

    from cpoker.jobs import removal_learning
    from cpoker.jobs.selfplay import build_tables

    self_play = build_tables(hands=300, max_iterations=2, tolerance=0, removal_deals=0)
    blocks = []
    sample = removal_learning.removal_sample

    def signal_in_the_third_learning(seed, start, count):  # two blocks a learning, then the last's eight
        blocks.append(start)
        if len(blocks) == 6:
            os.kill(os.getpid(), signal.SIGINT)
        return sample(seed, start, count)

    monkeypatch.setattr(removal_learning, "removal_sample", signal_in_the_third_learning)
    with memories_made() as made:
        try:
            stopped = build_tables(hands=300, max_iterations=2, tolerance=0, removal_deals=40_000, removal_rounds=2)
        except Interrupted:  # (a KeyboardInterrupt: it would end the whole test session)
            pytest.fail("the build raised Interrupted and lost the tables of its completed self-play")
    assert blocks == [0, 5_000] * 3  # the last learning stopped after the block the signal came in
    learning = made[-1]
    assert len(learning.by_pass) == 3 and learning.by_pass[-1][1] > 0  # its last pass certified from the lists
    assert stopped.partial and stopped.iterations == 2 and stopped.removal is None and not stopped.removal_rounds
    assert np.array_equal(stopped.distribution, self_play.distribution)
    assert signal.getsignal(signal.SIGINT) is SIGINT_HANDLER


def test_a_command_that_has_its_result_reports_it_whatever_signal_comes_next(monkeypatch, tmp_path, capsys):
    """Real signals while ``tables build`` ends a pass, flushes its file to disk, takes the file's digest."""
    from cpoker import PolicyTables, cli
    from cpoker.system import files
    from cpoker.cli import tables as tables_command
    from cpoker.strategies.policy import RowModel

    out = tmp_path / "t.npz"
    # between passes: the build stops; its partial tables are written and reported
    with monkeypatch.context() as patch:
        patch.setattr(RowModel, "from_distribution", _signal_on_call(RowModel.from_distribution, 3))
        assert cli.main([*TABLES_BUILD, "--out", str(out)]) == 130
    reported = json.loads(capsys.readouterr().out)
    assert reported["partial"] and reported["iterations"] == 2 == PolicyTables.load(out).iterations
    # after the build, while the file is flushed, or once it is written: the complete build is reported
    for owner, name, signum in ((files.os, "fsync", signal.SIGTERM), (tables_command, "_sha256", signal.SIGINT)):
        out.unlink()
        with monkeypatch.context() as patch:
            patch.setattr(owner, name, _signal_on_call(getattr(owner, name), 1, signum))
            assert cli.main([*TABLES_BUILD, "--out", str(out)]) == 128 + signum
        captured = capsys.readouterr()
        reported = json.loads(captured.out)
        assert captured.err == "" and not reported["partial"] and reported["iterations"] == 6
        assert PolicyTables.load(out).iterations == 6 and [p.name for p in tmp_path.iterdir()] == ["t.npz"]
    # before any result (the first pass has no block done): nothing is written
    out.unlink()
    with monkeypatch.context() as patch:
        patch.setattr(files, "check_writable", _signal_on_call(files.check_writable, 1))
        assert cli.main([*TABLES_BUILD, "--out", str(out)]) == 130
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "cpoker: interrupted\n" and not list(tmp_path.iterdir())


# --- whole processes -------------------------------------------------------------------------

def _cpoker(*args: str) -> list[str]:
    return [sys.executable, "-m", "cpoker", *args]


LONG_RUNS = {
    "simulate": lambda out: _cpoker("simulate", A, "--samples", "3000000", "--seed", "1", "--jobs", "1",
                                    "--out", str(out / "r.json")),
    "match": lambda out: _cpoker("match", "table", "greedy", "--deals", "3000000", "--seed", "1", "--jobs", "1",
                                 "--sessions", "100", "--out", str(out / "r.json")),
    "tables": lambda out: _cpoker("tables", "build", "--hands", "8000", "--max-iterations", "200", "--tolerance", "0",
                                  "--json",
                                  "--out", str(out / "t.npz")),
    "solve": lambda out: _cpoker("solve", HAND, "--samples", "3000000", "--seed", "1", "--json"),
    "exploit": lambda out: _cpoker("exploit", "greedy", "--hands", "100000", "--samples", "200", "--seed", "1",
                                   "--jobs", "1", "--out", str(out / "r.json")),
}


def _check_outcome(name: str, returncode: int, stdout: str, stderr: str, out: Path, signum: int) -> str:
    """Accept only the documented outcomes; returns which one happened."""
    assert "Traceback" not in stderr and "Error" not in stderr, stderr
    assert returncode == 128 + signum, (returncode, stderr)
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(".")]
    assert not leftovers, leftovers  # no temporary file is ever left behind
    if not stdout:
        assert stderr == "cpoker: interrupted\n"
        assert not list(out.iterdir())  # nothing written
        return "interrupted"
    if name in ("simulate", "match", "exploit"):
        saved = json.loads((out / "r.json").read_text())
        assert ("PARTIAL" in stdout) == saved["partial"]
        return "partial" if saved["partial"] else "complete"
    result = json.loads(stdout)
    if name == "tables":
        from cpoker import PolicyTables

        tables = PolicyTables.load(out / "t.npz")
        assert tables.partial == result["partial"] and tables.iterations == result["iterations"] >= 1
    return "partial" if result["partial"] else "complete"


@pytest.mark.signals
@pytest.mark.parametrize("name", [name if name == "simulate" else pytest.param(name, marks=pytest.mark.slow)
                                  for name in sorted(LONG_RUNS)])
def test_real_signals_at_several_moments_give_only_clean_outcomes(name, tmp_path):
    outcomes = []
    for delay, signum in ((0.15, signal.SIGINT), (0.6, signal.SIGTERM), (4.0, signal.SIGINT)):
        out = tmp_path / f"{name}-{delay}"
        out.mkdir()
        process = subprocess.Popen(LONG_RUNS[name](out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   cwd=ROOT)
        time.sleep(delay)
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=120)
        outcomes.append(_check_outcome(name, process.returncode, stdout, stderr, out, signum))
    assert outcomes[-1] == "partial", outcomes  # 4 s in, every one of these jobs is well under way


@pytest.mark.slow
def test_a_signal_the_process_ignores_stays_ignored_and_the_job_completes(tmp_path):
    """A shell starts a command run in the background (``cpoker ... &`` in a script) with SIGINT ignored, so that
    a Ctrl-C at the terminal does not reach it.  cpoker's handler, set over it for its jobs, ignores it too:
    real SIGINTs in the middle of a real simulation leave it to finish, complete, with status 0."""
    process = subprocess.Popen(_cpoker("simulate", A, "--samples", "300000", "--seed", "1", "--jobs", "1", "--json",
                                       "--out", str(tmp_path / "r.json")),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    for delay in (0.5, 1.0, 1.0):
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0 and stderr == "", stderr[-2000:]
    saved = json.loads((tmp_path / "r.json").read_text())
    assert not saved["partial"] and saved["samples"] == 300000
    assert json.loads(stdout)["ev"] == saved["ev"]


def _read_until_closed(fd: int, seen: bytes = b"", quiet: float = 30.0) -> bytes:
    """Everything the terminal shows until the child closes it (or is quiet for ``quiet`` seconds)."""
    while True:
        ready, _, _ = select.select([fd], [], [], quiet)
        if not ready:
            return seen
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            return seen
        if not chunk:
            return seen
        seen += chunk


def _reap(pid: int, grace: float = 30.0) -> int:
    """The child's wait status; after ``grace`` seconds it is killed (a failed test never waits on a long run)."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def test_ctrl_c_on_a_terminal_prints_the_partial_match(tmp_path):
    """A real pseudo-terminal: the progress bar is drawn, then Ctrl-C, as a user would."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: run cpoker on the terminal
        os.chdir(ROOT)
        os.execv(sys.executable, _cpoker("match", "table", "greedy", "--deals", "5000000", "--seed", "2"))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
    seen, started = b"", time.monotonic()
    try:
        # a measured rate ("12.3kdeal/s", not the first bar's "?deal/s"): a block is done, the run is under way
        rate = re.compile(rb"\d[kMG]?deal/s")
        while not rate.search(seen) and time.monotonic() - started < 60:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if ready:
                seen += os.read(fd, 4096)
        assert rate.search(seen), seen
        os.kill(pid, signal.SIGINT)
        seen = _read_until_closed(fd, seen)
    finally:
        status = _reap(pid)
    text = seen.decode("utf-8", "replace")
    assert os.WEXITSTATUS(status) == 130 and "Traceback" not in text
    assert "PARTIAL: stopped after" in text and "table" in text and "greedy" in text
    # said at once, on a line of its own, before the result (off a terminal, nothing: the tests with pipes)
    assert text.count("\ncpoker: stopping after the work in flight; Ctrl-C again quits at once") == 1
    assert text.index("cpoker: stopping") < text.index("PARTIAL")


def test_ctrl_c_stops_a_study_whose_blocks_take_days(tmp_path):
    """`exploit --samples 10**9`: one hand's solve takes hours, and Ctrl-C used to wait for the block's 8 hands.

    The block in flight is dropped at the next chunk of deals: with none done, the command ends at once with
    one line and status 130, and writes nothing.
    """
    pid, fd = pty.fork()
    if pid == 0:  # the child: run cpoker on the terminal
        os.chdir(ROOT)
        os.execv(sys.executable, _cpoker("exploit", "greedy", "--hands", "16", "--samples", "1000000000",
                                         "--seed", "1", "--out", str(tmp_path / "r.json")))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal's width: the bar is drawn
    seen, started = b"", time.monotonic()
    try:
        while b"exploit greedy" not in seen and time.monotonic() - started < 60:  # the bar: the study has begun
            ready, _, _ = select.select([fd], [], [], 1.0)
            if ready:
                seen += os.read(fd, 4096)
        assert b"exploit greedy" in seen, seen
        time.sleep(1.0)  # into the first hand's solve
        os.kill(pid, signal.SIGINT)
        seen = _read_until_closed(fd, seen)
    finally:
        status = _reap(pid)
    text = seen.decode("utf-8", "replace")
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 130, (status, text)
    assert "Traceback" not in text and text.rstrip().endswith("cpoker: interrupted")
    assert not list(tmp_path.iterdir())


def test_ctrl_c_while_importing_is_one_clean_line():
    """The console script handles a signal even before the command line is loaded."""
    script = ("import os, signal, sys, builtins; from cpoker import _entry; real_import = builtins.__import__\n"
              "def importing(name, *args, **kwargs):\n"
              "    if name == 'cpoker.cli':  # the moment run() starts loading the command line\n"
              "        os.kill(os.getpid(), signal.SIGINT)\n"
              "    return real_import(name, *args, **kwargs)\n"
              "builtins.__import__ = importing\n"
              "_entry.run()")
    result = subprocess.run([sys.executable, "-c", script, "eval", "As"], capture_output=True, text=True,
                            timeout=60, cwd=ROOT)
    assert result.returncode == 130 and result.stderr == "cpoker: interrupted\n"


TABLE_SOLVE = ("solve", "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s", "--method", "table")


@pytest.mark.slow
def test_a_cold_start_on_a_terminal_says_it_is_compiling(tmp_path):
    """An empty kernel cache: the first run says once, on the terminal, that it compiles; a warm one is silent.

    (``cpoker eval`` compiles nothing: it evaluates one row by table lookups in Python.)
    """
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def on_a_terminal() -> str:
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(ROOT)
            os.execve(sys.executable, _cpoker(*TABLE_SOLVE), env)
        try:
            seen = _read_until_closed(fd, quiet=120)
        finally:
            assert os.WEXITSTATUS(_reap(pid, 120)) == 0
        return seen.decode()

    cold = on_a_terminal()
    assert cold.count("cpoker: compiling kernels") == 1 and "table value" in cold
    warm = on_a_terminal()
    assert "compiling" not in warm and "table value" in warm
    piped = subprocess.run(_cpoker(*TABLE_SOLVE), capture_output=True, text=True, cwd=ROOT,
                           env={**env, "NUMBA_CACHE_DIR": str(tmp_path / "other")})
    assert piped.returncode == 0 and piped.stderr == ""  # off a terminal: nothing on stderr


@pytest.mark.slow
def test_signals_swept_over_the_end_of_a_run_never_leave_a_half_written_file(tmp_path):
    """Signals at moments spread over a short run's whole second half, writing its ``--out`` included."""
    out = tmp_path / "r.json"
    command = _cpoker("simulate", A, "--samples", "12000", "--seed", "3", "--jobs", "1", "--out", str(out))
    started = time.monotonic()
    subprocess.run(command, capture_output=True, cwd=ROOT, check=True)  # how long a whole run takes here
    whole = time.monotonic() - started
    outcomes = []
    for fraction in (0.5, 0.65, 0.8, 0.9, 0.95, 1.0, 1.05):
        out.unlink(missing_ok=True)
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        time.sleep(whole * fraction)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
        assert "Traceback" not in stderr and process.returncode in (0, 130), (process.returncode, stderr)
        assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left
        if out.exists():  # whole and valid, whatever the moment, and reported
            saved = json.loads(out.read_text())
            assert "EV" in stdout, (stdout, stderr)
            assert saved["partial"] == ("PARTIAL" in stdout) and saved["samples"] <= 12000
        else:
            assert stderr == "cpoker: interrupted\n"
        outcomes.append("file" if out.exists() else "interrupted")
    assert "file" in outcomes, outcomes
