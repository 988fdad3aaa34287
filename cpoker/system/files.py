"""Every file cpoker reads or writes goes through here.

Writes are atomic: the data goes to a temporary file in the target's
directory, is flushed to disk, and then replaces the target with
``os.replace`` -- a reader sees the old file or the new one, never half of
one, and an interrupted or failed write leaves the old file untouched.  A
path through a symbolic link is written where the link points (the link
stays); a device, a FIFO or a socket is refused, as the rename would replace it.
Reads are capped in size and decoded strictly, so a binary, Latin-1 or
gigabyte-sized file gives a clear error instead of a traceback or a stall.
"""

from __future__ import annotations

import io
import os
import tempfile
import zipfile  # (imported with the module: np.load reads an .npz through it, under whatever memory is left then)
from pathlib import Path
from typing import Type

from cpoker.system.errors import CpokerError, OptionError

MAX_INPUT_BYTES = 16 * 2**20  # deal files, rules files: real ones are a few hundred bytes
READ_PIECE = 2**20  # bytes read at a time: ``read(limit)`` would first allocate ``limit`` bytes, whatever the size


def _reason(error: OSError) -> str:
    return error.strerror or error.__class__.__name__


def _resolved(path: "str | os.PathLike") -> Path:
    """``path``, or where it links to: a file reached through a symbolic link is written where the link points,
    so the link stays a link (the atomic rename would otherwise replace the link itself)."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def _refuse_special(target: Path, path) -> None:
    """Refuse to replace anything but a regular file (or a link to one) or nothing."""
    if target.is_dir():
        raise OptionError(f"cannot write {path}: it is a directory")
    if target.exists() and not target.is_file():
        raise OptionError(f"cannot write {path}: it is not a regular file (a device, a FIFO or a socket), "
                          "which writing would replace")


def check_writable(path: "str | os.PathLike") -> Path:
    """Fail early (before a long job) unless ``path`` can be written atomically.

    Its directory must exist and be writable, and the path itself must not be
    a directory or another special file (a device, a FIFO, a socket), which
    the atomic rename would replace with a regular file.
    """
    target = _resolved(path)
    directory = target.parent if str(target.parent) else Path(".")
    _refuse_special(target, path)
    if not directory.is_dir():
        raise OptionError(f"cannot write {path}: directory {directory} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=f".{target.name}.", suffix=".check"):
            pass
    except OSError as error:
        raise OptionError(f"cannot write {path}: {_reason(error)}") from None
    return Path(path)  # as given: atomic_write resolves a link again when it writes


def atomic_write(path: "str | os.PathLike", data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see the module docstring).

    Raises
    ------
    OptionError
        When the directory is missing or not writable, or the target is a directory or another special file.
    """
    target = _resolved(path)
    directory = target.parent if str(target.parent) else Path(".")
    _refuse_special(target, path)
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


