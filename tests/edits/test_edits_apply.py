"""The applier: one transaction per reply, files keep how they were stored, a clear report."""

from __future__ import annotations

import codecs
import os
import stat
import subprocess
from pathlib import Path

import pytest
from edits_snapshot import snapshot

from agentprompt.edits.actions import (
    AnchoredEdit,
    Continue,
    DeleteFile,
    Hunk,
    MoveFile,
    PatchFile,
    RequestFiles,
    SearchReplace,
    SwitchMode,
    WriteFile,
)
from agentprompt.edits.apply import ApplyOptions, apply_actions, apply_reply
from agentprompt.errors import NotADirectory


def _sr(path: str, search: str, replace: str, block: int = 0) -> SearchReplace:
    return SearchReplace(
        dialect="searchreplace", path=path, search=search, replace=replace, block=block
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "repo"
    base.mkdir()
    (base / "a.py").write_text("def a():\n    return 1\n")
    (base / "b.py").write_text("def b():\n    return 2\n")
    return base


def test_search_replace_changes_the_file(root: Path) -> None:
    report = apply_actions(root, [_sr("a.py", "    return 1\n", "    return 10\n")])
    assert report.ok and report.written
    assert (root / "a.py").read_text() == "def a():\n    return 10\n"
    assert [(a.path, a.action, a.stage) for a in report.applied] == [("a.py", "replace", "exact")]


def test_later_block_sees_what_an_earlier_block_left(root: Path) -> None:
    actions = [
        _sr("a.py", "    return 1\n", "    return 10\n"),
        _sr("a.py", "    return 10\n", "    return 100\n", block=1),
    ]
    assert apply_actions(root, actions).ok
    assert (root / "a.py").read_text() == "def a():\n    return 100\n"


def test_one_failure_means_nothing_is_written(root: Path) -> None:
    actions = [
        _sr("a.py", "    return 1\n", "    return 10\n"),
        _sr("b.py", "    return 99\n", "    return 3\n", block=1),
    ]
    report = apply_actions(root, actions)
    assert not report.ok and not report.written
    assert report.applied == () and [m.path for m in report.matched] == ["a.py"]
    assert [(f.index, f.path) for f in report.failed] == [(1, "b.py")]
    assert (root / "a.py").read_text() == "def a():\n    return 1\n"


def test_partial_writes_the_blocks_that_matched(root: Path) -> None:
    actions = [
        _sr("a.py", "    return 1\n", "    return 10\n"),
        _sr("b.py", "    return 99\n", "    return 3\n", block=1),
    ]
    report = apply_actions(root, actions, ApplyOptions(partial=True))
    assert report.written and [a.path for a in report.applied] == ["a.py"]
    assert (root / "a.py").read_text() == "def a():\n    return 10\n"
    assert (root / "b.py").read_text() == "def b():\n    return 2\n"


def test_dry_run_returns_the_diff_and_writes_nothing(root: Path) -> None:
    before = snapshot(root, meta=True)
    actions = [
        _sr("a.py", "    return 1\n", "    return 10\n"),
        WriteFile(dialect="whole", path="new/dir/c.py", content="c\n", block=1),
        DeleteFile(dialect="bridge", path="b.py", block=2),
    ]
    report = apply_actions(root, actions, ApplyOptions(dry_run=True))
    assert report.ok and report.dry_run and not report.written
    assert "-    return 1\n+    return 10\n" in report.diff
    assert report.diff.startswith("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n")
    # Not a file, directory (no .agentprompt, no new/), mode or mtime changed.
    assert snapshot(root, meta=True) == before


def test_new_file_only_is_refused_when_the_file_exists(root: Path) -> None:
    report = apply_actions(
        root, [WriteFile(dialect="bridge", path="a.py", content="x\n", create_only=True)]
    )
    assert "already exists" in report.failed[0].reason


def test_write_creates_a_file_and_its_directories(root: Path) -> None:
    report = apply_actions(root, [WriteFile(dialect="whole", path="pkg/sub/new.py", content="n\n")])
    assert report.ok
    assert (root / "pkg" / "sub" / "new.py").read_text() == "n\n"
    assert "new file mode 100644" in report.diff


def test_delete_and_move(root: Path) -> None:
    actions = [
        DeleteFile(dialect="bridge", path="a.py"),
        MoveFile(dialect="applypatch", path="b.py", to="lib/b.py", block=1),
    ]
    assert apply_actions(root, actions).ok
    assert not (root / "a.py").exists() and not (root / "b.py").exists()
    assert (root / "lib" / "b.py").read_text() == "def b():\n    return 2\n"


def test_deleting_a_missing_file_fails(root: Path) -> None:
    report = apply_actions(root, [DeleteFile(dialect="bridge", path="gone.py")])
    assert "does not exist" in report.failed[0].reason


def test_patch_with_move_to_writes_the_patched_file_elsewhere(root: Path) -> None:
    hunk = Hunk(lines=(" def a():", "-    return 1", "+    return 5"))
    action = PatchFile(dialect="applypatch", path="a.py", hunks=(hunk,), move_to="c.py")
    assert apply_actions(root, [action]).ok
    assert not (root / "a.py").exists()
    assert (root / "c.py").read_text() == "def a():\n    return 5\n"


def test_file_mode_is_kept(root: Path) -> None:
    os.chmod(root / "a.py", 0o755)
    apply_actions(root, [_sr("a.py", "    return 1\n", "    return 10\n")])
    assert stat.S_IMODE(os.stat(root / "a.py").st_mode) == 0o755


def test_crlf_file_stays_crlf_when_the_model_writes_lf(root: Path) -> None:
    (root / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    assert apply_actions(root, [_sr("w.txt", "two\n", "TWO\n")]).ok
    assert (root / "w.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"


def test_utf8_bom_is_kept(root: Path) -> None:
    (root / "bom.txt").write_bytes(codecs.BOM_UTF8 + b"a\nb\n")
    assert apply_actions(root, [_sr("bom.txt", "b\n", "c\n")]).ok
    assert (root / "bom.txt").read_bytes() == codecs.BOM_UTF8 + b"a\nc\n"


def test_missing_final_newline_stays_missing(root: Path) -> None:
    (root / "n.txt").write_bytes(b"a\nb")
    assert apply_actions(root, [_sr("n.txt", "a\n", "A\n")]).ok
    assert (root / "n.txt").read_bytes() == b"A\nb"
    whole = WriteFile(dialect="whole", path="n.txt", content="x\ny\n")
    assert apply_actions(root, [whole]).ok
    assert (root / "n.txt").read_bytes() == b"x\ny"


def test_non_utf8_file_is_refused_clearly(root: Path) -> None:
    (root / "latin.txt").write_bytes("café\n".encode("latin-1"))
    report = apply_actions(root, [_sr("latin.txt", "café\n", "cafe\n")])
    assert "not UTF-8" in report.failed[0].reason
    assert (root / "latin.txt").read_bytes() == "café\n".encode("latin-1")


def test_binary_file_is_refused(root: Path) -> None:
    (root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    report = apply_actions(root, [WriteFile(dialect="whole", path="img.png", content="x\n")])
    assert "binary" in report.failed[0].reason


def test_requests_mode_switch_and_continue_are_passed_through(root: Path) -> None:
    actions = [
        RequestFiles(dialect="bridge", paths=("a.py", "b.py")),
        RequestFiles(dialect="bridge", paths=("b.py", "c.py")),
        SwitchMode(dialect="bridge", mode="edit", paths=("a.py",), reason="to fix it"),
        Continue(dialect="bridge", remaining=2, paths=("d.py",)),
    ]
    report = apply_actions(root, actions)
    assert report.ok and not report.written
    assert report.requests == ("a.py", "b.py", "c.py")
    assert report.switch_mode is not None and report.switch_mode.mode == "edit"
    assert report.continue_ is not None and report.continue_.remaining == 2
    data = report.to_json()
    assert data["switch_mode"]["mode"] == "edit" and data["continue"]["remaining"] == 2


def test_report_json_has_the_documented_shape(root: Path) -> None:
    actions = [
        _sr("a.py", "    return 1\n", "    return 10\n"),
        _sr("b.py", "nope\n", "x\n", block=1),
    ]
    data = apply_actions(root, actions, ApplyOptions(partial=True)).to_json()
    assert {"applied", "failed", "requests", "switch_mode", "continue", "diff"} <= set(data)
    assert data["applied"][0]["path"] == "a.py" and data["applied"][0]["action"] == "replace"
    assert {"index", "path", "reason", "feedback"} <= set(data["failed"][0])


def test_empty_search_creates_a_file_or_appends(root: Path) -> None:
    assert apply_actions(root, [_sr("new.txt", "", "hello\n")]).ok
    assert (root / "new.txt").read_text() == "hello\n"
    assert apply_actions(root, [_sr("new.txt", "", "again\n")]).ok
    assert (root / "new.txt").read_text() == "hello\nagain\n"


def test_anchored_edit_replaces_after_its_anchor(root: Path) -> None:
    edit = AnchoredEdit(
        dialect="editrepl",
        path="a.py",
        search="def a():\n    return 1\n",
        replace="def a():\n    return 7\n",
        anchor="def a():\n",
    )
    assert apply_actions(root, [edit]).ok
    assert (root / "a.py").read_text() == "def a():\n    return 7\n"


def test_anchored_edit_with_empty_edit_section_refuses_an_existing_file(root: Path) -> None:
    edit = AnchoredEdit(dialect="editrepl", path="a.py", search="", replace="x\n", anchor="")
    assert "already exists" in apply_actions(root, [edit]).failed[0].reason


def test_ambiguous_search_fails_and_lists_the_places(root: Path) -> None:
    (root / "d.py").write_text("x = 1\ny = 2\nx = 1\ny = 2\n")
    report = apply_actions(root, [_sr("d.py", "x = 1\ny = 2\n", "z = 3\n")])
    assert report.failed[0].candidates == (1, 3)
    assert "lines 1, 3" in report.failed[0].reason


def test_replacement_is_reindented_to_the_file(root: Path) -> None:
    report = apply_actions(root, [_sr("a.py", "return 1\n", "x = 1\nreturn x\n")])
    assert report.applied[0].stage == "indentation"
    assert (root / "a.py").read_text() == "def a():\n    x = 1\n    return x\n"


def test_root_that_is_not_a_directory_is_an_error(root: Path) -> None:
    with pytest.raises(NotADirectory):
        apply_actions(root / "a.py", [])


def test_journal_is_gone_after_success(root: Path) -> None:
    apply_actions(root, [_sr("a.py", "    return 1\n", "    return 10\n")])
    assert not (root / ".agentprompt").exists()


def test_apply_reply_parses_and_applies(root: Path) -> None:
    reply = "a.py\n```\n<<<<<<< SEARCH\n    return 1\n=======\n    return 3\n>>>>>>> REPLACE\n```\n"
    report = apply_reply(root, reply)
    assert report.ok, report.feedback
    assert (root / "a.py").read_text() == "def a():\n    return 3\n"


def test_a_new_file_cannot_also_be_a_directory_of_another(root: Path) -> None:
    actions = [
        WriteFile(dialect="whole", path="pkg", content="x\n"),
        WriteFile(dialect="whole", path="pkg/mod.py", content="y\n", block=1),
    ]
    report = apply_actions(root, actions)
    assert "cannot be a directory" in report.failed[0].reason
    assert report.failed[0].index == 1
    assert not (root / "pkg").exists()


def test_a_file_that_cannot_be_read_fails_its_block_without_a_traceback(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentprompt.edits import _plan as plan

    def denied(*args: object, **kwargs: object) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(plan, "_read", denied)
    report = apply_actions(root, [_sr("a.py", "    return 1\n", "    return 10\n")])
    assert "Permission denied" in report.failed[0].reason


def test_the_review_diff_shows_only_the_lines_that_change(tmp_path: Path) -> None:
    original = "".join(f"line {i}\n" for i in range(1, 41))
    (tmp_path / "f.txt").write_text(original)
    quoted = "".join(f"line {i}\n" for i in range(3, 13))
    changed = quoted.replace("line 4\n", "line four\n").replace("line 11\n", "line eleven\n")
    report = apply_actions(tmp_path, [_sr("f.txt", quoted, changed)], ApplyOptions(dry_run=True))
    body = [
        line
        for line in report.diff.splitlines()
        if line[:1] in "+-" and line[:3] not in ("---", "+++")
    ]
    assert body == ["-line 4", "+line four", "-line 11", "+line eleven"]
    (tmp_path / "review.diff").write_text(report.diff)
    check = subprocess.run(
        ["git", "apply", "--check", "review.diff"], cwd=tmp_path, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
