"""``agentprompt map``: the symbol map on stdout, JSON on request, clear errors for bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Result, snapshot_tree


def _code_repo(repo: Path) -> Path:
    (repo / "src" / "app" / "core.py").write_text(
        "VALUE = 1\n\n\ndef compute(x: int, scale: int = 2) -> int:\n    return x * scale\n"
    )
    (repo / "src" / "app" / "cli.py").write_text(
        "from app.core import compute\n\n\ndef main() -> None:\n    print(compute(1))\n"
    )
    return repo


def test_map_prints_legend_then_files(run: Callable[..., Result], repo: Path) -> None:
    result = run("map", "--root", str(_code_repo(repo)), "--no-cache")
    assert result.code == 0
    assert result.out.startswith("# f=function")
    assert "f compute(x,scale?)->int:4 ←1" in result.out
    assert "i→ src/app/core.py" in result.out
    assert "tokens (o200k_base)" in result.err


def test_map_text_ends_its_last_line(run: Callable[..., Result], repo: Path) -> None:
    result = run("map", "--root", str(_code_repo(repo)), "--no-cache")
    assert result.out.endswith("\n") and not result.out.endswith("\n\n")


def test_map_json_has_files_text_tokens_and_omitted(run: Callable[..., Result], repo: Path) -> None:
    result = run("map", "--root", str(_code_repo(repo)), "--json", "--no-cache")
    assert result.code == 0
    data = json.loads(result.out)
    assert {"files", "text", "tokens", "omitted"} <= set(data)
    paths = [f["path"] for f in data["files"] if f["language"] is not None]
    assert paths == ["src/app/cli.py", "src/app/core.py"]
    assert data["tokens"] <= 1024


def test_map_respects_the_token_budget(run: Callable[..., Result], repo: Path) -> None:
    result = run("map", "--root", str(_code_repo(repo)), "--tokens", "30", "--json", "--no-cache")
    data = json.loads(result.out)
    assert 0 < data["tokens"] <= 30
    assert data["omitted"] >= 1


def test_map_writes_its_cache_under_the_root(run: Callable[..., Result], repo: Path) -> None:
    _code_repo(repo)
    assert run("map", "--root", str(repo)).code == 0
    assert (repo / ".agentprompt" / "cache" / "cache.db").exists()
    again = run("map", "--root", str(repo))
    assert "0 parsed" in again.err


def test_map_of_a_missing_root_is_bad_input(run: Callable[..., Result], tmp_path: Path) -> None:
    result = run("map", "--root", str(tmp_path / "nowhere"))
    assert result.code == 2
    assert "is not a directory" in result.err
    assert "Traceback" not in result.err


def test_map_of_a_file_as_root_is_bad_input(run: Callable[..., Result], repo: Path) -> None:
    result = run("map", "--root", str(repo / "README.md"))
    assert result.code == 2
    assert "is not a directory" in result.err


def test_map_rejects_a_zero_budget(run: Callable[..., Result], repo: Path) -> None:
    result = run("map", "--root", str(repo), "--tokens", "0")
    assert result.code == 2


def test_bad_files_are_reported_once_and_skipped(run: Callable[..., Result], repo: Path) -> None:
    _code_repo(repo)
    (repo / "src" / "app" / "latin.py").write_bytes(b"name = '\xe9'\n")
    (repo / "src" / "app" / "broken.py").write_text("def broken(:\n    pass\n")
    before = snapshot_tree(repo)
    result = run("map", "--root", str(repo), "--no-cache")
    assert result.code == 0
    assert result.err.count("latin.py") == 1
    assert "not UTF-8" in result.err
    assert "Traceback" not in result.err
    assert snapshot_tree(repo) == before


def test_task_and_focus_change_the_ranking(run: Callable[..., Result], repo: Path) -> None:
    _code_repo(repo)
    plain = json.loads(run("map", "--root", str(repo), "--json", "--no-cache").out)
    focused = json.loads(
        run(
            "map",
            "--root",
            str(repo),
            "--json",
            "--no-cache",
            "--focus",
            "src/app/cli.py",
            "--mention",
            "main",
            "--task",
            "fix cli.py",
        ).out
    )
    rank = {f["path"]: f["rank"] for f in plain["files"]}
    rank_focused = {f["path"]: f["rank"] for f in focused["files"]}
    assert rank_focused["src/app/cli.py"] > rank["src/app/cli.py"]


def test_an_unknown_focus_file_is_reported(run: Callable[..., Result], repo: Path) -> None:
    result = run("map", "--root", str(_code_repo(repo)), "--no-cache", "--focus", "nope.py")
    assert result.code == 0
    assert "nope.py is not a code file" in result.err


def test_huge_and_binary_code_files_are_reported_once(
    run: Callable[..., Result], repo: Path
) -> None:
    _code_repo(repo)
    (repo / "src" / "app" / "huge.py").write_text("x = 1\n" * 250_000)
    (repo / "src" / "app" / "blob.py").write_bytes(b"\x00\x01binary" * 10)
    result = run("map", "--root", str(repo), "--no-cache")
    assert result.code == 0
    assert result.err.count("huge.py") == 1
    assert "size cap" in result.err
    # A binary file is counted (there may be hundreds), and listed with --verbose.
    assert "blob.py" not in result.err
    assert "agentprompt: 1 binary file left out; --verbose lists them" in result.err
    assert "compute" in result.out
    verbose = run("map", "--root", str(repo), "--verbose")
    assert verbose.err.count("left out src/app/blob.py: binary content") == 1
    assert "--verbose lists them" not in verbose.err


def test_map_reports_a_rebuilt_cache_once_as_a_warning(
    run: Callable[..., Result], repo: Path
) -> None:
    _code_repo(repo)
    assert run("map", "--root", str(repo)).code == 0
    db = repo / ".agentprompt" / "cache" / "cache.db"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"not a database" * 100)
    result = run("map", "--root", str(repo))
    assert result.code == 0
    lines = [line for line in result.err.splitlines() if "cache database" in line]
    assert len(lines) == 1
    assert lines[0].startswith("agentprompt: warning: the cache database")
    assert "Warning" not in result.err


def test_map_says_when_the_budget_is_too_small_for_anything(
    run: Callable[..., Result], repo: Path
) -> None:
    result = run("map", "--root", str(_code_repo(repo)), "--max-tokens", "3", "--no-cache")
    assert result.code == 0
    assert result.out == ""
    assert "--max-tokens 3 is too small" in result.err


def test_map_accepts_a_focus_path_relative_to_the_working_directory(
    run: Callable[..., Result], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _code_repo(repo)
    monkeypatch.chdir(repo.parent)
    focus = f"{repo.name}/src/app/core.py"
    result = run("map", "--root", repo.name, "--focus", focus, "--no-cache")
    assert result.code == 0
    assert "does not steer" not in result.err
