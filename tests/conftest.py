"""Test-suite switches (no real model calls, no user configuration leaking in), and the
bridge example repository and fake clipboard that several test folders use."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentprompt.llm import ALLOW_MODEL_REQUESTS_ENV


@pytest.fixture(autouse=True)
def _isolated(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Block real model requests, point the user config dir at an empty folder, and leave
    the session budget to each test (no ``AGENTPROMPT_MAX_TOKENS`` from the shell)."""
    monkeypatch.setenv(ALLOW_MODEL_REQUESTS_ENV, "0")
    monkeypatch.delenv("AGENTPROMPT_MAX_TOKENS", raising=False)
    config = tmp_path_factory.mktemp("user-config")
    monkeypatch.setenv("AGENTPROMPT_CONFIG_DIR", str(config))
    yield


@pytest.fixture
def user_config_dir() -> Path:
    """The (empty, per-test) user config dir that AGENTPROMPT_CONFIG_DIR points to."""
    return Path(os.environ["AGENTPROMPT_CONFIG_DIR"])


SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE_ENV = "AGENTPROMPT_UPDATE_SNAPSHOTS"


@pytest.fixture
def snapshot() -> Callable[[str, str], None]:
    """Compare a rendered text with tests/snapshots/NAME byte for byte.

    Run with AGENTPROMPT_UPDATE_SNAPSHOTS=1 to write new or changed snapshots, then review
    the diff before committing it.
    """

    def check(name: str, text: str) -> None:
        path = SNAPSHOTS / name
        if os.environ.get(UPDATE_ENV) == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="")
            return
        if not path.exists():
            pytest.fail(f"no snapshot {path}; run the tests with {UPDATE_ENV}=1 to create it")
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"rendered text differs from snapshot {path}"

    return check


EXAMPLE = Path(__file__).parents[1] / "examples" / "bridge"
"""The bridge example: ``repo/`` and the sample ``reply.md``."""


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


Growth = Callable[[Callable[[], object], Callable[[], object]], tuple[float, float]]


@pytest.fixture
def growth() -> Growth:
    """The CPU seconds ``small()`` and ``large()`` take, for tests that an algorithm stays
    linear.

    This process's CPU time, not the wall clock, so other jobs on a busy machine do not
    count; the two are measured in turns, five times each, and the
    best of each kept, so a burst of cache misses or a collection slows both alike.
    """

    def seconds(small: Callable[[], object], large: Callable[[], object]) -> tuple[float, float]:
        best = {small: float("inf"), large: float("inf")}
        for _ in range(5):
            for run in (small, large):
                began = time.process_time()
                run()
                best[run] = min(best[run], time.process_time() - began)
        return best[small], best[large]

    return seconds
