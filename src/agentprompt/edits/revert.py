"""Putting the files a written change set touched back as they were before it.

When an apply writes, :func:`before_changes` keeps each file's bytes and permission bits as
they were (``None``: the file did not exist), the digest of what the apply left there, and
the folders it had to create. :func:`revert_files` later writes the kept bytes back as one more
change set under the journal (:func:`~agentprompt.edits.journal.write_changes`): every file
goes back, or none does, and an interrupted revert is recovered like an interrupted apply.
A file that no longer holds what the apply left (edited by hand since) is never
overwritten: :func:`changed_since` names it and :func:`revert_files` refuses
(:class:`ChangedSince`) before writing anything.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentprompt.edits._diff import render_diff
from agentprompt.edits._plan import FileChange
from agentprompt.edits._safeio import read_plain
from agentprompt.edits._textfile import TextFile, decode_text
from agentprompt.edits.actions import EditError
from agentprompt.edits.journal import ensure_no_pending, locked, write_changes
from agentprompt.edits.paths import resolve_inside
from agentprompt.errors import UsageError

__all__ = [
    "ChangedSince",
    "FileBefore",
    "RevertReport",
    "before_changes",
    "changed_since",
    "revert_files",
]


class ChangedSince(UsageError):
    """Files a change set wrote no longer hold what it left there: they were changed since
    (by hand, or by something else), so putting them back would lose that work."""

    def __init__(self, paths: Sequence[str], what: str = "the apply") -> None:
        self.paths = tuple(paths)
        """The files changed since, sorted."""
        super().__init__(
            f"{', '.join(self.paths)} changed since {what} wrote "
            f"{'them' if len(self.paths) > 1 else 'it'}; nothing was restored",
            fix="undo those changes by hand first (or keep them and leave the round as it is)",
        )


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, kw_only=True)
class FileBefore:
    """One file a change set touched: as it was before, and what the change left."""

    path: str
    """The path relative to the root, with ``/`` separators."""
    before: bytes | None
    """Its bytes before the change (``None``: it did not exist)."""
    mode: int | None = None
    """Its permission bits before the change (``None``: it did not exist)."""
    after: str | None = None
    """The SHA-256 of the bytes the change wrote (``None``: the change deleted it)."""
    dirs: tuple[str, ...] = ()
    """The folders the change created for it, outermost first (removed again when empty)."""

    def to_json(self) -> dict[str, Any]:
        """The entry as JSON-ready data (the bytes in base64)."""
        return {
            "path": self.path,
            "before": None if self.before is None else base64.b64encode(self.before).decode(),
            "mode": self.mode,
            "after": self.after,
            "dirs": list(self.dirs),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileBefore:
        """The entry kept as ``data`` (:meth:`to_json`)."""
        before = data["before"]
        mode = data.get("mode")
        after = data.get("after")
        return cls(
            path=str(data["path"]),
            before=None if before is None else base64.b64decode(str(before), validate=True),
            mode=None if mode is None else int(mode) & 0o7777,
            after=None if after is None else str(after),
            dirs=tuple(str(d) for d in data.get("dirs", ())),
        )


@dataclass(frozen=True, kw_only=True)
class RevertReport:
    """What :func:`revert_files` did (or, in a dry run, would do)."""

    restored: tuple[str, ...] = ()
    """Files put back to their bytes before the change."""
    recreated: tuple[str, ...] = ()
    """Files the change deleted, written again."""
    removed: tuple[str, ...] = ()
    """Files the change created, removed."""
    diff: str = ""
    """The unified diff from the files as they are to the files as they were."""
    dry_run: bool = False
    """Nothing was written."""
    redo: tuple[FileBefore, ...] = field(default=(), repr=False, compare=False)
    """The files as the revert found them: :func:`revert_files` of these takes the revert back
    (when what follows it fails)."""

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "restored": list(self.restored),
            "recreated": list(self.recreated),
            "removed": list(self.removed),
            "diff": self.diff,
            "dry_run": self.dry_run,
        }


def _missing_dirs(root: Path, real: Path) -> tuple[str, ...]:
    dirs = []
    parent = real.parent
    while parent != root and not os.path.lexists(parent):
        dirs.append(parent.relative_to(root).as_posix())
        parent = parent.parent
    return tuple(reversed(dirs))


def before_changes(root: Path, changes: Sequence[FileChange]) -> tuple[FileBefore, ...]:
    """What :func:`revert_files` needs to undo ``changes`` (taken before they are written)."""
    real_root = Path(os.path.realpath(root))
    out = []
    for change in changes:
        after = change.after
        out.append(
            FileBefore(
                path=change.path,
                before=change.before,
                mode=change.mode if change.before is not None else None,
                after=None if after is None else _digest(after),
                dirs=_missing_dirs(real_root, change.real) if change.before is None else (),
            )
        )
    return tuple(out)


def _current(real: Path) -> bytes | None:
    """The file's bytes now (``None``: absent); :class:`OSError` when it is not a plain
    file (a folder or a symlink in its place)."""
    if not os.path.lexists(real):
        return None
    return read_plain(real)


def changed_since(root: Path, files: Sequence[FileBefore]) -> tuple[str, ...]:
    """The files of ``files`` that no longer hold what the change left (sorted)."""
    changed = []
    for entry in files:
        try:
            now = _current(resolve_inside(root, entry.path))
        except (OSError, EditError):
            changed.append(entry.path)
            continue
        left = None if now is None else _digest(now)
        if left != entry.after:
            changed.append(entry.path)
    return tuple(sorted(changed))


@dataclass(frozen=True, kw_only=True)
class _Restore:
    """One file's way back: the journal writes ``after`` over ``before``."""

    path: str
    real: Path
    before: bytes | None
    after: bytes | None
    mode: int | None


