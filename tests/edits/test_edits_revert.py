"""Reverting a written change set: every file back to its bytes and mode before, through
the journal (all or nothing), never over a file changed since."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from edits_snapshot import files

from agentprompt.edits import ChangedSince, FileBefore, journal, revert_files
from agentprompt.edits.actions import DeleteFile, SearchReplace, WriteFile
from agentprompt.edits.apply import apply_actions
from agentprompt.edits.journal import WriteFailed


def _make(root: Path) -> dict[str, bytes]:
    (root / "sub").mkdir()
    (root / "a.txt").write_bytes(b"alpha\r\nline\r\n")
    (root / "sub/b.txt").write_text("beta\n")
    (root / "c.txt").write_text("gamma\n")
    os.chmod(root / "a.txt", 0o750)
    os.chmod(root / "c.txt", 0o600)
    return files(root)


def _apply(root: Path) -> tuple[FileBefore, ...]:
    report = apply_actions(
        root,
        [
            SearchReplace(dialect="searchreplace", path="a.txt", search="alpha\n", replace="A\n"),
            SearchReplace(
                dialect="searchreplace", path="sub/b.txt", search="beta\n", replace="B\n"
            ),
            DeleteFile(dialect="bridge", path="c.txt"),
            WriteFile(dialect="bridge", path="new/dir/d.txt", content="delta\n"),
        ],
    )
    assert report.written
    return report.originals


def test_revert_puts_back_bytes_modes_and_removes_what_was_made(tmp_path: Path) -> None:
    before = _make(tmp_path)
    originals = _apply(tmp_path)
    report = revert_files(tmp_path, originals)
    assert files(tmp_path) == before
    assert os.stat(tmp_path / "a.txt").st_mode & 0o777 == 0o750
    assert os.stat(tmp_path / "c.txt").st_mode & 0o777 == 0o600
    assert not (tmp_path / "new").exists()
    assert report.removed == ("new/dir/d.txt",) and report.recreated == ("c.txt",)
    assert not (tmp_path / ".agentprompt").exists()


def test_the_kept_files_survive_json(tmp_path: Path) -> None:
    _make(tmp_path)
    originals = _apply(tmp_path)
    assert tuple(FileBefore.from_json(f.to_json()) for f in originals) == originals


def test_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    _make(tmp_path)
    originals = _apply(tmp_path)
    after = files(tmp_path)
    report = revert_files(tmp_path, originals, dry_run=True)
    assert files(tmp_path) == after
    assert report.dry_run and "+beta" in report.diff and "-B" in report.diff


def test_a_file_changed_since_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    _make(tmp_path)
    originals = _apply(tmp_path)
    (tmp_path / "sub/b.txt").write_text("mine\n")
    (tmp_path / "c.txt").write_text("back by hand\n")
    after = files(tmp_path)
    with pytest.raises(ChangedSince) as caught:
        revert_files(tmp_path, originals)
    assert caught.value.paths == ("c.txt", "sub/b.txt")
    assert files(tmp_path) == after


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_revert_failing_part_way_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, k: int
) -> None:
    _make(tmp_path)
    originals = _apply(tmp_path)
    after = files(tmp_path)
    real_replace = os.replace
    calls = {"n": 0}

    def flaky(src: str | Path, dst: str | Path) -> None:
        if str(src).endswith(".tmp") and "manifest" not in Path(src).name:
            calls["n"] += 1
            if calls["n"] == k:
                raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(journal.os, "replace", flaky)
    with pytest.raises(WriteFailed):
        revert_files(tmp_path, originals)
    assert files(tmp_path) == after
