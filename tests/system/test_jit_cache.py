"""cpoker works when numba cannot cache where it wants to, or cannot read back what it cached.

A read-only install used by a user without a home (``nobody``, a locked-down
container) leaves numba no cache location, and numba then refuses to
decorate any cached function.  These tests build exactly that situation for
real: a private mount namespace (``unshare``) in which the package directory
is bind-mounted read-only and ``HOME`` points where nothing can be created.
Tests run as root, for whom permission bits mean nothing, so only a
read-only mount makes a directory truly unwritable.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cpoker
from helpers import needs_namespaces

PACKAGE = Path(cpoker.__file__).resolve().parent
ROOT = PACKAGE.parent


# evaluate_batch runs a kernel (a single evaluate() is a Python lookup and compiles nothing)
PROGRAM = ("import cpoker, warnings; warnings.simplefilter('default'); "
           "from cpoker.game.evaluation import describe_key; "
           "print(describe_key(int(cpoker.evaluate_batch([[12, 11, 10, 9, 8]])[0])))")


def _run_read_only(tmp_path: Path, script: str, extra_mounts: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    env.update(HOME="/proc/no-home", TMPDIR=str(tmp_path), PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(ROOT))
    shell = (f"mount --bind -o ro {PACKAGE} {PACKAGE} && {extra_mounts} "
             f"cd {tmp_path} && exec {sys.executable} -c \"{script}\"")
    return subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True, env=env,
                          timeout=600)


@pytest.mark.slow
@needs_namespaces
def test_read_only_install_without_a_home_caches_in_the_temporary_directory(tmp_path):
    first = _run_read_only(tmp_path, PROGRAM)
    assert first.returncode == 0 and first.stdout.strip() == "royal flush", first.stderr[-800:]
    assert "no locator" not in first.stderr and "Warning" not in first.stderr
    cache = tmp_path / f"cpoker-numba-cache-{os.getuid()}"
    assert any(cache.rglob("*.nbi")), "the fallback cache directory holds the compiled kernels"
    again = _run_read_only(tmp_path, PROGRAM)
    assert again.returncode == 0 and again.stdout.strip() == "royal flush"


@pytest.mark.slow
@needs_namespaces
def test_nowhere_writable_compiles_without_a_cache_and_says_so_once(tmp_path):
    fallback = tmp_path / f"cpoker-numba-cache-{os.getuid()}"
    fallback.mkdir()
    read_only_fallback = f"mount -t tmpfs -o ro tmpfs {fallback} && "  # the last resort cannot be written either
    result = _run_read_only(tmp_path, PROGRAM, read_only_fallback)
    assert result.returncode == 0 and result.stdout.strip() == "royal flush", result.stderr[-800:]
    assert result.stderr.count("no writable directory for the compiled-kernel cache") == 1


# --- cache files that cannot be read back ----------------------------------------------------

CORRUPTIONS = {
    "truncated data": lambda path: path.write_bytes(path.read_bytes()[:100]) if path.suffix == ".nbc" else None,
    "garbage index": lambda path: path.write_text("garbage\n") if path.suffix == ".nbi" else None,
    "foreign data": lambda path: path.write_bytes(pickle.dumps(("not", "a", "kernel"))) if path.suffix == ".nbc"
    else None,
}


def _run_with_cache(cache: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=600)


@pytest.fixture(scope="module")
def written_cache(tmp_path_factory) -> Path:
    """A cache a real process wrote (compiled cold once for the module; each test corrupts a copy of it)."""
    folder = tmp_path_factory.mktemp("written")
    assert _run_with_cache(folder / "cache", folder).stdout.strip() == "royal flush"
    return folder / "cache"


@pytest.mark.slow
@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_an_unreadable_cache_is_recompiled_and_rewritten_with_one_warning(tmp_path, corruption, written_cache):
    """Real processes, a real cache on disk: corrupt its files, run again, then once more."""
    shutil.copytree(written_cache, tmp_path / "cache")

    def run() -> subprocess.CompletedProcess:
        return _run_with_cache(tmp_path / "cache", tmp_path)

    files = [p for p in (tmp_path / "cache").rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert files
    for path in files:
        CORRUPTIONS[corruption](path)
    recovered = run()
    assert recovered.returncode == 0 and recovered.stdout.strip() == "royal flush", recovered.stderr[-800:]
    assert recovered.stderr.count("compiled-kernel cache file under") == 1 and "Traceback" not in recovered.stderr
    again = run()  # the files were rewritten: read back without a word
    assert again.returncode == 0 and again.stdout.strip() == "royal flush" and again.stderr == ""


@pytest.mark.slow
@needs_namespaces
def test_a_full_disk_leaves_the_kernels_compiled_for_the_process_with_one_warning(tmp_path):
    """The cache on a real file system with no room left (an 8 KiB tmpfs in a private mount namespace): numba
    raised the failed write from the kernel's first call, so the command failed; now it runs, and says once
    that its kernels could not be cached."""
    cache = tmp_path / "cache"
    cache.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    shell = f"mount -t tmpfs -o size=8k tmpfs {cache} && cd {tmp_path} && exec {sys.executable} -c \"{PROGRAM}\""
    done = subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "royal flush", done.stderr[-800:]
    assert done.stderr.count("could not be written") == 1 and "No space left" in done.stderr, done.stderr[-800:]
    assert "Traceback" not in done.stderr


def test_the_command_line_prints_a_warning_as_one_line(capsys):
    from cpoker.cli import command as cli

    cli._warning_line(RuntimeWarning("cpoker: the cache was odd"), RuntimeWarning, "x.py", 1)
    cli._warning_line(UserWarning("something else"), UserWarning, "y.py", 2)
    assert capsys.readouterr().err == "cpoker: warning: the cache was odd\ncpoker: warning: something else\n"


@pytest.mark.slow
def test_a_kernel_recompiles_when_a_kernel_it_calls_changes_in_another_file(tmp_path):
    """numba stamps a cached kernel with its own file only; cpoker adds a digest of every kernel source.

    Real processes on a copy of the package: the table method's kernels (``_kernels/``) inlines the card-removal
    correction (``removal.py``).  Once ``removal.py`` adds 1 to every correction, a new process must see each
    of the three rows worth 1 more, not the cached kernel's old answer.
    """
    copy = tmp_path / "site"
    shutil.copytree(PACKAGE, copy / "cpoker", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(copy)}
    program = ("import cpoker; assert cpoker.__file__.startswith(%r); "
               "print(repr(cpoker.solve('As Ad Kc Kd Qs Jh Th 9c 7s 6d 4h 3c 2s', method='table').ev))" % str(copy))

    def run() -> float:
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=600)
        assert done.returncode == 0, done.stderr[-800:]
        return float(done.stdout)

    before = run()
    assert run() == before  # from the cache
    source = copy / "cpoker" / "_kernels" / "removal.py"
    text = source.read_text()
    assert text.count("out[i] = terms[0, i]") == 1
    source.write_text(text.replace("out[i] = terms[0, i]", "out[i] = terms[0, i] + 1.0"))
    assert run() == pytest.approx(before + 3, abs=1e-9)


def test_cached_kernels_load_without_refreshing_numba():
    """Loading a kernel from the cache skips numba's refresh of its compiler (0.12 s a command): a process in
    which a refresh would fail still loads and runs cached kernels (a plain one, the parallel policy, and the
    one-hand policy with its packed arguments)."""
    program = ("import numpy as np, cpoker\n"
               "keys = cpoker.evaluate_best_batch(np.array([[0, 1, 2, 3, 4, 5, 6]], dtype=np.uint8))\n"
               "hands = np.argsort(np.random.default_rng(1).random((200, 52)), axis=1)[:, :13].astype(np.uint8)\n"
               "from cpoker.strategies.policy import arrange_by_tables, default_tables\n"
               "rows = arrange_by_tables(hands, default_tables())\n"
               "print(int(keys[0]), [int(np.asarray(r, dtype=np.int64).sum()) for r in rows])\n"
               "print(cpoker.table(hands[0]))\n")
    first = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)  # fills it
    refusing = ("import numba.core.base\n"
                "def refuse(self): raise AssertionError('numba refreshed its target context')\n"
                "numba.core.base.BaseContext.refresh = refuse\n")
    second = subprocess.run([sys.executable, "-c", refusing + program], capture_output=True, text=True)
    assert second.returncode == 0, second.stderr[-2000:]
    assert second.stdout == first.stdout


LAZY_KERNELS = '''
import numpy as np
from cpoker.system.jit import jit


@jit
def inner(values):
    return values.sum() * 2.0


@jit
def outer(values):
    return inner(values) + 1.0
'''


def test_cached_kernels_parse_their_bitcode_only_when_a_compilation_links_them(tmp_path):
    """A kernel loaded from the cache runs without its LLVM bitcode parsed (3 ms a kernel); a kernel compiled
    later that calls it then parses and links it in, and both answer right.  Real processes, a real cache."""
    (tmp_path / "lazy_kernels.py").write_text(LAZY_KERNELS)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": f"{tmp_path}:{ROOT}"}
    fill = "import numpy as np, lazy_kernels; print(lazy_kernels.inner(np.arange(5.0)))"
    check = ("import numpy as np, lazy_kernels\n"
             "values = np.arange(5.0)\n"
             "first = lazy_kernels.inner(values)\n"
             "library = next(iter(lazy_kernels.inner.overloads.values())).library\n"
             "print(type(library).__name__, '_unparsed_bitcode' in vars(library))\n"
             "second = lazy_kernels.outer(values)  # not in the cache: compiled, with inner linked in\n"
             "print('_unparsed_bitcode' in vars(library), library._shared_module is not None, first, second)\n")
    for script, expected in ((fill, "20.0\n"), (check, "_LazyBitcodeLibrary True\nFalse True 20.0 21.0\n")):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout == expected


@pytest.mark.slow
def test_the_runtime_library_is_cached_with_the_kernels_and_a_damaged_copy_is_rebuilt(tmp_path):
    """numba compiles its runtime's functions in every process (~20 ms); cpoker keeps their machine code with
    the kernels.  Real processes on an empty cache: the first writes ``nrt-*.nbo``; the next runs kernels
    with numba's runtime compiler made to fail (so the copy was used); a damaged copy is reported once,
    compiled again and written over; then read back without a word."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    program = ("import numpy as np\n"  # a kernel of its own (a solve's 60 take half a minute to compile cold)
               "print(cpoker.evaluate_best_batch(np.array([[0, 1, 2, 3, 4, 5, 6]], dtype=np.uint8)))\n")
    refusing = ("import numba.core.runtime.nrtdynmod as runtime\n"
                "def refuse(context): raise AssertionError('numba compiled its runtime')\n"
                "runtime.compile_nrt_functions = refuse\n")

    def run(prefix: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", prefix + "import cpoker\n" + program], capture_output=True,
                              text=True, env=env, timeout=900)

    first = run()
    assert first.returncode == 0, first.stderr[-800:]
    [saved] = tmp_path.rglob("nrt-*.nbo")
    assert not list(tmp_path.rglob(".nrt-*"))  # no temporary file left behind
    again = run(refusing)
    assert again.returncode == 0 and again.stdout == first.stdout and again.stderr == "", again.stderr[-800:]
    data = bytearray(saved.read_bytes())
    data[len(data) // 2] ^= 0xFF
    saved.write_bytes(bytes(data))
    damaged = run()
    assert damaged.returncode == 0 and damaged.stdout == first.stdout
    assert damaged.stderr.count("could not be read") == 1 and "Traceback" not in damaged.stderr
    rewritten = run(refusing)
    assert rewritten.returncode == 0 and rewritten.stdout == first.stdout and rewritten.stderr == ""


def test_kernels_are_cached_in_the_users_folder_for_this_version_not_in_the_package(tmp_path, monkeypatch):
    from cpoker._version import __version__
    from cpoker.system.jit import user_cache_dir

    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "xdg"), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROGRAM + "; from cpoker.jobs.precompile import cache_directory; "
                           "print(cache_directory())"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-800:]
    described, directory = done.stdout.split("\n")[:2]
    assert described == "royal flush"
    assert Path(directory).is_relative_to(tmp_path / "xdg" / "cpoker" / __version__ / "kernels")
    assert any(Path(directory).glob("*.nbi"))
    assert not Path(directory).is_relative_to(PACKAGE)
    # a relative XDG_CACHE_HOME is no place: no folder of the user's (the temporary directory's is used instead)
    assert user_cache_dir() is not None
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")
    assert user_cache_dir() is None


