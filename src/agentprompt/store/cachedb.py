"""The one cache database of a project, ``ROOT/.agentprompt/cache/cache.db``.

Everything agentprompt remembers only to save work is kept here, a table (or a few) per
kind (:data:`TABLES`): the symbol cache's files, memos and blobs
(:mod:`agentprompt.repo.extraction._cache`), remembered secret scans
(:mod:`agentprompt.bridge._secretcache`), token counts (:mod:`agentprompt.tokens`), text
facts (:mod:`agentprompt.bridge._textfacts`) and the texts a bridge session sent
(:mod:`agentprompt.bridge._sentstore`). Each of those modules keeps its own queries; the
layout of every table is here, under one version number (SQLite's ``user_version``): a
table whose layout changes bumps :data:`SCHEMA_VERSION`, and a database of another version
is emptied and made afresh.

The database uses WAL, so one process writes while others read (a second command, the web
server). Nothing that goes wrong with it is fatal: the symbol cache, opened first by every
command that reads a repository, moves a damaged file aside and rebuilds it, and makes a
database of another version afresh, with a warning; the small caches skip a database they
cannot use (:func:`open_cache`), and their work is then done again. When the database is
made, the separate cache files it replaces (:data:`~agentprompt.store.paths.OLD_CACHE_FILES`)
are removed.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprompt.store.paths import OLD_CACHE_FILES

__all__ = [
    "BUSY_SECONDS",
    "SCHEMA_VERSION",
    "TABLES",
    "Connected",
    "OtherSchema",
    "busy",
    "connect",
    "open_cache",
    "rows_in",
    "set_aside",
    "transaction",
]

SCHEMA_VERSION = 2
"""The layout of :data:`TABLES`; a database of another version is made afresh."""

TABLES = (
    # The symbol cache (agentprompt.repo.extraction._cache): its extraction version, one row
    # per file, derived results (rankings) and binary state (a graph), both kept few.
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE files (path TEXT PRIMARY KEY, size INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL, hash TEXT NOT NULL, language TEXT, defs TEXT NOT NULL,"
    " members TEXT NOT NULL, names_hash TEXT NOT NULL, detailed INTEGER NOT NULL,"
    " refs TEXT NOT NULL, data TEXT NOT NULL)",
    "CREATE TABLE memo (key TEXT PRIMARY KEY, value TEXT NOT NULL, used REAL NOT NULL)",
    "CREATE TABLE blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL, used REAL NOT NULL)",
    # Secret scans' findings, by scanner version, file name and text digest
    # (agentprompt.bridge._secretcache).
    "CREATE TABLE scans (key TEXT PRIMARY KEY, findings TEXT NOT NULL)",
    # Token counts, by encoding and text digest (agentprompt.tokens).
    "CREATE TABLE counts (key TEXT PRIMARY KEY, tokens INTEGER NOT NULL)",
    # A file's digest, fence, length and whether it ends a line while its stamp is unchanged
    # (agentprompt.bridge._textfacts).
    "CREATE TABLE texts (path TEXT PRIMARY KEY, stamp TEXT NOT NULL, digest TEXT NOT NULL,"
    " fence INTEGER NOT NULL, chars INTEGER NOT NULL, ends_line INTEGER NOT NULL)",
    # Texts a bridge session's prompts sent, by digest (agentprompt.bridge._sentstore).
    "CREATE TABLE sent (digest TEXT PRIMARY KEY, text TEXT NOT NULL)",
)
"""Every table of the cache database, as made for :data:`SCHEMA_VERSION`."""

BUSY_SECONDS = 30.0
"""How long a statement waits for another process's lock before it gives up."""

_CHUNK = 500
"""Keys asked for in one statement (SQLite limits a statement's parameters)."""
_JOURNALS = ("", "-wal", "-shm", "-journal")
"""A database file's name and its SQLite companions' suffixes."""


class OtherSchema(sqlite3.DatabaseError):
    """A cache database of another schema version, or not made by agentprompt."""


@dataclass(frozen=True, kw_only=True)
class Connected:
    """An open cache database (see :func:`connect`)."""

    db: sqlite3.Connection
    """The connection, in autocommit mode (a transaction is :func:`transaction`)."""
    remade: str | None
    """Why the tables were emptied and made afresh (another schema version), or None."""


