"""Undoing applied rounds and committing them, in the bridge service: files and the
session's state go back exactly, refusals change nothing, a commit holds only the round's
files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentprompt.bridge import find_session
from agentprompt.bridge.undo import KEEP_ROUNDS
from agentprompt.edits import ChangedSince
from agentprompt.errors import UsageError
from agentprompt.llm import FunctionModel, ModelRequest
from agentprompt.services import BridgeSessions, ReplyChoices, StartRequest, Workspace

EXAMPLE = Path(__file__).parents[2] / "examples" / "bridge"


def _write(path: str, body: str, *, new: bool = False) -> str:
    return f"<<<FILE: {'[NEW] ' if new else ''}{path}>>>\n{body}<<<END>>>\n"


ANY = ReplyChoices(allow_whole_file=True)
"""Whole-file writes over files the model was not shown are fine here."""


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root`` (but agentprompt's own folder and git's) with its mode."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".agentprompt", ".git/")):
            out[rel] = (path.read_bytes(), path.stat().st_mode & 0o7777)
    return out


@pytest.fixture
def sessions(example: Path) -> BridgeSessions:
    sessions = BridgeSessions(Workspace(example))
    sessions.start(StartRequest(task="Make parseJSON safe", paths=("src/utils.ts",)))
    return sessions


def _git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    done = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repo(example: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example as a git repository with one commit, and an identity to commit as."""
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{name}_NAME", "T")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "t@example.invalid")
    _git(example, "init", "-q", "-b", "main")
    _git(example, "add", "-A")
    _git(example, "commit", "-q", "-m", "start")
    return example


def test_undo_puts_back_every_file_and_the_state_before_the_round(
    sessions: BridgeSessions, example: Path
) -> None:
    (example / "run.sh").write_text("echo hi\n")
    os.chmod(example / "run.sh", 0o755)
    files = _snapshot(example)
    before = find_session(example)
    reply = (
        _write("src/utils.ts", "export const x = 1;\n")
        + _write("src/new/deep/made.ts", "new\n", new=True)
        + _write("run.sh", "echo bye\n")
        + "<<<DELETE: src/index.ts>>>\n"
    )
    outcome = sessions.apply(reply, ANY)
    assert outcome.report.written and not (example / "src/index.ts").exists()
    assert find_session(example) != before

    undone = sessions.undo()

    assert _snapshot(example) == files
    assert not (example / "src/new").exists()
    assert find_session(example) == before
    assert undone.undone == 1 and undone.state.rounds == 0
    assert set(undone.files.removed) == {"src/new/deep/made.ts"}
    assert undone.files.recreated == ("src/index.ts",)
    assert set(undone.files.restored) == {"src/utils.ts", "run.sh"}


def test_undo_walks_back_round_by_round(sessions: BridgeSessions, example: Path) -> None:
    states, files = [find_session(example)], [_snapshot(example)]
    for n in range(3):
        sessions.apply(_write("src/utils.ts", f"round {n}\n"), ANY)
        states.append(find_session(example))
        files.append(_snapshot(example))
    for n in (2, 1, 0):
        outcome = sessions.undo()
        assert outcome.left == n
        assert find_session(example) == states[n] and _snapshot(example) == files[n]
    with pytest.raises(UsageError, match="nothing to undo"):
        sessions.undo()


def test_a_round_that_wrote_nothing_is_undone_too(sessions: BridgeSessions, example: Path) -> None:
    before = find_session(example)
    sessions.apply("<<<REQUEST_FILE: src/index.ts>>>\n", ANY)
    assert find_session(example) != before
    assert sessions.undo().files.diff == ""
    assert find_session(example) == before


def test_only_the_last_rounds_are_kept(sessions: BridgeSessions, example: Path) -> None:
    for n in range(KEEP_ROUNDS + 2):
        sessions.apply(_write("src/utils.ts", f"round {n}\n"), ANY)
    for _ in range(KEEP_ROUNDS):
        sessions.undo()
    with pytest.raises(UsageError, match=f"keeps the last {KEEP_ROUNDS} rounds"):
        sessions.undo()


def test_a_dry_run_shows_the_diff_and_changes_nothing(
    sessions: BridgeSessions, example: Path
) -> None:
    sessions.apply(_write("src/utils.ts", "export const x = 1;\n"), ANY)
    files, state = _snapshot(example), find_session(example)
    outcome = sessions.undo(dry_run=True)
    assert outcome.dry_run and outcome.files.restored == ("src/utils.ts",)
    assert "-export const x = 1;" in outcome.files.diff
    assert _snapshot(example) == files and find_session(example) == state
    sessions.undo()
    assert find_session(example) != state


def test_undo_refuses_a_file_changed_by_hand_and_names_it(
    sessions: BridgeSessions, example: Path
) -> None:
    sessions.apply(_write("src/utils.ts", "one\n") + _write("src/other.ts", "two\n", new=True), ANY)
    (example / "src/other.ts").write_text("by hand\n")
    files, state = _snapshot(example), find_session(example)
    with pytest.raises(ChangedSince) as caught:
        sessions.undo()
    assert caught.value.paths == ("src/other.ts",)
    assert "src/other.ts changed since round 1" in str(caught.value)
    assert _snapshot(example) == files and find_session(example) == state
    with pytest.raises(ChangedSince):
        sessions.undo(dry_run=True)


