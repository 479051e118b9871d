"""Prompt snippets: the quick-insert messages shown as buttons.

Lookup order: the repository's ``config/prompts/prompt-snippets.json``, then the user's
config directory (``prompts/prompt-snippets.json`` there), then the packaged default with
its seven snippets. Each snippet needs ``icon`` and ``message``; ``tooltip`` falls
back to the first 50 characters of the message. Invalid entries are reported and skipped;
a file that cannot be read or is not valid JSON is reported and the next source is used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from agentprompt.prompts.loader import PACKAGED_DIR, user_prompt_dir

__all__ = [
    "PACKAGED_SNIPPETS",
    "SNIPPETS_FILE",
    "TOOLTIP_FALLBACK_CHARS",
    "Snippet",
    "SnippetSet",
    "load_prompt_snippets",
    "snippet_sources",
]

SNIPPETS_FILE = "prompt-snippets.json"
"""The snippets file's name in every searched directory."""

PACKAGED_SNIPPETS = PACKAGED_DIR / SNIPPETS_FILE
"""The packaged default snippets."""

TOOLTIP_FALLBACK_CHARS = 50
"""How much of the message stands in for a missing tooltip."""

_FIX_FILE = "fix the file or remove it; the next source is used"

_FILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["snippets"],
    "properties": {"snippets": {"type": "array"}},
}
_SNIPPET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["icon", "message"],
    "properties": {
        "icon": {"type": "string", "minLength": 1},
        "message": {"type": "string", "minLength": 1},
        "tooltip": {"type": "string"},
    },
}


@dataclass(frozen=True, kw_only=True)
class Snippet:
    """One quick-insert button."""

    icon: str
    """The emoji or character on the button."""
    tooltip: str
    """The hover text (the message's first 50 characters when the file gives none)."""
    message: str
    """The text inserted into the input field."""


@dataclass(frozen=True, kw_only=True)
class SnippetSet:
    """The snippets in force and where they came from."""

    snippets: tuple[Snippet, ...]
    """The valid snippets, in file order."""
    source: Path | None
    """The file they were read from (None: no file could be used)."""
    origin: str
    """Which source won: ``project``, ``user``, ``packaged`` or ``none``."""
    problems: tuple[str, ...] = ()
    """Every file or entry that was skipped, with the reason."""


def snippet_sources(root: Path, *, user_dir: Path | None = None) -> list[tuple[str, Path]]:
    """The snippet files searched, in order, each with its origin name."""
    user = user_dir if user_dir is not None else user_prompt_dir()
    return [
        ("project", root / "config" / "prompts" / SNIPPETS_FILE),
        ("user", user / SNIPPETS_FILE),
        ("packaged", PACKAGED_SNIPPETS),
    ]


def _read(path: Path) -> tuple[list[Any] | None, str | None]:
    """The file's list of entries, or the reason it cannot be used."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        return None, f"{path}: cannot be read ({exc.strerror}); {_FIX_FILE}"
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"{path}: not valid JSON ({exc}); {_FIX_FILE}"
    errors = sorted(jsonschema.Draft202012Validator(_FILE_SCHEMA).iter_errors(data), key=str)
    if errors:
        return None, (
            f"{path}: expected an object with a 'snippets' list ({errors[0].message}); {_FIX_FILE}"
        )
    snippets: list[Any] = data["snippets"]
    return snippets, None


def _snippet(path: Path, index: int, entry: Any) -> tuple[Snippet | None, str | None]:
    errors = list(jsonschema.Draft202012Validator(_SNIPPET_SCHEMA).iter_errors(entry))
    if errors:
        reasons = "; ".join(sorted(e.message for e in errors))
        return None, (
            f"{path}: snippet {index} skipped: {reasons}; give each snippet a non-empty "
            "'icon' and 'message' string (and a 'tooltip' string, if any)"
        )
    message: str = entry["message"]
    tooltip = entry.get("tooltip") or message[:TOOLTIP_FALLBACK_CHARS]
    return Snippet(icon=entry["icon"], tooltip=tooltip, message=message), None


def load_prompt_snippets(root: Path, *, user_dir: Path | None = None) -> SnippetSet:
    """The snippets of the first usable source; never raises for a bad file or entry."""
    problems: list[str] = []
    for origin, path in snippet_sources(root, user_dir=user_dir):
        if not path.exists():
            continue
        entries, problem = _read(path)
        if entries is None:
            problems.append(problem or f"{path}: skipped")
            continue
        snippets: list[Snippet] = []
        for i, entry in enumerate(entries):
            snippet, why = _snippet(path, i, entry)
            if snippet is None:
                problems.append(why or f"{path}: snippet {i} skipped")
            else:
                snippets.append(snippet)
        return SnippetSet(
            snippets=tuple(snippets), source=path, origin=origin, problems=tuple(problems)
        )
    return SnippetSet(snippets=(), source=None, origin="none", problems=tuple(problems))
