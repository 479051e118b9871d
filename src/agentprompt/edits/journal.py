"""Writing a change set atomically under a journal, and rolling an interrupted one back.

A change set of one file in an existing directory needs no journal: the file is replaced by
one rename of a fsynced temporary file, which is all or nothing by itself. For any other
set, before the first file is touched, the journal (``<root>/.agentprompt/journal/``, a
directory this apply creates, never a symlink) holds the original bytes of every file to
change (a hard link to it where the file system allows, as files are replaced by rename and
never written in place; else a copy), their modes, the random temporary names to be used and
the directories to be created, all fsynced; its ``manifest.json`` appears last, by rename.
Each file is then written to its own temporary file (created with ``O_EXCL | O_NOFOLLOW``,
so a planted symlink cannot redirect it), fsynced, and renamed over the target. Removing the
manifest commits the transaction. If anything fails part way, the journal restores every
file; if the process dies, :func:`recover` does the same later. A lock on the root
(``flock`` on the directory) keeps two applies from running at once. A manifest read back
from disk is untrusted: every field is checked, paths go through
:mod:`~agentprompt.edits.paths`, backups must be the journal's own ``orig-N`` files, modes
are masked to permission bits, and a file the interrupted apply created is removed only if
it still holds exactly what that apply wrote.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agentprompt.edits._manifest import BACKUP, VERSION, checked
from agentprompt.edits._safeio import (
    ApplyBusy,
    create_new,
    fsync_dir,
    journal_unsafe,
    link_or_copy,
    locked,
    plain_dir,
    read_plain,
)
from agentprompt.edits.actions import EditError
from agentprompt.edits.paths import JOURNAL_DIR, TEMP_NAME, resolve_inside
from agentprompt.errors import literal

__all__ = [
    "ApplyBusy",
    "JournalPending",
    "RecoveryReport",
    "RollbackFailed",
    "WriteFailed",
    "ensure_no_pending",
    "locked",
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
            f"an interrupted apply left a journal in {literal(str(root / JOURNAL_DIR))}",
            fix="run '{recover_preview}' to see what it would restore, then '{recover}' to "
            "restore the files it was changing, and try again",
        )


def _code(exc: OSError) -> str:
    """The symbolic name of an OS error (``ENOSPC`` for a full disk), else ``OSError``."""
    return errno.errorcode.get(exc.errno or 0, "OSError")


class WriteFailed(EditError):
    """Writing a file failed part way; every file was restored to what it was."""

    def __init__(self, path: str, problem: str, code: str = "OSError") -> None:
        self.path = path
        self.problem = problem
        self.code = code
        """The OS error's symbolic name (``ENOSPC`` for a full disk)."""
        super().__init__(
            f"writing {path} failed ({problem}); every file was restored, nothing changed"
        )


class RollbackFailed(EditError):
    """Writing failed and so did restoring the files; the journal keeps the originals."""

    def __init__(self, path: str, problem: str, code: str, rollback: str) -> None:
        self.path = path
        self.problem = problem
        self.code = code
        """The symbolic name of the error that stopped the write."""
        super().__init__(
            f"writing {literal(path)} failed ({literal(problem)}) and restoring the files "
            f"failed too ({literal(rollback)}); the journal in {JOURNAL_DIR} still holds every "
            "original file",
            fix="run '{recover}' (do not delete the journal)",
        )


@dataclass(frozen=True, kw_only=True)
class RecoveryReport:
    """What :func:`recover` did (or, in a dry run, would do)."""

    found: bool
    """An interrupted apply's journal was there."""
    restored: tuple[str, ...] = ()
    """Files put back to their original bytes."""
    removed: tuple[str, ...] = ()
    """Files the interrupted apply had created, now removed."""
    kept: tuple[str, ...] = ()
    """Files the interrupted apply had created that now hold something else: kept."""
    dry_run: bool = False
    """Nothing was done; the lists say what recovery would do."""

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "found": self.found,
            "restored": list(self.restored),
            "removed": list(self.removed),
            "kept": list(self.kept),
            "dry_run": self.dry_run,
        }


