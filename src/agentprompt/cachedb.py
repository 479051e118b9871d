"""The small SQLite caches kept in a repository's git-ignored ``.agentprompt/cache/``
(remembered token counts, secret verdicts, texts sent): opened the same way everywhere, and
skipped, never fatal, when they cannot be opened."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

__all__ = ["open_cache", "rows_in"]

_CHUNK = 500
"""Keys asked for in one statement (SQLite limits a statement's parameters)."""


def open_cache(where: Path, schema: str) -> sqlite3.Connection | None:
    """The cache database at ``where`` with ``schema``'s table, made if missing (its folder
    git-ignored); None when it cannot be opened."""
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        marker = where.parent / ".gitignore"
        if not marker.exists():
            marker.write_text("*\n", encoding="utf-8")
        db = sqlite3.connect(where, timeout=30.0)
        db.execute(schema)
    except (OSError, sqlite3.Error):
        return None
    return db


def rows_in(db: sqlite3.Connection, query: str, keys: Sequence[str]) -> Iterator[Any]:
    """The rows ``query`` gives for every key of ``keys``: its ``{marks}`` stands for the
    placeholders of an ``IN (...)``, and the keys are asked for a chunk at a time."""
    for start in range(0, len(keys), _CHUNK):
        chunk = list(keys[start : start + _CHUNK])
        yield from db.execute(query.format(marks=",".join("?" * len(chunk))), chunk)
