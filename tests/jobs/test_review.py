"""cpoker.review and `cpoker review`: played hands read and checked, each one's EV lost against the best
arrangement on the same deals, the luck of real deals, and the same numbers however the review runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from naive import settle_pair

import cpoker
from cpoker import OptionError
from cpoker.cli import main
from cpoker.game.dealing import derived_seed
from cpoker.jobs.played import PlayedHandsError, read_played
from cpoker.jobs.review import BLOCK_HANDS, review
from cpoker.jobs.solve import deal_opponents, solve

ROOT = Path(__file__).resolve().parents[2]
MEDIOCRE = "2s 2h Ad / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac"
FOUL = "As Ad Kc / Kd Qs Jh Th 9c / 7s 6d 4h 3c 2s"
SEED = 5


def _best_of(hand_cards, number: int, samples: int) -> str:
    """The arrangement the review finds best for hand ``number``: solve on the hand's own seed."""
    return str(solve(hand_cards, samples=samples, seed=derived_seed(SEED, number)).best)


@pytest.fixture(scope="module")
def session():
    """Six hands: the solver's best (twice), mediocre ones (greedy, and one by hand) and two fouls."""
    dealt = cpoker.deal(4, 31)
    hands = [MEDIOCRE, str(cpoker.greedy(dealt[1])), FOUL, None, None, None]
    hands[3] = _best_of(dealt[2], 3, 300)
    hands[4] = _best_of(dealt[3], 4, 300)
    ordered = sorted(dealt[0], key=lambda c: -c.rank)
    hands[5] = str(cpoker.Arrangement(ordered[:3], ordered[3:8], ordered[8:]))  # strongest in front: a foul
    return hands


@pytest.fixture(scope="module")
def reviewed(session):
    return review(session, samples=300, seed=SEED)


def test_ev_lost_is_never_negative_near_zero_for_the_best_and_large_for_fouls(session, reviewed):
    hands = reviewed.hands
    assert len(hands) == 6 and not reviewed.partial
    assert all(h.ev_lost >= 0 for h in hands)
    assert hands[3].ev_lost == hands[4].ev_lost == 0 and hands[3].rows_differ == () and hands[3].as_well_as_best
    assert hands[2].fouled and hands[5].fouled and hands[2].ev_lost > 1 and hands[5].ev_lost > 1
    assert hands[2].ev_played == -3.0  # a foul loses every row to any opponent
    assert 0 < hands[0].ev_lost < hands[2].ev_lost and not hands[0].as_well_as_best
    summary = reviewed.summary
    assert summary.total_ev_lost == pytest.approx(sum(h.ev_lost for h in hands), abs=1e-12)
    assert summary.mean_ev_lost == pytest.approx(summary.total_ev_lost / 6)
    assert summary.fouls == 2 and summary.hands == 6 and summary.as_well_as_best >= 2
    assert summary.costliest[:2] in ((2, 5), (5, 2))
    low, high = summary.total_ev_lost_interval
    assert low < summary.total_ev_lost < high
    assert [h.line for h in hands] == [1, 2, 3, 4, 5, 6]


def test_a_hand_ev_lost_equals_an_independent_settlement_of_its_deals():
    """Hand 0 against greedy opponents, settled by the slow reference code on the deals of its seed."""
    played = cpoker.Arrangement.parse(MEDIOCRE)
    result = review([MEDIOCRE], samples=150, seed=SEED, opponent="greedy").hands[0]
    hand = np.array(sorted(int(c) for c in played.cards), dtype=np.uint8)
    deals = deal_opponents(hand, 1, 150, derived_seed(SEED, 0))[:, 0]

    def rows(arrangement):
        return None if arrangement.is_foul else [[int(c) for c in row] for row in arrangement.rows]

    opponents = [rows(cpoker.greedy(o.tolist())) for o in deals]
    best = np.mean([settle_pair(rows(result.best), o) for o in opponents])
    mine = np.mean([settle_pair(rows(played), o) for o in opponents])
    assert result.ev_best == pytest.approx(best, abs=1e-12) and result.ev_played == pytest.approx(mine, abs=1e-12)
    assert result.ev_lost == pytest.approx(best - mine, abs=1e-12)


