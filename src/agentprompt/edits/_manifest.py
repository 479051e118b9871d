"""The journal's manifest read back from disk: untrusted input, checked field by field.

A manifest may have been planted (a cloned repository can carry one) or damaged, so every
path goes through :mod:`~agentprompt.edits.paths`, a backup must be one of the journal's own
``orig-N`` files, a temporary name must be one the applier uses, a mode is masked to its
permission bits, and a created file's digest must be a SHA-256 digest.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

from agentprompt.edits.paths import TEMP_NAME, PathTooLong, resolve_inside

__all__ = ["BACKUP", "VERSION", "checked"]

VERSION = 2
"""The manifest format written (and the only one read back)."""
BACKUP = re.compile(r"^orig-\d+$")
"""The names of the journal's copies of original files."""
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


def _inside(root: Path, path: str) -> None:
    """Refuse a recorded path that leaves the root; one too long to exist is let through
    (rollback skips it), so that such a journal can still be recovered."""
    with contextlib.suppress(PathTooLong, OSError):
        resolve_inside(root, path)


def _checked_entry(root: Path, entry: object) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ValueError("a file entry is not an object")
    path, backup, mode = entry.get("path"), entry.get("backup"), entry.get("mode")
    temp, after = entry.get("temp"), entry.get("after")
    if not isinstance(path, str):
        raise ValueError("a file entry has no path")
    _inside(root, path)
    if backup is not None and not (isinstance(backup, str) and BACKUP.match(backup)):
        raise ValueError(f"backup name {backup!r} is not one the applier writes")
    if mode is not None and (not isinstance(mode, int) or isinstance(mode, bool)):
        raise ValueError(f"mode {mode!r} is not a number")
    if not isinstance(temp, str) or "/" in temp or not TEMP_NAME.match(temp):
        raise ValueError(f"temporary name {temp!r} is not one the applier uses")
    if after is not None and not (isinstance(after, str) and _DIGEST.match(after)):
        raise ValueError("a file entry's digest is malformed")
    return {
        "path": path,
        "backup": backup,
        "mode": None if mode is None else mode & 0o777,
        "temp": temp,
        "after": after,
    }


def checked(root: Path, data: object) -> dict[str, Any]:
    """The manifest, every field checked (it is read back from disk, so untrusted)."""
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise ValueError("not a manifest this version of agentprompt writes")
    files, dirs = data.get("files"), data.get("dirs")
    if not isinstance(files, list) or not isinstance(dirs, list):
        raise ValueError("'files' and 'dirs' must be lists")
    checked = [_checked_entry(root, entry) for entry in files]
    for d in dirs:
        if not isinstance(d, str):
            raise ValueError("a directory entry is not a string")
        _inside(root, d)
    return {"version": VERSION, "files": checked, "dirs": dirs}
