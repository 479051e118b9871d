"""Writing the project's instruction files, and the tool with which the model appends an
instruction to ALLY.md.

The content comes from :mod:`agentprompt.project.instructions` (which reads these files);
the write goes through the edit engine, so it stays inside the root, never follows a
symlink out of it, and is all or nothing. The tool checks the file with the edit engine's
path safety first, so a symlinked ALLY.md leading out of the root is refused.
"""

from __future__ import annotations

from pathlib import Path

from agentprompt.edits import WriteFile, apply_actions
from agentprompt.edits.paths import resolve_target
from agentprompt.project.instructions import (
    PRIMARY_FILE,
    InstructionError,
    appended_instructions,
    written_instructions,
)
from agentprompt.tools.context import ToolContext

__all__ = ["append_instruction", "instructions_append", "write_instructions"]


def _write(root: Path, name: str, content: str) -> Path:
    report = apply_actions(root, [WriteFile(dialect="whole", path=name, content=content)])
    if report.failed:
        reasons = "; ".join(f.reason for f in report.failed)
        raise InstructionError(f"{name} in {root} was not written: {reasons}")
    return root / name


def write_instructions(root: Path, text: str, *, name: str = PRIMARY_FILE) -> Path:
    """Write ``text`` as the whole of instruction file ``name`` under ``root`` (created or
    replaced); returns its path."""
    content = written_instructions(text, name=name)
    return _write(Path(root).resolve(), name, content)


def append_instruction(root: Path, text: str, *, name: str = PRIMARY_FILE) -> Path:
    """Append ``text`` to instruction file ``name`` under ``root`` (the ALLY.md
    append tool), after a blank line; creates the file when it is missing. Returns its path."""
    content = appended_instructions(root, text, name=name)
    return _write(Path(root).resolve(), name, content)


def instructions_append(ctx: ToolContext, text: str) -> str:
    """Append an instruction to the project's instruction file.

    Args:
        text: The instruction to add, as Markdown.
    """
    resolve_target(ctx.root, PRIMARY_FILE)
    path = append_instruction(ctx.root, text)
    return f"Appended to {path.name}."
