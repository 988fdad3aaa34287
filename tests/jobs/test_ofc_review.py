"""The open-face review: each decision valued as ``place`` values it by hand, a Fantasyland against the Fantasyland
solver, skill and luck adding up to each player's result, a weaker player found weaker, Ctrl-C and resume, and the
command (its outputs, and a bad file's one line a problem)."""

import json
import os
import signal
import threading

import pytest

from cpoker import OptionError
from cpoker.cli import main
from cpoker.game.ofc.hand import OfcHand, seeded, table_deck
from cpoker.game.ofc.history import hand_history, history_lines
from cpoker.game.ofc.rules import OfcRules
from cpoker.jobs.ofc.match import match
from cpoker.jobs.ofc.placement import place
from cpoker.jobs.ofc.review import review
from cpoker.strategies.ofc.fantasyland import fantasyland, fantasyland_values
from cpoker.strategies.ofc.heuristic import heuristic

SAMPLES = 200


@pytest.fixture(scope="module")
def session():
    """A recorded duplicate session of mc against the heuristic (3 deals of Pineapple, 6 hands), reviewed."""
    hands = []
    played = match(["mc:100", "heuristic"], hands=3, rules="pineapple", seed=2, record=hands.append)
    return played, hands, review(hands, samples=SAMPLES, seed=1)


def test_each_decision_is_valued_as_place_values_that_position_by_hand(session):
    _, hands, reviewed = session
    assert len(reviewed.decisions) == sum(len(h.decisions) for h in hands) > 40
    assert any(d.fantasyland for d in reviewed.decisions)  # (Fantasyland carries in the session)
    for decision in [d for d in reviewed.decisions if not d.fantasyland][::7]:  # openings, later rounds, both
        hand = hands[decision.hand]
        seen = hand.decisions[decision.decision - 1]
        by_hand = place(seen.board, seen.cards, "pineapple", opponents=list(seen.opponents), dead=seen.dead,
                        samples=SAMPLES, seed=decision.seed, fantasylands=seen.opponent_fantasylands,
                        compare=seen.placed)
        chosen = by_hand.compared_option
        assert (decision.ev_chosen, decision.ev_best, decision.ev_lost) == (chosen.ev, by_hand.best.ev,
                                                                            max(chosen.loss, 0.0))
        assert decision.rank == by_hand.compared and decision.options == len(by_hand.options)
        assert decision.best == str(by_hand.best.board) and decision.chosen == str(seen.placed)
        assert decision.ev_lost == pytest.approx(decision.ev_best - decision.ev_chosen, abs=1e-9)  # same deals


def test_skill_and_luck_add_up_to_each_result_and_the_weaker_player_loses_more(session):
    played, hands, reviewed = session
    assert {p.name for p in reviewed.players} == {"mc:100", "heuristic"}
    for score in played.scores:
        player = reviewed.player(score.name)
        assert player.hands == score.hands == 6
        assert player.points == round(score.points * score.hands)
        assert player.skill + player.luck == pytest.approx(player.points, abs=1e-9)
        assert player.skill == -player.ev_lost
        assert player.decisions == sum(h.players[d.seat].name == player.name for h in hands for d in h.decisions)
    weak, strong = reviewed.player("heuristic"), reviewed.player("mc:100")
    # the heuristic (the rollout policy alone) loses clearly more a decision than the search over it
    assert weak.mean_ev_lost_interval[0] > strong.mean_ev_lost_interval[1]
    assert weak.mistakes > strong.mistakes and weak.best_choices < strong.best_choices
    costliest = [reviewed.decisions[k].ev_lost for k in reviewed.costliest]
    assert costliest == sorted(costliest, reverse=True) == sorted((d.ev_lost for d in reviewed.decisions),
                                                                  reverse=True)[:10]
    frame = reviewed.to_pandas()
    assert len(frame) == len(reviewed.decisions)
    assert frame["ev_lost"].sum() == pytest.approx(weak.ev_lost + strong.ev_lost)
    json.dumps(reviewed.to_dict(), allow_nan=False)


def test_a_fantasyland_is_valued_against_the_fantasyland_solver_on_the_same_boards():
    rules = OfcRules.preset("progressive")
    hand = OfcHand(rules, table_deck(5), [15, 0], seeded(5))
    while not hand.is_over:
        hand.play(heuristic)  # the heuristic sets a Fantasyland for royalties, not for EV
    history = hand_history(hand, ["fl", "other"])
    (decision,) = review([history], players=["fl"], samples=300, seed=4).decisions
    assert decision.fantasyland and decision.rank is None and decision.step == 0
    cards = history.decisions[0].cards
    best = fantasyland(cards, rules, "ev", samples=300, seed=decision.seed)
    values = fantasyland_values([best.board, history.decisions[0].placed], cards, rules, 300, decision.seed)
    assert decision.best == str(best.board) and decision.ev_best == pytest.approx(best.value, abs=1e-9)
    assert decision.ev_chosen == pytest.approx(values[1].mean()) and decision.ev_lost >= 0
    assert decision.ev_lost == pytest.approx(max(values[0].mean() - values[1].mean(), 0.0)) or \
        decision.best == decision.chosen


