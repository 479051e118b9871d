"""Writing the instruction files, and the instructions_append tool, through path safety."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.project.instructions import InstructionError
from agentprompt.tools import ToolResult
from agentprompt.tools.instructions_tool import append_instruction, write_instructions

Call = Callable[..., ToolResult]


def test_append_creates_and_extends_ally_md(call: Call, repo: Path) -> None:
    assert call("instructions_append", text="Use ./quick-commit.").content == (
        "Appended to ALLY.md."
    )
    call("instructions_append", text="Run make test.")
    text = (repo / "ALLY.md").read_text()
    assert "Use ./quick-commit." in text and text.index("quick") < text.index("make test")


def test_symlinked_ally_md_leading_outside_is_refused(call: Call, repo: Path) -> None:
    outside = repo.parent / "outside.md"
    outside.write_text("keep\n")
    os.symlink(outside, repo / "ALLY.md")
    result = call("instructions_append", text="x")
    assert result.is_error and "refused path" in result.content
    assert outside.read_text() == "keep\n"


def test_empty_text_is_an_error(call: Call, repo: Path) -> None:
    assert call("instructions_append", text="  ").is_error
    assert not (repo / "ALLY.md").exists()


def test_append_creates_the_file_then_adds_after_a_blank_line(tmp_path: Path) -> None:
    path = append_instruction(tmp_path, "Run make test before committing.\n")
    assert path == tmp_path.resolve() / "ALLY.md"
    append_instruction(tmp_path, "  Use ruff.  ")
    assert path.read_text() == "Run make test before committing.\n\nUse ruff.\n"


def test_append_keeps_existing_text(tmp_path: Path) -> None:
    (tmp_path / "ALLY.md").write_text("# Rules\n\n- one\n")
    append_instruction(tmp_path, "- two")
    assert (tmp_path / "ALLY.md").read_text() == "# Rules\n\n- one\n\n- two\n"


def test_append_of_empty_text_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(InstructionError, match="empty"):
        append_instruction(tmp_path, " \n ")
    assert not (tmp_path / "ALLY.md").exists()


def test_append_to_non_utf8_file_is_refused_and_leaves_it(tmp_path: Path) -> None:
    (tmp_path / "ALLY.md").write_bytes(b"\xff\xfe rules")
    with pytest.raises(InstructionError, match="not UTF-8"):
        append_instruction(tmp_path, "more")
    assert (tmp_path / "ALLY.md").read_bytes() == b"\xff\xfe rules"


def test_append_refuses_a_symlink_out_of_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n")
    (root / "ALLY.md").symlink_to(outside)
    with pytest.raises(InstructionError):
        append_instruction(root, "more")
    assert outside.read_text() == "secret\n"


def test_write_replaces_the_whole_file(tmp_path: Path) -> None:
    (tmp_path / "ALLY.md").write_text("old\n")
    write_instructions(tmp_path, "new\r\ntext")
    assert (tmp_path / "ALLY.md").read_text() == "new\ntext\n"
