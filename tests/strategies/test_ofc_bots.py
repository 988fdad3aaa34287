"""Open-face bots over the line protocol: real processes in Python and C play matches, answer the conformance
checks, and have their faults contained."""

import json
import sys
from pathlib import Path

import pytest
from helpers import compiled_c_bot

from cpoker import Bot, BotBroken
from cpoker.cli import main
from cpoker.jobs.ofc_match import match
from cpoker.strategies.ofc_bot import check_ofc_bot

ROOT = Path(__file__).resolve().parents[2]
PYTHON_BOT = f"cmd:{sys.executable} {ROOT / 'examples' / 'bots' / 'ofc_python_bot.py'}"
C_BOT = ROOT / "examples" / "bots" / "ofc_fill_bot.c"


@pytest.fixture(scope="module")
def c_bot(tmp_path_factory) -> str:
    return compiled_c_bot(C_BOT, tmp_path_factory.mktemp("bots"))


def _script(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return f"cmd:{sys.executable} {path}"


@pytest.mark.subprocess
def test_the_python_bot_plays_the_heuristic_bit_for_bit():
    bot = Bot(PYTHON_BOT, timeout=30)  # (a cold numba cache compiles the bot's kernels in its first answers)
    by_bot = match(["heuristic", bot], hands=12, rules="pineapple", seed=5, session_hands=6)
    built_in = match(["heuristic", "heuristic"], hands=12, rules="pineapple", seed=5, session_hands=6)
    assert json.dumps([s.to_dict() | {"name": ""} for s in by_bot.scores]) == \
        json.dumps([s.to_dict() | {"name": ""} for s in built_in.scores])
    assert by_bot.scores[1].faults == 0 and by_bot.names[1] == PYTHON_BOT
    # the command passes cmd: strategies as bots with its --bot-timeout: they place cards, not arrange hands
    assert main(["ofc", "match", "heuristic", PYTHON_BOT, "--rules", "pineapple", "--hands", "2", "--seed", "5",
                 "--bot-timeout", "30", "--json", "--quiet"]) == 0


@pytest.mark.subprocess
def test_a_bot_in_c_plays_a_match_and_passes_the_checks(c_bot):
    played = match(["heuristic", c_bot], hands=10, rules="pineapple", seed=1)
    heuristic, filler = played.scores
    assert filler.faults == 0 and filler.hands == 20 and filler.foul_rate > heuristic.foul_rate
    assert heuristic.points > 0
    checks = check_ofc_bot(c_bot, "pineapple")
    assert all(check.passed for check in checks) and len(checks) == 7


@pytest.mark.subprocess
def test_faults_forfeit_the_hand_and_three_in_a_row_break_the_bot(tmp_path):
    illegal = _script(tmp_path, "illegal.py", "import sys\nfor line in sys.stdin:\n"
                                              "    print('{\"board\": \"As Ks Qs Js / - / -\"}', flush=True)\n")
    with pytest.raises(BotBroken, match="3 faults in a row"):
        match(["heuristic", illegal], hands=4, rules="pineapple", seed=1)
    # a bot that faults now and then: its hands are forfeited, and the match goes on
    every_tenth = _script(tmp_path, "every_tenth.py", """import json, sys
calls = 0
from cpoker.game.cards import parse_cards
from cpoker.game.ofc.boards import Board
from cpoker.game.ofc.heuristic import heuristic
from cpoker.game.ofc.hand import OfcView
from cpoker.game.ofc.rules import OfcRules
for line in sys.stdin:
    calls += 1
    request = json.loads(line)
    if calls % 10 == 0:
        print("not json", flush=True)
        continue
    view = OfcView(rules=OfcRules.preset(request["game"]), board=Board.parse(request["board"]),
                   cards=parse_cards(request["cards"]), keep=request["keep"], opponents=(), discards=(),
                   fantasyland=request["fantasyland"], seat=0, seed=0)
    print(json.dumps({"board": str(heuristic(view))}), flush=True)
""")
    played = match(["heuristic", every_tenth], hands=6, rules="pineapple", seed=2)
    assert 0 < played.scores[1].faults < played.scores[1].hands


@pytest.mark.subprocess
def test_the_bot_check_command(capsys):
    # (a cold numba cache compiles the bot's kernels within its first answer's start-up allowance)
    assert main(["bot-check", PYTHON_BOT, "--game", "pineapple", "--json", "--bot-timeout", "30"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] and data["game"] == "pineapple" and len(data["checks"]) == 7
    closed_game_bot = f"cmd:{sys.executable} {ROOT / 'examples' / 'bots' / 'python_bot.py'}"
    assert main(["bot-check", closed_game_bot, "--game", "pineapple"]) == 1
    assert "FAIL  starts, and places the first cards" in capsys.readouterr().out
