"""The project root: the nearest folder holding .git."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agentprompt.project_root import find_project_root


def _init(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)


def test_the_project_root_is_the_nearest_folder_with_git(tmp_path: Path) -> None:
    _init(tmp_path)
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_project_root(deep) == tmp_path.resolve()


def test_outside_a_repository_the_project_root_is_the_start(tmp_path: Path) -> None:
    assert find_project_root(tmp_path) == tmp_path.resolve()
