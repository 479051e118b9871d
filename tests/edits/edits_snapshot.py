"""One snapshot of a directory tree for the edit engine's tests: files, directories,
symlinks, and (when asked) modes and modification times, to prove nothing changed."""

from __future__ import annotations

import os
from pathlib import Path

Entry = tuple[str, bytes | None, int | None, int | None]


def snapshot(root: Path, *, meta: bool = False) -> dict[str, Entry]:
    """Every entry under ``root`` (``.git`` excluded): its kind, bytes (files) or target
    (links), and with ``meta`` its mode and mtime."""
    out: dict[str, Entry] = {}
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in [*dirs, *files]:
            path = Path(base) / name
            info = os.lstat(path)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                kind, data = "link", os.readlink(path).encode()
            elif path.is_dir():
                kind, data = "dir", None
            else:
                kind, data = "file", path.read_bytes()
            mode = info.st_mode if meta else None
            mtime = info.st_mtime_ns if meta else None
            out[rel] = (kind, data, mode, mtime)
    return out


def files(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` with its bytes."""
    return {k: v[1] for k, v in snapshot(root).items() if v[0] == "file" and v[1] is not None}
