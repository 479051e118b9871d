"""The symbol cache: only changed files are parsed again; damage is repaired, never fatal."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from agentprompt.repo.discovery import RepoFile, discover
from agentprompt.repo.extraction import Extraction, extract_repository
from agentprompt.repo.extraction._cache import (
    CacheRow,
    SymbolCache,
    default_cache_path,
    from_json,
    to_json,
)
from agentprompt.repo.extraction._workers import PARALLEL_THRESHOLD
from agentprompt.repo.map import MapOptions, build_map
from agentprompt.repo.symbols import FileSymbols, extract_symbols

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    for name in ("sample.py", "sample.ts", "sample.go"):
        (root / "pkg" / name).write_bytes((FIXTURES / name).read_bytes())
    (root / "README.md").write_text("# project\n")
    return root


def _extract(root: Path, **kwargs: object) -> Extraction:
    found = extract_repository(discover(root), **kwargs)  # type: ignore[arg-type]
    if found.cache is not None:
        found.cache.close()
    return found


def test_first_run_parses_every_code_file(project: Path) -> None:
    found = _extract(project)
    assert found.parsed == 3
    assert set(found.files) == {"pkg/sample.py", "pkg/sample.ts", "pkg/sample.go", "README.md"}
    assert found.files["README.md"].language is None
    assert default_cache_path(project).exists()


def test_second_run_parses_nothing(project: Path) -> None:
    _extract(project)
    assert _extract(project).parsed == 0


def test_a_changed_file_is_parsed_again_alone(project: Path) -> None:
    _extract(project)
    target = project / "pkg" / "sample.py"
    target.write_text(target.read_text() + "\ndef added() -> None:\n    pass\n")
    found = _extract(project)
    assert found.parsed == 1
    assert "added" in found.files["pkg/sample.py"].defs


def test_a_touched_but_unchanged_file_is_not_parsed(project: Path) -> None:
    _extract(project)
    target = project / "pkg" / "sample.ts"
    stat = target.stat()
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert _extract(project).parsed == 0
    assert _extract(project).parsed == 0


def test_a_deleted_file_leaves_the_cache(project: Path) -> None:
    _extract(project)
    (project / "pkg" / "sample.go").unlink()
    found = _extract(project)
    assert "pkg/sample.go" not in found.files
    cache = SymbolCache(default_cache_path(project))
    assert "pkg/sample.go" not in cache.entries()
    cache.close()


def test_a_corrupt_cache_is_rebuilt_with_a_warning(project: Path) -> None:
    _extract(project)
    db = default_cache_path(project)
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    found = _extract(project)
    assert found.parsed == 3
    assert any("rebuilt" in w for w in found.warnings)
    assert Path(f"{db}.damaged").exists()
    assert _extract(project).parsed == 0


def test_a_cache_locked_while_details_are_stored_is_reported(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _extract(project, details=False)  # rows without details: the map's fitting stores some
    stored = SymbolCache.store

    def locked(self: SymbolCache, rows: Iterable[CacheRow]) -> None:
        rows = list(rows)
        if any(row.light.detailed for row in rows):
            self._recover(sqlite3.OperationalError("database is locked"))
        else:
            stored(self, rows)

    monkeypatch.setattr(SymbolCache, "store", locked)
    found = build_map(project, MapOptions(tokens=400))
    assert "sample" in found.text
    assert [w for w in found.warnings if "stayed locked by another process" in w]


def test_without_the_cache_nothing_is_written(project: Path) -> None:
    found = _extract(project, use_cache=False)
    assert found.parsed == 3
    assert found.symbols(["pkg/sample.py"])["pkg/sample.py"].symbols
    assert not (project / ".agentprompt").exists()


def test_cached_symbols_equal_freshly_extracted_ones(project: Path) -> None:
    _extract(project)
    cache = SymbolCache(default_cache_path(project))
    cached = cache.symbols(["pkg/sample.py"])["pkg/sample.py"]
    cache.close()
    fresh = extract_symbols("pkg/sample.py", (project / "pkg" / "sample.py").read_bytes())
    assert cached == fresh


def test_json_form_round_trips() -> None:
    entry = extract_symbols("x.ts", (FIXTURES / "sample.ts").read_bytes())
    assert from_json(to_json(entry), entry.references) == entry


def test_unreadable_and_non_utf8_files_are_reported_once_and_skipped(project: Path) -> None:
    (project / "pkg" / "latin.py").write_bytes(b"name = '\xe9'\n")
    listed = discover(project)
    extra = (
        RepoFile(path="pkg/latin.py", size=10, mtime_ns=1),
        RepoFile(path="pkg/gone.py", size=10, mtime_ns=1),
    )
    found = extract_repository(replace(listed, files=listed.files + extra), use_cache=False)
    assert sorted(p for p in found.problems if "latin" in p or "gone" in p) == [
        "pkg/gone.py: cannot be read (No such file or directory)",
        "pkg/latin.py: not UTF-8 text (byte 8 cannot be decoded)",
    ]
    assert "pkg/latin.py" not in found.files
    assert len(found.files) == 4  # three code files and README.md


def test_two_processes_may_use_the_cache_at_once(project: Path) -> None:
    for i in range(40):
        (project / "pkg" / f"mod{i}.py").write_text(f"def function_{i}(x):\n    return x\n")
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from agentprompt.repo.discovery._files import RepoFile, discover
        from agentprompt.repo.extraction._repository import extract_repository
        root = Path({str(project)!r})
        for _ in range(3):
            found = extract_repository(discover(root), workers=1)
            assert len(found.files) == 44, len(found.files)  # 43 code files and README.md
            assert found.cache is not None, found.warnings
            found.cache.close()
        print("ok")
        """
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(2)
    ]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err.decode()
        assert out.decode().strip() == "ok"
        assert b"rebuilt" not in err
    assert _extract(project).parsed == 0