class AtomicStream:
    """A text file written piece by piece and put in place whole: the pieces go to a temporary file in the
    target's directory, and :meth:`commit` flushes it to disk and renames it over the target (a reader sees the
    old file or the whole new one); :meth:`discard` drops it, leaving the target as it was.  ``keep=True`` starts
    from the target's present content (a job resumed adds to what it wrote).

    Raises
    ------
    OptionError
        As :func:`atomic_write`, when the target cannot be written or (``keep``) read.
    """

    def __init__(self, path: "str | os.PathLike", keep: bool = False) -> None:
        self.path = path
        self.target = _resolved(path)
        directory = self.target.parent if str(self.target.parent) else Path(".")
        _refuse_special(self.target, path)
        try:
            handle, self.temporary = tempfile.mkstemp(dir=directory, prefix=f".{self.target.name}.", suffix=".tmp")
        except OSError as error:
            raise OptionError(f"cannot write {path}: {_reason(error)}") from None
        self.stream = os.fdopen(handle, "w", encoding="utf-8", newline="\n")
        self.finished = False
        if keep and self.target.exists():
            try:
                with open(self.target, encoding="utf-8") as old:
                    while piece := old.read(READ_PIECE):
                        self.stream.write(piece)
            except (OSError, UnicodeDecodeError) as error:
                self.discard()
                raise OptionError(f"cannot add to {path}: {getattr(error, 'strerror', None) or error}") from None

    def write(self, text: str) -> None:
        try:
            self.stream.write(text)
        except OSError as error:
            self.discard()
            raise OptionError(f"cannot write {self.path}: {_reason(error)}") from None

    def commit(self) -> None:
        """Put the file in place (once; later calls do nothing)."""
        if self.finished:
            return
        try:
            self.stream.flush()
            os.fsync(self.stream.fileno())
            self.stream.close()
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self.temporary, 0o666 & ~umask)
            os.replace(self.temporary, self.target)
            self.finished = True
        except OSError as error:
            self.discard()
            raise OptionError(f"cannot write {self.path}: {_reason(error)}") from None

    def discard(self) -> None:
        """Drop what was written (once; after :meth:`commit`, nothing)."""
        if self.finished:
            return
        self.finished = True
        self.stream.close()
        try:
            os.unlink(self.temporary)
        except OSError:
            pass


def read_bytes(path: "str | os.PathLike", what: str, error: Type[CpokerError] = OptionError,
               limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a file of at most ``limit`` bytes, or ``error`` naming what is wrong with it.

    A FIFO is opened without waiting for a writer, so one that nobody writes
    to reads as empty instead of hanging (a pipe that is being written, such
    as ``/dev/stdin`` after ``|``, reads as usual).  The file is read in
    pieces of :data:`READ_PIECE`: memory follows its size, not ``limit``.
    """
    try:
        nonblocking = getattr(os, "O_NONBLOCK", 0)  # POSIX; elsewhere a FIFO is opened as usual
        descriptor = os.open(path, os.O_RDONLY | nonblocking)
        with os.fdopen(descriptor, "rb") as stream:
            if nonblocking:
                os.set_blocking(descriptor, True)  # from here, wait for a writer's data as any reader does
            pieces, size = [], 0
            while size <= limit:
                piece = stream.read(min(READ_PIECE, limit + 1 - size))
                if not piece:
                    break
                pieces.append(piece)
                size += len(piece)
    except IsADirectoryError:
        raise error(f"cannot read {what} {path}: it is a directory") from None
    except OSError as failure:
        raise error(f"cannot read {what} {path}: {_reason(failure)}") from None
    if size > limit:
        raise error(f"{what} {path} is larger than {limit // 2**20} MiB; is it the right file?")
    return b"".join(pieces)


def read_text(path: "str | os.PathLike", what: str, error: Type[CpokerError] = OptionError) -> str:
    """The UTF-8 text of a small file, or ``error`` naming what is wrong with it."""
    data = read_bytes(path, what, error)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as failure:
        raise error(f"{what} {path} is not UTF-8 text (byte {failure.start}: "
                    f"{data[failure.start:failure.start + 1]!r})") from None


def read_json(path: "str | os.PathLike", what: str, error: Type[CpokerError] = OptionError) -> object:
    """The JSON value of a small file, or ``error`` naming what is wrong with it.

    Invalid JSON, a number of thousands of digits and absurd nesting (Python's
    parser recurses) are all refused the same way, with the parser's reason.
    """
    import json

    text = read_text(path, what, error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as failure:
        raise error(f"{what} {path} is not valid JSON: {failure.msg} at line {failure.lineno}") from None
    except (ValueError, RecursionError) as failure:  # a 5,000-digit number, absurd nesting
        raise error(f"{what} {path} cannot be read: {str(failure)[:100]}") from None


def npz_bytes(arrays: dict) -> bytes:
    """An ``.npz`` archive of ``arrays`` (name -> array) that depends on nothing but them: no time stamp, the
    order given, deflated; what a rebuild byte for byte compares."""
    import numpy as np

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            archive.writestr(info, buffer.getvalue())
    return out.getvalue()
