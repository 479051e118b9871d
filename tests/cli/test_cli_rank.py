"""``agentprompt rank``: files ordered by relevance to a task, with reasons; bad input refused."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Result, snapshot_tree

TASK = "run_server prints http:// even when a certificate is given; it should print https://"


def _web_repo(repo: Path) -> Path:
    (repo / "src" / "app" / "serving.py").write_text(
        "import ssl\n\n\ndef run_server(host: str, cert: str | None = None) -> None:\n"
        "    scheme = 'http'\n    print(f'{scheme}://{host}')\n"
    )
    (repo / "src" / "app" / "cli.py").write_text(
        "from app.serving import run_server\n\n\ndef main() -> None:\n    run_server('x')\n"
    )
    (repo / "src" / "app" / "colors.py").write_text("RED = 1\nGREEN = 2\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_serving.py").write_text(
        "from app.serving import run_server\n\n\ndef test_run_server() -> None:\n"
        "    run_server('x', cert='c')\n"
    )
    return repo


def test_rank_json_lists_files_with_rank_score_and_reasons(
    run: Callable[..., Result], repo: Path
) -> None:
    result = run("rank", "--root", str(_web_repo(repo)), "--task", TASK, "--json", "--no-cache")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    first = data["files"][0]
    assert first["rank"] == 1
    assert first["path"] == "src/app/serving.py"
    assert first["score"] > 0
    signals = {r["signal"] for r in first["reasons"]}
    assert {"lexical", "definition"} <= signals
    assert all({"signal", "detail", "weight"} == set(r) for r in first["reasons"])
    paths = [f["path"] for f in data["files"]]
    assert paths.index("src/app/serving.py") < paths.index("tests/test_serving.py")
    assert data["total"] == len(paths)


def test_rank_top_limits_the_list_and_prints_a_table(
    run: Callable[..., Result], repo: Path
) -> None:
    result = run("rank", "--root", str(_web_repo(repo)), "--task", TASK, "--top", "2")
    assert result.code == 0, result.err
    assert "src/app/serving.py" in result.out
    assert "2 of " in result.err


def test_rank_reads_the_task_from_a_file_or_stdin(
    run: Callable[..., Result], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_file = tmp_path / "task.md"
    task_file.write_text(TASK, encoding="utf-8")
    root = str(_web_repo(repo))
    result = run("rank", "--root", root, "--task-file", str(task_file), "--json")
    assert json.loads(result.out)["files"][0]["path"] == "src/app/serving.py"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(TASK.encode("utf-8"))))
    result = run("rank", "--root", root, "--task-file", "-", "--json")
    assert json.loads(result.out)["files"][0]["path"] == "src/app/serving.py"


def test_rank_symbols_prints_one_line_per_definition(
    run: Callable[..., Result], repo: Path
) -> None:
    root = str(_web_repo(repo))
    result = run("rank", "--root", root, "--task", TASK, "--symbols", "--top", "2", "--no-cache")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("src/app/serving.py:4-6  run_server  (")
    assert "; name: run_server;" in lines[0] and lines[0].endswith("file: the best file)")
    assert len(lines) == 2
    assert "2 definitions shown" in result.err


def test_rank_symbols_json_gives_lines_score_and_reasons(
    run: Callable[..., Result], repo: Path
) -> None:
    root = str(_web_repo(repo))
    result = run("rank", "--root", root, "--task", TASK, "--symbols", "--json")
    assert result.code == 0, result.err
    first = json.loads(result.out)["symbols"][0]
    assert {k: first[k] for k in ("rank", "path", "name", "kind", "start", "end")} == {
        "rank": 1,
        "path": "src/app/serving.py",
        "name": "run_server",
        "kind": "function",
        "start": 4,
        "end": 6,
    }
    assert first["score"] > 0 and first["reasons"]


@pytest.mark.parametrize("task", ["", "  \n "])
def test_rank_symbols_empty_task_is_one_line_exit_2_nothing_written(
    run: Callable[..., Result], repo: Path, task: str
) -> None:
    before = snapshot_tree(repo)
    result = run("rank", "--root", str(repo), "--symbols", "--task", task)
    assert result.code == 2
    assert "the task is empty" in result.err
    assert result.err.count("\n") == 1
    assert snapshot_tree(repo) == before


def test_map_task_json_carries_reasons(run: Callable[..., Result], repo: Path) -> None:
    result = run("map", "--root", str(_web_repo(repo)), "--task", TASK, "--json", "--no-cache")
    assert result.code == 0, result.err
    files = {f["path"]: f for f in json.loads(result.out)["files"]}
    serving = files["src/app/serving.py"]
    assert serving["reasons"] and serving["reasons"][0]["signal"] in {"lexical", "definition"}
    assert serving["rank"] == max(f["rank"] for f in files.values())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--task", ""), "the task is empty"),
        (("--task", "  \n "), "the task is empty"),
        (("--task", "x" * 1_000_001), "characters; the limit is"),
        (("--task", "a\0b"), "binary or undecodable"),
        ((), "--task TEXT or --task-file FILE"),
        (("--task", "x", "--task-file", "t.md"), "--task TEXT or --task-file FILE"),
        (("--task-file", "/nonexistent/task.md"), "cannot read /nonexistent/task.md"),
    ],
)
def test_rank_bad_task_is_one_line_exit_2_nothing_written(
    run: Callable[..., Result], repo: Path, args: tuple[str, ...], message: str
) -> None:
    before = snapshot_tree(repo)
    result = run("rank", "--root", str(repo), *args)
    assert result.code == 2
    assert message in result.err
    assert result.err.count("\n") == 1
    assert snapshot_tree(repo) == before


def test_rank_undecodable_task_file_is_refused(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    task_file = tmp_path / "task.bin"
    task_file.write_bytes(b"\xff\xfe\x00binary")
    before = snapshot_tree(repo)
    result = run("rank", "--root", str(repo), "--task-file", str(task_file))
    assert result.code == 2
    assert "not UTF-8 text" in result.err
    assert snapshot_tree(repo) == before


def test_rank_root_that_is_not_a_directory(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    result = run("rank", "--root", str(tmp_path / "nope"), "--task", TASK)
    assert result.code == 2
    assert "is not a directory" in result.err
    assert result.err.count("\n") == 1


def test_map_empty_task_is_refused(run: Callable[..., Result], repo: Path) -> None:
    before = snapshot_tree(repo)
    result = run("map", "--root", str(repo), "--task", " ")
    assert result.code == 2
    assert "the task is empty" in result.err
    assert snapshot_tree(repo) == before


def test_map_task_shows_the_definitions_the_task_names_first(
    run: Callable[..., Result], repo: Path
) -> None:
    helpers = "\n".join(
        f"def helper_{i}(value: int) -> int:\n    return value\n" for i in range(40)
    )
    (repo / "src" / "app" / "big.py").write_text(
        helpers + "\n\ndef parse_certificate(path: str) -> str:\n    return path\n"
    )
    used = ", ".join(f"helper_{i}" for i in range(12))
    (repo / "src" / "app" / "user.py").write_text(f"from app.big import {used}\n\n{used}\n")
    task = "parse_certificate fails on a path with spaces"
    result = run("map", "--root", str(repo), "--task", task, "--tokens", "120", "--no-cache")
    assert result.code == 0, result.err
    assert "f parse_certificate(path)->str" in result.out


def test_the_lexical_index_is_remembered_and_rebuilt_when_names_change(
    run: Callable[..., Result], repo: Path
) -> None:
    root = _web_repo(repo)
    first = json.loads(run("rank", "--root", str(root), "--task", TASK, "--json").out)
    assert first["files"][0]["path"] == "src/app/serving.py"
    (root / "src" / "app" / "colors.py").write_text("def run_server_with_certificate() -> None:\n")
    task = "run_server_with_certificate is missing"
    second = json.loads(run("rank", "--root", str(root), "--task", task, "--json").out)
    assert second["files"][0]["path"] == "src/app/colors.py"


def test_rank_leaves_generated_files_out_unless_asked(
    run: Callable[..., Result], repo: Path
) -> None:
    root = _web_repo(repo)
    (root / "src" / "app" / "bundle.min.js").write_text("function run_server(){}" * 400)
    plain = json.loads(run("rank", "--root", str(root), "--task", TASK, "--top", "0", "--json").out)
    assert "src/app/bundle.min.js" not in [f["path"] for f in plain["files"]]
    args = ("rank", "--root", str(root), "--task", TASK, "--top", "0", "--json")
    kept = json.loads(run(*args, "--include-generated").out)
    assert "src/app/bundle.min.js" in [f["path"] for f in kept["files"]]
