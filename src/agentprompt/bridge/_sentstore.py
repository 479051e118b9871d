"""The texts a bridge session's prompts sent, kept so a later prompt can send a diff.

A follow-up prompt shows a file that changed since the chat last saw it as a diff against
the version sent, when the diff is smaller. That version is kept here, keyed by its
digest, in the ``sent`` table of the project's cache database
(:mod:`agentprompt.store.cachedb`). A database that cannot be opened, or a text no longer
in it, only means the whole file is sent again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from agentprompt.store.cachedb import open_cache, rows_in

__all__ = ["recall_texts", "remember_texts"]


def remember_texts(where: Path, texts: Mapping[str, str]) -> None:
    """Keep ``texts`` (by digest) in the cache database at ``where``; a database that
    cannot be written is skipped."""
    if not texts:
        return
    db = open_cache(where)
    if db is None:
        return
    try:
        with db:
            db.executemany(
                "INSERT OR IGNORE INTO sent (digest, text) VALUES (?, ?)", list(texts.items())
            )
    except sqlite3.Error:
        pass
    finally:
        db.close()


def recall_texts(where: Path, digests: Iterable[str]) -> dict[str, str]:
    """The texts kept in the cache database at ``where`` for ``digests`` (those not kept
    are left out)."""
    wanted = list(dict.fromkeys(digests))
    if not wanted or not where.exists():
        return {}
    db = open_cache(where)
    if db is None:
        return {}
    found: dict[str, str] = {}
    try:
        found.update(rows_in(db, "SELECT digest, text FROM sent WHERE digest IN ({marks})", wanted))
    except sqlite3.Error:
        return found
    finally:
        db.close()
    return found
