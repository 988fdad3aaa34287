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
    """

    distribution: np.ndarray
    hands: int = 0
    seed: int = 0
    history: tuple = field(default=())

    @functools.cached_property
    def row_values(self) -> np.ndarray:
        """``(3, 7917)`` expected result of a row of each strength (front, middle, back)."""
        values = row_values_from_distribution(self.distribution)
        values.flags.writeable = False
        return values

    @property
    def iterations(self) -> int:
        return len(self.history)

    def save(self, path: "str | Path") -> None:
        """Write the tables to an ``.npz`` file, byte-identical for identical tables.

        ``numpy.savez`` stamps each member with the current time; this writes
        the same format with a fixed timestamp so rebuilt tables can be
        compared byte for byte.
        """
        meta = json.dumps({"hands": self.hands, "seed": self.seed, "history": list(self.history)}, sort_keys=True)
        arrays = {"distribution": np.ascontiguousarray(self.distribution, dtype=np.float64), "meta": np.array(meta)}
        with zipfile.ZipFile(path, "w") as archive:
            for name, array in arrays.items():
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, array, allow_pickle=False)
                archive.writestr(info, buffer.getvalue())

    @classmethod
    def load(cls, path: "str | Path") -> "PolicyTables":
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            return cls(data["distribution"].astype(np.float64), meta["hands"], meta["seed"], tuple(meta["history"]))


@functools.cache
def default_tables() -> PolicyTables:
    """The tables shipped with cpoker (``cpoker tables build`` regenerates them)."""
    with resources.as_file(resources.files("cpoker") / "data" / DEFAULT_TABLES_FILE) as path:
        if not path.exists():
            raise FileNotFoundError(f"policy tables missing at {path}; run 'cpoker tables build'")
        return PolicyTables.load(path)


def sample_hands(count: int, seed: int, exclude: Optional[np.ndarray] = None) -> np.ndarray:
    """``count`` random 13-card hands (sorted ``uint8`` ids per row), reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    deck = np.setdiff1d(np.arange(52), exclude if exclude is not None else [])
    keys = rng.random((count, len(deck)))
    hands = deck[np.argpartition(keys, 13, axis=1)[:, :13]]
    return np.sort(hands, axis=1).astype(np.uint8)


def _strength_histogram(strengths: np.ndarray, size: int) -> np.ndarray:
    counts = [np.bincount(strengths[:, row].astype(np.int64), minlength=size) for row in range(3)]
    return np.stack(counts).astype(np.float64)


def arrange_by_tables(hands: np.ndarray, row_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Table-policy split of each hand (sorted ``uint8`` ids, shape ``(N, 13)``) and its row strengths."""
    from ._kernels.splits import _table_policy
    from .tables import split_tables, strength_hash

    t, h = split_tables(), strength_hash()
    return _table_policy(hands, np.ascontiguousarray(row_values), h.keys, h.dense, t.subsets5, t.subsets3, t.splits)


def arrange_greedy(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Greedy split of each hand and its row strengths."""
    from ._kernels.splits import _greedy
    from .tables import split_tables, strength_keys

    t = split_tables()
    return _greedy(hands, strength_keys(), t.subsets5, t.subsets3, t.splits)


# the parameters of the shipped tables: `cpoker tables build` with no options rebuilds them
BUILD_HANDS, BUILD_SEED, BUILD_MAX_ITERATIONS, BUILD_TOLERANCE = 100_000, 2026, 60, 0.001
DEFAULT_BUILD = {"hands": BUILD_HANDS, "seed": BUILD_SEED, "max_iterations": BUILD_MAX_ITERATIONS,
                 "tolerance": BUILD_TOLERANCE}


def build_tables(hands: int = BUILD_HANDS, seed: int = BUILD_SEED, max_iterations: int = BUILD_MAX_ITERATIONS,
                 tolerance: float = BUILD_TOLERANCE,
                 progress: bool = False, chunk: int = 2_000) -> PolicyTables:
    """Learn the table policy by fictitious self-play (see module docstring).

    Parameters
    ----------
    hands
        Size of the fixed sample of random hands.
    seed
        Seed of the sample; the same ``(hands, seed, max_iterations, tolerance)``
        give bit-identical tables.
    max_iterations, tolerance
        Stop when the share of hands whose arrangement changed falls below
        ``tolerance``, or after ``max_iterations``.
    progress
        Show a progress bar (tqdm) on standard error.
    """
    from .tables import strength_keys

    if hands < 1:
        raise OptionError(f"hands must be at least 1, got {hands}")
    if max_iterations < 1:
        raise OptionError(f"max_iterations must be at least 1, got {max_iterations}")
    sample = sample_hands(hands, seed)
    size = len(strength_keys())
    _, strengths = arrange_greedy(sample)
    average = _strength_histogram(strengths, size) / hands
    previous: Optional[np.ndarray] = None
    history = []
    bar = _progress_bar(max_iterations * hands, progress, "self-play")
    try:
        for iteration in range(1, max_iterations + 1):
            values = row_values_from_distribution(average)
            chosen = np.empty(hands, dtype=np.int32)
            strengths = np.empty((hands, 3), dtype=np.int16)
            for start in range(0, hands, chunk):
                stop = min(start + chunk, hands)
                chosen[start:stop], strengths[start:stop] = arrange_by_tables(sample[start:stop], values)
                bar.update(stop - start)
            response = _strength_histogram(strengths, size) / hands
            new_average = average + (response - average) / iteration if iteration > 1 else response
            changed = 1.0 if previous is None else float(np.mean(chosen != previous))
            moved = float(np.abs(row_values_from_distribution(new_average) - values).max())
            history.append({"iteration": iteration, "changed": changed, "values_moved": moved})
            bar.set_postfix(changed=f"{changed:.4f}", moved=f"{moved:.4f}")
            average, previous = new_average, chosen
            if changed < tolerance:
                break
    finally:
        bar.close()
    return PolicyTables(average, hands, seed, tuple(history))


def _progress_bar(total: int, enabled: bool, description: str):
    from tqdm import tqdm

    return tqdm(total=total, disable=not enabled, desc=description, unit="hand", leave=False)
