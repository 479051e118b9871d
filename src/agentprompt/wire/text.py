"""Messages as readable plain text, for clipboards and terminals."""

from __future__ import annotations

from collections.abc import Iterable

from agentprompt.messages import ImagePart, Message

__all__ = ["to_text"]


def _heading(msg: Message) -> str:
    label = msg.role.upper()
    if msg.role == "tool":
        label += f" RESULT ({msg.tool_call_id})"
    elif msg.name:
        label += f" ({msg.name})"
    return f"=== {label} ==="


def to_text(messages: Iterable[Message]) -> str:
    """One block per message under a ``=== ROLE ===`` heading, blocks separated by a blank line.

    Images are shown as ``[image: …]`` and tool calls as ``→ name(arguments)`` lines.
    """
    blocks: list[str] = []
    for msg in messages:
        lines = [_heading(msg)]
        for part in msg.parts:
            if isinstance(part, ImagePart):
                lines.append(f"[image: {part.url or part.media_type or 'inline data'}]")
            else:
                lines.append(part.text)
        lines.extend(f"→ {call.name}({call.arguments})" for call in msg.tool_calls)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")
