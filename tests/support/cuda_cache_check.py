"""Compile (or load from the disk cache) some of cpoker's CUDA kernels in this process, and say which it was.

    python tests/support/cuda_cache_check.py KERNEL[,KERNEL...] [--digest TEXT]

Prints one JSON object: for each kernel, the seconds its compilation (or
load) took, numba-cuda's cache hits and misses, and a digest of its PTX.  Run
by ``tests/kernels/test_cuda.py`` in fresh processes sharing one ``NUMBA_CACHE_DIR``:
the second process must load what the first compiled.  ``--digest`` stands in
for a change of the kernel sources (:func:`cpoker.system.jit.kernels_digest`).

Needs numba-cuda and NVIDIA's NVVM (not the simulator).  Without a GPU, the
three steps that need one are replaced: the compute capability is taken as
9.0, and the kernel is compiled to PTX but not assembled and loaded, so the
cache holds the PTX.  On a GPU everything is numba-cuda's own.
"""

import hashlib
import json
import sys
import time
import types

import numba
import numpy as np

from cpoker._kernels.cuda import build_kernels, import_cuda


def without_a_gpu(cuda) -> None:
    """numba-cuda compiling for sm_90 where there is no GPU (PTX, no cubin)."""
    from numba.cuda import codegen, dispatcher

    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=(9, 0))
    codegen.JITCUDACodegen.magic_tuple = lambda self: ("no GPU", (9, 0))
    codegen.CUDACodeLibrary._ensure_cc = lambda self, cc: cc if cc is not None else (9, 0, "a")
    dispatcher._Kernel.bind = lambda self: None  # the PTX is made when the kernel is compiled


def arguments(name: str) -> tuple:
    """Host arrays typed as the build passes them (small kernels: quick to compile)."""
    chosen, positions = np.zeros(4, np.int32), np.zeros(4, np.int64)
    return {"gather_unsettled": (chosen, positions, positions, positions),
            "count_strengths": (chosen, np.zeros((4, 3), np.int16), np.int64(1), np.zeros((1, 3, 5), np.int64)),
            "replace_choices": (chosen, np.int64(0), chosen, np.int64(0), positions)}[name]


def main(names: list, digest: "str | None") -> dict:
    cuda = import_cuda()
    if not cuda.is_available():
        without_a_gpu(cuda)
    if digest is not None:
        import cpoker.system.jit

        cpoker.system.jit.kernels_digest = lambda: digest
    kernels = build_kernels(cuda)
    out = {}
    for name in names:
        kernel = kernels[name]
        signature = tuple(numba.typeof(a) for a in arguments(name))
        started = time.perf_counter()
        compiled = kernel.compile(signature)
        seconds = time.perf_counter() - started
        ptx = compiled._codelibrary.get_asm_str()
        out[name] = {"seconds": seconds, "hits": sum(kernel.stats.cache_hits.values()),
                     "misses": sum(kernel.stats.cache_misses.values()), "cache": kernel.stats.cache_path,
                     "ptx": hashlib.sha256(ptx.encode()).hexdigest(), "sm_90": ".target sm_90" in ptx}
    return out


if __name__ == "__main__":
    digest = sys.argv[sys.argv.index("--digest") + 1] if "--digest" in sys.argv else None
    print(json.dumps(main(sys.argv[1].split(","), digest)))
