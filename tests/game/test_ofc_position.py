"""Positions from JSON in the shapes public OFC tools use: every spelling reads to the position the table showed,
``place`` solves it as given by hand, and a wrong field is named."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cpoker import ArrangementError, CardError, OptionError
from cpoker.cli import main
from cpoker.game.ofc.hand import OfcHand, seeded, table_deck
from cpoker.game.ofc.position import read_position
from cpoker.game.ofc.rules import OfcRules
from cpoker.jobs.ofc.placement import place
from cpoker.strategies.ofc.heuristic import heuristic


def seen_decisions(game: str, sizes, seed: int) -> list:
    """``(rules, decision)`` of every normal decision of a hand the heuristic plays."""
    rules = OfcRules.preset(game)
    hand = OfcHand(rules, table_deck(seed), sizes, seeded(seed))
    while not hand.is_over:
        hand.play(heuristic)
    return [(rules, d) for d in hand.decisions if d.step > 0]


SEEN = [*seen_decisions("pineapple", [0, 0, 0], 1), *seen_decisions("ofc", [0, 0], 2),
        *seen_decisions("progressive", [15, 0], 3)]


def rows_of(board, names, as_list: bool) -> dict:
    """A board's rows in a public tool's shape (an empty row left out, as some tools do, or an empty list)."""
    return {name: [str(c) for c in row] if as_list else " ".join(str(c) for c in row)
            for name, row in zip(names, board.rows) if row or as_list}


@given(st.sampled_from(range(len(SEEN))), st.sampled_from([("top", "middle", "bottom"), ("front", "mid", "back")]),
       st.sampled_from(["cards", "hand", "to_place", "dealt"]), st.sampled_from(["dead", "dead_cards", "discards"]),
       st.sampled_from(["rules", "game", "variant"]), st.booleans(), st.booleans())
def test_every_spelling_reads_to_the_position_the_table_showed(which, rows, cards, dead, game, as_list, street):
    rules, seen = SEEN[which]
    data = {**rows_of(seen.board, rows, as_list), cards: [str(c) for c in seen.cards] if as_list else
            " ".join(str(c) for c in seen.cards), dead: [str(c) for c in seen.dead], game: rules.name,
            "opponents": [rows_of(b, rows, as_list) if not size else {"fantasyland": size}
                          for b, size in zip(seen.opponents, seen.opponent_fantasylands)]}
    if street:
        data["street"] = seen.step
    position = read_position(json.dumps(data))
    assert (position.rules, position.board, position.cards, set(position.dead), position.opponents,
            position.fantasylands) == (rules, seen.board, seen.cards, set(seen.dead), seen.opponents,
                                       seen.opponent_fantasylands)
    again = read_position(position.to_dict())  # cpoker's own names read back too (its text sorts each row)
    assert [[set(row) for row in b.rows] for b in (again.board, *again.opponents)] == \
        [[set(row) for row in b.rows] for b in (position.board, *position.opponents)]
    assert (again.rules, set(again.cards), set(again.dead), again.fantasylands) == \
        (position.rules, set(position.cards), set(position.dead), position.fantasylands)


def test_place_solves_a_position_file_as_it_solves_the_position_given_by_hand(tmp_path, capsys):
    data = {"variant": "pineapple", "top": ["Qh"], "middle": ["9s", "9d"], "bottom": ["Ah", "Kh"],
            "hand": ["Qd", "7c", "2s"], "dead": ["3c", "4d"], "street": 2,
            "opponents": [{"top": "Kc 7d", "middle": "5s 5d", "bottom": ["8c", "8h", "3d"]}, {"fantasyland": 14}]}
    position = read_position(data)
    by_hand = place("Qh / 9s 9d / Ah Kh", "Qd 7c 2s", "pineapple", opponents=["Kc 7d / 5s 5d / 8c 8h 3d", "- / - / -"],
                    dead="3c 4d", fantasylands=[0, 14], samples=64, seed=1)
    solved = place(**position.place_arguments(), samples=64, seed=1).to_dict()
    assert {**solved, "seconds": 0} == {**by_hand.to_dict(), "seconds": 0}
    file = tmp_path / "position.json"
    file.write_text(json.dumps(data))
    assert main(["ofc", "place", "--position", str(file), "--samples", "64", "--seed", "1", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [o["board"] for o in printed["placements"]] == [str(o.board) for o in by_hand.options]
    assert main(["ofc", "place", "--position", str(file), "--cards", "As"]) == 2
    assert "--position gives the whole position: drop --cards" in capsys.readouterr().err


@pytest.mark.parametrize("data, error, message", [
    ({"hand": "As Kd", "colour": "red"}, ArrangementError, "unknown position field 'colour'"),
    ({"top": "Qh", "hand": "Qd 7c 2s", "street": 3}, ArrangementError, "the board holds 1 cards"),
    ({"top": "Qh Qd", "middle": "9s 9d", "bottom": "Ah", "hand": "7c 2s 3s", "street": 3, "variant": "pineapple"},
     ArrangementError, "street 3 does not fit a board of 5 cards, which is at street 2"),
    ({"top": "Qh Qd 2c 3c", "hand": "7c"}, ArrangementError, "the front holds 3 cards"),
    ({"top": "Qx", "hand": "7c"}, CardError, "the board, top"),
    ({"top": "Qh"}, ArrangementError, "the cards to place are missing"),
    ({"hand": "As", "cards": "Ks"}, ArrangementError, "the cards to place are one field"),
    ({"hand": "As", "game": "ofc", "variant": "pineapple"}, OptionError, "the rules are given twice"),
    ({"hand": "As", "variant": "holdem"}, OptionError, "holdem"),
    ({"hand": "As", "opponents": [{"top": "Kh", "fantasyland": 14}, 3]}, ArrangementError, "opponent 2"),
    ({"hand": 7}, ArrangementError, "hand is a list of cards or their text"),
    ("[1]", ArrangementError, "a position is a JSON object"),
    ("{nope", ArrangementError, "a position is a JSON object"),
])
def test_a_wrong_field_is_named(data, error, message):
    with pytest.raises(error, match=message):
        read_position(data if isinstance(data, str) else json.dumps(data))
