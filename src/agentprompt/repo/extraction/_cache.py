"""Per-file extraction results kept in SQLite, so unchanged files are never parsed twice.

Each row is keyed by path and remembers the file's size, modification time and content
hash. A file whose size and mtime are unchanged is a hit without being read; one whose
mtime moved but whose content hash is the same is a hit after one read. The names a file
defines and uses are stored as plain text columns, so ranking a whole repository needs no
JSON decoding; the full symbols are decoded only for the files a map shows.

The rows are kept in the ``files``, ``memo`` and ``blobs`` tables of the project's cache
database (:mod:`agentprompt.store.cachedb`, which makes the tables and opens the database in
WAL, so two processes may read and write at once); this module keeps the queries. The
symbol cache is the first to open that database in every command that reads a repository,
so it is the one that repairs it: a damaged file is moved aside and rebuilt, one of another
schema version is made afresh, with a warning, never an error.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path

from agentprompt.repo.extraction._rows import (
    CachedFile,
    CacheRow,
    content_hash,
    from_json,
    row_for,
    to_json,
)
from agentprompt.repo.symbols import FileSymbols
from agentprompt.store.cachedb import busy, connect, rows_in, set_aside, transaction
from agentprompt.store.paths import default_cache_path

__all__ = [
    "CACHE_VERSION",
    "CacheRow",
    "CachedFile",
    "SymbolCache",
    "content_hash",
    "default_cache_path",
    "from_json",
    "row_for",
    "storable",
    "to_json",
]

CACHE_VERSION = 23
"""Bumped whenever extraction changes what it produces; older rows are then discarded."""

_VERSION_KEY = "symbols_version"
"""The ``meta`` row holding the :data:`CACHE_VERSION` the rows were made by."""
_MEMO_KEEP = 32
_OPEN_ATTEMPTS = 8
_BLOBS_KEEP = 6
"""How many blobs are kept, the latest used: one run of a budgeted first prompt writes
three (the bridge's view, the ranking's lexical index and its graph state), and keeping
fewer evicted the view as soon as it was written."""


def storable(path: str) -> bool:
    """Whether ``path`` can be a cache key: a name whose bytes are not UTF-8 (held as lone
    surrogates) cannot, and such a file is parsed on every run instead."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class SymbolCache:
    """The SQLite store of extraction results for one repository."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warning: str | None = None
        self._db = self._open()

    def _connect(self) -> sqlite3.Connection:
        connected = connect(self.path, remake=True)
        if connected.remade is not None:
            self.warning = (
                f"the cache database {self.path} was rebuilt ({connected.remade}), so this "
                "run parses every file again"
            )
        db = connected.db
        row = db.execute("SELECT value FROM meta WHERE key = ?", (_VERSION_KEY,)).fetchone()
        if row is None or row[0] != str(CACHE_VERSION):
            with transaction(db):
                db.execute("DELETE FROM files")
                db.execute("DELETE FROM memo")
                db.execute("DELETE FROM blobs")
                db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    (_VERSION_KEY, str(CACHE_VERSION)),
                )
        db.execute("SELECT count(*) FROM files").fetchone()
        return db

    def _open(self) -> sqlite3.Connection:
        for attempt in range(_OPEN_ATTEMPTS):
            try:
                return self._connect()
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.OperationalError) and busy(exc):
                    # Another process is setting the database up (switching it to WAL can
                    # report busy at once); it is not damaged, so wait and try again.
                    if attempt + 1 == _OPEN_ATTEMPTS:
                        raise
                    time.sleep(0.05 * (attempt + 1))
                    continue
                if not self.path.exists():
                    raise
                self._rebuild(exc)
                return self._connect()
        raise sqlite3.OperationalError(f"{self.path} stayed busy")

    def _rebuild(self, exc: Exception) -> None:
        self.warning = (
            f"the cache database {self.path} was unreadable ({exc}); it was moved aside and "
            "rebuilt, so this run parses every file again"
        )
        set_aside(self.path)

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def entries(self) -> dict[str, CachedFile]:
        """Every cached file's light row, by path."""
        try:
            rows = self._db.execute(
                "SELECT path, size, mtime_ns, hash, language, defs, members, names_hash, detailed"
                " FROM files"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            self._recover(exc)
            return {}
        return {
            r[0]: CachedFile(
                path=r[0],
                size=r[1],
                mtime_ns=r[2],
                hash=r[3],
                language=r[4],
                defs_text=r[5],
                members_text=r[6],
                names_hash=r[7],
                detailed=bool(r[8]),
            )
            for r in rows
        }

    def symbols(self, paths: Iterable[str]) -> dict[str, FileSymbols]:
        """The full extraction results of ``paths`` that are cached with details."""
        wanted = [p for p in dict.fromkeys(paths) if storable(p)]
        found: dict[str, FileSymbols] = {}
        try:
            query = "SELECT path, data, refs FROM files WHERE detailed AND path IN ({marks})"
            for path, data, refs in rows_in(self._db, query, wanted):
                try:
                    found[path] = from_json(data, tuple(refs.split()))
                except (ValueError, KeyError, IndexError, TypeError):
                    continue
        except sqlite3.DatabaseError as exc:
            self._recover(exc)
        return found

    def references(self) -> dict[str, tuple[str, ...]]:
        """The identifiers every cached file uses, by path."""
        try:
            rows = self._db.execute("SELECT path, refs FROM files").fetchall()
        except sqlite3.DatabaseError as exc:
            self._recover(exc)
            return {}
        return {path: tuple(refs.split()) for path, refs in rows}

    def names_of(self, paths: Iterable[str]) -> dict[str, tuple[str, str, str, str]]:
        """(names hash, defs, members, references) of the cached ``paths``, as stored now."""
        wanted = [p for p in dict.fromkeys(paths) if storable(p)]
        found: dict[str, tuple[str, str, str, str]] = {}
        try:
            query = (
                "SELECT path, names_hash, defs, members, refs FROM files WHERE path IN ({marks})"
            )
            for path, names, defs, members, refs in rows_in(self._db, query, wanted):
                found[path] = (names, defs, members, refs)
        except sqlite3.DatabaseError as exc:
            self._recover(exc)
        return found

    def users_of(self, names: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The references of every cached file that uses one of ``names``, by path."""
        wanted = set(names)
        found: dict[str, tuple[str, ...]] = {}
        if not wanted:
            return found
        clause = " OR ".join("instr(refs, ?) > 0" for _ in wanted)
        try:
            for path, refs in self._db.execute(
                f"SELECT path, refs FROM files WHERE {clause}", sorted(wanted)
            ):
                split = tuple(refs.split())
                if not wanted.isdisjoint(split):
                    found[path] = split
        except sqlite3.DatabaseError as exc:
            self._recover(exc)
        return found

    def blob(self, key: str) -> bytes | None:
        """Binary data remembered under ``key`` (such as a graph's state), or None."""
        try:
            row = self._db.execute("SELECT value FROM blobs WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as exc:
            self._recover(exc)
            return None
        return None if row is None or not isinstance(row[0], bytes) else row[0]

    def remember_blob(self, key: str, value: bytes) -> None:
        """Remember ``value`` under ``key``, keeping only the latest few such values."""
        try:
            with transaction(self._db):
                self._db.execute(
                    "INSERT OR REPLACE INTO blobs (key, value, used) VALUES (?, ?, ?)",
                    (key, value, time.time()),
                )
                self._db.execute(
                    "DELETE FROM blobs WHERE key NOT IN "
                    "(SELECT key FROM blobs ORDER BY used DESC LIMIT ?)",
                    (_BLOBS_KEEP,),
                )
        except sqlite3.DatabaseError as exc:
            self._recover(exc)

    def memo(self, key: str) -> str | None:
        """A value remembered under ``key`` (a derived result such as a ranking), or None."""
        try:
            row = self._db.execute("SELECT value FROM memo WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as exc:
            self._recover(exc)
            return None
        return None if row is None else str(row[0])

    def remember(self, key: str, value: str) -> None:
        """Remember ``value`` under ``key``, keeping only the most recently stored values."""
        try:
            with transaction(self._db):
                self._db.execute(
                    "INSERT OR REPLACE INTO memo (key, value, used) VALUES (?, ?, ?)",
                    (key, value, time.time()),
                )
                self._db.execute(
                    "DELETE FROM memo WHERE key NOT IN "
                    "(SELECT key FROM memo ORDER BY used DESC LIMIT ?)",
                    (_MEMO_KEEP,),
                )
        except sqlite3.DatabaseError as exc:
            self._recover(exc)

    def store(self, rows: Iterable[CacheRow]) -> None:
        """Save rows made by :func:`row_for` (replacing older rows of the same paths)."""
        batch = [row.values() for row in rows if storable(row.light.path)]
        if not batch:
            return
        try:
            with transaction(self._db):
                self._db.executemany(
                    "INSERT OR REPLACE INTO files "
                    "(path, size, mtime_ns, hash, language, defs, members, names_hash, detailed,"
                    " refs, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    batch,
                )
        except sqlite3.DatabaseError as exc:
            self._recover(exc)

    def touch(self, updates: Iterable[tuple[int, int, str]]) -> None:
        """Record new (size, mtime, path) for files whose content hash did not change."""
        batch = list(updates)
        if batch:
            try:
                with transaction(self._db):
                    self._db.executemany(
                        "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", batch
                    )
            except sqlite3.DatabaseError as exc:
                self._recover(exc)

    def forget(self, paths: Iterable[str]) -> None:
        """Drop the rows of files that no longer exist."""
        batch = [(p,) for p in paths]
        if batch:
            try:
                with transaction(self._db):
                    self._db.executemany("DELETE FROM files WHERE path = ?", batch)
            except sqlite3.DatabaseError as exc:
                self._recover(exc)

    def _recover(self, exc: Exception) -> None:
        if isinstance(exc, sqlite3.ProgrammingError | sqlite3.InterfaceError):
            raise exc
        if isinstance(exc, sqlite3.OperationalError) and busy(exc):
            # Another process held the database too long: it is healthy, just not ours now.
            self.warning = (
                f"the cache database {self.path} stayed locked by another process ({exc}); "
                "this run's results were not all saved"
            )
            return
        self._db.close()
        self._rebuild(exc)
        self._db = self._connect()
