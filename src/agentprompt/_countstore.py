"""Token counts kept across processes: the ``counts`` table of the cache database.

A count is kept by its key (the encoding and the text's digest, or a key naming the
text: :class:`~agentprompt.tokens.CountCache`), so a text counted once is never tokenized
again in a later command. The table's layout is :mod:`agentprompt.store.cachedb`'s; a
database that cannot be used is skipped (:func:`~agentprompt.store.cachedb.open_cache`),
and the counts are then worked out again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping
from pathlib import Path

from agentprompt.store.cachedb import open_cache, rows_in

__all__ = ["CountStore"]


class CountStore:
    """The counts kept in one cache database, by key."""

    def __init__(self, where: Path) -> None:
        self.where = where
        """The cache database's file."""

    def recall(self, keys: Collection[str]) -> dict[str, int]:
        """The counts kept of ``keys`` (those not kept are left out), in one query."""
        if not keys:
            return {}
        db = open_cache(self.where)
        if db is None:
            return {}
        try:
            rows = rows_in(db, "SELECT key, tokens FROM counts WHERE key IN ({marks})", list(keys))
            return {str(k): int(n) for k, n in rows}
        except sqlite3.Error:
            return {}
        finally:
            db.close()

    def remember(self, counts: Mapping[str, int]) -> None:
        """Keep ``counts`` by their keys, in one transaction (nothing when the database
        cannot be used)."""
        if not counts:
            return
        db = open_cache(self.where)
        if db is None:
            return
        try:
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO counts (key, tokens) VALUES (?, ?)", counts.items()
                )
        except sqlite3.Error:
            pass
        finally:
            db.close()
