"""Bridge test fixtures: seed 003's text (the example repository and the fake clipboard are in
the suite's conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def seed_003() -> str:
    """Seed 003's text (the Japanese prompt design); skips where the seeds are not present."""
    here = Path(__file__).resolve()
    for seeds in (here.parents[3] / "shared" / "seeds", Path("/work/shared/seeds")):
        found = sorted(seeds.glob("003_*.md")) if seeds.is_dir() else []
        if found:
            return found[0].read_text(encoding="utf-8")
    pytest.skip("../shared/seeds is not present")
