"""The map survives odd file names, absurd nesting, a busy or damaged cache, and leaves
``git status`` clean."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import warnings
from pathlib import Path

import pytest

from agentprompt.repo.discovery import discover
from agentprompt.repo.extraction import SymbolCache, default_cache_path, extract_repository
from agentprompt.repo.extraction import _workers as parse_workers
from agentprompt.repo.map import build_map


def _git_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_a_name_that_is_not_utf8_is_mapped_escaped_with_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / os.fsdecode(b"caf\xe9.py")).write_text("def brewed(): pass\n")
    (root / "ok.py").write_text("brewed()\n")
    first = build_map(root)
    second = build_map(root)
    assert '"caf\\udce9.py":' in first.text
    assert second.text == first.text


def test_a_name_with_a_newline_keeps_its_header_on_one_line(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "li\nne.py").write_text("def split_name(): pass\n")
    text = build_map(root).text
    assert '"li\\nne.py":' in text.splitlines()


def test_absurd_nesting_skips_that_file_alone(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    source = "".join("    " * i + f"class C{i}:\n" for i in range(700)) + "    " * 700 + "pass\n"
    (root / "deep.py").write_text(source)
    (root / "ok.py").write_text("def fine(): pass\n")
    found = extract_repository(discover(root), use_cache=False, workers=1)
    assert set(found.files) == {"ok.py"}
    assert any(p.startswith("deep.py: could not be parsed") for p in found.problems)


def test_a_map_leaves_git_status_clean(tmp_path: Path) -> None:
    root = _git_repo(tmp_path / "repo")
    (root / "app.py").write_text("def main(): pass\n")
    subprocess.run(["git", "-C", str(root), "add", "app.py"], check=True)
    build_map(root)
    assert default_cache_path(root).exists()
    status = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True
    )
    assert status.stdout.strip() == "A  app.py"


def test_a_folder_without_code_gets_no_cache(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    (root / "notes.txt").write_text("hello\n")
    build_map(root)
    assert not (root / ".agentprompt").exists()


def test_a_corrupt_cache_is_one_warning_not_a_python_warning(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("def main(): pass\n")
    build_map(root)
    db = default_cache_path(root)
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"not a database" * 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = build_map(root)
    assert len(result.warnings) == 1
    assert "rebuilt" in result.warnings[0]
    assert not any("rebuilt" in p for p in result.problems)


def test_a_locked_cache_is_not_moved_aside(tmp_path: Path) -> None:
    db = tmp_path / "cache.db"
    cache = SymbolCache(db)
    cache._recover(sqlite3.OperationalError("database is locked"))
    assert not Path(f"{db}.damaged").exists()
    assert cache.warning is not None and "locked" in cache.warning
    assert cache.entries() == {}
    cache.close()


def test_a_file_changing_while_read_is_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    target = root / "app.py"
    target.write_text("def main(): pass\n")

    def read_then_edit(path: str, mode: str) -> io.BytesIO:
        data = Path(path).read_bytes()
        Path(path).write_text("def main(): pass\n\n\ndef added(): pass\n")
        return io.BytesIO(data)

    monkeypatch.setattr(parse_workers, "open", read_then_edit, raising=False)
    first = extract_repository(discover(root), workers=1)
    assert first.cache is not None
    first.cache.close()
    monkeypatch.delattr(parse_workers, "open")
    again = extract_repository(discover(root), workers=1)
    assert again.cache is not None
    again.cache.close()
    assert again.parsed == 1
    assert "added" in again.files["app.py"].defs


def test_a_cache_busy_while_opening_is_retried_not_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "cache.db"
    SymbolCache(db).close()
    real_connect = SymbolCache._connect
    failures = {"left": 2}

    def busy_then_fine(self: SymbolCache) -> sqlite3.Connection:
        if failures["left"]:
            failures["left"] -= 1
            raise sqlite3.OperationalError("database is locked")
        return real_connect(self)

    monkeypatch.setattr(SymbolCache, "_connect", busy_then_fine)
    cache = SymbolCache(db)
    cache.close()
    assert cache.warning is None
    assert not Path(f"{db}.damaged").exists()
