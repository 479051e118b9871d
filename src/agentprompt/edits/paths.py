"""Path safety: every path a reply names must resolve to a plain file inside the root.

A model's reply is untrusted input. Before any content is read or written, each path is
checked: no NUL bytes, no absolute paths or drive letters, no ``..``, nothing under
``.git/`` or the applier's own journal, no symlink (anywhere on the way) that leads out of
the root, and no device file, FIFO, socket or directory where a file is expected.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from agentprompt.edits.actions import EditError

__all__ = ["JOURNAL_DIR", "UnsafePath", "check_target", "resolve_inside"]

JOURNAL_DIR = ".agentprompt/journal"
"""Where the applier keeps its journal, relative to the root; replies may not touch it."""


class UnsafePath(EditError):
    """A path that could leave the root or damage the repository; it is refused."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"refused path {path!r}: {reason}")


def _is_inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def resolve_inside(root: Path, path: str) -> Path:
    """The real location of ``path`` (relative to ``root``), refused if it is unsafe.

    Symlinks inside the root are followed (the real file is what gets written); the result
    is an absolute path under the real root. Raises :class:`UnsafePath` with the reason.
    """
    if not path or not path.strip():
        raise UnsafePath(path, "the path is empty")
    if "\0" in path:
        raise UnsafePath(path, "the path holds a NUL byte")
    posix = path.replace("\\", "/")
    if posix.startswith("/") or (len(posix) > 1 and posix[1] == ":" and posix[0].isalpha()):
        raise UnsafePath(path, "absolute paths are not allowed; give a path relative to the root")
    parts = [p for p in PurePosixPath(posix).parts if p not in ("", ".")]
    if not parts:
        raise UnsafePath(path, "the path names the root itself, not a file")
    if ".." in parts:
        raise UnsafePath(path, "'..' is not allowed; give a path inside the root")
    if any(p.lower() == ".git" for p in parts):
        raise UnsafePath(path, "files under .git/ are never changed")
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, *parts))
    if not _is_inside(real, real_root):
        raise UnsafePath(path, "a symlink on the way leads outside the root")
    inner = Path(os.path.relpath(real, real_root)).parts if real != real_root else ()
    if not inner:
        raise UnsafePath(path, "the path resolves to the root itself, not a file")
    if any(p.lower() == ".git" for p in inner):
        raise UnsafePath(path, "a symlink on the way leads into .git/")
    if tuple(p.lower() for p in inner[:2]) == tuple(JOURNAL_DIR.split("/")):
        raise UnsafePath(path, "the applier's journal directory is not editable")
    return Path(real)


def check_target(real: Path, path: str) -> bool:
    """Whether the resolved ``real`` path exists; refuse it unless it is a regular file."""
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        raise UnsafePath(path, "a part of the path is a file, not a directory") from None
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return True
    if stat.S_ISDIR(mode):
        raise UnsafePath(path, "it is a directory, not a file")
    if stat.S_ISFIFO(mode):
        raise UnsafePath(path, "it is a FIFO (named pipe), not a regular file")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise UnsafePath(path, "it is a device file, not a regular file")
    if stat.S_ISSOCK(mode):
        raise UnsafePath(path, "it is a socket, not a regular file")
    raise UnsafePath(path, "it is not a regular file")
