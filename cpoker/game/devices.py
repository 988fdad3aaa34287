"""Where the per-hand kernels run: ``device="cpu"`` (numba threads) or ``device="cuda"`` (an NVIDIA GPU).

The CUDA kernels are the CPU kernels' own source compiled for the GPU (see
:mod:`cpoker._kernels.cuda`), so keys and table-policy choices are identical.
Simulations, matches and solves deal on the host from the same seeded streams
on either device; a self-play pass deals on the GPU, each thread stepping the
sample's PCG64 stream with the CPU's own dealing kernel (:mod:`cpoker._kernels.deal`),
so all of them give the same results on both.  What runs on the GPU: batch
evaluation, the table policy and greedy (as match strategies and as the
opponents of simulations and solves), and whole self-play passes (dealing,
the greedy start, the policy); plug-in strategies and settlement stay on the
CPU.

``device="cuda"`` needs an NVIDIA GPU with its driver, the ``numba-cuda``
package and NVIDIA's NVVM compiler (``pip install "cpoker[cuda12]"`` or
``"cpoker[cuda13]"`` brings both; ``"cpoker[cuda]"`` uses the system's CUDA
toolkit); without them it raises :class:`~cpoker.OptionError` saying which
are missing.  A GPU that fails during a job (out of its memory, which another
process may hold, or a driver error) raises :class:`~cpoker.DeviceError`
naming the failure, not numba-cuda's traceback: every function here that calls
the GPU is wrapped by :func:`_calls_the_gpu`.
"""

from __future__ import annotations

import functools
import weakref
from typing import Protocol

import numpy as np

from cpoker.system.notice import compile_notice
from cpoker.system.errors import DeviceError, OptionError


class ModelArrays(Protocol):
    """What the CUDA launchers read of a row model (:class:`cpoker.strategies.policy.RowModel`): its kernels' arrays."""

    front_code: int  # its rules' front order (its strengths' scale)

    def kernel_arguments(self) -> tuple: ...


DEVICES = ("cpu", "cuda")
GPU_BATCH = 1 << 22  # rows per transfer: bounded device memory whatever the input size


def check_device(device: object) -> str:
    if not isinstance(device, str) or device not in DEVICES:
        raise OptionError(f"device must be 'cpu' or 'cuda', got {device!r}")
    return device


# numba's names for a failure the CUDA driver or runtime reported (numba-cuda's, numba's own CUDA target's and
# its simulator's classes; CudaAPIError carries the driver's code)
_DRIVER_FAILURES = ("CudaAPIError", "CudaDriverError", "CudaRuntimeError")
# NVIDIA's cuda.core (cuda-python) reports the driver's failures as its own CUDAError, whose message starts with the
# driver's name for it: numba-cuda 0.30 launches kernels through cuda.core, so a launch fails so
_CUDA_CORE_FAILURE = "CUDAError"
_OUT_OF_MEMORY = 2  # CUDA_ERROR_OUT_OF_MEMORY, the driver's code


def _reports_a_driver_failure(error: Exception) -> bool:
    """Whether ``error`` is numba's or cuda.core's report of a failure by the CUDA driver (not a bug, not ours)."""
    for kind in type(error).__mro__:
        module = kind.__module__ or ""
        if (kind.__name__ in _DRIVER_FAILURES and module.startswith("numba")
                or kind.__name__ == _CUDA_CORE_FAILURE and module.startswith("cuda.")):
            return True
    return False


def _calls_the_gpu(function):
    """``function``, which calls the GPU, raising :class:`DeviceError` where numba reports a CUDA driver failure.

    A failure is named by the driver's own code (``CUDA_ERROR_OUT_OF_MEMORY``...), in one line that says what to
    do; the other exceptions (cpoker's own, a bug) pass unchanged."""
    @functools.wraps(function)
    def calling_the_gpu(*arguments, **keywords):
        try:
            return function(*arguments, **keywords)
        except Exception as error:
            if not _reports_a_driver_failure(error):
                raise
            raise _device_error(error) from error

    return calling_the_gpu


