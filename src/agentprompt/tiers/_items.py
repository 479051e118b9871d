"""The items a tiered prompt is made of: file texts, symbol-map entries, history messages.

Each becomes a :class:`~agentprompt.tiers.tracker.TrackedItem` with an exact token count,
so the tracker can follow it and the breakdown can price it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from agentprompt.errors import UsageError
from agentprompt.messages import Message
from agentprompt.repo.map import MapParts
from agentprompt.tiers.tracker import TrackedItem
from agentprompt.tokens import Tokenizer

__all__ = [
    "file_content",
    "file_item",
    "file_text",
    "history_items",
    "history_role",
    "item_path",
    "symbol_items",
]

_BACKTICKS = re.compile(r"`{3,}")


def file_text(path: str, content: str) -> str:
    """How a file's full text is shown: its path, then its content in a fence longer than any
    run of backticks inside it."""
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(content)), default=2)
    fence = "`" * max(3, longest + 1)
    body = content if content.endswith("\n") or not content else content + "\n"
    return f"{path}\n{fence}\n{body}{fence}"


def file_content(text: str) -> str:
    """The content a :func:`file_text` shows (ending with a newline unless empty): its lines
    between the fences; a text not shaped so, whole."""
    parts = text.split("\n", 2)
    if len(parts) < 3 or not parts[1].startswith("```") or not parts[2].endswith(parts[1]):
        return text
    fence, rest = parts[1], parts[2]
    return rest[: len(rest) - len(fence)]


def file_item(path: str, content: str, counter: Tokenizer) -> TrackedItem:
    """The tracked item for a file whose full text is in the context."""
    text = file_text(path, content)
    return TrackedItem(key=f"file:{path}", kind="file", text=text, tokens=counter.count(text))


def symbol_items(
    parts: MapParts, counter: Tokenizer, sources: Mapping[str, str] | None = None
) -> list[TrackedItem]:
    """One tracked item per file block of a symbol map (the legend is not an item: it always
    sits in L0), each with its file's content hash from ``sources`` when given."""
    known = sources or {}
    return [
        TrackedItem(
            key=f"symbols:{path}",
            kind="symbols",
            text=block,
            tokens=counter.count(block),
            source=known.get(path, ""),
        )
        for path, block in parts.blocks
    ]


def history_items(history: Sequence[Message], counter: Tokenizer) -> list[TrackedItem]:
    """One tracked item per history message, keyed by its position (``history:0`` first).

    The role is part of the hashed text, so a message that changes speaker counts as changed.
    """
    for i, m in enumerate(history):
        if m.role not in ("user", "assistant"):
            raise UsageError(
                f"history message {i} has the role {m.role!r}; a tiered prompt holds only user "
                "and assistant messages, so give tool results as user text"
            )
    return [
        TrackedItem(
            key=f"history:{i}",
            kind="history",
            text=f"{m.role}\n{m.text}",
            tokens=counter.count(m.text),
        )
        for i, m in enumerate(history)
    ]


def history_role(item: TrackedItem) -> str:
    """The role a history item was spoken in."""
    return item.text.split("\n", 1)[0]


def item_path(key: str) -> str:
    """The path (or index) part of an item key: ``file:src/a.py`` -> ``src/a.py``."""
    return key.split(":", 1)[1] if ":" in key else key
