"""The system reminder: the compact EDIT/REPL rules, for reinforcing mid-conversation.

Not injected by default; :func:`inject_reminder` puts it before the latest
user message when a caller asks for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from agentprompt.messages import Message
from agentprompt.prompts.loader import PromptLibrary

__all__ = ["get_system_reminder", "inject_reminder"]


def get_system_reminder(go_ahead_tip: str = "", *, root: Path | None = None) -> str:
    """The reminder text (``system_reminder.md``), with ``go_ahead_tip`` appended on its own
    line when one is given."""
    text = PromptLibrary(root).render("system_reminder")
    return f"{text}\n{go_ahead_tip}" if go_ahead_tip else text


def inject_reminder(
    messages: Sequence[Message], go_ahead_tip: str = "", *, root: Path | None = None
) -> tuple[Message, ...]:
    """``messages`` with the reminder placed before the text of the latest user message.

    The latest user message is the only one changed (it is the uncached tail of a tiered
    request), so every cached prefix stays byte-identical. With no user message, the
    messages are returned unchanged.
    """
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        msg = out[i]
        if msg.role == "user" and isinstance(msg.content, str):
            reminder = get_system_reminder(go_ahead_tip, root=root)
            out[i] = replace(msg, content=f"{reminder}\n\n{msg.content}", inner_breakpoints=())
            break
    return tuple(out)
