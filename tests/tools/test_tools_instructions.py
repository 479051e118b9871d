"""The instructions_append tool writes to ALLY.md through path safety."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from agentprompt.tools import ToolResult

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
