"""The README's quick start and CI must stay in step."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    marker = ci.index("# README test command (tests/test_readme.py checks this line is the README's, verbatim):")
    command = ci[marker + 1]
    readme = (ROOT / "README.md").read_text().splitlines()
    assert command in readme and command.startswith("pip install")


def test_readme_solve_command_is_the_cli_example():
    readme = (ROOT / "README.md").read_text()
    assert 'pip install . && cpoker solve "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"' in readme


def test_readme_house_rules_example_loads(tmp_path):
    from cpoker import Rules

    readme = (ROOT / "README.md").read_text()
    block = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "house.toml"
    path.write_text(block)
    rules = Rules.from_toml(path)
    assert rules.scoring == "2-4" and rules.naturals.payout("dragon") == 13
    assert rules.royalties.to_mapping()["front"] == {"three of a kind": 3}
