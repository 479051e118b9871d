"""The unified diff of a change set, as ``git diff`` would show it."""

from __future__ import annotations

from collections.abc import Sequence
from difflib import unified_diff

from agentprompt.edits.plan import FileChange

__all__ = ["render_diff"]

_NO_NEWLINE = "\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n" + _NO_NEWLINE
    return lines


def _one(change: FileChange) -> str:
    old = "/dev/null" if change.before is None else f"a/{change.path}"
    new = "/dev/null" if change.after is None else f"b/{change.path}"
    head = f"diff --git a/{change.path} b/{change.path}\n"
    if change.before is None:
        head += f"new file mode 100{change.mode or 0o644:o}\n"
    elif change.after is None:
        head += f"deleted file mode 100{change.mode or 0o644:o}\n"
    body = "".join(
        unified_diff(_lines(change.before_text), _lines(change.after_text), old, new, n=3)
    )
    if not body and change.before is not None and change.after is not None:
        body = f"--- {old}\n+++ {new}\n"
    return head + body


def render_diff(changes: Sequence[FileChange]) -> str:
    """The unified diff of ``changes``, file by file in the order given."""
    return "".join(_one(change) for change in changes)
