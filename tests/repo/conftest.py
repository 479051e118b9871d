"""Fixtures shared by the repository tests."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.repo.extraction import _workers as parse_workers


@pytest.fixture
def chain_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[int, int], Path]:
    """Makes a git work tree ``repo`` of ``count`` modules ``src/m<i>.py`` (``i`` padded to
    ``width`` digits), each ``step_<i>`` calling the one before; files are parsed by worker
    processes from two on."""
    monkeypatch.setattr(parse_workers, "PARALLEL_THRESHOLD", 2)

    def make(count: int, width: int = 1) -> Path:
        root = tmp_path / "repo"
        (root / "src").mkdir(parents=True)
        for i in range(count):
            (root / "src" / f"m{i:0{width}}.py").write_text(
                f"def step_{i}(x: int) -> int:\n    return step_{max(i - 1, 0)}(x)\n"
            )
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        return root

    return make
