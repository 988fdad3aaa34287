"""Every file cpoker reads or writes goes through here.

Writes are atomic: the data goes to a temporary file in the target's
directory, is flushed to disk, and then replaces the target with
``os.replace`` -- a reader sees the old file or the new one, never half of
one, and an interrupted or failed write leaves the old file untouched.
Reads are capped in size and decoded strictly, so a binary, Latin-1 or
gigabyte-sized file gives a clear error instead of a traceback or a stall.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Type

from .errors import CpokerError, OptionError

MAX_INPUT_BYTES = 16 * 2**20  # deal files, rules files: real ones are a few hundred bytes


def _reason(error: OSError) -> str:
    return error.strerror or error.__class__.__name__


def check_writable(path: "str | os.PathLike") -> Path:
    """Fail early (before a long job) unless ``path`` can be written atomically.

    Its directory must exist and be writable, and the path itself must not be
    a directory.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise OptionError(f"cannot write {path}: it is a directory")
    if not directory.is_dir():
        raise OptionError(f"cannot write {path}: directory {directory} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=f".{target.name}.", suffix=".check"):
            pass
    except OSError as error:
        raise OptionError(f"cannot write {path}: {_reason(error)}") from None
    return target


def atomic_write(path: "str | os.PathLike", data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see the module docstring).

    Raises
    ------
    OptionError
        When the directory is missing or not writable, or the target is a directory.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        try:  # mkstemp makes the file 0600; give it what a plain open() would
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        except OSError:
            pass
        os.replace(temporary, target)
        temporary = None
    except OSError as error:
        if target.is_dir():
            raise OptionError(f"cannot write {path}: it is a directory") from None
        raise OptionError(f"cannot write {path}: {_reason(error)}") from None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


def read_text(path: "str | os.PathLike", what: str, error: Type[CpokerError] = OptionError) -> str:
    """The UTF-8 text of a small file, or ``error`` naming what is wrong with it."""
    target = Path(path)
    try:
        with open(target, "rb") as stream:
            data = stream.read(MAX_INPUT_BYTES + 1)
    except IsADirectoryError:
        raise error(f"cannot read {what} {path}: it is a directory") from None
    except OSError as failure:
        raise error(f"cannot read {what} {path}: {_reason(failure)}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise error(f"{what} {path} is larger than {MAX_INPUT_BYTES // 2**20} MiB; is it the right file?")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as failure:
        raise error(f"{what} {path} is not UTF-8 text (byte {failure.start}: "
                    f"{data[failure.start:failure.start + 1]!r})") from None
