"""The one set of JIT options every kernel is compiled with, and where compiled kernels are cached.

``cache=True`` keeps compilation off the user's path after the first run,
``nogil=True`` lets threads run kernels side by side, and
``error_model="numpy"`` drops the Python-style division checks from hot loops.

A cache file that cannot be read back (truncated or overwritten by a disk
error, a sync tool, a full file system) is a cache miss, never a crash: the
kernel is compiled again and the file rewritten, with one warning.  numba
itself raises the unpickling error from the first call of every such kernel,
so each command would fail until the user found and deleted the cache.

Compiled kernels are kept in a per-user cache folder named for cpoker's
version (:func:`user_cache_dir`: ``~/.cache/cpoker/VERSION/kernels`` on Linux),
never inside the installed package: numba's own default, a ``__pycache__``
next to the sources, is left behind in site-packages by ``pip uninstall``, and
a later editable install then imported that leftover folder as an empty
namespace package.  Where the user's cache folder cannot be written (a user
without a home: ``nobody``, a locked-down container), cpoker caches in a
per-user folder under the system's temporary directory, and if even that
cannot be written it compiles without a cache, with one warning.
``NUMBA_CACHE_DIR`` always wins when set to a writable directory.

Importing this module first checks that the process can hold numba's compiler
and threads (:func:`cpoker.system.environment.check_kernel_environment`): under a smaller
``ulimit -v`` the import of numba fails, LLVM aborts the process mid-compile, or
OpenMP cannot start its threads; and that ``NUMBA_NUM_THREADS`` is a number of
threads (numba raised a traceback for 0, and 65,535 crashed the process).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import tempfile
import warnings

from cpoker.system.environment import check_kernel_environment

check_kernel_environment()  # before numba is loaded: see the module docstring

import numba  # noqa: E402

from cpoker._version import __version__  # noqa: E402

JIT_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}

_fallback: "str | None | bool" = None  # None: not needed yet; a path: in use; False: no cache possible


def _writable_directory(path: str) -> bool:
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def user_cache_dir() -> "str | None":
    """The per-user folder compiled kernels are kept in, named for cpoker's version, if it can be written.

    ``$XDG_CACHE_HOME/cpoker/VERSION/kernels`` (``~/.cache`` when unset) on Linux and other POSIX systems,
    ``~/Library/Caches/cpoker/VERSION/kernels`` on macOS, ``%LOCALAPPDATA%\\cpoker\\VERSION\\kernels`` on
    Windows.  A new version starts a new folder, and an old one can be deleted whole.
    """
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):  # no home at all ("~" left as it is), or a relative XDG_CACHE_HOME: not a place
        return None
    path = os.path.join(base, "cpoker", __version__, "kernels")
    return path if _writable_directory(path) else None


def fallback_cache_dir() -> "str | None":
    """A writable per-user cache directory under the temporary directory, or ``None``."""
    try:
        base = tempfile.gettempdir()
    except (OSError, FileNotFoundError):  # no usable temporary directory at all
        return None
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    path = os.path.join(base, f"cpoker-numba-cache-{uid}")
    return path if _writable_directory(path) else None


def _choose_cache_dir() -> None:
    """Point numba's cache at :func:`user_cache_dir` (or :func:`fallback_cache_dir`) unless ``NUMBA_CACHE_DIR``
    names a folder already; numba reads the setting when each kernel is decorated."""
    if not numba.config.CACHE_DIR:  # type: ignore[attr-defined]
        path = user_cache_dir() or fallback_cache_dir()
        if path is not None:
            numba.config.CACHE_DIR = path  # type: ignore[attr-defined]


_choose_cache_dir()

try:  # numba's cache classes (numba.core.caching, stable since 0.49); without them, numba's own behaviour
    from numba.core.caching import FunctionCache, IndexDataCacheFile
except ImportError:  # pragma: no cover - a numba that moved them
    FunctionCache = IndexDataCacheFile = None  # type: ignore[misc,assignment]

_reported: set = set()  # the cache failures already reported in this process ("read", "written")


def _report_once(failure: str, folder: str, error: Exception, consequence: str) -> None:
    if failure not in _reported:
        _reported.add(failure)
        warnings.warn(f"cpoker: a compiled-kernel cache file under {folder} could not be {failure} "
                      f"({type(error).__name__}: {str(error)[:80]}); the kernels concerned are {consequence}",
                      RuntimeWarning, stacklevel=3)


def _report_unreadable(path: str, error: Exception) -> None:
    """Warn once that a cache file cannot be read back; a ``MemoryError`` is this machine's memory, not a damaged
    file, and is raised again (the file stays as it is)."""
    if isinstance(error, MemoryError):
        raise error
    _report_once("read", os.path.dirname(path), error, "compiled again and their cache files rewritten")


def _report_unwritable(folder: str, error: Exception) -> None:
    _report_once("written", folder, error, "compiled again in each process until it can be")


class _TolerantSaves:
    """Saves of a compiled kernel to numba's cache (CPU or CUDA), where a file that cannot be written (a full
    disk, a folder in its place) leaves the kernel compiled for this process only, with one warning: numba
    raised the error from the kernel's first call, which failed the command."""

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except Exception as error:
            _report_unwritable(self._cache_path, error)


