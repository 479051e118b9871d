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


@pytest.fixture
def seed_003() -> str:
    """Seed 003's text (the Japanese prompt design); skips where the seeds are not present."""
    here = Path(__file__).resolve()
    for seeds in (here.parents[3] / "shared" / "seeds", Path("/work/shared/seeds")):
        found = sorted(seeds.glob("003_*.md")) if seeds.is_dir() else []
        if found:
            return found[0].read_text(encoding="utf-8")
    pytest.skip("../shared/seeds is not present")