class FileChange(Protocol):
    """One file's change as the journal writes it: its bytes before and after."""

    @property
    def path(self) -> str:
        """The path relative to the root, with ``/`` separators."""

    @property
    def real(self) -> Path:
        """The absolute path written."""

    @property
    def before(self) -> bytes | None:
        """The bytes it holds now (``None``: absent)."""

    @property
    def after(self) -> bytes | None:
        """The bytes to write (``None``: delete it)."""

    @property
    def mode(self) -> int | None:
        """The permission bits to give the written file (``None``: the default)."""


def _temp_name(real: Path) -> str:
    return f".{real.name}.agentprompt-{secrets.token_hex(8)}.tmp"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _missing_dirs(root: Path, real: Path) -> list[Path]:
    dirs = []
    parent = real.parent
    while parent != root and not os.path.lexists(parent):
        dirs.append(parent)
        parent = parent.parent
    return list(reversed(dirs))


def _clear_leftover(journal: Path) -> None:
    """Remove a journal an apply left before its manifest: only the applier's own files, and
    the directories only if that empties them."""
    if not plain_dir(journal):
        with contextlib.suppress(OSError):
            os.rmdir(journal.parent)
        return
    for entry in os.listdir(journal):
        if BACKUP.match(entry) or entry == MANIFEST + ".tmp":
            os.unlink(journal / entry)
    try:
        os.rmdir(journal)
    except OSError:
        raise journal_unsafe(
            journal, "the journal directory holds files the applier did not write"
        ) from None
    with contextlib.suppress(OSError):
        os.rmdir(journal.parent)


def _journal(root: Path) -> Path:
    """The journal directory of ``root``, refused when it or its parent is not a plain
    directory (a symlink would carry the journal, and its rollback, out of the root)."""
    journal = Path(os.path.realpath(root)) / JOURNAL_DIR
    plain_dir(journal.parent)
    plain_dir(journal)
    return journal


def _begin(root: Path, journal: Path, changes: Sequence[FileChange]) -> dict[str, Any]:
    if not plain_dir(journal.parent):
        os.mkdir(journal.parent)
    os.mkdir(journal, 0o700)
    entries = []
    dirs: list[Path] = []
    for n, change in enumerate(changes):
        backup = None
        if change.before is not None:
            backup = f"orig-{n}"
            # The file is replaced by a rename, never written in place, so a hard link
            # keeps its original bytes with no data written (nor room needed on the disk).
            link_or_copy(change.real, journal / backup, change.before)
        after = change.after
        if after is not None:
            dirs.extend(d for d in _missing_dirs(root, change.real) if d not in dirs)
        entries.append(
            {
                "path": change.path,
                "backup": backup,
                "mode": change.mode,
                "temp": _temp_name(change.real),
                "after": None if after is None else _digest(after),
            }
        )
    rel_dirs = [d.relative_to(root).as_posix() for d in dirs]
    manifest = {
        "version": VERSION,
        "nonce": secrets.token_hex(8),
        "files": entries,
        "dirs": rel_dirs,
    }
    pending = journal / (MANIFEST + ".tmp")
    create_new(pending, json.dumps(manifest, indent=1).encode("utf-8"), None)
    os.replace(pending, journal / MANIFEST)
    for directory in (journal, journal.parent, root):
        fsync_dir(directory)
    return manifest


def _end(journal: Path, manifest: dict[str, Any] | None) -> None:
    """Finish a commit or a rollback: drop the manifest, then the applier's own files, then
    the directories if that empties them. Nothing else is ever deleted; a file that cannot
    be removed stays (a journal without a manifest is cleared by the next apply)."""
    with contextlib.suppress(OSError):
        os.unlink(journal / MANIFEST)
    fsync_dir(journal)
    names = [MANIFEST + ".tmp"]
    if manifest is not None:
        names += [e["backup"] for e in manifest["files"] if e["backup"]]
    for name in names:
        with contextlib.suppress(OSError):
            os.unlink(journal / name)
    for directory in (journal, journal.parent):
        with contextlib.suppress(OSError):
            os.rmdir(directory)


def ensure_no_pending(root: Path) -> None:
    """Raise :class:`JournalPending` if an interrupted apply left its journal under ``root``
    (and an :class:`~agentprompt.edits.EditError` if the journal's place is a symlink or a file).

    Checked before planning: the files may hold half of an interrupted transaction.
    """
    if os.path.lexists(_journal(root) / MANIFEST):
        raise JournalPending(root)


