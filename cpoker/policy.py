"""The table policy: per-row expected results indexed by row strength, learned by self-play.

A row of dense strength ``s`` (see :func:`cpoker.tables.strength_keys`) is
worth ``P(opponent's row < s) - P(opponent's row > s)`` against an opponent
whose row strengths follow a known distribution.  The table policy arranges a
hand by the non-fouling split with the largest sum of its three row values.

The distributions come from self-play by fictitious play: deal a fixed sample
of hands, arrange them by the best response to the current average opponent,
record the row strengths, and fold them into the average with weight
``1 / t``.  Plain best-response iteration can oscillate; the average converges.
"""

from __future__ import annotations

import functools
import io
import json
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Optional

import numpy as np

from .errors import OptionError
from .interrupts import shielded
from .tables import rest_lookup_arguments, row_lookup_arguments, split_tables, strength_keys

DEFAULT_TABLES_FILE = "policy_tables.npz"


def row_values_from_distribution(distribution: np.ndarray) -> np.ndarray:
    """Expected row result of each strength against ``distribution`` (``(3, S)`` probabilities)."""
    below = np.cumsum(distribution, axis=1) - distribution
    above = 1.0 - below - distribution
    return below - above


@dataclass(frozen=True)
class PolicyTables:
    """Opponent row-strength distributions and the row values derived from them.

    Attributes
    ----------
    distribution
        ``(3, 7917)`` float64: probability of each dense row strength for the
        front, middle and back of the (average) opponent.
    hands, seed
        The self-play sample that produced the tables.
    history
        One dict per iteration: the share of sample hands whose arrangement
        changed, and how far the row values moved (max absolute change).
    partial
        True when a signal stopped the build: the tables are those of the
        last completed iteration.
    """

    distribution: np.ndarray
    hands: int = 0
    seed: int = 0
    history: tuple = field(default=())
    partial: bool = False

    def __post_init__(self) -> None:

        size = len(strength_keys())
        try:
            distribution = np.asarray(self.distribution, dtype=np.float64)
        except (TypeError, ValueError):
            distribution = np.empty(0)
        if (distribution.shape != (3, size) or not np.isfinite(distribution).all() or (distribution < 0).any()
                or not np.allclose(distribution.sum(axis=1), 1.0)):
            raise OptionError(f"tables need a (3, {size}) distribution of probabilities (each row summing to 1), "
                              f"got shape {distribution.shape}")
        object.__setattr__(self, "distribution", distribution)

    @functools.cached_property
    def row_values(self) -> np.ndarray:
        """``(3, 7917)`` expected result of a row of each strength (front, middle, back)."""
        values = row_values_from_distribution(self.distribution)
        values.flags.writeable = False
        return values

    @property
    def iterations(self) -> int:
        return len(self.history)

    def to_bytes(self) -> bytes:
        """The ``.npz`` file's bytes, identical for identical tables.

        ``numpy.savez`` stamps each member with the current time; this writes
        the same format with a fixed timestamp so rebuilt tables can be
        compared byte for byte.
        """
        fields = {"hands": self.hands, "seed": self.seed, "history": list(self.history)}
        if self.partial:
            fields["partial"] = True
        meta = json.dumps(fields, sort_keys=True)
        arrays = {"distribution": np.ascontiguousarray(self.distribution, dtype=np.float64), "meta": np.array(meta)}
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            for name, array in arrays.items():
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, array, allow_pickle=False)
                archive.writestr(info, buffer.getvalue())
        return out.getvalue()

    def save(self, path: "str | Path") -> None:
        """Write the tables to an ``.npz`` file atomically (a reader never sees half a file)."""
        from .files import atomic_write

        atomic_write(path, self.to_bytes())

    @classmethod
    def load(cls, path: "str | Path") -> "PolicyTables":
        """Read tables written by :meth:`save` (``cpoker tables build``).

        Raises
        ------
        OptionError
            When the file is missing, unreadable, or not a cpoker tables file.
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                distribution = np.asarray(data["distribution"], dtype=np.float64)
                tables = cls(distribution, int(meta["hands"]), int(meta["seed"]), tuple(meta["history"]),
                             bool(meta.get("partial", False)))
        except OSError as error:
            raise OptionError(f"cannot read tables file {path}: {error.strerror or error}") from None
        except OptionError as error:  # our own check of the distribution
            raise OptionError(f"{path} is not a cpoker tables file: {error}") from None
        except Exception as error:  # a zip, a .npy or a JSON that is not ours, in any of many ways
            raise OptionError(f"{path} is not a cpoker tables file ({type(error).__name__}: "
                              f"{str(error)[:80]})") from None
        return tables


@functools.cache
def default_tables() -> PolicyTables:
    """The tables shipped with cpoker (``cpoker tables build`` regenerates them)."""
    with resources.as_file(resources.files("cpoker") / "data" / DEFAULT_TABLES_FILE) as path:
        if not path.exists():
            raise FileNotFoundError(f"policy tables missing at {path}; run 'cpoker tables build'")
        return PolicyTables.load(path)


def resolve_tables(tables: "PolicyTables | str | Path | None") -> PolicyTables:
    """``None`` → the shipped tables; a path → the tables in that file; tables → themselves."""
    if tables is None:
        return default_tables()
    if isinstance(tables, PolicyTables):
        return tables
    if isinstance(tables, (str, Path)):
        return PolicyTables.load(tables)
    raise OptionError(f"tables must be PolicyTables or a tables file, got {type(tables).__name__}")


def _hands_from_uniforms(uniforms: np.ndarray, deck: np.ndarray) -> np.ndarray:
    hands = deck[np.argpartition(uniforms, 13, axis=1)[:, :13]]
    return np.sort(hands, axis=1).astype(np.uint8)


def sample_hands(count: int, seed: int, exclude: Optional[np.ndarray] = None) -> np.ndarray:
    """``count`` random 13-card hands (sorted ``uint8`` ids per row), reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    deck = np.setdiff1d(np.arange(52), exclude if exclude is not None else [])
    return _hands_from_uniforms(rng.random((count, len(deck))), deck)