@pytest.mark.slow  # (the default tier reviews a session; this runs in the full tier)
def test_a_review_resumed_is_the_review_never_stopped_and_bad_options_are_named(session):
    _, hands, reviewed = session
    cut = review(hands, samples=SAMPLES, seed=1, time_budget=1e-6)  # the first hand, then the budget is spent
    assert cut.partial and cut.hands == 1 and cut.asked == 6
    saved = json.loads(json.dumps(cut.to_dict()))
    whole = review(hands, samples=SAMPLES, resume=saved)
    assert not whole.partial and whole.seed == 1
    assert [d.to_dict() for d in whole.decisions] == [d.to_dict() for d in reviewed.decisions]
    with pytest.raises(OptionError, match="other hands, players, samples or policy"):
        review(hands, samples=SAMPLES + 1, resume=saved)
    with pytest.raises(OptionError, match="no player 'nobody' in the hands; their players: heuristic, mc:100"):
        review(hands, players=["nobody"])
    with pytest.raises(OptionError, match="a hand history is a HandHistory or its dict, got int"):
        review([3])


@pytest.mark.slow  # (the default tier reviews a session; this runs in the full tier)
def test_a_real_ctrl_c_keeps_the_hands_reviewed(session):
    _, hands, _ = session
    timer = threading.Timer(2.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        stopped = review(hands * 20, samples=SAMPLES, seed=1)
    finally:
        timer.cancel()
    assert stopped.partial and 0 < stopped.hands < 120
    assert len(stopped.decisions) == sum(len(h.decisions) for h in (hands * 20)[:stopped.hands])
    assert stopped.players[0].hands + stopped.players[1].hands == 2 * stopped.hands


def test_the_command_records_reviews_and_writes_every_format(tmp_path, capsys):
    record, out = tmp_path / "hands.jsonl", tmp_path / "review.json"
    assert main(["ofc", "match", "heuristic", "heuristic-static", "--rules", "ofc", "--hands", "2", "--seed", "3",
                 "--record", str(record), "--quiet"]) == 0
    assert "the hands' histories in" in capsys.readouterr().out
    assert main(["ofc", "review", str(record), "--samples", "32", "--seed", "1", "--player", "heuristic", "--out",
                 str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "review of 4 hands" in printed and "costliest decisions" in printed and "result = skill + luck" in printed
    saved = json.loads(out.read_text())
    assert saved["kind"] == "ofc-review" and [p["name"] for p in saved["players"]] == ["heuristic"]
    assert len(saved["decisions"]) == 4 * 9  # OFC: the first five, then eight cards one at a time
    for suffix in ("csv", "parquet"):
        assert main(["ofc", "review", str(record), "--samples", "32", "--seed", "1", "--out",
                     str(tmp_path / f"r.{suffix}"), "--quiet"]) == 0
    import pandas

    table = pandas.read_parquet(tmp_path / "r.parquet")
    assert len(table) == 72 and {"ev_lost", "ev_lost_low", "rank", "chosen", "best"} <= set(table.columns)
    assert (tmp_path / "r.csv").read_text().count("\n") == 73
    # a file with a broken hand: one line a problem, nothing reviewed, nothing written
    lines = record.read_text().splitlines()
    broken = json.loads(lines[1])
    broken["decisions"][4]["cards"] = "As"
    (tmp_path / "bad.jsonl").write_text("\n".join([lines[0], json.dumps(broken), "oops"]) + "\n")
    capsys.readouterr()
    assert main(["ofc", "review", str(tmp_path / "bad.jsonl"), "--out", str(tmp_path / "no.json")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"cpoker: error: {tmp_path / 'bad.jsonl'}: 2 of 3 hands cannot be read"
    assert err[1].startswith(f"  line 2 (id {broken['id']}): decision ") and err[2].startswith("  line 3: not JSON")
    assert not (tmp_path / "no.json").exists()
    assert main(["ofc", "review", str(record), "--player", "nobody"]) == 2
    assert "no player 'nobody'" in capsys.readouterr().err
    assert history_lines([]) == ""
