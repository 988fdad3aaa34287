"""Bots: programs in any language that arrange hands over cpoker's line protocol (``docs/bots.md``).

A bot is a child process that reads requests on its standard input and
answers on its standard output, one JSON object per line (UTF-8)::

    -> {"protocol": 1, "hands": ["As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"], "rules": "pagat", "opponents": 1}
    <- {"arrangements": ["As Kd Qh / 6s 5d 4h 3c 2s / Jc Ts 9d 8h 7c"]}

:class:`Bot` (``cmd:COMMAND`` wherever a strategy is accepted) is what the
jobs play.  A bot is a stranger's program, so everything it can do wrong is a
*fault* that the job contains: it crashed, answered garbage or the wrong
number of arrangements or an arrangement of other cards, answered nothing in
time or went silent, or wrote more than any answer needs.  The hands of that request are
settled as fouls by the bot (and counted), the bot is restarted, and after
:data:`FAULTS_TO_BREAK` faults in a row it is declared broken
(:class:`~cpoker.BotBroken`).

The bot runs in a session of its own (a Ctrl-C at the terminal is the job's
to act on, not the bot's) and is killed with its whole process group when the
job ends, however it ends; on Linux the kernel also kills it should this
process die without a word (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import IO, Callable, Iterator, NamedTuple, Optional, Sequence

import numpy as np

from cpoker.game.arrangements import FRONT_ORDERS, Arrangement
from cpoker.game.cards import Card, format_cards
from cpoker.system import interrupts
from cpoker.system.errors import BotBroken, BotCannotStart, CpokerError, StrategyError
from cpoker.system.limits import check_int, check_seconds

PROTOCOL = 1
PREFIX = "cmd:"
DEFAULT_TIMEOUT = 1.0  # seconds a bot has per hand of a request
DECISION_TIMEOUT = 30.0  # seconds an open-face decision has: a Monte Carlo opening in Python takes seconds
STARTUP_SECONDS = 10.0  # added to the first request after a start: a JVM, an interpreter loading its libraries
SILENCE_SECONDS = 20.0  # the longest a bot may work on a request without a sign of life: past it, dead or hung
DEFAULT_BATCH = 1000  # hands per request: what makes a bot fast enough to be a solver's opponent model
MAX_BATCH = 100_000
FAULTS_TO_BREAK = 3
STDERR_LINES = 5  # of a bot's standard error, kept for the messages
STDERR_LINE_CHARS = 300
CPU_CHECK_SECONDS = 1.0  # how often a silent bot's processor time is read, as a sign of life
ANSWER_BYTES_PER_HAND = 400  # an arrangement takes ~50 bytes; room for any spelling and spacing, never gigabytes
_READ = 1 << 16


class _Fault(Exception):
    """What a bot did wrong on one request (the message names it)."""


def _parse_command(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise StrategyError(f"cannot read bot command {command[:80]!r}: {error}") from None
    if not argv:
        raise StrategyError("a bot is cmd:COMMAND, with a command to run (e.g. cmd:./mybot)")
    return argv


class Bot:
    """A program that arranges hands over the line protocol, as a strategy.

    Parameters
    ----------
    command
        The command line, split as a shell splits it and run without a shell
        (``"./mybot --level 3"``, ``"java -jar bot.jar"``).
    timeout
        Seconds the bot has per hand of a request (a request of ``n`` hands
        has ``n * timeout``), or per open-face decision, plus :data:`STARTUP_SECONDS`
        for its first answer.  Default (``None``): :data:`DEFAULT_TIMEOUT` (1 s) a
        hand, :data:`DECISION_TIMEOUT` (30 s) an open-face decision; a bot that
        shows no sign of life faults sooner (``silence``).
    batch
        Hands per request (1 to 100,000).
    startup
        Seconds added to the first request after each start.
    silence
        Seconds the bot may work on a request without a sign of life: a line
        on its standard error, a heartbeat line ``{"alive": true}`` on its
        standard output, or processor time spent (read on Linux).  A bot
        silent for longer is dead or hung, and faults at once instead of
        using the rest of its time (a request of 1,000 hands has 1,000 s).
        A program loading its libraries spends processor time, so the first
        request has no more silence than the others.

    A ``Bot`` is a description: it pickles (to a Dask worker, say), and each
    process starts its own child on the first hand it is asked for.  Jobs
    close the children they started when they end (:func:`closing_bots`).
    """

    def __init__(self, command: str, timeout: "float | None" = None, batch: int = DEFAULT_BATCH,
                 startup: float = STARTUP_SECONDS, silence: float = SILENCE_SECONDS) -> None:
        if not isinstance(command, str):
            raise StrategyError(f"a bot's command is text, got {type(command).__name__}")
        command = command.removeprefix(PREFIX).strip()
        self.argv = tuple(_parse_command(command))
        self.command = command
        self.timeout = None if timeout is None else check_seconds("bot timeout", timeout, positive=True)
        self.batch = check_int("bot batch", batch, 1, MAX_BATCH)
        self.startup = check_seconds("bot startup", startup)
        self.silence = check_seconds("bot silence", silence, positive=True)
        self.__name__ = PREFIX + command

    def __repr__(self) -> str:
        return (f"Bot({self.command!r}, timeout={self.timeout}, batch={self.batch}, startup={self.startup}, "
                f"silence={self.silence})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bot) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def key(self) -> tuple:
        return (self.argv, self.timeout, self.batch, self.startup, self.silence)

    @property
    def hand_timeout(self) -> float:
        """Seconds a hand of the closed game has (:attr:`timeout`, or :data:`DEFAULT_TIMEOUT`)."""
        return DEFAULT_TIMEOUT if self.timeout is None else self.timeout

    @property
    def decision_timeout(self) -> float:
        """Seconds an open-face decision has (:attr:`timeout`, or :data:`DECISION_TIMEOUT`)."""
        return DECISION_TIMEOUT if self.timeout is None else self.timeout

    @property
    def child(self) -> "BotProcess":
        """This process's running copy of the bot (started when first needed)."""
        found = _RUNNING.get(self.key)
        if found is None:
            found = _RUNNING[self.key] = BotProcess(self)
        return found

    def arrange_keys(self, hands: np.ndarray, rules: str = "pagat", opponents: int = 1,
                     front: str = "high") -> np.ndarray:
        """Row keys ``(N, 3)`` of the bot's arrangement of each hand (``(N, 13)`` card ids); ``-1`` rows for a
        foul, its own or a fault's.  Under rules whose ``front`` plays for low, the request says so (its
        ``front`` key), only a back weaker than the middle fouls, and a front's key is its low key.

        Raises
        ------
        BotBroken
            After :data:`FAULTS_TO_BREAK` faults in a row.
        """
        child = self.child
        hands = np.asarray(hands, dtype=np.uint8)
        return np.concatenate([child.request(hands[start:start + self.batch], rules, opponents, front)
                               for start in range(0, len(hands), self.batch)] or [np.empty((0, 3), np.int32)])

    def request_object(self, payload: dict) -> dict:
        """One request of any game (the open-face game's placements): ``payload`` as a line, the answer as a
        JSON object, within :attr:`timeout` (plus :attr:`startup` after a start).

        Raises
        ------
        StrategyError
            For a fault (counted: the bot is restarted for the next request).
        BotBroken
            After :data:`FAULTS_TO_BREAK` faults in a row.
        """
        child = self.child
        try:
            answer = child.ask_object(payload)
        except _Fault as fault:
            child._fault(str(fault), 1)
            raise StrategyError(f"bot {self.__name__!r} faulted: {fault}") from None
        return answer

    def answer_was_wrong(self, reason: str) -> None:
        """Count a fault for an answer that parsed but broke the game's rules (an illegal placement)."""
        self.child._fault(reason, 1)

    def answer_was_right(self) -> None:
        self.child.in_a_row = 0

    def __call__(self, hand) -> Arrangement:
        """One hand's arrangement; a fault raises :class:`~cpoker.StrategyError` (a job fouls it instead)."""
        from cpoker.game.arrangements import parse_hand

        ids = parse_hand(hand)
        child = self.child
        try:
            child.ask(ids[None, :], {"rules": "pagat", "opponents": 1})
        except _Fault as fault:
            child.close()
            raise StrategyError(f"bot {self.__name__!r} failed on hand {format_cards(ids)}: {fault}") from None
        return Arrangement.parse(child.last_answer[0], hand=ids.tolist())


