"""The one cache database: every cache in one file beside the state database, which a damaged,
foreign or locked cache never touches; the separate cache files it replaces are removed."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from agentprompt.bridge._secretcache import cached_scan
from agentprompt.bridge._sentstore import recall_texts, remember_texts
from agentprompt.repo.discovery import discover
from agentprompt.repo.extraction import Extraction, extract_repository
from agentprompt.repo.secrets import SecretFinding
from agentprompt.store import Store, cachedb, default_cache_path, default_store_path
from agentprompt.store.cachedb import SCHEMA_VERSION, OtherSchema, connect
from agentprompt.tokens import CountCache, get_tokenizer


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "shop.py").write_text("class Cart:\n    def total(self):\n        return 1\n")
    (root / "pkg" / "use.py").write_text("from pkg.shop import Cart\n\nCart().total()\n")
    return root


@pytest.fixture
def session(project: Path) -> str:
    """A session kept in the project's state database (its id)."""
    with Store(default_store_path(project)) as store:
        return store.create_session("bridge", {"task": "keep me"}).id


def _extract(root: Path) -> Extraction:
    found = extract_repository(discover(root), workers=1)
    if found.cache is not None:
        found.cache.close()
    return found


def _scan(items: Sequence[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
    return {
        p: (SecretFinding(path=p, line=1, kind="Fake"),) if "KEY" in t else () for p, t in items
    }


def _tables(where: Path) -> dict[str, int]:
    db = sqlite3.connect(where)
    try:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: db.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        db.close()


def _names(folder: Path) -> set[str]:
    """The files in ``folder``, the cache database's own journals left out."""
    return {p.name for p in folder.iterdir()} - {"cache.db-wal", "cache.db-shm"}


def _state_unchanged(project: Path, session: str, before: bytes) -> None:
    assert default_store_path(project).read_bytes() == before
    with Store(default_store_path(project)) as store:
        assert store.get_session(session).state == {"task": "keep me"}


@contextmanager
def _locked(where: Path) -> Iterator[None]:
    """Hold ``where`` locked against every other connection, readers too."""
    holder = sqlite3.connect(where, isolation_level=None)
    holder.execute("PRAGMA journal_mode = DELETE")
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO sent (digest, text) VALUES ('held', 'held')")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_every_cache_is_a_table_of_one_database_beside_the_state(project: Path) -> None:
    where = default_cache_path(project)
    assert where == project / ".agentprompt" / "cache" / "cache.db"
    _extract(project)
    cached_scan([("a.py", "KEY = 1\n")], _scan, where)
    remember_texts(where, {"d1": "text one"})
    CountCache(get_tokenizer("o200k_base"), store=where).count_each_keyed([("k", "some text")])
    rows = _tables(where)
    assert rows["files"] == 2 and rows["scans"] == 1 and rows["sent"] == 1 and rows["counts"] == 1
    assert _names(where.parent) == {".gitignore", "cache.db"}
    assert recall_texts(where, ["d1", "d2"]) == {"d1": "text one"}


def test_the_old_cache_files_are_removed_when_the_database_is_made(
    project: Path, session: str
) -> None:
    folder = project / ".agentprompt" / "cache"
    folder.mkdir(parents=True)
    old = ["symbols.db", "symbols.db-wal", "symbols.db-shm", "sent.db", "secrets.db"]
    kept = ["symbols.db.damaged", "sniffed.json", "notes.db"]
    for name in (*old, *kept):
        (folder / name).write_bytes(b"old")
    state = default_store_path(project).read_bytes()
    assert _extract(project).parsed == 2
    assert _names(folder) == {".gitignore", "cache.db", *kept}
    _state_unchanged(project, session, state)
    (folder / "symbols.db").write_bytes(b"made by an older agentprompt since")
    assert _extract(project).parsed == 0
    assert (folder / "symbols.db").exists()  # only a new database clears them


def test_a_cache_that_is_not_a_database_is_rebuilt_with_a_warning_and_the_state_kept(
    project: Path, session: str
) -> None:
    _extract(project)
    where = default_cache_path(project)
    for suffix in ("-wal", "-shm"):
        Path(f"{where}{suffix}").unlink(missing_ok=True)
    where.write_bytes(b"not a database" * 100)
    state = default_store_path(project).read_bytes()
    assert cached_scan([("a.py", "KEY\n")], _scan, where)["a.py"]  # skipped, not repaired
    assert where.read_bytes() == b"not a database" * 100
    found = _extract(project)
    assert found.parsed == 2
    assert [w for w in found.warnings if "moved aside and rebuilt" in w and str(where) in w]
    assert Path(f"{where}.damaged").read_bytes() == b"not a database" * 100
    assert _extract(project).warnings == ()
    _state_unchanged(project, session, state)


def test_a_cache_of_another_schema_version_is_rebuilt_with_a_warning(
    project: Path, session: str
) -> None:
    _extract(project)
    where = default_cache_path(project)
    with closing(sqlite3.connect(where)) as db, db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        db.execute("CREATE TABLE later (x)")
    state = default_store_path(project).read_bytes()
    remember_texts(where, {"d1": "text"})  # a small cache leaves it alone
    assert recall_texts(where, ["d1"]) == {}
    found = _extract(project)
    assert found.parsed == 2
    version = f"schema version {SCHEMA_VERSION + 1}, not {SCHEMA_VERSION}"
    assert [w for w in found.warnings if "rebuilt" in w and version in w]
    assert "later" not in _tables(where)
    assert not Path(f"{where}.damaged").exists()
    assert _extract(project).parsed == 0
    _state_unchanged(project, session, state)


def test_a_database_of_another_version_is_refused_without_remaking(tmp_path: Path) -> None:
    where = tmp_path / "cache.db"
    with closing(sqlite3.connect(where)) as db:
        db.execute("CREATE TABLE foreign_rows (x)")
    with pytest.raises(OtherSchema):
        connect(where, remake=False)
    assert _tables(where) == {"foreign_rows": 0}


def test_a_locked_cache_is_a_warning_and_the_run_goes_on_without_it(
    project: Path, session: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _extract(project)
    where = default_cache_path(project)
    state = default_store_path(project).read_bytes()
    monkeypatch.setattr(cachedb, "BUSY_SECONDS", 0.05)
    with _locked(where):
        found = _extract(project)
        assert found.cache is None
        assert [w for w in found.warnings if "cannot be used" in w]
        assert "Cart" in found.files["pkg/shop.py"].defs_text
        assert cached_scan([("a.py", "KEY\n")], _scan, where)["a.py"]
        assert recall_texts(where, ["held"]) == {}
    assert not Path(f"{where}.damaged").exists()
    assert _extract(project).parsed == 0
    _state_unchanged(project, session, state)


def test_a_reader_does_not_wait_for_a_writer(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _extract(project)
    where = default_cache_path(project)
    remember_texts(where, {"d1": "kept"})
    monkeypatch.setattr(cachedb, "BUSY_SECONDS", 0.05)
    writer = sqlite3.connect(where, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO sent (digest, text) VALUES ('d2', 'not yet')")
        assert recall_texts(where, ["d1", "d2"]) == {"d1": "kept"}
        found = _extract(project)
        assert found.warnings == () and found.parsed == 0
    finally:
        writer.execute("COMMIT")
        writer.close()
    assert recall_texts(where, ["d2"]) == {"d2": "not yet"}


def test_a_damaged_state_database_is_refused_and_the_cache_not_touched(
    project: Path, session: str
) -> None:
    from agentprompt.store import StoreError

    _extract(project)
    state = default_store_path(project)
    for suffix in ("-wal", "-shm"):
        Path(f"{state}{suffix}").unlink(missing_ok=True)
    state.write_bytes(b"not a database" * 100)
    cache = default_cache_path(project).read_bytes()
    with pytest.raises(StoreError, match="damaged"):
        Store(state)
    assert state.read_bytes() == b"not a database" * 100
    assert default_cache_path(project).read_bytes() == cache
    assert _extract(project).parsed == 0
