"""Open-face hand histories: written by every table, valid against the shipped JSON Schema, read back the same,
and a record the rules do not make legal refused with one line naming the hand and the decision."""

import copy
import json
from importlib import resources

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpoker.game.cards import format_cards
from cpoker.game.ofc.hand import OfcHand, seeded, table_deck
from cpoker.game.ofc.history import (FORMAT, HandHistory, HistoryError, hand_history, history_lines,
                                     read_histories, replay)
from cpoker.game.ofc.rules import OfcRules
from cpoker.strategies.ofc.heuristic import heuristic

SCHEMA = json.loads((resources.files("cpoker") / "data" / "ofc_history.schema.json").read_text("utf-8"))


def played(game: str, sizes, deck_seed: int, faulty: int = -1) -> HandHistory:
    """A hand of ``game`` played by the heuristic (seat ``faulty`` forfeits its second decision)."""
    hand = OfcHand(OfcRules.preset(game), table_deck(deck_seed), sizes, seeded(9, deck_seed))
    while not hand.is_over:
        if hand.actor == faulty and len([d for d in hand.decisions if d.seat == faulty]) == 1:
            hand.play(lambda view: "not a board")
        else:
            hand.play(heuristic)
    return hand_history(hand, [f"p{k}" for k in range(len(sizes))], id=f"{game}-{deck_seed}",
                        seats=list(range(len(sizes)))[::-1], button=0, source={"note": "test"})


HANDS = [played("pineapple", [0, 0, 0], 1), played("pineapple", [14, 0], 2), played("ofc", [0, 0], 3),
         played("ofc", [0, 13, 0], 4), played("progressive", [0, 16], 5), played("progressive", [17, 0, 15], 6),
         played("pineapple", [0, 0], 7, faulty=1)]


def test_written_histories_are_valid_against_the_schema_and_read_back_the_same():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    text = history_lines(HANDS)
    for line in text.splitlines():
        jsonschema.validate(json.loads(line), SCHEMA)
    back = read_histories(text)
    assert [h.to_dict() for h in back] == [h.to_dict() for h in HANDS]
    # a JSON array, and the web page's {"hands": [...]}, read the same; so does one pretty-printed record
    listed = [h.to_dict() for h in HANDS]
    assert [h.to_dict() for h in read_histories(json.dumps(listed, indent=2))] == listed
    assert [h.to_dict() for h in read_histories(json.dumps({"kind": "web", "hands": listed}))] == listed
    assert read_histories(json.dumps(listed[2], indent=1))[0].to_dict() == listed[2]


def test_a_history_holds_what_each_player_saw_and_the_hand_replays_to_its_result():
    fantasy = HANDS[1]
    first = fantasy.decisions[0]
    assert first.step == 0 and len(first.cards) == 14 and first.placed.is_complete  # the Fantasyland, whole
    later = [d for d in fantasy.decisions if d.seat == 1]
    assert all(d.opponents == (fantasy.decisions[0].board,) and d.opponent_fantasylands == (14,) for d in later)
    assert later[-1].dead == tuple(sorted(c for d in later[:-1] for c in d.discards))
    faulty = HANDS[-1]
    assert faulty.players[1].fault and faulty.players[1].fouled and faulty.players[1].points < 0
    for history in HANDS:
        record = replay(history).record()
        assert record.settlement.results == [p.points for p in history.players]
        assert sum(p.points for p in history.players) == 0 and history.to_dict()["format"] == FORMAT
        assert history.button == 0 and [p.seat for p in history.players] == list(range(len(history.players)))[::-1]


def test_a_malformed_file_is_one_line_a_problem_and_nothing_is_read():
    good = HANDS[0].to_dict()
    moved = copy.deepcopy(good)
    moved["decisions"][3]["placed"] = moved["decisions"][3]["board"]  # nothing placed
    wrong_points = copy.deepcopy(HANDS[2].to_dict())
    wrong_points["players"][0]["points"] += 1
    lines = [json.dumps(good), json.dumps(moved), "{not json", json.dumps(wrong_points), "",
             json.dumps({**good, "version": 7}), "[1, 2]"]
    with pytest.raises(HistoryError) as caught:
        read_histories("\n".join(lines) + "\n", "session.jsonl")
    problems = caught.value.problems
    assert str(caught.value) == "session.jsonl: 5 of 6 hands cannot be read"
    assert problems == [
        "line 2 (id pineapple-1): decision 4: the board after "
        f"({moved['decisions'][3]['board']}) placed 0 of the cards dealt, not 2",
        "line 3: not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
        "line 4 (id ofc-3): player 0: points is "
        f"{wrong_points['players'][0]['points']}, but the hand played gives {HANDS[2].players[0].points}",
        "line 6 (id pineapple-1): hand history version 7; this cpoker reads version 1",
        "line 7: a hand is an object, got [1, 2]"]
    for text, message in [("", "holds no hand"), ("NaN\n", "line 1: not JSON (NaN is not JSON)"),
                          ('{"hands": 3}', "neither a hand history")]:
        with pytest.raises(HistoryError) as caught:
            read_histories(text)
        assert message in " ".join([str(caught.value), *caught.value.problems])


