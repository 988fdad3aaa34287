"""Bots over the line protocol (docs/bots.md), as real child processes.

The bots here are the examples (cpoker's own strategies behind the protocol,
in Python, and greedy in C) and :mod:`fault_bot`, which misbehaves on demand.
Every fault must be contained: the hands of the request fouled and counted,
the bot restarted, and after 3 faults in a row the job stopped with its
partial result and status 1 -- and no child process left alive, however the
job ends.
"""

from __future__ import annotations

import json
import os
import pickle
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import compiled_c_bot

import cpoker
from cpoker import Bot, BotBroken, StrategyError
from cpoker.strategies.bots import FAULTS_TO_BREAK, check_bot
from cpoker.game.dealing import sample_hands
from cpoker.jobs.simulate import DEAL_CHUNK

ROOT = Path(__file__).resolve().parents[2]
PYTHON_BOT = ROOT / "examples" / "bots" / "python_bot.py"
C_BOT = ROOT / "examples" / "bots" / "greedy_bot.c"
FAULT_BOT = Path(__file__).resolve().parents[1] / "support" / "fault_bot.py"
ARRANGEMENT = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"


def python_bot(strategy: str = "greedy") -> str:
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(PYTHON_BOT))} --strategy {strategy}"


def fault_bot(mode: str, at: int = 1, pidfile: "Path | None" = None) -> str:
    command = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FAULT_BOT))} {mode} --at {at}"
    return command + (f" --pidfile {shlex.quote(str(pidfile))}" if pidfile else "")


