"""The one JIT policy every kernel is compiled with, and where compiled kernels are cached.

``cache=True`` keeps compilation off the user's path after the first run,
``nogil=True`` lets threads run kernels side by side, and
``error_model="numpy"`` drops the Python-style division checks from hot loops.

numba caches next to the sources (``__pycache__``) or, failing that, in the
user's cache directory (``~/.cache/numba``), and raises at decoration time
when neither is writable -- a read-only install run by a user without a home
(``nobody``, a locked-down container).  cpoker then caches in a per-user
directory under the system's temporary directory, and if even that cannot be
written it compiles without a cache, with one warning.  ``NUMBA_CACHE_DIR``
always wins when set to a writable directory.
"""

from __future__ import annotations

import os
import tempfile
import warnings

import numba

JIT_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}

_fallback: "str | None | bool" = None  # None: not needed yet; a path: in use; False: no cache possible


def _writable_directory(path: str) -> bool:
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def fallback_cache_dir() -> "str | None":
    """A writable per-user cache directory under the temporary directory, or ``None``."""
    try:
        base = tempfile.gettempdir()
    except (OSError, FileNotFoundError):  # no usable temporary directory at all
        return None
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    path = os.path.join(base, f"cpoker-numba-cache-{uid}")
    return path if _writable_directory(path) else None


def _compile(func, options):
    global _fallback
    if not options.get("cache") or _fallback is False:
        return numba.njit(**{**options, "cache": False})(func)
    try:
        return numba.njit(**options)(func)
    except RuntimeError as error:
        if "cannot cache" not in str(error):
            raise
    if _fallback is None:
        path = fallback_cache_dir()
        if path is None:
            _fallback = False
            warnings.warn("cpoker: no writable directory for the compiled-kernel cache (set NUMBA_CACHE_DIR "
                          "to one); kernels are compiled in every process, which costs a few seconds",
                          RuntimeWarning, stacklevel=3)
            return numba.njit(**{**options, "cache": False})(func)
        _fallback = path
        numba.config.CACHE_DIR = path  # read by numba's locator when each kernel is decorated
    try:
        return numba.njit(**options)(func)
    except RuntimeError:  # the source file itself cannot be located (e.g. inside a zip archive)
        return numba.njit(**{**options, "cache": False})(func)


def jit(func=None, **overrides):
    """``numba.njit`` with the project's options; usable bare or with overrides."""
    options = {**JIT_OPTIONS, **overrides}
    if func is None:
        return lambda f: _compile(f, options)
    return _compile(func, options)


from ._notice import NOTICE, compile_notice  # noqa: E402,F401  (kept importable from here)
