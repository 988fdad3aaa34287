"""The table policy: per-row expected results indexed by row strength, learned by self-play.

A row of dense strength ``s`` (see :func:`cpoker.tables.strength_keys`) is
worth ``P(opponent's row < s) - P(opponent's row > s)`` against an opponent
whose row strengths follow a known distribution.  Under pagat scoring the
table policy arranges a hand by the non-fouling split with the largest sum of
its three row values; under other rules, by the largest expected settlement
under those rules, scoring bonus and royalties included (:class:`RowModel`).
Each rules preset ships tables learned under its own rules.

The distributions come from self-play by fictitious play: deal a fixed sample
of hands, arrange them by the best response to the current average opponent,
record the row strengths, and fold them into the average with weight
``1 / t``.  Plain best-response iteration can oscillate; the average converges.

Then the card-removal correction (:mod:`cpoker.removal`) is learned from
the policy's play, and fictitious play starts again with every hand
arranged *with* its correction (a fresh average of those passes, the terms
learned again after each): the finished policy values its rows against
its own corrected play, not against the play of a policy that ignores card
removal.  Measured, these rounds are most of what the correction wins
against a best response (docs/strategy-quality.md).  Under a scoring
bonus the same learning also gives the joint distribution of the policy's
three rows (:mod:`cpoker.joint`), which prices a scoop or a majority of rows
better than a product of the rows' chances.
"""

from __future__ import annotations

import functools
import itertools
import io
import json
import os
import stat
import uuid
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from .dealing import sample_block
from .errors import OptionError
from .interrupts import shielded
from .rules import DEFAULT_RULES, PRESETS, Rules, resolve_rules
from .tables import rest_lookup_arguments, row_lookup_arguments, split_tables, strength_keys

DEFAULT_TABLES_FILE = "policy_tables.npz"


