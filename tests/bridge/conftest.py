"""Bridge test fixtures: a copy of the example repository and a fake clipboard."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "bridge"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A fresh copy of examples/bridge/repo."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE / "repo", root)
    return root


@pytest.fixture
def clipboard(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text put on the (fake) clipboard, in order."""
    copied: list[str] = []
    monkeypatch.setattr("agentprompt.bridge.clipboard.system_copy", copied.append)
    return copied
