"""The journal never writes, reads or deletes outside the applier's own files."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from agentprompt.edits import journal
from agentprompt.edits.actions import EditError, SearchReplace
from agentprompt.edits.apply import apply_actions
from agentprompt.edits.journal import ApplyBusy, JournalUnsafe, locked, recover
from agentprompt.edits.paths import TEMP_NAME


def _sr(path: str, search: str, replace: str) -> SearchReplace:
    return SearchReplace(dialect="searchreplace", path=path, search=search, replace=replace)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "repo"
    base.mkdir()
    (base / "a.txt").write_text("one\n")
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
            assert manifest["files"][0]["temp"] == Path(src).name
        real_replace(src, dst)

    monkeypatch.setattr(journal.os, "replace", spy)
    assert apply_actions(root, [_sr("a.txt", "one\n", "two\n")]).ok
    assert len(seen) == 1 and TEMP_NAME.match(seen[0]) and "-0." not in seen[0]


def test_symlinked_agentprompt_directory_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "journal").mkdir(parents=True)
    (outside / "journal" / "keep.txt").write_text("mine\n")
    (root / ".agentprompt").symlink_to(outside)
    with pytest.raises(JournalUnsafe):
        apply_actions(root, [_sr("a.txt", "one\n", "two\n")])
    assert (outside / "journal" / "keep.txt").read_text() == "mine\n"
    assert (root / "a.txt").read_text() == "one\n"


def test_a_journal_directory_with_foreign_files_is_never_deleted(root: Path) -> None:
    folder = root / ".agentprompt" / "journal"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine\n")
    with pytest.raises(JournalUnsafe):
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
        apply_actions(root, [_sr("a.txt", "one\n", "two\n")])
    assert (root / "a.txt").read_text() == "one\n"