class _TolerantLoads:
    """Loads of numba's index and data files (CPU or CUDA), where a file that cannot be read back counts as
    missing."""

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


if FunctionCache is not None:
    class _TolerantCacheFile(_TolerantLoads, IndexDataCacheFile):
        """numba's index and data files, where one that cannot be read back counts as missing."""

    class _TolerantFunctionCache(_TolerantSaves, FunctionCache):
        """A function's cache whose loaded entries, if they cannot be rebuilt, count as missing too, and whose
        files that cannot be written are left unwritten."""

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
            if not getattr(rtsys, "_init", False):
                _initialize_runtime(rtsys, target_context, self._cache_path)
            with guard():
                return self._load_overload(sig, target_context)

        def _load_overload(self, sig, target_context):
            """numba's, rebuilding the kernel through :func:`_rebuild` (its bitcode parsed only when needed)."""
            try:
                if not self._enabled:
                    return None
                data = self._cache_file.load(self._index_key(sig, target_context.codegen()))
                return None if data is None else _rebuild(self._impl, target_context, data)
            except Exception as error:
                _report_unreadable(self._cache_file._index_path, error)
                return None


RUNTIME_CACHE_FORMAT = 1


def _initialize_runtime(rtsys, target_context, cache_path: str) -> None:
    """numba's ``rtsys.initialize``, with the runtime's own code library loaded from the cache when there.

    numba compiles its runtime's few LLVM functions (reference counts, atomic
    operations) in every process before the first kernel runs, a noticeable part
    of a short command.  The machine code is kept next to
    the kernels' (``nrt-<key>.nbo``, keyed like numba keys a kernel: Python,
    numba and llvmlite versions, target triple, CPU name and features) with a
    digest of its contents; a missing, foreign or damaged file is compiled and
    written again, as a kernel's would be.
    """
    from numba.core.runtime import nrtdynmod

    compile_runtime = nrtdynmod.compile_nrt_functions
    nrtdynmod.compile_nrt_functions = functools.partial(_cached_runtime_library, compile_runtime, cache_path)
    try:  # under numba's compiler lock (held while a dispatcher loads): no other thread compiles meanwhile
        rtsys.initialize(target_context)
    finally:
        nrtdynmod.compile_nrt_functions = compile_runtime


