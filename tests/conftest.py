"""Test-suite switches: no real model calls, and no user configuration leaking in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentprompt.llm import ALLOW_MODEL_REQUESTS_ENV


@pytest.fixture(autouse=True)
def _isolated(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Block real model requests and point the user config dir at an empty folder."""
    monkeypatch.setenv(ALLOW_MODEL_REQUESTS_ENV, "0")
    config = tmp_path_factory.mktemp("user-config")
    monkeypatch.setenv("AGENTPROMPT_CONFIG_DIR", str(config))
    yield


@pytest.fixture
def user_config_dir() -> Path:
    """The (empty, per-test) user config dir that AGENTPROMPT_CONFIG_DIR points to."""
    import os

    return Path(os.environ["AGENTPROMPT_CONFIG_DIR"])
