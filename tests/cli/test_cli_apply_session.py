"""``agentprompt apply`` in a bridge session: the session's update and the files written are
one critical section. A state database that cannot be saved stops the apply before any file
is written (exit 2); concurrent applies of one session never lose an update; a damaged
session is one clear line, never a traceback."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agentprompt.store import Store, StoreError

from .conftest import Result

Run = Callable[..., Result]


def _reply(name: str, request: str | None = None) -> str:
    text = f"<<<FILE: [NEW] {name}>>>\nmade\n<<<END>>>\n"
    if request:
        text += f"\n<<<REQUEST_FILE: {request}>>>\n"
    return text


def _start(run: Run, repo: Path) -> Path:
    result = run("pack", "--root", str(repo), "--task", "Fix it", "--lang", "en")
    assert result.code == 0, result.err
    return repo / ".agentprompt" / "state.db"


@contextmanager
def _db_locked(db: Path) -> Iterator[None]:
    """Another process (here: another connection) holds the database's write lock."""
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


@pytest.fixture
def quick_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's busy wait shortened, so a locked database is reported at once."""
    original = Store.__init__

    def short(self: Store, path: Path, *, timeout: float = 5.0) -> None:
        original(self, path, timeout=0.2)

    monkeypatch.setattr(Store, "__init__", short)


