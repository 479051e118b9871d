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

    Text blocks are joined as the model reads them (with nothing between them); images
    are shown as ``[image: …]`` lines and tool calls as ``→ name(arguments)`` lines.
    """
    blocks: list[str] = []
    for msg in messages:
        lines = [_heading(msg)]
        text: list[str] = []
        for part in msg.parts:
            if isinstance(part, ImagePart):
                if text:
                    lines.append("".join(text))
                    text = []
                lines.append(f"[image: {part.url or part.media_type or 'inline data'}]")
            else:
                text.append(part.text)
        if text:
            lines.append("".join(text))
        lines.extend(f"→ {call.name}({call.arguments})" for call in msg.tool_calls)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")