def test_an_unusable_cache_location_means_parsing_without_it(project: Path) -> None:
    blocked = project / "README.md" / "cache.db"
    found = _extract(project, cache_path=blocked)
    assert found.parsed == 3
    assert found.cache is None
    assert any("cannot be used" in w for w in found.warnings)
    assert found.symbols(["pkg/sample.py"])["pkg/sample.py"].symbols


def test_without_details_only_names_are_stored_and_the_rows_say_so(project: Path) -> None:
    found = _extract(project, details=False)
    assert found.parsed == 3
    assert not any(f.detailed for p, f in found.files.items() if f.language is not None)
    cache = SymbolCache(default_cache_path(project))
    try:
        assert cache.symbols(["pkg/sample.py"]) == {}  # no full symbols stored
        assert not cache.entries()["pkg/sample.py"].detailed
    finally:
        cache.close()
    # Names only: the same names as a full extraction, so the same reference graph.
    full = extract_symbols("pkg/sample.py", (project / "pkg" / "sample.py").read_bytes())
    light = extract_symbols(
        "pkg/sample.py", (project / "pkg" / "sample.py").read_bytes(), details=False
    )
    assert not light.detailed and light.imports == ()
    assert [(s.kind, s.qualname, s.line) for s in light.symbols] == [
        (s.kind, s.qualname, s.line) for s in full.symbols
    ]
    assert light.references == full.references


def test_symbols_wanted_from_a_row_without_details_are_extracted_and_stored(
    project: Path,
) -> None:
    found = extract_repository(discover(project), details=False)
    try:
        got = found.symbols(["pkg/sample.py"])["pkg/sample.py"]
    finally:
        assert found.cache is not None
        found.cache.close()
    fresh = extract_symbols("pkg/sample.py", (project / "pkg" / "sample.py").read_bytes())
    assert got == fresh and got.detailed
    cache = SymbolCache(default_cache_path(project))
    try:
        assert cache.entries()["pkg/sample.py"].detailed
        assert not cache.entries()["pkg/sample.ts"].detailed
        assert cache.symbols(["pkg/sample.py"])["pkg/sample.py"] == fresh
    finally:
        cache.close()
    # A run without details parses nothing more; one that wants details parses the rest.
    assert _extract(project, details=False).parsed == 0
    assert _extract(project).parsed == 2
    assert _extract(project).parsed == 0


def test_without_a_cache_symbols_are_extracted_with_details_on_demand(project: Path) -> None:
    found = extract_repository(discover(project), use_cache=False, details=False)
    got = found.symbols(["pkg/sample.ts", "README.md"])
    fresh = extract_symbols("pkg/sample.ts", (project / "pkg" / "sample.ts").read_bytes())
    assert got["pkg/sample.ts"] == fresh
    assert got["README.md"].language is None
    assert not (project / ".agentprompt").exists()


def _names(root: Path, entry: FileSymbols) -> tuple[str, ...]:
    """What the derive tests make of a file's symbols (module level: sent to workers)."""
    assert root.is_dir()
    return tuple(s.name for s in entry.symbols)


@pytest.mark.parametrize("count", [3, PARALLEL_THRESHOLD + 10])
def test_derive_is_made_of_every_parsed_file_where_it_was_extracted(
    tmp_path: Path, count: int
) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(count):
        (root / f"m{i}.py").write_text(f"def f{i}(x):\n    return x\n\nclass C{i}:\n    pass\n")
    (root / "README.md").write_text("# many\n")
    found = _extract(root, workers=2, derive=_names)
    assert found.parsed == count
    expected = {
        f"m{i}.py": _names(root, extract_symbols(f"m{i}.py", (root / f"m{i}.py").read_bytes()))
        for i in range(count)
    }
    assert found.derived == expected
    assert _extract(root, workers=2, derive=_names).derived == {}  # nothing parsed again


def test_without_derive_nothing_is_derived(project: Path) -> None:
    assert _extract(project).derived == {}
