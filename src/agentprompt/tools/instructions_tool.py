"""The project-instructions tool: the model appends an instruction to ALLY.md.

The file is checked with the edit engine's path safety first (a symlinked ALLY.md leading
out of the root is refused), then :func:`agentprompt.context.instructions.append_instruction`
appends the text.
"""

from __future__ import annotations

from agentprompt.context.instructions import PRIMARY_FILE, append_instruction
from agentprompt.edits.paths import resolve_target
from agentprompt.tools.context import ToolContext

__all__ = ["instructions_append"]


def instructions_append(ctx: ToolContext, text: str) -> str:
    """Append an instruction to the project's instruction file.

    Args:
        text: The instruction to add, as Markdown.
    """
    resolve_target(ctx.root, PRIMARY_FILE)
    path = append_instruction(ctx.root, text)
    return f"Appended to {path.name}."
