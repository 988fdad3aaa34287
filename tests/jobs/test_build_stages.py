"""``benchmarks/build_stages.py`` times a real ``cpoker tables build`` pass by pass and changes nothing of it."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ["tables", "build", "--hands", "3000", "--seed", "5", "--max-iterations", "8", "--tolerance", "0",
         "--removal-deals", "200", "--removal-rounds", "1", "--json"]


def run(arguments: list) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *arguments], capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.slow
def test_a_timed_build_writes_the_commands_tables_and_times_each_pass(tmp_path):
    events, report = tmp_path / "events.jsonl", tmp_path / "report.json"
    timed = run([str(ROOT / "benchmarks" / "build_stages.py"), "--events", str(events), "--report", str(report),
                 "--", *BUILD, "--out", str(tmp_path / "timed.npz")])
    plain = run(["-m", "cpoker", *BUILD, "--out", str(tmp_path / "plain.npz")])
    assert timed.returncode == plain.returncode == 0, timed.stderr[-2000:] + plain.stderr[-2000:]
    digests = [hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() for name in ("timed.npz", "plain.npz")]
    assert digests[0] == digests[1]
    assert json.loads(timed.stdout)["sha256"] == digests[0]  # the command printed what it prints

    result = json.loads(report.read_text())
    passes = result["passes"]
    assert [step["kind"] for step in passes] == (["greedy start"] + ["self-play"] * 8 + [
        "learning the correction", "rounds with the correction", "learning the correction"])
    assert [json.loads(line) for line in events.read_text().splitlines()] == passes
    # the correction is learned from a quarter of the deals before each round, from all of them after the last
    assert [step["hands"] for step in passes] == [3000] * 9 + [50, 3000, 200]
    assert all(step["seconds"] > 0 for step in passes)
    # the hands the build's near-best rows cover: the sample's in the self-play and the rounds; in the learnings,
    # their deals' (the first 50, the same in each learning; the last's one block of 200 deals is past them)
    assert [step["searched"] + step["certified"] for step in passes] == [0] + [3000] * 8 + [200, 3000, 0]
    assert passes[1]["searched"] == 3000  # the first pass has no lists to certify from
    assert sum(step["certified"] for step in passes) > 0
    # of those certified, the splits kept from an earlier pass's certificate: none before a pass has certified
    assert all(0 <= step["kept"] <= step["certified"] for step in passes) and passes[2]["kept"] == 0
    assert sum(step["kept"] for step in passes[3:9]) > 0
    starts = [step["started"] for step in passes]
    assert starts == sorted(starts)
    summary = result["summary"]
    assert summary["by kind"]["self-play"]["passes"] == 8
    assert summary["before the first pass"] == starts[0]
    inside = sum(step["seconds"] for step in passes)
    assert abs(summary["before the first pass"] + inside + summary["between passes and after the last"]
               - summary["total"]) < 1e-6


def test_without_a_command_it_says_how_to_run_it():
    done = run([str(ROOT / "benchmarks" / "build_stages.py")])
    assert done.returncode == 2 and "tables build" in done.stderr
