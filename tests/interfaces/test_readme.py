"""The README is the user's page: its commands and code run, CI runs its test command, and it stays short."""

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def code_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    marker = ci.index("# README test command "
                      "(tests/interfaces/test_readme.py checks this line is the README's, verbatim):")
    command = ci[marker + 1]
    assert command in README.splitlines()
    assert command == 'pip install ".[test]" && python -m pytest -n 2 --dist loadfile'


def test_readme_solve_command_is_the_cli_example():
    assert 'pip install . && cpoker solve "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"' in README


def test_the_readme_is_a_users_page():
    """At most 250 lines, and no history in it: no commit ids, no dates (those live in docs/performance.md)."""
    assert len(README.splitlines()) <= 250
    assert not re.findall(r"\b20\d\d-\d\d-\d\d\b", README)
    assert not [word for word in re.findall(r"\b[0-9a-f]{7,40}\b", README) if re.search(r"[a-f]", word)
                and re.search(r"\d", word)]


def test_every_command_and_option_of_the_command_table_exists():
    """Each row of the command table names a command of ``cpoker`` and options that command takes."""
    from cpoker.cli import make_parser

    commands = next(action for action in make_parser()._actions if action.choices and "solve" in action.choices)
    rows = [line for line in README.splitlines() if line.startswith("| `cpoker ")]
    assert len(rows) >= 12
    for row in rows:
        for usage in re.findall(r"`(cpoker [^`]*)`", row.split("|")[1]):
            words = usage.split()
            parser = commands.choices[words[1]]
            if words[1] == "tables" and len(words) > 2:
                parser = next(action for action in parser._actions if action.choices).choices[words[2]]
            known = {option for action in parser._actions for option in action.option_strings}
            assert {word.split("=")[0] for word in words if word.startswith("--")} <= known, usage


def test_the_readme_library_code_runs_and_says_true(tmp_path, monkeypatch):
    """Both Python blocks run as written (the house rules of the TOML block in ``house.toml``), and the values
    their comments state hold."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house.toml").write_text(code_blocks("toml")[0])
    library, rules = code_blocks("python")
    namespace: dict = {}
    exec(compile(library, "README.md", "exec"), namespace)
    cpoker = namespace["cpoker"]
    assert cpoker.evaluate("Kh Kd 9s 9c Ah").describe() == "two pair, kings and nines, ace kicker"
    assert cpoker.evaluate("Ks Kh 5d") < cpoker.evaluate("Kc Kd 5c 4h 3s")
    assert cpoker.settle([namespace["a"], "3s 3h 4d / 6c 6d 8s 5c 2d / 9c 9d Th Ts As"]) == [1, -1]
    assert namespace["mine"].ev_lost >= 0 and namespace["s"].samples == 2000
    assert namespace["keys"].shape == (1000,) and namespace["best"].dtype.name == "int32"
    exec(compile(rules, "README.md", "exec"), namespace)
    assert namespace["rules"].scoring == "2-4"


def test_readme_house_rules_example_loads(tmp_path):
    from cpoker import Rules

    path = tmp_path / "house.toml"
    path.write_text(code_blocks("toml")[0])
    rules = Rules.from_toml(path)
    assert rules.scoring == "2-4" and rules.naturals.payout("dragon") == 13
    assert rules.royalties.to_mapping()["front"] == {"three of a kind": 3}


@pytest.mark.parametrize("command", ["cpoker eval \"As Ks Qs Js Ts\"", "cpoker deal --players 4 --seed 1",
                                     "cpoker natural \"As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s\""])
def test_readme_commands_that_take_no_time_run(command, capsys):
    from cpoker.cli import main

    assert command in README or command.split(" \"")[0] in README
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out
