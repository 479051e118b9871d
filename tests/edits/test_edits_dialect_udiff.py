"""Unified diffs: headers, /dev/null, git extended headers, hunk headers, fences, cut-offs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.edits import DeleteFile, MoveFile, PatchFile, WriteFile, parse_reply
from agentprompt.edits.actions import Hunk
from agentprompt.edits.apply import ApplyOptions, apply_reply


def only(reply: str) -> object:
    (action,) = parse_reply(reply).actions
    return action


def test_fenced_diff_with_a_and_b_prefixes() -> None:
    action = only("```diff\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```\n")
    assert isinstance(action, PatchFile)
    assert action.path == "x.py"
    assert action.hunks[0].lines == (" a", "-b", "+c")


def test_bare_diff_ends_at_prose() -> None:
    result = parse_reply("--- x.py\n+++ x.py\n@@ -1 +1 @@\n-a\n+b\n\nThat is all.\n")
    (action,) = result.actions
    assert isinstance(action, PatchFile)
    assert action.hunks[0].lines == ("-a", "+b")
    assert result.diagnostics == ()


def test_several_files_are_separate_blocks() -> None:
    reply = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n"
    actions = parse_reply(reply).actions
    assert [(a.block, getattr(a, "path", None)) for a in actions] == [(0, "x"), (1, "y")]


def test_dev_null_old_side_creates_the_file_create_only() -> None:
    action = only("--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a\n+b\n")
    assert action == WriteFile(
        path="new.py", content="a\nb\n", create_only=True, dialect="udiff", line=1
    )


def test_dev_null_new_side_deletes_the_file() -> None:
    action = only("--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n")
    assert action == DeleteFile(path="old.py", dialect="udiff", line=1, expected="a\n")


def test_hunk_header_numbers_are_kept_as_hints() -> None:
    action = only("```diff\n--- a/x\n+++ b/x\n@@ -8,7 +8,25 @@ def f():\n-a\n+b\n```\n")
    assert isinstance(action, PatchFile)
    hunk = action.hunks[0]
    assert (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count) == (8, 7, 8, 25)


def test_hunk_header_without_counts() -> None:
    action = only("--- a/x\n+++ b/x\n@@ -3 +3 @@\n-a\n+b\n")
    assert isinstance(action, PatchFile)
    hunk = action.hunks[0]
    assert (hunk.old_start, hunk.old_count, hunk.new_start) == (3, None, 3)


def test_hunk_header_without_numbers() -> None:
    action = only("--- a/x\n+++ b/x\n@@ ... @@\n-a\n+b\n@@\n-c\n+d\n")
    assert isinstance(action, PatchFile)
    assert [h.old_start for h in action.hunks] == [None, None]
    assert len(action.hunks) == 2


def test_no_newline_at_end_of_file_marker() -> None:
    action = only("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n")
    assert isinstance(action, PatchFile)
    assert action.hunks[0].no_newline_at_end
    assert action.hunks[0].lines == ("-a", "+b")


def test_new_file_without_final_newline() -> None:
    action = only("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n")
    assert isinstance(action, WriteFile)
    assert action.content == "a"


def test_git_extended_headers_are_read() -> None:
    reply = (
        "diff --git a/src/x.py b/src/x.py\nindex 83db48f..bf269f4 100644\n"
        "--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    )
    action = only(reply)
    assert isinstance(action, PatchFile)
    assert action.path == "src/x.py"


def test_git_new_file_mode() -> None:
    reply = "diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\nDone.\n"
    action = only(reply)
    assert action == WriteFile(path="e.txt", content="", create_only=True, dialect="udiff", line=1)


def test_git_rename_without_changes_is_a_move() -> None:
    reply = (
        "diff --git a/old.py b/new.py\nsimilarity index 100%\n"
        "rename from old.py\nrename to new.py\n\nDone.\n"
    )
    assert only(reply) == MoveFile(path="old.py", to="new.py", dialect="udiff", line=1)


def test_git_rename_with_changes_is_a_patch_that_moves() -> None:
    reply = (
        "diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\n"
        "rename to new.py\n--- a/old.py\n+++ b/new.py\n@@ -1 +1 @@\n-a\n+b\n"
    )
    action = only(reply)
    assert isinstance(action, PatchFile)
    assert (action.path, action.move_to) == ("old.py", "new.py")


def test_bare_diff_ending_in_its_headers_at_the_end_of_the_reply_is_truncated() -> None:
    # "rename to" may be followed by "---"/"+++" and hunks that were cut off.
    reply = "diff --git a/old.py b/new.py\nrename from old.py\nrename to new.py\n"
    result = parse_reply(reply)
    assert result.actions == ()
    assert result.truncated


def test_binary_patch_is_refused_with_a_reason() -> None:
    reply = "```diff\ndiff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n```\n"
    result = parse_reply(reply)
    assert result.actions == ()
    assert [d.code for d in result.diagnostics] == ["binary-patch"]


def test_context_line_without_its_space_inside_a_fence_is_context() -> None:
    reply = "```diff\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\nnot prefixed\n```\n"
    result = parse_reply(reply)
    (action,) = result.actions
    assert isinstance(action, PatchFile)
    assert action.hunks[0].lines == (" a", " ", "-b", "+c", " not prefixed")
    assert [d.code for d in result.diagnostics] == ["missing-prefix"]


def test_blank_line_between_hunks_is_not_context_beyond_the_count() -> None:
    action = only("--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+b\n\n@@ -5,1 +5,1 @@\n-c\n+d\n")
    assert isinstance(action, PatchFile)
    assert action.hunks[0].lines == ("-a", "+b")


def test_minus_header_without_plus_header() -> None:
    action = only("--- example.txt\n@@ -12,2 +12,1 @@\n a\n-b\n")
    assert isinstance(action, PatchFile)
    assert action.path == "example.txt"


def test_fenced_diff_cut_off_drops_only_the_last_file() -> None:
    reply = "```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c"
    result = parse_reply(reply)
    assert [getattr(a, "path", None) for a in result.actions] == ["x"]
    assert result.truncated


def test_markdown_rule_is_not_a_header() -> None:
    assert parse_reply("intro\n---\n+++ not a header\n").actions == ()


def test_a_context_line_of_backticks_does_not_close_the_fence() -> None:
    reply = "```diff\n--- a/R.md\n+++ b/R.md\n@@ -1,2 +1,2 @@\n ```\n-a\n+b\n```\n"
    action = only(reply)
    assert isinstance(action, PatchFile)
    assert action.hunks[0].lines == (" ```", "-a", "+b")


def test_a_diff_in_an_indented_fence_of_a_list_item() -> None:
    reply = "1. Change x:\n   ```diff\n   --- a/x\n   +++ b/x\n   ```\n"
    assert parse_reply(reply).actions == ()
    reply = "1. Change x:\n   ```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n   ```\nDone.\n"
    result = parse_reply(reply)
    assert [a.kind for a in result.actions] == ["patch"]
    assert result.diagnostics == ()


def test_hunks_without_file_headers_take_the_path_line_before_the_fence() -> None:
    result = parse_reply("src/x.py\n```diff\n@@ -1 +1 @@\n-a\n+b\n```\n")
    (action,) = result.actions
    assert isinstance(action, PatchFile)
    assert action.path == "src/x.py"
    assert [(d.code, d.severity) for d in result.diagnostics] == [
        ("missing-file-header", "warning")
    ]


def test_hunks_without_file_headers_or_path_are_an_error() -> None:
    result = parse_reply("Change this:\n```diff\n@@ -1 +1 @@\n-a\n+b\n```\n")
    assert result.actions == ()
    assert [(d.code, d.severity) for d in result.diagnostics] == [("missing-file-header", "error")]


def _hunk_lines(action: object) -> list[list[str]]:
    assert isinstance(action, PatchFile)
    return [list(h.lines) for h in action.hunks]


def test_removed_sql_comment_inside_a_hunk_is_a_removed_line_not_a_file_header() -> None:
    reply = (
        "```diff\n--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,2 @@\n select 1;\n--- old comment\n"
        "@@ -10,2 +9,2 @@\n x\n-y\n+z\n```\n"
    )
    action = only(reply)
    assert isinstance(action, PatchFile) and action.path == "q.sql"
    assert _hunk_lines(action) == [[" select 1;", "--- old comment"], [" x", "-y", "+z"]]


def test_removed_and_added_double_dash_lines_inside_a_counted_hunk_stay_in_it() -> None:
    for reply, path in (
        ("--- a/m.lua\n+++ b/m.lua\n@@ -1,2 +1,2 @@\n local x = 1\n--- c\n+++ d\n", "m.lua"),
        (
            "```diff\n--- a/doc.md\n+++ b/doc.md\n@@ -1,3 +1,3 @@\n"
            " # T\n--- old\n+++ new\n end\n```\n",
            "doc.md",
        ),
    ):
        action = only(reply)
        assert isinstance(action, PatchFile)
        assert (action.path, action.move_to) == (path, None)
        assert {"--- c", "--- old"} & set(_hunk_lines(action)[0])


def test_a_further_file_after_a_complete_hunk_starts_at_its_headers() -> None:
    reply = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n"
    assert [getattr(a, "path", None) for a in parse_reply(reply).actions] == ["x", "y"]


def test_bare_diff_cut_inside_a_line_is_truncated() -> None:
    result = parse_reply("--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-bbb\n+cc")
    assert result.actions == ()
    assert result.truncated


def test_bare_diff_cut_inside_its_headers_is_truncated_not_a_move() -> None:
    result = parse_reply("--- a/x.py\n+++ b/x.p")
    assert result.actions == ()
    assert result.truncated


def test_bare_diff_cut_after_its_removed_lines_is_truncated() -> None:
    # The old side holds the 2 lines its header declares: only added lines can be missing.
    result = parse_reply("--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n-bbb\n")
    assert result.actions == ()
    assert result.truncated


def test_bare_diff_cut_among_its_added_lines_is_truncated() -> None:
    result = parse_reply("--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,4 @@\n a\n-bbb\n+ccc\n+ddd\n")
    assert result.actions == ()
    assert result.truncated


def test_bare_diff_cut_before_its_old_side_ends_is_refused_where_the_file_goes_on(
    tmp_path: Path,
) -> None:
    # Read as a hunk reaching the end of the file (its counts are not those of its old
    # side), and refused because the file does not end there: nothing is written.
    (tmp_path / "x.py").write_text("a\nbbb\nd\n")
    reply = "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-bbb\n"
    hunk = _only_hunk(reply)
    assert (hunk.open_end, hunk.at_end_of_file) == (True, True)
    report = apply_reply(tmp_path, reply)
    assert not report.ok
    assert "cut off" in report.feedback
    assert (tmp_path / "x.py").read_text() == "a\nbbb\nd\n"


def _only_hunk(reply: str) -> Hunk:
    action = only(reply)
    assert isinstance(action, PatchFile) and len(action.hunks) == 1
    return action.hunks[0]


END_WRONG_COUNTS = (
    "--- a/tox.ini\n+++ b/tox.ini\n@@ -5,6 +5,6 @@ deps = pre-commit\n [testenv:docs]\n"
    "-commands = sphinx-build -W docs\n+commands = sphinx-build -E -W docs\n+\n+[testenv:x]\n"
)
TOX = "[tox]\nenvlist = py\n\n[testenv:style]\ndeps = pre-commit\n[testenv:docs]\n"


def test_a_hunk_with_wrong_counts_that_stops_on_a_change_is_placed_at_the_end_of_the_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "tox.ini").write_text(TOX + "commands = sphinx-build -W docs\n")
    result = parse_reply(END_WRONG_COUNTS)
    assert not result.truncated
    assert [d.code for d in result.diagnostics] == ["hunk-counts"]
    assert apply_reply(tmp_path, END_WRONG_COUNTS).ok
    assert (tmp_path / "tox.ini").read_text() == (
        TOX + "commands = sphinx-build -E -W docs\n\n[testenv:x]\n"
    )


def test_a_hunk_read_as_reaching_the_end_is_refused_when_its_lines_also_stand_elsewhere(
    tmp_path: Path,
) -> None:
    tail = "[testenv:docs]\ncommands = sphinx-build -W docs\n"
    (tmp_path / "tox.ini").write_text(tail + "\n" + tail)
    report = apply_reply(tmp_path, END_WRONG_COUNTS)
    assert not report.ok
    assert (tmp_path / "tox.ini").read_text() == tail + "\n" + tail


def test_bare_diff_ends_at_bullet_prose_after_its_counts() -> None:
    reply = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\n- renamed b to c\n+ nothing else\n"
    assert _hunk_lines(only(reply)) == [[" a", "-b", "+c"]]


def test_blank_line_before_the_closing_fence_is_not_a_context_line() -> None:
    reply = "```diff\n--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n a\n-b\n+c\n\n```\n"
    assert _hunk_lines(only(reply)) == [[" a", "-b", "+c"]]


def test_copy_headers_are_refused_not_read_as_a_move() -> None:
    reply = (
        "diff --git a/a.py b/b.py\nsimilarity index 100%\ncopy from a.py\ncopy to b.py\n\nDone.\n"
    )
    result = parse_reply(reply)
    assert result.actions == ()
    assert [d.code for d in result.diagnostics] == ["copy-unsupported"]


def test_prefix_on_one_side_only_names_the_same_file() -> None:
    action = only("--- x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    assert isinstance(action, PatchFile)
    assert (action.path, action.move_to) == ("x.py", None)


def test_timestamps_after_spaces_are_not_part_of_the_path() -> None:
    reply = "--- x.py  2024-01-01 10:00:00\n+++ x.py  2024-01-02 10:00:00\n@@ -1 +1 @@\n-a\n+b\n"
    action = only(reply)
    assert isinstance(action, PatchFile)
    assert (action.path, action.move_to) == ("x.py", None)


def test_deleted_file_mode_deletes_the_file() -> None:
    reply = "diff --git a/g.py b/g.py\ndeleted file mode 100644\nindex 1..0\n\nDone.\n"
    assert only(reply) == DeleteFile(path="g.py", dialect="udiff", line=1)


def test_huge_hunk_numbers_are_a_malformed_header_not_a_crash() -> None:
    reply = "```diff\n--- a/x\n+++ b/x\n@@ -" + "9" * 5000 + " +1 @@\n-a\n+b\n```\n"
    result = parse_reply(reply)
    assert "bad-hunk-header" in [d.code for d in result.diagnostics]


def test_no_newline_marker_after_a_removed_line_marks_the_old_side() -> None:
    reply = "```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n```\n"
    action = only(reply)
    assert isinstance(action, PatchFile)
    hunk = action.hunks[0]
    assert (hunk.old_no_newline_at_end, hunk.no_newline_at_end) == (True, False)


def test_diff_indented_under_a_list_item_is_read() -> None:
    reply = "1. Fix:\n   ```diff\n   --- a/x\n   +++ b/x\n   @@ -1 +1 @@\n   -a\n   +b\n   ```\n"
    assert _hunk_lines(only(reply)) == [["-a", "+b"]]


WRONG_COUNTS = (
    "--- a/m.py\n+++ b/m.py\n@@ -1,9 +1,9 @@\n import os\n \n def f():\n-    return 1\n"
    "+    return 2\n \n \n def g():\n"
)


def test_a_bare_diff_with_wrong_counts_that_ends_on_its_context_is_applied(
    tmp_path: Path,
) -> None:
    (tmp_path / "m.py").write_text("import os\n\ndef f():\n    return 1\n\n\ndef g():\n    pass\n")
    result = parse_reply(WRONG_COUNTS)
    assert not result.truncated
    assert [d.code for d in result.diagnostics] == ["hunk-counts"]
    assert apply_reply(tmp_path, WRONG_COUNTS).ok
    assert "return 2" in (tmp_path / "m.py").read_text()


@pytest.mark.parametrize(
    "cut",
    [
        # ends on a change
        "--- a/m.py\n+++ b/m.py\n@@ -1,9 +1,9 @@\n import os\n \n def f():\n-    return 1\n",
        # fewer closing context lines than opening ones
        "--- a/m.py\n+++ b/m.py\n@@ -1,9 +1,9 @@\n import os\n \n def f():\n-    return 1\n"
        "+    return 2\n \n",
    ],
)
def test_a_bare_diff_cut_off_inside_its_last_hunk_is_never_applied(
    cut: str, tmp_path: Path
) -> None:
    # Read as reaching the end of the file (its old side is not what the header declares),
    # then refused there, since the file goes on after those lines.
    text = "import os\n\ndef f():\n    return 1\n\n\ndef g():\n    pass\n"
    (tmp_path / "m.py").write_text(text)
    assert not apply_reply(tmp_path, cut).ok
    assert (tmp_path / "m.py").read_text() == text


def test_a_bare_diff_cut_off_inside_a_line_is_truncated() -> None:
    assert parse_reply(WRONG_COUNTS[:-3]).truncated


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ("new file mode 120000\nindex 0000000..e69de29\n", "symlink-unsupported"),
        ("new file mode 160000\nindex 0000000..e69de29\n", "submodule-unsupported"),
        ("old mode 100644\nnew mode 120000\n", "symlink-unsupported"),
        ("index 1234567..89abcde 120000\n", "symlink-unsupported"),
    ],
)
def test_a_symlink_or_submodule_diff_is_refused_and_never_written(
    tmp_path: Path, headers: str, code: str
) -> None:
    reply = (
        "```diff\ndiff --git a/link b/link\n" + headers + "--- a/link\n+++ b/link\n"
        "@@ -0,0 +1 @@\n+../outside/target\n\\ No newline at end of file\n```\n"
    )
    assert [d.code for d in parse_reply(reply).diagnostics] == [code]
    report = apply_reply(tmp_path, reply)
    assert not report.ok
    assert "git mode 1" in report.feedback and "link" in report.feedback
    assert not (tmp_path / "link").exists()


def test_a_symlink_diff_is_refused_in_japanese_too(tmp_path: Path) -> None:
    reply = (
        "```diff\ndiff --git a/l b/l\nnew file mode 120000\n"
        "--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+t\n```\n"
    )
    report = apply_reply(tmp_path, reply, options=ApplyOptions(lang="ja"))
    assert "シンボリックリンク" in report.feedback
    assert not (tmp_path / "l").exists()
