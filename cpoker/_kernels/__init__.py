"""numba kernels: arrays and integers in, arrays and integers out, no validation.

The public modules (``cpoker.evaluate``, ``cpoker.game.arrangements``, ``cpoker.jobs.solve``...)
check and convert their input, then call these.  Per-hand functions take only
scalars and small arrays so the same source can later be compiled as CUDA
device functions.

Every kernel module imports :mod:`cpoker.system.jit` before numba, and that import checks that the process can
hold numba's compiler and threads (:func:`cpoker.system.environment.check_kernel_environment`).  The package
itself loads nothing, so that :mod:`.layout` (plain constants) is read without numba.
"""
