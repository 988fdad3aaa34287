"""Self-play passes that search only the hands whose choice may have changed, with the same answers.

A tables build (:func:`cpoker.jobs.selfplay.build_tables`) arranges one sample of
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
byte.  Used by every pass of the local backend (:class:`NearBestMemory`, one
array for the sample's first hands) and of the Dask backend on the CPU (each
worker process keeps the lists of the blocks it ran, :class:`BlockMemory`, and
the client sends each block back to the worker that ran it).  Under a
card-removal correction a split's value depends on the hand's cards, so the
drift does too: the part common to all hands (:func:`drift`) plus the hand's
own (:func:`drift_by_shape`, :func:`~cpoker._kernels.nearbest.hand_drift`).
A list made without the correction is certified under it as one made with
terms of zero: the hand's own drift is then its whole correction, which a
list's margin covers less often than a list of the same model (docs/performance.md
counts the hands certified).  A
certificate bounds the hand's own drift first in a few dozen operations
(:func:`drift_bounds`, :func:`~cpoker._kernels.nearbest.hand_drift_bound`) and
sums it only for the hands that lead by less.  A hand certified once keeps that
split in later passes, with nothing valued, while the models have *swung* since
by less than its leader's margin then (:func:`swing`, the most one split can
rise plus the most another can fall;
:func:`~cpoker._kernels.nearbest.kept_split`): a late pass keeps most of its
hands so, and certifies again only the others.  The
learnings of the correction,
which arrange the same deals each time, keep lists of their hands as well
(:func:`cpoker.jobs.removal_learning.learning_lists`, :meth:`NearBestMemory.arrange_hands`).
"""

from __future__ import annotations

import threading

import numpy as np

from cpoker._kernels.nearbest import CAPACITY, LISTED  # rows listed a hand at most; arrays a search writes
from cpoker.system.interrupts import shielded

# how far below the best a listed split may be (a split's value spans about -3 to 3), and how many rows a list holds
# (CAPACITIES): what a certificate's margin is made of (the searches they spared: docs/performance.md, Constants)
DELTA = 0.5
# the rows a build's lists hold: the most of these whose lists cover the whole sample in the memory they have
# (list_capacity), else the fewest, which cover the most hands (a hand past the lists is searched in every pass)
CAPACITIES = (CAPACITY, 24, 16)
# a Dask worker's lists (BlockMemory): its share of a machine's memory covers an unknown share of the sample's blocks
WORKER_CAPACITY = CAPACITIES[-1]
MEMORY_BYTES = 2 << 30  # host memory for the lists (354 bytes a hand at 32 rows: 6.1 M hands, 194 at 16: 11.1 M); the
# hands past it are searched in every pass
DRIFT_SLACK = 1e-9  # added to every drift: a split's value is a rounded sum
NO_HANDS = np.empty((0, 13), dtype=np.uint8)  # remembering_block's hands given: none (each dealt from its stream)
NO_STREAM = (np.uint64(0),) * 4  # its stream when the hands are given (read by nothing)
KEPT_MODELS = 256  # the models of the last passes kept for drift(): a list made under an older one is searched again
# under a card-removal correction, lists made by the last passes' models only (each hand's drift reads a change of
# the correction's terms from each: 0.4 MB, 1.3 MB under a bonus)
KEPT_CORRECTED = 16
# hands a thread certifies in one kernel call at least: most take ~50 ns, and a call of the kernel, with its 26
# arrays, costs some microseconds
CERTIFIED_PART = 2048
MAX_PASSES = 4096  # passes of one build with lists (the drifts by pass stay small); later ones search every hand
# a pass lists only once its model moved less than this since the last pass's: the lists of the first passes, whose
# models move most, certify almost nothing later
LISTING_DRIFT = 0.2
# under a card-removal correction, the part of the drift common to all hands (a scoring bonus's joint grid moving,
# joint_drift) below which a pass lists: it eats into the margin of every certificate, and a pass that lists
# searches at about twice the cost, so a round whose lists would certify nothing is better left unlisted
LISTING_JOINT_DRIFT = 0.1


