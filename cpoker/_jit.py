"""The one JIT policy every kernel is compiled with, and where compiled kernels are cached.

``cache=True`` keeps compilation off the user's path after the first run,
``nogil=True`` lets threads run kernels side by side, and
``error_model="numpy"`` drops the Python-style division checks from hot loops.

A cache file that cannot be read back (truncated or overwritten by a disk
error, a sync tool, a full file system) is a cache miss, never a crash: the
kernel is compiled again and the file rewritten, with one warning.  numba
itself raises the unpickling error from the first call of every such kernel,
so each command would fail until the user found and deleted the cache.

numba caches next to the sources (``__pycache__``) or, failing that, in the
user's cache directory (``~/.cache/numba``), and raises at decoration time
when neither is writable -- a read-only install run by a user without a home
(``nobody``, a locked-down container).  cpoker then caches in a per-user
directory under the system's temporary directory, and if even that cannot be
written it compiles without a cache, with one warning.  ``NUMBA_CACHE_DIR``
always wins when set to a writable directory.
"""

from __future__ import annotations

import functools
import hashlib
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


try:  # numba's cache classes (numba.core.caching, stable since 0.49); without them, numba's own behaviour
    from numba.core.caching import FunctionCache, IndexDataCacheFile
except ImportError:  # pragma: no cover - a numba that moved them
    FunctionCache = IndexDataCacheFile = None

_unreadable_reported = False


def _report_unreadable(path: str, error: Exception) -> None:
    global _unreadable_reported
    if not _unreadable_reported:
        _unreadable_reported = True
        warnings.warn(f"cpoker: a compiled-kernel cache file under {os.path.dirname(path)} could not be read "
                      f"({type(error).__name__}: {str(error)[:80]}); the kernels concerned are compiled again and "
                      "their cache files rewritten", RuntimeWarning, stacklevel=2)


if FunctionCache is not None:
    class _TolerantCacheFile(IndexDataCacheFile):
        """numba's index and data files, where one that cannot be read back counts as missing."""

        def _load_index(self):
            try:
                return super()._load_index()
            except Exception as error:  # an empty index: the next save writes a good one over it
                _report_unreadable(self._index_path, error)
                return {}

        def load(self, key):
            try:
                return super().load(key)
            except Exception as error:  # the data file: compiled again, and saved over under the same name
                _report_unreadable(self._index_path, error)
                return None

    class _TolerantFunctionCache(FunctionCache):
        """A function's cache whose loaded entries, if they cannot be rebuilt, count as missing too."""

        def load_overload(self, sig, target_context):
            """numba's, without its ``target_context.refresh()``: only the runtime is initialised.

            The refresh imports and registers every lowering numba has, for the compiler; loading machine
            code from the cache uses none of it, and it cost each command that runs a kernel about 0.12 s
            (``cpoker solve`` 0.66 s instead of 0.79 s, median of 10).  The compiled code calls the runtime
            (NRT), initialised here; numba's C helpers are installed with the target context itself.  A miss
            compiles, and compiling refreshes.  On a numba without these internals: numba's own way.
            """
            try:
                from numba.core.runtime import rtsys

                guard = self._guard_against_spurious_io_errors
            except (ImportError, AttributeError):  # pragma: no cover - a numba that moved them
                return super().load_overload(sig, target_context)
            rtsys.initialize(target_context)
            with guard():
                return self._load_overload(sig, target_context)

        def _load_overload(self, sig, target_context):
            try:
                return super()._load_overload(sig, target_context)
            except Exception as error:
                _report_unreadable(self._cache_file._index_path, error)
                return None


def _tolerant(dispatcher):
    """``dispatcher`` with its cache (if any) reading unreadable files as misses (same state, subclasses),
    and stale once any kernel's source changes (:func:`kernels_digest`)."""
    cache = getattr(dispatcher, "_cache", None)
    if FunctionCache is not None and type(cache) is FunctionCache and type(cache._cache_file) is IndexDataCacheFile:
        cache.__class__ = _TolerantFunctionCache
        cache._cache_file.__class__ = _TolerantCacheFile
        cache._cache_file._source_stamp = (cache._cache_file._source_stamp, kernels_digest())
    return dispatcher


@functools.cache
def kernels_digest() -> str:
    """sha256 of every kernel source file (``cpoker/_kernels/*.py``), part of each cached kernel's stamp.

    numba keys a cached kernel on its own file's modification time and size only, and inlines the kernels it
    calls: a kernel calling one from another file kept its old compiled code after that file changed (an
    upgrade, an edit), silently.  With this digest in the stamp, any change of any kernel source recompiles
    them all.  Reading the ~100 KB costs well under a millisecond.
    """
    digest = hashlib.sha256()
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_kernels")
    try:
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as source:
                    digest.update(name.encode() + b"\0" + source.read())
    except OSError:  # sources not readable as files (a zip import): numba's own stamps alone
        return ""
    return digest.hexdigest()


def _compile(func, options):
    return _tolerant(_cached_or_not(func, options))


def _cached_or_not(func, options):
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