@pytest.mark.slow
@pytest.mark.subprocess
def test_install_command_uninstall_then_editable_install_gives_a_working_cpoker(tmp_path):
    """pip left the compiled kernels' ``__pycache__`` in site-packages after an uninstall, and an editable install
    then imported that leftover folder as an empty namespace package.  The whole sequence, for real, in one new
    virtual environment (numpy and numba come from this one's, through a ``.pth`` file)."""
    import site
    import sysconfig

    source = tmp_path / "src"
    shutil.copytree(PACKAGE, source / "cpoker", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    deps = tmp_path / "deps"  # this environment's packages, less any cpoker it has (CI's is a regular install)
    deps.mkdir()
    for folder in dict.fromkeys([sysconfig.get_paths()["purelib"], *site.getsitepackages()]):
        for entry in Path(folder).iterdir():
            if not entry.name.lower().startswith(("cpoker", "__editable__", "_cpoker")) and entry.suffix != ".pth" \
                    and not (deps / entry.name).exists():
                (deps / entry.name).symlink_to(entry)
    (purelib / "outer.pth").write_text(f"{deps}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CACHE", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "home" / ".cache"))

    def run(*argv: str, cwd: Path = tmp_path) -> subprocess.CompletedProcess:
        done = subprocess.run(list(argv), cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, (argv, done.stdout[-1500:], done.stderr[-1500:])
        return done

    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "--no-input"]
    run(*pip, "install", "--quiet", "--no-deps", str(source))
    assert run(str(venv / "bin" / "cpoker"), "eval", "As Ks Qs Js Ts").stdout.startswith("As Ks Qs Js Ts: royal flush")
    assert run(str(python), "-c", PROGRAM).stdout.strip() == "royal flush"  # compiles and caches a kernel
    assert not list((purelib / "cpoker").rglob("*.nbi")), "kernels cached inside the installed package"
    assert list((tmp_path / "home" / ".cache" / "cpoker").rglob("*.nbi"))
    run(*pip, "uninstall", "--yes", "cpoker")
    assert not (purelib / "cpoker").exists(), "pip uninstall left part of the package behind"
    run(*pip, "install", "--quiet", "--no-deps", "--editable", str(source))
    assert run(str(python), "-c", PROGRAM).stdout.strip() == "royal flush"
    assert run(str(python), "-c", "import cpoker; print(cpoker.__file__)").stdout.strip() == \
        str(source / "cpoker" / "__init__.py")
    assert run(str(venv / "bin" / "cpoker"), "eval", "As Ks Qs Js Ts").stdout.startswith("As Ks Qs Js Ts: royal flush")
