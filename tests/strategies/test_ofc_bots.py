"""Open-face bots over the line protocol: real processes in Python and C play matches, answer the conformance
checks, and have their faults contained."""

import json
import sys
from pathlib import Path

import pytest
from helpers import compiled_c_bot

from cpoker import Bot, BotBroken
from cpoker.cli import main
from cpoker.jobs.ofc.match import match
from cpoker.strategies.ofc.bot import check_ofc_bot

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
from cpoker.strategies.ofc.heuristic import heuristic
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


FILLER = """import json, os, sys
# places the kept cards in the first rows with room: legal, no cpoker imported (starts at once)
SIZES = (3, 5, 5)
def rows_of(text):
    return [[] if part.strip() in ("", "-") else part.split() for part in text.split("/")]
count_file = sys.argv[1] if len(sys.argv) > 1 else None
for line in sys.stdin:
    request = json.loads(line)
    if count_file:
        with open(count_file, "a") as file:
            file.write(line)
        with open(count_file) as file:
            if len(file.readlines()) > int(sys.argv[2]):
                sys.stderr.write("out of luck\\n"); sys.stderr.flush()
                print("not json", flush=True)
                continue
    rows = rows_of(request["board"])
    for card in request["cards"].split()[:request["keep"]]:
        row = next(r for r in range(3) if len(rows[r]) < SIZES[r])
        rows[row].append(card)
    print(json.dumps({"board": " / ".join(" ".join(r) or "-" for r in rows)}), flush=True)
"""


@pytest.mark.subprocess
def test_a_broken_bot_keeps_the_sessions_played(tmp_path, capsys):
    """A bot that answers garbage after 30 answers (three sessions of 10 decisions): its fourth session's two hands
    are forfeited (a fault a hand), the third fault in a row, in the fifth, breaks it; the match's four sessions
    come back (BotBroken.result), and the command prints them, exiting 1 (the closed game's promise,
    docs/bots.md)."""
    script = tmp_path / "filler.py"
    script.write_text(FILLER)
    bot = f"cmd:{sys.executable} {script} {tmp_path / 'asked.txt'} 30"  # 30 good answers, then garbage
    with pytest.raises(BotBroken) as broken:
        match([bot, "heuristic"], hands=20, rules="pineapple", seed=1, session_hands=1, jobs=1)
    partial = broken.value.result
    assert partial is not None and partial.partial and partial.hands == 4
    assert partial.scores[0].hands == 8 and partial.scores[0].faults == 2
    (tmp_path / "asked.txt").unlink()
    assert main(["ofc", "match", bot, "heuristic", "--rules", "pineapple", "--hands", "20", "--session-hands", "1",
                 "--seed", "1", "--quiet"]) == 1
    out, err = capsys.readouterr()
    assert "4 of 20 deals" in out and "is broken" in err and "out of luck" in err


@pytest.mark.subprocess
def test_a_bot_that_cannot_start_stops_the_match(capsys):
    from cpoker.system.errors import BotCannotStart

    with pytest.raises(BotCannotStart, match="cannot start bot 'cmd:/no/such/bot'"):
        match(["cmd:/no/such/bot", "heuristic"], hands=2, rules="pineapple", seed=1)
    assert main(["ofc", "match", "cmd:/no/such/bot", "heuristic", "--hands", "2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot start bot 'cmd:/no/such/bot'" in err


@pytest.mark.subprocess
def test_bot_check_sends_a_real_hand_and_shows_a_failing_bots_stderr(tmp_path):
    script = tmp_path / "filler.py"
    script.write_text(FILLER)
    log = tmp_path / "asked.txt"
    checks = check_ofc_bot(f"cmd:{sys.executable} {script} {log} 1000", "pineapple", seed=3)
    assert all(check.passed for check in checks) and len(checks) == 7
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) == 6 and all(isinstance(r["seed"], int) for r in requests)
    # the discards the bot made, as a match sends them; the opponent's board as it stands
    assert [len(r["discards"].split()) for r in requests[:5]] == [0, 0, 1, 2, 3]
    assert [len(r["opponents"][0].replace("/", " ").replace("-", " ").split()) for r in requests[:5]] == \
        [0, 5, 7, 9, 11]
    assert requests[5]["fantasyland"] and requests[5]["opponents_in_fantasyland"] == [False]
    assert all(r["opponents_in_fantasyland"] == [False] and r["opponent_fantasylands"] == [0] for r in requests)
    failing = check_ofc_bot(f"cmd:{sys.executable} {script} {tmp_path / 'again.txt'} 0", "pineapple")
    assert not any(check.passed for check in failing[:-1]) and "out of luck" in failing[0].detail