@dataclass(frozen=True)
class RowModel:
    """What the table policy maximises under some rules, row by row.

    The expected settlement of a split against one opponent whose rows are
    drawn from ``distribution``::

        value = sum over rows of (P(win) - P(loss) + expected royalties)
                + scoop * (P(3 wins) - P(3 losses))              # 1-6 scoring
                + majority * (P(2+ wins) - P(2+ losses))         # 2-4 scoring

    ``P(3 wins)`` and ``P(2+ wins)`` are read from ``joint``, the joint
    distribution of the opponent's three rows learned from the policy's play
    (:mod:`cpoker.joint`: an opponent's rows share one hand's cards);
    without it, the rows are taken as independent (``P(3 wins) = w_front *
    w_middle * w_back`` and so on).  Royalties
    are additive per row: a row of strength ``s`` earns its royalty times
    ``P(win)`` and pays the opponent's expected royalty of the stronger rows
    (or, without ``require_win``, earns its own and pays the opponent's
    expectation).  Naturals are declared before arranging, whatever the
    arrangement, so they leave the choice alone and are not modelled.

    The opponent is dealt from the cards a hand leaves, not from a full deck:
    with ``removal`` (:mod:`cpoker.removal`) each hand's row values, wins and
    losses move by its card-removal correction, a linear function of 64
    features of the hand (the counts of its ranks and suits), per row and
    correction shape (:func:`cpoker.removal.strength_buckets`).

    Attributes
    ----------
    values, bounds, wins, losses
        ``(3, S)`` float64 each, by row (front, middle, back) and dense
        strength: the row's value; its running maximum over weaker strengths (a
        non-decreasing bound, which the branch and bound needs even when a
        house royalty table is not monotone; the ``values`` array itself when
        they do not decrease, so the search reads one table, not two);
        ``P(win)``; ``P(loss)``.
    scoop, majority
        Units of the scoring bonus (0 under pagat scoring, where the value is a
        plain sum of row values and the probabilities are never read).
    rest_best, self_bounds
        Derived from the above when the model is made (about 30 ms), for the
        branch and bound of the policy's search: ``rest_best`` (float32, by
        slot of the 8-card table) the best middle value plus front value that
        each 8-card rank multiset makes, rounded up; ``self_bounds`` (``(2, S)``)
        non-decreasing bounds of a back of each strength with its middle and
        front: its value, the middle and front bounds at its strength and the
        bonus of three rows that strong; the same without the front (a hand's
        best front is added).
    removal
        ``(70, Q * 3 * 259)`` float32 card-removal terms (:mod:`cpoker.removal`;
        Q = 1 without a scoring bonus, 3 with one), or ``None``: every hand is
        valued against the full-deck distribution.
    joint
        The opponent's rows' joint distribution (:mod:`cpoker.joint`), a
        ``(2, c + 1, c + 1, c + 1)`` grid, or ``None``: independent rows.  Read
        under a scoring bonus only.
    """

    values: np.ndarray
    bounds: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    scoop: float = 0.0
    majority: float = 0.0
    removal: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    joint: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    rest_best: np.ndarray = field(init=False, repr=False, compare=False)
    self_bounds: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check what the search relies on (it reads the tables unchecked), then derive its tables.

        Raises
        ------
        OptionError
            Unless values, bounds, wins and losses are finite ``(3, S)`` arrays (S
            strengths), bounds never decrease and never fall below the values, the
            probabilities lie in [0, 1], and the bonus units are finite and not negative.
        """
        size = len(strength_keys())
        for name in ("values", "bounds", "wins", "losses"):
            try:
                array = np.ascontiguousarray(getattr(self, name), dtype=np.float64)
            except (TypeError, ValueError):
                array = np.empty(0)
            if array.shape != (3, size) or not np.isfinite(array).all():
                raise OptionError(f"a RowModel's {name} must be a finite (3, {size}) array, got shape {array.shape}")
            object.__setattr__(self, name, array)
        if self.bounds is not self.values and not ((self.bounds >= self.values).all()
                                                   and (np.diff(self.bounds, axis=1) >= 0).all()):
            raise OptionError("a RowModel's bounds must never decrease and never fall below its values "
                              "(the policy's search prunes with them)")
        if self.bounds is self.values and not (np.diff(self.values, axis=1) >= 0).all():
            raise OptionError("a RowModel's values decrease somewhere: give their running maximum as bounds")
        for name in ("wins", "losses"):
            array = getattr(self, name)
            if (array < -1e-9).any() or (array > 1 + 1e-9).any():
                raise OptionError(f"a RowModel's {name} must be probabilities (0 to 1)")
        for name in ("scoop", "majority"):
            unit = getattr(self, name)
            if not isinstance(unit, (int, float, np.integer, np.floating)) or not np.isfinite(unit) or unit < 0:
                raise OptionError(f"a RowModel's {name} must be a finite number of units, 0 or more, got {unit!r}")
        if self.removal is not None:
            from .removal import check_terms

            # float32, as stored: the kernels add them in float64, exactly, and read half the bytes
            object.__setattr__(self, "removal", check_terms(self.removal, 3 if self.scoop or self.majority else 1,
                                                            np.float32))
        if self.joint is not None:
            from .joint import check_joint

            object.__setattr__(self, "joint", check_joint(self.joint))
        object.__setattr__(self, "rest_best", _rest_best(self.values))
        object.__setattr__(self, "self_bounds", self._self_bounds())

    def _self_bounds(self) -> np.ndarray:
        """See the class docstring: summed in the order the kernels sum a split's value, so rounding agrees."""
        from ._kernels.splits import BONUS_SLACK

        back_middle = self.values[2] + self.bounds[1]
        with_front = back_middle + self.bounds[0]
        if self.scoop or self.majority:
            bonus = BONUS_SLACK + self._bonus(self.wins, self.losses)
            back_middle, with_front = back_middle + bonus, with_front + bonus
        bounds = np.maximum.accumulate(np.stack([with_front, back_middle]), axis=1)
        bounds.flags.writeable = False
        return bounds

    def _bonus(self, wins, losses) -> np.ndarray:
        """The kernels' bonus (:func:`~cpoker._kernels.splits.rows_bonus`) of rows with these win and loss
        probabilities (three arrays of one shape each, front, middle, back)."""
        from ._kernels.splits import rows_bonus_many

        arrays = [np.ascontiguousarray(np.broadcast_to(a, np.shape(wins[0])), dtype=np.float64).ravel()
                  for a in (*wins, *losses)]
        out = np.empty(arrays[0].shape[0])
        with shielded():
            rows_bonus_many(*arrays, float(self.scoop), float(self.majority), self.joint_grid, out)
        return out.reshape(np.shape(wins[0]))

    @property
    def joint_grid(self) -> np.ndarray:
        """The grid the kernels read: :attr:`joint`, or the one-cell grid of independent rows."""
        from .joint import INDEPENDENT

        return INDEPENDENT if self.joint is None else self.joint

    @classmethod
    def from_distribution(cls, distribution: np.ndarray, rules: "Rules | None" = None,
                          removal: Optional[np.ndarray] = None, joint: Optional[np.ndarray] = None) -> "RowModel":
        """The model of ``rules`` (default pagat) against rows drawn from ``distribution`` (``(3, S)``),
        with the card-removal terms ``removal`` and the joint row model ``joint`` if given."""
        rules = DEFAULT_RULES if rules is None else rules
        distribution = np.asarray(distribution, dtype=np.float64)
        wins = np.cumsum(distribution, axis=1) - distribution
        losses = 1.0 - wins - distribution
        values = wins - losses
        if rules.royalties is not None:
            units = rules.royalties.as_array()[:, strength_keys() >> 26].astype(np.float64)  # (3, S)
            paid = distribution * units  # what an opponent's row of each strength is owed
            if rules.royalties.require_win:
                stronger = paid[:, ::-1].cumsum(axis=1)[:, ::-1] - paid  # opponents' royalties above s
                values = values + units * wins - stronger
            else:
                values = values + units - paid.sum(axis=1, keepdims=True)
        bounds = np.maximum.accumulate(values, axis=1)
        if np.array_equal(bounds, values):
            bounds = values
        arrays = [np.ascontiguousarray(a) for a in (values, bounds, wins, losses)]
        for array in arrays:
            array.flags.writeable = False
        return cls(*arrays, 3.0 if rules.scoring == "1-6" else 0.0, 1.0 if rules.scoring == "2-4" else 0.0, removal,
                   joint)

    @property
    def row_values(self) -> np.ndarray:
        """``(3, S)``: each row's value by strength, without the bonus."""
        return self.values

    @property
    def arrays(self) -> np.ndarray:
        """``(4, 3, S)``: values, bounds, wins, losses, stacked (a copy, for inspection)."""
        return np.stack([self.values, self.bounds, self.wins, self.losses])

    def split_values(self, front: np.ndarray, middle: np.ndarray, back: np.ndarray,
                     hand: Optional[np.ndarray] = None) -> np.ndarray:
        """Value of splits of ``hand`` given their rows' dense strengths (arrays of one shape), the kernels' formula.

        ``hand`` (13 card ids) is needed when the model corrects for card removal, and ignored otherwise.
        """
        values = [self.values[row, strengths] for row, strengths in enumerate((front, middle, back))]
        wins = [self.wins[row, strengths] for row, strengths in enumerate((front, middle, back))]
        losses = [self.losses[row, strengths] for row, strengths in enumerate((front, middle, back))]
        if self.removal is not None:
            if hand is None:
                raise OptionError("this model corrects each hand's values for card removal: give the hand")
            corrections = self.hand_corrections(hand)  # (Q, 3, shapes)
            shapes = [_strength_shapes()[strengths] for strengths in (front, middle, back)]
            values = [values[row] + corrections[0, row, shapes[row]] for row in range(3)]
            if self.scoop or self.majority:
                wins = [np.clip(wins[row] + corrections[1, row, shapes[row]], 0.0, 1.0) for row in range(3)]
                losses = [np.clip(losses[row] + corrections[2, row, shapes[row]], 0.0, 1.0) for row in range(3)]
        value = values[2] + values[1] + values[0]
        if not (self.scoop or self.majority):
            return value
        return value + self._bonus(wins, losses)

    def hand_corrections(self, hand) -> np.ndarray:
        """``(Q, 3, 259)``: the card-removal correction of ``hand`` (13 card ids) by quantity, row and correction
        shape (:func:`cpoker.removal.strength_buckets`).

        Zero without a correction; Q = 1 (values) without a scoring bonus, else 3 (values, wins, losses).
        """
        from ._kernels.removal import N_SHAPES, hand_correction
        from .arrange import parse_hand
        from .cards import cards_mask

        if self.removal is None:
            return np.zeros((1, 3, N_SHAPES))
        out = np.empty(self.removal.shape[1])
        hand_correction(np.int64(cards_mask(parse_hand(hand).tolist())), self.removal, out)
        return out.reshape(-1, 3, N_SHAPES)

    def kernel_arguments(self) -> tuple:
        """``(values, bounds, wins, losses, scoop, majority, joint grid, rest_best, self_bounds, removal terms,
        shapes)``, the policy kernels' order (without a card-removal correction, one row of zero terms)."""
        return (self.values, self.bounds, self.wins, self.losses, float(self.scoop), float(self.majority),
                self.joint_grid, self.rest_best, self.self_bounds,
                _NO_REMOVAL if self.removal is None else self.removal, _strength_shapes())

    @functools.cached_property
    def search_arguments(self) -> tuple:
        """:meth:`kernel_arguments` and the lookup tables after them: all the policy kernels take after the hands.

        Made once per model, so that arranging one hand (``cpoker.table``) builds no tuple.
        """
        return (*self.kernel_arguments(), *_policy_kernels()[1])

    @functools.cached_property
    def packed_arguments(self):
        """:attr:`search_arguments` and the strength keys as one structure: the argument of the one-hand kernel
        (``cpoker.table``)."""
        from ._kernels.packed import pack

        return pack(self.search_arguments, strength_keys())

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("search_arguments", None)  # the lookup tables (MBs): each process has its own
        state.pop("packed_arguments", None)  # the same, packed
        return state


_NO_REMOVAL = np.zeros((1, 1), dtype=np.float32)  # the terms' type: one compiled kernel for both


def _strength_shapes() -> np.ndarray:
    from .removal import strength_buckets

    return strength_buckets()