def _device_error(error: Exception) -> DeviceError:
    """The :class:`DeviceError` for numba's report of a driver failure ``error``."""
    code = getattr(error, "code", None)
    try:
        out_of_memory = int(code) == _OUT_OF_MEMORY  # type: ignore[arg-type]  # an int, or the CUDA bindings' enum of the driver's codes
    except (TypeError, ValueError):
        out_of_memory = False
    if out_of_memory or str(error).startswith("CUDA_ERROR_OUT_OF_MEMORY"):  # cuda.core's message: the name first
        return DeviceError(f"the GPU ran out of memory (CUDA_ERROR_OUT_OF_MEMORY{_memory_now()}): another process "
                           "may be using it; free it, ask for fewer hands or deals, or use device='cpu'")
    name = getattr(code, "name", None) or " ".join(str(getattr(error, "msg", None) or error).split())[:300]
    return DeviceError(f"the GPU failed ({name or type(error).__name__}); its state in this process may be lost: "
                       "run the job again in a new process, or use device='cpu'")


def _memory_now() -> str:
    """``", X of Y GiB free now"``, or nothing where the GPU cannot say."""
    memory = _memory_info()
    return "" if memory is None else f", {memory[0] / 2**30:.1f} of {memory[1] / 2**30:.1f} GiB free now"


def _memory_info() -> "tuple[int, int] | None":
    """``(free, total)`` bytes of the GPU's memory now, or None where it cannot say (numba's simulator, which has
    none to report, or a driver that fails)."""
    if _simulated():
        return None
    try:
        from numba import cuda

        free, total = cuda.current_context().get_memory_info()
        return int(free), int(total)
    except Exception:
        return None


@functools.cache
@_calls_the_gpu
def cuda_runtime():
    """``(numba.cuda, kernels, device tables)``, or an :class:`OptionError` saying what is missing."""
    from cpoker._kernels.cuda import build_kernels, import_cuda
    from cpoker.game.dealing import DECK_IDS
    from cpoker.game.lookup_tables import rest_lookup_arguments, row_lookup_arguments, split_tables

    try:
        cuda = import_cuda()
    except Exception as error:  # no numba-cuda, or the CUDA libraries it loads as it is imported are not here
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
        raise OptionError(f"device='cuda' needs numba-cuda and the CUDA libraries it loads: pip install "
                          f"'cpoker[cuda12]' or 'cpoker[cuda13]' as the driver supports CUDA 12 or 13, or install a "
                          f"CUDA toolkit ({reason})") from None
    missing = []
    if not cuda.is_available():
        missing.append("an NVIDIA GPU and its driver, and none is available here")
    if not _simulated() and not _nvvm_found():
        missing.append("NVIDIA's NVVM compiler, which was not found: pip install 'cpoker[cuda12]' or "
                       "'cpoker[cuda13]' as the driver supports CUDA 12 or 13, or install a CUDA toolkit")
    if missing:
        raise OptionError(f"device='cuda' needs {'; and '.join(missing)} (use device='cpu')")
    kernels = {name: _FirstLaunchNotice(kernel) for name, kernel in build_kernels(cuda).items()}
    # the policy's lookup arguments, in the kernel's order: arrays on the device, integers as they are
    lookups = tuple(cuda.to_device(np.ascontiguousarray(x)) if isinstance(x, np.ndarray) else x
                    for x in (*row_lookup_arguments(), *rest_lookup_arguments()))
    tables = {"policy_lookups": lookups, "row_lookups": lookups[:len(row_lookup_arguments())],
              "split_columns": (cuda.to_device(split_tables().middles), cuda.to_device(split_tables().fronts)),
              "deck": cuda.to_device(DECK_IDS), "no_positions": cuda.to_device(np.array([-1], dtype=np.int64))}
    return cuda, kernels, tables


def _simulated() -> bool:
    """Whether numba's CUDA simulator stands in for the GPU (``NUMBA_ENABLE_CUDASIM=1``): nothing is compiled."""
    import numba

    return bool(getattr(numba.config, "ENABLE_CUDASIM", 0))


def _nvvm_found() -> bool:
    """Whether numba can load NVIDIA's NVVM, which compiles every kernel at its first launch.

    ``pip install numba-cuda`` brings the driver's bindings but not NVVM, which comes with a CUDA toolkit on
    the system or with numba-cuda's ``cu12``/``cu13`` extras: without it the first launch failed deep inside
    numba, after the job had started."""
    try:
        from numba.cuda.cudadrv import nvvm

        nvvm.NVVM()
        return True
    except Exception:  # numba's NvvmSupportError, or a library that cannot be loaded at all
        return False


