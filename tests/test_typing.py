"""The package says "Typing :: Typed" (and ships ``py.typed``): every public function and method is annotated.

mypy checks the package in CI (``.ci/run``, configured in ``pyproject.toml``); this test checks what it cannot
insist on without checking every private helper too: that a user's type checker sees no untyped public call.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Protocol

import cpoker


def _unannotated(qualified: str, function) -> list[str]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature
        return []
    missing = [f"{qualified}({p.name})" for p in signature.parameters.values()
               if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty and not qualified.endswith("__init__"):
        missing.append(f"{qualified} -> ?")
    return missing


def _public_callables():
    for name in cpoker.__all__:
        value = getattr(cpoker, name)
        if not inspect.isclass(value):
            if callable(value):
                yield name, value
            continue
        if issubclass(value, BaseException) or Protocol in value.__mro__:
            continue  # exceptions take a message; a Protocol's __init__ is typing's
        for attribute, member in vars(value).items():
            if attribute.startswith("_") and attribute != "__init__":
                continue
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if isinstance(member, property):
                member = member.fget
            if inspect.isfunction(member):
                yield f"{name}.{attribute}", member


def test_every_public_function_and_method_is_annotated():
    missing = [gap for name, function in _public_callables() for gap in _unannotated(name, function)]
    assert missing == []


def test_the_marker_ships_with_the_package():
    assert (Path(cpoker.__file__).parent / "py.typed").is_file()
    assert '"py.typed"' in (Path(cpoker.__file__).parents[1] / "pyproject.toml").read_text()
