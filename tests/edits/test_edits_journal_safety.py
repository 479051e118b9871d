"""The journal never writes, reads or deletes outside the applier's own files."""

from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from agentprompt.edits import journal
from agentprompt.edits.actions import EditError, SearchReplace
from agentprompt.edits.apply import apply_actions
from agentprompt.edits.journal import ApplyBusy, locked, recover
from agentprompt.edits.paths import TEMP_NAME


def _sr(path: str, search: str, replace: str) -> SearchReplace:
    return SearchReplace(dialect="searchreplace", path=path, search=search, replace=replace)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "repo"
    base.mkdir()
    (base / "a.txt").write_text("one\n")
    (base / "b.txt").write_text("bee\n")
    return base


def _plant(root: Path, entry: dict[str, object], backup: bytes | None = None) -> Path:
    folder = root / ".agentprompt" / "journal"
    folder.mkdir(parents=True)
    if backup is not None:
        (folder / "orig-0").write_bytes(backup)
    base = {"path": "a.txt", "backup": None, "mode": None}
    base["temp"] = ".a.txt.agentprompt-0123456789abcdef.tmp"
    base["after"] = None
    manifest = {"version": 2, "nonce": "0", "files": [{**base, **entry}], "dirs": []}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_planted_temp_symlink_does_not_redirect_the_write(root: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("outside\n")
    for n in range(3):
        (root / f".a.txt.agentprompt-{n}.tmp").symlink_to(victim)
    assert apply_actions(root, [_sr("a.txt", "one\n", "two\n")]).ok
    assert victim.read_text() == "outside\n"
    assert not (root / "a.txt").is_symlink() and (root / "a.txt").read_text() == "two\n"
    assert (root / ".a.txt.agentprompt-0.tmp").is_symlink()


def test_temporary_names_are_random_and_recorded(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    real_replace = os.replace

    def spy(src: str | Path, dst: str | Path) -> None:
        if "manifest" not in Path(src).name:
            seen.append(Path(src).name)
            manifest = json.loads((root / ".agentprompt/journal/manifest.json").read_text())
            assert manifest["files"][len(seen) - 1]["temp"] == Path(src).name
        real_replace(src, dst)

    monkeypatch.setattr(journal.os, "replace", spy)
    # Two files: a change set of one file needs no journal.
    assert apply_actions(root, [_sr("a.txt", "one\n", "two\n"), _sr("b.txt", "bee\n", "b\n")]).ok
    assert len(seen) == 2 and all(TEMP_NAME.match(n) and "-0." not in n for n in seen)


def test_symlinked_agentprompt_directory_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "journal").mkdir(parents=True)
    (outside / "journal" / "keep.txt").write_text("mine\n")
    (root / ".agentprompt").symlink_to(outside)
    with pytest.raises(EditError):
        apply_actions(root, [_sr("a.txt", "one\n", "two\n")])
    assert (outside / "journal" / "keep.txt").read_text() == "mine\n"
    assert (root / "a.txt").read_text() == "one\n"


def test_a_journal_directory_with_foreign_files_is_never_deleted(root: Path) -> None:
    folder = root / ".agentprompt" / "journal"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine\n")
    with pytest.raises(EditError):
        apply_actions(root, [_sr("a.txt", "one\n", "two\n")])
    assert (folder / "notes.txt").read_text() == "mine\n"
    assert (root / "a.txt").read_text() == "one\n"


def test_recover_refuses_a_backup_outside_the_journal(root: Path, tmp_path: Path) -> None:
    (tmp_path / "id_rsa").write_text("secret\n")
    _plant(root, {"backup": "../../../id_rsa"})
    with pytest.raises(EditError, match="cannot be read"):
        recover(root)
    assert (root / "a.txt").read_text() == "one\n"


def test_recover_masks_modes_to_permission_bits(root: Path) -> None:
    _plant(root, {"backup": "orig-0", "mode": 0o104777}, backup=b"zero\n")
    recover(root)
    assert (root / "a.txt").read_text() == "zero\n"
    assert os.stat(root / "a.txt").st_mode & 0o7777 == 0o777


def test_recover_keeps_a_file_that_is_not_what_the_apply_wrote(root: Path) -> None:
    _plant(root, {"backup": None})
    report = recover(root)
    assert report.kept == ("a.txt",) and report.removed == ()
    assert (root / "a.txt").read_text() == "one\n"


def test_recover_refuses_a_malformed_entry(root: Path) -> None:
    _plant(root, {"path": 7})
    with pytest.raises(EditError, match="cannot be read"):
        recover(root)


def test_recover_dry_run_reports_and_writes_nothing(root: Path) -> None:
    folder = _plant(root, {"backup": "orig-0"}, backup=b"zero\n")
    report = recover(root, dry_run=True)
    assert report.dry_run and report.restored == ("a.txt",)
    assert (root / "a.txt").read_text() == "one\n"
    assert (folder / "manifest.json").exists()


def test_a_second_apply_while_one_holds_the_lock_is_refused(root: Path) -> None:
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        with locked(root):
            entered.set()
            release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    entered.wait(5)
    try:
        with pytest.raises(ApplyBusy):
            apply_actions(root, [_sr("a.txt", "one\n", "two\n")])
    finally:
        release.set()
        worker.join()
    assert (root / "a.txt").read_text() == "one\n"


def test_a_manifest_replaced_during_the_apply_rolls_it_back(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_replace = os.replace

    def swap(src: str | Path, dst: str | Path) -> None:
        real_replace(src, dst)
        if "manifest" not in Path(src).name:
            path = root / ".agentprompt" / "journal" / "manifest.json"
            data = json.loads(path.read_text())
            path.write_text(json.dumps({**data, "nonce": "someone else"}))

    monkeypatch.setattr(journal.os, "replace", swap)
    with pytest.raises(journal.WriteFailed, match="replaced"):
        apply_actions(root, [_sr("a.txt", "one\n", "two\n"), _sr("b.txt", "bee\n", "b\n")])
    assert (root / "a.txt").read_text() == "one\n"
    assert (root / "b.txt").read_text() == "bee\n"


def test_one_file_is_replaced_by_one_rename_with_no_journal(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    real_mkdir = os.mkdir

    def spy(path: str | Path, *args: Any) -> None:
        made.append(str(path))
        real_mkdir(path, *args)

    monkeypatch.setattr(journal.os, "mkdir", spy)
    assert apply_actions(root, [_sr("a.txt", "one\n", "two\n")]).ok
    assert made == [] and not (root / ".agentprompt").exists()
    assert (root / "a.txt").read_text() == "two\n"


def test_a_one_file_write_that_fails_leaves_the_file_and_no_temporary(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(src: str | Path, dst: str | Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal.os, "replace", refuse)
    with pytest.raises(journal.WriteFailed) as caught:
        apply_actions(root, [_sr("a.txt", "one\n", "two\n")])
    assert caught.value.code == "ENOSPC"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt", "b.txt"]
    assert (root / "a.txt").read_text() == "one\n"


def test_a_temporary_copy_a_killed_apply_left_is_swept_before_the_file_is_written(
    root: Path,
) -> None:
    stale = root / ".a.txt.agentprompt-0123456789abcdef.tmp"
    stale.write_text("half of a killed write")
    other = root / "notes.agentprompt.tmp"
    other.write_text("not the applier's")
    assert apply_actions(root, [_sr("a.txt", "one\n", "two\n")]).ok
    assert not stale.exists() and other.exists()
