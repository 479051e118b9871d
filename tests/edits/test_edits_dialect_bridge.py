"""Seed 003's bridge markers, one test per marker and per tolerance."""

from __future__ import annotations

from agentprompt.edits import (
    Continue,
    DeleteFile,
    PatchFile,
    RequestFiles,
    SwitchMode,
    WriteFile,
    parse_reply,
)


def test_file_marker_replaces_the_whole_file() -> None:
    result = parse_reply("<<<FILE: src/utils.ts>>>\nexport const a = 1;\n<<<END>>>\n")
    assert result.actions == (
        WriteFile(path="src/utils.ts", content="export const a = 1;\n", dialect="bridge", line=1),
    )
    assert result.diagnostics == ()


def test_new_file_marker_is_create_only() -> None:
    (action,) = parse_reply("<<<FILE: [NEW] src/new.ts>>>\nx\n<<<END>>>").actions
    assert isinstance(action, WriteFile)
    assert (action.path, action.create_only) == ("src/new.ts", True)


def test_diff_marker_gives_hunks() -> None:
    reply = "<<<DIFF: src/a.ts>>>\n@@ -10,5 +10,7 @@\n keep\n-old\n+new\n<<<END>>>\n"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, PatchFile)
    assert action.path == "src/a.ts"
    (hunk,) = action.hunks
    assert hunk.lines == (" keep", "-old", "+new")
    assert (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count) == (10, 5, 10, 7)


def test_diff_marker_without_hunks_is_an_error() -> None:
    result = parse_reply("<<<DIFF: src/a.ts>>>\n<<<END>>>\n")
    assert result.actions == ()
    assert [d.code for d in result.diagnostics] == ["empty-patch"]


def test_delete_marker() -> None:
    (action,) = parse_reply("<<<DELETE: path/to/oldfile.ts>>>").actions
    assert action == DeleteFile(path="path/to/oldfile.ts", dialect="bridge", line=1)


def test_request_file_marker() -> None:
    (action,) = parse_reply("<<<REQUEST_FILE: path/to/file.ts>>>\n").actions
    assert isinstance(action, RequestFiles)
    assert action.paths == ("path/to/file.ts",)


def test_request_files_list_keeps_order_without_duplicates() -> None:
    reply = "<<<REQUEST_FILES>>>\n- b.ts\n- a.ts\n- b.ts\n<<<END>>>\n"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, RequestFiles)
    assert action.paths == ("b.ts", "a.ts")


def test_switch_mode_with_japanese_labels() -> None:
    reply = (
        "<<<SWITCH_MODE: edit>>>\n対象ファイル:\n- path/to/file.ts\n"
        "理由: バグ修正のために完全なコードが必要です\n<<<END>>>\n"
    )
    (action,) = parse_reply(reply).actions
    assert action == SwitchMode(
        mode="edit",
        paths=("path/to/file.ts",),
        reason="バグ修正のために完全なコードが必要です",
        dialect="bridge",
        line=1,
    )


def test_switch_mode_with_english_labels() -> None:
    reply = "<<<SWITCH_MODE: edit>>>\nTarget files:\n- a.py\n- b.py\nReason: need it\n<<<END>>>"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, SwitchMode)
    assert (action.paths, action.reason) == (("a.py", "b.py"), "need it")


def test_continue_with_japanese_count() -> None:
    reply = (
        "<<<CONTINUE>>>\n残り: 2個のファイル変更があります\n- path/to/file1.ts\n"
        "- path/to/file2.ts\n<<<END>>>\n"
    )
    (action,) = parse_reply(reply).actions
    assert action == Continue(
        remaining=2, paths=("path/to/file1.ts", "path/to/file2.ts"), dialect="bridge", line=1
    )


def test_continue_with_english_count() -> None:
    (action,) = parse_reply("<<<CONTINUE>>>\nRemaining: 3 file changes\n<<<END>>>").actions
    assert isinstance(action, Continue)
    assert action.remaining == 3


def test_several_files_in_one_reply_are_numbered_in_order() -> None:
    reply = "<<<FILE: src/utils.ts>>>\na\n<<<END>>>\n\n<<<FILE: src/index.ts>>>\nb\n<<<END>>>\n"
    actions = parse_reply(reply).actions
    assert [(a.block, getattr(a, "path", None)) for a in actions] == [
        (0, "src/utils.ts"),
        (1, "src/index.ts"),
    ]


def test_file_block_without_end_before_the_next_marker_is_dropped_as_an_error() -> None:
    result = parse_reply("<<<FILE: a.ts>>>\nA\nSome prose.\n<<<FILE: b.ts>>>\nB\n<<<END>>>\n")
    assert [(a.path, a.content) for a in result.actions if isinstance(a, WriteFile)] == [
        ("b.ts", "B\n")
    ]
    assert [(d.code, d.severity, d.line) for d in result.diagnostics] == [
        ("missing-end", "error", 1)
    ]


def test_list_block_without_end_stops_at_the_next_marker_with_a_warning() -> None:
    result = parse_reply("<<<REQUEST_FILES>>>\n- a.ts\n<<<FILE: b.ts>>>\nB\n<<<END>>>\n")
    assert [getattr(a, "paths", None) for a in result.actions] == [("a.ts",), None]
    assert [(d.code, d.severity) for d in result.diagnostics] == [("missing-end", "warning")]


def test_fenced_file_block_without_end_ends_at_its_fence_and_keeps_the_prose_out() -> None:
    reply = "```\n<<<FILE: a.py>>>\n```python\nx = 1\n```\n```\nDone, I changed x.\n"
    result = parse_reply(reply)
    assert [(a.path, getattr(a, "content", None)) for a in result.actions] == [("a.py", "x = 1\n")]
    assert [(d.code, d.severity) for d in result.diagnostics] == [
        ("missing-end", "warning"),
        ("fence-in-block", "warning"),
    ]
    assert not result.truncated