def strength_histogram(strengths: np.ndarray, size: int) -> np.ndarray:
    """``(3, size)`` int64: the rows' strengths (``(N, 3)``) counted by row and strength."""
    counts = [np.bincount(strengths[:, row].astype(np.int64), minlength=size) for row in range(3)]
    return np.stack(counts)


def block_histograms(strengths: np.ndarray, size: int, blocks: np.ndarray, n_blocks: int) -> np.ndarray:
    """``(n_blocks, 3, size)`` int64: the rows' strengths (``(N, 3)``) of hands in block ``blocks[i]`` each,
    counted by block, row and strength (:func:`strength_histogram` of each block's hands)."""
    index = (np.asarray(blocks, dtype=np.int64)[:, None] * 3 + np.arange(3)) * size + strengths
    return np.bincount(index.ravel(), minlength=n_blocks * 3 * size).reshape(n_blocks, 3, size)


def valid_strengths(front_code: int = 0) -> np.ndarray:
    """``(3, S)`` bool: the dense strengths each row can have (the front 3-card rows', the others 5-card rows'),
    on the strength scale of the front order ``front_code`` (``RowModel.front_code``)."""
    from cpoker.game.lookup_tables import three_card_strengths

    three = three_card_strengths(front_code)
    return np.stack([three, ~three, ~three])


def model_snapshot(model) -> tuple:
    """What a certificate reads of a :class:`~cpoker.strategies.policy.RowModel`
    (:func:`~cpoker._kernels.nearbest.certify_block`'s
    last arguments), and :func:`drift` too: ``(values, wins, losses, scoop, majority, joint grid, card-removal
    terms, correction shapes)``; the terms have one row without a correction."""
    arguments = model.kernel_arguments()
    return (*arguments[:1], *arguments[2:7], *arguments[9:])


def corrected(snapshot: tuple) -> bool:
    """Whether the model of this :func:`model_snapshot` corrects each hand for card removal."""
    return snapshot[6].shape[0] > 1


def joint_drift(before: tuple, after: tuple) -> float:
    """The most the scoring bonus of any rows can rise from one model's joint grid to another's (their
    :func:`model_snapshot`), ``inf`` when they price the bonus differently.

    The bonus is linear in the grid (:func:`~cpoker._kernels.bonus.rows_bonus`), so its change is the bonus read
    from the grids' difference, at the rows' win coordinates (side 0) and, apart, their loss coordinates (side
    1): the most it rises is the most one side's part reaches plus the most the other's falls.  Each part is a
    sum of multilinear interpolations (:func:`~cpoker._kernels.bonus.joint_below`) at coordinates that share
    one grid's cells, some at 1: multilinear in each cell, it reaches its extremes at the cells' corners, the
    grid's points (:func:`_bonus_at_grid_points`).  The bound is so the least that holds for every split, far
    below the sum of each read's largest change.
    """
    scoop, majority, joint = after[3:6]
    if (scoop, majority) != before[3:5] or joint.shape != before[5].shape:
        return np.inf
    if not (scoop or majority) or np.array_equal(joint, before[5]):
        return 0.0
    change = joint - before[5]
    wins = _bonus_at_grid_points(change[0], scoop, majority)  # what three (two) wins gain
    losses = _bonus_at_grid_points(change[1], scoop, majority)  # what three (two) losses cost
    return float(max(0.0, wins.max()) + max(0.0, -losses.min()))


def _bonus_at_grid_points(grid: np.ndarray, scoop: float, majority: float) -> np.ndarray:
    """``rows_bonus``'s part of one side read from ``grid`` (one side's ``(cells + 1)**3`` points) at every grid
    point: ``scoop`` times the three rows' reading plus ``majority`` times the two-or-more's (each pair of rows
    read with the third at 1, less twice the three).  At a grid point each interpolation is the point's own value,
    so this is the kernels' formula written on the grid, in whole-array steps rather than one kernel call a
    point (:func:`~cpoker._kernels.bonus.rows_bonus_many`; test_nearbest checks the two against each other): a
    bonus build makes thousands of calls."""
    top = grid.shape[0] - 1
    bonus = np.zeros_like(grid)
    if scoop:
        bonus += scoop * grid
    if majority:
        bonus += majority * (grid[:, :, top][:, :, None] + grid[:, top, :][:, None, :] + grid[top][None]
                             - 2.0 * grid)
    return bonus


