"""The state database: sessions and other runtime state, kept across upgrades.

The database runs in WAL mode so readers never block the writer, and its schema evolves
through an append-only list of named migrations: a migration, once released, is never
edited or removed, only followed by new ones. A corrupt, locked or unreadable database
gives a :class:`StoreError` that says what to do, never a traceback.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprompt.errors import AgentPromptError, literal

__all__ = ["MIGRATIONS", "Migration", "SessionRecord", "Store", "StoreError", "UndoRecord"]


class StoreError(AgentPromptError):
    """The state database cannot be used."""


@dataclass(frozen=True, kw_only=True)
class Migration:
    """One step of the schema's history."""

    name: str
    """A unique, permanent name."""
    apply: Callable[[sqlite3.Connection], None]
    """Executes the step inside the migration's transaction."""


def _create_sessions(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            state TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX sessions_kind_updated ON sessions (kind, updated_at)")


def _create_undo_records(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE undo_records (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            created_at REAL NOT NULL,
            data TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX undo_records_session ON undo_records (session_id, id)")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(name="0001_sessions", apply=_create_sessions),
    Migration(name="0002_undo_records", apply=_create_undo_records),
)
"""Every migration, oldest first. Append only."""


@dataclass(frozen=True, kw_only=True)
class SessionRecord:
    """A stored session of any runtime (agent, bridge, workflow)."""

    id: str
    """The session's id."""
    kind: str
    """Which runtime it belongs to (``agent``, ``bridge``...)."""
    created_at: float
    """When it was created (seconds since the epoch)."""
    updated_at: float
    """When it was last saved."""
    state: dict[str, Any]
    """The runtime's state, as JSON-compatible data."""


@dataclass(frozen=True, kw_only=True)
class UndoRecord:
    """What a session kept to take one of its steps back (a bridge round, say)."""

    id: int
    """The record's number (later records have larger ones)."""
    session_id: str
    """The session the step belongs to (it may have been removed since)."""
    created_at: float
    """When the step was taken (seconds since the epoch)."""
    data: dict[str, Any]
    """The runtime's record, as JSON-compatible data."""


def _keep_out_of_git(path: Path) -> None:
    """Name the database in ``.agentprompt/.gitignore`` so it never shows in ``git status``.

    Only the database's own files are named, not the whole folder: projects commit
    ``.agentprompt/agents/`` and ``.agentprompt/prompts/``. A marker written here also
    ignores itself, so it never shows either (in ``git status`` nor in a prompt's file
    tree); a ``.gitignore`` the project keeps there only gains the database's line. A
    database kept elsewhere (one the user names) is the user's business. A folder that cannot be
    written is left as it is.
    """
    if path.parent.name != ".agentprompt":
        return
    marker = path.parent / ".gitignore"
    line = f"/{path.name}*"
    try:
        existing = marker.read_text(encoding="utf-8") if marker.exists() else ""
        if line in existing.splitlines():
            return
        lead = "" if not existing or existing.endswith("\n") else "\n"
        note = "" if existing else "# agentprompt's local state: not shared\n/.gitignore\n"
        with marker.open("a", encoding="utf-8") as out:
            out.write(f"{lead}{note}{line}\n")
    except (OSError, UnicodeDecodeError):
        return


def _explain(path: Path, exc: sqlite3.Error) -> StoreError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreError(
            f"state database {path} is locked by another agentprompt process; wait for it to "
            "finish and try again"
        )
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreError(
            f"state database {path} is damaged ({text}); the sessions in it cannot be read. "
            "Move the file aside (keep it if you want to try to recover them, e.g. with "
            "sqlite3's .recover) and run the command again to start a fresh one"
        )
    if "readonly" in text or "unable to open" in text or "disk I/O" in text:
        return StoreError(
            f"state database {path} cannot be opened for writing ({text}); check the "
            "permissions of the file and its folder"
        )
    return StoreError(f"state database {path}: {text}")


class Store:
    """A project's state database."""

    def __init__(self, path: Path, *, timeout: float = 5.0) -> None:
        self.path = path
        self._held = False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the folder for state database {path}: {exc.strerror}"
            ) from None
        try:
            self._db = sqlite3.connect(path, timeout=timeout, isolation_level=None)
            self._check_is_ours()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.Error as exc:
            self.close()
            raise _explain(path, exc) from None
        _keep_out_of_git(path)

    @classmethod
    def open_existing(cls, path: Path) -> Store | None:
        """The database at ``path`` if there is one (``None``: none, and none is created).

        An empty file is refused: agentprompt's database is never empty once made, so a
        0-byte file is one whose contents were lost (a full disk, a copy cut short), and
        opening it would silently start afresh, dropping the sessions it held.
        """
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"state database {path} cannot be read: {exc.strerror}") from None
        if size == 0:
            raise StoreError(
                f"state database {literal(str(path))} is empty (0 bytes): the sessions it held "
                "are lost. "
                "Remove the file to start afresh ({start_session} starts a new session)",
                names=True,
            )
        return cls(path)

    def close(self) -> None:
        """Close the connection (safe to call twice)."""
        db = getattr(self, "_db", None)
        if db is not None:
            db.close()
            self._db = None  # type: ignore[assignment]

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def writing(self) -> Iterator[None]:
        """One write transaction around a critical section of the caller.

        The database's write lock is taken at once (``BEGIN IMMEDIATE``), so a database
        locked by another process is refused before the caller does anything; every save
        inside commits together at the end, and an exception rolls them all back. A
        failing commit raises :class:`StoreError` on leaving the block.
        """
        if self._held:
            yield
            return
        with self._transaction():
            self._held = True
            try:
                yield
            finally:
                self._held = False

    def claim(self, session_id: str) -> SessionRecord:
        """Inside :meth:`writing`: the session, read afresh, after proving it can be saved
        (a read-only database is refused here, before the caller changes anything)."""
        if not self._held:
            raise RuntimeError("Store.claim is for use inside Store.writing()")
        record = self.get_session(session_id)
        try:
            self._db.execute(
                "UPDATE sessions SET updated_at = updated_at WHERE id = ?", (session_id,)
            )
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        return record

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        if self._held:
            # Inside writing(): its transaction commits everything at its end.
            yield self._db
            return
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None

    def _check_is_ours(self) -> None:
        """Refuse, before writing anything, a database some other program made."""
        tables = {
            row[0]
            for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if tables and "migrations" not in tables:
            self.close()
            raise StoreError(
                f"{literal(str(self.path))} is an SQLite database of another program (it has "
                f"the tables {literal(', '.join(sorted(tables)))})",
                fix="give agentprompt its own file with {db}",
            )

    def _migrate(self) -> None:
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL)"
        )
        done = {row[0] for row in self._db.execute("SELECT name FROM migrations")}
        known = {m.name for m in MIGRATIONS}
        newer = sorted(done - known)
        if newer:
            raise StoreError(
                f"state database {self.path} was written by a newer agentprompt (it has "
                f"migrations {', '.join(newer)}); upgrade agentprompt to use it"
            )
        for migration in MIGRATIONS:
            if migration.name in done:
                continue
            with self._transaction() as db:
                migration.apply(db)
                db.execute(
                    "INSERT INTO migrations (name, applied_at) VALUES (?, ?)",
                    (migration.name, time.time()),
                )

    def applied_migrations(self) -> list[str]:
        """The names of the migrations this database has, in the order they ran."""
        rows = self._db.execute("SELECT name FROM migrations ORDER BY applied_at, name")
        return [r[0] for r in rows]

    def create_session(self, kind: str, state: dict[str, Any]) -> SessionRecord:
        """Store a new session and return it with its id."""
        now = time.time()
        record = SessionRecord(
            id=uuid.uuid4().hex[:12], kind=kind, created_at=now, updated_at=now, state=state
        )
        encoded = _encode(state)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO sessions (id, kind, created_at, updated_at, state) "
                "VALUES (?, ?, ?, ?, ?)",
                (record.id, kind, now, now, encoded),
            )
        return record

    def save_session(self, session_id: str, state: dict[str, Any]) -> SessionRecord:
        """Replace a session's state; :class:`StoreError` when there is no such session."""
        now = time.time()
        encoded = _encode(state)
        with self._transaction() as db:
            changed = db.execute(
                "UPDATE sessions SET state = ?, updated_at = ? WHERE id = ?",
                (encoded, now, session_id),
            ).rowcount
        if not changed:
            raise StoreError(f"no session {session_id!r} in {self.path}")
        return self.get_session(session_id)

    def get_session(self, session_id: str) -> SessionRecord:
        """The session with this id; :class:`StoreError` when there is none."""
        try:
            row = self._db.execute(
                "SELECT id, kind, created_at, updated_at, state FROM sessions WHERE id = ?",
                (session_id,),
            ).fetchone()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        if row is None:
            raise StoreError(
                f"no session {session_id!r} in {self.path}; list sessions to see the ids"
            )
        return _record(row)

    def latest_session(self, kind: str) -> SessionRecord | None:
        """The most recently saved session of this kind, if any."""
        try:
            row = self._db.execute(
                "SELECT id, kind, created_at, updated_at, state FROM sessions WHERE kind = ? "
                "ORDER BY updated_at DESC LIMIT 1",
                (kind,),
            ).fetchone()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        return _record(row) if row else None

    def list_sessions(self, kind: str | None = None) -> list[SessionRecord]:
        """Stored sessions, newest first, optionally of one kind only."""
        query = "SELECT id, kind, created_at, updated_at, state FROM sessions"
        args: tuple[str, ...] = ()
        if kind is not None:
            query += " WHERE kind = ?"
            args = (kind,)
        try:
            rows = self._db.execute(query + " ORDER BY updated_at DESC", args).fetchall()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        return [_record(r) for r in rows]

    def delete_session(self, session_id: str) -> bool:
        """Remove a session; True when it existed."""
        with self._transaction() as db:
            return db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    def push_undo(self, session_id: str, data: dict[str, Any], *, keep: int) -> UndoRecord:
        """Keep ``data`` as session ``session_id``'s newest undo record, keeping at most
        ``keep`` of its records (the oldest go) and none of any other session's."""
        now = time.time()
        encoded = _encode(data)
        with self._transaction() as db:
            number = db.execute(
                "INSERT INTO undo_records (session_id, created_at, data) VALUES (?, ?, ?)",
                (session_id, now, encoded),
            ).lastrowid
            db.execute("DELETE FROM undo_records WHERE session_id != ?", (session_id,))
            db.execute(
                "DELETE FROM undo_records WHERE session_id = ? AND id NOT IN (SELECT id FROM "
                "undo_records WHERE session_id = ? ORDER BY id DESC LIMIT ?)",
                (session_id, session_id, keep),
            )
        assert number is not None
        return UndoRecord(id=number, session_id=session_id, created_at=now, data=data)

    def last_undo(self) -> UndoRecord | None:
        """The newest undo record of any session, if any."""
        try:
            row = self._db.execute(
                "SELECT id, session_id, created_at, data FROM undo_records ORDER BY id DESC LIMIT 1"
            ).fetchone()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        if row is None:
            return None
        try:
            data = json.loads(row[3])
        except (TypeError, ValueError, RecursionError):
            data = None
        if not isinstance(data, dict):
            raise StoreError(
                f"undo record {row[0]} of session {literal(repr(row[1]))} is damaged (not JSON)",
                fix="clear it with {reset_session}",
            )
        return UndoRecord(id=row[0], session_id=row[1], created_at=row[2], data=data)

    def count_undo(self, session_id: str) -> int:
        """How many undo records session ``session_id`` has."""
        try:
            row = self._db.execute(
                "SELECT COUNT(*) FROM undo_records WHERE session_id = ?", (session_id,)
            ).fetchone()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        return int(row[0])

    def delete_undo(self, record_id: int) -> None:
        """Remove an undo record (once its step was taken back)."""
        with self._transaction() as db:
            db.execute("DELETE FROM undo_records WHERE id = ?", (record_id,))


def _encode(state: dict[str, Any]) -> str:
    try:
        return json.dumps(state)
    except (TypeError, ValueError) as exc:
        raise StoreError(
            f"session state must be JSON data (dicts, lists, strings, numbers, booleans, "
            f"None): {exc}"
        ) from None


def _record(row: tuple[Any, ...]) -> SessionRecord:
    try:
        state = json.loads(row[4])
    except (TypeError, ValueError, RecursionError):
        raise StoreError(
            f"session {literal(repr(row[0]))} has a damaged state (not JSON)",
            fix=f"delete it with '{{delete_session}} {literal(str(row[0]))}'",
        ) from None
    # A state that is JSON but not an object is left to its runtime to refuse, naming the
    # fix it knows (resetting the bridge session or the tiers...).
    return SessionRecord(id=row[0], kind=row[1], created_at=row[2], updated_at=row[3], state=state)
