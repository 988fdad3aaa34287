"""The table policy's 25 table arguments as one structure, for kernels called on one hand at a time.

A kernel call costs time per array argument before any work (numba types and
unboxes each one): for the policy's 25, a sizeable part of the one-hand search
that ``cpoker.table(hand)`` runs per call.  Packed once per model into a numba structure (a ``StructRef``), they cross
into the kernel as one pointer.

The fields are those of :func:`cpoker._kernels.policy.table_policy_unpacked`, in
its order, then each strength's key in the high order (``StrengthScale.shape_keys`` of
:func:`cpoker.game.lookup_tables.strength_scale`, so that the kernel answers with the rows'
keys, those an :class:`~cpoker.Arrangement` holds, whatever the model's front order), with fixed types (read-only
C-contiguous arrays, 64-bit scalars): one compiled kernel serves every model;
:func:`pack` converts to them.
"""

from __future__ import annotations

import numpy as np
from cpoker.system.jit import jit  # first: it checks the environment before numba loads
from numba.core import types
from numba.experimental import structref

from cpoker._kernels.policy import table_policy_unpacked


def _array(dtype, ndim: int) -> types.Array:
    return types.Array(dtype, ndim, "C", readonly=True)


FIELDS = (
    ("row_values", _array(types.float64, 2)), ("row_bounds", _array(types.float64, 2)),
    ("row_wins", _array(types.float64, 2)), ("row_losses", _array(types.float64, 2)),
    ("scoop", types.float64), ("majority", types.float64), ("joint", _array(types.float64, 4)),
    ("rest_best", _array(types.float32, 1)), ("self_bounds", _array(types.float64, 2)),
    ("removal_terms", _array(types.float32, 2)), ("buckets", _array(types.int32, 1)),
    ("card_codes", _array(types.int64, 1)), ("multiplier", types.int64), ("bucket_shift", types.int64),
    ("slot_mask", types.int64), ("displacements", _array(types.int32, 1)), ("strengths", _array(types.int16, 1)),
    ("flush_strengths", _array(types.int16, 1)), ("rest_multiplier", types.int64), ("rest_shift", types.int64),
    ("rest_slot_mask", types.int64), ("rest_displacements", _array(types.int32, 1)),
    ("rest_values", _array(types.int32, 1)), ("middles", _array(types.uint16, 1)), ("fronts", _array(types.uint16, 1)),
    ("strength_keys", _array(types.int32, 1)),
)


@structref.register
class PolicyArgumentsType(types.StructRef):
    """The numba type of :class:`PolicyArguments`."""


class PolicyArguments(structref.StructRefProxy):
    """The policy's table arguments packed for :func:`table_policy_one` (made by :func:`pack`)."""


structref.define_boxing(PolicyArgumentsType, PolicyArguments)
POLICY_ARGUMENTS = PolicyArgumentsType(list(FIELDS))


@jit
def _new_policy_arguments(row_values, row_bounds, row_wins, row_losses, scoop, majority, joint, rest_best,
                          self_bounds, removal_terms, buckets, card_codes, multiplier, bucket_shift, slot_mask,
                          displacements, strengths, flush_strengths, rest_multiplier, rest_shift, rest_slot_mask,
                          rest_displacements, rest_values, middles, fronts, strength_keys):
    packed = structref.new(POLICY_ARGUMENTS)
    packed.row_values = row_values
    packed.row_bounds = row_bounds
    packed.row_wins = row_wins
    packed.row_losses = row_losses
    packed.scoop = scoop
    packed.majority = majority
    packed.joint = joint
    packed.rest_best = rest_best
    packed.self_bounds = self_bounds
    packed.removal_terms = removal_terms
    packed.buckets = buckets
    packed.card_codes = card_codes
    packed.multiplier = multiplier
    packed.bucket_shift = bucket_shift
    packed.slot_mask = slot_mask
    packed.displacements = displacements
    packed.strengths = strengths
    packed.flush_strengths = flush_strengths
    packed.rest_multiplier = rest_multiplier
    packed.rest_shift = rest_shift
    packed.rest_slot_mask = rest_slot_mask
    packed.rest_displacements = rest_displacements
    packed.rest_values = rest_values
    packed.middles = middles
    packed.fronts = fronts
    packed.strength_keys = strength_keys
    return packed


def pack(arguments: tuple, strength_keys: np.ndarray) -> PolicyArguments:
    """The policy kernels' table arguments (``RowModel.search_arguments``) and the strength keys as one
    :class:`PolicyArguments`.

    Arrays are taken as read-only C-contiguous views (no copy when they already are contiguous),
    scalars as 64-bit numbers: the fields' fixed types.
    """
    converted = []
    for (_, kind), value in zip(FIELDS, (*arguments, strength_keys), strict=True):
        if isinstance(kind, types.Array):
            view = np.ascontiguousarray(value, dtype=kind.dtype.name).view()
            view.flags.writeable = False
            converted.append(view)
        elif kind == types.float64:
            converted.append(np.float64(value))
        else:
            converted.append(np.int64(value))
    return _new_policy_arguments(*converted)


@jit
def table_policy_one(hand, packed):
    """:func:`~cpoker._kernels.policy.table_policy_unpacked` of one hand with the packed arguments, the rows' strength
    keys in place of their dense strengths: ``(split, its front's 3-subset, its middle's 5-subset, front, middle,
    back keys)``.  A hand whose ids are not 13 distinct ids below 52 in increasing order gets split -1.
    """
    for j in range(13):
        if hand[j] >= 52 or (j > 0 and hand[j] <= hand[j - 1]):
            return -1, 0, 0, 0, 0, 0
    split, front_subset, middle_subset, front, middle, back = table_policy_unpacked(
        hand, packed.row_values, packed.row_bounds, packed.row_wins, packed.row_losses, packed.scoop, packed.majority,
        packed.joint, packed.rest_best, packed.self_bounds, packed.removal_terms, packed.buckets, packed.card_codes,
        packed.multiplier, packed.bucket_shift, packed.slot_mask, packed.displacements, packed.strengths,
        packed.flush_strengths, packed.rest_multiplier, packed.rest_shift, packed.rest_slot_mask,
        packed.rest_displacements, packed.rest_values, packed.middles, packed.fronts)
    keys = packed.strength_keys
    return split, front_subset, middle_subset, keys[front], keys[middle], keys[back]
