"""Where the per-hand kernels run: ``device="cpu"`` (numba threads) or ``device="cuda"`` (an NVIDIA GPU).

The CUDA kernels are the CPU kernels' own source compiled for the GPU (see
:mod:`cpoker._kernels.cuda`), so keys and table-policy choices are identical.
Cards are dealt on the host from the same seeded streams on either device, so
simulations, matches and self-play give the same results too.  What runs on
the GPU: batch evaluation and the table policy (the opponent model inside every
simulation, match and solve, and each self-play pass); greedy, plug-in
strategies and settlement stay on the CPU, where they are cheap.

``device="cuda"`` needs an NVIDIA GPU with its driver and the ``numba-cuda``
package (``pip install "cpoker[cuda]"``); without them it raises
:class:`~cpoker.OptionError` saying which is missing.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from .errors import OptionError

if TYPE_CHECKING:  # pragma: no cover
    from .policy import RowModel

DEVICES = ("cpu", "cuda")
GPU_BATCH = 1 << 22  # rows per transfer: bounded device memory whatever the input size


def check_device(device: object) -> str:
    if not isinstance(device, str) or device not in DEVICES:
        raise OptionError(f"device must be 'cpu' or 'cuda', got {device!r}")
    return device


@functools.cache
def cuda_runtime():
    """``(numba.cuda, kernels, device tables)``, or an :class:`OptionError` saying what is missing."""
    from ._kernels.cuda import build_kernels, import_cuda
    from .tables import rest_lookup_arguments, row_lookup_arguments, split_tables

    try:
        cuda = import_cuda()
    except Exception as error:  # no numba-cuda, a broken CUDA install...
        raise OptionError(f"device='cuda' needs numba-cuda (pip install 'cpoker[cuda]'): {error}") from None
    if not cuda.is_available():
        raise OptionError("device='cuda' needs an NVIDIA GPU and its driver, and none is available here "
                          "(use device='cpu')")
    kernels = build_kernels(cuda)
    # the policy's lookup arguments, in the kernel's order: arrays on the device, integers as they are
    lookups = tuple(cuda.to_device(np.ascontiguousarray(x)) if isinstance(x, np.ndarray) else x
                    for x in (*row_lookup_arguments(), *rest_lookup_arguments()))
    tables = {"policy_lookups": lookups, "split_columns": (cuda.to_device(split_tables().middles),
                                                       cuda.to_device(split_tables().fronts))}
    return cuda, kernels, tables


def _grid(rows: int, threads: int) -> int:
    return max(1, min(-(-rows // threads), 65_535 * 16))


def keys_cuda(cards: np.ndarray, n_cards: int = 0) -> np.ndarray:
    """Strength keys on the GPU: ``(N, k)`` uint8 card ids, or 1-D int64 masks with ``n_cards`` (3, 5 or 7)."""
    from ._kernels.cuda import THREADS

    cuda, kernels, _ = cuda_runtime()
    out = np.empty(cards.shape[0], dtype=np.int32)
    for start in range(0, cards.shape[0], GPU_BATCH):
        part = np.ascontiguousarray(cards[start:start + GPU_BATCH])
        keys = cuda.device_array(part.shape[0], dtype=np.int32)
        if part.ndim == 2:
            kernels["keys_from_ids"][_grid(len(part), THREADS), THREADS](cuda.to_device(part), keys)
        else:
            kernels["keys_from_masks"][_grid(len(part), THREADS), THREADS](cuda.to_device(part), n_cards, keys)
        out[start:start + len(part)] = keys.copy_to_host()
    return out


def settle_pairs_cuda(a: np.ndarray, b: np.ndarray, scoring_method: int, royalties: np.ndarray,
                      require_win: bool) -> np.ndarray:
    """Points of each row of keys ``a`` against the same row of ``b`` on the GPU (the CPU's settlement)."""
    from ._kernels.cuda import THREADS

    cuda, kernels, _ = cuda_runtime()
    out = np.empty(a.shape[0], dtype=np.int64)
    table = cuda.to_device(np.ascontiguousarray(royalties, dtype=np.int64))
    for start in range(0, a.shape[0], GPU_BATCH):
        part_a = np.ascontiguousarray(a[start:start + GPU_BATCH], dtype=np.int32)
        part_b = np.ascontiguousarray(b[start:start + GPU_BATCH], dtype=np.int32)
        points = cuda.device_array(len(part_a), dtype=np.int64)
        kernels["settle_pairs"][_grid(len(part_a), THREADS), THREADS](
            cuda.to_device(part_a), cuda.to_device(part_b), scoring_method, table, require_win, points)
        out[start:start + len(part_a)] = points.copy_to_host()
    return out


def table_policy_cuda(hands: np.ndarray, model: "RowModel") -> tuple[np.ndarray, np.ndarray]:
    """The table policy on the GPU: the same ``(chosen, strengths)`` as the CPU kernel."""
    from ._kernels.cuda import THREADS

    cuda, kernels, tables = cuda_runtime()
    values, bounds, wins, losses, scoop, majority, rest_best, self_bounds = model.kernel_arguments()
    arrays = [cuda.to_device(array) for array in (values, bounds, wins, losses)]
    search = [cuda.to_device(array) for array in (rest_best, self_bounds)]
    chosen = np.empty(hands.shape[0], dtype=np.int32)
    strengths = np.empty((hands.shape[0], 3), dtype=np.int16)
    for start in range(0, hands.shape[0], GPU_BATCH):
        part = np.ascontiguousarray(hands[start:start + GPU_BATCH], dtype=np.uint8)
        part_chosen = cuda.device_array(len(part), dtype=np.int32)
        part_strengths = cuda.device_array((len(part), 3), dtype=np.int16)
        kernels["table_policy"][-(-len(part) // THREADS), THREADS](
            cuda.to_device(part), *arrays, scoop, majority, *search, *tables["policy_lookups"],
            *tables["split_columns"], part_chosen, part_strengths)
        chosen[start:start + len(part)] = part_chosen.copy_to_host()
        strengths[start:start + len(part)] = part_strengths.copy_to_host()
    return chosen, strengths