def write_changes(root: Path, changes: Sequence[FileChange]) -> None:
    """Write every change or none: atomically per file, under a journal for the whole set.

    The caller holds :func:`locked` on ``root``.
    """
    if not changes:
        return
    real_root = Path(os.path.realpath(root))
    journal = _journal(root)
    if os.path.lexists(journal / MANIFEST):
        raise JournalPending(root)
    _clear_leftover(journal)
    if len(changes) == 1 and not _missing_dirs(real_root, changes[0].real):
        _write_alone(changes[0])
        return
    try:
        manifest = _begin(real_root, journal, changes)
    except OSError as exc:
        # Nothing was touched yet: only what this apply put in the journal goes.
        _end(journal, None)
        with contextlib.suppress(OSError, EditError):
            _clear_leftover(journal)
        raise WriteFailed(JOURNAL_DIR, exc.strerror or str(exc), _code(exc)) from None
    current = ""
    try:
        for d in manifest["dirs"]:
            current = d
            (real_root / d).mkdir(exist_ok=True)
        for entry, change in zip(manifest["files"], changes, strict=True):
            current = change.path
            data = change.after
            if data is None:
                change.real.unlink(missing_ok=True)
            else:
                temp = change.real.parent / entry["temp"]
                create_new(temp, data, change.mode)
                os.replace(temp, change.real)
            fsync_dir(change.real.parent)
        current = JOURNAL_DIR
        _check_owner(journal, manifest)
        # The commit point: once the manifest is gone, the new files stand.
        os.unlink(journal / MANIFEST)
    except OSError as exc:
        _undo(real_root, journal, manifest, current, exc)
        raise WriteFailed(current, exc.strerror or str(exc), _code(exc)) from None
    except BaseException as exc:
        _undo(real_root, journal, manifest, current, exc)
        raise
    _end(journal, manifest)


def _write_alone(change: FileChange) -> None:
    """Write a change set of one file in an existing directory, which needs no journal: the
    file is replaced by one atomic rename of a fsynced temporary file (or removed by one
    unlink), so it changes wholly or not at all. The temporary file goes on any failure, and
    one a killed apply left beside the file goes before it is written."""
    real = change.real
    try:
        _sweep_temps(real)
        if change.after is None:
            real.unlink(missing_ok=True)
        else:
            temp = real.parent / _temp_name(real)
            create_new(temp, change.after, change.mode)
            try:
                os.replace(temp, real)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
    except OSError as exc:
        raise WriteFailed(change.path, exc.strerror or str(exc), _code(exc)) from None
    fsync_dir(real.parent)


def _sweep_temps(real: Path) -> None:
    """Remove the applier's temporary copies of ``real`` that a killed apply left (the
    caller holds the root's lock, so no apply is writing one now)."""
    prefix = f".{real.name}.agentprompt-"
    with os.scandir(real.parent) as entries:
        stale = [
            e.name
            for e in entries
            if e.name.startswith(prefix)
            and TEMP_NAME.match(e.name)
            and e.is_file(follow_symlinks=False)
        ]
    for name in stale:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(real.parent / name)


def _undo(
    root: Path, journal: Path, manifest: dict[str, Any], current: str, cause: BaseException
) -> None:
    """Roll a failed write back; if that fails too, raise :class:`RollbackFailed` (the
    journal stays, so a recovery can finish the job)."""
    try:
        _rollback(root, journal, manifest, dry_run=False)
    except (OSError, EditError) as exc:
        problem = cause.strerror if isinstance(cause, OSError) else None
        code = _code(cause) if isinstance(cause, OSError) else type(cause).__name__
        raise RollbackFailed(current, problem or str(cause), code, str(exc)) from None


def _check_owner(journal: Path, manifest: dict[str, Any]) -> None:
    """The manifest on disk is still this apply's (its nonce), or :class:`OSError`."""
    try:
        on_disk = json.loads(read_plain(journal / MANIFEST))
    except ValueError:
        on_disk = None
    if not isinstance(on_disk, dict) or on_disk.get("nonce") != manifest["nonce"]:
        raise OSError("the journal's manifest was replaced while the files were written")


