"""Writing a change set atomically under a journal, and rolling an interrupted one back.

Before the first file is touched, the journal (``<root>/.agentprompt/journal/``) holds the
original bytes and mode of every file to change, the temporary names to be used and the
directories to be created, all fsynced; its ``manifest.json`` appears last, by rename. Each
file is then written to a temporary file in its own directory, fsynced, and renamed over the
target. Removing the manifest commits the transaction. If anything fails part way, the
journal restores every file; if the process dies, :func:`recover` does the same later.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprompt.edits.actions import EditError
from agentprompt.edits.paths import JOURNAL_DIR, resolve_inside
from agentprompt.edits.plan import FileChange

__all__ = [
    "JournalPending",
    "RecoveryReport",
    "WriteFailed",
    "ensure_no_pending",
    "recover",
    "write_changes",
]

MANIFEST = "manifest.json"
"""The journal file whose presence means an apply is in progress (or was interrupted)."""


class JournalPending(EditError):
    """An earlier apply was interrupted; its journal must be recovered first."""

    def __init__(self, root: Path) -> None:
        self.root = root
        super().__init__(
            f"an interrupted apply left a journal in {root / JOURNAL_DIR}; run "
            "'agentprompt apply --recover' to restore the files it was changing, then try again"
        )


class WriteFailed(EditError):
    """Writing a file failed part way; every file was restored to what it was."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(
            f"writing {path} failed ({problem}); every file was restored, nothing changed"
        )


@dataclass(frozen=True, kw_only=True)
class RecoveryReport:
    """What :func:`recover` did."""

    found: bool
    """An interrupted apply's journal was there."""
    restored: tuple[str, ...] = ()
    """Files put back to their original bytes."""
    removed: tuple[str, ...] = ()
    """Files the interrupted apply had created, now removed."""

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {"found": self.found, "restored": list(self.restored), "removed": list(self.removed)}


def _fsync_dir(path: Path) -> None:
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


def _write_file(path: Path, data: bytes, mode: int | None) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        _write_all(fd, data)
        if mode is not None:
            os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _temp_name(real: Path, n: int) -> Path:
    return real.with_name(f".{real.name}.agentprompt-{n}.tmp")


def _missing_dirs(root: Path, real: Path) -> list[Path]:
    dirs = []
    parent = real.parent
    while parent != root and not parent.exists():
        dirs.append(parent)
        parent = parent.parent
    return list(reversed(dirs))


def _begin(root: Path, journal: Path, changes: Sequence[FileChange]) -> dict[str, Any]:
    journal.mkdir(parents=True, exist_ok=True)
    entries = []
    dirs: list[Path] = []
    for n, change in enumerate(changes):
        backup = None
        if change.before is not None:
            backup = f"orig-{n}"
            _write_file(journal / backup, change.before, None)
        if change.after_file is not None:
            dirs.extend(d for d in _missing_dirs(root, change.real) if d not in dirs)
        entries.append({"path": change.path, "backup": backup, "mode": change.mode, "n": n})
    rel_dirs = [d.relative_to(root).as_posix() for d in dirs]
    manifest = {"version": 1, "files": entries, "dirs": rel_dirs}
    pending = journal / (MANIFEST + ".tmp")
    _write_file(pending, json.dumps(manifest, indent=1).encode("utf-8"), None)
    os.replace(pending, journal / MANIFEST)
    for directory in (journal, journal.parent, root):
        _fsync_dir(directory)
    return manifest


def _end(root: Path, journal: Path) -> None:
    (journal / MANIFEST).unlink(missing_ok=True)
    _fsync_dir(journal)
    shutil.rmtree(journal, ignore_errors=True)
    with contextlib.suppress(OSError):
        journal.parent.rmdir()


def ensure_no_pending(root: Path) -> None:
    """Raise :class:`JournalPending` if an interrupted apply left its journal under ``root``.

    Checked before planning: the files may hold half of an interrupted transaction.
    """
    if (Path(os.path.realpath(root)) / JOURNAL_DIR / MANIFEST).exists():
        raise JournalPending(root)


def write_changes(root: Path, changes: Sequence[FileChange]) -> None:
    """Write every change or none: atomically per file, under a journal for the whole set."""
    if not changes:
        return
    real_root = Path(os.path.realpath(root))
    journal = real_root / JOURNAL_DIR
    if (journal / MANIFEST).exists():
        raise JournalPending(root)
    if journal.exists():
        shutil.rmtree(journal, ignore_errors=True)
    try:
        manifest = _begin(real_root, journal, changes)
    except OSError as exc:
        # Nothing was touched yet: only the half-written journal goes.
        _end(real_root, journal)
        raise WriteFailed(JOURNAL_DIR, exc.strerror or str(exc)) from None
    current = ""
    try:
        for d in manifest["dirs"]:
            current = d
            (real_root / d).mkdir(exist_ok=True)
        for n, change in enumerate(changes):
            current = change.path
            data = change.after
            if data is None:
                change.real.unlink(missing_ok=True)
            else:
                temp = _temp_name(change.real, n)
                _write_file(temp, data, change.mode)
                os.replace(temp, change.real)
            _fsync_dir(change.real.parent)
    except OSError as exc:
        _rollback(real_root, journal, manifest)
        raise WriteFailed(current, exc.strerror or str(exc)) from None
    except BaseException:
        _rollback(real_root, journal, manifest)
        raise
    _end(real_root, journal)


def _rollback(root: Path, journal: Path, manifest: dict[str, Any]) -> RecoveryReport:
    restored, removed = [], []
    for entry in manifest["files"]:
        real = resolve_inside(root, entry["path"])
        temp = _temp_name(real, int(entry["n"]))
        temp.unlink(missing_ok=True)
        if entry["backup"] is None:
            # Only a file this apply created is removed; a directory is never one of them.
            if real.is_symlink() or real.is_file():
                real.unlink()
                removed.append(entry["path"])
            continue
        original = (journal / entry["backup"]).read_bytes()
        try:
            same = real.read_bytes() == original
        except OSError:
            same = False
        if not same:
            real.parent.mkdir(parents=True, exist_ok=True)
            _write_file(temp, original, entry["mode"])
            os.replace(temp, real)
            restored.append(entry["path"])
        elif entry["mode"] is not None:
            os.chmod(real, entry["mode"])
    for d in reversed(manifest["dirs"]):
        with contextlib.suppress(OSError):
            resolve_inside(root, d).rmdir()
    _end(root, journal)
    return RecoveryReport(found=True, restored=tuple(restored), removed=tuple(removed))


def recover(root: Path) -> RecoveryReport:
    """Roll back an apply that was interrupted (killed, power lost) from its journal."""
    real_root = Path(os.path.realpath(root))
    journal = real_root / JOURNAL_DIR
    manifest_path = journal / MANIFEST
    if not manifest_path.exists():
        if journal.exists():
            _end(real_root, journal)
        return RecoveryReport(found=False)
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        return _rollback(real_root, journal, manifest)
    except (OSError, ValueError, KeyError, TypeError, EditError) as exc:
        raise EditError(
            f"the journal {manifest_path} cannot be read ({exc}); restore the files from "
            "version control and delete the journal directory"
        ) from None
