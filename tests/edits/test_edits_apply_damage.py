"""Edits that must never damage a file: wrong places, substrings, links, tabs, stale deletes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from edits_snapshot import snapshot

from agentprompt.edits.actions import (
    DeleteFile,
    Hunk,
    MoveFile,
    PatchFile,
    SearchReplace,
    WriteFile,
)
from agentprompt.edits.apply import ApplyOptions, apply_actions, apply_reply
from agentprompt.edits.paths import UnsafePath, resolve_inside

TESTS = """def test_add():
    calc = Calculator(mode="fast")
    calc.reset()
    # check the result
    assert calc.add(1, 2) == 3
    calc.close()

def test_sub():
    calc = Calculator()
    calc.reset()
    # check the result
    assert calc.sub(2, 1) == 1
    calc.close()
"""


def _sr(path: str, search: str, replace: str) -> SearchReplace:
    return SearchReplace(dialect="searchreplace", path=path, search=search, replace=replace)


def test_fuzzy_hunk_for_a_changed_function_does_not_land_in_its_neighbour(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text(TESTS)
    reply = (
        "--- a/t.py\n+++ b/t.py\n@@ -1,6 +1,6 @@\n def test_add():\n"
        "-    calc = Calculator()\n+    calc = Calculator(precision=2)\n     calc.reset()\n"
        "     # check the result\n     assert calc.add(1, 2) == 3\n     calc.close()\n"
    )
    report = apply_reply(tmp_path, reply)
    assert not report.ok and not report.written
    assert (tmp_path / "t.py").read_text() == TESTS


def test_fuzzy_search_for_a_changed_function_does_not_land_in_its_neighbour(
    tmp_path: Path,
) -> None:
    (tmp_path / "t.py").write_text(TESTS)
    search = "def test_add():\n    calc = Calculator()\n    calc.reset()\n"
    replace = "def test_add():\n    calc = Calculator(precision=2)\n    calc.reset()\n"
    report = apply_actions(tmp_path, [_sr("t.py", search, replace)])
    assert not report.ok
    assert (tmp_path / "t.py").read_text() == TESTS


def test_search_inside_a_line_needs_word_boundaries(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("max = 10\n")
    report = apply_actions(tmp_path, [_sr("a.py", "x = 1", "x = 2")])
    assert not report.ok
    assert (tmp_path / "a.py").read_text() == "max = 10\n"


def test_search_inside_a_line_counts_overlapping_occurrences(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("weights = [0, 0, 0]\n")
    report = apply_actions(tmp_path, [_sr("a.py", "0, 0", "1, 1")])
    assert not report.ok
    assert (tmp_path / "a.py").read_text() == "weights = [0, 0, 0]\n"


def test_search_inside_a_line_is_replaced_when_it_stands_once_as_words(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def a():\n    return 1\n")
    assert apply_actions(tmp_path, [_sr("a.py", "return 1", "return 42")]).ok
    assert (tmp_path / "a.py").read_text() == "def a():\n    return 42\n"


def test_deleting_a_symlink_never_deletes_its_target(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("keep\n")
    (tmp_path / "alias.txt").symlink_to("real.txt")
    report = apply_actions(tmp_path, [DeleteFile(dialect="bridge", path="alias.txt")])
    assert not report.ok and "symbolic link" in report.failed[0].reason
    assert (tmp_path / "real.txt").read_text() == "keep\n"
    assert (tmp_path / "alias.txt").is_symlink()


def test_moving_a_symlink_never_moves_its_target(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("keep\n")
    (tmp_path / "alias.txt").symlink_to("real.txt")
    report = apply_actions(tmp_path, [MoveFile(dialect="bridge", path="alias.txt", to="b.txt")])
    assert not report.ok
    assert (tmp_path / "real.txt").read_text() == "keep\n"
    assert not (tmp_path / "b.txt").exists()


def test_editing_through_an_inside_symlink_edits_the_target_and_keeps_the_link(
    tmp_path: Path,
) -> None:
    (tmp_path / "real.txt").write_text("one\n")
    (tmp_path / "alias.txt").symlink_to("real.txt")
    assert apply_actions(tmp_path, [_sr("alias.txt", "one\n", "two\n")]).ok
    assert (tmp_path / "alias.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "two\n"


def test_spaces_quoted_for_a_tab_indented_file_insert_tabs(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n")
    search = "    if x:\n        return 1\n"
    replace = "    if x:\n        log(x)\n        return 1\n"
    assert apply_actions(tmp_path, [_sr("m.py", search, replace)]).ok
    assert (
        tmp_path / "m.py"
    ).read_text() == "def f(x):\n\tif x:\n\t\tlog(x)\n\t\treturn 1\n\treturn 2\n"


def test_indentation_that_cannot_be_mapped_to_tabs_fails(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f(x):\n\tif x:\n\t\treturn 1\n")
    search = "    if x:\n        return 1\n"
    replace = "    if x:\n      odd(x)\n        return 1\n"
    report = apply_actions(tmp_path, [_sr("m.py", search, replace)])
    assert not report.ok and "indent" in report.failed[0].reason
    assert (tmp_path / "m.py").read_text() == "def f(x):\n\tif x:\n\t\treturn 1\n"


def test_diff_deleting_a_file_that_changed_keeps_it(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("changed by user\n")
    report = apply_reply(tmp_path, "--- a/f.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-original\n")
    assert not report.ok
    assert (tmp_path / "f.txt").read_text() == "changed by user\n"


def test_diff_deleting_a_file_it_quotes_deletes_it(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("original\n")
    assert apply_reply(tmp_path, "--- a/f.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-original\n").ok
    assert not (tmp_path / "f.txt").exists()


def test_identical_blocks_are_ambiguous_even_when_the_header_names_one(tmp_path: Path) -> None:
    block = "    if err:\n        return None\n"
    src = "def a():\n" + block + "    pass\n\ndef b():\n" + block + "    pass\n"
    (tmp_path / "f.py").write_text(src)
    reply = (
        "--- a/f.py\n+++ b/f.py\n@@ -7,2 +7,2 @@\n"
        "     if err:\n-        return None\n+        return -1\n"
    )
    report = apply_reply(tmp_path, reply)
    assert not report.ok and report.failed[0].candidates == (2, 7)
    assert (tmp_path / "f.py").read_text() == src


def test_end_of_file_hunk_does_not_apply_before_the_end(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("end\nmore\n")
    hunk = Hunk(lines=("-end",), at_end_of_file=True)
    report = apply_actions(tmp_path, [PatchFile(dialect="applypatch", path="f.txt", hunks=(hunk,))])
    assert not report.ok and "end of the file" in report.failed[0].reason
    assert (tmp_path / "f.txt").read_text() == "end\nmore\n"


def test_zero_context_insertion_in_the_middle_is_refused(tmp_path: Path) -> None:
    body = "".join(f"line{i}\n" for i in range(1, 41))
    (tmp_path / "f.txt").write_text(body)
    report = apply_reply(tmp_path, "--- a/f.txt\n+++ b/f.txt\n@@ -10,0 +11,1 @@\n+INSERTED\n")
    assert not report.ok and "context" in report.failed[0].reason
    assert (tmp_path / "f.txt").read_text() == body


def test_path_with_a_lone_surrogate_is_refused_without_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(UnsafePath):
        resolve_inside(tmp_path, "\ud800x")
    report = apply_actions(tmp_path, [_sr("\ud800x", "", "x\n")])
    assert not report.ok and not os.listdir(tmp_path)


@pytest.mark.parametrize("name", [".git.", ".GIT", "GIT~1", ".g\u200bit", ".git ", ".Git"])
def test_platform_spellings_of_git_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(UnsafePath):
        resolve_inside(tmp_path, f"{name}/config")


def test_reply_naming_an_applier_temporary_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafePath):
        resolve_inside(tmp_path, ".a.txt.agentprompt-1.tmp")


def test_mixed_line_endings_are_kept_line_by_line(tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_bytes(b"a\nb\r\nc\nd\n")
    assert apply_actions(tmp_path, [_sr("m.txt", "d\n", "D\nE\n")]).ok
    assert (tmp_path / "m.txt").read_bytes() == b"a\nb\r\nc\nD\nE\n"


def test_mixed_line_endings_without_a_final_newline_stay_so(tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_bytes(b"a\r\nb\r\nc\nd")
    assert apply_actions(tmp_path, [_sr("m.txt", "a\n", "A\n")]).ok
    assert (tmp_path / "m.txt").read_bytes() == b"A\r\nb\r\nc\nd"


DRY_REPLY = """<<<DIFF: a.py>>>
@@ -1,2 +1,2 @@
 def f():
