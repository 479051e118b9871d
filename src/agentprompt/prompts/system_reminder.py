"""The system reminder: the compact EDIT/REPL rules of ``system_reminder.md``, for
reinforcing mid-conversation.

Like the loader's own layout, this module is imported directly by the code that needs it
and is not re-exported from :mod:`agentprompt.prompts`. ``SYSTEM_REMINDER`` is the packaged
text; :func:`get_system_reminder` returns a project's override of ``system_reminder.md``
when it has one. The reminder is never injected unless asked: :func:`inject_reminder` puts
it before the latest user message (``agentprompt inspect --system-reminder`` does so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final

from agentprompt.messages import Message
from agentprompt.prompts.loader import PACKAGED_DIR, PromptLibrary, parse_prompt_file

__all__ = ["SYSTEM_REMINDER", "get_system_reminder", "inject_reminder"]

_NAME = "system_reminder"
_PATH = PACKAGED_DIR / f"{_NAME}.md"

SYSTEM_REMINDER: Final[str] = parse_prompt_file(
    _NAME, _PATH, _PATH.read_text(encoding="utf-8")
).render()
"""The packaged system reminder text, wrapped in ``<system-reminder>`` tags."""


def get_system_reminder(go_ahead_tip: str = "", *, root: Path | None = None) -> str:
    """The reminder text (``system_reminder.md``, as the prompt lookup finds it for
    ``root``), with ``go_ahead_tip`` appended on its own line when one is given."""
    text = PromptLibrary(root).render(_NAME)
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
