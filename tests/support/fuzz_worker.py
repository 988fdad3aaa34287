"""The fuzz suite's worker: runs cases sent as JSON lines, in a process with a memory cap.

Each input line is a case, ``{"cli": [argv...]}`` or ``{"api": name, "args": [...],
"kwargs": {...}}``; each output line is its outcome: ``ok``, ``error`` (a clean
cpoker error: for the CLI, status 2 and one line on standard error) or
``crash`` (anything else: a traceback, another status, a non-cpoker
exception, a ``MemoryError`` from the cap), with details.  The test process
enforces a deadline per case and kills the worker if one hangs.
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import sys
import traceback

MEMORY_CAP = 3 * 2**30  # address space: numba and the tables need ~1 GiB; a gigabyte allocation trips it


def _api(name: str):
    import numpy as np

    import cpoker

    if name == "evaluate_batch_array":
        def call(data, dtype):
            try:
                array = np.array(data, dtype=dtype)
            except (ValueError, TypeError, OverflowError):  # numpy refuses it: give cpoker the raw lists
                array = data
            return cpoker.evaluate_batch(array)
        return call
    if name == "Arrangement.parse":
        return cpoker.Arrangement.parse
    if name == "Rules":
        return cpoker.Rules
    return getattr(cpoker, name)


def _one_error(text: str) -> bool:
    """One line on standard error; or a review's bad lines: ``cpoker: error: ... reviews the others):``, then one
    indented line for each bad input line (``  line N: reason``, ``  and N more``).  Warnings (``--skip-bad``'s
    skipped lines) may come before it."""
    lines = [line for line in text.splitlines() if not line.startswith("cpoker: warning:")]
    if "Traceback" in text or len(lines) < 1 or not text.endswith("\n"):
        return False
    return len(lines) == 1 or (lines[0].startswith("cpoker: error:") and lines[0].endswith("reviews the others):")
                               and all(line.startswith(("  line ", "  and ")) for line in lines[1:]))


def run_case(case: dict) -> dict:
    from cpoker import CpokerError
    from cpoker.cli import main

    if "cli" in case:
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    status = main(case["cli"])
                except SystemExit as stop:  # argparse
                    status = stop.code
        except BaseException:  # noqa: B036 - everything that escapes is a finding
            return {"outcome": "crash", "detail": traceback.format_exc()[-1500:]}
        text = err.getvalue()
        if status == 0 and "Traceback" not in text:
            return {"outcome": "ok"}
        if status == 2 and _one_error(text):
            return {"outcome": "error", "detail": text.strip()}
        return {"outcome": "crash", "detail": f"status {status}: {text[-1500:]}"}
    try:
        _api(case["api"])(*case.get("args", []), **case.get("kwargs", {}))
    except CpokerError as error:
        message = str(error)
        if not message or "\n" in message:
            return {"outcome": "crash", "detail": f"unclear error message {message!r}"}
        return {"outcome": "error", "detail": message}
    except BaseException:  # noqa: B036
        return {"outcome": "crash", "detail": traceback.format_exc()[-1500:]}
    return {"outcome": "ok"}


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    import cpoker  # noqa: F401  (import and load the kernels once, before the first case)

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        result = run_case(json.loads(line))
        result["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