def _cached_runtime_library(compile_runtime, cache_path: str, target_context):
    """The runtime's code library: from ``cache_path`` if a good copy is there, else compiled and saved."""
    import llvmlite
    import pickle

    from numba.core.runtime import nrtdynmod

    from cpoker.system.files import atomic_write

    codegen = target_context.codegen()
    try:
        key = repr((RUNTIME_CACHE_FORMAT, sys.implementation.cache_tag, numba.__version__, llvmlite.__version__,
                    codegen.magic_tuple()))
    except Exception:  # pragma: no cover - a numba without these internals
        return compile_runtime(target_context)
    path = os.path.join(cache_path, f"nrt-{hashlib.sha256(key.encode()).hexdigest()[:20]}.nbo")
    try:
        with open(path, "rb") as file:
            saved = file.read()
    except OSError:  # none yet (or not ours to read): compiled below
        saved = None
    if saved is not None:
        try:
            digest, payload = pickle.loads(saved)
            if hashlib.sha256(payload).digest() != digest:
                raise ValueError("its contents do not match their digest")
            saved_key, state = pickle.loads(payload)
            if saved_key == key:
                return codegen.unserialize_library(state)
        except Exception as error:  # damaged: compiled again below, and written over
            _report_unreadable(path, error)
    module, library = nrtdynmod.create_nrt_module(target_context)  # numba's compile_nrt_functions, caching on
    library.enable_object_caching()
    library.add_ir_module(module)
    library.finalize()
    try:
        payload = pickle.dumps((key, library.serialize_using_object_code()), protocol=pickle.HIGHEST_PROTOCOL)
        os.makedirs(cache_path, exist_ok=True)
        atomic_write(path, pickle.dumps((hashlib.sha256(payload).digest(), payload), protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # a cache that cannot be written: compiled again next time, as numba does for kernels
        pass
    return library


try:  # numba's code library and compile result (stable since 0.54); without them, numba's own rebuild
    from llvmlite import binding as _llvm
    from numba.core.caching import CompileResultCacheImpl
    from numba.core.codegen import JITCodeLibrary
    from numba.core.compiler import CompileResult
except ImportError:  # pragma: no cover - a numba that moved them
    JITCodeLibrary = None  # type: ignore[misc,assignment]


def _rebuild(impl, target_context, payload):
    """A cached kernel's compile result, from what its data file holds (numba's ``impl.rebuild`` otherwise)."""
    if JITCodeLibrary is None or type(impl) is not CompileResultCacheImpl or len(payload) != 9:
        return impl.rebuild(target_context, payload)  # pragma: no cover - another numba
    return _rebuild_lazily(target_context, *payload)


if JITCodeLibrary is not None:
    class _LazyBitcodeLibrary(JITCodeLibrary):
        """A kernel's code library loaded from the cache, whose LLVM bitcode is parsed only if asked for.

        numba keeps each cached kernel's bitcode next to its machine code, to link
        into kernels compiled later that call it, and on every load parsed it and
        walked its symbols, milliseconds a kernel and a short command's largest cost.
        Running the loaded machine code needs neither: it needs the addresses of
        the kernel's entry points, which :func:`_rebuild_lazily` records.  The
        bitcode is parsed (and its symbols recorded, as numba does) the first time
        a compilation links it in or anything else asks for a symbol.
        """

        @property
        def _shared_module(self):
            module = self.__dict__.get("_parsed_shared_module")
            if module is None and "_unparsed_bitcode" in self.__dict__:
                module = _llvm.parse_bitcode(self.__dict__.pop("_unparsed_bitcode"))
                self._codegen._engine._load_defined_symbols(module)
                self.__dict__["_parsed_shared_module"] = module
            return module

        @_shared_module.setter
        def _shared_module(self, module):
            self.__dict__["_parsed_shared_module"] = module

        def get_pointer_to_function(self, name):
            if not self._codegen._engine.is_symbol_defined(name):
                self._shared_module  # noqa: B018 - parsed: numba's record of every symbol the library defines
            return super().get_pointer_to_function(name)

    def _unserialize_lazily(codegen, state, entry_points):
        """numba's ``JITCodeLibrary._unserialize`` of cached machine code, leaving the bitcode unparsed."""
        name, kind, data = state
        library = codegen.create_library(name)
        if kind != "object" or type(library) is not JITCodeLibrary:
            return codegen.unserialize_library(state)  # pragma: no cover - not what numba caches on the CPU
        object_code, shared_bitcode = data
        library.__class__ = _LazyBitcodeLibrary
        library.enable_object_caching()
        library._set_compiled_object(object_code)
        library.__dict__["_unparsed_bitcode"] = shared_bitcode
        library._finalize_final_module()
        codegen._engine._defined_symbols.update(entry_points)
        return library

    def _rebuild_lazily(target_context, libdata, fndesc, env, signature, objectmode, lifted, typeann, reload_init,
                        referenced_envs):
        """numba's ``CompileResult._rebuild``, with the library from :func:`_unserialize_lazily`."""
        for function in reload_init or ():
            function()
        library = _unserialize_lazily(target_context.codegen(), libdata,
                                      (fndesc.llvm_func_name, fndesc.llvm_cpython_wrapper_name))
        entry_point = target_context.get_executable(library, fndesc, env)
        result = CompileResult(target_context=target_context, typing_context=target_context.typing_context,
                               library=library, environment=env, entry_point=entry_point, fndesc=fndesc,
                               type_annotation=typeann, signature=signature, objectmode=objectmode, lifted=lifted,
                               typing_error=None, call_helper=None, metadata=None, reload_init=reload_init,
                               referenced_envs=referenced_envs)
        for referenced in referenced_envs:
            library.codegen.set_env(referenced.env_name, referenced)
        return result


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
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_kernels")
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


def _fallback_directory() -> "str | None":
    """The cache directory to use where numba's own locations cannot be written (:func:`fallback_cache_dir`,
    then given to numba), or None, said once, where none can be: found once a process."""
    global _fallback
    if _fallback is None:
        path = fallback_cache_dir()
        if path is None:
            _fallback = False
            warnings.warn("cpoker: no writable directory for the compiled-kernel cache (set NUMBA_CACHE_DIR "
                          "to one); kernels are compiled in every process, which costs a few seconds",
                          RuntimeWarning, stacklevel=4)
            return None
        _fallback = path
        # read by numba's locator when each kernel is decorated
        numba.config.CACHE_DIR = path  # type: ignore[attr-defined]
    return _fallback if isinstance(_fallback, str) else None


def _cached_or_not(func, options):
    if not options.get("cache") or _fallback is False:
        return numba.njit(**{**options, "cache": False})(func)
    try:
        return numba.njit(**options)(func)
    except RuntimeError as error:
        if "cannot cache" not in str(error):
            raise
    if _fallback_directory() is None:
        return numba.njit(**{**options, "cache": False})(func)
    try:
        return numba.njit(**options)(func)
    except RuntimeError:  # the source file itself cannot be located (e.g. inside a zip archive)
        return numba.njit(**{**options, "cache": False})(func)


def cache_cuda_kernel(dispatcher) -> None:
    """Keep a CUDA kernel's compiled code on disk, keyed by every kernel source: compiled once, not per process.

    A CUDA kernel otherwise compiles at its first launch in each process (NVVM,
    then the PTX assembler), tens of seconds for the nine table-policy and
    self-play kernels: most of the start of every ``--device cuda`` command and
    a large share of the minute a 10^8-hand build aims at.  numba-cuda can keep kernels on disk
    (its ``cache=True``), keyed by the kernel's file's modification time and a
    pickle of its closure.  cpoker's kernels close over device functions built
    from the CPU kernels' source (:func:`cpoker._kernels.cuda.device_twins`),
    whose pickles depend on how cloudpickle treats such functions and on how
    the process was started (numba-cuda's own caveat).  So the key here is the
    one the CPU kernels have (:func:`_tolerant`): :func:`kernels_digest` of
    every kernel source, with the kernel's bytecode and options, the numba and
    numba-cuda versions, and numba-cuda's codegen tuple (the CUDA runtime's
    version and the GPU's compute capability).  An unreadable cache file is a
    miss, compiled again and written over; one that cannot be written leaves
    the kernel compiled for this process only (:class:`_TolerantSaves`).
    Where neither numba-cuda's locations nor :func:`fallback_cache_dir` can be
    written, under numba's own CUDA target (no numba-cuda), and under the
    simulator (whose kernels are not compiled), the kernel is left as it is.
    """
    cache_class = _cuda_cache_class()
    if cache_class is None or not hasattr(dispatcher, "enable_caching") or not hasattr(dispatcher, "targetoptions"):
        return
    try:
        dispatcher._cache = cache_class(dispatcher.py_func, dispatcher.targetoptions)
    except RuntimeError as error:  # no writable cache location next to the source or in the user's cache
        if "cannot cache" not in str(error):
            raise
        from numba.cuda.core import config as cuda_config

        path = _fallback_directory()
        if path is None:
            return
        cuda_config.CACHE_DIR = path  # numba-cuda's own configuration, read by its locator when a cache is made
        try:
            dispatcher._cache = cache_class(dispatcher.py_func, dispatcher.targetoptions)
        except RuntimeError:  # pragma: no cover - not even there: compiled in each process
            return


@functools.cache
def _cuda_cache_class():
    """numba-cuda's kernel cache keyed as :func:`cache_cuda_kernel` says, or None without numba-cuda's classes."""
    try:
        import numba_cuda
        from numba.cuda.core.caching import IndexDataCacheFile as CUDAIndexDataCacheFile
        from numba.cuda.dispatcher import CUDACache
    except ImportError:  # no numba-cuda (numba's own simulator), or one that moved them: no cache
        return None
    try:
        from numba.cuda.core import config as cuda_config
    except ImportError:  # pragma: no cover - a numba-cuda without its own configuration: its default place
        cuda_config = None
    if cuda_config is not None and not getattr(cuda_config, "CACHE_DIR", None) and numba.config.CACHE_DIR:
        cuda_config.CACHE_DIR = numba.config.CACHE_DIR  # the CPU kernels' folder, not the package's

    class TolerantCUDACacheFile(_TolerantLoads, CUDAIndexDataCacheFile):
        """numba-cuda's index and data files, where one that cannot be read back counts as missing."""

    class SourceKeyedCUDACache(_TolerantSaves, CUDACache):
        """numba-cuda's cache of a kernel, keyed by the kernel sources' digest instead of its closure's pickle."""

        def __init__(self, py_func, options: dict):
            super().__init__(py_func)
            self._options = repr(sorted(options.items()))
            self._cache_file.__class__ = TolerantCUDACacheFile
            self._cache_file._source_stamp = (self._cache_file._source_stamp, kernels_digest())

        def _index_key(self, sig, codegen):
            code = hashlib.sha256(self._py_func.__code__.co_code).hexdigest()
            key = (sig, codegen.magic_tuple(), numba_cuda.__version__, numba.__version__, self._options,
                   (code, kernels_digest()))
            launch_config = getattr(self, "_launch_config_key", None)  # as numba-cuda's own key (0.2x: none)
            if launch_config is not None:
                key += (("launch_config", launch_config),)
            return key

        def load_overload(self, sig, target_context):
            try:
                return super().load_overload(sig, target_context)
            except Exception as error:  # a data file from elsewhere that does not rebuild: compiled again
                _report_unreadable(self._cache_file._index_path, error)
                return None

    return SourceKeyedCUDACache


def jit(func=None, **overrides):
    """``numba.njit`` with the project's options; usable bare or with overrides."""
    options = {**JIT_OPTIONS, **overrides}
    if func is None:
        return lambda f: _compile(f, options)
    return _compile(func, options)