def sample_block(seed: int, start: int, count: int) -> np.ndarray:
    """Hands ``start .. start + count`` of ``sample_hands(N, seed)`` for any ``N >= start + count``.

    PCG64 is advanced past the earlier hands' draws (52 doubles each), so a
    block is a pure function of ``(seed, start, count)``: the sample is never
    held in memory, and any worker can deal any block.
    """
    bit_generator = np.random.PCG64(seed)
    bit_generator.advance(52 * start)
    return _hands_from_uniforms(np.random.Generator(bit_generator).random((count, 52)), np.arange(52))


def _strength_histogram(strengths: np.ndarray, size: int) -> np.ndarray:
    counts = [np.bincount(strengths[:, row].astype(np.int64), minlength=size) for row in range(3)]
    return np.stack(counts)


def arrange_by_tables(hands: np.ndarray, row_values: np.ndarray, device: str = "cpu") -> tuple[np.ndarray, np.ndarray]:
    """Table-policy split of each hand (sorted ``uint8`` ids, shape ``(N, 13)``) and its row strengths.

    ``device="cuda"`` runs the same kernel on an NVIDIA GPU (identical answers).
    """
    if device == "cuda":
        from .devices import table_policy_cuda

        with shielded():
            return table_policy_cuda(hands, row_values)
    serial, parallel, block, arguments = _policy_kernels()
    with shielded():
        kernel = serial if len(hands) <= block else parallel  # the same answers either way
        return kernel(hands, np.ascontiguousarray(row_values), *arguments)


@functools.cache
def _policy_kernels() -> tuple:
    """The table policy's kernels (serial, parallel), its block size, and the kernels' table arguments."""
    from ._kernels.splits import BLOCK, _table_policy, _table_policy_serial

    return (_table_policy_serial, _table_policy, BLOCK,
            (*row_lookup_arguments(), *rest_lookup_arguments(), split_tables().middles, split_tables().fronts))


