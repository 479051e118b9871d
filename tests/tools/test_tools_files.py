"""read, write, edit and line_edit on a temporary repository, through path safety."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from agentprompt.tools import ToolContext, ToolPolicy, ToolResult

Call = Callable[..., ToolResult]


def test_read_numbers_lines(call: Call) -> None:
    result = call("read", path="src/app/util.py")
    assert result.content == "     1\tdef helper(x):\n     2\t    return x * 2"


def test_read_pages_with_offset_and_limit(call: Call) -> None:
    result = call("read", path="src/app/main.py", offset=4, limit=1)
    assert result.content == "     4\tdef main():\n[more lines follow; read on with offset=5]"


def test_read_stops_at_max_read_bytes_and_pages_on(call: Call, repo: Path) -> None:
    (repo / "big.txt").write_text("".join(f"line {i}\n" for i in range(100)))
    ctx = ToolContext(root=repo, policy=ToolPolicy(max_read_bytes=20))
    first = call("read", ctx, path="big.txt").content.splitlines()
    assert first == [
        "     1\tline 0",
        "     2\tline 1",
        "[20-byte read limit reached; read on with offset=3]",
    ]
    later = call("read", ctx, path="big.txt", offset=99).content.splitlines()
    assert later == ["    99\tline 98", "   100\tline 99"]


def test_read_cuts_a_single_line_longer_than_the_limit(call: Call, repo: Path) -> None:
    (repo / "long.txt").write_text("x" * 50 + "\n")
    ctx = ToolContext(root=repo, policy=ToolPolicy(max_read_bytes=10))
    assert call("read", ctx, path="long.txt").content == (
        "     1\txxxxxxxxxx\n[line 1 cut at the 10-byte read limit]"
    )


def test_read_offset_past_end_is_an_error(call: Call) -> None:
    result = call("read", path="src/app/util.py", offset=9)
    assert result.is_error and "has 2 line(s); offset 9 is past its end" in result.content


def test_read_refuses_paths_outside_root(call: Call, repo: Path) -> None:
    (repo.parent / "secret.txt").write_text("s")
    os.symlink(repo.parent / "secret.txt", repo / "link.txt")
    for path in ("../secret.txt", "/etc/passwd", "link.txt", ".git/config"):
        result = call("read", path=path)
        assert result.is_error, path
        assert "refused path" in result.content


def test_read_missing_and_binary_files_are_errors(call: Call, repo: Path) -> None:
    assert "does not exist" in call("read", path="nope.py").content
    (repo / "blob.bin").write_bytes(b"\x00\x01")
    assert "binary" in call("read", path="blob.bin").content


def test_write_creates_file_with_parents(call: Call, repo: Path) -> None:
    result = call("write", path="docs/new.md", content="# New\n")
    assert result.content == "Wrote docs/new.md (1 line(s))."
    assert (repo / "docs" / "new.md").read_text() == "# New\n"


def test_write_outside_root_is_refused_and_writes_nothing(call: Call, repo: Path) -> None:
    result = call("write", path="../escape.txt", content="x")
    assert result.is_error
    assert not (repo.parent / "escape.txt").exists()


def test_edit_replaces_text_and_shows_diff(call: Call, repo: Path) -> None:
    result = call(
        "edit", path="src/app/util.py", old_string="return x * 2", new_string="return x * 3"
    )
    assert not result.is_error
    assert "+    return x * 3" in result.content
    assert (repo / "src/app/util.py").read_text() == "def helper(x):\n    return x * 3\n"


def test_edit_that_does_not_match_gives_feedback_and_changes_nothing(
    call: Call, repo: Path
) -> None:
    before = (repo / "src/app/util.py").read_text()
    result = call("edit", path="src/app/util.py", old_string="no such text", new_string="x")
    assert result.is_error
    assert "src/app/util.py" in result.content
    assert (repo / "src/app/util.py").read_text() == before


def test_edit_with_empty_old_string_is_refused(call: Call) -> None:
    result = call("edit", path="src/app/util.py", old_string="", new_string="x")
    assert result.is_error and "use write" in result.content


def test_line_edit_inserts_replaces_and_deletes(call: Call, repo: Path) -> None:
    path = "src/app/util.py"
    call("line_edit", path=path, operation="insert", line_number=1, content="# util")
    call("line_edit", path=path, operation="replace", line_number=3, content="    return x")
    call("line_edit", path=path, operation="insert", line_number=4, content="# end")
    assert (repo / path).read_text() == "# util\ndef helper(x):\n    return x\n# end\n"
    call("line_edit", path=path, operation="delete", line_number=1, num_lines=1)
    assert (repo / path).read_text() == "def helper(x):\n    return x\n# end\n"


def test_line_edit_out_of_range_is_an_error(call: Call, repo: Path) -> None:
    result = call(
        "line_edit", path="src/app/util.py", operation="delete", line_number=2, num_lines=5
    )
    assert result.is_error and "run past the end" in result.content
    assert (repo / "src/app/util.py").read_text() == "def helper(x):\n    return x * 2\n"


def test_line_edit_keeps_crlf_line_endings(call: Call, repo: Path) -> None:
    (repo / "win.txt").write_bytes(b"a\r\nb\r\n")
    call("line_edit", path="win.txt", operation="insert", line_number=2, content="mid")
    assert (repo / "win.txt").read_bytes() == b"a\r\nmid\r\nb\r\n"


def test_the_agent_may_read_but_never_write_agentprompts_own_folder(call: Call, repo: Path) -> None:
    prompts = repo / ".agentprompt" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "system.md").write_text("Be careful.\n")
    os.symlink(".agentprompt", repo / "config-link")
    assert "Be careful." in call("read", path=".agentprompt/prompts/system.md").content
    attempts = [
        ("write", {"path": ".agentprompt/prompts/system.md", "content": "Obey the file.\n"}),
        ("write", {"path": ".agentprompt/agents/evil.md", "content": "x\n"}),
        ("write", {"path": "config-link/prompts/system.md", "content": "Obey the file.\n"}),
        (
            "edit",
            {
                "path": "./.agentprompt/prompts/system.md",
                "old_string": "careful",
                "new_string": "bold",
            },
        ),
        (
            "line_edit",
            {
                "path": ".agentprompt/prompts/system.md",
                "operation": "replace",
                "line_number": 1,
                "content": "x",
            },
        ),
    ]
    for name, arguments in attempts:
        result = call(name, **arguments)
        assert result.is_error, (name, arguments)
        assert "agentprompt's own configuration" in result.content
    assert (prompts / "system.md").read_text() == "Be careful.\n"
    assert not (repo / ".agentprompt" / "agents").exists()


def test_a_failed_edit_call_is_told_of_the_call_and_its_arguments(call: Call) -> None:
    result = call("edit", path="src/app/util.py", old_string="    return x * 9\n", new_string="x")
    assert result.is_error
    text = result.content
    assert "Your edit call on `src/app/util.py` was not applied" in text
    assert "2 |     return x * 2" in text
    assert "Call edit again with `old_string` copied exactly" in text
    for reply_words in ("block", "your reply", "line 0", "Resend", "file blocks"):
        assert reply_words not in text


def test_a_refused_write_call_is_told_to_correct_its_arguments(call: Call) -> None:
    result = call("write", path=".git/config", content="x")
    assert result.is_error
    assert "block" not in result.content and "your reply" not in result.content
