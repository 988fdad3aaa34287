"""numba kernels: arrays and integers in, arrays and integers out, no validation.

The public modules (``cpoker.evaluate``, ``cpoker.arrange``, ``cpoker.solver``...)
check and convert their input, then call these.  Per-hand functions take only
scalars and small arrays so the same source can later be compiled as CUDA
device functions.
"""

from ..environment import check_kernel_environment

check_kernel_environment()  # before any kernel module loads numba (as cpoker._jit does)
