"""Open-face matches: duplicate and zero-sum, Fantasyland carried, faults contained, seeded, strict JSON, threads
held, and the command (the hands themselves: tests/game/test_ofc_hand.py)."""

import json
import os
import signal
import threading

import pytest
from helpers import RecordingHeuristic

from cpoker import OptionError, StrategyError
from cpoker.cli import main
from cpoker.game.ofc.rules import OfcRules
from cpoker.jobs.ofc.match import match, resolve_ofc_strategy

PINEAPPLE = OfcRules.preset("pineapple")


def junk(view):
    return "As Ks / - / -"


def test_a_fault_forfeits_the_hand():
    played = match([junk, "heuristic"], hands=4, rules=PINEAPPLE, seed=1)
    faulty, fine = played.scores
    assert faulty.faults == faulty.hands == 8 and faulty.foul_rate == 1.0 and fine.faults == 0
    assert faulty.points < 0 and faulty.points == -fine.points


def test_duplicate_matches_are_zero_sum_and_identical_strategies_tie():
    same = match(["heuristic", "heuristic"], hands=30, rules=PINEAPPLE, seed=4)
    assert same.duplicate and same.hands == 30 and all(s.points == 0 and s.hands == 60 for s in same.scores)
    three = match(["heuristic", RecordingHeuristic(), "heuristic"], hands=20, rules=PINEAPPLE, seed=4)
    assert not three.duplicate and abs(sum(s.points for s in three.scores)) < 1e-9
    assert three.names[1] == "recorder" and all(s.hands == 20 for s in three.scores)


def test_fantasyland_carries_within_a_session():
    recorder = RecordingHeuristic()
    played = match([recorder, "heuristic"], hands=300, rules=PINEAPPLE, seed=2, session_hands=30)
    ours = played.scores[0]
    fantasy = [v for v in recorder.views if v.fantasyland]
    assert ours.fantasyland_hands == len(fantasy) > 0 and all(len(v.cards) == 14 for v in fantasy)
    assert 0 < ours.fantasyland_entry_rate < 0.1 and ours.fantasyland_stay_interval[0] >= 0


def test_a_seed_gives_the_same_match_on_any_number_of_threads():
    one = match(["mc:8", "heuristic"], hands=3, rules=PINEAPPLE, seed=9, jobs=1, session_hands=1)
    two = match(["mc:8", "heuristic"], hands=3, rules=PINEAPPLE, seed=9, jobs=2, session_hands=1)
    assert json.dumps([s.to_dict() for s in one.scores]) == json.dumps([s.to_dict() for s in two.scores])


def test_strategies_and_options_are_checked():
    assert resolve_ofc_strategy("mc")[0] == "mc" and resolve_ofc_strategy("mc:500")[0] == "mc:500"
    name, loaded = resolve_ofc_strategy("tests.jobs.test_ofc_match:junk")
    assert name == "tests.jobs.test_ofc_match:junk" and loaded.__name__ == "junk"
    assert resolve_ofc_strategy("cmd:./bot --level 3")[0] == "cmd:./bot --level 3"  # started when first asked
    for strategy, words in (("table", "unknown open-face strategy"), ("nowhere.module:f", "cannot load"),
                            (3, "got int")):
        with pytest.raises(StrategyError, match=words):
            resolve_ofc_strategy(strategy)
    with pytest.raises(OptionError, match="2 or 3 strategies"):
        match(["heuristic"], hands=1)
    with pytest.raises(OptionError, match="hands"):
        match(["heuristic", "heuristic"], hands=0)