def connect(where: Path, *, remake: bool) -> Connected:
    """The cache database at ``where``, made with every table when missing or empty (the
    folder too, git-ignored, and the old cache files beside it removed). With ``remake``, a
    database of another schema version is emptied and made afresh; without, it raises
    :class:`OtherSchema`. A file that is not a database raises :class:`sqlite3.DatabaseError`,
    a lock held past :data:`BUSY_SECONDS` :class:`sqlite3.OperationalError` (see
    :func:`busy`), a folder that cannot be made :class:`OSError`."""
    where.parent.mkdir(parents=True, exist_ok=True)
    _ignore_folder(where.parent)
    db = sqlite3.connect(where, timeout=BUSY_SECONDS, isolation_level=None)
    try:
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        remade = _settle_schema(db, remake=remake)
    except BaseException:
        db.close()
        raise
    if remade is not None:
        _remove_old_caches(where)
    return Connected(db=db, remade=remade or None)


def open_cache(where: Path) -> sqlite3.Connection | None:
    """The cache database at ``where`` for a small cache, whose writes are each one
    transaction (``with db:``); None when it cannot be used (damaged, of another schema
    version, locked, or its folder cannot be made): the cache is then skipped, as without
    it."""
    try:
        db = connect(where, remake=False).db
    except (OSError, sqlite3.Error):
        return None
    db.isolation_level = "IMMEDIATE"
    return db


def set_aside(where: Path) -> None:
    """Move the damaged database at ``where`` (and its journals) aside, as
    ``NAME.damaged``, so that the next :func:`connect` makes it afresh."""
    for suffix in _JOURNALS:
        damaged = Path(f"{where}{suffix}")
        if damaged.exists():
            damaged.replace(Path(f"{where}{suffix}.damaged"))


def busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` says the database is locked or busy (not damaged)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(exc).lower()
    return "locked" in text or "busy" in text


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction on an autocommit connection, begun at once (so it waits for
    another writer up front rather than failing halfway)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def rows_in(db: sqlite3.Connection, query: str, keys: Sequence[str]) -> Iterator[Any]:
    """The rows ``query`` gives for every key of ``keys``: its ``{marks}`` stands for the
    placeholders of an ``IN (...)``, and the keys are asked for a chunk at a time."""
    for start in range(0, len(keys), _CHUNK):
        chunk = list(keys[start : start + _CHUNK])
        yield from db.execute(query.format(marks=",".join("?" * len(chunk))), chunk)


def _settle_schema(db: sqlite3.Connection, *, remake: bool) -> str | None:
    """Make the tables when the database is new (or, with ``remake``, of another version):
    None when they were there, ``""`` when made in a new database, else why they were made
    afresh."""
    if _version(db) == SCHEMA_VERSION:
        return None
    with transaction(db):
        found = _version(db)  # another process may have made it meanwhile
        if found == SCHEMA_VERSION:
            return None
        tables = _tables(db)
        if tables and not remake:
            raise OtherSchema(f"schema version {found}, not {SCHEMA_VERSION}")
        for name in tables:
            db.execute(f'DROP TABLE "{name}"')
        for statement in TABLES:
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return f"it was of schema version {found}, not {SCHEMA_VERSION}" if tables else ""


def _version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def _tables(db: sqlite3.Connection) -> list[str]:
    rows = db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    return [str(name) for (name,) in rows]


def _remove_old_caches(where: Path) -> None:
    """Remove the cache files that ``where`` replaces, beside it (those exact names and
    their journals only); a file that cannot be removed is left."""
    for name in OLD_CACHE_FILES:
        if name == where.name:
            continue
        for suffix in _JOURNALS:
            with contextlib.suppress(OSError):
                (where.parent / f"{name}{suffix}").unlink(missing_ok=True)


def _ignore_folder(folder: Path) -> None:
    """Make git ignore the cache folder (a ``.gitignore`` of ``*`` ignores itself too), so
    a cache never shows up in ``git status``."""
    marker = folder / ".gitignore"
    if not marker.exists():
        marker.write_text("*\n", encoding="utf-8")