class _FirstLaunchNotice:
    """A CUDA kernel whose first launch in this process runs under the cold start's notice (:func:`compile_notice`):
    that launch compiles it, unless the disk cache has it (:func:`cpoker.system.jit.cache_cuda_kernel`), and the
    largest take several seconds each.  Everything else is the kernel's own."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.launched = False

    def __getitem__(self, configuration):
        launch = self.kernel[configuration]
        if self.launched:
            return launch

        def first_launch(*arguments):
            with compile_notice():
                launch(*arguments)
            self.launched = True

        return first_launch

    def __getattr__(self, name: str):
        return getattr(self.kernel, name)


# numba-cuda warns of every launch of fewer than 128 blocks (under-utilisation, a beginner's mistake it guesses at),
# on the user's standard error; a small job's launches are small by nature (a few thousand hands, the hands a
# search budget gave up), so each has at least that many blocks: the threads past the last row find none and return
# (not under numba's simulator, which runs every thread in Python and warns of nothing)
MIN_BLOCKS = 128


def _grid(rows: int, threads: int) -> int:
    """Blocks of ``threads`` for a launch over ``rows``: enough for one thread a row, at least :data:`MIN_BLOCKS`,
    and at most 65,535 x 16 (the kernels that take more rows step through them by the grid's size)."""
    return max(1 if _simulated() else MIN_BLOCKS, min(-(-rows // threads), 65_535 * 16))


@_calls_the_gpu
def keys_cuda(cards: np.ndarray, n_cards: int = 0) -> np.ndarray:
    """Strength keys on the GPU: ``(N, k)`` uint8 card ids, or 1-D int64 masks with ``n_cards`` (3, 5 or 7)."""
    from cpoker._kernels.cuda import THREADS

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


@_calls_the_gpu
def settle_pairs_cuda(a: np.ndarray, b: np.ndarray, scoring_method: int, royalties: np.ndarray,
                      require_win: bool, one_per_hand: bool = False) -> np.ndarray:
    """Points of each row of keys ``a`` against the same row of ``b`` on the GPU (the CPU's settlement)."""
    from cpoker._kernels.cuda import THREADS

    cuda, kernels, _ = cuda_runtime()
    out = np.empty(a.shape[0], dtype=np.int64)
    table = cuda.to_device(np.ascontiguousarray(royalties, dtype=np.int64))
    for start in range(0, a.shape[0], GPU_BATCH):
        part_a = np.ascontiguousarray(a[start:start + GPU_BATCH], dtype=np.int32)
        part_b = np.ascontiguousarray(b[start:start + GPU_BATCH], dtype=np.int32)
        points = cuda.device_array(len(part_a), dtype=np.int64)
        kernels["settle_pairs"][_grid(len(part_a), THREADS), THREADS](
            cuda.to_device(part_a), cuda.to_device(part_b), scoring_method, table, require_win, one_per_hand, points)
        out[start:start + len(part_a)] = points.copy_to_host()
    return out


# the last model whose arrays went to the device, and them: a pass launches its blocks under one model (a 10**8-hand
# pass on a GPU, 100 blocks, would otherwise copy its eleven arrays a hundred times)
_device_model: list = [None, ()]


@functools.cache
def _scale_lookups(front_code: int) -> tuple:
    """The policy's lookups on the device for a low front's strength scale (``lookup_tables.strength_scale``)."""
    from cpoker.game.lookup_tables import rest_lookup_arguments, row_lookup_arguments

    cuda, _, _ = cuda_runtime()
    return tuple(cuda.to_device(np.ascontiguousarray(x)) if isinstance(x, np.ndarray) else x
                 for x in (*row_lookup_arguments(front_code), *rest_lookup_arguments(front_code)))


def _model_arguments(model: "ModelArrays | None") -> tuple:
    """The policy kernels' arguments after the hands, up to the split columns: the model's arrays on the device
    and the lookups (greedy when ``model`` is None: the row lookups only)."""
    _, _, tables = cuda_runtime()
    if model is None:
        return tables["row_lookups"]
    if _device_model[0] is None or _device_model[0]() is not model:  # a model is immutable: its copy stays right
        lookups = tables["policy_lookups"] if not model.front_code else _scale_lookups(model.front_code)
        _device_model[:] = weakref.ref(model), (*on_device(model.kernel_arguments()), *lookups)
    return _device_model[1]  # arrays and the two bonus units


def _arrange_in_batches(count: int, launch, policy: bool,
                        search_budget: "int | None") -> tuple[np.ndarray, np.ndarray]:
    """``(chosen, strengths)`` of ``count`` hands in batches of at most ``GPU_BATCH``.

    ``launch(blocks, threads, offset, positions, budget, chosen, strengths)`` starts the kernel that fills the
    device arrays ``chosen`` and ``strengths`` with hands ``offset .. offset + size`` (``positions`` None), or with
    the hands ``offset + positions`` (a host array), searching at most ``budget`` backs a hand.  For the table
    ``policy`` (greedy searches nothing), the hands of a batch that need more than ``search_budget`` (default
    :data:`cpoker._kernels.cuda.SEARCH_BUDGET`) are arranged again, together, by a second launch without one.
    """
    from cpoker._kernels.cuda import SEARCH_BUDGET, THREADS
    from cpoker._kernels.search import UNLIMITED_SEARCHES

    cuda, _, _ = cuda_runtime()
    chosen = np.empty(count, dtype=np.int32)
    strengths = np.empty((count, 3), dtype=np.int16)
    budget = np.int64(SEARCH_BUDGET if search_budget is None else search_budget)
    for offset in range(0, count, GPU_BATCH):
        size = min(GPU_BATCH, count - offset)
        part_chosen = cuda.device_array(size, dtype=np.int32)
        part_strengths = cuda.device_array((size, 3), dtype=np.int16)
        launch(_grid(size, THREADS), THREADS, offset, None, budget, part_chosen, part_strengths)
        batch_chosen, batch_strengths = part_chosen.copy_to_host(), part_strengths.copy_to_host()
        again = np.flatnonzero(batch_chosen < 0) if policy else ()
        if len(again):
            part_chosen = cuda.device_array(len(again), dtype=np.int32)
            part_strengths = cuda.device_array((len(again), 3), dtype=np.int16)
            launch(_grid(len(again), THREADS), THREADS, offset, again, np.int64(UNLIMITED_SEARCHES), part_chosen,
                   part_strengths)
            batch_chosen[again], batch_strengths[again] = part_chosen.copy_to_host(), part_strengths.copy_to_host()
        chosen[offset:offset + size] = batch_chosen
        strengths[offset:offset + size] = batch_strengths
    return chosen, strengths


@_calls_the_gpu
def arrange_cuda(hands: np.ndarray, model: "ModelArrays | None",
                 search_budget: "int | None" = None) -> tuple[np.ndarray, np.ndarray]:
    """The table policy under ``model`` (greedy when None) on the GPU: the CPU kernel's ``(chosen, strengths)``.

    ``search_budget``: backs a thread searches before its hand waits for the second launch (default
    :data:`cpoker._kernels.cuda.SEARCH_BUDGET`; the answers never depend on it).
    """
    cuda, kernels, tables = cuda_runtime()
    arguments = (*_model_arguments(model), *tables["split_columns"])

    def launch(blocks, threads, offset, positions, budget, chosen, strengths):
        rows = hands[offset:offset + len(chosen)] if positions is None else hands[offset + positions]
        part = cuda.to_device(np.ascontiguousarray(rows, dtype=np.uint8))
        if model is None:
            kernels["greedy"][blocks, threads](part, *arguments, chosen, strengths)
        else:
            kernels["table_policy"][blocks, threads](part, budget, *arguments, chosen, strengths)

    return _arrange_in_batches(hands.shape[0], launch, model is not None, search_budget)


@_calls_the_gpu
def self_play_cuda(seed: int, start: int, count: int, model: "ModelArrays | None",
                   search_budget: "int | None" = None) -> tuple[np.ndarray, np.ndarray]:
    """Hands ``start .. start + count`` of ``sample_hands(N, seed)`` arranged on the GPU: ``(chosen, strengths)``.

    Each thread deals its hand from the seeded PCG64 stream (the CPU's
    ``deal_hands``) and arranges it by the table policy under ``model``, or
    greedily when ``model`` is None: the same answers as
    ``arrange_by_tables(sample_block(seed, start, count), model)``, with no hands
    crossing to the device (``search_budget`` as in :func:`arrange_cuda`).
    """
    from cpoker.game.dealing import stream_state

    cuda, kernels, tables = cuda_runtime()
    state = stream_state(seed, start)
    arguments = (tables["deck"], *_model_arguments(model), *tables["split_columns"])

    def launch(blocks, threads, offset, positions, budget, chosen, strengths):
        if model is None:
            kernels["self_play_greedy"][blocks, threads](*state, np.int64(offset), *arguments, chosen, strengths)
        else:
            positions = tables["no_positions"] if positions is None else cuda.to_device(positions.astype(np.int64))
            kernels["self_play_policy"][blocks, threads](*state, np.int64(offset), positions, budget, *arguments,
                                                         chosen, strengths)

    return _arrange_in_batches(count, launch, model is not None, search_budget)


def free_device_memory() -> int:
    """Bytes of the GPU's memory free now (the simulator, which reports none: 1 GiB)."""
    cuda_runtime()
    memory = _memory_info()
    return 1 << 30 if memory is None else memory[0]


def _filled(size: int, dtype, value) -> object:
    """A device array of ``size`` elements, each ``value`` (copied from the host in batches of
    :data:`GPU_BATCH`: bounded host memory whatever the size)."""
    cuda, _, _ = cuda_runtime()
    array = cuda.device_array(size, dtype=dtype)
    for start in range(0, size, GPU_BATCH):
        array[start:start + GPU_BATCH] = np.full(min(GPU_BATCH, size - start), value, dtype=dtype)
    return array


@_calls_the_gpu
def near_best_lists_cuda(size: int, capacity: int) -> tuple:
    """Device arrays for ``size`` hands' near-best rows (:class:`cpoker.jobs.nearbest.NearBestMemory`): rows,
    splits, counts, ceilings, the pass that listed them (-1, none yet) and the hands' cards, then the pass
    that last certified each (-1, none), its leader's margin and entry (:func:`cpoker.jobs.nearbest.empty_lists`)."""
    cuda, _, _ = cuda_runtime()
    # no list yet, nor certificate: the rows, splits, ceilings, margins and leaders are then never read
    since, counts, checked = _filled(size, np.int32, -1), _filled(size, np.uint8, 0), _filled(size, np.int32, -1)
    return (cuda.device_array((size, capacity, 3), dtype=np.int16), cuda.device_array((size, capacity), dtype=np.int32),
            counts, cuda.device_array(size, dtype=np.float64), since, cuda.device_array(size, dtype=np.int64),
            checked, cuda.device_array(size, dtype=np.float64), cuda.device_array(size, dtype=np.uint8))


@_calls_the_gpu
def hand_choices_cuda(hands: int) -> object:
    """Each of ``hands`` hands' last split, on the GPU: -1, none yet (see :func:`replace_choices_cuda`)."""
    return _filled(hands, np.int32, -1)


@_calls_the_gpu
def replace_choices_cuda(previous, start: int, chosen, both: int) -> int:
    """Hands ``start ..``'s last splits (``previous``, a device array of :func:`hand_choices_cuda`) replaced by
    ``chosen`` (a device array, or a host one, copied there): how many of the first ``both`` differ.  A build's
    passes on the GPU leave their choices there: only this count comes back."""
    from cpoker._kernels.cuda import THREADS

    cuda, kernels, _ = cuda_runtime()
    if isinstance(chosen, np.ndarray):
        chosen = cuda.to_device(np.ascontiguousarray(chosen, dtype=np.int32))
    changed = cuda.to_device(np.zeros(1, dtype=np.int64))
    kernels["replace_choices"][_grid(len(chosen), THREADS), THREADS](previous, np.int64(start), chosen,
                                                                     np.int64(both), changed)
    return int(changed.copy_to_host()[0])


def _gather_unsettled(chosen, candidates, count: int):
    """The positions among ``candidates`` (a device array; all of ``chosen``'s, with ``count`` its length, when
    it is ``[-1]``) whose hands have no split yet (``chosen`` -1), as a device array, in no particular order."""
    from cpoker._kernels.cuda import THREADS

    cuda, kernels, _ = cuda_runtime()
    todo = cuda.device_array(count, dtype=np.int64)
    found = cuda.to_device(np.zeros(1, dtype=np.int64))
    kernels["gather_unsettled"][_grid(count, THREADS), THREADS](chosen, candidates, todo, found)
    return todo[:int(found.copy_to_host()[0])]


@_calls_the_gpu
def on_device(arguments: tuple) -> tuple:
    """``arguments`` with each array copied to the GPU (once, for the many launches that read it)."""
    cuda, _, _ = cuda_runtime()
    return tuple(cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in arguments)


@_calls_the_gpu
def self_play_remembered_cuda(seed: int, start: int, count: int, model: "ModelArrays", lists: tuple,
                              drift_arguments: tuple, current: int, delta: float,
                              search_budget: "int | None" = None, chunk: "int | None" = None,
                              to_host: bool = False) -> tuple[object, np.ndarray, int, int]:
    """:func:`self_play_cuda` of hands whose near-best rows are on the GPU (``lists``: theirs, see
    :func:`near_best_lists_cuda`): ``(chosen, histograms, hands searched, splits kept)``, the same answers,
    ``chosen`` left on the GPU (a device array) unless ``to_host``, the rows' strengths counted for each block of
    ``chunk`` hands (default all): :func:`cpoker.jobs.nearbest.block_histograms`.

    One thread per hand keeps its split from its last certificate where the models swung less than its margin
    since, and certifies it from its rows where the drift since they were listed allows (``drift_arguments``, on
    the device: see :func:`cpoker._kernels.nearbest.certify_block`, pass ``current``).  The others are
    gathered on the GPU, dealt and searched by a second kernel, listing again (pass ``current``; not with
    ``delta`` below 0), a thread each, which stores its answer at its hand's position; those over
    ``search_budget`` backs (default :data:`cpoker._kernels.cuda.SEARCH_BUDGET`) are gathered again and
    searched without one, as in :func:`self_play_cuda`.  Every hand's strengths are then counted on the GPU:
    nothing a hand has crosses to the host.
    """
    from cpoker._kernels import cuda as cuda_kernels
    from cpoker._kernels.cuda import SEARCH_BUDGET, THREADS
    from cpoker._kernels.search import UNLIMITED_SEARCHES
    from cpoker._kernels.nearbest import LISTED
    from cpoker.game.dealing import stream_state
    from cpoker.game.lookup_tables import strength_keys

    cuda, kernels, tables = cuda_runtime()
    chunk = count if chunk is None else chunk
    size, n_blocks = len(strength_keys()), -(-count // chunk)
    arguments = _model_arguments(model)
    chosen = cuda.device_array(count, dtype=np.int32)
    strengths = cuda.device_array((count, 3), dtype=np.int16)
    values, _, wins, losses, scoop, majority, joint, _, _, terms, shapes = arguments[:11]  # RowModel.kernel_arguments
    grid = _grid(count, THREADS)
    kept = cuda.to_device(np.zeros(1, dtype=np.int64))
    kernels["certify_lists"][grid, THREADS](*lists, np.int32(current), *drift_arguments, values, wins, losses, scoop,
                                            majority, joint, terms, shapes, cuda_kernels.DRIFT_BY_COLUMN, chosen,
                                            strengths, kept)
    todo = _gather_unsettled(chosen, tables["no_positions"], count)
    state = stream_state(seed, start)

    def search(positions, budget: int) -> None:
        kernels["self_play_remembering"][_grid(len(positions), THREADS), THREADS](
            *state, positions, np.int64(budget), np.float64(delta), np.int32(current), tables["deck"], *arguments,
            *tables["split_columns"], chosen, strengths, *lists[:LISTED])

    budget = SEARCH_BUDGET if search_budget is None else search_budget
    if len(todo):
        search(todo, budget)
        given_up = _gather_unsettled(chosen, todo, len(todo)) if budget < UNLIMITED_SEARCHES else ()
        if len(given_up):  # searched again, together, with no budget
            search(given_up, UNLIMITED_SEARCHES)
    histograms = cuda.to_device(np.zeros((n_blocks, 3, size), dtype=np.int64))
    kernels["count_strengths"][grid, THREADS](chosen, strengths, np.int64(chunk), histograms)
    return (chosen.copy_to_host() if to_host else chosen, histograms.copy_to_host(), len(todo),
            int(kept.copy_to_host()[0]))
