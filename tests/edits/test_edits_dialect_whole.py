"""Whole files: path line forms, fences, nested backticks, and fences that are not files."""

from __future__ import annotations

import pytest

from agentprompt.edits import WriteFile, parse_reply


@pytest.mark.parametrize(
    "path_line",
    [
        "src/app.py",
        "**src/app.py**",
        "`src/app.py`",
        "# src/app.py",
        "### File: src/app.py",
        "File: src/app.py",
        "src/app.py:",
    ],
)
def test_path_line_forms(path_line: str) -> None:
    (action,) = parse_reply(f"{path_line}\n```python\nprint(1)\n```\n").actions
    assert action == WriteFile(path="src/app.py", content="print(1)\n", dialect="whole", line=1)


def test_blank_line_between_path_and_fence() -> None:
    (action,) = parse_reply("Makefile\n\n```make\nall:\n```\n").actions
    assert getattr(action, "path", None) == "Makefile"


def test_four_backtick_fence_holds_three_backtick_lines() -> None:
    reply = "docs/a.md\n````markdown\n# A\n```\ncode\n```\n````\n"
    (action,) = parse_reply(reply).actions
    assert getattr(action, "content", None) == "# A\n```\ncode\n```\n"


def test_prose_before_a_fence_is_not_a_path() -> None:
    assert parse_reply("Run this:\n```sh\nmake\n```\n").actions == ()


def test_fence_holding_a_diff_is_left_to_the_diff_dialect() -> None:
    reply = "x.py\n```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n```\n"
    (action,) = parse_reply(reply).actions
    assert action.dialect == "udiff"


def test_cut_off_file_is_not_written() -> None:
    result = parse_reply("a.py\n```\npartial\n")
    assert result.actions == ()
    assert result.truncated


def test_whole_dialect_alone_ignores_other_markers() -> None:
    reply = "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    result = parse_reply(reply, "whole")
    assert result.actions == ()
    assert [d.code for d in result.diagnostics] == ["no-blocks"]


def test_a_path_listed_last_in_a_code_block_is_not_a_file() -> None:
    reply = "Files I changed:\n```\nsrc/a.py\nsrc/b.py\n```\nNow b.py:\n```\nx\n```\n"
    assert parse_reply(reply).actions == ()
