"""Stopped, killed and extended matches, simulations and exploitability studies continue to the very result
of one unbroken run.

One test kills a real ``cpoker match --checkpoint`` process outright (SIGKILL: no handler runs) and resumes
it from the file its checkpoints left; others stop a match, a simulation and a study with a real SIGINT and
resume the partial results.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpoker import OptionError, cli
from cpoker.jobs.exploit import BLOCK_HANDS, exploit
from cpoker.game.rules import PRESETS, Rules
from cpoker.jobs.simulate import DEAL_CHUNK, SAMPLE_CHUNK, match, simulate

ARRANGEMENT = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"


def _without_time(data: dict) -> dict:
    """A result's JSON without its wall-clock seconds (the one thing a resumed run does not reproduce)."""
    data = json.loads(json.dumps(data))
    data.pop("seconds")
    data["state"].pop("seconds")
    return data


@pytest.fixture(scope="module")
def unbroken():
    """Three strategies (seat rotation), deals and sessions, under 2-4 scoring: the reference."""
    return match(["table", "greedy", "table@pagat"], deals=3000, seed=11, sessions=40, rules="2-4")


@pytest.mark.slow
def test_every_checkpoint_resumes_to_the_unbroken_match(unbroken):
    checkpoints: list = []
    match(["table", "greedy", "table@pagat"], deals=3000, seed=11, sessions=40, rules="2-4",
          checkpoint=lambda result: checkpoints.append(result.to_dict()), checkpoint_seconds=0)
    # one checkpoint a block: 6 blocks of deals, then the 40 sessions; the last is the complete match
    assert len(checkpoints) == 3000 // DEAL_CHUNK + 40
    assert [c["deals"] for c in checkpoints[:6]] == [500, 1000, 1500, 2000, 2500, 3000]
    assert all(c["partial"] for c in checkpoints[:-1]) and not checkpoints[-1]["partial"]
    reference = _without_time(unbroken.to_dict())
    for saved in checkpoints[::5]:
        saved = json.loads(json.dumps(saved))  # as read back from a file
        resumed = match(["table", "greedy", "table@pagat"], deals=3000, sessions=40, rules="2-4", resume=saved)
        assert _without_time(resumed.to_dict()) == reference
        assert resumed.seed == 11  # the saved seed, when none is given


def test_a_finished_match_extends_to_the_longer_match():
    short = match(["table", "greedy"], deals=2 * DEAL_CHUNK, seed=3, sessions=5)
    longer = match(["table", "greedy"], deals=5 * DEAL_CHUNK, seed=3, sessions=12)
    extended = match(["table", "greedy"], deals=5 * DEAL_CHUNK, sessions=12, resume=short)
    assert _without_time(extended.to_dict()) == _without_time(longer.to_dict())
    assert extended.seconds > short.seconds  # the seconds of both runs


def test_what_cannot_be_resumed_is_refused_with_the_reason():
    saved = match(["table", "greedy"], deals=1000, seed=3).to_dict()
    cases = {
        "strategies table greedy, not greedy table": dict(strategies=["greedy", "table"]),
        "seed 3, not 4": dict(seed=4),
        "rules pagat, not 2-4": dict(rules="2-4"),
        "already has 1,000 deals": dict(deals=600),
        "kept no per-deal points": dict(keep_points=True),
    }
    for message, change in cases.items():
        options = {"strategies": ["table", "greedy"], "deals": 2000, "resume": saved, **change}
        with pytest.raises(OptionError, match=message):
            match(**options)
    house = match(["table", "greedy"], deals=500, seed=3, rules=Rules("2-4", naturals={"dragon": 13}, source="h.toml"))
    with pytest.raises(OptionError, match="rules h.toml as saved, not h.toml as given now"):  # the file was edited
        match(["table", "greedy"], deals=1000, resume=house, rules=Rules("2-4", naturals={"dragon": 26},
                                                                         source="h.toml"))
    odd = match(["table", "greedy"], deals=1234, seed=3)
    with pytest.raises(OptionError, match="1,234 deals end in a block of 234"):
        match(["table", "greedy"], deals=2000, resume=odd)
    damaged = json.loads(json.dumps(saved))
    damaged["state"]["moments"][0][0] = 999  # the seats' counts no longer agree
    with pytest.raises(OptionError, match="damaged"):
        match(["table", "greedy"], deals=2000, resume=damaged)
    damaged["state"]["moments"] = "x"
    with pytest.raises(OptionError, match="damaged"):
        match(["table", "greedy"], deals=2000, resume=damaged)
    with pytest.raises(OptionError, match="not a saved match result"):
        match(["table", "greedy"], resume={"kind": "match"})