def test_the_command(capsys):
    assert main(["ofc", "match", "heuristic", "heuristic", "--rules", "pineapple", "--hands", "20", "--seed", "3",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 20 and data["seed"] == 3 and data["duplicate"] and len(data["scores"]) == 2
    assert set(data["scores"][0]) >= {"points", "interval", "foul_rate", "fantasyland_entry_rate", "royalties"}
    assert main(["ofc", "match", "heuristic", "heuristic", "--hands", "20", "--seed", "3"]) == 0
    assert "20 deals of ofc (duplicate" in capsys.readouterr().out
    assert main(["ofc", "match", "heuristic", "nope"]) == 2
    assert "unknown open-face strategy 'nope'" in capsys.readouterr().err


def test_a_real_ctrl_c_returns_the_sessions_done():
    match(["heuristic", "mc:8"], hands=1, rules=PINEAPPLE, seed=1)  # compiled and warm
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        played = match(["heuristic", "mc:16"], hands=10_000, rules=PINEAPPLE, seed=1, session_hands=2)
    finally:
        timer.cancel()
    assert played.partial and 0 < played.hands < 10_000 and played.hands % 2 == 0


def test_a_match_resumed_is_the_match_never_stopped(tmp_path, capsys):
    whole = match(["heuristic", "mc:4"], hands=30, rules=PINEAPPLE, seed=6)
    half = match(["heuristic", "mc:4"], hands=20, rules=PINEAPPLE, seed=6)
    saved = json.loads(json.dumps(half.to_dict()))  # as a file holds it
    continued = match(["heuristic", "mc:4"], hands=30, rules=PINEAPPLE, resume=saved)
    assert continued.seed == 6 and json.dumps([s.to_dict() for s in continued.scores]) == \
        json.dumps([s.to_dict() for s in whole.scores])
    with pytest.raises(OptionError, match="session_hands"):
        match(["heuristic", "mc:4"], hands=30, rules=PINEAPPLE, resume=saved, session_hands=5)
    with pytest.raises(OptionError, match="strategies"):
        match(["heuristic", "heuristic"], hands=30, rules=PINEAPPLE, resume=saved)
    # the command: --out, then --resume with more hands; a checkpoint file is a result to resume
    out = tmp_path / "match.json"
    assert main(["ofc", "match", "heuristic", "mc:4", "--rules", "pineapple", "--hands", "20", "--seed", "6",
                 "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["ofc", "match", "--resume", str(out), "--hands", "30", "--json", "--quiet"]) == 0
    printed, kept = json.loads(capsys.readouterr().out), json.loads(out.read_text())
    assert printed["hands"] == kept["hands"] == 30 and kept["scores"][1]["points"] == whole.scores[1].points
    assert main(["ofc", "match", "heuristic", "heuristic", "--hands", "10", "--checkpoint", "--quiet"]) == 2


@pytest.mark.slow
@pytest.mark.cluster
def test_a_match_on_a_dask_cluster_is_the_local_match():
    pytest.importorskip("distributed")
    local = match(["heuristic", "mc:4"], hands=20, rules=PINEAPPLE, seed=8, session_hands=5)
    remote = match(["heuristic", "mc:4"], hands=20, rules=PINEAPPLE, seed=8, session_hands=5, backend="dask")
    assert json.dumps([s.to_dict() for s in remote.scores]) == json.dumps([s.to_dict() for s in local.scores])


def _strict(text: str):
    """JSON text read as a strict parser (JavaScript's JSON.parse) reads it: NaN and Infinity are errors."""
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_a_match_of_one_session_writes_strict_json_and_words(tmp_path, capsys):
    """One session has no interval for the points, and no Fantasyland hand no stay rate: null in JSON (NaN before),
    words in text ('[+nan, +nan]' before)."""
    played = match(["heuristic", "heuristic"], hands=3, rules=PINEAPPLE, seed=1, session_hands=5)
    data = _strict(json.dumps(played.to_dict()))
    assert data["scores"][0]["interval"] == [None, None] and data["scores"][0]["fantasyland_stay_rate"] is None
    out = tmp_path / "match.json"
    assert main(["ofc", "match", "heuristic", "heuristic", "--rules", "pineapple", "--hands", "3",
                 "--session-hands", "5", "--seed", "1", "--json", "--out", str(out), "--quiet"]) == 0
    assert _strict(capsys.readouterr().out)["scores"][1]["fantasyland_stay_interval"] == [None, None]
    assert _strict(out.read_text())["scores"][0]["interval"] == [None, None]
    assert main(["ofc", "match", "heuristic", "heuristic", "--rules", "pineapple", "--hands", "3",
                 "--session-hands", "5", "--seed", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "[one session]" in text and "nan" not in text.lower()


def test_mc_rollouts_out_of_range_are_named():
    for name, words in (("mc:0", "got 0"), ("mc:99999999", "got 99,999,999"), ("mc:abc", "got 'mc:abc'")):
        with pytest.raises(StrategyError, match=f"mc:N takes a whole number of rollouts from 1 to 100,000, {words}"):
            resolve_ofc_strategy(name)
    with pytest.raises(StrategyError, match="mc-flat:N takes a whole number"):
        resolve_ofc_strategy("mc-flat:0")
    assert [resolve_ofc_strategy(name)[0] for name in ("mc", "mc:300", "mc:64", "mc-flat", "mc-flat:100",
                                                       "mc-flat:7")] == ["mc", "mc", "mc:64", "mc-flat", "mc-flat",
                                                                         "mc-flat:7"]


def test_mc_meets_an_opponent_in_fantasyland_as_the_table_shows_it():
    """Progressive, an opponent in a 17-card Fantasyland (the view says its size): mc's board is the placement
    solver's against that Fantasyland: adaptive over learned rollouts for ``mc``, flat over static ones for
    ``mc-flat``."""
    from cpoker.game.ofc.hand import OfcHand, seeded, table_deck
    from cpoker.jobs.ofc.placement import place

    progressive = OfcRules.preset("progressive")
    hand = OfcHand(progressive, table_deck(8), [0, 17], seeded(8))
    hand.apply(resolve_ofc_strategy("heuristic")[1](hand.view()))  # the Fantasyland sets first
    view = hand.view()
    assert view.opponent_fantasylands == (17,) and not view.fantasyland
    for name, adaptive, samples in (("mc:128", True, 128), ("mc-flat:64", False, 64)):
        chosen = resolve_ofc_strategy(name)[1](view)
        solved = place(view.board, view.cards, progressive, opponents=[view.opponents[0]], dead=view.discards,
                       samples=samples, seed=view.seed, fantasylands=[17], adaptive=adaptive,
                       policy="learned" if adaptive else "static")
        assert chosen == solved.best.board


def test_jobs_one_is_held_inside_the_mc_placements(monkeypatch):
    """``jobs=1``: mc's placements (a job inside the match's job) run on one thread, not on every core."""
    import numba

    import cpoker.system.threads as threads

    seen = []
    original = threads.in_parts

    def recording(*args, **kwargs):
        seen.append(numba.get_num_threads())
        return original(*args, **kwargs)

    monkeypatch.setattr(threads, "in_parts", recording)
    match(["mc:8", "heuristic"], hands=1, rules=PINEAPPLE, seed=1, jobs=1)
    assert seen and set(seen) == {1}


def test_a_saved_match_holds_a_few_sums_whatever_its_length():
    """The saved state was a list growing with every session; now exact sums, the same size for 2 sessions as
    for 60 (and a resumed match still reruns to the unbroken one: test above)."""
    short = match(["heuristic", "heuristic"], hands=2, rules=PINEAPPLE, seed=1, session_hands=1).to_dict()
    long = match(["heuristic", "heuristic"], hands=60, rules=PINEAPPLE, seed=1, session_hands=1).to_dict()
    assert short["state"].keys() == long["state"].keys() == {"format", "totals", "sessions"}
    assert long["state"]["sessions"]["sessions"] == 60
    assert abs(len(json.dumps(long["state"])) - len(json.dumps(short["state"]))) < 200