def _rest_best(values: np.ndarray) -> np.ndarray:
    """The best middle + front value of each 8-card rank multiset under row ``values``, float32 rounded up."""
    from ._kernels.splits import rest_row_values

    rows, rest = row_lookup_arguments(), rest_lookup_arguments()
    best = np.empty(len(rest[-1]))
    with shielded():
        rest_row_values(np.ascontiguousarray(values, dtype=np.float64), *rows[1:6], *rest[:4], best)
    rounded = best.astype(np.float32)
    below = rounded < best
    rounded[below] = np.nextafter(rounded[below], np.float32(np.inf))
    rounded.flags.writeable = False
    return rounded


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
    rules
        The rules the policy plays under (its :class:`RowModel`): the rules of
        the self-play that learned the distribution, unless re-valued by
        :func:`default_tables` for house rules.
    previous_distribution
        Only in the tables of an unfinished build (``partial``: stopped by a
        signal, or a checkpoint): the average before the last iteration, from
        which :func:`build_tables` (``resume=``) replays that iteration's
        choices and continues exactly where the build stopped.
    removal
        The card-removal correction learned after self-play (:mod:`cpoker.removal`):
        ``(70, Q * 3 * 259)`` float32, or ``None`` (tables of an unfinished build,
        a build with ``removal_deals=0``, or files written before cpoker 0.2).
    removal_rounds
        One dict per round of self-play with the correction (see the module
        docstring): the share of sample hands whose arrangement changed.
        ``distribution`` is then the average of those rounds' play.
    joint
        Under a scoring bonus, the opponent's rows' joint distribution
        (:mod:`cpoker.joint`), learned with the correction: a ``(2, 17, 17,
        17)`` float64 grid, or ``None`` (the rows are then taken as
        independent: pagat scoring, where it is never read, and files
        written before cpoker 0.2).
    build
        Only in the tables of an unfinished build: the options it was asked
        for (``max_iterations``, ``tolerance``, ``removal_deals``,
        ``removal_rounds``), which its resume plays to unless told otherwise.
    """

    distribution: np.ndarray
    hands: int = 0
    seed: int = 0
    history: tuple = field(default=())
    partial: bool = False
    rules: "Rules" = field(default=None)  # type: ignore[assignment]  # None: the default rules
    previous_distribution: Optional[np.ndarray] = field(default=None, repr=False)
    removal: Optional[np.ndarray] = field(default=None, repr=False)
    removal_rounds: tuple = field(default=())
    joint: Optional[np.ndarray] = field(default=None, repr=False)
    build: Optional[dict] = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.rules is None:
            object.__setattr__(self, "rules", DEFAULT_RULES)
        elif not isinstance(self.rules, Rules):
            raise OptionError(f"tables' rules must be a Rules object, got {type(self.rules).__name__}")
        object.__setattr__(self, "distribution", _checked_distribution(self.distribution, "distribution"))
        object.__setattr__(self, "history", _checked_history(self.history))
        if self.previous_distribution is not None:
            object.__setattr__(self, "previous_distribution",
                               _checked_distribution(self.previous_distribution, "previous distribution"))
        if self.removal is not None:
            from .removal import check_terms, quantities

            object.__setattr__(self, "removal", check_terms(self.removal, quantities(self.rules), np.float32))
        object.__setattr__(self, "removal_rounds", _checked_rounds(self.removal_rounds))
        if self.joint is not None:
            from .joint import check_joint

            object.__setattr__(self, "joint", check_joint(self.joint))
        if self.build is not None:
            object.__setattr__(self, "build", _checked_build(self.build))

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("model", None)  # derived (760 KB): recomputed where it is used, not shipped to Dask workers
        state.pop("fingerprint", None)
        return state

    @functools.cached_property
    def model(self) -> RowModel:
        """What the policy maximises: the :class:`RowModel` of its rules against its distribution."""
        return RowModel.from_distribution(self.distribution, self.rules, self.removal, self.joint)

    @functools.cached_property
    def fingerprint(self) -> str:
        """sha256 of what the policy plays by (the distribution, the rules, the card-removal terms and the joint
        row model), in hex.

        A saved run records it (:func:`cpoker.strategies.tables_fingerprint`), so that it is continued only
        with tables that play the same.
        """
        import hashlib

        digest = hashlib.sha256(np.ascontiguousarray(self.distribution, dtype=np.float64).tobytes())
        digest.update(self.rules.to_toml().encode("utf-8"))
        if self.removal is not None:
            digest.update(np.ascontiguousarray(self.removal, dtype=np.float32).tobytes())
        if self.joint is not None:
            digest.update(np.ascontiguousarray(self.joint, dtype=np.float64).tobytes())
        return digest.hexdigest()

    @property
    def row_values(self) -> np.ndarray:
        """``(3, 7917)`` expected result of a row of each strength (front, middle, back), royalties included."""
        return self.model.row_values

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
        if self.removal_rounds:
            fields["removal_rounds"] = list(self.removal_rounds)
        if self.rules.name != "pagat":  # pagat tables are written as before rules existed, byte for byte
            fields["rules"] = self.rules.to_toml()
        if self.build is not None:  # (an unfinished build's: finished tables are written as before, byte for byte)
            fields["build"] = dict(self.build)
        meta = json.dumps(fields, sort_keys=True)
        arrays = {"distribution": np.ascontiguousarray(self.distribution, dtype=np.float64), "meta": np.array(meta)}
        if self.previous_distribution is not None:  # an unfinished build's, to resume it
            arrays["previous_distribution"] = np.ascontiguousarray(self.previous_distribution, dtype=np.float64)
        if self.removal is not None:
            arrays["removal"] = np.ascontiguousarray(self.removal, dtype=np.float32)
        if self.joint is not None:
            arrays["joint"] = np.ascontiguousarray(self.joint, dtype=np.float64)
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
        from .errors import InstallationError, RulesError
        from .files import read_bytes

        content = read_bytes(path, "tables file", OptionError, limit=TABLES_FILE_LIMIT)
        if not content.startswith(b"PK\x03\x04"):  # numpy would take any other file for a pickle it refuses to load
            raise OptionError(f"{path} is not a cpoker tables file: not an .npz archive ('cpoker tables build "
                              "--out FILE.npz' writes one)")
        try:
            with np.load(io.BytesIO(content), allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                distribution = np.asarray(data["distribution"], dtype=np.float64)
                rules = Rules.from_toml_text(meta["rules"], f"{path} (rules)") if "rules" in meta else None
                previous = (np.asarray(data["previous_distribution"], dtype=np.float64)
                            if "previous_distribution" in data.files else None)
                removal = data["removal"] if "removal" in data.files else None
                if removal is not None and removal.dtype != np.float32:
                    raise OptionError(f"its card-removal terms are {removal.dtype}, not float32")
                joint = data["joint"] if "joint" in data.files else None
                tables = cls(distribution, int(meta["hands"]), int(meta["seed"]), tuple(meta["history"]),
                             bool(meta.get("partial", False)), rules, previous, removal,
                             tuple(meta.get("removal_rounds", ())), joint, meta.get("build"))
        except (InstallationError, MemoryError):  # cpoker's own lookup tables, read to check the distribution, and
            raise  # this machine's memory: not this file
        except (OptionError, RulesError) as error:  # our own checks of the distribution and the rules
            raise OptionError(f"{path} is not a cpoker tables file: {error}") from None
        except Exception as error:  # a zip, a .npy or a JSON that is not ours, in any of many ways
            raise OptionError(f"{path} is not a cpoker tables file ({type(error).__name__}: "
                              f"{str(error)[:80]})") from None
        return tables


TABLES_FILE_LIMIT = 64 * 2**20  # a tables file is ~0.1-0.3 MB; anything far larger is the wrong file


def _checked_distribution(distribution, what: str) -> np.ndarray:
    """``distribution`` as float64, once checked to be ``(3, S)`` probabilities, each row summing to 1."""
    size = len(strength_keys())
    try:
        array = np.asarray(distribution, dtype=np.float64)
    except (TypeError, ValueError):
        array = np.empty(0)
    if (array.shape != (3, size) or not np.isfinite(array).all() or (array < 0).any()
            or not np.allclose(array.sum(axis=1), 1.0)):
        raise OptionError(f"tables need a (3, {size}) {what} of probabilities (each row summing to 1), "
                          f"got shape {array.shape}")
    return array


def _checked_history(history) -> tuple:
    """``history`` as a tuple, once checked to be iterations 1, 2, ... with their two figures (a file's may not be)."""
    if not isinstance(history, (tuple, list)):
        raise OptionError(f"tables' history must be a list of iterations, got {type(history).__name__}")
    for position, step in enumerate(history, 1):
        if (not isinstance(step, dict) or set(step) != {"iteration", "changed", "values_moved"}
                or step["iteration"] != position or isinstance(step["iteration"], bool)
                or not all(isinstance(step[name], (int, float)) and not isinstance(step[name], bool)
                           and 0 <= step[name] < float("inf") for name in ("changed", "values_moved"))
                or step["changed"] > 1):
            raise OptionError(f"iteration {position} of the tables' history is not "
                              "{'iteration': n, 'changed': share, 'values_moved': amount}: " + repr(step)[:60])
    return tuple(history)


def _checked_build(build) -> dict:
    """An unfinished build's options, once checked: ``max_iterations``, ``tolerance``, ``removal_deals`` and
    ``removal_rounds``, each in its range."""
    if not isinstance(build, dict) or set(build) != set(BUILD_OPTIONS):
        raise OptionError("tables' build options must be {" + ", ".join(BUILD_OPTIONS) + "}, got "
                          + repr(build)[:80])
    return _checked_build_options(**build)


def _checked_build_options(max_iterations, tolerance, removal_deals, removal_rounds) -> dict:
    """A build's options (:data:`BUILD_OPTIONS`), each checked in its range: :func:`build_tables`'s, and those
    an unfinished build's tables record."""
    from .limits import MAX_ITERATIONS, MAX_REMOVAL_DEALS, MAX_REMOVAL_ROUNDS, check_fraction, check_int

    return {"max_iterations": check_int("max_iterations", max_iterations, 1, MAX_ITERATIONS),
            "tolerance": check_fraction("tolerance", tolerance),
            "removal_deals": check_int("removal_deals", removal_deals, 0, MAX_REMOVAL_DEALS),
            "removal_rounds": check_int("removal_rounds", removal_rounds, 0, MAX_REMOVAL_ROUNDS)}


def _checked_rounds(rounds) -> tuple:
    """``rounds`` as a tuple, once checked to be rounds 1, 2, ... with the share of hands that changed."""
    if not isinstance(rounds, (tuple, list)):
        raise OptionError(f"tables' removal rounds must be a list of rounds, got {type(rounds).__name__}")
    for position, step in enumerate(rounds, 1):
        if (not isinstance(step, dict) or set(step) != {"round", "changed"} or step["round"] != position
                or isinstance(step["round"], bool) or isinstance(step["changed"], bool)
                or not isinstance(step["changed"], (int, float)) or not 0 <= step["changed"] <= 1):
            raise OptionError(f"round {position} of the tables' removal rounds is not "
                              "{'round': n, 'changed': share}: " + repr(step)[:60])
    return tuple(rounds)


def tables_file(preset: str) -> str:
    """The package data file of a preset's shipped tables."""
    return DEFAULT_TABLES_FILE if preset == "pagat" else f"policy_tables_{preset}.npz"


def shipped_tables_path(preset: str) -> Path:
    """Where a preset's shipped tables file is installed."""
    return Path(str(resources.files("cpoker") / "data" / tables_file(preset)))


@functools.cache
def _shipped_tables(preset: str) -> PolicyTables:
    from .errors import InstallationError

    with resources.as_file(resources.files("cpoker") / "data" / tables_file(preset)) as path:
        mend = f"reinstall cpoker, or rebuild the file with 'cpoker tables build --rules {preset} --out {path}'"
        if not path.exists():
            raise InstallationError(f"cpoker's {preset} policy tables are missing at {path}: {mend}")
        try:
            return PolicyTables.load(path)
        except OptionError as error:
            raise InstallationError(f"cpoker's {preset} policy tables cannot be read ({error}): {mend}") from None


def default_tables(rules: "Rules | str | None" = None) -> PolicyTables:
    """The shipped tables for ``rules`` (default: the Pagat base game).

    Every preset has its own tables, learned by self-play under its rules
    (``cpoker tables build --rules NAME`` regenerates them byte for byte).
    Other rules get the shipped distribution of the preset with the same
    scoring method, valued under those rules (:class:`RowModel`): a best
    response to that preset's players, corrected for card removal when the
    royalties are the preset's too.  ``cpoker tables build --rules FILE``
    learns tables of their own.
    """
    if rules is None or rules is DEFAULT_RULES:
        return _shipped_tables("pagat")  # the common case, without comparing rules with every preset
    rules = resolve_rules(rules)
    name = rules.name
    if name in PRESETS:
        return _shipped_tables(name)
    return _valued_tables(rules)


@functools.lru_cache(maxsize=16)
def _valued_tables(rules: Rules) -> PolicyTables:
    """The shipped distribution of the preset with ``rules``' scoring, valued under ``rules`` (built once)."""
    nearest = _shipped_tables(rules.scoring)
    # the card-removal terms are in units of the preset's row values: kept where those are the same
    removal = nearest.removal if rules.royalties == nearest.rules.royalties else None
    # the joint row model is the preset's play's, in the coordinates of its distribution: whatever the royalties
    return PolicyTables(nearest.distribution, nearest.hands, nearest.seed, nearest.history, nearest.partial, rules,
                        None, removal, joint=nearest.joint)


def resolve_tables(tables: "PolicyTables | str | Path | None", rules: "Rules | str | None" = None) -> PolicyTables:
    """``None`` → the shipped tables for ``rules``; a path → the tables in that file; tables → themselves."""
    if tables is None:
        return default_tables(rules)
    if isinstance(tables, PolicyTables):
        return tables
    if isinstance(tables, (str, Path)):
        return _tables_file(tables)
    raise OptionError(f"tables must be PolicyTables or a tables file, got {type(tables).__name__}")


def _tables_file(path: "str | Path") -> PolicyTables:
    """``PolicyTables.load(path)``, kept (with its model) while the regular file is unchanged.

    A ``table@FILE.npz`` strategy is resolved at every block of a match (and
    once more for the run's tables fingerprint): reading and modelling the
    file each time made such a match 2-3x slower.  A file rewritten since is
    read again (its inode, size or modification time differ).
    """
    try:
        status = os.stat(path)
    except (OSError, ValueError):  # missing, unreadable, a NUL in the name: load names the problem
        return PolicyTables.load(path)
    if not stat.S_ISREG(status.st_mode):  # a FIFO, a device: read as it comes, never kept
        return PolicyTables.load(path)
    return _loaded_tables(os.path.realpath(path), status.st_ino, status.st_size, status.st_mtime_ns, str(path))


@functools.lru_cache(maxsize=8)
def _loaded_tables(real_path: str, inode: int, size: int, modified: int, path: str) -> PolicyTables:
    """The tables of one version of a file (see :func:`_tables_file`); ``path`` as the user gave it, for errors."""
    return PolicyTables.load(path)


def _strength_histogram(strengths: np.ndarray, size: int) -> np.ndarray:
    counts = [np.bincount(strengths[:, row].astype(np.int64), minlength=size) for row in range(3)]
    return np.stack(counts)


def block_histograms(strengths: np.ndarray, size: int, blocks: np.ndarray, n_blocks: int) -> np.ndarray:
    """``(n_blocks, 3, size)`` int64: the rows' strengths (``(N, 3)``) of hands in block ``blocks[i]`` each,
    counted by block, row and strength (:func:`_strength_histogram` of each block's hands)."""
    index = (np.asarray(blocks, dtype=np.int64)[:, None] * 3 + np.arange(3)) * size + strengths
    return np.bincount(index.ravel(), minlength=n_blocks * 3 * size).reshape(n_blocks, 3, size)


def arrange_by_tables(hands: np.ndarray, model: "PolicyTables | RowModel",
                      device: str = "cpu") -> tuple[np.ndarray, np.ndarray]:
    """Table-policy split of each hand (sorted ``uint8`` ids, shape ``(N, 13)``) and its row strengths.

    ``model``: tables (their :attr:`PolicyTables.model`) or a :class:`RowModel`.
    ``device="cuda"`` runs the same kernel on an NVIDIA GPU (identical answers).
    """
    if isinstance(model, PolicyTables):
        model = model.model
    if device == "cuda":
        from .devices import arrange_cuda

        with shielded():
            return arrange_cuda(hands, model)
    with shielded():
        return _arranged_in_parts(_policy_kernels()[0], hands, model.search_arguments)


def _arranged_in_parts(kernel, hands: np.ndarray, arguments: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``(split, row strengths)`` of each hand from ``kernel(hands, start, stop, *arguments, chosen, strengths)``
    run on parts of the batch of a block of hands or more, on numba's threads (:func:`cpoker.threads.in_parts`;
    one part: on this thread alone)."""
    from ._kernels.splits import BLOCK
    from .threads import in_parts

    chosen = np.empty(len(hands), dtype=np.int32)
    strengths = np.empty((len(hands), 3), dtype=np.int16)

    def arrange_part(start: int, stop: int) -> None:
        kernel(hands, start, stop, *arguments, chosen, strengths)

    in_parts(arrange_part, len(hands), BLOCK)
    return chosen, strengths


def arrange_one_by_tables(hand: np.ndarray, model: "PolicyTables | RowModel") -> tuple[int, int, int, int, int, int]:
    """:func:`arrange_by_tables` of one hand (13 sorted ``uint8`` ids): ``(split, its front's 3-subset and middle's
    5-subset, front, middle, back strength keys)``.

    The same kernel per hand, returning six integers (``cpoker.table(hand)``); the back's 5-subset is
    ``split // 56``.  The kernel checks the ids: any other ``hand`` gets split -1.
    """
    if isinstance(model, PolicyTables):
        model = model.model
    packed = model.packed_arguments
    with shielded():
        return _one_hand_kernel()(hand, packed)


@functools.cache
def _policy_kernels() -> tuple:
    """The table policy's batch kernel (a range of hands, :func:`cpoker.threads.in_parts` runs it on parts of a
    batch side by side) and the kernels' table arguments."""
    from ._kernels.splits import _table_policy_block

    return (_table_policy_block,
            (*row_lookup_arguments(), *rest_lookup_arguments(), split_tables().middles, split_tables().fronts))