class BotProcess:
    """One running child of a :class:`Bot` in this process, with its fault counts."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.process: Optional[subprocess.Popen] = None
        self.stderr_tail: collections.deque = collections.deque(maxlen=STDERR_LINES)
        self.stderr_lines = [0]  # lines the bot wrote on its standard error since its start (a sign of life)
        self._stderr_reader: Optional[threading.Thread] = None
        self.faulted_hands = 0  # hands settled as fouls for the bot's faults
        self.in_a_row = 0  # faults since its last good answer
        self.last_answer: list = []

    # --- the child's life -------------------------------------------------------------------------------------

    def start(self) -> None:
        try:
            self.process = subprocess.Popen(
                self.bot.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                start_new_session=True, preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        except OSError as error:
            raise BotCannotStart(f"cannot start bot {self.bot.__name__!r}: {error.strerror or error}") from None
        os.set_blocking(_pipe(self.process.stdin).fileno(), False)
        self.stderr_tail.clear()
        self.stderr_lines = [0]
        self._stderr_reader = threading.Thread(target=_keep_tail,
                                               args=(self.process.stderr, self.stderr_tail, self.stderr_lines),
                                               daemon=True, name=f"cpoker bot stderr {self.process.pid}")
        self._stderr_reader.start()

    def caught_up(self, wait: float = 0.5) -> None:
        """Give the standard-error reader a moment (at most ``wait`` seconds) to take in what the bot has already
        written there: a bot that explains a bad answer writes its reason just before the answer, and a message
        quoting it must not race the reader thread (it did, under load, in CI)."""
        process, reader = self.process, self._stderr_reader
        if process is None or reader is None or process.stderr is None:
            return
        deadline = time.monotonic() + wait
        try:
            fd = process.stderr.fileno()
            while reader.is_alive() and time.monotonic() < deadline and select.select([fd], [], [], 0)[0]:
                time.sleep(0.002)  # written, not yet read
        except (OSError, ValueError):  # (closed meanwhile)
            return
        time.sleep(0.02)  # read, and being split into the tail

    def close(self) -> None:
        """End the child: its input closed, a moment to exit, then its whole process group killed."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            _pipe(process.stdin).close()
        except OSError:
            pass
        try:
            process.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(process.pid, signal.SIGKILL)  # the group outlives its leader while any member lives
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
        _pipe(process.stdout).close()
        if self._stderr_reader is not None:
            self._stderr_reader.join(timeout=1.0)
        _pipe(process.stderr).close()

    # --- one request ------------------------------------------------------------------------------------------

    def request(self, hands: np.ndarray, rules: str, opponents: int, front: str = "high") -> np.ndarray:
        """Row keys ``(N, 3)`` of the bot's arrangements; a fault's hands are fouls (``-1``)."""
        try:
            found = self.ask(hands, request_keys(rules, opponents, front))
        except _Fault as fault:
            self._fault(str(fault), len(hands))
            return np.full((len(hands), 3), -1, dtype=np.int32)
        self.in_a_row = 0
        return found

    def ask(self, hands: np.ndarray, keys: dict) -> np.ndarray:
        """Row keys ``(N, 3)`` of the bot's arrangements of ``hands`` (``-1`` rows for a foul), the request carrying
        ``keys`` too; :class:`_Fault` when the bot faults."""
        fresh = self.process is None or self.process.poll() is not None
        if fresh:
            self.close()
            self.start()
        texts = _request_text(hands)
        line = json.dumps({"protocol": PROTOCOL, "hands": texts, **keys})
        seconds = self.bot.hand_timeout * len(hands) + (self.bot.startup if fresh else 0.0)
        answer = self._exchange(line.encode() + b"\n", time.monotonic() + seconds, seconds, self.bot.silence,
                                ANSWER_BYTES_PER_HAND * len(hands) + 4096)
        found, self.last_answer = _read_answer(answer, hands, keys.get("front", "high"))
        return found

    def ask_object(self, payload: dict) -> dict:
        """The answer to one request of any game, as a JSON object; :class:`_Fault` when the bot faults."""
        fresh = self.process is None or self.process.poll() is not None
        if fresh:
            self.close()
            self.start()
        seconds = self.bot.decision_timeout + (self.bot.startup if fresh else 0.0)
        answer = self._exchange(json.dumps({"protocol": PROTOCOL, **payload}).encode() + b"\n",
                                time.monotonic() + seconds, seconds, self.bot.silence, ANSWER_BYTES_PER_HAND + 4096)
        try:
            found = json.loads(answer)
        except ValueError:
            raise _Fault(f"answered a line that is not JSON: {_shown(answer)}") from None
        if not isinstance(found, dict):
            raise _Fault(f"answered JSON that is not an object: {_shown(answer)}")
        return found

    def _fault(self, reason: str, hands: int) -> None:
        self.faulted_hands += hands
        self.in_a_row += 1
        self.close()  # restarted by the next request
        if self.in_a_row >= FAULTS_TO_BREAK:
            raise BotBroken(self.bot.__name__, f"{self.in_a_row} faults in a row, the last: {reason}",
                            list(self.stderr_tail))

    def _exchange(self, request: bytes, deadline: float, seconds: float, silence: float, limit: int) -> bytes:
        """Send ``request`` and read one answer line, within ``deadline``, ``limit`` bytes, and never more than
        ``silence`` seconds without a sign of life (heartbeat lines are read and dropped)."""
        process = self.process
        assert process is not None  # (started by ask)
        to_bot, from_bot = _pipe(process.stdin).fileno(), _pipe(process.stdout).fileno()
        pending = memoryview(request)
        received = bytearray()
        life = _SignsOfLife(process.pid, self.stderr_lines)
        while True:
            now = time.monotonic()
            left = deadline - now
            if left <= 0:
                raise _Fault(f"no answer within {seconds:g} s")
            if life.silent_for(now) > silence:
                raise _Fault(f"no answer and no sign of life for {silence:g} s (a bot that works longer says so "
                             f"with a line {{\"alive\": true}} or any line on its standard error, or is given "
                             f"more with --bot-silence or Bot(silence=...))")
            if interrupts.stop_requested():  # a Ctrl-C for the job: it need not wait out a slow bot's time
                self.close()
                raise interrupts.Abandoned(interrupts.received() or signal.SIGINT)
            readable, writable, _ = select.select([from_bot], [to_bot] if pending else [], [], min(left, 0.1))
            if writable:
                try:
                    pending = pending[os.write(to_bot, pending[:_READ]):]
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError):
                    raise _Fault(self._ended("stopped reading its input")) from None
            if readable:
                chunk = os.read(from_bot, _READ)
                if not chunk:
                    raise _Fault(self._ended("closed its output"))
                life.seen(time.monotonic())
                while chunk:
                    end = chunk.find(b"\n")
                    received += chunk if end < 0 else chunk[:end]
                    if len(received) > limit:
                        raise _Fault(f"wrote more than {limit:,} bytes without ending its answer's line")
                    if end < 0:
                        break
                    chunk = chunk[end + 1:]
                    if _is_heartbeat(received):
                        received.clear()
                        continue
                    if pending or chunk.strip():
                        raise _Fault("answered before reading the whole request, or with more than one line")
                    return bytes(received)

    def _ended(self, what: str) -> str:
        try:
            status = self.process.wait(timeout=0.5) if self.process is not None else -signal.SIGKILL
        except subprocess.TimeoutExpired:
            return what
        return f"exited with status {status}" if status >= 0 else f"was killed by signal {-status}"