def _row_rises(before: tuple, after: tuple) -> np.ndarray:
    """``(3, S)``: each row's rise of value by strength from one model's tables to another's, plus under a scoring
    bonus the most the change of its win and loss probabilities moves the bonus (corrections left out)."""
    from cpoker._kernels.bonus import joint_slope

    values, wins, losses, scoop, majority, joint = after[:6]
    rise = values - before[0]
    if scoop or majority:
        rise = rise + (scoop + majority) * joint_slope(joint) * (np.abs(wins - before[1]) + np.abs(losses - before[2]))
    return rise


def drift(before: tuple, after: tuple, valid: np.ndarray) -> float:
    """The most any split's value can rise from one model to another (their :func:`model_snapshot`), ``inf`` when
    they price the bonus differently or only the first corrects for card removal; ``valid``: :func:`valid_strengths`.

    A split's value is the sum of its rows' values plus, under a scoring bonus, the bonus of its rows' win and
    loss probabilities, which moves by at most ``(scoop + majority)`` times the grid's steepest slope
    (:func:`~cpoker._kernels.bonus.joint_slope`, 1 for independent rows) per unit of any one of them
    (:func:`~cpoker._kernels.bonus.hand_removal` bounds a card-removal correction's effect the same way), and
    by at most :func:`joint_drift` with the grid.  So each row adds the largest, over the strengths it can
    have, of its value's rise plus that slope times the change of its win and loss probabilities at that
    strength.  Between two corrected models that depends on the hand: this is then only the part common to
    all hands (the grid's), and :func:`~cpoker._kernels.nearbest.hand_drift` adds each hand's, from
    :func:`drift_by_shape`; so too from a model without the correction to one with it (terms of zero before).
    """
    if corrected(before) and not corrected(after):
        return np.inf
    common = joint_drift(before, after) + DRIFT_SLACK
    if corrected(after) or not common < np.inf:
        return common
    rise = _row_rises(before, after)
    return sum(max(0.0, float(rise[row][valid[row]].max())) for row in range(3)) + common


def swing(before: tuple, after: tuple, valid: np.ndarray,
          forward: "tuple[float, np.ndarray | None] | None" = None) -> "tuple[float, np.ndarray | None]":
    """How far any split's value can move, its rise plus its fall, from one model to another (their
    :func:`model_snapshot`): ``(common, bounds)``, ``inf`` when they price the bonus differently or only the
    first corrects for card removal.

    A split that led every other by more than this under ``before`` still leads under ``after``: its fall and
    another's rise cannot close the gap (:func:`~cpoker._kernels.nearbest.kept_split`).  Without a
    correction, the :func:`drift` both ways, and ``bounds`` None.  With one (``after`` corrected), ``common`` is
    the part common to all hands (the joint grid's both ways), and each hand's own part is
    :func:`~cpoker._kernels.nearbest.hand_drift_bound` of ``bounds``: the sum of the two ways'
    :func:`drift_bounds` (a hand's rise and fall are each at most its bound of one way, and the bound of a sum
    of tables is the sum of their bounds), a model without the correction counting as terms of zero.
    ``forward``: the way from ``before`` to ``after`` when already known (:meth:`NearBestMemory.start_pass` has
    it: the drift, and the :func:`drift_bounds` a certificate reads).
    """
    if corrected(before) and not corrected(after):
        return np.inf, None
    own = corrected(after)
    ahead = _one_way(before, after, valid, own) if forward is None else forward
    back = _one_way(after, before, valid, own)
    common = ahead[0] + back[0]
    if not common < np.inf:
        return np.inf, None
    return common, ahead[1] + back[1] if own else None  # type: ignore[operator]  # (own: both are arrays)


def _one_way(one: tuple, other: tuple, valid: np.ndarray, own: bool) -> "tuple[float, np.ndarray | None]":
    """The most any split can rise from one model to the other: the :func:`drift`, and when ``own`` (a correction
    on either side) only its part common to all hands, with the :func:`drift_bounds` of each hand's own part."""
    if not own:
        return drift(one, other, valid), None
    from cpoker._kernels.bonus import joint_slope

    return joint_drift(one, other) + DRIFT_SLACK, drift_bounds(
        _shape_rises(one, other, valid), _terms_change(one, other), (other[3] + other[4]) * joint_slope(other[5]))


