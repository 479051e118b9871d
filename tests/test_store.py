"""The SQLite state store: WAL, named migrations, sessions, and clear errors for bad databases."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentprompt.store import MIGRATIONS, Store, StoreError, default_store_path


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the test's database lives (not created yet)."""
    return default_store_path(tmp_path)


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    """An open store on a fresh database."""
    with Store(db_path) as opened:
        yield opened


def test_a_projects_state_lives_in_dot_agentprompt(tmp_path: Path) -> None:
    assert default_store_path(tmp_path) == tmp_path / ".agentprompt" / "state.db"


def test_opening_creates_the_database_and_its_folder(db_path: Path) -> None:
    assert not db_path.parent.exists()
    Store(db_path).close()
    assert db_path.is_file()


def test_the_database_uses_wal_journal_mode(store: Store, db_path: Path) -> None:
    other = sqlite3.connect(db_path)
    try:
        assert other.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        other.close()


def test_migrations_are_recorded_by_name(store: Store) -> None:
    assert store.applied_migrations() == [m.name for m in MIGRATIONS]


def test_migrations_are_applied_once(db_path: Path) -> None:
    with Store(db_path) as first:
        applied = first.applied_migrations()
    with Store(db_path) as second:
        assert second.applied_migrations() == applied
    other = sqlite3.connect(db_path)
    try:
        count = other.execute("SELECT COUNT(*) FROM migrations").fetchone()[0]
    finally:
        other.close()
    assert count == len(MIGRATIONS)


def test_a_created_session_can_be_read_back(store: Store) -> None:
    created = store.create_session("agent", {"turn": 1})
    assert store.get_session(created.id) == created
    assert created.kind == "agent"
    assert created.state == {"turn": 1}
    assert created.created_at == created.updated_at


def test_session_ids_are_unique(store: Store) -> None:
    ids = {store.create_session("agent", {}).id for _ in range(20)}
    assert len(ids) == 20


def test_session_state_round_trips_as_json(store: Store) -> None:
    state = {
        "messages": [{"role": "user", "content": "héllo ✓"}],
        "todos": [],
        "count": 3,
        "ratio": 0.5,
        "done": False,
        "nothing": None,
    }
    created = store.create_session("agent", state)
    assert store.get_session(created.id).state == state


def test_saving_replaces_the_state_and_updates_the_time(store: Store) -> None:
    created = store.create_session("agent", {"turn": 1})
    saved = store.save_session(created.id, {"turn": 2})
    assert saved.state == {"turn": 2}
    assert store.get_session(created.id).state == {"turn": 2}
    assert saved.created_at == created.created_at
    assert saved.updated_at >= created.updated_at


def test_saving_a_missing_session_raises_store_error(store: Store) -> None:
    with pytest.raises(StoreError, match="nope"):
        store.save_session("nope", {})


def test_getting_a_missing_session_raises_store_error(store: Store) -> None:
    with pytest.raises(StoreError, match="no session 'nope'"):
        store.get_session("nope")


def test_sessions_are_listed_newest_first(store: Store) -> None:
    first = store.create_session("agent", {"n": 1})
    second = store.create_session("bridge", {"n": 2})
    third = store.create_session("agent", {"n": 3})
    store.save_session(first.id, {"n": 4})
    assert [s.id for s in store.list_sessions()] == [first.id, third.id, second.id]


def test_listing_sessions_of_one_kind_leaves_the_others_out(store: Store) -> None:
    first = store.create_session("agent", {})
    store.create_session("bridge", {})
    third = store.create_session("agent", {})
    assert [s.id for s in store.list_sessions("agent")] == [third.id, first.id]
    assert store.list_sessions("workflow") == []


def test_the_latest_session_is_the_most_recently_saved_of_its_kind(store: Store) -> None:
    first = store.create_session("agent", {"n": 1})
    store.create_session("agent", {"n": 2})
    store.create_session("bridge", {"n": 3})
    store.save_session(first.id, {"n": 4})
    latest = store.latest_session("agent")
    assert latest is not None
    assert (latest.id, latest.state) == (first.id, {"n": 4})


def test_there_is_no_latest_session_of_a_kind_never_stored(store: Store) -> None:
    store.create_session("agent", {})
    assert store.latest_session("bridge") is None


def test_deleting_a_session_removes_it_and_says_it_existed(store: Store) -> None:
    created = store.create_session("agent", {})
    kept = store.create_session("agent", {})
    assert store.delete_session(created.id) is True
    assert [s.id for s in store.list_sessions()] == [kept.id]
    with pytest.raises(StoreError):
        store.get_session(created.id)


def test_deleting_a_missing_session_says_it_did_not_exist(store: Store) -> None:
    assert store.delete_session("nope") is False


def test_sessions_survive_reopening(db_path: Path) -> None:
    with Store(db_path) as first:
        created = first.create_session("agent", {"turn": 7})
    with Store(db_path) as second:
        assert second.get_session(created.id) == created


def test_two_stores_on_the_same_file_see_each_others_writes(db_path: Path) -> None:
    with Store(db_path) as one, Store(db_path) as two:
        created = one.create_session("agent", {"by": "one"})
        assert two.get_session(created.id).state == {"by": "one"}
        two.save_session(created.id, {"by": "two"})
        assert one.get_session(created.id).state == {"by": "two"}
        assert two.delete_session(created.id) is True
        assert one.list_sessions() == []


def test_closing_twice_is_safe(db_path: Path) -> None:
    store = Store(db_path)
    store.close()
    store.close()