def test_undo_refuses_a_deleted_file_made_again_by_hand(
    sessions: BridgeSessions, example: Path
) -> None:
    sessions.apply("<<<DELETE: src/index.ts>>>\n", ANY)
    (example / "src/index.ts").write_text("mine\n")
    with pytest.raises(ChangedSince, match=r"src/index\.ts"):
        sessions.undo()
    assert (example / "src/index.ts").read_text() == "mine\n"


def test_undo_with_nothing_applied_is_refused(sessions: BridgeSessions) -> None:
    with pytest.raises(UsageError, match="nothing to undo"):
        sessions.undo()


def test_undo_after_the_session_was_replaced_is_refused(
    sessions: BridgeSessions, example: Path
) -> None:
    sessions.apply(_write("src/utils.ts", "one\n"), ANY)
    sessions.start(StartRequest(task="Another task", new=True))
    files, state = _snapshot(example), find_session(example)
    with pytest.raises(UsageError, match="replaced by a new task"):
        sessions.undo()
    assert _snapshot(example) == files and find_session(example) == state


def test_undo_after_a_reset_is_refused(sessions: BridgeSessions, example: Path) -> None:
    sessions.apply(_write("src/utils.ts", "one\n"), ANY)
    sessions.reset()
    files = _snapshot(example)
    with pytest.raises(UsageError, match="was cleared"):
        sessions.undo()
    assert _snapshot(example) == files and find_session(example) is None


def test_a_dry_run_apply_keeps_no_round(sessions: BridgeSessions) -> None:
    sessions.apply(
        _write("src/utils.ts", "one\n"), ReplyChoices(allow_whole_file=True, dry_run=True)
    )
    with pytest.raises(UsageError, match="nothing to undo"):
        sessions.undo()


def test_undo_is_all_or_nothing_when_the_session_cannot_be_saved(
    sessions: BridgeSessions, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions.apply(_write("src/utils.ts", "one\n") + _write("src/b.ts", "two\n", new=True), ANY)
    files, state = _snapshot(example), find_session(example)

    def broken(*args: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr("agentprompt.services._bridge.forget_round", broken)
    with pytest.raises(OSError):
        sessions.undo()
    assert _snapshot(example) == files and find_session(example) == state


# Committing rounds


def test_commit_stages_and_commits_only_the_round_files(
    sessions: BridgeSessions, repo: Path
) -> None:
    (repo / "notes.txt").write_text("mine, staged\n")
    _git(repo, "add", "notes.txt")
    (repo / "README.md").write_text("mine, not staged\n")
    reply = _write("src/utils.ts", "export const x = 1;\n") + _write(
        "src/made.ts", "new\n", new=True
    )
    outcome = sessions.apply(reply, ReplyChoices(allow_whole_file=True, commit=True))
    assert outcome.commit is not None and outcome.commit.commit
    shown = _git(repo, "show", "--name-only", "--format=%s%n%b", "HEAD")
    assert shown.startswith("chore: round 1: Make parseJSON safe\n")
    assert "- src/utils.ts (changed)" in shown and "- src/made.ts (created)" in shown
    committed = _git(repo, "diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD")
    assert committed.split() == ["src/made.ts", "src/utils.ts"]
    status = _git(repo, "status", "--porcelain")
    assert "A  notes.txt" in status and " M README.md" in status
    assert "utils" not in status and "made" not in status


def test_a_session_started_to_commit_rounds_commits_each(example: Path, repo: Path) -> None:
    sessions = BridgeSessions(Workspace(repo))
    sessions.start(StartRequest(task="Make parseJSON safe", commit_rounds=True))
    sessions.apply(_write("src/utils.ts", "one\n"), ANY)
    sessions.apply("<<<DELETE: src/utils.ts>>>\n", ANY)
    log = _git(repo, "log", "--format=%s").splitlines()
    assert log[:2] == ["chore: round 2: Make parseJSON safe", "chore: round 1: Make parseJSON safe"]


def test_commit_outside_git_is_refused_before_anything_is_applied(
    sessions: BridgeSessions, example: Path
) -> None:
    files, state = _snapshot(example), find_session(example)
    with pytest.raises(UsageError, match="not inside a git repository"):
        sessions.apply(
            _write("src/utils.ts", "one\n"), ReplyChoices(allow_whole_file=True, commit=True)
        )
    assert _snapshot(example) == files and find_session(example) == state


def test_commit_message_comes_from_the_model_when_one_is_given(
    sessions: BridgeSessions, repo: Path
) -> None:
    seen: list[str] = []

    def reply(request: ModelRequest) -> str:
        seen.append(request.messages[-1].content)
        return "fix: make parsing safe\n\nReturn null on bad input."

    outcome = sessions.apply(
        _write("src/utils.ts", "one\n"),
        ReplyChoices(allow_whole_file=True, commit=True),
        commit_model=lambda: FunctionModel(reply),
    )
    assert outcome.commit is not None
    assert _git(repo, "log", "-1", "--format=%s").strip() == "fix: make parsing safe"
    assert "src/utils.ts" in seen[0]


def test_undo_after_a_commit_reverts_the_files_and_leaves_the_commit(
    sessions: BridgeSessions, repo: Path
) -> None:
    files = _snapshot(repo)
    sessions.apply(
        _write("src/utils.ts", "one\n"), ReplyChoices(allow_whole_file=True, commit=True)
    )
    head = _git(repo, "rev-parse", "HEAD").strip()
    outcome = sessions.undo()
    assert outcome.commit == head
    assert _git(repo, "rev-parse", "HEAD").strip() == head
    assert _snapshot(repo) == files
    assert _git(repo, "status", "--porcelain").strip() == "M src/utils.ts"
