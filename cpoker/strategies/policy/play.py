"""Arranging batches of hands by the table policy or the greedy policy, on parts of the batch on the thread pool."""

from __future__ import annotations

import functools

import numpy as np

from cpoker.system.interrupts import shielded
from cpoker.game.lookup_tables import row_lookup_arguments, split_tables, strengths_on_scale
from cpoker.strategies.policy.model import RowModel
from cpoker.strategies.policy.tables import PolicyTables


def arrange_by_tables(hands: np.ndarray, model: "PolicyTables | RowModel",
                      device: str = "cpu") -> tuple[np.ndarray, np.ndarray]:
    """Table-policy split of each hand (sorted ``uint8`` ids, shape ``(N, 13)``) and its row strengths.

    ``model``: tables (their :attr:`PolicyTables.model`) or a :class:`RowModel`.
    ``device="cuda"`` runs the same kernel on an NVIDIA GPU (identical answers).
    """
    if isinstance(model, PolicyTables):
        model = model.model
    if device == "cuda":
        from cpoker.game.devices import arrange_cuda

        with shielded():
            return arrange_cuda(hands, model)
    with shielded():
        return _arranged_in_parts(_policy_kernel(), hands, model.search_arguments)


def _arranged_in_parts(kernel, hands: np.ndarray, arguments: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``(split, row strengths)`` of each hand from ``kernel(hands, start, stop, *arguments, chosen, strengths)``
    run on parts of the batch of a block of hands or more, on numba's threads (:func:`cpoker.system.threads.in_parts`;
    one part: on this thread alone)."""
    from cpoker._kernels.policy import BLOCK
    from cpoker.system.threads import in_parts

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
def _policy_kernel():
    """The table policy's batch kernel (a range of hands, :func:`cpoker.system.threads.in_parts` runs it on parts of a
    batch side by side; its table arguments are :attr:`RowModel.search_arguments`)."""
    from cpoker._kernels.policy import table_policy_block

    return table_policy_block


@functools.cache
def _one_hand_kernel():
    """The table policy's kernel of one hand, on packed arguments (imported apart: batch jobs never load it)."""
    from cpoker._kernels.packed import table_policy_one

    return table_policy_one


def arrange_greedy(hands: np.ndarray, device: str = "cpu",
                   front_code: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Greedy split of each hand (sorted ``uint8`` ids, shape ``(N, 13)``) and its row strengths (on the scale
    of the front order ``front_code``, :func:`~cpoker.game.lookup_tables.strength_scale`: the same splits, which
    never foul in any order)."""
    from cpoker._kernels.policy import greedy_block

    with shielded():
        if device == "cuda":
            from cpoker.game.devices import arrange_cuda

            chosen, strengths = arrange_cuda(hands, None)
        else:
            chosen, strengths = _arranged_in_parts(greedy_block, hands, (*row_lookup_arguments(),
                                                                         split_tables().middles, split_tables().fronts))
    return chosen, strengths_on_scale(strengths, front_code)
