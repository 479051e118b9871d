"""Paths near one that does not exist: what a model most likely meant by a mistyped path.

A reply that edits ``src/requests/util.py`` where ``src/requests/utils.py`` stands, or
``requests/utils.py`` where the file is ``src/requests/utils.py``, is told which file it
probably meant, not to create a new one. Candidates are existing files whose name is close
to the one given (in its folder or anywhere under the root) and files of the same name in
another folder; they are ranked by how much of the whole path they share. The walk is
bounded (:data:`WALK_LIMIT` entries) and skips hidden folders and the usual heavy ones, so a
mistyped path costs a short look, never a scan of a huge tree.
"""

from __future__ import annotations

import os
from difflib import SequenceMatcher, get_close_matches
from pathlib import Path, PurePosixPath

__all__ = ["WALK_LIMIT", "near_paths"]

WALK_LIMIT = 20_000
"""At most this many directory entries are looked at."""
NAME_CUTOFF = 0.8
"""The least similarity (difflib ratio) of a file name to the one given to be proposed."""
_SKIPPED = frozenset({"node_modules", "__pycache__", "venv", "site-packages", "dist", "build"})


def _walk(root: Path) -> list[str]:
    """The files under ``root`` (relative, ``/``-separated), breadth first, bounded."""
    found: list[str] = []
    folders = [""]
    seen = 0
    while folders and seen < WALK_LIMIT:
        rel = folders.pop(0)
        try:
            entries = sorted(os.scandir(root / rel), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > WALK_LIMIT:
                break
            name = entry.name
            path = f"{rel}/{name}" if rel else name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not name.startswith(".") and name not in _SKIPPED:
                        folders.append(path)
                elif entry.is_file(follow_symlinks=False):
                    found.append(path)
            except OSError:
                continue
    return found


def near_paths(root: Path, path: str, *, limit: int = 3) -> list[str]:
    """Existing files under ``root`` that ``path`` (relative, not existing) most likely
    means: a close name in any folder, or the same name in another folder; the best first,
    at most ``limit``. Empty when nothing is near."""
    given = PurePosixPath(path.replace("\\", "/").lstrip("/"))
    name = given.name
    if not name:
        return []
    files = _walk(root)
    by_name: dict[str, list[str]] = {}
    for f in files:
        by_name.setdefault(f.rsplit("/", 1)[-1], []).append(f)
    names = set(get_close_matches(name, list(by_name), n=8, cutoff=NAME_CUTOFF))
    if name in by_name:
        names.add(name)
    candidates = [f for n in names for f in by_name[n] if f != given.as_posix()]
    want = given.as_posix()
    ranked = sorted(
        candidates,
        key=lambda f: (-SequenceMatcher(None, want, f, autojunk=False).ratio(), f),
    )
    return ranked[:limit]
