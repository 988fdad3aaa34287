"""The one JIT policy every kernel is compiled with.

``cache=True`` keeps compilation off the user's path after the first run,
``nogil=True`` lets threads run kernels side by side, and
``error_model="numpy"`` drops the Python-style division checks from hot loops.
"""

from __future__ import annotations

import numba

JIT_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}


def jit(func=None, **overrides):
    """``numba.njit`` with the project's options; usable bare or with overrides."""
    options = {**JIT_OPTIONS, **overrides}
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