def _restore(real: Path, temp: Path, backup: Path, original: bytes, mode: int | None) -> bool:
    """Put ``original`` (the bytes of ``backup``) back at ``real``; false when it already
    holds it.

    The backup is hard-linked to the temporary name and renamed over ``real``: no data is
    written, so this works on a full disk, and the journal keeps its copy until the end (a
    crash here leaves a journal that recovers again).
    """
    try:
        same = read_plain(real) == original
    except OSError:
        same = False
    if not same:
        real.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        link_or_copy(backup, temp, original)
        os.replace(temp, real)
    if mode is not None:
        os.chmod(real, mode)
    return not same


def _differs(real: Path, original: bytes) -> bool:
    try:
        return read_plain(real) != original
    except OSError:
        return True


def _rollback(
    root: Path, journal: Path, manifest: dict[str, Any], *, dry_run: bool
) -> RecoveryReport:
    restored, removed, kept = [], [], []
    reachable: list[tuple[dict[str, Any], Path]] = []
    for entry in manifest["files"]:
        try:
            real = resolve_inside(root, entry["path"])
            os.lstat(real.parent)
        except (OSError, EditError):
            # A recorded path no file system can reach (too long, a file in the way):
            # nothing of it was created, and what cannot be reached is reported as kept.
            if entry["backup"] is not None:
                kept.append(entry["path"])
            continue
        reachable.append((entry, real))
    if not dry_run:
        # Every temporary file goes before anything is restored: on a full disk, their
        # blocks are the room the restore may need.
        for entry, real in reachable:
            temp = real.parent / entry["temp"]
            if os.path.isfile(temp) and not os.path.islink(temp):
                os.unlink(temp)
    for entry, real in reachable:
        temp = real.parent / entry["temp"]
        if entry["backup"] is None:
            # Only a file this apply created, still holding what it wrote, is removed.
            try:
                ours = _digest(read_plain(real)) == entry["after"]
            except OSError:
                ours = False
            if ours:
                if not dry_run:
                    real.unlink()
                removed.append(entry["path"])
            elif os.path.lexists(real):
                kept.append(entry["path"])
            continue
        backup = journal / entry["backup"]
        original = read_plain(backup)
        if dry_run:
            if _differs(real, original):
                restored.append(entry["path"])
        elif _restore(real, temp, backup, original, entry["mode"]):
            restored.append(entry["path"])
    if not dry_run:
        for d in reversed(manifest["dirs"]):
            with contextlib.suppress(OSError, EditError):
                resolve_inside(root, d).rmdir()
        _end(journal, manifest)
    return RecoveryReport(
        found=True,
        restored=tuple(restored),
        removed=tuple(removed),
        kept=tuple(kept),
        dry_run=dry_run,
    )


def recover(root: Path, *, dry_run: bool = False) -> RecoveryReport:
    """Roll back an apply that was interrupted (killed, power lost) from its journal.

    With ``dry_run``, only report what would be restored and removed; write nothing.
    """
    real_root = Path(os.path.realpath(root))
    with locked(real_root):
        journal = _journal(root)
        manifest_path = journal / MANIFEST
        if not os.path.lexists(manifest_path):
            if not dry_run:
                _clear_leftover(journal)
            return RecoveryReport(found=False, dry_run=dry_run)
        try:
            manifest = checked(real_root, json.loads(read_plain(manifest_path)))
        except (OSError, ValueError, EditError) as exc:
            raise EditError(
                f"the journal {manifest_path} cannot be read ({exc}); it is left in place: "
                f"its orig-N files are the original bytes of the files the apply was "
                f"changing (the paths are listed in {MANIFEST}). Copy them back by hand, "
                "and only then delete the journal directory"
            ) from None
        try:
            return _rollback(real_root, journal, manifest, dry_run=dry_run)
        except (OSError, EditError) as exc:
            raise EditError(
                f"restoring the files from the journal {literal(str(journal))} failed "
                f"({literal(str(exc))}); the journal is kept and still holds every original "
                "file",
                fix="fix the cause and run '{recover}' again (do not delete the journal)",
            ) from None