def arrange_greedy(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Greedy split of each hand and its row strengths."""
    from ._kernels.splits import _greedy

    t = split_tables()
    with shielded():
        return _greedy(hands, strength_keys(), t.subsets5, t.subsets3, t.splits)



# the parameters of the shipped tables: `cpoker tables build` with no options rebuilds them
BUILD_HANDS, BUILD_SEED, BUILD_MAX_ITERATIONS, BUILD_TOLERANCE = 100_000, 2026, 60, 0.001
DEFAULT_BUILD = {"hands": BUILD_HANDS, "seed": BUILD_SEED, "max_iterations": BUILD_MAX_ITERATIONS,
                 "tolerance": BUILD_TOLERANCE}


def build_tables(hands: int = BUILD_HANDS, seed: int = BUILD_SEED, max_iterations: int = BUILD_MAX_ITERATIONS,
                 tolerance: float = BUILD_TOLERANCE, progress: bool = False, chunk: Optional[int] = None,
                 device: str = "cpu", backend: str = "local", scheduler: Optional[str] = None) -> PolicyTables:
    """Learn the table policy by fictitious self-play (see module docstring).

    Parameters
    ----------
    hands
        Size of the fixed sample of random hands (at most 10**8; the sample is
        dealt block by block, never held, and only each hand's last choice,
        4 bytes, is kept between iterations).
    seed
        Seed of the sample; the same ``(hands, seed, max_iterations, tolerance)``
        give bit-identical tables.
    max_iterations, tolerance
        Stop when the share of hands whose arrangement changed falls below
        ``tolerance`` (0 to 1), or after ``max_iterations``.
    progress
        Show a progress bar (tqdm) on standard error.
    chunk
        Hands per block (default 2,000 on the CPU, 1,000,000 on a GPU); never changes the result.
    device
        ``"cpu"`` or ``"cuda"``: where the table policy runs (identical tables).
    backend, scheduler
        ``"local"`` or ``"dask"`` (see :mod:`cpoker.runner`): where the blocks run (identical tables).

    A SIGINT or SIGTERM stops the build at the next block: the tables of the
    last completed iteration are returned with ``partial=True``.

    Raises
    ------
    OptionError
        For sizes, seeds or a tolerance out of range.
    Interrupted
        When a signal arrives before the first iteration completes.
    """
    from .errors import MAX_ITERATIONS, MAX_TABLE_HANDS, Interrupted, check_fraction, check_int, check_seed
    from . import interrupts
    from .devices import check_device
    from .runner import blocks_of, check_backend, run_blocks

    hands = check_int("hands", hands, 1, MAX_TABLE_HANDS)
    seed = check_seed(seed)
    max_iterations = check_int("max_iterations", max_iterations, 1, MAX_ITERATIONS)
    tolerance = check_fraction("tolerance", tolerance)
    device = check_device(device)
    check_backend(backend, scheduler)
    chunk = check_int("chunk", chunk if chunk is not None else (2_000 if device == "cpu" else 1_000_000), 1, 10**7)
    size = len(strength_keys())
    previous = np.full(hands, -1, dtype=np.int32)  # each hand's last choice: the only per-hand state
    history: list = []

    def self_play_pass(arrange, description: str) -> "tuple[np.ndarray, int] | None":
        counts = np.zeros((3, size), dtype=np.int64)
        changed = 0

        def work(block):
            index, count = block
            chosen, strengths = arrange(sample_block(seed, index * chunk, count))
            return chosen, _strength_histogram(strengths, size)

        def combine(block, summary):
            nonlocal changed, counts
            index, count = block
            chosen, block_counts = summary
            start = index * chunk
            changed += int(np.count_nonzero(previous[start:start + count] != chosen))
            previous[start:start + count] = chosen
            counts += block_counts

        try:
            stopped = run_blocks(blocks_of(hands, chunk), work, combine, total=hands, progress=progress,
                                 unit="hand", description=description, backend=backend, scheduler=scheduler)
        except Interrupted:
            return None
        return None if stopped else (counts, changed)

    with shielded():
        seen = interrupts.signals_seen()  # a signal in the last block of a pass completes it, then stops the build
        first = self_play_pass(arrange_greedy, "greedy start")
        if first is None or interrupts.signals_seen() > seen:
            raise Interrupted(interrupts.received() or 2)
        average = first[0] / hands
        partial = False
        for iteration in range(1, max_iterations + 1):
            values = row_values_from_distribution(average)
            result = self_play_pass(functools.partial(arrange_by_tables, row_values=values, device=device),
                                    f"self-play {iteration}/{max_iterations}")
            if result is None:
                partial = True
                break
            response = result[0] / hands
            new_average = average + (response - average) / iteration if iteration > 1 else response
            changed = 1.0 if iteration == 1 else result[1] / hands
            moved = float(np.abs(row_values_from_distribution(new_average) - values).max())
            history.append({"iteration": iteration, "changed": changed, "values_moved": moved})
            average = new_average
            if changed < tolerance:
                break
            if interrupts.signals_seen() > seen:
                partial = True
                break
        if not history:
            raise Interrupted(interrupts.received() or 2)
    return PolicyTables(average, hands, seed, tuple(history), partial)
