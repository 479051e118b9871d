"""Sniffing many files at once, reusing the verdicts of files that have not changed.

Discovery reads the head of every candidate file
(:func:`agentprompt.repo.discovery._sniff.sniff`). A verdict remembered with the file's
size, modification time, change time and inode is reused while all four are unchanged, so a
repeated discovery of an unchanged tree reads no file content. The map keeps these verdicts
in a small JSON file next to its symbol cache (:func:`load_verdicts`,
:func:`save_verdicts`); a missing, damaged or older file just means every file is read
again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from agentprompt.repo.discovery._sniff import UNREADABLE, sniff

__all__ = [
    "MEMO_VERSION",
    "Reader",
    "Remembered",
    "SniffStamp",
    "load_verdicts",
    "save_verdicts",
    "sniff_stamped",
    "verdicts_path",
]

MEMO_VERSION = 3
"""Bumped whenever :func:`~agentprompt.repo.discovery._sniff.sniff` changes its verdicts."""

SniffStamp = tuple[int, int, int, int]
"""A file's (size, mtime_ns, ctime_ns, inode): while it is unchanged, so is the verdict."""

Remembered = tuple[int, int, int, int, str | None]
"""A stamp followed by the verdict it was read with (``None``: a text file, kept)."""

_THREADS = 2
_PARALLEL_FROM = 256


def verdicts_path(cache_path: Path) -> Path:
    """Where the verdicts of the repository whose symbol cache is ``cache_path`` are kept."""
    return cache_path.with_name("sniffed.json")


Reader = Callable[[str], str | None]
"""Reads one file's head and gives its verdict, as
:func:`~agentprompt.repo.discovery._sniff.sniff`."""


def _read(paths: list[str], read: Reader) -> list[str | None]:
    def many(part: Sequence[str]) -> list[str | None]:
        return [read(p) for p in part]

    if len(paths) < _PARALLEL_FROM:
        return many(paths)
    size = -(-len(paths) // _THREADS)
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    with ThreadPoolExecutor(max_workers=_THREADS) as pool:
        return [v for part in pool.map(many, chunks) for v in part]


def _reusable(entry: object, stamp: SniffStamp) -> bool:
    return (
        isinstance(entry, list | tuple)
        and len(entry) == 5
        and tuple(entry[:4]) == stamp
        and (entry[4] is None or isinstance(entry[4], str))
    )


def sniff_stamped(
    root: str,
    files: Sequence[tuple[str, SniffStamp]],
    known: Mapping[str, Remembered],
    *,
    read: Reader = sniff,
) -> tuple[list[str | None], dict[str, Remembered]]:
    """The verdict of each ``(path, stamp)`` of ``files`` (paths relative to ``root``), and
    what to remember for the next time.

    A path whose entry in ``known`` has the same stamp is not read; the others are read
    with ``read`` (by two threads when there are many). Unreadable files are never
    remembered.
    """
    verdicts: list[str | None] = [None] * len(files)
    missing: list[int] = []
    for index, (path, stamp) in enumerate(files):
        entry = known.get(path)
        if entry is not None and _reusable(entry, stamp):
            verdicts[index] = entry[4]
        else:
            missing.append(index)
    fresh = _read([os.path.join(root, files[i][0]) for i in missing], read)
    for index, verdict in zip(missing, fresh, strict=True):
        verdicts[index] = verdict
    remembered: dict[str, Remembered] = {}
    for (path, stamp), verdict in zip(files, verdicts, strict=True):
        if verdict is None or not verdict.startswith(UNREADABLE):
            remembered[path] = (*stamp, verdict)
    return verdicts, remembered


def _same(loaded: Mapping[str, Remembered], verdicts: Mapping[str, Remembered]) -> bool:
    if len(loaded) != len(verdicts):
        return False
    for path, entry in verdicts.items():
        before = loaded.get(path)
        if before is None or tuple(before) != entry:
            return False
    return True


def load_verdicts(path: Path) -> dict[str, Remembered]:
    """The verdicts kept in ``path``; empty when it is missing, damaged or of another
    version (never an error)."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("version") != MEMO_VERSION:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def save_verdicts(
    path: Path,
    verdicts: Mapping[str, Remembered],
    *,
    loaded: Mapping[str, Remembered] | None = None,
) -> None:
    """Keep ``verdicts`` in ``path`` (replaced whole, atomically), when its folder exists
    and they differ from ``loaded`` (what was read from it); a failure to write is ignored
    (the next discovery reads the files again)."""
    if not path.parent.is_dir() or (loaded is not None and _same(loaded, verdicts)):
        return
    text = json.dumps({"version": MEMO_VERSION, "files": verdicts}, separators=(",", ":"))
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