-    return 1
+    return 2
<<<END>>>
<<<FILE: [NEW] d/new.txt>>>
n
<<<END>>>
<<<DELETE: gone.txt>>>
crlf.txt
```
<<<<<<< SEARCH
y
=======
Y
>>>>>>> REPLACE
```
bom.txt
```
<<<<<<< SEARCH
l
=======
L
>>>>>>> REPLACE
```
"""


def _dry_repo(root: Path) -> None:
    (root / "a.py").write_text("def f():\n    return 1\n")
    (root / "crlf.txt").write_bytes(b"x\r\ny\r\n")
    (root / "gone.txt").write_text("g\n")
    (root / "bom.txt").write_bytes(b"\xef\xbb\xbfk\nl\n")


def test_dry_run_changes_no_file_directory_mode_or_mtime(tmp_path: Path) -> None:
    _dry_repo(tmp_path)
    before = snapshot(tmp_path, meta=True)
    report = apply_reply(tmp_path, DRY_REPLY, options=ApplyOptions(dry_run=True))
    assert report.ok and report.diff and not report.written
    assert snapshot(tmp_path, meta=True) == before


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_dry_run_diff_of_crlf_and_bom_files_applies_with_git(tmp_path: Path) -> None:
    _dry_repo(tmp_path)
    report = apply_reply(tmp_path, DRY_REPLY, options=ApplyOptions(dry_run=True))
    (tmp_path.parent / "dry.diff").write_bytes(report.diff.encode("utf-8"))
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    check = subprocess.run(
        ["git", "-C", str(tmp_path), "apply", "--check", str(tmp_path.parent / "dry.diff")],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr


@pytest.mark.parametrize(
    "marker",
    ["# rest of the file unchanged", "    // ... existing code ...", "... (unchanged)", "# ..."],
)
def test_whole_file_write_that_elides_code_is_refused(tmp_path: Path, marker: str) -> None:
    old = "".join(f"line {i}\n" for i in range(20))
    (tmp_path / "f.py").write_text(old)
    content = f"line 0\nLINE 1\n{marker}\n"
    report = apply_actions(tmp_path, [WriteFile(dialect="whole", path="f.py", content=content)])
    assert not report.ok and "complete file" in report.failed[0].reason
    assert (tmp_path / "f.py").read_text() == old


def test_whole_file_write_without_elision_replaces_a_longer_file(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("a\nb\nc\n# ...\n")
    content = "a\n# ... a note that was already there\n"
    assert apply_actions(tmp_path, [WriteFile(dialect="whole", path="f.py", content="a\n")]).ok
    assert apply_actions(tmp_path, [WriteFile(dialect="whole", path="f.py", content=content)]).ok


def test_two_new_files_differing_only_by_case_are_refused(tmp_path: Path) -> None:
    actions = [
        WriteFile(dialect="whole", path="A.txt", content="a\n"),
        WriteFile(dialect="whole", path="a.txt", content="b\n", block=1),
    ]
    report = apply_actions(tmp_path, actions)
    assert not report.ok and "only by case" in report.failed[0].reason
    assert not os.listdir(tmp_path)


def test_a_new_file_differing_by_case_from_an_existing_one_is_refused(tmp_path: Path) -> None:
    (tmp_path / "Readme.md").write_text("r\n")
    report = apply_actions(tmp_path, [WriteFile(dialect="whole", path="README.md", content="x\n")])
    assert not report.ok and "only by case" in report.failed[0].reason
