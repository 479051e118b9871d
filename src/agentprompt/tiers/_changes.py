"""What the deferred rule carries in the active tier instead of rewriting a cached tier.

A chat model already holds a cached tier's text as it was sent, so an item that changes (or
leaves the context) need not be re-rendered in place, which would rewrite its tier and every
tier after it. Its cached copy stays byte for byte, and the active tier (uncached) carries a
note: for a file, a unified diff from the cached copy to its current content; for a map
entry (and the map legend L0 holds), a unified diff over its lines; for an item that left
the context, a line saying so. The diff is exact: applied to the copy it gives the current
text (the tests apply it).

The notes' texts are prompt files (``tiers/changes_header``, ``tiers/file_changes``,
``tiers/file_gone``, ``tiers/map_changes``, ``tiers/map_gone``, ``tiers/legend_changes``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import unified_diff

from agentprompt.prompts.loader import PromptLibrary
from agentprompt.tiers._items import file_content, item_path
from agentprompt.tiers.tracker import ItemKind, ItemState, TrackedItem

__all__ = [
    "CONTEXT_LINES",
    "GONE_NOTE_TOKENS",
    "CarriedNote",
    "carried_notes",
    "changes_since",
    "fenced",
    "note_tokens",
    "outgrown",
]

CONTEXT_LINES = 2
"""Unchanged lines shown around each change of a file's diff."""

GONE_NOTE_TOKENS = 40
"""About what a note that an item left the context costs, in tokens (its header and line)."""

_NOTE_OVERHEAD = 40
"""About what a file or map-entry note costs beyond its diff or entry (header and prose)."""

_BACKTICKS = re.compile(r"`{3,}")


@dataclass(frozen=True, kw_only=True)
class CarriedNote:
    """One note in the active tier about an item whose cached copy is out of date."""

    key: str
    """The item's key (``file:PATH`` or ``symbols:PATH``), or ``legend`` for the map
    legend L0 holds."""
    kind: ItemKind
    """What the item holds."""
    gone: bool
    """True when the item left the context; False when it changed."""
    text: str
    """The note as it is sent."""


def fenced(text: str, info: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=2)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{info}\n{body}{fence}"


def _lines(text: str) -> list[str]:
    """A text's lines, each ending with a newline (a map entry's last line has none; it is
    shown as a line all the same)."""
    return (text if text.endswith("\n") or not text else text + "\n").splitlines(keepends=True)


@functools.lru_cache(maxsize=256)
def changes_since(path: str, copy: str, current: str) -> str:
    """The unified diff from a file's cached copy to its current text (both as
    :func:`~agentprompt.tiers._items.file_text` shows them), over the file's content; for a
    map entry, over its lines."""
    old = _lines(file_content(copy))
    new = _lines(file_content(current))
    return "".join(
        unified_diff(old, new, fromfile=f"a/{path}", tofile=f"b/{path}", n=CONTEXT_LINES)
    )


def outgrown(copy: str, current: str, path: str) -> bool:
    """Whether the note about a changed file would be as long as the file itself (then
    rewriting the file serves better than carrying the note)."""
    return len(changes_since(path, copy, current)) >= len(current)


def note_tokens(key: str, copy: str, current: str, tokens: int) -> int:
    """About how many tokens the note about an item changed since ``copy`` costs: its
    diff, in proportion to the item's ``tokens``, and the note's heading."""
    diff = changes_since(item_path(key), copy, current)
    return -(-tokens * len(diff) // max(1, len(current))) + _NOTE_OVERHEAD


def carried_notes(
    items: Sequence[TrackedItem], states: Sequence[ItemState], lib: PromptLibrary
) -> tuple[CarriedNote, ...]:
    """The notes the active tier carries for ``states`` whose cached copy is out of date, in
    their order; ``items`` are the request's (a changed item's current text)."""
    current = {i.key: i for i in items}
    notes: list[CarriedNote] = []
    for state in states:
        if state.copy_state == "current" or state.copy is None:
            continue
        path = item_path(state.key)
        item = current.get(state.key)
        gone = state.copy_state == "gone" or item is None
        # A file's notes and a map entry's are worded by their own prompts.
        prompt = "tiers/file" if state.kind == "file" else "tiers/map"
        if gone:
            text = lib.render(f"{prompt}_gone", path=path)
        else:
            assert item is not None
            diff = changes_since(path, state.copy, item.text)
            if not diff:
                continue
            text = lib.render(f"{prompt}_changes", path=path, diff=fenced(diff, "diff"))
        notes.append(CarriedNote(key=state.key, kind=state.kind, gone=gone, text=text))
    return tuple(notes)
