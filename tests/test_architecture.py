"""The house rules of the package, checked by machine (docs/how-it-works.md draws the layers).

* the import-linter contracts of ``pyproject.toml`` hold: the layers, top to bottom, and the forbidden imports;
* no import cycle, every import counted (module level, deferred inside functions, under ``TYPE_CHECKING``),
  found by this file's own reading of the sources, independent of import-linter;
* no module over 700 lines;
* no module imports another's underscore name: what modules share is public.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cpoker"
MAX_LINES = 700


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(path: Path, known: dict) -> set[str]:
    """The cpoker modules that ``path`` imports, by any import statement anywhere in it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # a name inside a module: the module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_import_contracts_hold():
    """lint-imports with the contracts of pyproject.toml: the layers (exhaustive: every module of the package
    has one) and the forbidden imports.  Adding an upward import, deferred or not, fails this test."""
    command = Path(sys.executable).with_name("lint-imports")
    command = str(command) if command.exists() else shutil.which("lint-imports")
    assert command, "lint-imports is not installed: pip install '.[test]'"
    done = subprocess.run([command, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_no_import_cycle_counting_every_import():
    known = modules()
    graph = {name: imported(path, known) - {"cpoker"} for name, path in known.items()}
    assert cycles(graph) == []
    # the package root re-exports the API lazily; nothing inside the package imports it
    assert not [name for name, targets in graph.items() if "cpoker" in imported(known[name], known)
                and name.split(".")[1] not in ("cli", "web")]


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_is_over_700_lines():
    lengths = {name: len(path.read_text().splitlines()) for name, path in modules().items()}
    assert {name: count for name, count in lengths.items() if count > MAX_LINES} == {}


def test_no_module_imports_an_underscore_name_of_another():
    shared = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                shared += [f"{name}: {node.module}.{alias.name}" for alias in node.names
                           if alias.name.startswith("_") and not alias.name.startswith("__")
                           and not (node.module is None and alias.name in ("_jit", "_notice", "_kernels"))]
    assert shared == []


def test_no_module_names_a_cpoker_module_in_a_string_to_import_it():
    """No ``"cpoker.x:f"`` plug-in path or ``import_module("cpoker.x")``: an import by name hides an edge from the
    contracts and the cycle test (the ``mc`` strategy was loaded that way; the jobs resolve it now)."""
    import re

    by_name = re.compile(r"cpoker(\.\w+)+(:\w+)?")
    found = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                    "import_module", "load_plugin", "__import__"):
                found += [f"{name}: {ast.unparse(node)}" for arg in node.args[:1]
                          if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                          and by_name.fullmatch(arg.value)]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(
                    r"cpoker(\.\w+)+:\w+", node.value):
                found.append(f"{name}: {node.value!r}")
    assert found == []