@functools.cache
def _one_hand_kernel():
    """The table policy's kernel of one hand, on packed arguments (imported apart: batch jobs never load it)."""
    from ._kernels.packed import table_policy_one

    return table_policy_one


def arrange_greedy(hands: np.ndarray, device: str = "cpu") -> tuple[np.ndarray, np.ndarray]:
    """Greedy split of each hand (sorted ``uint8`` ids, shape ``(N, 13)``) and its row strengths."""
    from ._kernels.splits import _greedy_block

    with shielded():
        if device == "cuda":
            from .devices import arrange_cuda

            return arrange_cuda(hands, None)
        return _arranged_in_parts(_greedy_block, hands,
                                  (*row_lookup_arguments(), split_tables().middles, split_tables().fronts))



# the parameters of the shipped tables: `cpoker tables build` with no options rebuilds them
BUILD_HANDS, BUILD_SEED, BUILD_MAX_ITERATIONS, BUILD_TOLERANCE = 100_000, 2026, 60, 0.001
# deals of four hands for the card-removal correction (cpoker.removal): 2.4 million samples, about 10 s on two cores
REMOVAL_DEALS = 200_000
# hands a call of a self-play pass whose hands remember their near-best rows (cpoker.nearbest): most are certified
# in ~50 ns, so a block of 2,000 would cost more in calls than in work; a search of all of them takes ~0.3 s
REMEMBERED_GROUP = 1 << 16
# on a GPU, 16 blocks of a million: a late pass searches 1-2% of the hands, and a launch of 10-20 thousand (one
# block's) would not fill an H200 (about 33,000 threads at 248 registers each) while its longest search runs
REMEMBERED_GROUP_CUDA = 1 << 24
# and more once few are searched (remembered_group): a call's searches at about this many at most (2-4 s on an
# H200, so that a signal is acted on within seconds), and its hands up to the most below, so that a late pass of a
# 10**8-hand sample, which searches 0.2-1% of them, is one call, paying once the launches and the longest search
SEARCHES_A_CALL = 1 << 22
MAX_REMEMBERED_GROUP_CUDA = 1 << 27
# the most hands in a block of a build on a Dask cluster (cluster_chunk): a search of them takes ~1 s on a core
CLUSTER_CHUNK = 20_000
# rounds of self-play with the correction, each learning it again (the last from REMOVAL_DEALS deals, the
# others from a quarter of them): about a minute on two cores
REMOVAL_ROUNDS = 8
# hands of a large sample that the first self-play iteration plays, twice as many each iteration after
# (played_hands): a 10**8-hand build's first five play 4-67 million
WARMUP_HANDS = 1 << 22
DEFAULT_BUILD = {"hands": BUILD_HANDS, "seed": BUILD_SEED, "max_iterations": BUILD_MAX_ITERATIONS,
                 "tolerance": BUILD_TOLERANCE, "removal_deals": REMOVAL_DEALS, "removal_rounds": REMOVAL_ROUNDS}