def test_real_deals_are_settled_and_the_luck_is_actual_minus_ev():
    dealt = cpoker.deal(3, 12)
    mine, others = cpoker.greedy(dealt[0]), [cpoker.table(h) for h in dealt[1:]]
    line = json.dumps({"arrangement": str(mine), "id": "deal 12", "opponents": [str(a) for a in others]})
    hands, _ = read_played(line + "\n" + json.dumps({"arrangement": MEDIOCRE, "opponents": 2}))
    result = review(hands, samples=200, seed=1)
    real, counted = result.hands
    assert real.actual == cpoker.settle([mine, *others])[0] and real.opponents == 2 and real.id == "deal 12"
    assert real.luck == pytest.approx(real.actual - real.ev_played)
    assert counted.actual is None and counted.opponents == 2
    summary = result.summary
    assert summary.real_deals == 1 and summary.total_actual == real.actual
    assert summary.total_luck == pytest.approx(real.luck)


def test_the_three_formats_read_the_same_hands():
    text = f"# my session\n\n{MEDIOCRE}  # the first\n{FOUL}\n"
    jsonl = "\n".join(json.dumps({"arrangement": a, "id": str(i)}) for i, a in enumerate((MEDIOCRE, FOUL)))
    csv_text = "id,arrangement,opponents\n0," + MEDIOCRE + ",\n1," + FOUL + ",3\n"
    plain, _ = read_played(text)
    from_json, _ = read_played(jsonl)
    from_csv, _ = read_played(csv_text)
    assert [h.arrangement for h in plain] == [h.arrangement for h in from_json] == [h.arrangement for h in from_csv]
    assert [h.line for h in plain] == [3, 4] and [h.line for h in from_csv] == [2, 3]
    assert [h.id for h in from_csv] == ["0", "1"] and from_csv[1].opponents == 3
    dicts = [h.to_dict() for h in from_csv]
    assert [h.to_dict() for h in read_played("\n".join(map(json.dumps, dicts)))[0]] == dicts


BAD_LINES = [
    ("2s 2h Ad / 7c 7d 9s 5h / Tc Jc Qc Kc Ac", "wrong count: middle has 4 cards"),
    ("2s 2h 2s / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac", "duplicate card 2s"),
    ("2s 2h Zd / 7c 7d 9s 5h 3d / Tc Jc Qc Kc Ac", "Zd"),
    ("2s 2h Ad 7c 7d 9s 5h 3d Tc Jc Qc Kc Ac", "with two '/'"),
]


def test_each_bad_line_is_named_with_its_number_and_reason():
    text = "\n".join([MEDIOCRE] + [line for line, _ in BAD_LINES] + [FOUL])
    with pytest.raises(PlayedHandsError) as caught:
        read_played(text, "session.txt")
    assert [line for line, _ in caught.value.problems] == [2, 3, 4, 5]
    for (line, reason), (_, expected) in zip(caught.value.problems, BAD_LINES):
        assert expected in reason, (line, reason)
    assert str(caught.value).startswith("session.txt: 4 bad lines, nothing was solved")
    hands, skipped = read_played(text, skip_bad=True)
    assert [h.line for h in hands] == [1, 6] and [line for line, _ in skipped] == [2, 3, 4, 5]
    many = "\n".join([BAD_LINES[0][0]] * 25)
    message = str(pytest.raises(PlayedHandsError, read_played, many).value)
    assert "\n" not in message and message.count("; line ") == 19 and message.endswith("; and 5 more")