def drift_by_shape(before: tuple, after: tuple, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`~cpoker._kernels.nearbest.hand_drift` reads of two models, the second corrected: ``(shape_rises,
    delta_terms)``, the largest rise of each row's tables (:func:`drift`'s) over the strengths of each correction
    shape (``-inf`` for a shape the row cannot have), and the change of the correction's terms (float64; from a
    model without the correction, all of them)."""
    return _shape_rises(before, after, valid), _terms_change(before, after)


def _shape_rises(before: tuple, after: tuple, valid: np.ndarray) -> np.ndarray:
    from cpoker._kernels.removal import N_SHAPES

    rise, shapes = _row_rises(before, after), after[7]
    shape_rises = np.full((3, N_SHAPES), -np.inf)
    for row in range(3):
        np.maximum.at(shape_rises[row], shapes[valid[row]], rise[row][valid[row]])
    return shape_rises


def drift_bounds(shape_rises: np.ndarray, delta_terms: np.ndarray, slope_units: float) -> np.ndarray:
    """``(1 + N_FEATURES, 3)``, laid out as terms with a column a row: what
    :func:`~cpoker._kernels.nearbest.hand_drift_bound` reads for the :func:`~cpoker._kernels.nearbest.hand_drift`
    of ``shape_rises`` and ``delta_terms`` (one entry of each, :func:`drift_by_shape`) and ``slope_units``: for
    each row, the largest over the shapes it can have of its table's rise plus the change of the constant term
    (row 0), and of the change of each feature's term (row ``1 + f``), each with ``slope_units`` times the size
    of the change of the win and loss terms under a scoring bonus (their part of the bonus moves with their
    size, whatever its sign)."""
    from cpoker._kernels.removal import N_SHAPES

    terms = delta_terms.reshape(len(delta_terms), -1, 3, N_SHAPES)  # (1 + features, quantities, rows, shapes)
    rises = terms[:, 0].copy()
    if terms.shape[1] > 1:
        rises += slope_units * (np.abs(terms[:, 1]) + np.abs(terms[:, 2]))
    rises[0] += shape_rises
    possible = shape_rises > -np.inf
    bounds = np.where(possible, rises, -np.inf).max(axis=2)
    bounds[1:, ~possible.any(axis=1)] = 0.0  # a row with no shape adds nothing (and no feature times -inf)
    return bounds


def _terms_change(before: tuple, after: tuple) -> np.ndarray:
    """The change of the correction's terms from ``before`` to ``after`` (float64): a model without the correction
    has terms of zero."""
    terms = after[6].astype(np.float64)
    if not corrected(before):
        return terms
    return terms - before[6].astype(np.float64) if corrected(after) else -before[6].astype(np.float64)


def lists_in_pass(before: "tuple | None", snapshot: tuple, final: bool, valid: "np.ndarray | None" = None) -> bool:
    """Whether a pass under the model of ``snapshot`` lists its hands' near-best rows: not the ``final`` one,
    and only once its model has moved little since the last pass's (``before``; None: none, or not kept): by the
    drift (:data:`LISTING_DRIFT`), or under a correction by the part common to all hands
    (:data:`LISTING_JOINT_DRIFT`; the first pass with a correction: its grid's, as a hand's own would be inf)."""
    if before is None or final:
        return False
    if corrected(snapshot):
        return joint_drift(before, snapshot) < LISTING_JOINT_DRIFT
    return drift(before, snapshot, valid_strengths() if valid is None else valid) < LISTING_DRIFT


def bytes_per_hand(capacity: int) -> int:
    """Memory a hand's list takes: its rows and splits (``capacity`` each), count, ceiling, pass and cards, and its
    last certificate's pass, margin and leader."""
    return capacity * (3 * 2 + 4) + 1 + 8 + 4 + 8 + 4 + 8 + 1


