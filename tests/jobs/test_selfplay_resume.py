"""Checkpoints and resumed builds: an unfinished self-play build continues to the very tables, byte for byte.

One test kills a real ``cpoker tables build --checkpoint`` process outright (SIGKILL: no handler runs,
nothing is flushed) and resumes it from the checkpoint it left; another sends real SIGINTs to a resumed build.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from cpoker import Interrupted, OptionError, PolicyTables, cli
from cpoker.jobs.selfplay import build_tables

HANDS, SEED = 600, 4
# a small card-removal step, with two rounds of self-play with the correction: resumed builds replay them too
REMOVAL = {"removal_deals": 300, "removal_rounds": 2}


@pytest.fixture(scope="module")
def pagat_build():
    """A 6-iteration build and the checkpoints it handed out on the way (after iterations 1 to 5, and once the
    self-play was done, before the rounds with the card-removal correction)."""
    checkpoints: list = []
    full = build_tables(hands=HANDS, seed=SEED, max_iterations=6, tolerance=0, checkpoint=checkpoints.append,
                        **REMOVAL)
    return full, checkpoints


@pytest.mark.slow
def test_every_checkpoint_resumes_to_the_uninterrupted_tables_byte_for_byte(pagat_build, tmp_path):
    full, checkpoints = pagat_build
    assert [c.iterations for c in checkpoints] == [1, 2, 3, 4, 5, 6]
    assert all(c.partial and c.previous_distribution is not None and c.removal is None for c in checkpoints)
    assert not full.partial and full.previous_distribution is None  # a finished build carries no resume state
    assert [c.history for c in checkpoints] == [full.history[:k] for k in range(1, 7)]
    assert full.removal is not None and [r["round"] for r in full.removal_rounds] == [1, 2]
    for checkpoint in checkpoints:
        resumed = build_tables(resume=checkpoint, max_iterations=6, tolerance=0, **REMOVAL)
        assert resumed.to_bytes() == full.to_bytes(), checkpoint.iterations
    # through a file, as the command line does; the resume state survives the round trip
    path = tmp_path / "checkpoint.npz"
    checkpoints[2].save(path)
    loaded = PolicyTables.load(path)
    assert np.array_equal(loaded.previous_distribution, checkpoints[2].previous_distribution)
    assert build_tables(resume=path, max_iterations=6, tolerance=0, **REMOVAL).to_bytes() == full.to_bytes()


def test_a_plain_resume_plays_to_the_options_the_build_was_asked(pagat_build, tmp_path, capsys):
    """Unfinished tables record the build's options: resumed with none given (as its PARTIAL line says to), a
    build of 6 iterations, tolerance 0 and 2 rounds of 300 deals ends as asked, not with the defaults (60
    iterations, tolerance 0.001, 8 rounds of 200,000 deals)."""
    full, checkpoints = pagat_build
    asked = {"max_iterations": 6, "tolerance": 0.0, **REMOVAL}
    assert all(c.build == asked for c in checkpoints) and full.build is None  # finished tables: written as before
    assert build_tables(resume=checkpoints[1]).to_bytes() == full.to_bytes()
    path = tmp_path / "t.npz"
    checkpoints[3].save(path)
    assert PolicyTables.load(path).build == asked
    assert cli.main(["tables", "build", "--resume", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["iterations"] == 6 and path.read_bytes() == full.to_bytes()
    # options given with the resume still win: 7 iterations where 6 were asked
    assert build_tables(resume=checkpoints[1], max_iterations=7).iterations == 7
    # build options that are not ours: the file is refused, in one line
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"]))
    for build in ({**asked, "max_iterations": 0}, {**asked, "tolerance": 2.0}, {"tolerance": 0.0}, [1]):
        np.savez(tmp_path / "bad.npz", **{**arrays, "meta": np.array(json.dumps({**meta, "build": build}))})
        with pytest.raises(OptionError, match="not a cpoker tables file"):
            PolicyTables.load(tmp_path / "bad.npz")


@pytest.mark.slow
def test_a_resumed_build_stops_where_the_uninterrupted_one_converges_under_any_rules():
    checkpoints: list = []
    converged = build_tables(hands=400, seed=SEED, max_iterations=60, tolerance=0.01, rules="2-4",
                             checkpoint=checkpoints.append, **REMOVAL)
    # the last checkpoint is the converged self-play's, before the rounds with the correction
    assert checkpoints[-1].history == converged.history and converged.iterations < 60
    assert converged.history[-1]["changed"] < 0.01 < checkpoints[-2].history[-1]["changed"]
    for checkpoint in (checkpoints[0], checkpoints[-2], checkpoints[-1]):
        resumed = build_tables(resume=checkpoint, max_iterations=60, tolerance=0.01, rules="2-4", **REMOVAL)
        assert resumed.to_bytes() == converged.to_bytes()


def test_a_build_whose_first_iterations_play_part_of_the_sample_resumes_from_any_checkpoint(monkeypatch):
    """Iterations 1 and 2 play the sample's first 150 and 300 hands (policy.played_hands): a resumed build replays
    its last iteration on as many, and ends with the uninterrupted tables."""
    monkeypatch.setattr("cpoker.jobs.selfplay.WARMUP_HANDS", 150)
    checkpoints: list = []
    options = dict(max_iterations=5, tolerance=0, removal_deals=300, removal_rounds=1)
    full = build_tables(hands=HANDS, seed=SEED, checkpoint=checkpoints.append, **options)
    assert [checkpoint.iterations for checkpoint in checkpoints] == [1, 2, 3, 4, 5]
    for checkpoint in checkpoints:
        assert build_tables(resume=checkpoint, **options).to_bytes() == full.to_bytes()
    monkeypatch.setattr("cpoker.jobs.selfplay.WARMUP_HANDS", 300)  # another build: its iteration 2 plays all 600
    with pytest.raises(OptionError, match="do not continue a build"):
        build_tables(resume=checkpoints[1], **options)


def test_tables_a_real_signal_stopped_resume_to_the_uninterrupted_tables(pagat_build, monkeypatch):
    """SIGINT while the build makes iteration 3's model: the partial tables of iteration 2, resumable."""
    from cpoker.strategies.policy import RowModel

    full, _ = pagat_build
    make_model, calls = RowModel.from_distribution, []

    def signalling(*args, **kwargs):  # made after the greedy start, then once per iteration
        calls.append(1)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return make_model(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(RowModel, "from_distribution", signalling)
        stopped = build_tables(hands=HANDS, seed=SEED, max_iterations=6, tolerance=0, **REMOVAL)
    assert stopped.partial and stopped.iterations == 2 and stopped.previous_distribution is not None
    assert build_tables(resume=stopped, max_iterations=6, tolerance=0, **REMOVAL).to_bytes() == full.to_bytes()


def test_a_real_signal_in_the_rounds_with_the_correction_leaves_the_self_plays_tables_resumable(pagat_build,
                                                                                                 monkeypatch,
                                                                                                 tmp_path, capsys):
    """SIGINT while the first correction is learned: it is learned to the end (seconds), the round after it
    stops at its first block, and the tables of the finished self-play come back, partial, without a correction;
    resuming them plays the rounds again, to the uninterrupted build's bytes."""
    from cpoker.jobs import selfplay

    full, checkpoints = pagat_build
    learn, calls = selfplay.learn_removal, []

    def signalling(*args, **kwargs):
        calls.append(1)
        os.kill(os.getpid(), signal.SIGINT)
        return learn(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(selfplay, "learn_removal", signalling)
        stopped = build_tables(hands=HANDS, seed=SEED, max_iterations=6, tolerance=0, **REMOVAL)
    assert len(calls) == 1 and stopped.partial and stopped.removal is None and stopped.removal_rounds == ()
    assert stopped.to_bytes() == checkpoints[-1].to_bytes()
    assert build_tables(resume=stopped, max_iterations=6, tolerance=0, **REMOVAL).to_bytes() == full.to_bytes()
    # a signal in the rounds of a build resumed there: nothing new to return, so the file to resume stays as it is
    with monkeypatch.context() as patch:
        patch.setattr(selfplay, "learn_removal", signalling)
        with pytest.raises(Interrupted):
            build_tables(resume=stopped, max_iterations=6, tolerance=0, **REMOVAL)
    # the command line writes those tables and says where it stopped
    with monkeypatch.context() as patch:
        patch.setattr(selfplay, "learn_removal", signalling)
        assert cli.main(["tables", "build", "--hands", str(HANDS), "--seed", str(SEED), "--max-iterations", "6",
                         "--tolerance", "0", "--removal-deals", "300", "--removal-rounds", "2",
                         "--out", str(tmp_path / "t.npz")]) == 130
    assert "PARTIAL: stopped during the rounds with the card-removal correction" in capsys.readouterr().out
    assert (tmp_path / "t.npz").read_bytes() == checkpoints[-1].to_bytes()


def test_what_cannot_be_resumed_is_refused_by_name(pagat_build):
    full, checkpoints = pagat_build
    two = checkpoints[1]
    refusals = [
        (dict(resume=full), "nothing to resume: these tables are a finished build (6 iterations"),
        (dict(resume=two, hands=HANDS + 1), f"has hands={HANDS}; hands={HANDS + 1} would be another build"),
        (dict(resume=two, seed=SEED + 1), f"has seed={SEED}; seed={SEED + 1} would be another build"),
        (dict(resume=two, rules="1-6"), "plays the rules 'pagat', not '1-6'"),
        (dict(resume=two, max_iterations=1), "has done 2 iterations already: max_iterations must be at least that"),
        (dict(resume="no such file.npz"), "cannot read tables file no such file.npz"),
        (dict(resume=42), "resume takes the tables of an unfinished build or their file, got int"),
        (dict(hands=50, checkpoint="t.npz"), "checkpoint must be a function of the tables so far, got str"),
        (dict(resume=PolicyTables(two.distribution, HANDS, SEED, two.history, True)),
         "cannot be resumed: they were written before builds could be"),
    ]
    # a distribution that is not what this sample's replay gives: changed, or from another build
    blended = (two.distribution + checkpoints[0].distribution) / 2
    changed = PolicyTables(blended, HANDS, SEED, two.history, True, None, two.previous_distribution)
    refusals.append((dict(resume=changed), "do not continue a build of 600 hands, seed 4, under the rules 'pagat': "
                                           "replaying iteration 2 gives another distribution"))
    moved = PolicyTables(two.distribution, HANDS, SEED + 1, two.history, True, None, two.previous_distribution)
    refusals.append((dict(resume=moved), "do not continue a build of 600 hands, seed 5"))
    for options, message in refusals:
        with pytest.raises(OptionError, match=re.escape(message)):
            build_tables(**options)
    # options that agree with the build are accepted
    again = build_tables(resume=two, hands=HANDS, seed=SEED, rules="pagat", max_iterations=3, tolerance=0,
                         removal_deals=0)
    assert again.history == full.history[:3]


def test_the_command_line_resumes_into_the_file_and_refuses_in_one_line(tmp_path, capsys):
    out, other = tmp_path / "t.npz", tmp_path / "other.npz"
    base = ["tables", "build", "--hands", "500", "--seed", "3", "--tolerance", "0", "--json",
            "--removal-deals", "300", "--removal-rounds", "2"]
    assert cli.main([*base, "--max-iterations", "4", "--out", str(other)]) == 0
    uninterrupted = json.loads(capsys.readouterr().out)
    # a checkpointed build: the checkpoint of iteration 2 is what an outright kill would leave
    checkpoints: list = []
    build_tables(hands=500, seed=3, max_iterations=4, tolerance=0, checkpoint=checkpoints.append, **REMOVAL)
    checkpoints[1].save(out)
    assert cli.main(["tables", "info", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["partial"] and info["resumable"] and info["iterations"] == 2
    assert cli.main(["tables", "build", "--resume", str(out), "--max-iterations", "4", "--tolerance", "0",
                     "--json", "--removal-deals", "300", "--removal-rounds", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["out"] == str(out) and report["resumed_after"] == 2 and not report["partial"]
    assert report["sha256"] == uninterrupted["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    for extra, message in ((["--resume", str(out)], "there is nothing to resume"),
                           (["--resume", str(tmp_path / "missing.npz")], "cannot read tables file"),
                           (["--resume", str(other), "--hands", "7"], "nothing to resume")):
        assert cli.main(["tables", "build", *extra]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err


def test_a_checkpoint_that_cannot_be_written_is_reported_once_and_the_build_goes_on(tmp_path, capsys, monkeypatch):
    """The write itself fails (the real disk-full case is in test_files); saving turns it into an OptionError."""
    import errno

    from cpoker.system import files

    out = tmp_path / "t.npz"
    replace, calls = files.os.replace, []

    def failing_once(source, target):
        calls.append(PolicyTables.load(source).partial)
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return replace(source, target)

    monkeypatch.setattr(files.os, "replace", failing_once)
    assert cli.main(["tables", "build", "--hands", "300", "--max-iterations", "4", "--tolerance", "0",
                     "--removal-deals", "300", "--removal-rounds", "2", "--checkpoint", "--json", "--out",
                     str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == (f"cpoker: warning: cannot write the checkpoint {out} (No space left on device); "
                            "the job goes on without checkpoints\n")
    assert calls == [True, False]  # the failed checkpoint, none after it, then the finished tables
    assert PolicyTables.load(out).iterations == 4 == json.loads(captured.out)["iterations"]


@pytest.mark.slow
def test_a_build_killed_outright_resumes_from_its_checkpoint_to_the_same_file(tmp_path):
    """A real process, a real SIGKILL once its checkpoint holds two iterations, a real resumed process."""
    out = tmp_path / "t.npz"
    options = ["--hands", "3000", "--seed", "9", "--max-iterations", "40", "--tolerance", "0",
               "--removal-deals", "300", "--removal-rounds", "2"]
    reference = build_tables(hands=3000, seed=9, max_iterations=40, tolerance=0, **REMOVAL)
    command = [sys.executable, "-m", "cpoker", "tables", "build", *options, "--quiet", "--json"]
    process = subprocess.Popen([*command, "--checkpoint", "--out", str(out)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if out.exists() and PolicyTables.load(out).iterations >= 2:
                break
            time.sleep(0.05)
        assert process.poll() is None, "the build ended before it could be killed"
        process.kill()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    checkpoint = PolicyTables.load(out)
    assert checkpoint.partial and 2 <= checkpoint.iterations < 40
    resumed = subprocess.run([*command[:5], "--resume", str(out), *options[4:], "--quiet", "--json"],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0 and resumed.stderr == "", resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["resumed_after"] == checkpoint.iterations and report["iterations"] == 40
    assert out.read_bytes() == reference.to_bytes()


@pytest.mark.slow
def test_real_signals_while_a_build_resumes_leave_a_file_that_still_resumes_to_the_same_bytes(tmp_path):
    """SIGINT at several moments of a resumed build; whatever each leaves, resuming on ends with the same file."""
    out = tmp_path / "t.npz"
    reference = build_tables(hands=3000, seed=9, max_iterations=40, tolerance=0, **REMOVAL)
    checkpoints: list = []
    build_tables(hands=3000, seed=9, max_iterations=3, tolerance=0, checkpoint=checkpoints.append, **REMOVAL)
    checkpoints[1].save(out)  # an unfinished build of 2 iterations
    resume = [sys.executable, "-m", "cpoker", "tables", "build", "--resume", str(out), "--max-iterations", "40",
              "--tolerance", "0", "--removal-deals", "300", "--removal-rounds", "2", "--quiet", "--json"]
    outcomes = []
    for delay in (0.2, 1.5, 3.0):
        before, done = out.read_bytes(), PolicyTables.load(out).iterations
        process = subprocess.Popen(resume, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=300)
        assert "Traceback" not in stderr, stderr
        if process.returncode == 0 or (stdout and not json.loads(stdout)["partial"]):
            # it had finished: a signal after the result changes only the exit status (130)
            assert process.returncode in (0, 130) and not PolicyTables.load(out).partial, (process.returncode, stderr)
            outcomes.append("complete")
            break
        assert process.returncode == 130, (process.returncode, stderr)
        if not stdout:  # before the replay was done: nothing written, the file as it was
            assert stderr == "cpoker: interrupted\n" and out.read_bytes() == before
            outcomes.append("interrupted")
        else:  # the tables of the last completed iteration, resumable in their turn
            report, saved = json.loads(stdout), PolicyTables.load(out)
            assert report["partial"] and saved.partial and saved.previous_distribution is not None
            assert saved.iterations == report["iterations"] > done  # at least one more iteration completed
            outcomes.append("partial")
    if outcomes[-1] != "complete":
        finished = subprocess.run(resume, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
    assert out.read_bytes() == reference.to_bytes(), outcomes
