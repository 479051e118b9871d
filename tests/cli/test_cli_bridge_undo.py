"""``agentprompt bridge undo`` and ``agentprompt apply --commit`` / ``pack --commit-rounds``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import BRIDGE_EDITS, Result

Run = Callable[..., Result]


def _files(root: Path) -> dict[str, bytes]:
    """Every file but agentprompt's own and git's, with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {".git", ".agentprompt"} & set(p.relative_to(root).parts)
    }


def _status(run: Run, root: Path) -> dict[str, object]:
    return json.loads(run("bridge", "status", "--root", str(root), "--json").out)


@pytest.fixture
def session(run: Run, example: Path, clipboard: list[str]) -> Path:
    """The example with a session in edit mode over the files the edits touch."""
    run("pack", "src", "scripts", "--root", str(example), "--task", "Make parseJSON safe")
    return example


@pytest.fixture
def git_repo(session: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session's repository under git, with an identity to commit as."""
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{name}_NAME", "T")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "t@example.invalid")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=session, check=True, capture_output=True)
    return session


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def _apply(run: Run, root: Path, *flags: str, reply: str = BRIDGE_EDITS) -> Result:
    path = root.parent / "reply.md"
    path.write_text(reply, encoding="utf-8")
    return run("apply", str(path), "--root", str(root), *flags)


def test_undo_restores_the_files_and_the_session(run: Run, session: Path) -> None:
    files, state = _files(session), _status(run, session)
    assert _apply(run, session).code == 0
    assert _files(session) != files

    result = run("bridge", "undo", "--root", str(session))

    assert result.code == 0, result.err
    assert "Round 1 undone: the session is back at round 0" in result.out
    assert "restore scripts/report.py (the round deleted it)" in result.out
    assert "remove src/strings.ts (the round created it)" in result.out
    assert _files(session) == files and _status(run, session) == state


def test_undo_dry_run_shows_the_diff_and_changes_nothing(run: Run, session: Path) -> None:
    _apply(run, session)
    files, state = _files(session), _status(run, session)
    result = run("bridge", "undo", "--dry-run", "--root", str(session))
    assert result.code == 0
    assert "-export const greeting" in result.out and "would restore src/utils.ts" in result.out
    assert _files(session) == files and _status(run, session) == state


def test_undo_json(run: Run, session: Path) -> None:
    _apply(run, session)
    data = json.loads(run("bridge", "undo", "--json", "--root", str(session)).out)
    assert data["undone"] == 1 and data["rounds"] == 0 and data["left"] == 0
    assert data["removed"] == ["src/strings.ts"] and data["recreated"] == ["scripts/report.py"]


def test_undo_refuses_a_file_changed_by_hand(run: Run, session: Path) -> None:
    _apply(run, session)
    (session / "src/strings.ts").write_text("mine\n")
    files, state = _files(session), _status(run, session)
    result = run("bridge", "undo", "--root", str(session))
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert "src/strings.ts changed since round 1" in result.err
    assert _files(session) == files and _status(run, session) == state


def test_undo_with_nothing_to_undo(run: Run, session: Path) -> None:
    result = run("bridge", "undo", "--root", str(session))
    assert result.code == 2 and "nothing to undo" in result.err


def test_undo_after_reset_is_refused(run: Run, session: Path) -> None:
    _apply(run, session)
    run("bridge", "reset", "--root", str(session))
    files = _files(session)
    result = run("bridge", "undo", "--root", str(session))
    assert result.code == 2 and "was cleared since" in result.err
    assert _files(session) == files


def test_apply_commit_commits_only_the_round_files(run: Run, git_repo: Path) -> None:
    (git_repo / "README.md").write_text("mine\n")
    result = _apply(run, git_repo, "--commit")
    assert result.code == 0, result.err
    assert "Committed" in result.err
    committed = _git(git_repo, "show", "--name-status", "--format=%s", "HEAD").split("\n")
    assert committed[0] == "chore: round 1: Make parseJSON safe"
    assert sorted(line for line in committed[1:] if line) == [
        "A\tsrc/strings.ts",
        "D\tscripts/report.py",
        "M\tsrc/index.ts",
        "M\tsrc/utils.ts",
    ]
    assert _git(git_repo, "status", "--porcelain").strip() == "M README.md"


def test_apply_commit_json_names_the_commit(run: Run, git_repo: Path) -> None:
    data = json.loads(_apply(run, git_repo, "--commit", "--json").out)
    assert data["commit"]["commit"] == _git(git_repo, "rev-parse", "HEAD").strip()
    assert data["commit"]["error"] is None


def test_apply_commit_outside_git_applies_nothing(run: Run, session: Path) -> None:
    files, state = _files(session), _status(run, session)
    result = _apply(run, session, "--commit")
    assert result.code == 2
    assert "--commit" in result.err and "not inside a git repository" in result.err
    assert _files(session) == files and _status(run, session) == state


def test_a_session_started_with_commit_rounds_commits_each_round(run: Run, git_repo: Path) -> None:
    started = run("pack", "--root", str(git_repo), "--task", "Tidy", "--commit-rounds", "--new")
    assert started.code == 0, started.err
    assert _status(run, git_repo)["commit_rounds"] is True
    reply = "<<<FILE: [NEW] notes.md>>>\nnotes\n<<<END>>>\n"
    assert _apply(run, git_repo, reply=reply).code == 0
    assert _git(git_repo, "log", "-1", "--format=%s").strip() == "chore: round 1: Tidy"


def test_commit_rounds_outside_git_is_refused(run: Run, example: Path) -> None:
    result = run("pack", "--root", str(example), "--task", "Tidy", "--commit-rounds")
    assert result.code == 2 and "not inside a git repository" in result.err


def test_undo_after_a_commit_leaves_the_commit(run: Run, git_repo: Path) -> None:
    files = _files(git_repo)
    _apply(run, git_repo, "--commit")
    head = _git(git_repo, "rev-parse", "HEAD").strip()
    result = run("bridge", "undo", "--root", str(git_repo))
    assert result.code == 0
    assert f"commit {head[:12]} stays in git's history" in result.out
    assert _git(git_repo, "rev-parse", "HEAD").strip() == head
    assert _files(git_repo) == files


def test_apply_commit_without_a_session_is_refused(run: Run, example: Path) -> None:
    files = _files(example)
    result = _apply(run, example, "--commit")
    assert result.code == 2 and "there is no session" in result.err
    assert _files(example) == files