@pytest.mark.parametrize("text, reason", [
    ('{"arrangement": "' + MEDIOCRE + '", "opponents": ["3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts Ac"]}',
     "card Ac is held by both the player and opponent 1"),
    ('{"arrangement": "' + MEDIOCRE + '", "opponents": 4}', "opponents must be 1 to 3"),
    ('{"arrangement": "' + MEDIOCRE + '", "rules": "vegas"}', "unknown rules preset 'vegas'"),
    ('{"arrangement": "' + MEDIOCRE + '", "colour": "red"}', "unknown field 'colour'"),
    ('{"arrangement": "' + MEDIOCRE + '"', "not a JSON object"),
    ('{"id": 3}', "no arrangement"),
])
def test_bad_json_lines_are_named(text, reason):
    with pytest.raises(PlayedHandsError) as caught:
        read_played('{"arrangement": "' + FOUL + '"}\n' + text)
    assert caught.value.problems[0][0] == 2 and reason in caught.value.problems[0][1]


def test_the_examples_of_the_docs_read_as_they_say():
    import re

    text = (ROOT / "docs" / "review.md").read_text()
    blocks = re.findall(r"```\n(.*?)```", text, flags=re.S)
    plain, jsonl = read_played(blocks[0])[0], read_played(blocks[1])[0]
    assert len(plain) == 2 and not any(h.arrangement.is_foul for h in plain)
    assert jsonl[0].id == "deal 7" and len(jsonl[0].real_opponents) == 1


def test_absurd_input_gets_one_clear_line():
    with pytest.raises(OptionError, match="binary"):
        read_played("\x00\x01\x02" * 100)
    with pytest.raises(OptionError, match="columns"):
        read_played("arrangement," + ",".join(f"c{i}" for i in range(100_000)) + "\n")
    with pytest.raises(OptionError, match="more than 3 hands"):
        read_played("\n".join([MEDIOCRE] * 4), limit=3)
    with pytest.raises(PlayedHandsError, match="no played hand"):
        read_played("# nothing\n\n")
    with pytest.raises(PlayedHandsError, match="a line of"):
        read_played(MEDIOCRE + "\n" + "x" * 100_000)
    with pytest.raises(PlayedHandsError, match="fields, the header has"):
        read_played("arrangement,id\n" + MEDIOCRE + ",1,2\n")


def test_the_numbers_do_not_depend_on_the_threads_or_the_blocks(session, reviewed, monkeypatch):
    from cpoker.jobs import review as reviews

    one = review(session, samples=300, seed=SEED, jobs=1)
    monkeypatch.setattr(reviews, "BLOCK_HANDS", 1)
    small_blocks = review(session, samples=300, seed=SEED)
    for other in (one, small_blocks):
        assert [h.to_dict() for h in other.hands] == [h.to_dict() for h in reviewed.hands]
        assert other.summary == reviewed.summary


@pytest.mark.slow
@pytest.mark.cluster
def test_a_dask_review_gives_the_local_numbers(session, reviewed):
    on_dask = review(session, samples=300, seed=SEED, backend="dask")
    assert [h.to_dict() for h in on_dask.hands] == [h.to_dict() for h in reviewed.hands]


def test_every_checkpoint_resumes_to_the_unbroken_review():
    hands = [str(cpoker.greedy(h)) for seed in range(10) for h in cpoker.deal(4, seed)][:2 * BLOCK_HANDS + 3]
    unbroken = review(hands, samples=60, seed=9)
    saved: list = []
    review(hands, samples=60, seed=9, checkpoint=saved.append, checkpoint_seconds=0)
    assert [len(s.hands) for s in saved] == [BLOCK_HANDS, 2 * BLOCK_HANDS, 2 * BLOCK_HANDS + 3]
    assert saved[0].partial and not saved[-1].partial
    for checkpoint in saved[:2]:
        resumed = review(hands, samples=60, resume=json.loads(json.dumps(checkpoint.to_dict())))
        assert [h.to_dict() for h in resumed.hands] == [h.to_dict() for h in unbroken.hands]
        assert resumed.summary == unbroken.summary and resumed.seed == 9
    with pytest.raises(OptionError, match="other hands"):
        review(hands[:-1], samples=60, resume=saved[0])
    with pytest.raises(OptionError, match="other hands"):
        review(hands, samples=61, resume=saved[0])
    with pytest.raises(OptionError, match="seed 9, not 10"):
        review(hands, samples=60, seed=10, resume=saved[0])
    damaged = json.loads(json.dumps(saved[0].to_dict()))
    damaged["hands"][1]["ev_lost"] = "lots"
    with pytest.raises(OptionError, match="damaged"):
        review(hands, samples=60, resume=damaged)