# what an unfinished build's tables record of the options it was asked for (PolicyTables.build)
BUILD_OPTIONS = ("max_iterations", "tolerance", "removal_deals", "removal_rounds")


def build_tables(hands: Optional[int] = None, seed: Optional[int] = None,
                 max_iterations: Optional[int] = None, tolerance: Optional[float] = None,
                 progress: bool = False, chunk: Optional[int] = None, device: str = "cpu", backend: str = "local",
                 scheduler: Optional[str] = None, rules: "Rules | str | None" = None,
                 resume: "PolicyTables | str | Path | None" = None,
                 checkpoint: "Callable[[PolicyTables], None] | None" = None,
                 removal_deals: Optional[int] = None, removal_rounds: Optional[int] = None) -> PolicyTables:
    """Learn the table policy by fictitious self-play, then its card-removal correction (see module docstring).

    Parameters
    ----------
    hands
        Size of the fixed sample of random hands (default 100,000; at most
        10**8; the sample is dealt block by block, never held, and only each
        hand's last choice, 4 bytes, is kept between iterations, with its
        near-best rows, 354 bytes (194 when only lists of 16 rows cover them
        all), for as many hands as 2 GiB hold, a quarter of the free memory on
        a GPU: see :func:`cpoker.nearbest.list_capacity`).  Of a larger
        sample than :data:`WARMUP_HANDS` (4,194,304), the first iteration (and
        the greedy start) plays that many hands, each next one twice as many,
        until all (:func:`played_hands`: 10**8 from the sixth iteration on);
        the rounds with the correction play all of it.
    seed
        Seed of the sample (default 2026); the same ``(hands, seed,
        max_iterations, tolerance, rules)`` give bit-identical tables.
    max_iterations, tolerance
        Stop when the share of hands whose arrangement changed falls below
        ``tolerance`` (0 to 1), or after ``max_iterations`` (counted from the
        start of the build, resumed or not); default 0.001 and 60, and resuming,
        the unfinished build's own.
    progress
        Show a progress bar (tqdm) on standard error.
    chunk
        Hands per block (default 2,000 on the CPU, 1,000,000 on a GPU, on a Dask cluster four blocks a
        worker thread, from 2,000 to 20,000: :func:`cluster_chunk`); never changes the result.
    device
        ``"cpu"`` or ``"cuda"``: where the self-play passes run (identical tables); on a GPU
        each pass deals and arranges its hands there, where they keep their choices,
        and only counts come back (the strengths of their rows, and how many changed).
    backend, scheduler
        ``"local"`` or ``"dask"`` (see :mod:`cpoker.runner`): where the blocks run (identical tables).  On a
        Dask cluster, every pass runs on one connection (one embedded cluster), each worker process keeps the
        near-best lists of the blocks it ran, and each pass sends a block back to the worker that ran it
        (:class:`cpoker.nearbest.BlockMemory`).
    rules
        The rules played (a preset name, a ``.toml`` file or :class:`~cpoker.Rules`;
        default pagat): each hand's choice maximises its expected settlement
        under them against the average opponent, scoring bonus and royalties
        included (:class:`RowModel`, which says what is approximated).
    resume
        The tables of an unfinished build (a checkpoint, or what a signal
        stopped; or their file): the build continues from its last completed
        iteration and ends with the very tables the build would have made
        uninterrupted, byte for byte.  Its sample and rules are the build's;
        ``hands``, ``seed`` and ``rules``, when given, must agree; the other
        options default to those it was asked for (:attr:`PolicyTables.build`).  The
        choices of that last iteration are not stored (4 bytes a hand), so
        the first pass replays it, and the replay must give the stored
        distribution back exactly: a file that does not continue this build
        is refused.
    checkpoint
        Called with the tables so far (``partial=True``, resumable) after
        every iteration that does not end the self-play, and once the
        self-play is done, e.g. to save them: a build killed outright
        (SIGKILL, a lost node, a job's time limit) then loses one pass at
        most, or the rounds with the correction.  Its exceptions propagate.
    removal_deals
        Deals of four hands, arranged by the policy, from which its card-removal
        correction is learned (:func:`cpoker.removal.learn_removal`; default
        200,000, about 10 s on two cores, arranged on ``device``; 0 for none), and
        under a scoring bonus the joint model of an opponent's rows
        (:mod:`cpoker.joint`; none either with 0: independent rows).  After
        each round but the last, a quarter of them.
    removal_rounds
        Rounds of self-play with the correction after the self-play without it
        (default 8, each a pass over the sample and a learning of the terms: about
        a minute for the default build on two cores; 0: the correction is learned
        once, from the play of the policy that ignores it).

    A SIGINT or SIGTERM stops the build at the next block: the tables of the
    last completed iteration are returned with ``partial=True`` (and can be resumed).
    One that arrives while the correction is learned, or in the rounds with it,
    returns the self-play's tables without it, ``partial``: resuming them plays
    the rounds again.

    Raises
    ------
    OptionError
        For sizes, seeds or a tolerance out of range, and for ``resume`` tables
        that are not an unfinished build, disagree with the options given, or do
        not continue this build.
    Interrupted
        When a signal arrives before the first iteration completes (resuming:
        the first iteration after those resumed, so the file to resume is
        still what it was).
    """
    from .limits import MAX_TABLE_HANDS, check_int, check_seed
    from .errors import Interrupted
    from . import interrupts
    from .devices import check_device
    from .nearbest import (MAX_PASSES, MEMORY_BYTES, NearBestMemory, bytes_per_hand, forget_worker_memory,
                           lists_in_pass, model_snapshot, worker_memory)
    from .runner import backend_kept, backend_threads, check_backend, run_blocks
    from .blocks import blocks_of

    if checkpoint is not None and not callable(checkpoint):
        raise OptionError(f"checkpoint must be a function of the tables so far, got {type(checkpoint).__name__}")
    defaults = DEFAULT_BUILD
    if resume is not None:
        resume = _resumable(resume, hands, seed, rules)
        hands, seed, rules = resume.hands, resume.seed, resume.rules
        defaults = {**DEFAULT_BUILD, **(resume.build or {})}  # (tables written before they were recorded: none)
    hands = check_int("hands", BUILD_HANDS if hands is None else hands, 1, MAX_TABLE_HANDS)
    seed = check_seed(BUILD_SEED if seed is None else seed)
    rules = resolve_rules(rules)
    asked = _checked_build_options(  # recorded in unfinished tables, for their resume
        defaults["max_iterations"] if max_iterations is None else max_iterations,
        defaults["tolerance"] if tolerance is None else tolerance,
        defaults["removal_deals"] if removal_deals is None else removal_deals,
        defaults["removal_rounds"] if removal_rounds is None else removal_rounds)
    max_iterations, tolerance, removal_deals, removal_rounds = (asked[name] for name in BUILD_OPTIONS)
    if resume is not None and max_iterations < resume.iterations:
        raise OptionError(f"the build to resume has done {resume.iterations} iterations already: "
                          f"max_iterations must be at least that, got {max_iterations}")
    from .removal import learn_removal, learning_lists

    device = check_device(device)
    check_backend(backend, scheduler)
    chunk_given = chunk is not None
    chunk = check_int("chunk", chunk if chunk_given else (2_000 if device == "cpu" else 1_000_000), 1, 10**7)
    size = len(strength_keys())
    # each hand's near-best rows, so that a pass searches only the hands whose choice may change (same answers)
    memory = NearBestMemory(hands, chunk, device) if backend == "local" else None
    # on a Dask cluster, each worker process keeps the lists of the blocks it ran (nearbest.BlockMemory), and each
    # pass sends a block back to the worker that ran it: the passes are numbered, and decide to list, here
    remote_lists = backend == "dask" and device == "cpu"
    build = uuid.uuid4().hex
    listed_passes, last_snapshot = 0, None
    # each hand's last choice: on a GPU that holds the lists, left there by the passes (only counts come back)
    on_gpu = device == "cuda" and memory is not None and memory.size > 0
    if on_gpu:
        from .devices import hand_choices_cuda, replace_choices_cuda

        previous = hand_choices_cuda(hands)
    else:
        previous = np.full(hands, -1, dtype=np.int32)
    known = 0  # the hands that have one: the sample's first (see played_hands)
    history: list = []

    def self_play_pass(model: "RowModel | None", description: str, played: int = hands,
                       final: bool = False) -> "tuple[np.ndarray, int] | None":
        """One pass over the sample's first ``played`` hands: each arranged by the policy of ``model`` (greedily
        when None); ``(their strengths counted, how many of those played before changed their split)``. The
        ``final`` pass of the build lists no near-best rows."""
        nonlocal known, listed_passes, last_snapshot
        counts = np.zeros((3, size), dtype=np.int64)
        changed = 0
        remembering = memory is not None and model is not None and memory.start_pass(model, final)
        remote = remote_lists and model is not None and listed_passes < MAX_PASSES
        if remote:
            snapshot = model_snapshot(model)
            number, listing = listed_passes, lists_in_pass(last_snapshot, snapshot, final)
            listed_passes, last_snapshot = listed_passes + 1, snapshot

        def work(block):
            return work_many([block])[0] if remembering else arrange_block(block)

        def arrange_block(block):
            index, count = block
            if device == "cuda":  # dealt on the GPU too: the hands never cross to it
                from .devices import self_play_cuda

                chosen, strengths = self_play_cuda(seed, index * chunk, count, model)
            elif remote and (kept := worker_memory(build, chunk)).start_pass_once(model, number, listing) and \
                    kept.covers(index * chunk, count):  # on a Dask worker: its lists of the block, if it ran it
                chosen, histograms = kept.arrange(seed, index * chunk, count)
                return chosen, histograms[0]
            else:
                hands = sample_block(seed, index * chunk, count)
                chosen, strengths = arrange_greedy(hands) if model is None else arrange_by_tables(hands, model)
            return chosen, _strength_histogram(strengths, size)

        def work_many(blocks):
            """Consecutive blocks, those the hands' lists cover in one call (most of their hands need no search:
            one call, not one a block)."""
            listed = [block for block in blocks if memory.covers(block[0] * chunk, block[1])]
            summaries = [arrange_block(block) for block in blocks[len(listed):]]
            if not listed:
                return summaries
            start = listed[0][0] * chunk
            chosen, histograms = memory.arrange(seed, start, sum(count for _, count in listed), on_device=on_gpu)
            bounds = [0, *itertools.accumulate(count for _, count in listed)]  # (ints: they slice device arrays)
            return [(chosen[a:b], histogram)
                    for a, b, histogram in zip(bounds, bounds[1:], histograms)] + summaries

        def combine(block, summary):
            nonlocal changed, counts
            index, count = block
            chosen, block_counts = summary
            start = index * chunk
            both = min(count, max(0, known - start))  # the block's hands played before
            if on_gpu:
                changed += replace_choices_cuda(previous, start, chosen, both)
            else:
                changed += int(np.count_nonzero(previous[start:start + both] != chosen[:both]))
                previous[start:start + count] = chosen
            counts += block_counts

        try:
            stopped = run_blocks(blocks_of(played, chunk), work, combine, total=played, progress=progress,
                                 unit="hand", description=description, backend=backend, scheduler=scheduler,
                                 group=-(-remembered_group(device, memory.by_pass) // chunk) if remembering else 1,
                                 work_many=work_many)
        except Interrupted:
            return None
        if stopped:
            return None
        known = max(known, played)
        return counts, changed

    # every pass on one connection: on the embedded Dask cluster, one cluster for the build, not one a pass; the
    # workers' lists are freed at the end
    with shielded(), backend_kept(backend, scheduler, functools.partial(forget_worker_memory, build)):
        if backend == "dask" and device == "cpu" and not chunk_given:
            chunk = cluster_chunk(hands, backend_threads())
        seen = interrupts.signals_seen()  # a signal in the last block of a pass completes it, then stops the build
        if resume is None:
            played = played_hands(hands, 1)
            first = self_play_pass(None, "greedy start", played)
            if first is None or interrupts.signals_seen() > seen:
                raise Interrupted(interrupts.received() or 2)
            done, average = 0, first[0] / played
        else:  # replay the last completed iteration: its choices are the next pass's "previous"
            done, before = resume.iterations, resume.previous_distribution
            history.extend(resume.history)
            played = played_hands(hands, done)
            replay = self_play_pass(RowModel.from_distribution(before, rules), f"replaying iteration {done}", played)
            if replay is None or interrupts.signals_seen() > seen:
                raise Interrupted(interrupts.received() or 2)
            if not np.array_equal(_averaged(before, replay[0] / played, done), resume.distribution):
                raise OptionError(f"these tables do not continue a build of {hands} hands, seed {seed}, under the "
                                  f"rules {rules.name!r}: replaying iteration {done} gives another distribution "
                                  "(a changed file, or one written by another version of cpoker)")
            average = resume.distribution
        partial = False
        model = RowModel.from_distribution(average, rules)
        # resumed tables whose self-play had ended (a signal stopped the rounds with the correction) start those
        last = done if self_play_ended(history, max_iterations, tolerance) else max_iterations
        for iteration in range(done + 1, last + 1):
            values = model.row_values
            played = played_hands(hands, iteration)
            result = self_play_pass(model, f"self-play {iteration}/{max_iterations}", played)
            if result is None:
                partial = True
                break
            new_average = _averaged(average, result[0] / played, iteration)
            changed = 1.0 if iteration == 1 else result[1] / played_hands(hands, iteration - 1)
            new_model = RowModel.from_distribution(new_average, rules)  # the next iteration's model
            moved = float(np.abs(new_model.row_values - values).max())
            history.append({"iteration": iteration, "changed": changed, "values_moved": moved})
            before, average, model = average, new_average, new_model
            if self_play_ended(history, max_iterations, tolerance):
                break
            if interrupts.signals_seen() > seen:
                partial = True
                break
            if checkpoint is not None:
                checkpoint(PolicyTables(average, hands, seed, tuple(history), True, rules, before, build=asked))
        removal, joint, rounds = None, None, []
        if not partial and removal_deals:
            if checkpoint is not None:  # the self-play is done: a build killed from here on resumes from here
                checkpoint(PolicyTables(average, hands, seed, tuple(history), True, rules, before, build=asked))

            # the learnings' hands (the same deals each time): their near-best rows too, in what the self-play's
            # left of the memory budget (not on a GPU, where a learning is a fraction of a second)
            left = MEMORY_BYTES - (memory.size * bytes_per_hand(memory.capacity) if memory else 0)
            learning = None if device != "cpu" or not removal_rounds else learning_lists(max(1, removal_deals // 4),
                                                                                         max(0, left))

            def learned(played: RowModel, last: bool) -> tuple:
                # a signal drops the terms in flight (10 s by default, hours at --removal-deals 10**8) and stops
                # the build: learn_removal never acts on it itself, which would make terms of part of the deals
                with interrupts.deferred():
                    return learn_removal(played, rules, seed, removal_deals if last else max(1, removal_deals // 4),
                                         progress=progress, device=device, lists=learning, last=last)

            try:
                removal, joint = learned(model, not removal_rounds)
                corrected = average
                for round_ in range(1, removal_rounds + 1):
                    result = self_play_pass(RowModel.from_distribution(corrected, rules, removal, joint),
                                            f"self-play with card removal {round_}/{removal_rounds}",
                                            final=round_ == removal_rounds)
                    if result is None or interrupts.signals_seen() > seen:
                        raise interrupts.Abandoned()
                    corrected = _averaged(corrected, result[0] / hands, round_)  # a fresh average: round 1 is whole
                    rounds.append({"round": round_, "changed": result[1] / hands})
                    removal, joint = learned(RowModel.from_distribution(corrected, rules, removal, joint),
                                             round_ == removal_rounds)
            except interrupts.Abandoned:
                partial, removal, joint, rounds = True, None, None, []  # the self-play's tables, to resume
            if not partial:
                average = corrected
        if partial and len(history) == done:
            raise Interrupted(interrupts.received() or 2)
        # a signal between two passes (while the next model is made) stopped the build: it is acted on, so
        # leaving the shield returns these tables instead of raising Interrupted and losing them
        interrupts.consume()
    return PolicyTables(average, hands, seed, tuple(history), partial, rules, before if partial else None, removal,
                        tuple(rounds), joint, asked if partial else None)


def remembered_group(device: str, by_pass: list) -> int:
    """Hands a call of a self-play pass with near-best lists covers (:meth:`cpoker.nearbest.NearBestMemory.arrange`),
    ``by_pass`` the memory's counts by pass (:attr:`~cpoker.nearbest.NearBestMemory.by_pass`, the pass's own
    last): on the CPU :data:`REMEMBERED_GROUP`; on a GPU as many as make about :data:`SEARCHES_A_CALL` searches at
    the share of its hands the pass before searched, from :data:`REMEMBERED_GROUP_CUDA` to
    :data:`MAX_REMEMBERED_GROUP_CUDA` (the fewest when there is none before).  Every call pays its launches and
    waits for its longest search; the answers never depend on it."""
    if device != "cuda":
        return REMEMBERED_GROUP
    searched, certified = by_pass[-2] if len(by_pass) > 1 else (1, 0)
    share = searched / max(1, searched + certified)
    return int(min(MAX_REMEMBERED_GROUP_CUDA, max(REMEMBERED_GROUP_CUDA, SEARCHES_A_CALL / max(share, 1e-9))))


def cluster_chunk(hands: int, threads: int) -> int:
    """Hands per block of a build on a Dask cluster of ``threads`` worker threads: four blocks a thread, from
    2,000 (the local blocks) to :data:`CLUSTER_CHUNK`.

    Every block pays the cluster a few milliseconds and carries the pass's model (1.2 MB), and a late pass
    certifies most of a block's hands from their lists in microseconds: measured on 2 cores (2 workers), a
    60-iteration build of 50,000 hands took 19.8 s in blocks of 2,000, 11.3 s of 5,000, 8.7 s of 12,500
    (locally 6.5 s).  Four blocks a thread keep every worker busy while the last blocks of a pass finish.
    """
    return min(CLUSTER_CHUNK, max(2_000, -(-hands // (4 * max(1, threads)))))


def played_hands(hands: int, iteration: int) -> int:
    """Hands of a build's sample of ``hands`` that its self-play ``iteration`` plays (1: and the greedy start): the
    first :data:`WARMUP_HANDS`, twice as many each iteration, until all of them.

    The first iterations' models are far from the last (pagat: their rows' values move by 1.4, 0.4, 0.15, 0.07 an
    iteration) and each response is one iteration's share of the average, so part of a large sample answers them
    nearly as the whole does.  Measured under pagat at 1.5 million hands, the first iteration playing 65,536 (about
    the ratio of 10**8 hands to :data:`WARMUP_HANDS`): after 60 iterations the rows' values were within 5e-5 (root
    mean square; 3.4e-4 at most) of the build that played every hand from the start, a tenth of what another seed
    changes (5e-4), and the self-play searched 4.8 passes' worth of hands instead of 8.2.  The later iterations,
    and the rounds with the card-removal correction, play every hand; a sample of :data:`WARMUP_HANDS` or fewer
    (the shipped tables' 100,000) is played whole from the start.
    """
    return min(hands, WARMUP_HANDS << min(iteration - 1, 40))


def self_play_ended(history, max_iterations: int, tolerance: float) -> bool:
    """Whether a build's self-play stops after the iterations of ``history``: the last changed the arrangement of
    fewer hands than ``tolerance`` (the first, always counted as changing all, never stops it), or there were
    ``max_iterations``."""
    return len(history) >= max_iterations or (len(history) > 1 and history[-1]["changed"] < tolerance)


def _averaged(average: np.ndarray, response: np.ndarray, iteration: int) -> np.ndarray:
    """Fictitious play's running average after ``iteration`` best responses (the first is taken whole)."""
    return average + (response - average) / iteration if iteration > 1 else response


def _resumable(resume: "PolicyTables | str | Path", hands: Optional[int], seed: Optional[int],
               rules: "Rules | str | None") -> PolicyTables:
    """The tables of an unfinished build, once checked against the options given with them."""
    if isinstance(resume, (str, Path)):
        resume = PolicyTables.load(resume)
    elif not isinstance(resume, PolicyTables):
        raise OptionError(f"resume takes the tables of an unfinished build or their file, got {type(resume).__name__}")
    if not resume.partial:
        done = f"{resume.iterations} iteration" + "s" * (resume.iterations != 1)
        raise OptionError(f"there is nothing to resume: these tables are a finished build ({done}; only an "
                          "interrupted build or a checkpoint continues: build again with more iterations)")
    if resume.previous_distribution is None:
        raise OptionError("these partial tables cannot be resumed: they were written before builds could be")
    for name, given, own in (("hands", hands, resume.hands), ("seed", seed, resume.seed)):
        if given is not None and given != own:
            raise OptionError(f"the build to resume has {name}={own}; {name}={given} would be another build")
    if rules is not None and resolve_rules(rules) != resume.rules:
        raise OptionError(f"the build to resume plays the rules {resume.rules.name!r}, "
                          f"not {resolve_rules(rules).name!r}")
    return resume
