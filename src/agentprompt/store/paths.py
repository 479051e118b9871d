"""Where a project's databases live, under its ``.agentprompt/`` folder: the state
database (sessions, kept) and the one cache database (rebuilt at will)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["OLD_CACHE_FILES", "default_cache_path", "default_store_path"]

OLD_CACHE_FILES = ("symbols.db", "sent.db", "secrets.db")
"""The cache databases that ``cache.db`` replaces, each once a file of its own beside it;
removed (with their SQLite journals) when ``cache.db`` is made."""


def default_store_path(root: Path) -> Path:
    """Where a project's state lives: ``ROOT/.agentprompt/state.db``."""
    return root / ".agentprompt" / "state.db"


def default_cache_path(root: Path) -> Path:
    """Where a project's caches live (the symbols, remembered secret scans, token counts,
    text facts and texts sent): ``ROOT/.agentprompt/cache/cache.db``."""
    return root / ".agentprompt" / "cache" / "cache.db"