def _text(data: bytes | None, path: str) -> TextFile | None:
    if data is None:
        return None
    try:
        return decode_text(data, path)
    except EditError:
        return TextFile(lines=("(not text)",))


def _diff(restores: Sequence[_Restore]) -> str:
    """The diff of the way back, as the applier's diffs are written."""
    return render_diff(
        [
            FileChange(
                path=r.path,
                real=r.real,
                before=r.before,
                before_file=_text(r.before, r.path),
                after_file=_text(r.after, r.path),
                mode=r.mode,
            )
            for r in restores
        ]
    )


def revert_files(
    root: Path, files: Sequence[FileBefore], *, dry_run: bool = False, what: str = "the apply"
) -> RevertReport:
    """Put every file of ``files`` back as it was before its change set, as one
    transaction (all or nothing), and remove the folders that change created once empty.

    Refused with :class:`ChangedSince` (nothing written) when a file no longer holds what
    the change left (``what`` names the change in the message); an interrupted apply's
    journal is :class:`~agentprompt.edits.JournalPending`. ``dry_run`` writes nothing.
    """
    root = Path(root)
    with locked(root):
        ensure_no_pending(root)
        changed = changed_since(root, files)
        if changed:
            raise ChangedSince(changed, what)
        restores = []
        redo = []
        for entry in files:
            real = resolve_inside(root, entry.path)
            now = _current(real)
            if now == entry.before:
                continue
            restores.append(
                _Restore(
                    path=entry.path, real=real, before=now, after=entry.before, mode=entry.mode
                )
            )
            redo.append(
                FileBefore(
                    path=entry.path,
                    before=now,
                    mode=None if now is None else stat.S_IMODE(os.lstat(real).st_mode),
                    after=None if entry.before is None else _digest(entry.before),
                )
            )
        report = RevertReport(
            restored=tuple(
                r.path for r in restores if r.before is not None and r.after is not None
            ),
            recreated=tuple(r.path for r in restores if r.before is None),
            removed=tuple(r.path for r in restores if r.after is None),
            diff=_diff(restores),
            dry_run=dry_run,
            redo=tuple(redo),
        )
        if dry_run:
            return report
        write_changes(root, restores)
        for entry in files:
            for folder in reversed(entry.dirs):
                with contextlib.suppress(OSError, EditError):
                    resolve_inside(root, folder).rmdir()
    return report
