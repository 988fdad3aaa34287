"""How an opponent's three rows go together: the joint row model of the scoring bonuses.

Under 1-6 scoring a scoop (all three rows) pays double, under 2-4 scoring
two rows out of three pay a bonus.  The table policy prices these bonuses
from each row's probability of winning and losing
(:class:`cpoker.strategies.policy.RowModel`).  Multiplying those probabilities treats
the opponent's rows as independent, but they are not: they share one
hand's thirteen cards (in the 1-6 tables' play, all three rows in the
weaker half happen 8.4% of the time, not the product's 12.5%: the rows
compete for the cards).  Measured against the exact best response to the
shipped tables' own play, that product cost 0.004 points a hand under 1-6
scoring and 0.002 under 2-4 (docs/strategy-quality.md).

So the model carries the joint distribution of the opponent's rows, in
the coordinates the policy already has.  Give each of an opponent's rows
the share ``U`` of rows (of the model's distribution) strictly weaker than
it: our row whose win probability is ``u`` then beats exactly the
opponent's rows with ``U < u``, so the probability of winning all three
rows is the joint distribution function of ``(U_front, U_middle, U_back)``
at our three win probabilities -- exact, whatever the rows' distributions,
and the card-removal correction (:mod:`cpoker.strategies.policy.removal`) moves the win
probabilities it is read at.  The same with the share strictly stronger
gives the losses.  It is stored on a grid of ``JOINT_CELLS + 1`` points per
axis (two ``17**3`` float64 arrays, 79 KB) and read by multilinear
interpolation (:func:`cpoker._kernels.bonus.joint_below`), which is the
distribution function of the cells' mass spread evenly in each cell, so
the bonus stays increasing in every win probability, as the policy's
search needs.  Measured on the shipped tables, 8 cells per axis already
removed the product's cost; 16 are used.

The grid is learned with the card-removal correction, from the same deals
arranged by the policy (:func:`cpoker.jobs.removal_learning.learn_removal`): exact
integer counts, so the same bits on every machine.
"""

from __future__ import annotations

import numpy as np

from cpoker.system.errors import OptionError

JOINT_CELLS = 16  # grid cells per axis: 8 measured as good; each cell holds ~1/4096 of the opponents on average
MAX_JOINT_CELLS = 64  # a file's grid larger than this (2 * 65**3 doubles, 4.4 MB) is not one cpoker wrote

# the one-cell grid of independent rows: its multilinear interpolation is u * v * w
INDEPENDENT = np.zeros((2, 2, 2, 2))
INDEPENDENT[:, 1, 1, 1] = 1.0
INDEPENDENT.flags.writeable = False


def coordinate_cells(wins: np.ndarray, losses: np.ndarray, cells: int = JOINT_CELLS) -> np.ndarray:
    """``(2, 3, S)`` int64: the grid cell of each row strength's coordinate, by side (wins, losses) and row.

    ``wins`` and ``losses`` (``(3, S)``) are a :class:`~cpoker.strategies.policy.RowModel`'s: a row of strength ``s``
    has coordinate ``wins[row, s]`` (the share of rows strictly weaker) on side 0 and ``losses[row, s]`` on
    side 1, in cell ``floor(coordinate * cells)`` (never ``cells``: a row that occurs is not stronger than
    every row, itself included).
    """
    coordinates = np.stack([wins, losses])
    return np.minimum((coordinates * cells).astype(np.int64), cells - 1)


def add_counts(counts: np.ndarray, cells_of: np.ndarray, strengths: np.ndarray) -> None:
    """Add the opponents' rows ``strengths`` (``(N, 3)`` dense, front, middle, back) to ``counts``.

    ``counts`` is ``(2, cells, cells, cells)`` int64, ``cells_of`` from :func:`coordinate_cells`.
    """
    cells = counts.shape[1]
    strengths = np.asarray(strengths, dtype=np.int64).reshape(-1, 3)
    for side in range(2):
        front, middle, back = (cells_of[side, row, strengths[:, row]] for row in range(3))
        flat = (front * cells + middle) * cells + back
        counts[side] += np.bincount(flat, minlength=cells**3).reshape(cells, cells, cells)


def grid_of_counts(counts: np.ndarray) -> np.ndarray:
    """The ``(2, cells + 1, cells + 1, cells + 1)`` distribution function of counted coordinates.

    ``grid[side, i, j, k]`` is the share of the counted opponents whose three coordinates lie below
    ``i / cells``, ``j / cells`` and ``k / cells``: exact integer sums, one division each.
    """
    sides, cells = counts.shape[0], counts.shape[1]
    totals = np.zeros((sides, cells + 1, cells + 1, cells + 1), dtype=np.int64)
    totals[:, 1:, 1:, 1:] = counts.cumsum(axis=1).cumsum(axis=2).cumsum(axis=3)
    grid = totals / totals[:, -1:, -1:, -1:].astype(np.float64)
    grid.flags.writeable = False
    return grid


def check_joint(joint) -> np.ndarray:
    """``joint`` as a read-only float64 grid, once checked to be a distribution function, or :class:`OptionError`.

    Two sides of ``(c + 1)**3`` points (1 <= c <= 64), zero on the lower faces, one at the top corner, the
    mass of every cell (the grid's third difference) not negative: what keeps the bonus a probability and
    the policy's search exact.
    """
    try:
        array = np.array(joint, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.empty(0)
    size = array.shape[1] if array.ndim == 4 else 0
    if (array.ndim != 4 or array.shape[0] != 2 or not 2 <= size <= MAX_JOINT_CELLS + 1
            or array.shape != (2, size, size, size) or not np.isfinite(array).all()):
        raise OptionError("a joint row model must be a finite (2, c + 1, c + 1, c + 1) grid with 1 to "
                          f"{MAX_JOINT_CELLS} cells per axis, got shape {array.shape}")
    masses = np.diff(np.diff(np.diff(array, axis=1), axis=2), axis=3)
    if (array[:, 0].any() or array[:, :, 0].any() or array[:, :, :, 0].any()
            or not np.allclose(array[:, -1, -1, -1], 1.0) or (masses < -1e-12).any()):
        raise OptionError("a joint row model must be a distribution function: zero on the lower faces, one at "
                          "the top corner, no cell of negative mass")
    array.flags.writeable = False
    return array