def test_cut_off_list_blocks_are_errors_without_actions() -> None:
    for reply in (
        "<<<REQUEST_FILES>>>\n- src/a.ts\n- src/b.t",
        "<<<SWITCH_MODE: edit>>>\n対象ファイル:\n- a.ts\n理由: バグ修正のため<<<E",
        "<<<CONTINUE>>>\n残り: 2個のファイル変更があります\n- x.ts\n",
    ):
        result = parse_reply(reply)
        assert result.actions == ()
        assert result.truncated
        assert [d.severity for d in result.diagnostics] == ["error"]


def test_cut_off_file_block_is_truncated_and_earlier_blocks_are_kept() -> None:
    result = parse_reply("<<<DELETE: old.ts>>>\n<<<FILE: a.ts>>>\nhalf of it")
    assert [a.kind for a in result.actions] == ["delete"]
    assert result.truncated
    (diag,) = result.diagnostics
    assert (diag.code, diag.severity, diag.line, diag.block) == ("truncated", "error", 2, 1)


def test_stray_end_is_a_warning() -> None:
    result = parse_reply("text\n<<<END>>>\n")
    assert result.actions == ()
    assert [d.code for d in result.diagnostics] == ["stray-end"]


def test_content_wrapped_in_a_fence_inside_the_block_is_unwrapped() -> None:
    result = parse_reply("<<<FILE: a.py>>>\n```python\nx = 1\n```\n<<<END>>>\n")
    (action,) = result.actions
    assert isinstance(action, WriteFile)
    assert action.content == "x = 1\n"
    assert [d.code for d in result.diagnostics] == ["fence-in-block"]


def test_markers_keep_working_inside_fences_with_prose_and_crlf() -> None:
    reply = "バグを修正しました。\r\n\r\n```\r\n<<<FILE: a.ts>>>  \r\nok\r\n<<<END>>>\r\n```\r\n"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, WriteFile)
    assert (action.path, action.content, action.line) == ("a.ts", "ok\n", 4)


def test_list_items_lose_their_notes_and_links() -> None:
    reply = (
        "<<<REQUEST_FILES>>>\n- `src/a.ts` - helper functions\n- src/b.ts: the entry\n"
        "- [src/c.ts](src/c.ts)\n  - src/i.ts — the helper\n- src/j.ts (utils)\n<<<END>>>\n"
    )
    (action,) = parse_reply(reply).actions
    assert isinstance(action, RequestFiles)
    assert action.paths == ("src/a.ts", "src/b.ts", "src/c.ts", "src/i.ts", "src/j.ts")


def test_unspaced_bullets_and_bare_path_lines_are_listed() -> None:
    reply = "<<<REQUEST_FILES>>>\n・src/f.ts\n-src/g.ts\nsrc/h.ts\n<<<END>>>\n"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, RequestFiles)
    assert action.paths == ("src/f.ts", "src/g.ts", "src/h.ts")


def test_switch_mode_reason_bullets_are_not_targets_and_inline_targets_keep_spaces() -> None:
    reply = (
        "<<<SWITCH_MODE: edit>>>\n対象ファイル: docs/my file.md, a.ts\n理由:\nバグ修正のため\n"
        "- 詳細はa.tsを参照\n<<<END>>>\n"
    )
    (action,) = parse_reply(reply).actions
    assert isinstance(action, SwitchMode)
    assert action.paths == ("docs/my file.md", "a.ts")
    assert action.reason == "バグ修正のため\n- 詳細はa.tsを参照"


def test_huge_remaining_count_is_not_a_crash() -> None:
    result = parse_reply("<<<CONTINUE>>>\n残り: " + "9" * 5000 + "\n<<<END>>>\n")
    (action,) = result.actions
    assert isinstance(action, Continue)
    assert action.remaining is None


def test_lowercase_markers_are_read() -> None:
    (action,) = parse_reply("<<<file: a.ts>>>\nx\n<<<end>>>\n").actions
    assert action == WriteFile(path="a.ts", content="x\n", dialect="bridge", line=1)


def test_diff_body_in_a_fence_with_git_headers_gives_only_the_hunk() -> None:
    reply = (
        "<<<DIFF: a.py>>>\n```diff\ndiff --git a/a.py b/a.py\nindex 1..2 100644\n--- a/a.py\n"
        "+++ b/a.py\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n```\n<<<END>>>\n"
    )
    (action,) = parse_reply(reply).actions
    assert isinstance(action, PatchFile)
    assert [list(h.lines) for h in action.hunks] == [[" x", "-y", "+z"]]


def test_diff_body_starting_with_a_removed_comment_keeps_it() -> None:
    (action,) = parse_reply("<<<DIFF: q.sql>>>\n--- old\n select 1;\n<<<END>>>\n").actions
    assert isinstance(action, PatchFile)
    assert [list(h.lines) for h in action.hunks] == [["--- old", " select 1;"]]


def test_file_block_indented_under_a_list_item_loses_the_indent() -> None:
    reply = "- First:\n  ```\n  <<<FILE: a.py>>>\n  def f():\n      return 1\n  <<<END>>>\n  ```\n"
    (action,) = parse_reply(reply).actions
    assert action == WriteFile(
        path="a.py", content="def f():\n    return 1\n", dialect="bridge", line=3
    )


def test_block_indented_under_a_list_item_without_a_fence_loses_the_marker_indent() -> None:
    reply = "1. File:\n   <<<FILE: a.py>>>\n   x = 1\n     y\n   <<<END>>>\n"
    (action,) = parse_reply(reply).actions
    assert action == WriteFile(path="a.py", content="x = 1\n  y\n", dialect="bridge", line=2)