def test_bad_options_are_refused_before_any_solving():
    with pytest.raises(OptionError, match="samples"):
        review([MEDIOCRE], samples=0)
    with pytest.raises(OptionError, match="opponents"):
        review([MEDIOCRE], opponents=4)
    with pytest.raises(PlayedHandsError, match="line 2"):
        review([MEDIOCRE, "As As"])
    with pytest.raises(OptionError, match="list of played hands"):
        review(42)


def test_to_pandas_and_json():
    pandas = pytest.importorskip("pandas")
    result = review([MEDIOCRE, FOUL], samples=100, seed=2)
    frame = result.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and list(frame["ev_lost"]) == [h.ev_lost for h in result.hands]
    data = json.loads(json.dumps(result.to_dict()))
    assert data["kind"] == "review" and data["seed"] == 2 and data["summary"]["fouls"] == 1


# --- the command -----------------------------------------------------------------------------------------

def test_cli_review_prints_the_table_and_writes_every_format(tmp_path, capsys):
    session_file = tmp_path / "session.txt"
    session_file.write_text(f"{MEDIOCRE}\n{FOUL}\n")
    assert main(["review", str(session_file), "--samples", "200", "--seed", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "review of 2 hands" in out and "FOUL" in out and "fouled: 1" in out
    rows = [line.split()[:2] for line in out.splitlines() if line.startswith("     ") and line.split()[0].isdigit()]
    assert rows == [["1", "1"], ["2", "2"]]  # hands numbered from 1, as their lines are
    assert "  #2, line 2: lost" in out  # the foul, the costliest
    expected = review([MEDIOCRE, FOUL], samples=200, seed=3)
    assert f"EV lost: {expected.summary.total_ev_lost:.3f} in all" in out
    assert main(["review", str(session_file), "--samples", "200", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == json.loads(json.dumps([h.to_dict() for h in expected.hands]))
    for suffix in ("csv", "json", "parquet"):
        out_file = tmp_path / f"review.{suffix}"
        assert main(["review", str(session_file), "--samples", "200", "--seed", "3", "--quiet", "--out",
                     str(out_file)]) == 0
        assert out_file.stat().st_size > 100
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    table = pandas.read_parquet(tmp_path / "review.parquet")
    assert list(table["ev_lost"]) == [h.ev_lost for h in expected.hands]
    assert list(pandas.read_csv(tmp_path / "review.csv")["ev_lost"]) == [h.ev_lost for h in expected.hands]


def test_cli_review_refuses_a_bad_file_naming_the_line_and_solves_nothing(tmp_path, capsys, monkeypatch):
    from cpoker.jobs import solve as solver

    monkeypatch.setattr(solver, "solve", lambda *a, **k: pytest.fail("solved a hand of a bad file"))
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{MEDIOCRE}\n2s 2h Ad / 7c 7d 9s 5h / Tc Jc Qc Kc Ac\n")
    assert main(["review", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"cpoker: error: {bad}: 1 bad line, nothing was solved (skip_bad, or --skip-bad, reviews the others):",
        "  line 2: not a valid arrangement: wrong count: middle has 4 cards, needs 5"]
    bad.write_text("\n".join(["2s 2h Ad / 7c"] * 23))
    assert main(["review", str(bad)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 22 and lines[1].startswith("  line 1: an arrangement is 'front / middle / back'")
    assert lines[-1] == "  and 3 more"
    for path, message in [(tmp_path / "missing.txt", "cannot read"), (tmp_path, "is a directory")]:
        assert main(["review", str(path)]) == 2
        assert message in capsys.readouterr().err
    assert main(["review", str(bad), "--out", str(tmp_path / "r.xlsx")]) == 2
    assert "--out must end in .json, .csv or .parquet" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # pyarrow not installed: refused before any work
    assert main(["review", str(bad), "--out", str(tmp_path / "r.parquet")]) == 2
    assert "pip install 'cpoker[parquet]'" in capsys.readouterr().err


@pytest.mark.subprocess
def test_cli_review_reads_standard_input_and_skips_bad_lines_when_asked():
    text = f"{MEDIOCRE}\nnot a hand\n{FOUL}\n"
    done = subprocess.run([sys.executable, "-m", "cpoker", "review", "-", "--samples", "100", "--seed", "1",
                           "--skip-bad", "--json"], input=text, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [h["line"] for h in data["hands"]] == [1, 3] and data["skipped"][0]["line"] == 2
    assert done.stderr.startswith("cpoker: warning: skipped line 2: an arrangement is")


@pytest.mark.slow
@pytest.mark.signals
@pytest.mark.subprocess
def test_a_real_ctrl_c_gives_the_partial_review_and_resume_continues_it(tmp_path):
    hands = [str(cpoker.greedy(h)) for seed in range(24) for h in cpoker.deal(4, seed)]  # 96 hands
    session_file = tmp_path / "session.txt"
    session_file.write_text("\n".join(hands) + "\n")
    out = tmp_path / "review.json"
    argv = [sys.executable, "-m", "cpoker", "review", str(session_file), "--samples", "2000", "--seed", "4",
            "--out", str(out), "--checkpoint", "--checkpoint-seconds", "0.1", "--quiet"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not out.exists():
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert "PARTIAL" in stdout and f"--resume {out}" in stdout
    partial = json.loads(out.read_text())
    assert partial["partial"] and 0 < partial["hands_reviewed"] < 96 and partial["hands_reviewed"] % BLOCK_HANDS == 0
    assert main(["review", str(session_file), "--resume", str(out), "--quiet"]) == 0
    finished = json.loads(out.read_text())
    unbroken = review(hands, samples=2000, seed=4)
    assert finished["hands"] == json.loads(json.dumps([h.to_dict() for h in unbroken.hands]))
    assert not finished["partial"] and os.path.getsize(out) > 0


def test_a_line_rules_and_opponents_are_that_hand_own():
    line = json.dumps({"arrangement": MEDIOCRE, "rules": "2-4", "opponents": 2})
    result = review(read_played(line + "\n" + json.dumps({"arrangement": FOUL}))[0], samples=150, seed=8)
    own, default = result.hands
    assert (own.rules, own.opponents, default.rules, default.opponents) == ("2-4", 2, "pagat", 1)
    alone = solve([int(c) for c in cpoker.Arrangement.parse(MEDIOCRE).cards], opponents=2, samples=150,
                  seed=derived_seed(8, 0), rules="2-4", compare=MEDIOCRE)
    assert (own.ev_best, own.ev_lost) == (alone.ev, alone.ev_lost) and own.seed == derived_seed(8, 0)


@pytest.mark.subprocess
def test_a_bot_opponent_reviews_as_the_strategy_it_plays():
    """cmd: bots are opponents too (one hand at a time): a bot playing cpoker's greedy gives greedy's numbers."""
    import shlex

    script = shlex.quote(str(ROOT / "examples" / "bots" / "python_bot.py"))
    bot = f"cmd:{shlex.quote(sys.executable)} {script} --strategy greedy"
    by_bot = review([MEDIOCRE, FOUL], samples=120, seed=6, opponent=bot)
    built_in = review([MEDIOCRE, FOUL], samples=120, seed=6, opponent="greedy")
    assert [h.ev_lost for h in by_bot.hands] == [h.ev_lost for h in built_in.hands]
    assert by_bot.bot_faults == 0 and by_bot.opponent_model.startswith("cmd:")