def test_the_tables_each_strategy_plays_by_are_fingerprinted_and_only_those(tmp_path):
    """A table@FILE.npz rewritten since the run is refused; tables that no strategy reads do not matter."""
    from cpoker.strategies.policy import default_tables

    path = tmp_path / "mine.npz"
    default_tables("pagat").save(path)
    saved = match([f"table@{path}", "greedy"], deals=DEAL_CHUNK, seed=2)
    default_tables("2-4").save(path)  # the same name, other tables
    with pytest.raises(OptionError, match=r"other tables \(the same --tables FILE, or table@FILE.npz as it was\)"):
        match([f"table@{path}", "greedy"], deals=2 * DEAL_CHUNK, resume=saved)
    default_tables("pagat").save(path)
    match([f"table@{path}", "greedy"], deals=2 * DEAL_CHUNK, resume=saved)  # as it was: it continues
    # greedy reads no tables: a simulation against it continues whatever --tables says
    first = simulate(ARRANGEMENT, opponent="greedy", samples=SAMPLE_CHUNK, seed=2)
    continued = simulate(ARRANGEMENT, opponent="greedy", samples=2 * SAMPLE_CHUNK, resume=first,
                         tables=default_tables("2-4"))
    unbroken = simulate(ARRANGEMENT, opponent="greedy", samples=2 * SAMPLE_CHUNK, seed=2)
    assert _without_time(continued.to_dict()) == _without_time(unbroken.to_dict())
    with pytest.raises(OptionError, match="other tables"):  # the table opponent does read them
        simulate(ARRANGEMENT, samples=2 * SAMPLE_CHUNK, tables=default_tables("2-4"),
                 resume=simulate(ARRANGEMENT, samples=SAMPLE_CHUNK, seed=2))


def test_a_tables_file_is_read_once_a_job_not_at_every_block(tmp_path, monkeypatch):
    """table@FILE.npz is resolved once, when the job's options are settled: its blocks play those tables."""
    from cpoker.strategies.policy import PolicyTables, default_tables

    path = tmp_path / "mine.npz"
    default_tables("pagat").save(path)
    loads: list = []
    load = PolicyTables.load.__func__
    monkeypatch.setattr(PolicyTables, "load", classmethod(lambda cls, p: loads.append(p) or load(cls, p)))
    played = match([f"table@{path}", "greedy"], deals=4 * DEAL_CHUNK, seed=2)
    assert len(loads) == 1
    same = match(["table@pagat", "greedy"], deals=4 * DEAL_CHUNK, seed=2)
    assert [(s.points, s.stderr) for s in played.scores] == [(s.points, s.stderr) for s in same.scores]
    default_tables("2-4").save(path)  # another job reads the file again: rewritten since, it plays the new tables
    match([f"table@{path}", "greedy"], deals=DEAL_CHUNK, seed=2)
    assert len(loads) == 2


def test_rules_read_back_from_a_saved_result_are_the_same_rules():
    for preset in PRESETS.values():
        assert Rules.from_dict(preset.to_dict()) is preset
    house = Rules("2-4", {"front": {"three of a kind": 3}}, {"dragon": 13})
    assert Rules.from_dict(json.loads(json.dumps(house.to_dict()))) == house


def _cpoker(*argv: str) -> list[str]:
    return [sys.executable, "-m", "cpoker", *argv]