def test_a_corrupt_database_raises_store_error_saying_what_to_do(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(random.Random(0).randbytes(8192))
    with pytest.raises(StoreError) as caught:
        Store(db_path)
    message = str(caught.value)
    assert str(db_path) in message
    assert "damaged" in message
    assert "Move the file aside" in message


def test_a_corrupt_database_is_left_byte_for_byte_unchanged(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    garbage = random.Random(0).randbytes(8192)
    db_path.write_bytes(garbage)
    with pytest.raises(StoreError):
        Store(db_path)
    assert db_path.read_bytes() == garbage


def test_a_database_with_damaged_pages_raises_store_error(db_path: Path) -> None:
    with Store(db_path) as store:
        for n in range(40):
            store.create_session("agent", {"n": n, "padding": "x" * 500})
    damaged = bytearray(db_path.read_bytes())
    damaged[100:4096] = random.Random(1).randbytes(3996)
    db_path.write_bytes(bytes(damaged))
    with pytest.raises(StoreError, match="damaged"):
        Store(db_path)
    assert db_path.read_bytes() == bytes(damaged)


def test_a_database_from_a_newer_agentprompt_is_refused(db_path: Path) -> None:
    Store(db_path).close()
    other = sqlite3.connect(db_path)
    with other:
        other.execute("INSERT INTO migrations (name, applied_at) VALUES ('9999_future', 0)")
    other.close()
    with pytest.raises(StoreError, match="newer agentprompt") as caught:
        Store(db_path)
    assert "9999_future" in str(caught.value)
    assert "upgrade" in str(caught.value)


@pytest.fixture
def locked(db_path: Path) -> Iterator[sqlite3.Connection]:
    """An initialised database that another connection holds an exclusive lock on."""
    Store(db_path).close()
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield holder
    finally:
        if holder.in_transaction:
            holder.execute("ROLLBACK")
        holder.close()


def test_a_write_to_a_locked_database_raises_store_error_saying_it_is_locked(
    db_path: Path, locked: sqlite3.Connection
) -> None:
    with Store(db_path, timeout=0.05) as store, pytest.raises(StoreError) as caught:
        store.create_session("agent", {})
    assert "locked" in str(caught.value)
    assert str(db_path) in str(caught.value)


def test_a_store_writes_again_once_the_lock_is_released(
    db_path: Path, locked: sqlite3.Connection
) -> None:
    with Store(db_path, timeout=0.05) as store:
        with pytest.raises(StoreError):
            store.create_session("agent", {"n": 1})
        locked.execute("ROLLBACK")
        created = store.create_session("agent", {"n": 2})
        assert [s.state for s in store.list_sessions()] == [{"n": 2}]
        assert created.state == {"n": 2}


def test_a_folder_that_cannot_be_created_raises_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(StoreError, match="cannot create the folder"):
        Store(blocker / "state.db")


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="file permissions do not stop root",
)
def test_a_read_only_folder_raises_store_error(tmp_path: Path) -> None:
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(StoreError, match="cannot be opened for writing"):
            Store(folder / "state.db")
    finally:
        folder.chmod(0o700)


def test_state_that_is_not_json_data_is_refused_and_nothing_is_stored(db_path: Path) -> None:
    with Store(db_path) as store:
        with pytest.raises(StoreError, match="must be JSON data"):
            store.create_session("agent", {"when": object()})
        assert store.list_sessions() == []


def test_a_session_whose_stored_state_is_damaged_raises_store_error(db_path: Path) -> None:
    with Store(db_path) as store:
        record = store.create_session("agent", {"ok": True})
    raw = sqlite3.connect(db_path)
    raw.execute("UPDATE sessions SET state = 'not json' WHERE id = ?", (record.id,))
    raw.commit()
    raw.close()
    with Store(db_path) as store, pytest.raises(StoreError, match="damaged state"):
        store.get_session(record.id)


def test_a_database_of_another_program_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    raw = sqlite3.connect(other)
    raw.execute("CREATE TABLE sessions (x INTEGER)")
    raw.commit()
    raw.close()
    before = other.read_bytes()
    with pytest.raises(StoreError, match="database of another program"):
        Store(other)
    assert other.read_bytes() == before
    assert not (tmp_path / "other.sqlite-wal").exists()


def test_the_default_database_is_kept_out_of_git_status(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with Store(default_store_path(tmp_path)) as store:
        store.create_session("bridge", {"task": "t"})
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout == ""
    # Only the database is ignored: agents and prompts in .agentprompt/ stay visible to git.
    (tmp_path / ".agentprompt" / "agents").mkdir()
    (tmp_path / ".agentprompt" / "agents" / "a.md").write_text("x\n", encoding="utf-8")
    listed = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "?? .agentprompt/agents/a.md" in listed


def test_an_existing_gitignore_keeps_its_lines_and_gains_one_line_once(tmp_path: Path) -> None:
    folder = tmp_path / ".agentprompt"
    folder.mkdir()
    (folder / ".gitignore").write_text("local-notes.md", encoding="utf-8")
    for _ in range(2):
        Store(default_store_path(tmp_path)).close()
    assert (folder / ".gitignore").read_text(encoding="utf-8") == "local-notes.md\n/state.db*\n"


def test_a_database_elsewhere_writes_no_gitignore(tmp_path: Path) -> None:
    Store(tmp_path / "state" / "custom.db").close()
    assert not (tmp_path / "state" / ".gitignore").exists()
