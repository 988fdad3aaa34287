"""Root pytest configuration: the test tiers, the signals the suite runs with, and no process left behind.

* **Tiers.**  ``python -m pytest`` runs the default tier: everything but the tests marked ``slow`` and the
  notebooks, in a few minutes.  ``python -m pytest --full`` runs everything (the notebooks with small sample
  sizes), with more hypothesis examples.  CI runs the default tier, then the rest of the full one.
* **Signals.**  A suite started as a background job (``nohup``, ``trap '' INT``, a CI runner) inherits SIGINT
  ignored, and every child a test starts would inherit it too: cpoker rightly keeps an ignored signal ignored,
  so the tests of Ctrl-C would fail.  The suite runs with SIGINT and SIGTERM at their defaults whatever started
  it, and so does every child it starts.
* **Processes.**  Whatever a test starts (its children, and theirs) and leaves running, pass or fail, is killed
  with its process group when the test ends.
"""

from __future__ import annotations

import os
import signal

import pytest
from hypothesis import settings

os.environ.setdefault("CPOKER_NOTEBOOK_QUICK", "1")  # read by every notebook; kernels inherit it
os.environ.setdefault("MPLBACKEND", "Agg")

settings.register_profile("default", max_examples=25, deadline=None)
settings.register_profile("full", max_examples=200, deadline=None)

# processes of the interpreter's own that outlive a test by design, reused by the next one
_SHARED_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true",
                     help="run the full tier: the tests marked slow and the notebooks too, with more examples")


def pytest_configure(config):
    settings.load_profile("full" if config.getoption("--full") else "default")
    for signum, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
        if signal.getsignal(signum) == signal.SIG_IGN:  # started as a background job: children would inherit it
            signal.signal(signum, default)


def pytest_collection_modifyitems(config, items):
    """Notebooks are marked ``notebook``; outside ``--full``, the ``slow`` tests and the notebooks are left out.
    The cold ``cpoker compile`` of test_precompile runs first: in a new checkout it fills the kernel cache that
    the rest of the run then reads (see ``test_precompile.cold_suite_cache``)."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.notebook)
    if not config.getoption("--full"):
        kept = [item for item in items if not any(item.get_closest_marker(name) for name in ("slow", "notebook"))]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[item for item in items if item not in kept])
            items[:] = kept
    items.sort(key=lambda item: item.name != "test_after_cpoker_compile_no_command_compiles_a_kernel")  # stable


def _descendants(pid: int) -> dict[int, str]:
    """The living processes below ``pid`` (children, theirs...), with their command lines, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            if fields[0] != "Z":  # (a zombie is already dead: its parent reaps it)
                children.setdefault(int(fields[1]), []).append(int(entry))
    found: dict[int, str] = {}
    pending = [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            try:
                with open(f"/proc/{child}/cmdline", "rb") as cmdline:
                    found[child] = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            pending.append(child)
    return found


@pytest.fixture(autouse=True)
def no_process_left_behind():
    """Kill, with its process group, every process the test started that is still running when it ends."""
    if not os.path.isdir("/proc"):  # (not Linux: nothing to read the process tree from)
        yield
        return
    before = set(_descendants(os.getpid()))
    yield
    own_group, killed = os.getpgrp(), []
    for pid, command in _descendants(os.getpid()).items():
        if pid in before or any(helper in command for helper in _SHARED_HELPERS):
            continue
        try:
            group = os.getpgid(pid)
            if group != own_group:
                os.killpg(group, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except (ProcessLookupError, PermissionError):
            pass
    for pid in killed:  # reap those that are our own children, so that no zombie is left either
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # a grandchild (its parent, killed too, is reaped) or reaped already
            pass