def test_a_match_killed_outright_resumes_from_its_checkpoint_to_the_unbroken_result(tmp_path):
    """A real process, a real SIGKILL once its checkpoint holds some deals, a real resumed process."""
    out = tmp_path / "m.json"
    options = ["table", "greedy", "--deals", "200000", "--seed", "8", "--jobs", "1", "--quiet"]
    process = subprocess.Popen(_cpoker("match", *options, "--out", str(out), "--checkpoint",
                                       "--checkpoint-seconds", "0.2"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if out.exists() and json.loads(out.read_text())["deals"] >= 2 * DEAL_CHUNK:
                break
            time.sleep(0.05)
        assert process.poll() is None, "the match ended before it could be killed"
        process.kill()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    checkpoint = json.loads(out.read_text())  # whole: checkpoints are written atomically
    assert checkpoint["partial"] and 2 * DEAL_CHUNK <= checkpoint["deals"] < 200000
    # continued with fewer deals than first asked for: the 200,000 would take minutes here
    resumed = subprocess.run(_cpoker("match", "--resume", str(out), "--deals", str(checkpoint["deals"] + 3000),
                                     "--quiet"), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0 and resumed.stderr == "", resumed.stderr
    assert f"resumed after {checkpoint['deals']} deals" in resumed.stdout
    reference = match(["table", "greedy"], deals=checkpoint["deals"] + 3000, seed=8)
    assert _without_time(json.loads(out.read_text())) == _without_time(reference.to_dict())


def test_command_line_refusals(tmp_path, capsys):
    assert cli.main(["match", "table", "greedy", "--checkpoint"]) == 2
    assert "--checkpoint saves the match so far to its --out FILE.json" in capsys.readouterr().err
    (tmp_path / "other.json").write_text('{"kind": "simulate"}')
    assert cli.main(["match", "--resume", str(tmp_path / "other.json")]) == 2
    assert "is not a match result that can be resumed" in capsys.readouterr().err
    (tmp_path / "broken.json").write_text('{"kind": "match", ')
    assert cli.main(["match", "--resume", str(tmp_path / "broken.json")]) == 2
    assert "is not valid JSON" in capsys.readouterr().err
    (tmp_path / "nested.json").write_text("[" * 100_000 + "]" * 100_000)
    assert cli.main(["match", "--resume", str(tmp_path / "nested.json")]) == 2
    assert "cannot be read: maximum recursion depth" in capsys.readouterr().err


@pytest.mark.parametrize("rules", ["pagat", pytest.param("seed001-royalties", marks=pytest.mark.slow)])
def test_every_simulation_checkpoint_resumes_to_the_unbroken_simulation(rules):
    """Under royalties the points are settled jointly (another kernel) and a foul is simulated too."""
    for arrangement in (ARRANGEMENT, "7c 7d 7h / 2s 3d 5h 9s Jd / Tc Jc Qc Kc Ac"):
        if rules == "pagat" and arrangement != ARRANGEMENT:
            continue  # a foul under pagat is exact, not simulated
        unbroken = simulate(arrangement, opponents=2, samples=5 * SAMPLE_CHUNK, seed=4, rules=rules)
        checkpoints: list = []
        simulate(arrangement, opponents=2, samples=5 * SAMPLE_CHUNK, seed=4, rules=rules,
                 checkpoint=checkpoints.append, checkpoint_seconds=0)
        checkpoints = [c.to_dict() for c in checkpoints]
        assert [c["samples"] for c in checkpoints] == [1000, 2000, 3000, 4000, 5000]
        for saved in checkpoints:
            resumed = simulate(arrangement, opponents=2, samples=5 * SAMPLE_CHUNK, rules=rules,
                               resume=json.loads(json.dumps(saved)))
            assert _without_time(resumed.to_dict()) == _without_time(unbroken.to_dict())
        short = simulate(arrangement, opponents=2, samples=2 * SAMPLE_CHUNK, seed=4, rules=rules)
        extended = simulate(arrangement, opponents=2, samples=5 * SAMPLE_CHUNK, rules=rules, resume=short)
        assert _without_time(extended.to_dict()) == _without_time(unbroken.to_dict())


def test_what_cannot_continue_a_simulation_is_refused_with_the_reason():
    saved = simulate(ARRANGEMENT, opponents=2, samples=1500, seed=4)
    cases = {
        "opponents 2, not 1": {"opponents": 1},
        "opponent table, not greedy": {"opponent": "greedy"},
        "seed 4, not 5": {"seed": 5},
        "arrangement Ad 2s 2h": {"arrangement": "2s 2h Ac / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ad"},
        "1,500 samples end in a block of 500": {"samples": 4000},
        "already has 1,500 samples": {"samples": 1000},
    }
    for message, change in cases.items():
        options = {"arrangement": ARRANGEMENT, "opponents": 2, "samples": 1500, "resume": saved, **change}
        with pytest.raises(OptionError, match=message):
            simulate(**options)
    damaged = json.loads(json.dumps(saved.to_dict()))
    damaged["state"]["distribution"][0][1] += 1  # no longer sums to the samples
    with pytest.raises(OptionError, match="damaged"):
        simulate(ARRANGEMENT, opponents=2, samples=1500, resume=damaged)
    with pytest.raises(OptionError, match="not a saved simulate result"):
        simulate(ARRANGEMENT, resume=match(["table", "greedy"], deals=10, seed=1))


def _leaves(data, path=()):
    """Paths of every value in nested dicts and lists."""
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    found = [path] if path else []
    for key, value in items:
        found += _leaves(value, (*path, key))
    return found


JUNK = st.one_of(st.integers(-10**30, 10**30), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
                 st.none(), st.booleans(), st.lists(st.integers(-3, 10**20), max_size=4),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@pytest.fixture(scope="module")
def saved_runs():
    return {"match": match(["table", "greedy"], deals=DEAL_CHUNK, seed=1, sessions=2).to_dict(),
            "simulate": simulate(ARRANGEMENT, samples=SAMPLE_CHUNK, seed=1).to_dict(),
            "exploit": exploit("greedy", hands=BLOCK_HANDS, samples=8, seed=1, trend=True).to_dict()}


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_damaged_saved_run_is_resumed_exactly_or_refused_cleanly(saved_runs, data):
    """Any one value of a saved result replaced by junk: the run continues, or an OptionError names the problem."""
    kind = data.draw(st.sampled_from(["match", "simulate", "exploit"]))
    damaged = json.loads(json.dumps(saved_runs[kind]))
    paths = [p for p in _leaves(damaged)
             if p[0] in ("seed", "rules", "arrangement", "opponents", "state", "hands", "samples", "strategy")]
    path = data.draw(st.sampled_from(paths))
    target = damaged
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = data.draw(JUNK)
    try:
        if kind == "match":
            result = match(["table", "greedy"], deals=2 * DEAL_CHUNK, sessions=3, resume=damaged)
        elif kind == "simulate":
            result = simulate(ARRANGEMENT, samples=2 * SAMPLE_CHUNK, resume=damaged)
        else:
            result = exploit("greedy", hands=2 * BLOCK_HANDS, samples=8, trend=True, resume=damaged)
    except OptionError as error:
        assert str(error).startswith("cannot resume") or "rules" in str(error), error
        return
    # accepted: the junk was a value a real run could have saved (another seed, other counts that fit
    # together), so the run goes on from it; its result is still well formed
    json.dumps(result.to_dict(), allow_nan=False)
    if kind == "simulate":
        assert all(0 <= p <= 1 for row in result.rows.values() for p in row.values())
        assert 0 <= result.scoop <= 1 and 0 <= result.scooped <= 1
    elif kind == "match":
        assert all(0 <= s.first_places <= 1 and 1 <= s.mean_place <= 2 for s in result.scores)
    else:
        assert result.hands == 2 * BLOCK_HANDS and np.isfinite(result.gain)


@pytest.mark.slow
def test_every_study_checkpoint_resumes_to_the_unbroken_study():
    options = {"hands": 5 * BLOCK_HANDS, "samples": 40, "trend": True, "rules": "2-4"}
    unbroken = exploit("greedy", seed=3, **options)
    checkpoints: list = []
    exploit("greedy", seed=3, checkpoint=checkpoints.append, checkpoint_seconds=0, **options)
    assert [c.hands for c in checkpoints] == [8, 16, 24, 32, 40] and not checkpoints[-1].partial
    for saved in checkpoints[::2]:
        resumed = exploit("greedy", resume=json.loads(json.dumps(saved.to_dict())), **options)
        assert _without_time(resumed.to_dict()) == _without_time(unbroken.to_dict())
        assert (resumed.gains == unbroken.gains).all() and resumed.seed == 3
    short = exploit("greedy", seed=3, **{**options, "hands": 2 * BLOCK_HANDS})
    extended = exploit("greedy", resume=short, **options)
    assert _without_time(extended.to_dict()) == _without_time(unbroken.to_dict())


def test_what_cannot_continue_a_study_is_refused_with_the_reason():
    saved = exploit("greedy", hands=12, samples=40, seed=3)
    cases = {
        "strategy greedy, not table": {"strategy": "table"},
        r"samples \(and trend\) 40, not 10 20 40": {"trend": True},
        "seed 3, not 4": {"seed": 4},
        "12 hands end in a block of 4": {"hands": 20},
        "already has 12 hands": {"hands": 8},
    }
    for message, change in cases.items():
        with pytest.raises(OptionError, match=message):
            exploit(**{"strategy": "greedy", "hands": 12, "samples": 40, "resume": saved, **change})


# a long run of each kind, the unit its result counts, the block, and the unbroken run of n units
SIGINT_CASES = {
    "match": (["match", "table", "greedy", "--deals", "200000", "--seed", "2", "--sessions", "30"], "deals",
              DEAL_CHUNK, lambda n: match(["table", "greedy"], deals=n, seed=2, sessions=30)),
    "simulate": (["simulate", ARRANGEMENT, "--opponents", "3", "--samples", "2000000", "--seed", "6"], "samples",
                 SAMPLE_CHUNK, lambda n: simulate(ARRANGEMENT, opponents=3, samples=n, seed=6)),
    "exploit": (["exploit", "greedy", "--hands", "4000", "--samples", "100", "--seed", "5"], "hands",
                BLOCK_HANDS, lambda n: exploit("greedy", hands=n, samples=100, seed=5)),
}


@pytest.mark.parametrize("kind", SIGINT_CASES)
def test_a_run_a_real_sigint_stopped_resumes_to_the_unbroken_result(tmp_path, kind):
    """A real SIGINT once the run has checkpointed; its partial result, continued a little, is the unbroken run."""
    argv, unit, block, unbroken = SIGINT_CASES[kind]
    out = tmp_path / "run.json"
    process = subprocess.Popen(_cpoker(*argv, "--quiet", "--out", str(out), "--checkpoint", "--checkpoint-seconds",
                                       "0.2"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not out.exists():  # the first checkpoint: blocks are being played
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert f"'cpoker {kind} --resume {out}' continues it" in stdout
    partial = json.loads(out.read_text())
    assert partial["partial"] and 0 < partial[unit] < int(argv[argv.index(f"--{unit}") + 1])
    assert partial[unit] % block == 0
    assert partial[f"requested_{unit}"] == int(argv[argv.index(f"--{unit}") + 1])  # what a plain --resume plays to
    more = partial[unit] + 2 * block
    assert cli.main([kind, "--resume", str(out), f"--{unit}", str(more), "--quiet"]) == 0
    assert _without_time(json.loads(out.read_text())) == _without_time(unbroken(more).to_dict())


def test_a_plain_resume_of_a_stopped_study_plays_to_the_hands_it_was_asked(tmp_path, capsys):
    """`cpoker exploit --resume FILE` with no --hands: the study stopped after 8 of 24 hands continues to 24 (it
    stopped at the 8 it had saved, and called itself complete)."""
    stopped = exploit("greedy", hands=3 * BLOCK_HANDS, samples=20, seed=1, time_budget=1e-6)
    assert stopped.partial and stopped.hands == BLOCK_HANDS and stopped.requested_hands == 3 * BLOCK_HANDS
    saved = tmp_path / "study.json"
    saved.write_text(json.dumps(stopped.to_dict()))
    assert cli.main(["exploit", "--resume", str(saved), "--quiet"]) == 0
    assert "24 hands, 20 samples to choose" in capsys.readouterr().out
    resumed = json.loads(saved.read_text())
    unbroken = exploit("greedy", hands=3 * BLOCK_HANDS, samples=20, seed=1)
    assert _without_time(resumed) == _without_time(unbroken.to_dict()) and not resumed["partial"]


def test_checkpoint_options_are_checked_and_numpy_numbers_welcome():
    calls: list = []
    match(["table", "greedy"], deals=2 * DEAL_CHUNK, seed=1, checkpoint=calls.append, checkpoint_seconds=np.int64(0))
    assert [c.deals for c in calls] == [DEAL_CHUNK, 2 * DEAL_CHUNK]
    for seconds in (-1, float("nan"), float("inf"), True, "1"):
        with pytest.raises(OptionError, match="checkpoint_seconds must be a number of seconds"):
            simulate(ARRANGEMENT, samples=10, checkpoint=calls.append, checkpoint_seconds=seconds)
    with pytest.raises(OptionError, match="checkpoint must be a function"):
        exploit("greedy", hands=1, samples=4, checkpoint="file.json")
