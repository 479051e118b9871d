"""File operations the journal relies on: never through a symlink, never over a file.

Files are created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (a planted file or symlink makes the
creation fail instead of redirecting it), read with ``O_NOFOLLOW``, and a directory the
journal uses must be a real directory. :func:`locked` keeps two applies apart.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from agentprompt.edits.actions import EditError
from agentprompt.errors import literal

__all__ = [
    "ApplyBusy",
    "create_new",
    "fsync_dir",
    "journal_unsafe",
    "link_or_copy",
    "locked",
    "plain_dir",
    "read_plain",
    "write_all",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NO_LINK = frozenset(
    {errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}
)
"""The errors of a file system (or a mount boundary) that has no hard links to give."""


def journal_unsafe(where: Path, problem: str) -> EditError:
    """The journal's place is not a plain directory of the applier's (a symlink, a file, or a
    directory holding other files); nothing is written through it."""
    return EditError(f"{where}: {problem}; remove it by hand, then apply again")


class ApplyBusy(EditError):
    """Another apply (or recovery) holds the lock on the same root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        super().__init__(
            f"another {{apply}} is running in {literal(str(root))}",
            fix="wait for it to finish",
        )


_HELD: set[tuple[int, int, int]] = set()
"""The roots this process holds the lock of: (thread, device, inode)."""


@contextlib.contextmanager
def locked(root: Path, *, wait: float = 0.0) -> Iterator[None]:
    """Hold an exclusive lock on ``root`` (``flock`` on the directory itself, so no file is
    created); raises :class:`ApplyBusy` when another apply still holds it after ``wait``
    seconds. A thread that already holds it (a caller's critical section around an apply)
    takes it again at once."""
    fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        info = os.fstat(fd)
        key = (threading.get_ident(), info.st_dev, info.st_ino)
        if key in _HELD:
            yield
            return
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ApplyBusy(root) from None
                time.sleep(0.01)
        _HELD.add(key)
        try:
            yield
        finally:
            _HELD.discard(key)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """fsync a directory (so a rename in it is durable); errors are ignored."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def create_new(path: Path, data: bytes, mode: int | None) -> None:
    """Write a file that must not exist yet (never through a symlink), and fsync it.

    If the write fails (a full disk), the half-written file is removed before the error is
    raised, so that its blocks are free again for whatever runs next (a rollback).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666)
    try:
        write_all(fd, data)
        if mode is not None:
            os.fchmod(fd, mode & 0o777)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.close(fd)


def link_or_copy(source: Path, target: Path, data: bytes) -> None:
    """Make ``target`` (which must not exist) hold ``data``, the bytes of ``source``: by a
    hard link when the file system allows one (no data is written, so it works on a full
    disk), else by writing a copy (also when ``source`` is gone)."""
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in _NO_LINK and exc.errno != errno.ENOENT:
            raise
        create_new(target, data, None)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_plain(path: Path) -> bytes:
    """A regular file's bytes, never through a symlink."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def plain_dir(path: Path) -> bool:
    """``path`` is a real directory (not a symlink); false when absent; refused otherwise."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        raise journal_unsafe(path, "the journal's place is a symlink or a file, not a directory")
    return True
