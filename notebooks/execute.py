"""Re-run the notebooks at full size and store their outputs: ``python notebooks/execute.py [NAME ...]``.

Needs the ``notebooks`` extra (and ``bench`` for 03).  The test command runs
them too, at small sizes and without saving (nbmake).
"""

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


def main(names: list[str]) -> None:
    for path in [HERE / f"{n}.ipynb" for n in names] or sorted(HERE.glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        started = time.perf_counter()
        NotebookClient(notebook, timeout=7200, kernel_name="python3",
                       resources={"metadata": {"path": str(HERE)}}).execute()
        nbformat.write(notebook, path)
        print(f"{path.name}: executed in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
