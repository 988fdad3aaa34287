"""Self-play passes that search only the hands whose choice may have changed, with the same answers.

A tables build (:func:`cpoker.policy.build_tables`) arranges one sample of
hands under a model per iteration, and the models move less and less: past
the first few iterations most hands keep their split.  Each search here also
lists the hand's near-best rows (:mod:`cpoker._kernels.nearbest`): the
distinct row strengths of its splits within :data:`DELTA` of the best, and a
ceiling no other split reaches.  A later pass values the listed rows under
its own model and bounds what any other split can have gained since, by the
*drift* between the two models (:func:`drift`); when a listed split still
leads by more than that, it is the search's answer, found without dealing or
searching the hand.  Only the others are searched (and list again).

The answers, and so the tables, are identical with or without it: that is
tested against plain passes, and the shipped tables still rebuild byte for
byte.  Used by the local backend for the iterations without a card-removal
correction (a corrected value depends on the hand's cards); the Dask backend
and the rounds with the correction search every hand, as before.
"""

from __future__ import annotations

import numpy as np

from .interrupts import shielded

DELTA = 0.1  # how far below the best a listed split may be (a split's value spans about -3 to 3)
CAPACITY = 8  # listed rows a hand: a 60-iteration pagat build then searches a hand 8.3 times instead of 60
MEMORY_BYTES = 1 << 30  # host memory for the lists (93 bytes a hand: 11 M hands); the hands past it are searched
DRIFT_SLACK = 1e-9  # added to every drift: a split's value is a rounded sum


def valid_strengths() -> np.ndarray:
    """``(3, S)`` bool: the dense strengths each row can have (the front 3-card rows', the others 5-card rows')."""
    from .tables import row_keys, strength_keys

    three = np.isin(strength_keys(), row_keys(3))
    return np.stack([three, ~three, ~three])


def model_snapshot(model) -> tuple:
    """What :func:`drift` reads of a :class:`~cpoker.policy.RowModel`: ``(values, wins, losses, scoop, majority,
    joint grid)``."""
    return model.values, model.wins, model.losses, float(model.scoop), float(model.majority), model.joint_grid


def drift(before: tuple, after: tuple, valid: np.ndarray) -> float:
    """The most any split's value can rise from one model to another (their :func:`model_snapshot`), ``inf`` when
    they price the bonus differently; ``valid``: :func:`valid_strengths`.

    The sum over rows of the largest rise of a row's value at a strength it can have, plus, under a scoring
    bonus, the most the bonus can move: ``(scoop + majority)`` times the grid's steepest slope
    (:func:`~cpoker._kernels.splits.joint_slope`, 1 for independent rows) per unit of a win or loss probability,
    times the largest change of each row's (:func:`~cpoker._kernels.splits.hand_removal` bounds a card-removal
    correction's effect the same way).
    """
    from ._kernels.splits import joint_slope

    values, wins, losses, scoop, majority, joint = after
    if (scoop, majority) != before[3:5] or not np.array_equal(joint, before[5]):
        return np.inf
    rise = sum(max(0.0, float((values[row] - before[0][row])[valid[row]].max())) for row in range(3))
    if scoop or majority:
        moved = sum(float(np.abs(now[row] - then[row])[valid[row]].max())
                    for now, then in ((wins, before[1]), (losses, before[2])) for row in range(3))
        rise += (scoop + majority) * joint_slope(joint) * moved
    return rise + DRIFT_SLACK


class NearBestMemory:
    """Each hand's near-best rows from its last search, for the passes of one build (see the module docstring).

    Parameters
    ----------
    hands, chunk
        The build's sample size and hands per block: the lists cover the first whole blocks that fit in
        ``memory`` bytes (default :data:`MEMORY_BYTES`), and the hands past them are searched in every pass.
    capacity, delta
        Rows listed a hand at most, and how far below the best value.
    """

    def __init__(self, hands: int, chunk: int, memory: "int | None" = None, capacity: int = CAPACITY,
                 delta: float = DELTA) -> None:
        memory = MEMORY_BYTES if memory is None else memory
        per_hand = capacity * (3 * 2 + 4) + 1 + 8 + 4  # rows and splits, count, ceiling, since
        self.size = min(hands, memory // per_hand // chunk * chunk)
        self.delta = float(delta)
        self.rows = np.zeros((self.size, capacity, 3), dtype=np.int16)
        self.splits = np.zeros((self.size, capacity), dtype=np.int32)
        self.counts = np.zeros(self.size, dtype=np.uint8)
        self.ceilings = np.zeros(self.size)
        self.since = np.full(self.size, -1, dtype=np.int32)  # the pass whose model listed them; -1 none
        self._snapshots: list = []  # each pass's model, as drift() reads it (None once no hand refers to it)
        self._drifts = np.zeros(1)
        self._valid = None
        self.searched = 0  # hands searched in memory-covered blocks, and certified
        self.certified = 0

    def start_pass(self, model) -> bool:
        """Begin a pass under ``model`` (a :class:`~cpoker.policy.RowModel`); False when it cannot use the lists
        (a card-removal correction), and its blocks are then arranged as usual."""
        if model.removal is not None or self.size == 0:
            return False
        if self._valid is None:
            self._valid = valid_strengths()
        if len(self._snapshots):  # forget the models no hand's list refers to any more
            referred = np.zeros(len(self._snapshots), dtype=bool)
            referred[np.unique(self.since[self.since >= 0])] = True
            self._snapshots = [s if keep else None for s, keep in zip(self._snapshots, referred)]
        snapshot = model_snapshot(model)
        # since -1 reads the last entry: no list, so no certificate
        self._drifts = np.array([np.inf if old is None else drift(old, snapshot, self._valid)
                                 for old in self._snapshots] + [np.inf])
        self._snapshots.append(snapshot)
        self._model = model
        return True

    def covers(self, start: int, count: int) -> bool:
        return start + count <= self.size

    def arrange(self, stream: tuple, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``(chosen, strengths)`` of hands ``start .. start + count`` of the sample under the pass's model:
        certified from their lists where possible, the others dealt from ``stream`` (the sample's PCG64 state
        before hand ``start``: :func:`cpoker.policy.stream_state`) and searched, listing again."""
        from ._kernels.nearbest import certify, policy_remembering
        from .policy import FULL_DECK

        model = self._model
        block = slice(start, start + count)
        drifts = self._drifts[self.since[block]]
        with shielded():
            chosen, strengths = certify(self.rows[block], self.splits[block], self.counts[block], self.ceilings[block],
                                        drifts, model.values, model.wins, model.losses, float(model.scoop),
                                        float(model.majority), model.joint_grid)
            todo = np.flatnonzero(chosen < 0)
            if len(todo):
                policy_remembering(*stream, todo, FULL_DECK, self.delta, *model.search_arguments, chosen, strengths,
                                   self.rows[block], self.splits[block], self.counts[block], self.ceilings[block])
        self.since[start + todo] = len(self._snapshots) - 1
        self.searched += len(todo)
        self.certified += count - len(todo)
        return chosen, strengths
