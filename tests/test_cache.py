"""cpoker works when numba cannot cache where it wants to.

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
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cpoker

PACKAGE = Path(cpoker.__file__).resolve().parent
ROOT = PACKAGE.parent


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount --bind -o ro {PACKAGE} {PACKAGE}"],
                           capture_output=True)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _namespaces_work(), reason="needs unshare -rm (user and mount namespaces)")

# evaluate_batch runs a kernel (a single evaluate() is a Python lookup and compiles nothing)
PROGRAM = ("import cpoker, warnings; warnings.simplefilter('default'); "
           "from cpoker.evaluation import describe_key; "
           "print(describe_key(int(cpoker.evaluate_batch([[12, 11, 10, 9, 8]])[0])))")


def _run_read_only(tmp_path: Path, script: str, extra_mounts: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    env.update(HOME="/proc/no-home", TMPDIR=str(tmp_path), PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(ROOT))
    shell = (f"mount --bind -o ro {PACKAGE} {PACKAGE} && {extra_mounts} "
             f"cd {tmp_path} && exec {sys.executable} -c \"{script}\"")
    return subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True, env=env,
                          timeout=600)


def test_read_only_install_without_a_home_caches_in_the_temporary_directory(tmp_path):
    first = _run_read_only(tmp_path, PROGRAM)
    assert first.returncode == 0 and first.stdout.strip() == "royal flush", first.stderr[-800:]
    assert "no locator" not in first.stderr and "Warning" not in first.stderr
    cache = tmp_path / f"cpoker-numba-cache-{os.getuid()}"
    assert any(cache.rglob("*.nbi")), "the fallback cache directory holds the compiled kernels"
    again = _run_read_only(tmp_path, PROGRAM)
    assert again.returncode == 0 and again.stdout.strip() == "royal flush"


def test_nowhere_writable_compiles_without_a_cache_and_says_so_once(tmp_path):
    fallback = tmp_path / f"cpoker-numba-cache-{os.getuid()}"
    fallback.mkdir()
    read_only_fallback = f"mount -t tmpfs -o ro tmpfs {fallback} && "  # the last resort cannot be written either
    result = _run_read_only(tmp_path, PROGRAM, read_only_fallback)
    assert result.returncode == 0 and result.stdout.strip() == "royal flush", result.stderr[-800:]
    assert result.stderr.count("no writable directory for the compiled-kernel cache") == 1
