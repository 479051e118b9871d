"""The small SQLite caches kept in a repository's git-ignored ``.agentprompt/cache/``
(remembered token counts, secret verdicts, texts sent): opened the same way everywhere, and
skipped, never fatal, when they cannot be opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["open_cache"]


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