def hands_listed(memory: int, capacity: int, chunk: int) -> int:
    """The hands whose lists of ``capacity`` rows fit in ``memory`` bytes, lists made for whole blocks of ``chunk``
    hands."""
    return memory // bytes_per_hand(capacity) // chunk * chunk


def list_capacity(hands: int, memory: int, chunk: int = 1) -> int:
    """The rows a list of each of ``hands`` hands holds in ``memory`` bytes (:func:`hands_listed`): the most of
    :data:`CAPACITIES` whose lists cover them all, else the fewest (which cover the most).  Deeper lists spare
    searches (:data:`DELTA`), and a hand without a list is searched in every pass."""
    return next((capacity for capacity in CAPACITIES if hands_listed(memory, capacity, chunk) >= hands),
                CAPACITIES[-1])


class NearBestMemory:
    """Each hand's near-best rows from its last search, for the passes of one build (see the module docstring).

    Parameters
    ----------
    hands, chunk
        The build's sample size and hands per block: the lists cover the first whole blocks that fit in
        ``memory`` bytes, and the hands past them are searched in every pass.
    device
        Where the lists live and the passes run: ``"cpu"`` (host memory, :data:`MEMORY_BYTES` by default) or
        ``"cuda"`` (the GPU's memory, a quarter of what is free by default: 10**8 hands take 19.4-35.4 GB).
    capacity, delta
        Rows listed a hand at most (default :func:`list_capacity`, at most :data:`CAPACITY`), and how far below the
        best value.
    """

    def __init__(self, hands: int, chunk: int, device: str = "cpu", memory: "int | None" = None,
                 capacity: "int | None" = None, delta: float = DELTA) -> None:
        self.device, self.chunk = device, chunk
        if memory is None:
            memory = MEMORY_BYTES
            if device == "cuda":
                from cpoker.game.devices import free_device_memory

                memory = free_device_memory() // 4
        if capacity is None:
            capacity = list_capacity(hands, memory, chunk)
        if not 1 <= capacity <= CAPACITY:  # the kernels' scratch for a list's rows and columns
            raise ValueError(f"a near-best list holds 1 to {CAPACITY} rows, not {capacity}")
        self.capacity = capacity
        self.size = min(hands, hands_listed(memory, capacity, chunk))
        self.delta = float(delta)
        if device == "cuda":
            from cpoker.game.devices import near_best_lists_cuda

            self.lists = near_best_lists_cuda(self.size, capacity)
        else:
            self.lists = empty_lists(self.size, capacity)
        self._snapshots: dict = {}  # pass -> its model as drift() reads it, the last KEPT_MODELS passes
        self._drifts = np.zeros(0)
        self._valid: "np.ndarray | None" = None
        self.listing = False  # whether the pass lists (see LISTING_DRIFT)
        self.searched = 0  # hands searched and certified in the blocks the lists cover
        self.certified = 0
        self.by_pass: list = []  # the same, pass by pass: [searched, certified]
        self.kept = 0  # of the hands certified, those whose split was kept from an earlier certificate
        self.kept_by_pass: list = []

    def start_pass(self, model, final: bool = False, number: "int | None" = None,
                   listing: "bool | None" = None) -> bool:
        """Begin a pass under ``model`` (a :class:`~cpoker.strategies.policy.RowModel`); False when it cannot use the
        lists
        (past :data:`MAX_PASSES`, or none), and its blocks are then arranged as usual.  A ``final`` pass (the
        build's last, when known) lists nothing: no pass would read it.

        ``number`` and ``listing`` are given by a build whose passes this memory sees only some of (a Dask
        worker's :class:`BlockMemory`): the pass's number among the build's passes with lists, and whether it
        lists (:func:`lists_in_pass`, which reads the pass before).  By default: the next number, and decided here.
        """
        current = len(self._drifts) if number is None else number
        if self.size == 0 or current >= MAX_PASSES:
            return False
        if self._valid is None:
            self._valid = valid_strengths(model.front_code)
        valid = self._valid
        for old in [old for old in self._snapshots if old <= current - KEPT_MODELS]:
            del self._snapshots[old]  # a list that old is searched again (bounded memory)
        snapshot = model_snapshot(model)
        drifts: np.ndarray = np.array([drift(self._snapshots[old], snapshot, valid) if old in self._snapshots
                           else np.inf for old in range(current)] + [np.inf])
        # a pass's entries of shape_rises (and bounds), delta_terms and swing_bounds
        slots = np.full((current + 1, 3), -1, dtype=np.int32)
        shape_rises, delta_terms, bounds = np.zeros((1, 3, 1)), np.zeros((1, 1, 1)), np.zeros((1, 1, 3))  # read
        # only under a correction
        swing_bounds = bounds
        from cpoker._kernels.bonus import joint_slope

        scoop, majority, joint = snapshot[3:6]
        slope_units = (scoop + majority) * joint_slope(joint)
        if corrected(snapshot):
            # the hands' own drifts: from the last KEPT_CORRECTED passes' corrected models, and from the models
            # without the correction still kept, whose change of terms is the whole correction (one entry for all)
            recent = max(0, current - KEPT_CORRECTED)
            kept = [old for old in range(current)
                    if drifts[old] < np.inf and (old >= recent or not corrected(self._snapshots[old]))]
            drifts[np.setdiff1d(np.arange(current), kept)] = np.inf
            # the entries of delta_terms in order, each with a pass whose change it is: a corrected pass's own, and
            # one (-1) for all the others
            changes: dict = {}
            term_slots = [changes.setdefault(old if corrected(self._snapshots[old]) else -1, (len(changes), old))[0]
                          for old in kept]
            if kept:
                shape_rises = np.stack([_shape_rises(self._snapshots[old], snapshot, valid) for old in kept])
                delta_terms = np.stack([_terms_change(self._snapshots[old], snapshot) for _, old in changes.values()])
                bounds = np.stack([drift_bounds(rises, delta_terms[slot], slope_units)
                                   for rises, slot in zip(shape_rises, term_slots)])
                slots[kept, 0] = np.arange(len(kept))  # (also the entry of bounds)
                slots[kept, 1] = term_slots
        # how far each kept pass's model has swung since: a split certified then is kept if it led by more
        # (the way from each to this one is known: its drift, and under the correction the certificates' bounds)
        swings = np.full(current + 1, np.inf)
        own = corrected(snapshot)
        swung = {old: swing(self._snapshots[old], snapshot, valid,
                            (drifts[old], bounds[slots[old, 0]] if own else None))
                 for old in range(current) if drifts[old] < np.inf}
        for old, (common, _) in swung.items():
            swings[old] = common
        with_bounds = [old for old, (_, table) in swung.items() if table is not None]
        if with_bounds:
            swing_bounds = np.stack([swung[old][1] for old in with_bounds])  # type: ignore[misc]  # (not None)
            slots[with_bounds, 2] = np.arange(len(with_bounds))
        arguments = (drifts, slots, shape_rises, delta_terms, bounds, slope_units, swings, swing_bounds)
        if self.device == "cuda":
            from cpoker.game.devices import on_device

            arguments = on_device(arguments)
        self.drift_arguments = arguments
        self._drifts = drifts
        self._snapshots[current] = snapshot
        self._model = model
        self.by_pass.append([0, 0])
        self.kept_by_pass.append(0)
        self.listing = (lists_in_pass(self._snapshots.get(current - 1), snapshot, final, valid) if listing is None
                        else listing)
        return True

    def covers(self, start: int, count: int) -> bool:
        return start + count <= self.size

    @property
    def _current(self) -> int:
        """The pass's number (its drifts go to it)."""
        return len(self._drifts) - 1

    def _lists_of(self, start: int, count: int) -> tuple:
        return tuple(array[start:start + count] for array in self.lists)

    def arrange(self, seed: int, start: int, count: int, on_device: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``(chosen, histograms)`` of hands ``start .. start + count`` (from a block's first) of the sample of
        ``seed`` under the pass's model: each hand's split, and the strengths of its rows counted for each block of
        ``chunk`` hands (``(blocks, 3, S)``: :func:`cpoker.jobs.nearbest.block_histograms`, on the GPU when the lists
        are there, so that the strengths stay there).  Certified from their lists where possible, the others
        dealt and searched, listing again once the models move little (:data:`LISTING_DRIFT`).  ``on_device``:
        on a GPU, ``chosen`` is left there (a device array, for :func:`cpoker.game.devices.replace_choices_cuda`)."""
        from cpoker.jobs.nearbest import block_histograms
        from cpoker.game.dealing import stream_state
        from cpoker.game.lookup_tables import strength_keys

        delta = self.delta if self.listing else -1.0  # below 0: the searches list nothing
        lists = self._lists_of(start, count)
        if self.device == "cuda":
            from cpoker.game.devices import self_play_remembered_cuda

            chosen, histograms, searched, kept = self_play_remembered_cuda(
                seed, start, count, self._model, lists, self.drift_arguments, self._current, delta, chunk=self.chunk,
                to_host=not on_device)
        else:
            chosen, strengths, searched, kept = self._arranged_here(lists, stream_state(seed, start), NO_HANDS, delta)
            histograms = block_histograms(strengths, len(strength_keys()), np.arange(count) // self.chunk,
                                          -(-count // self.chunk))
        self._count(count, searched, kept)
        return chosen, histograms

    def arrange_hands(self, hands: np.ndarray, start: int) -> tuple[np.ndarray, np.ndarray]:
        """``(chosen, strengths)`` of ``hands`` (``(n, 13)`` card ids), those at ``start .. start + n`` of the lists
        (:meth:`covers`), under the pass's model, on the CPU: the hands given instead of dealt from a seed (the
        deals a build learns the card-removal correction from, the same in each of its learnings), otherwise as
        :meth:`arrange`; each hand's split and its rows' strengths, as
        :func:`cpoker.strategies.policy.arrange_by_tables`
        gives them."""
        delta = self.delta if self.listing else -1.0
        chosen, strengths, searched, kept = self._arranged_here(self._lists_of(start, len(hands)), NO_STREAM,
                                                                np.ascontiguousarray(hands, dtype=np.uint8), delta)
        self._count(len(hands), searched, kept)
        return chosen, strengths

    def _arranged_here(self, lists: tuple, stream: tuple, given: np.ndarray, delta: float) -> tuple:
        """On the CPU: ``(chosen, strengths, hands searched, splits kept)`` of the hands of ``lists``, kept or
        certified from them or dealt from ``stream`` (or taken from ``given``) and searched, listing with
        ``delta``."""
        from cpoker._kernels.nearbest import certify_block, remembering_block
        from cpoker._kernels.policy import BLOCK
        from cpoker.game.dealing import DECK_IDS
        from cpoker.system.threads import in_parts

        model, current = self._model, self._current
        count = len(lists[0])
        chosen = np.empty(count, dtype=np.int32)
        strengths = np.empty((count, 3), dtype=np.int16)
        kept_by_part: list[int] = []  # (list.append is atomic)
        certifying = (*lists, np.int32(current), *self.drift_arguments, *self._snapshots[current])

        def certify_part(start: int, stop: int) -> None:
            kept_by_part.append(certify_block(start, stop, *certifying, chosen, strengths))

        with shielded():
            in_parts(certify_part, count, CERTIFIED_PART)
            todo = np.flatnonzero(chosen < 0)
            searching = (DECK_IDS, given, delta, np.int32(current), *model.search_arguments, chosen, strengths,
                         *lists[:LISTED])

            def search_part(start: int, stop: int) -> None:
                remembering_block(*stream, todo, start, stop, *searching)

            if len(todo):
                in_parts(search_part, len(todo), BLOCK)
        kept = sum(kept_by_part)
        return chosen, strengths, len(todo), kept

    def _count(self, hands: int, searched: int, kept: int) -> None:
        self.searched += searched
        self.certified += hands - searched
        self.kept += kept
        self.by_pass[-1][0] += searched
        self.by_pass[-1][1] += hands - searched
        self.kept_by_pass[-1] += kept


class BlockMemory(NearBestMemory):
    """A Dask worker process's near-best lists for one build: those of the blocks it ran, block by block.

    The client sends a block to the worker that ran it the pass before (:mod:`cpoker.run.backends.dask`); a block
    that lands elsewhere (a worker died, joined, or was busy) finds no list there and is searched, listing
    again: the same answers either way.  The lists take at most ``memory`` bytes (the process's share of
    :data:`MEMORY_BYTES` a machine: :func:`cpoker.run.runner.kept_memory_budget`); the blocks past that are
    searched in every pass.  The budget is read again at each pass's start (:attr:`budget`, set by
    :func:`worker_memory`): workers that joined the machine since shrink it, and the blocks past it are
    dropped.  Only the models of the passes this process ran are kept: every list here was made by one of them.
    """

    def __init__(self, chunk: int, memory: "int | None" = None, capacity: int = WORKER_CAPACITY,
                 delta: float = DELTA) -> None:
        super().__init__(0, chunk, "cpu", 0, capacity, delta)
        self.budget = MEMORY_BYTES if memory is None else memory  # bytes; followed from the next pass on
        self.blocks: dict = {}  # block index -> its lists (chunk hands)
        self._fit_budget()
        self.passes = -1  # the number of the pass started last
        self.ready = False  # whether it can use its lists (start_pass's answer)
        self.lock = threading.Lock()

    def _fit_budget(self) -> None:
        """The lists' size from :attr:`budget`, dropping the last blocks' lists past it (searched again)."""
        self.size = hands_listed(self.budget, self.capacity, self.chunk)
        for index in sorted(self.blocks)[self.size // self.chunk:]:
            del self.blocks[index]

    def start_pass_once(self, model, number: int, listing: bool) -> bool:
        """:meth:`start_pass` for pass ``number``, on the first of its blocks here (a worker's threads share it),
        in the budget as it is now."""
        with self.lock:
            if number != self.passes:
                self._fit_budget()
                self.ready = self.start_pass(model, number=number, listing=listing)
                self.passes = number
            return self.ready

    def covers(self, start: int, count: int) -> bool:
        with self.lock:
            return start // self.chunk in self.blocks or (len(self.blocks) + 1) * self.chunk <= self.size

    def _lists_of(self, start: int, count: int) -> tuple:
        with self.lock:
            lists = self.blocks.get(start // self.chunk)
            if lists is None:
                lists = self.blocks[start // self.chunk] = empty_lists(self.chunk, self.capacity)
        return tuple(array[:count] for array in lists)


def empty_lists(hands: int, capacity: int) -> tuple:
    """Near-best lists of ``hands`` hands, none made yet: rows, splits, counts, ceilings, since (the pass whose
    model listed them, -1: none) and cards (the :data:`LISTED` arrays a search writes), then each hand's last
    certificate: its pass (-1: none since the hand's last search), its leader's margin and its entry (what
    :func:`~cpoker._kernels.nearbest.kept_split` reads, :func:`~cpoker._kernels.nearbest.recertified` writes)."""
    return (np.zeros((hands, capacity, 3), dtype=np.int16), np.zeros((hands, capacity), dtype=np.int32),
            np.zeros(hands, dtype=np.uint8), np.zeros(hands), np.full(hands, -1, dtype=np.int32),
            np.zeros(hands, dtype=np.int64), np.full(hands, -1, dtype=np.int32), np.zeros(hands),
            np.zeros(hands, dtype=np.uint8))


_worker_memories: dict = {}  # build -> this process's BlockMemory for it (the last build's only)
_worker_memories_lock = threading.Lock()


def worker_memory(build: str, chunk: int) -> BlockMemory:
    """This process's :class:`BlockMemory` for ``build`` (a unique id): made on the build's first block here,
    replacing any other build's, in what :func:`cpoker.run.runner.kept_memory_budget` allows of :data:`MEMORY_BYTES`
    now (read at every block, followed from the next pass on: Dask workers join a machine while a build runs)."""
    from cpoker.run.runner import kept_memory_budget

    budget = kept_memory_budget(MEMORY_BYTES)
    with _worker_memories_lock:
        memory = _worker_memories.get(build)
        if memory is None:
            _worker_memories.clear()
            memory = _worker_memories[build] = BlockMemory(chunk, budget)
        memory.budget = budget
        return memory


def forget_worker_memory(build: str) -> None:
    """Free this process's lists of ``build``: run on every worker when the build ends."""
    with _worker_memories_lock:
        _worker_memories.pop(build, None)
