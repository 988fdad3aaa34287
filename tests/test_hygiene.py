"""The suite does not depend on how it was started, and leaves no process behind (see the root conftest.py).

Real nested pytest runs, in real processes: one started with SIGINT ignored and no terminal, as a background
job or a CI runner starts it; one whose test leaves a child running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ignoring_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
@pytest.mark.signals
def test_a_real_signal_test_passes_in_a_suite_started_with_sigint_ignored():
    """``setsid bash -c "trap '' INT; python -m pytest ..."``: SIGINT ignored, no controlling terminal.  The
    real-signal test of a simulation still sees its Ctrl-C acted on, because the suite puts SIGINT back to its
    default for itself and so for every child it starts."""
    test = "tests/system/test_interrupts.py::test_real_signals_at_several_moments_give_only_clean_outcomes[simulate]"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                          preexec_fn=_ignoring_sigint, start_new_session=True)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]


LEAKING_TEST = '''
import subprocess, sys

def test_leaves_a_child_running(tmp_path_factory):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    open({path!r}, "w").write(f"{{child.pid}} {{grandchild.pid}}")
    assert False, "a failing test: its children must go all the same"
'''


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.subprocess
def test_a_failing_test_leaves_no_process_running(tmp_path):
    """A test that starts a child in a process group of its own and one in the suite's, then fails: both are
    killed when it ends, before the run goes on."""
    pids = tmp_path / "pids"
    (tmp_path / "test_leak.py").write_text(textwrap.dedent(LEAKING_TEST.format(path=str(pids))))
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest",
                           "--rootdir", str(tmp_path), str(tmp_path / "test_leak.py")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 1 and "1 failed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
    started = [int(pid) for pid in pids.read_text().split()]
    deadline = time.monotonic() + 60  # (a loaded machine may take a while)
    while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in started if _alive(pid)]
    for pid in left:  # (tidy up after a failure of this test: they are no longer anybody's children)
        os.kill(pid, signal.SIGKILL)
    assert not left
