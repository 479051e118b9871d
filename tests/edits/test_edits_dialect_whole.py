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
        "**`src/app.py`**",
        "`src/app.py` (new file)",
        "src/app.py (new)",
        "__src/app.py__",
        "File `src/app.py`:",
        "- `src/app.py`",
        "1. src/app.py",
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


def test_markdown_file_keeps_its_inner_code_blocks() -> None:
    reply = "README.md\n```markdown\n# Title\n```bash\npip install x\n```\nMore text\n```\nDone.\n"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, WriteFile)
    assert action.content == "# Title\n```bash\npip install x\n```\nMore text\n"


def test_content_lines_that_look_like_a_diff_do_not_turn_a_file_into_a_patch() -> None:
    content = 'DIFF = """\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"""\n'
    (action,) = parse_reply(f"tests/test_x.py\n```python\n{content}```\n").actions
    assert action == WriteFile(path="tests/test_x.py", content=content, dialect="whole", line=1)
    (note,) = parse_reply("notes.md\n```\n# Notes\n--- a/x\n+++ b/x\n```\n").actions
    assert isinstance(note, WriteFile)
    assert note.content == "# Notes\n--- a/x\n+++ b/x\n"


def test_file_block_indented_under_a_list_item_loses_the_indent() -> None:
    reply = "1. Change it:\n   src/a.py\n   ```python\n   def f():\n       return 1\n   ```\n"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, WriteFile)
    assert action.content == "def f():\n    return 1\n"