class _SignsOfLife:
    """When a bot last showed it is working on a request: output on either stream, or processor time spent."""

    def __init__(self, pid: int, stderr_lines: list) -> None:
        self.stat = f"/proc/{pid}/stat"
        self.stderr_lines = stderr_lines
        self.last = self.checked = time.monotonic()
        self.lines = stderr_lines[0]
        self.cpu = self._cpu_ticks()

    def seen(self, now: float) -> None:
        self.last = now

    def silent_for(self, now: float) -> float:
        if self.stderr_lines[0] != self.lines:
            self.lines = self.stderr_lines[0]
            self.last = now
        if now - self.checked >= CPU_CHECK_SECONDS:
            self.checked = now
            cpu = self._cpu_ticks()
            if cpu is not None and cpu != self.cpu:
                self.cpu = cpu
                self.last = now
        return now - self.last

    def _cpu_ticks(self) -> Optional[int]:
        """The bot's user and system time in clock ticks, where ``/proc`` tells it (Linux); None elsewhere."""
        try:
            with open(self.stat, "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            return int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            return None


def _is_heartbeat(line: bytearray) -> bool:
    """Whether an output line is a heartbeat (``{"alive": ...}`` alone), which a bot may write while it works."""
    if b"alive" not in line or len(line) > 100:
        return False
    try:
        value = json.loads(bytes(line))
    except ValueError:
        return False
    return isinstance(value, dict) and list(value) == ["alive"]


def request_keys(rules: str, opponents: int, front: str = "high") -> dict:
    """A closed-game request's keys beside its hands: the rules' name, the opponents, and the ``front`` order
    where the front plays for low (a key a bot that knows only the high front never sees)."""
    keys: dict = {"rules": rules, "opponents": opponents}
    if front != "high":
        keys["front"] = front
    return keys


def _read_answer(answer: bytes, hands: np.ndarray, front: str = "high") -> "tuple[np.ndarray, list]":
    """Row keys ``(N, 3)`` of the arrangements of one answer line (``-1`` rows for a foul), each checked to be an
    arrangement of its own hand, judged by the ``front`` order (a low front's key its low key); and the answer's
    arrangements as written."""
    from cpoker.game.evaluation import evaluate_batch

    try:
        data = json.loads(answer.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise _Fault(f"answered something that is not a JSON line: {_shown(answer)}") from None
    found = data.get("arrangements") if isinstance(data, dict) else None
    if not isinstance(found, list):
        raise _Fault(f"answered without an \"arrangements\" list: {_shown(answer)}")
    if len(found) != len(hands):
        raise _Fault(f"answered {len(found)} arrangement{'s' * (len(found) != 1)} for {len(hands)} "
                     f"hand{'s' * (len(hands) != 1)}")
    placed = np.empty((len(hands), 13), dtype=np.uint8)  # front, middle, back
    for number, (text, hand) in enumerate(zip(found, hands)):
        ids = _canonical_ids(text)
        if ids is not None and sorted(ids) == sorted(hand.tolist()):
            placed[number] = ids
        else:  # the general reader: every spelling cpoker reads (10h, ♥...), and the reason when it is not one
            try:
                arrangement = Arrangement.parse(text, hand=hand.tolist())
            except CpokerError as error:
                raise _Fault(f"answered {_shown(str(text).encode())} for hand {number + 1} of the request "
                             f"({format_cards(hand.tolist())}): {error}") from None
            placed[number] = [int(card) for card in arrangement.cards]
    keys = np.stack([evaluate_batch(np.ascontiguousarray(placed[:, :3])),
                     evaluate_batch(np.ascontiguousarray(placed[:, 3:8])),
                     evaluate_batch(np.ascontiguousarray(placed[:, 8:]))], axis=1).astype(np.int32)
    if front == "high":
        keys[(keys[:, 0] > keys[:, 1]) | (keys[:, 1] > keys[:, 2])] = -1  # rows out of order: a foul
    else:  # a low front cannot foul
        from cpoker._kernels.evaluate import low_front_rows

        keys[keys[:, 1] > keys[:, 2]] = -1
        low_front_rows(keys, FRONT_ORDERS.index(front))
    return keys, found


def _canonical_ids(text: object) -> Optional[list]:
    """The card ids, front to back, of an arrangement written as cpoker writes one (``As Kd Qh / ...``); None for
    anything else."""
    if not isinstance(text, str):
        return None
    rows = text.split("/")
    if len(rows) != 3:
        return None
    cards = [row.split() for row in rows]
    if [len(row) for row in cards] != [3, 5, 5]:
        return None
    try:
        return [_CARD_IDS[card] for row in cards for card in row]
    except KeyError:
        return None


def _request_text(hands: np.ndarray) -> list[str]:
    """Each hand as cpoker writes cards (``As Kd ...``, strongest rank first)."""
    ranks, suits = hands % 13, hands // 13
    order = np.argsort((12 - ranks) * 4 + suits, axis=1, kind="stable")
    names = _CARD_NAMES[np.take_along_axis(hands, order, axis=1)]
    return [" ".join(row) for row in names.tolist()]


_CARD_NAMES = np.array([str(Card(i)) for i in range(52)], dtype=object)
_CARD_IDS = {name: i for i, name in enumerate(_CARD_NAMES.tolist())}


def _shown(data: bytes, width: int = 80) -> str:
    text = data.decode("utf-8", "replace")
    return repr(text if len(text) <= width else text[:width] + "...")


def _keep_tail(stream, tail: collections.deque, count: list) -> None:
    """Read a bot's standard error to its end (so that it never blocks on it), keeping its last lines, cut short,
    and counting the lines in ``count[0]`` (each one a sign of life)."""
    partial = b""
    fd = stream.fileno()
    while True:
        try:
            chunk = os.read(fd, _READ)
        except OSError:
            return
        if not chunk:
            break
        lines = (partial + chunk).split(b"\n")
        partial = lines.pop()[-STDERR_LINE_CHARS:]
        count[0] += len(lines)
        for line in lines[-STDERR_LINES:]:
            if line.strip():
                tail.append(line[:STDERR_LINE_CHARS].decode("utf-8", "replace").rstrip())
    if partial.strip():
        tail.append(partial.decode("utf-8", "replace").rstrip())


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


if sys.platform == "linux":
    import ctypes

    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl


# --- the bots running in this process -------------------------------------------------------------------------

def _pipe(stream: "IO[bytes] | None") -> "IO[bytes]":
    """A child's pipe (a bot is started with all three, so none is None)."""
    assert stream is not None
    return stream


_RUNNING: "dict[tuple, BotProcess]" = {}


def close_bots() -> None:
    """End every bot this process started."""
    while _RUNNING:
        _, child = _RUNNING.popitem()
        child.close()


atexit.register(close_bots)


@contextmanager
def closing_bots() -> Iterator[None]:
    """Inside, bots start as needed; on the way out, however it is left, the ones started inside are ended."""
    before = set(_RUNNING)
    try:
        yield
    finally:
        for key in set(_RUNNING) - before:
            _RUNNING.pop(key).close()


@contextmanager
def bot_broken_result(partial_result: "Callable[[], object]"):
    """A :class:`~cpoker.BotBroken` leaving the block carries the job's ``partial_result()`` (what its
    completed blocks sum to, as after Ctrl-C)."""
    try:
        yield
    except BotBroken as broken:
        if broken.result is None:
            broken.result = partial_result()
        raise


def faulted_hands(strategies: Sequence[object]) -> list[int]:
    """Hands settled as fouls for bot faults so far in this process, for each strategy (0 for non-bots)."""
    counts = []
    for strategy in strategies:
        bot = as_bot(strategy)
        child = None if bot is None else _RUNNING.get(bot.key)
        counts.append(0 if child is None else child.faulted_hands)
    return counts


def as_bot(strategy: object) -> Optional[Bot]:
    """The :class:`Bot` a strategy names (``cmd:COMMAND``, or a Bot), else None."""
    if isinstance(strategy, Bot):
        return strategy
    if isinstance(strategy, str) and strategy.startswith(PREFIX):
        return Bot(strategy)
    return None


# --- conformance ----------------------------------------------------------------------------------------------

def fault_of(error: Exception) -> Optional[str]:
    """The reason of a bot's protocol fault (raised by :meth:`BotProcess.ask_object`), or ``None`` for another
    error."""
    return str(error) if isinstance(error, _Fault) else None


class Check(NamedTuple):
    """One conformance check of :func:`check_bot`: its name, whether it passed, and what was seen."""

    name: str
    passed: bool
    detail: str


def check_bot(bot: "Bot | str", seed: int = 0, rules: str = "pagat") -> list[Check]:
    """Run the protocol's conformance checks on ``bot`` (``cmd:COMMAND`` or a :class:`Bot`): what
    ``cpoker bot-check`` prints.  The bot is started for the checks and ended after them.

    The checks: a first answer (one hand, within the start-up allowance); the 52 cards of a deck in 4 hands;
    a batch of 1 and of 1,000 hands in the bot's time per hand (the time per hand of each is reported); a
    request with keys the bot does not know; and the bot's end when its input ends.
    """
    from cpoker.game.dealing import deal_seeded

    bot = bot if isinstance(bot, Bot) else Bot(bot)
    child = BotProcess(bot)
    checks: list[Check] = []

    def timed(name: str, hands: np.ndarray, keys: dict) -> Optional[float]:
        started = time.perf_counter()
        try:
            found = child.ask(hands, keys)
        except _Fault as fault:
            checks.append(Check(name, False, f"{fault}" + stderr_tail(child)))
            child.close()
            return None
        seconds = time.perf_counter() - started
        fouls = int((found[:, 0] < 0).sum())
        checks.append(Check(name, True, f"{1e3 * seconds / len(hands):.3f} ms a hand"
                            + (f"; {fouls} of {len(hands)} fouled on purpose" if fouls else "")))
        return seconds

    plain = request_keys(rules, 1)
    try:
        deck = deal_seeded(np.arange(52), [[seed, 0]], [1], 4)[0]
        many = deal_seeded(np.arange(52), [[seed, 1]], [250], 4).reshape(-1, 13)
        timed("starts, and answers a request of 1 hand", many[:1], plain)
        timed("every card: a deck's 52 in 4 hands", np.sort(deck, axis=1), plain)
        timed("a request of 1 hand (time a hand)", many[1:2], plain)
        timed(f"a request of {len(many):,} hands (time a hand)", np.sort(many, axis=1), plain)
        timed("ignores keys it does not know", many[2:4], {**plain, "seat": 1, "deal": 7, "future_key": [1, 2]})
        checks.extend(end_check(child))
    finally:
        child.close()
    return checks


def end_check(child: BotProcess) -> list[Check]:
    """The last conformance check of every game's (none when the bot is not running): its input closed, the bot
    ends within 2 s."""
    process = child.process
    if process is None:
        return []
    _pipe(process.stdin).close()
    try:
        process.wait(timeout=2.0)
    except subprocess.TimeoutExpired:
        return [Check("ends when its input ends", False, "still running 2 s after its input ended "
                      "(cpoker kills it, so this costs nothing but time)")]
    return [Check("ends when its input ends", True, f"exit status {process.returncode}")]


def stderr_tail(child: BotProcess) -> str:
    """The last lines of the bot's standard error, for a message (empty when it wrote none)."""
    child.caught_up()
    said = " | ".join(child.stderr_tail)
    return f"; its standard error: {said}" if said else ""
