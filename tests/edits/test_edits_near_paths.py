"""An edit to a path that does not exist, near one that does (a mistyped name, a wrong
folder), is told which file it probably meant, not to create a new file; the explicit
new-file forms still create one."""

from __future__ import annotations

from pathlib import Path

from agentprompt.edits._near import near_paths
from agentprompt.edits.apply import ApplyOptions, apply_reply

UTILS = "def to_native(s):\n    return s\n\n\ndef other():\n    pass\n"


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "src" / "requests").mkdir(parents=True)
    (tmp_path / "src" / "requests" / "utils.py").write_text(UTILS)
    (tmp_path / "src" / "requests" / "api.py").write_text("x = 1\n")
    return tmp_path


def _patch(path: str) -> str:
    return (
        f"--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n def to_native(s):\n"
        "-    return s\n+    return str(s)\n"
    )


def test_a_mistyped_name_is_told_the_file_it_probably_meant(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    report = apply_reply(root, _patch("src/requests/util.py"))
    assert not report.ok
    assert "did you mean `src/requests/utils.py`" in report.feedback
    assert "create it with the whole content" not in report.feedback
    assert not (root / "src" / "requests" / "util.py").exists()


def test_a_wrong_folder_is_told_the_file_it_probably_meant(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    reply = (
        "requests/utils.py\n<<<<<<< SEARCH\n    return s\n=======\n    return str(s)\n"
        ">>>>>>> REPLACE\n"
    )
    report = apply_reply(root, reply)
    assert not report.ok
    assert "`src/requests/utils.py`" in report.failed[0].reason
    assert not (root / "requests").exists()


def test_a_path_near_nothing_keeps_the_advice_to_create_it(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    report = apply_reply(root, _patch("docs/changelog.md"))
    assert not report.ok
    assert "create it with the whole content" in report.failed[0].reason


def test_the_new_file_form_still_creates_a_file_near_another(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    reply = "--- /dev/null\n+++ b/src/requests/util.py\n@@ -0,0 +1 @@\n+y = 2\n"
    report = apply_reply(root, reply)
    assert report.ok, report.feedback
    assert (root / "src" / "requests" / "util.py").read_text() == "y = 2\n"


def test_deleting_a_mistyped_path_names_the_near_file(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    reply = "*** Begin Patch\n*** Delete File: src/requests/utils.pyy\n*** End Patch\n"
    report = apply_reply(root, reply, options=ApplyOptions(dry_run=True))
    assert not report.ok
    assert "`src/requests/utils.py`" in report.failed[0].reason


def test_near_paths_ranks_by_the_whole_path_and_skips_hidden_folders(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "tests").mkdir()
    (root / "tests" / "utils.py").write_text("")
    (root / ".git").mkdir()
    (root / ".git" / "util.py").write_text("")
    assert near_paths(root, "src/requests/util.py") == [
        "src/requests/utils.py",
        "tests/utils.py",
    ]
    assert near_paths(root, "nothing/like/this.txt") == []