@pytest.mark.usefixtures("quick_lock")
def test_a_locked_state_database_stops_the_apply_before_any_write(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    db = _start(run, repo)
    reply = tmp_path / "reply.md"
    reply.write_text(_reply("src/app/new.py", request="src/app/core.py"), encoding="utf-8")
    with _db_locked(db):
        result = run("apply", str(reply), "--root", str(repo))
    assert result.code == 2, result.err
    assert "locked" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert not (repo / "src" / "app" / "new.py").exists()
    # Nothing is lost: once the lock is gone, the same reply applies and its request lands.
    again = run("apply", str(reply), "--root", str(repo))
    assert again.code == 0, again.err
    assert (repo / "src" / "app" / "new.py").read_text() == "made\n"
    status = json.loads(run("bridge", "status", "--root", str(repo), "--json").out)
    assert "src/app/core.py" in status["files"]


def test_a_read_only_state_database_stops_the_apply_before_any_write(
    run: Run, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _start(run, repo)
    real_connect = sqlite3.connect

    def read_only(path: object, *args: object, **kwargs: object) -> sqlite3.Connection:
        # What a 0444 file gives a user who is not root (the suite may run as root).
        return real_connect(f"file:{path}?mode=ro", *args, uri=True, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", read_only)
    reply = tmp_path / "reply.md"
    reply.write_text(_reply("src/app/new.py"), encoding="utf-8")
    result = run("apply", str(reply), "--root", str(repo), "--json")
    assert result.code == 2
    assert "cannot be opened for writing" in result.err
    data = json.loads(result.out)
    assert data["written"] is False and "cannot be opened for writing" in data["error"]
    assert not (repo / "src" / "app" / "new.py").exists()


def test_a_commit_that_fails_after_the_write_exits_1_naming_the_files(
    run: Run, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _start(run, repo)
    real_save = Store.save_session

    def failing(self: Store, session_id: str, state: dict[str, object]) -> object:
        raise StoreError("state database is full")

    monkeypatch.setattr(Store, "save_session", failing)
    reply = tmp_path / "reply.md"
    reply.write_text(_reply("src/app/new.py", request="src/app/core.py"), encoding="utf-8")
    result = run("apply", str(reply), "--root", str(repo))
    monkeypatch.setattr(Store, "save_session", real_save)
    assert result.code == 1
    assert "src/app/new.py" in result.err
    assert "src/app/core.py" in result.err  # the request, so it is not lost
    assert (repo / "src" / "app" / "new.py").exists()
    data = run("apply", str(reply), "--root", str(repo), "--json")
    assert data.code != 2  # (the file exists now: the [NEW] block fails, exit 1)


def test_concurrent_applies_in_threads_lose_no_update(run: Run, repo: Path, tmp_path: Path) -> None:
    _start(run, repo)
    names = [f"src/app/f{i}.py" for i in range(6)]
    for name in names:
        (repo / name).write_text("x = 1\n")
    # Each thread runs the CLI's apply in-process; the root lock is per thread, so they
    # contend as separate processes do.
    from agentprompt.cli.main import main

    codes: list[object] = []

    def one(i: int) -> None:
        reply = tmp_path / f"r{i}.md"
        reply.write_text(_reply(f"src/app/new{i}.py", request=names[i]), encoding="utf-8")
        try:
            main(["apply", str(reply), "--root", str(repo), "--json"])
            codes.append(0)
        except SystemExit as done:
            codes.append(done.code)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(names))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == [0] * len(names)
    status = json.loads(run("bridge", "status", "--root", str(repo), "--json").out)
    assert status["rounds"] == len(names)
    assert set(names) <= set(status["files"])


def test_concurrent_apply_processes_lose_no_update(repo: Path, tmp_path: Path) -> None:
    cli = [str(Path(sys.executable).with_name("agentprompt"))]
    subprocess.run(
        [*cli, "pack", "--root", str(repo), "--task", "t"], check=True, capture_output=True
    )
    names = [f"src/app/g{i}.py" for i in range(4)]
    procs = []
    for i, name in enumerate(names):
        (repo / name).write_text("x = 1\n")
        reply = tmp_path / f"p{i}.md"
        reply.write_text(_reply(f"src/app/made{i}.py", request=name), encoding="utf-8")
        procs.append(
            subprocess.Popen(
                [*cli, "apply", str(reply), "--root", str(repo), "--json"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        )
    errors = [p.communicate()[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * len(names), errors
    out = subprocess.run(
        [*cli, "bridge", "status", "--root", str(repo), "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    status = json.loads(out)
    assert status["rounds"] == len(names)
    assert set(names) <= set(status["files"])


def test_an_empty_state_database_is_reported_not_dropped(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    db = _start(run, repo)
    for extra in (db.with_name("state.db-wal"), db.with_name("state.db-shm")):
        extra.unlink(missing_ok=True)
    db.write_bytes(b"")
    reply = tmp_path / "reply.md"
    reply.write_text(_reply("src/app/new.py"), encoding="utf-8")
    result = run("apply", str(reply), "--root", str(repo))
    assert result.code == 2
    assert "empty (0 bytes)" in result.err
    assert not (repo / "src" / "app" / "new.py").exists()
    status = run("bridge", "status", "--root", str(repo))
    assert status.code == 2 and "empty (0 bytes)" in status.err


@pytest.mark.parametrize("stored", ["[1, 2]", '"text"', "null"])
def test_a_session_stored_as_other_json_is_one_clear_line(
    run: Run, repo: Path, tmp_path: Path, stored: str
) -> None:
    db = _start(run, repo)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE sessions SET state = ?", (stored,))
    reply = tmp_path / "reply.md"
    reply.write_text(_reply("src/app/new.py"), encoding="utf-8")
    for args in (
        ("apply", str(reply), "--root", str(repo)),
        ("pack", "--root", str(repo)),
        ("bridge", "status", "--root", str(repo)),
    ):
        result = run(*args)
        assert result.code == 2, (args, result.err)
        assert "stored bridge session cannot be read" in result.err
        assert "bridge reset" in result.err
        assert "Traceback" not in result.err
        assert len(result.err.strip().splitlines()) == 1
    assert not (repo / "src" / "app" / "new.py").exists()


@pytest.mark.usefixtures("quick_lock")
def test_an_apply_without_a_bridge_session_is_not_held_up_by_a_locked_database(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    db = repo / ".agentprompt" / "state.db"
    with Store(db) as store:
        store.create_session("agent", {"turns": []})
    reply = tmp_path / "reply.md"
    reply.write_text(_reply("src/app/new.py"), encoding="utf-8")
    with _db_locked(db):
        result = run("apply", str(reply), "--root", str(repo))
    assert result.code == 0, result.err
    assert (repo / "src" / "app" / "new.py").exists()


def test_requests_are_judged_by_the_ignore_rules_of_the_rounds_start(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    (repo / ".gitignore").write_text("local/\n")
    (repo / "local").mkdir()
    (repo / "local" / "notes.md").write_text("private notes 4471\n")
    _start(run, repo)
    reply = tmp_path / "reply.md"
    reply.write_text(
        "<<<FILE: .gitignore>>>\n# nothing ignored\n<<<END>>>\n\n"
        "<<<FILE: [NEW] src/app/made.py>>>\nMADE = 1\n<<<END>>>\n\n"
        "<<<REQUEST_FILES>>>\n- local/notes.md\n- src/app/made.py\n- src/app/core.py\n<<<END>>>\n",
        encoding="utf-8",
    )
    result = run("apply", str(reply), "--root", str(repo), "--allow-whole-file")
    assert result.code == 0, result.err
    assert "private notes 4471" not in result.out
    assert "cannot show local/notes.md" in result.out
    status = json.loads(run("bridge", "status", "--root", str(repo), "--json").out)
    assert "local/notes.md" not in status["files"]
    assert {"src/app/made.py", "src/app/core.py"} <= set(status["files"])


def test_with_json_a_damaged_session_is_a_json_error_too(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    db = _start(run, repo)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE sessions SET state = ?", ("[1, 2]",))
    reply = tmp_path / "reply.md"
    reply.write_text(_reply("src/app/new.py"), encoding="utf-8")
    for args in (
        ("apply", str(reply), "--root", str(repo), "--json"),
        ("pack", "--root", str(repo), "--json"),
        ("bridge", "status", "--root", str(repo), "--json"),
    ):
        result = run(*args)
        assert result.code == 2, (args, result.err)
        data = json.loads(result.out)  # one JSON document, never two
        assert "stored bridge session cannot be read" in data["error"]
        assert len(result.err.strip().splitlines()) == 1
    assert not (repo / "src" / "app" / "new.py").exists()


@pytest.mark.slow
def test_an_apply_whose_output_is_cut_short_still_advances_the_round(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    """``agentprompt apply reply.md | head -1``: the reader closes the pipe after one
    line, yet the session is saved before anything is printed, so the round advances and
    the file the reply asked for is in the context."""
    _start(run, repo)
    reply = tmp_path / "reply.md"
    reply.write_text(_reply("src/app/new.py", request="src/app/core.py"), encoding="utf-8")
    cli = shlex.quote(str(Path(sys.executable).with_name("agentprompt")))
    piped = subprocess.run(
        f"{cli} apply {shlex.quote(str(reply))} --root {shlex.quote(str(repo))} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "80"},
        check=False,
    )
    assert piped.stdout.count("\n") == 1, piped.stdout
    assert (repo / "src" / "app" / "new.py").read_text() == "made\n"
    status = json.loads(run("bridge", "status", "--root", str(repo), "--json").out)
    assert status["rounds"] == 1, piped.stderr
    assert "src/app/core.py" in status["files"]
