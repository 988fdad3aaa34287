"""The row model: what a row of each strength is worth against the opponents' rows, under the rules in force."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from cpoker.system.errors import OptionError
from cpoker.system.interrupts import shielded
from cpoker.game.rules import DEFAULT_RULES, Rules
from cpoker.game.lookup_tables import (rest_lookup_arguments, row_categories, row_lookup_arguments, split_tables,
                                      strength_keys, strength_scale)


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
    (:mod:`cpoker.strategies.policy.joint`: an opponent's rows share one hand's cards);
    without it, the rows are taken as independent (``P(3 wins) = w_front *
    w_middle * w_back`` and so on).  Royalties
    are additive per row: a row of strength ``s`` earns its royalty times
    ``P(win)`` and pays the opponent's expected royalty of the stronger rows
    (or, without ``require_win``, earns its own and pays the opponent's
    expectation).  Naturals are declared before arranging, whatever the
    arrangement, so they leave the choice alone and are not modelled.

    The opponent is dealt from the cards a hand leaves, not from a full deck:
    with ``removal`` (:mod:`cpoker.strategies.policy.removal`) each hand's row values, wins and
    losses move by its card-removal correction, a linear function of 64
    features of the hand (the counts of its ranks and suits), per row and
    correction shape (:func:`cpoker.strategies.policy.removal.strength_buckets`).

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
        Derived from the above when the model is made (once a model), for the
        branch and bound of the policy's search: ``rest_best`` (float32, by
        slot of the 8-card table) the best middle value plus front value that
        each 8-card rank multiset makes, rounded up; ``self_bounds`` (``(2, S)``)
        non-decreasing bounds of a back of each strength with its middle and
        front: its value, the middle and front bounds at its strength and the
        bonus of three rows that strong; the same without the front (a hand's
        best front is added).
    removal
        ``(70, Q * 3 * 259)`` float32 card-removal terms (:mod:`cpoker.strategies.policy.removal`;
        Q = 1 without a scoring bonus, 3 with one), or ``None``: every hand is
        valued against the full-deck distribution.
    joint
        The opponent's rows' joint distribution (:mod:`cpoker.strategies.policy.joint`), a
        ``(2, c + 1, c + 1, c + 1)`` grid, or ``None``: independent rows.  Read
        under a scoring bonus only.
    front_code
        The rules' front order (``Rules.front_code``: 0 high, else a low front): the strengths are those of its
        :class:`~cpoker.game.lookup_tables.StrengthScale`, on which no front can foul a middle.
    """

    values: np.ndarray
    bounds: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    scoop: float = 0.0
    majority: float = 0.0
    removal: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    joint: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    front_code: int = 0
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
        if self.front_code not in (0, 1, 2) or isinstance(self.front_code, bool):
            raise OptionError(f"a RowModel's front_code must be a front order's code (0, 1 or 2), got "
                              f"{self.front_code!r}")
        object.__setattr__(self, "front_code", int(self.front_code))
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
            from cpoker.strategies.policy.removal import check_terms

            # float32, as stored: the kernels add them in float64, exactly, and read half the bytes
            object.__setattr__(self, "removal", check_terms(self.removal, 3 if self.scoop or self.majority else 1,
                                                            np.float32))
        if self.joint is not None:
            from cpoker.strategies.policy.joint import check_joint

            object.__setattr__(self, "joint", check_joint(self.joint))
        object.__setattr__(self, "rest_best", rest_best_values(self.values, self.front_code))
        object.__setattr__(self, "self_bounds", self._self_bounds())

    def _self_bounds(self) -> np.ndarray:
        """See the class docstring: summed in the order the kernels sum a split's value, so rounding agrees."""
        from cpoker._kernels.bonus import BONUS_SLACK

        back_middle = self.values[2] + self.bounds[1]
        with_front = back_middle + self.bounds[0]
        if self.scoop or self.majority:
            bonus = BONUS_SLACK + self._bonus(self.wins, self.losses)
            back_middle, with_front = back_middle + bonus, with_front + bonus
        bounds = np.maximum.accumulate(np.stack([with_front, back_middle]), axis=1)
        bounds.flags.writeable = False
        return bounds

    def _bonus(self, wins, losses) -> np.ndarray:
        """The kernels' bonus (:func:`~cpoker._kernels.bonus.rows_bonus`) of rows with these win and loss
        probabilities (three arrays of one shape each, front, middle, back)."""
        from cpoker._kernels.bonus import rows_bonus_many

        arrays = [np.ascontiguousarray(np.broadcast_to(a, np.shape(wins[0])), dtype=np.float64).ravel()
                  for a in (*wins, *losses)]
        out = np.empty(arrays[0].shape[0])
        with shielded():
            rows_bonus_many(*arrays, float(self.scoop), float(self.majority), self.joint_grid, out)
        return out.reshape(np.shape(wins[0]))

    @property
    def joint_grid(self) -> np.ndarray:
        """The grid the kernels read: :attr:`joint`, or the one-cell grid of independent rows."""
        from cpoker.strategies.policy.joint import INDEPENDENT

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
            units = rules.royalties.row_array()[:, row_categories(rules.front_code)].astype(np.float64)  # (3, S)
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
        values, bounds, wins, losses = arrays
        return cls(values, bounds, wins, losses, 3.0 if rules.scoring == "1-6" else 0.0,
                   1.0 if rules.scoring == "2-4" else 0.0, removal, joint, rules.front_code)

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
            shapes = [strength_shapes(self.front_code)[strengths] for strengths in (front, middle, back)]
            values = [values[row] + corrections[0, row, shapes[row]] for row in range(3)]
            if self.scoop or self.majority:
                wins = [np.clip(wins[row] + corrections[1, row, shapes[row]], 0.0, 1.0) for row in range(3)]
                losses = [np.clip(losses[row] + corrections[2, row, shapes[row]], 0.0, 1.0) for row in range(3)]
        value = values[2] + values[1] + values[0]
        if not (self.scoop or self.majority):
            return value
        return value + self._bonus(wins, losses)

    def chosen_values(self, hands: np.ndarray, strengths: np.ndarray) -> np.ndarray:
        """:meth:`split_values` of one split of each hand: ``hands`` ``(N, 13)`` card ids, ``strengths`` ``(N, 3)``
        the dense strengths of its front, middle and back (the policy's choice, say).  The same numbers, for a
        batch: the card-removal correction is read at the columns the splits need only."""
        from cpoker._kernels.removal import N_SHAPES, hand_correction_columns

        strengths = np.asarray(strengths, dtype=np.int64)
        rows = [strengths[:, row] for row in range(3)]
        values = [self.values[row, rows[row]] for row in range(3)]
        wins = [self.wins[row, rows[row]] for row in range(3)]
        losses = [self.losses[row, rows[row]] for row in range(3)]
        if self.removal is not None and len(strengths):
            hands = np.asarray(hands, dtype=np.int64)
            masks = np.bitwise_or.reduce(np.left_shift(np.int64(1), hands), axis=1)
            by_strength = strength_shapes(self.front_code)
            shapes = np.stack([by_strength[rows[row]] for row in range(3)], axis=1).astype(np.int64)
            quantities = 3 if self.scoop or self.majority else 1
            columns = np.concatenate([(q * 3 + np.arange(3)) * N_SHAPES + shapes for q in range(quantities)], axis=1)
            corrections = np.empty(columns.shape)
            with shielded():
                hand_correction_columns(masks, self.removal, np.ascontiguousarray(columns), corrections)
            values = [values[row] + corrections[:, row] for row in range(3)]
            if quantities == 3:
                wins = [np.clip(wins[row] + corrections[:, 3 + row], 0.0, 1.0) for row in range(3)]
                losses = [np.clip(losses[row] + corrections[:, 6 + row], 0.0, 1.0) for row in range(3)]
        value = values[2] + values[1] + values[0]
        if not (self.scoop or self.majority):
            return value
        return value + self._bonus(wins, losses)

    def hand_corrections(self, hand: np.ndarray) -> np.ndarray:
        """``(Q, 3, 259)``: the card-removal correction of ``hand`` (13 card ids) by quantity, row and correction
        shape (:func:`cpoker.strategies.policy.removal.strength_buckets`).

        Zero without a correction; Q = 1 (values) without a scoring bonus, else 3 (values, wins, losses).
        """
        from cpoker._kernels.removal import N_SHAPES, hand_correction
        from cpoker.game.arrangements import parse_hand
        from cpoker.game.cards import cards_mask

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
                NO_REMOVAL if self.removal is None else self.removal, strength_shapes(self.front_code))

    @functools.cached_property
    def search_arguments(self) -> tuple:
        """:meth:`kernel_arguments` and the lookup tables after them: all the policy kernels take after the hands.

        Made once per model, so that arranging one hand (``cpoker.table``) builds no tuple.
        """
        return (*self.kernel_arguments(), *row_lookup_arguments(self.front_code),
                *rest_lookup_arguments(self.front_code), split_tables().middles, split_tables().fronts)

    @functools.cached_property
    def packed_arguments(self):
        """:attr:`search_arguments` and the strength keys as one structure: the argument of the one-hand kernel
        (``cpoker.table``)."""
        from cpoker._kernels.packed import pack

        return pack(self.search_arguments, strength_scale(self.front_code).shape_keys)  # (the rows' keys, high order)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("search_arguments", None)  # the lookup tables (MBs): each process has its own
        state.pop("packed_arguments", None)  # the same, packed
        return state


NO_REMOVAL = np.zeros((1, 1), dtype=np.float32)  # the terms' type: one compiled kernel for both


def strength_shapes(front_code: int = 0) -> np.ndarray:
    from cpoker.strategies.policy.removal import strength_buckets

    return strength_buckets(front_code)


def rest_best_values(values: np.ndarray, front_code: int = 0) -> np.ndarray:
    """The best middle + front value of each 8-card rank multiset under row ``values`` (on the strength scale of
    the front order ``front_code``), float32 rounded up."""
    from cpoker._kernels.subsets import rest_row_values

    rows, rest = row_lookup_arguments(front_code), rest_lookup_arguments(front_code)
    best = np.empty(len(rest[-1]))
    with shielded():
        rest_row_values(np.ascontiguousarray(values, dtype=np.float64), *rows[1:6], *rest[:4], best)
    rounded = best.astype(np.float32)
    below = rounded < best
    rounded[below] = np.nextafter(rounded[below], np.float32(np.inf))
    rounded.flags.writeable = False
    return rounded