MUTATIONS = ["swap a dealt card", "move a placed card", "act out of turn", "drop the last decision", "a card twice",
             "a wrong seen board", "a wrong dead card", "a missing field", "a wrong type", "a wrong royalty"]


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(HANDS))), st.sampled_from(MUTATIONS), st.integers(0, 10 ** 6))
def test_every_broken_record_is_refused_by_name_never_a_crash(which, mutation, pick):
    """Whatever is broken in a record, reading it is a HistoryError naming the hand (a decision when one is
    wrong), not an exception of another kind, and never a record read as if it were fine."""
    data = copy.deepcopy(HANDS[which].to_dict())
    decisions = data["decisions"]
    normal = [k for k, d in enumerate(decisions) if d["placed"] is not None and d["step"] > 1]
    k = normal[pick % len(normal)]
    d = decisions[k]
    if mutation == "swap a dealt card":
        used = {c for x in decisions for c in x["cards"].split()}
        spare = next(c for c in format_cards(range(52)).split() if c not in used)
        old = d["cards"].split()[0]
        d["cards"] = d["cards"].replace(old, spare)
    elif mutation == "move a placed card":
        front, middle, back = d["placed"].split(" / ")
        before = d["board"].split(" / ")
        d["placed"] = " / ".join([middle if before[1] != "-" else front, front, back]) if front != "-" else \
            " / ".join(["-", back, middle])
    elif mutation == "act out of turn":
        decisions[k], decisions[k - 1] = decisions[k - 1], decisions[k]
        if decisions[k]["player"] == decisions[k - 1]["player"]:
            decisions[k]["player"] = (decisions[k]["player"] + 1) % len(data["players"])
    elif mutation == "drop the last decision":
        decisions.pop()
    elif mutation == "a card twice":
        d["cards"] = " ".join([decisions[0]["cards"].split()[0], *d["cards"].split()[1:]])
    elif mutation == "a wrong seen board":
        if not d["opponents"]:
            return
        d["opponents"][0] = "- / - / -" if d["opponents"][0] != "- / - / -" else "As / - / -"
    elif mutation == "a wrong dead card":
        d["dead"] = "2c" if d["dead"] != "2c" else "3c"
    elif mutation == "a missing field":
        del d[sorted(d)[pick % len(d)]]
    elif mutation == "a wrong type":
        d["keep"] = "two"
    elif mutation == "a wrong royalty":
        data["players"][0]["royalties"][2] += 1
    with pytest.raises(HistoryError) as caught:
        read_histories(json.dumps(data))
    (problem,) = caught.value.problems
    assert problem.startswith(f"hand 1 (id {data['id']}): ")


def test_the_hands_a_match_plays_and_the_environment_deals_write_histories(tmp_path):
    from cpoker.jobs.ofc.match import match
    from cpoker.rl.ofc_env import env

    kept = []
    result = match(["heuristic", "heuristic-static"], hands=6, rules="progressive", seed=3, session_hands=3,
                   record=kept.append)
    file = tmp_path / "hands.jsonl"
    again = match(["heuristic", "heuristic-static"], hands=6, rules="progressive", seed=3, session_hands=3,
                  record=file)
    assert file.read_text() == history_lines(kept) and len(kept) == 12  # duplicate: each deal twice
    read = read_histories(file.read_text())
    for line in file.read_text().splitlines():
        jsonschema.validate(json.loads(line), SCHEMA)
    for score in (*result.scores, *again.scores):
        assert sum(p.points for h in read for p in h.players if p.name == score.name) == score.points * score.hands
    assert {h.id for h in read} == {f"3-{s}-{h}-{c}" for s in range(2) for h in range(3) for c in range(2)}
    assert read[0].players[0].name == "heuristic-static" and [p.seat for p in read[0].players] == [1, 0]
    assert read[0].button == 0 and read[3].source["copy"] == 1 and read[3].players[0].name == "heuristic"
    # the environment's hand, a bot author's record of their own games
    game = env("pineapple")
    game.reset(seed=11)
    while not all(game.terminations.values()):
        agent = game.agent_selection
        game.step(game.action_of(agent, heuristic(game.view(agent))))
    history = game.history({"player_0": "mine"})
    assert history.players[0].name == "mine" and read_histories(history_lines([history]))[0].id == "11"
    assert [p.points for p in history.players] == [game.rewards[a] for a in game.possible_agents]


def test_a_match_resumed_adds_to_its_record_the_hands_an_unbroken_one_records(tmp_path):
    from cpoker.jobs.ofc.match import match

    first, whole = tmp_path / "first.jsonl", tmp_path / "whole.jsonl"
    half = match(["heuristic", "heuristic-static"], hands=10, rules="pineapple", seed=4, session_hands=5,
                 record=first)
    match(["heuristic", "heuristic-static"], hands=20, rules="pineapple", resume=json.loads(json.dumps(half.to_dict())),
          session_hands=5, record=first)
    match(["heuristic", "heuristic-static"], hands=20, rules="pineapple", seed=4, session_hands=5, record=whole)
    assert first.read_text() == whole.read_text() and len(whole.read_text().splitlines()) == 40
    assert not list(tmp_path.glob(".*.tmp"))  # nothing half-written left beside them
