"""Environment facts: git state and the rest, read at the edge."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

from agentprompt.project.environment import (
    git_state,
    read_environment,
    watch_environment,
)

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]


def _init(root: Path) -> None:
    subprocess.run([*GIT, "init", "-q", "-b", "trunk"], cwd=root, check=True)


def test_a_repository_without_commits_still_names_its_branch(tmp_path: Path) -> None:
    _init(tmp_path)
    assert git_state(tmp_path) == (True, "trunk", None)


def test_a_detached_head_is_named_by_its_commit(tmp_path: Path) -> None:
    _init(tmp_path)
    (tmp_path / "f").write_text("x")
    subprocess.run([*GIT, "add", "f"], cwd=tmp_path, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "c"], cwd=tmp_path, check=True)
    subprocess.run([*GIT, "checkout", "-q", "--detach"], cwd=tmp_path, check=True)
    inside, branch, commit = git_state(tmp_path)
    assert inside and branch is None
    assert commit is not None and len(commit) >= 7


def test_a_plain_folder_is_not_a_repository(tmp_path: Path) -> None:
    assert git_state(tmp_path) == (False, None, None)


def test_the_clock_is_passed_in_so_prompts_are_byte_stable(tmp_path: Path) -> None:
    moment = dt.datetime(2030, 5, 6, 7, 8, 9)
    env = read_environment(tmp_path, clock=lambda: moment)
    assert env.now == moment
    assert env.cwd == tmp_path.resolve()
    assert env.is_git is False


def test_the_watched_environment_follows_a_switch_of_branch(tmp_path: Path) -> None:
    _init(tmp_path)
    current = watch_environment(tmp_path)
    assert current().git_branch == "trunk"
    subprocess.run([*GIT, "checkout", "-q", "-b", "feature"], cwd=tmp_path, check=True)
    assert current().git_branch == "feature"


def test_the_watched_environment_reads_the_clock_every_time(tmp_path: Path) -> None:
    moments = iter([dt.datetime(2030, 1, 1), dt.datetime(2030, 1, 2), dt.datetime(2030, 1, 3)])
    current = watch_environment(tmp_path, clock=lambda: next(moments))
    first = current()
    assert first.now == dt.datetime(2030, 1, 2) and first.is_git is False
    assert current().now == dt.datetime(2030, 1, 3)