def cpoker_command(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cpoker", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by an init that is slow) is not alive
        with open(f"/proc/{pid}/stat") as file:
            return file.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def pids(pidfile: Path) -> list[int]:
    return [int(line) for line in pidfile.read_text().split()] if pidfile.exists() else []


@pytest.fixture(scope="module")
def c_bot(tmp_path_factory) -> str:
    return compiled_c_bot(C_BOT, tmp_path_factory.mktemp("bots"))


# --- the examples play as the strategies they wrap, bit for bit ------------------------------------------------

@pytest.mark.subprocess
@pytest.mark.parametrize("strategy", ["greedy", "table"])
def test_the_python_bot_plays_its_strategy_bit_for_bit(strategy):
    other = "table" if strategy == "greedy" else "greedy"
    by_bot = cpoker.match([other, python_bot(strategy)], deals=1200, seed=5)
    built_in = cpoker.match([other, strategy], deals=1200, seed=5)
    assert by_bot.deals == built_in.deals == 1200 and not by_bot.partial
    assert [s.points for s in by_bot.scores] == [s.points for s in built_in.scores]
    assert [s.stderr for s in by_bot.scores] == [s.stderr for s in built_in.scores]
    assert by_bot.bot_faults == (0, 0)
    assert by_bot.strategies[1] == python_bot(strategy)


@pytest.mark.subprocess
def test_under_a_low_front_a_bots_request_says_so_and_its_answers_are_judged_by_it(monkeypatch):
    """The python bot plays the low-a5 table policy bit for bit: its fronts often beat its middles, a foul in the
    high game and none here; the request carries ``"front": "low-a5"`` (and no ``front`` in the high game)."""
    from cpoker.strategies.bots import BotProcess
    from cpoker.strategies.strategy import arrange_keys

    requests = []
    exchange = BotProcess._exchange

    def recorded(self, request, *args):
        requests.append(json.loads(request))
        return exchange(self, request, *args)

    monkeypatch.setattr(BotProcess, "_exchange", recorded)
    hands = sample_hands(300, 6)
    by_bot = arrange_keys(python_bot("table"), hands, rules="low-a5")
    assert np.array_equal(by_bot, arrange_keys("table", hands, rules="low-a5"))
    plays = [cpoker.table(hand, rules="low-a5") for hand in hands]
    assert not any(play.is_foul for play in plays)
    assert sum(cpoker.Arrangement(*play.rows).is_foul for play in plays) > 0  # in the high game: fouls
    assert requests[-1]["front"] == "low-a5" and requests[-1]["rules"] == "low-a5"
    arrange_keys(python_bot("greedy"), hands[:2])
    assert "front" not in requests[-1]


@pytest.mark.subprocess
def test_a_bot_is_the_opponent_model_of_simulate_and_solve():
    by_bot = cpoker.simulate(ARRANGEMENT, opponents=2, samples=3000, seed=2, opponent=python_bot("table"))
    built_in = cpoker.simulate(ARRANGEMENT, opponents=2, samples=3000, seed=2, opponent="table")
    assert (by_bot.ev, by_bot.stderr, by_bot.rows) == (built_in.ev, built_in.stderr, built_in.rows)
    assert by_bot.opponent_model == python_bot("table") and by_bot.bot_faults == 0
    hand = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"
    solved = cpoker.solve(hand, samples=600, seed=3, opponent=python_bot("greedy"))
    reference = cpoker.solve(hand, samples=600, seed=3, opponent="greedy")
    assert solved.best == reference.best and solved.ev == reference.ev


@pytest.mark.subprocess
def test_the_c_bot_plays_greedy_and_a_tournament_pair_is_its_match(c_bot):
    result = cpoker.tournament(["greedy", c_bot, "table"], deals=1500, seed=9)
    assert result.deals == 1500 and not result.partial and result.bot_faults == (0, 0, 0)
    assert result.points[0, 1] == 0.0 and result.points[1, 0] == 0.0  # the C greedy is cpoker's greedy
    match = cpoker.match([c_bot, "table"], deals=1500, seed=9)
    assert result.points[1, 2] == match.scores[0].points
    assert tuple(result.intervals[1, 2]) == match.scores[0].interval
    assert np.isclose(result.against_field[2], (result.points[2, 0] + result.points[2, 1]) / 2)
    assert [name for name, _, _ in result.ranking][0] == "table"


@pytest.mark.subprocess
def test_exploit_of_a_bot_equals_exploit_of_its_strategy(c_bot):
    by_bot = cpoker.exploit(c_bot, hands=8, samples=150, seed=4)
    built_in = cpoker.exploit("greedy", hands=8, samples=150, seed=4)
    assert by_bot.gains.tolist() == built_in.gains.tolist() and by_bot.bot_faults == 0


# --- faults are contained --------------------------------------------------------------------------------------

@pytest.mark.subprocess
def test_a_bot_that_crashes_once_is_restarted_and_its_request_fouled(tmp_path):
    pidfile = tmp_path / "pids"
    bot = Bot(fault_bot("crash-once", at=3, pidfile=pidfile), batch=100)
    result = cpoker.match(["greedy", bot], deals=2000, seed=1)
    assert result.deals == 2000 and not result.partial
    assert result.bot_faults == (0, 100)  # the request of 100 hands it crashed on, and no other
    assert len(pids(pidfile)) == 2 and not any(alive(pid) for pid in pids(pidfile))
    reference = cpoker.match(["greedy", "fault_bot:as_dealt"], deals=2000, seed=1)
    assert result.scores[1].points <= reference.scores[1].points  # fouled hands lose what the play won


@pytest.mark.subprocess
@pytest.mark.parametrize("mode, reason", [
    ("garbage", "not a JSON line"),
    ("few", "answered 99 arrangements for 100 hands"),
    ("wrong-cards", "is not in the hand"),
    ("flood", "without ending its answer's line"),
    ("crash", "exited with status 3"),
    pytest.param("hang", "no answer", marks=pytest.mark.slow),  # (waits out three silences: the full tier)
])
def test_a_bot_that_always_faults_is_declared_broken_with_the_partial_result(tmp_path, mode, reason):
    """A fresh bot has 10 s to start, whatever the load on the machine (half a second was once not enough for a
    restarted bot to write its garbage on a busy 2-core machine, and the fault read "no answer" instead); the
    hanging one is found out by its 0.2 s a request, then, restarted, by its silence."""
    pidfile = tmp_path / "pids"
    bot = Bot(fault_bot(mode, at=2, pidfile=pidfile), timeout=0.002, batch=100, startup=10.0, silence=2.0)
    with pytest.raises(BotBroken) as caught:
        cpoker.match(["greedy", bot], deals=5 * DEAL_CHUNK, seed=1)
    broken = caught.value
    assert reason in str(broken) and f"{FAULTS_TO_BREAK} faults in a row" in str(broken)
    # the warm-up's request was answered; the first block's first request faults, and the restarted bot twice more
    assert broken.result is None
    assert not any(alive(pid) for pid in pids(pidfile)) and len(pids(pidfile)) == FAULTS_TO_BREAK


@pytest.mark.parametrize("mode", ["heartbeat", pytest.param("murmur", marks=pytest.mark.slow),
                                  pytest.param("busy", marks=pytest.mark.slow)])  # (each waits 3 s: one by default)
def test_a_slow_bot_that_shows_it_is_alive_is_not_cut_off(mode):
    """Each request takes the bot 3 s, twice its silence limit, with a sign of life at least every 0.3 s."""
    hands = sample_hands(50, seed=3)
    bot, well = Bot(fault_bot(mode, at=1), timeout=10.0, batch=50, silence=1.5), Bot(fault_bot("ok"), batch=50)
    keys = bot.arrange_keys(hands)
    assert bot.child.faulted_hands == 0
    np.testing.assert_array_equal(keys, well.arrange_keys(hands))
    bot.child.close()
    well.child.close()


def test_a_hung_bot_faults_after_its_silence_not_its_whole_time(tmp_path):
    pidfile = tmp_path / "pids"
    bot = Bot(fault_bot("hang", at=1, pidfile=pidfile), batch=1000, silence=0.5, startup=0.5)  # 1,000 s a request
    started = time.monotonic()
    with pytest.raises(BotBroken) as caught:
        bot.arrange_keys(sample_hands(3000, seed=4))
    assert "no answer and no sign of life for 0.5 s" in str(caught.value)
    assert "--bot-silence" in str(caught.value)
    assert time.monotonic() - started < 60
    assert not any(alive(pid) for pid in pids(pidfile))


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_hanging_bot_at_the_default_batch_ends_the_match_within_about_a_minute(tmp_path):
    pidfile = tmp_path / "pids"
    started = time.monotonic()
    done = cpoker_command("match", "greedy", fault_bot("hang", at=1, pidfile=pidfile), "--deals", "5000",
                          "--seed", "1", timeout=300)
    assert done.returncode == 1, done.stderr
    assert "is broken: 3 faults in a row" in done.stderr and "no sign of life" in done.stderr
    assert time.monotonic() - started < 120  # 3 faults of 20 s each, not 3 of 1,010 s
    assert not any(alive(pid) for pid in pids(pidfile))


@pytest.mark.subprocess
def test_the_command_prints_the_partial_result_and_exits_1_when_a_bot_breaks(tmp_path):
    pidfile = tmp_path / "pids"
    # requests: the warm-up's and block 1's answered, blocks 2 and 3 fouled, block 4 the third fault in a row
    done = cpoker_command("match", "greedy", fault_bot("garbage", at=3, pidfile=pidfile), "--deals", "3000",
                          "--seed", "1", "--bot-batch", "1000")
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "is broken: 3 faults in a row" in lines[0] and "fault_bot.py garbage" in lines[0]
    assert "PARTIAL: stopped after 1500 of 3000 deals" in done.stdout
    assert "had 2,000 hands settled as fouls" in done.stdout
    assert not any(alive(pid) for pid in pids(pidfile))


@pytest.mark.subprocess
def test_a_bot_that_floods_standard_error_plays_on_in_bounded_memory():
    bot = Bot(fault_bot("chatty", at=1), batch=500)
    result = cpoker.match(["greedy", bot], deals=600, seed=2)
    reference = cpoker.match(["greedy", "fault_bot:as_dealt"], deals=600, seed=2)
    assert result.bot_faults == (0, 0)
    assert [s.points for s in result.scores] == [s.points for s in reference.scores]


def test_bots_are_descriptions_that_pickle_and_are_checked():
    bot = Bot("./mybot --level 3", timeout=2.5, batch=10)
    assert pickle.loads(pickle.dumps(bot)) == bot and bot.__name__ == "cmd:./mybot --level 3"
    assert Bot("cmd:./mybot --level 3", timeout=2.5, batch=10) == bot
    for bad, message in [("", "with a command to run"), ("cmd:'unclosed", "cannot read bot command")]:
        with pytest.raises(StrategyError, match=message):
            Bot(bad)
    with pytest.raises(cpoker.OptionError, match="bot batch"):
        Bot("./x", batch=0)
    with pytest.raises(cpoker.OptionError, match="bot timeout"):
        Bot("./x", timeout=0)


@pytest.mark.subprocess
def test_a_bot_that_cannot_start_is_one_line_and_status_2():
    done = cpoker_command("match", "greedy", "cmd:./no-such-bot --fast", "--deals", "10")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "cpoker: error: cannot start bot 'cmd:./no-such-bot --fast': No such file or " \
                                  "directory"


# --- no child survives the job ---------------------------------------------------------------------------------

@pytest.mark.signals
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_match_against_a_slow_bot_leaves_no_child(tmp_path, signum):
    pidfile = tmp_path / "pids"
    command = [sys.executable, "-m", "cpoker", "match", "greedy", fault_bot("hang", at=3, pidfile=pidfile),
               "--deals", "100000", "--seed", "1", "--bot-timeout", "30"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not pids(pidfile) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # the bot now hangs on its third request, with 30 s a hand to answer
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 128 + signum, err
    assert "PARTIAL: stopped after 500 of 100000 deals" in out
    assert not any(alive(pid) for pid in pids(pidfile))


@pytest.mark.subprocess
def test_the_bot_dies_with_a_job_killed_outright(tmp_path):
    pidfile = tmp_path / "pids"
    script = (f"import cpoker; cpoker.match(['greedy', {fault_bot('hang', at=2, pidfile=pidfile)!r}], "
              "deals=100000, seed=1)")
    process = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not pids(pidfile) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.kill()  # SIGKILL: no handler, no atexit; the kernel ends the bot (PR_SET_PDEATHSIG)
    process.wait()
    deadline = time.monotonic() + 30  # (the kernel ends it at once; a loaded machine may take a while to show it)
    while any(alive(pid) for pid in pids(pidfile)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pids(pidfile) and not any(alive(pid) for pid in pids(pidfile))


# --- conformance and tournaments from the command line -----------------------------------------------------------

@pytest.mark.subprocess
def test_bot_check_passes_a_good_bot_and_names_what_a_bad_one_failed(c_bot):
    good = cpoker_command("bot-check", c_bot, "--json")
    assert good.returncode == 0, good.stderr
    report = json.loads(good.stdout)
    assert report["passed"] and len(report["checks"]) == 6
    bad = cpoker_command("bot-check", fault_bot("few", at=2))
    assert bad.returncode == 1
    assert "PASS  starts, and answers a request of 1 hand" in bad.stdout
    assert "FAIL  every card: a deck's 52 in 4 hands: answered 3 arrangements for 4 hands" in bad.stdout
    assert check_bot(fault_bot("ok"))[-1].passed


@pytest.mark.subprocess
def test_the_tournament_command_writes_its_cross_table_and_resumes(tmp_path, c_bot):
    out = tmp_path / "cross.json"
    done = cpoker_command("tournament", "greedy", "table", c_bot, "--deals", "1000", "--seed", "3", "--out",
                          str(out))
    assert done.returncode == 0, done.stderr
    assert "ranking by the mean against the field" in done.stdout
    saved = json.loads(out.read_text())
    assert saved["cross_table"][0][1]["points_per_deal"] == -saved["cross_table"][1][0]["points_per_deal"]
    longer = cpoker_command("tournament", "--resume", str(out), "--deals", "2000")
    assert longer.returncode == 0, longer.stderr
    whole = cpoker.tournament(["greedy", "table", c_bot], deals=2000, seed=3)
    extended = json.loads(out.read_text())
    assert extended["deals"] == 2000
    assert extended["ranking"] == whole.to_dict()["ranking"]


@pytest.mark.slow
@pytest.mark.cluster
def test_a_bot_plays_the_same_match_on_the_dask_backend():
    bot = Bot(fault_bot("ok"), batch=250)
    on_dask = cpoker.match(["greedy", bot], deals=1500, seed=6, backend="dask")
    here = cpoker.match(["greedy", bot], deals=1500, seed=6)
    assert [s.points for s in on_dask.scores] == [s.points for s in here.scores]
    assert on_dask.bot_faults == here.bot_faults == (0, 0)
