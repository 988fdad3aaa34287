"""Fuzzing every command and the public API with hypothesis, in a separate process with caps.

Each generated case runs in ``tests/support/fuzz_worker.py``: a long-lived process
with a 3 GiB address-space cap, so a gigabyte allocation fails there as a
finding, and a per-case deadline enforced from here, so a hang is a finding
too.  A case passes only when it succeeds or ends in a clean cpoker error (for
the CLI: status 2 and exactly one line on standard error, no traceback).

Sizes are drawn either small (so valid cases finish in milliseconds) or
absurd (which must be refused up front).  ``CPOKER_FUZZ_EXAMPLES`` sets the
examples per test (default 40); ``CPOKER_FUZZ_REPORT=FILE`` saves the counts.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60.0  # seconds per case: valid cases take well under one
EXAMPLES = int(os.environ.get("CPOKER_FUZZ_EXAMPLES", "40"))
COUNTS: Counter = Counter()
# every file and folder the cases make lives under one folder, removed when the session ends
SCRATCH = tempfile.TemporaryDirectory(prefix="cpoker-fuzz-")
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


class Worker:
    """The fuzz worker process; restarted after a case that hangs or kills it."""

    def __init__(self) -> None:
        self.process: "subprocess.Popen | None" = None

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "support")])}
        self.process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "fuzz_worker.py")],
                                        cwd=tempfile.mkdtemp(prefix="cwd-", dir=SCRATCH.name), env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, bufsize=1)
        assert json.loads(self._read(120))["ready"]

    def _read(self, timeout: float) -> str:
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            raise TimeoutError
        return line

    def run(self, case: dict) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.start()
        self.process.stdin.write(json.dumps(case) + "\n")
        self.process.stdin.flush()
        started = time.monotonic()
        try:
            result = json.loads(self._read(DEADLINE))
        except TimeoutError:
            self.stop()
            return {"outcome": "crash", "detail": f"no answer within {DEADLINE:.0f} s (hang or death)"}
        result["seconds"] = time.monotonic() - started
        return result

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


_worker = Worker()
atexit.register(_worker.stop)


def check(case: dict) -> None:
    result = _worker.run(case)
    COUNTS["cases"] += 1
    COUNTS[result["outcome"]] += 1
    assert result["outcome"] in ("ok", "error"), f"{case}\n{result.get('detail')}"


def _report() -> None:
    path = os.environ.get("CPOKER_FUZZ_REPORT")
    if path and COUNTS:
        Path(path).write_text(json.dumps(dict(COUNTS)))


atexit.register(_report)

# --- what a user can type ---------------------------------------------------------------------

RANKS = list("23456789TJQKA") + ["10", "1", "X", "", "\u212a", "\uff2b", "k"]
SUITS = list("shdcSHDC") + ["\u2660", "\u2665", "\u2666", "\u2663", "", "x", "\u017f", "\ufe0f", "\u2664"]
card_token = st.builds(lambda r, s: r + s, st.sampled_from(RANKS), st.sampled_from(SUITS))
noise = st.text(max_size=12)
separator = st.sampled_from([" ", ",", ", ", "", " / ", "/", ";", "\t", "\u00a0"])


@st.composite
def card_text(draw, max_tokens: int = 16) -> str:
    tokens = draw(st.lists(st.one_of(card_token, card_token, noise), max_size=max_tokens))
    return "".join(t + draw(separator) for t in tokens)


@st.composite
def valid_hand(draw) -> list[int]:
    return draw(st.permutations(range(52)))[:13]


def _text_of(ids) -> str:
    from cpoker.game.cards import format_cards

    return format_cards(ids, sort=False)


hand_text = st.one_of(valid_hand().map(_text_of), card_text())


@st.composite
def arrangement_text(draw) -> str:
    if draw(st.booleans()):  # 13 real cards split 3/5/5 (may foul by order), or the wrong sizes
        cards = draw(valid_hand())
        cut1, cut2 = draw(st.sampled_from([(3, 8), (3, 8), (2, 7), (4, 9), (3, 9), (0, 0)]))
        return " / ".join(_text_of(part) for part in (cards[:cut1], cards[cut1:cut2], cards[cut2:]))
    return " / ".join(draw(st.lists(card_text(6), max_size=4)))


SMALL = st.integers(-3, 1_500).map(str)
ABSURD = st.sampled_from(["-1", "0", "nan", "inf", "-inf", "1e30", "1.5", "", "9" * 5000, str(10**12), str(2**63),
                          "0x10", " 7", "\u0667", "1_000", "+3", "--1"])
number = st.one_of(SMALL, ABSURD, st.text(max_size=6))
rules_name = st.sampled_from(["pagat", "1-6", "2-4", "seed001-royalties", "", "royal", "nope.toml", "/proc/self"])
strategy_name = st.sampled_from(["table", "greedy", "plugin_strategy:my_greedy", "plugin_strategy:weakest_back",
                                 ":x", ".x:y", "math:sqrt", "os:getcwd", "json:dumps", "no_such:f", "builtins:print",
                                 "cpoker:table", "table:", "a b:c", "\u00e9:f"])


@st.composite
def hostile_file(draw) -> str:
    """A path to a file of hostile (or valid) content, or to something that is not a readable file."""
    kind = draw(st.sampled_from(["json", "json", "toml", "binary", "latin1", "nested", "digits", "path"]))
    folder = Path(tempfile.mkdtemp(prefix="in-", dir=SCRATCH.name))
    path = folder / "input"
    if kind == "json":
        value = draw(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                                  | st.text(max_size=10) | arrangement_text(),
                                  lambda inner: st.lists(inner, max_size=4)
                                  | st.dictionaries(st.sampled_from(["players", "front", "middle", "back", "x"]),
                                                    inner, max_size=4), max_leaves=12))
        path.write_text(json.dumps(value))
    elif kind == "toml":
        key = draw(st.sampled_from(["scoring", "royalties", "naturals", "x", "[royalties]\nback",
                                    "[naturals]\ndragon"]))
        value = draw(st.sampled_from(['"1-6"', "3", "1e30", "-1", "{ flush = 4 }", '{ "flush" = 99999999999 }',
                                      "[1, 2]", "true", '"x"', "9" * 5000]))
        path.write_text(f"{key} = {value}\n")
    elif kind == "binary":
        path.write_bytes(draw(st.binary(max_size=64)))
    elif kind == "latin1":
        path.write_bytes('{"players": ["caf\xe9"]}'.encode("latin-1"))
    elif kind == "nested":
        depth = draw(st.integers(100, 50_000))
        path.write_text("[" * depth + "]" * depth)
    elif kind == "digits":
        path.write_text("[" + "7" * draw(st.integers(4000, 6000)) + "]")
    else:
        return draw(st.sampled_from([str(folder), str(folder / "missing"), "/proc/self/mem", "/dev/null", "", "/"]))
    return str(path)


@st.composite
def played_file(draw) -> str:
    """A file of played hands: arrangements (valid, fouled or mis-set), JSON Lines or CSV, comments and noise."""
    line = st.one_of(arrangement_text(), arrangement_text(), noise,
                     st.builds(lambda a, o: json.dumps({"arrangement": a, "opponents": o}), arrangement_text(),
                               st.one_of(st.integers(-1, 5), st.lists(arrangement_text(), max_size=4))),
                     st.just("# a comment"), st.just(""))
    lines = draw(st.lists(line, max_size=6))
    if draw(st.booleans()):
        lines = ["arrangement,id,opponents"] + [f"{text},{i},{draw(st.sampled_from(['', '1', '3', '9', 'x']))}"
                                                for i, text in enumerate(lines)]
    path = Path(tempfile.mkdtemp(prefix="played-", dir=SCRATCH.name)) / "session.txt"
    path.write_text("\n".join(lines))
    return str(path)


@st.composite
def out_path(draw) -> str:
    folder = Path(tempfile.mkdtemp(prefix="out-", dir=SCRATCH.name))
    return draw(st.sampled_from([str(folder / "r.json"), str(folder / "r.csv"), str(folder / "r.txt"),
                                 str(folder / "missing" / "r.json"), str(folder), "/proc/r.json", "",
                                 str(folder / "t.npz"), str(folder / "r.parquet")]))


def options(draw, pool: dict) -> list[str]:
    argv: list[str] = []
    for flag in draw(st.lists(st.sampled_from(sorted(pool)), max_size=4, unique=True)):
        value = pool[flag]
        argv += [flag] if value is None else [flag, draw(value)]
    return argv


# --- the command line -------------------------------------------------------------------------

@st.composite
def cli_case(draw) -> list[str]:
    command = draw(st.sampled_from(["eval", "score", "deal", "solve", "natural", "simulate", "match", "odds",
                                    "review", "tables build", "tables info", "nonsense"]))
    common = {"--json": None, "--symbols": None}
    if command == "eval":
        return ["eval", draw(st.one_of(card_text(7), valid_hand().map(lambda h: _text_of(h[:5]))))] + \
            options(draw, common)
    if command == "score":
        players = draw(st.lists(arrangement_text(), max_size=5))
        argv = ["score"] + [x for p in players for x in ("--player", p)]
        if not players or draw(st.booleans()):
            argv += ["--file", draw(hostile_file())]
        return argv + options(draw, {**common, "--rules": st.one_of(rules_name, hostile_file()),
                                     "--misset-fouls": None})
    if command == "deal":
        return ["deal"] + options(draw, {**common, "--players": number, "--seed": number})
    if command == "solve":
        return ["solve", draw(hand_text)] + options(draw, {
            **common, "--opponents": number, "--samples": st.one_of(st.integers(1, 400).map(str), ABSURD),
            "--seed": number, "--method": st.sampled_from(["mc", "table", "exact", ""]),
            "--opponent": strategy_name, "--rules": st.one_of(rules_name, hostile_file()),
            "--tables": hostile_file(), "--quiet": None})
    if command == "natural":
        return ["natural", draw(hand_text)] + options(draw, {**common, "--rules": rules_name})
    long_run = {"--seed": number, "--rules": st.one_of(rules_name, hostile_file()), "--jobs": number,
                "--quiet": None, "--out": out_path(), "--tables": hostile_file(), "--resume": hostile_file(),
                "--checkpoint": None, "--checkpoint-seconds": st.sampled_from(["0", "0.5", "-1", "nan", "inf", "x"])}
    if command == "simulate":
        return ["simulate", draw(arrangement_text())] + options(draw, {
            **common, **long_run, "--opponents": number, "--opponent": strategy_name,
            "--samples": st.one_of(st.integers(1, 1_500).map(str), ABSURD)})
    if command == "match":
        seats = draw(st.lists(strategy_name, max_size=5))
        return ["match", *seats] + options(draw, {
            **common, **long_run, "--deals": st.one_of(st.integers(1, 800).map(str), ABSURD),
            "--sessions": st.one_of(st.integers(0, 30).map(str), ABSURD), "--strategy": strategy_name})
    if command == "review":
        return ["review", draw(st.one_of(played_file(), hostile_file()))] + options(draw, {
            **common, **long_run, "--opponents": number, "--opponent": strategy_name, "--top": number,
            "--skip-bad": None, "--samples": st.one_of(st.integers(1, 300).map(str), ABSURD)})
    if command == "odds":
        return ["odds"] + options(draw, {**common, "--row": st.sampled_from(["front", "middle", "back", "side"]),
                                         "--hand": card_text(6), "--csv": None, "--tables": hostile_file()})
    if command == "tables build":  # sizes always given: the defaults are a legitimate 4-minute job
        return ["tables", "build", "--hands", draw(st.one_of(st.integers(-2, 300).map(str), ABSURD)),
                "--max-iterations", draw(st.one_of(st.integers(-1, 3).map(str), ABSURD)),
                "--removal-deals", draw(st.one_of(st.integers(-1, 300).map(str), ABSURD)),
                "--removal-rounds", draw(st.one_of(st.integers(-1, 2).map(str), ABSURD)),
                "--out", draw(out_path())] + options(draw, {
            "--seed": number, "--tolerance": st.sampled_from(["0", "0.5", "1", "nan", "-1", "inf", "x", "1e-300"]),
            "--quiet": None, "--json": None})
    if command == "tables info":
        return ["tables", "info"] + ([draw(hostile_file())] if draw(st.booleans()) else []) + \
            options(draw, {"--json": None})
    return [draw(noise), draw(noise)]


@FUZZ
@given(cli_case())
def test_fuzz_every_command(argv):
    check({"cli": argv})


# --- the library ------------------------------------------------------------------------------

json_value = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
                          | card_text(4), lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=10)
size_value = st.one_of(st.integers(-2, 300), st.sampled_from([10**12, 2**63, 1.5, float("nan"), True, None, "7"]))


@st.composite
def api_case(draw) -> dict:
    name = draw(st.sampled_from(["evaluate", "parse_cards", "Arrangement.parse", "settle", "solve", "simulate",
                                 "match", "natural", "Rules", "evaluate_batch_array", "deal", "evaluate_best",
                                 "Session", "arrangements", "greedy", "table", "find_naturals", "build_tables",
                                 "review", "read_played"]))
    if name == "Session":
        return {"api": name, "kwargs": {"players": draw(size_value), "deals": draw(size_value),
                                        "first_dealer": draw(size_value), "rules": draw(rules_name)}}
    if name in ("arrangements", "greedy", "table", "find_naturals"):
        return {"api": name, "args": [draw(st.one_of(hand_text, json_value))]}
    if name == "build_tables":
        return {"api": name, "kwargs": {"hands": draw(st.one_of(st.integers(-2, 200), size_value)),
                                        "max_iterations": draw(st.sampled_from([1, 2, 0, -1, 1.5, None, 10**12])),
                                        "removal_deals": draw(st.sampled_from([0, 200, -1, 2.5, "x", 10**12])),
                                        "removal_rounds": draw(st.sampled_from([0, 1, 2, -1, 1.5, 10**12])),
                                        "seed": draw(size_value), "tolerance": draw(st.sampled_from(
                                            [0.5, 0, 1, -1, float("nan"), "x", None]))}}
    if name in ("evaluate", "parse_cards", "evaluate_best"):
        args = [draw(st.one_of(card_text(8), st.lists(st.one_of(st.integers(-2, 60), st.floats(), st.none(),
                                                                 card_token), max_size=8), json_value))]
        return {"api": name, "args": args}
    if name == "review":
        return {"api": name, "args": [draw(st.one_of(st.lists(st.one_of(arrangement_text(), json_value), max_size=4),
                                                     json_value))],
                "kwargs": {"samples": draw(st.one_of(st.integers(1, 200), size_value)), "seed": draw(size_value),
                           "opponents": draw(size_value), "top": draw(size_value), "rules": draw(rules_name)}}
    if name == "read_played":
        return {"api": name, "args": [draw(st.one_of(st.text(max_size=200), arrangement_text(), json_value))]}
    if name == "Arrangement.parse":
        return {"api": name, "args": [draw(st.one_of(arrangement_text(), json_value))]}
    if name == "settle":
        return {"api": name, "args": [draw(st.one_of(st.lists(st.one_of(arrangement_text(), json_value),
                                                               max_size=5), json_value))],
                "kwargs": {"rules": draw(rules_name)}}
    if name == "solve":
        return {"api": name, "args": [draw(st.one_of(hand_text, json_value))],
                "kwargs": {"samples": draw(size_value), "seed": draw(size_value), "opponents": draw(size_value),
                           "method": draw(st.sampled_from(["mc", "table", "x"])), "opponent": draw(strategy_name)}}
    if name == "simulate":
        return {"api": name, "args": [draw(st.one_of(arrangement_text(), json_value))],
                "kwargs": {"samples": draw(size_value), "seed": draw(size_value), "opponents": draw(size_value),
                           "jobs": draw(st.one_of(st.none(), size_value)), "rules": draw(rules_name)}}
    if name == "match":
        return {"api": name, "args": [draw(st.one_of(st.lists(strategy_name, max_size=5), json_value))],
                "kwargs": {"deals": draw(size_value), "sessions": draw(st.one_of(st.integers(-1, 5), size_value)),
                           "seed": draw(size_value)}}
    if name == "natural":
        return {"api": name, "args": [draw(hand_text), draw(rules_name)]}
    if name == "Rules":
        return {"api": name, "kwargs": {"scoring": draw(st.one_of(st.sampled_from(["pagat", "1-6", "2-4"]),
                                                                   json_value)),
                                        "royalties": draw(st.one_of(st.none(), json_value)),
                                        "naturals": draw(st.one_of(st.none(), json_value))}}
    if name == "deal":
        return {"api": name, "kwargs": {"players": draw(size_value), "seed": draw(size_value)}}
    rows = draw(st.lists(st.lists(st.one_of(st.integers(-5, 60), st.floats()), min_size=0, max_size=7),
                         max_size=4))
    return {"api": name, "args": [rows, draw(st.sampled_from(["uint8", "int64", "float64", "int8", "bool", None]))]}


@FUZZ
@given(api_case())
def test_fuzz_the_public_api(case):
    check(case)


def test_fuzz_counts_are_recorded():
    """Runs last in this file: the suite did run cases, and every one ended cleanly."""
    assert COUNTS["cases"] >= 2 * min(EXAMPLES, 10)
    assert COUNTS["cases"] == COUNTS["ok"] + COUNTS["error"]


@pytest.fixture(autouse=True, scope="module")
def _stop_worker():
    yield
    _worker.stop()
