"""``agentprompt tree``: the tree text, JSON, token counts, --explain, bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.repo.discovery import _walk as walk_module

from .conftest import Result, snapshot_tree

Run = Callable[..., Result]


def test_tree_prints_the_repository_tree(run: Run, repo: Path) -> None:
    done = run("tree", "--root", str(repo))
    assert done.code == 0
    assert done.out == "src/\n  app/\n    cli.py\n    core.py\nREADME.md\n"
    assert "3 files; 0 left out" in done.err


def test_tree_json_holds_the_text_the_nested_tree_and_the_exclusions(run: Run, repo: Path) -> None:
    (repo / "yarn.lock").write_text("lock\n")
    done = run("tree", "--root", str(repo), "--json")
    data = json.loads(done.out)
    assert data["text"] == "src/\n  app/\n    cli.py\n    core.py\nREADME.md\n"
    assert data["git"] is True
    assert data["files"] == 3
    assert data["tree"]["children"][0]["name"] == "src"
    assert data["excluded"] == [
        {"path": "yarn.lock", "reason": "excluded by default exclusion (`yarn.lock`)"}
    ]
    assert done.err == ""


def test_tree_tokens_shows_counts_per_file_and_folder(run: Run, repo: Path) -> None:
    done = run("tree", "--root", str(repo), "--tokens")
    lines = done.out.splitlines()
    assert lines[0].startswith("src/ [") and lines[0].endswith(" tokens]")
    assert "tokens (o200k_base)" in done.err
    data = json.loads(run("tree", "--root", str(repo), "--tokens", "--json").out)
    assert data["tokenizer"] == "o200k_base"
    assert data["tokens"] == sum(c.get("tokens", 0) for c in data["tree"]["children"])


def test_tree_annotate_shows_each_files_note(
    run: Run, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "agentprompt.repo.map.annotate_files",
        lambda root, discovery: {"src/app/cli.py": "main entry, imports: core"},
    )
    done = run("tree", "--root", str(repo), "--annotate")
    assert "    cli.py (main entry, imports: core)\n" in done.out


def test_explain_says_why_a_file_is_out(run: Run, repo: Path) -> None:
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "debug.log").write_text("x\n")
    done = run("tree", "--root", str(repo), "--explain", "debug.log")
    assert (done.code, done.out) == (
        0,
        "debug.log: excluded: ignored by git: .gitignore:1 (`*.log`)\n",
    )
    data = json.loads(run("tree", "--root", str(repo), "--explain", "debug.log", "--json").out)
    assert data == {
        "path": "debug.log",
        "included": False,
        "reason": "ignored by git: .gitignore:1 (`*.log`)",
    }


def test_explain_says_a_file_is_in(run: Run, repo: Path) -> None:
    done = run("tree", "--root", str(repo), "--explain", "README.md")
    assert done.out == "README.md: included (6 bytes)\n"


def test_unreadable_files_are_skipped_and_reported_once(
    run: Run, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = walk_module.sniff
    monkeypatch.setattr(
        walk_module,
        "sniff",
        lambda p: "unreadable: Permission denied" if p.endswith("core.py") else real(p),
    )
    done = run("tree", "--root", str(repo))
    assert done.code == 0
    assert "core.py" not in done.out
    assert done.err.count("core.py") == 1
    assert "agentprompt: skipped src/app/core.py: cannot read (Permission denied)" in done.err


def test_a_root_that_is_not_a_directory_exits_2_without_a_traceback(run: Run, repo: Path) -> None:
    done = run("tree", "--root", str(repo / "README.md"))
    assert done.code == 2
    assert "agentprompt: error:" in done.err and "is not a directory" in done.err
    assert "Traceback" not in done.err


def test_a_bad_size_cap_exits_2(run: Run, repo: Path) -> None:
    assert run("tree", "--root", str(repo), "--max-file-bytes", "-1").code == 2


def test_tree_writes_nothing(run: Run, repo: Path) -> None:
    before = snapshot_tree(repo)
    run("tree", "--root", str(repo), "--tokens")
    run("tree", "--root", str(repo), "--explain", "README.md")
    assert snapshot_tree(repo) == before


def test_exclude_and_default_exclusion_flags_change_the_tree(run: Run, repo: Path) -> None:
    (repo / "yarn.lock").write_text("lock\n")
    done = run("tree", "--root", str(repo), "--exclude", "core.py", "--no-default-excludes")
    assert done.out == "src/\n  app/\n    cli.py\nREADME.md\nyarn.lock\n"


def test_no_git_walks_the_folder_with_its_gitignore_files(run: Run, repo: Path) -> None:
    (repo / ".gitignore").write_text("*.md\n")
    data = json.loads(run("tree", "--root", str(repo), "--no-git", "--json").out)
    assert data["git"] is False
    assert data["text"] == "src/\n  app/\n    cli.py\n    core.py\n.gitignore\n"


def test_an_invalid_exclude_pattern_exits_2(run: Run, repo: Path) -> None:
    done = run("tree", "--root", str(repo), "--exclude", "[abc")
    assert done.code == 2
    assert "is not a valid gitignore pattern" in done.err and "Traceback" not in done.err


def test_explain_in_no_git_mode_says_why_without_blaming_git(run: Run, repo: Path) -> None:
    (repo / "srclink").symlink_to(repo / "src")
    done = run("tree", "--root", str(repo), "--no-git", "--explain", "srclink/app/cli.py")
    assert done.code == 0
    assert "a symlinked folder to src/ inside the root" in done.out
    assert "not listed by git" not in done.out
