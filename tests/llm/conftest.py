"""Fixtures of the model-client tests: a loopback server, and real requests let through."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentprompt.llm import ALLOW_MODEL_REQUESTS_ENV

from .loopback import LoopbackServer


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A loopback server speaking whatever the test queues; closed after the test."""
    running = LoopbackServer()
    yield running
    running.close()


@pytest.fixture
def allow_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the SDK clients send (to the loopback server only: every test gives its URL)."""
    monkeypatch.setenv(ALLOW_MODEL_REQUESTS_ENV, "1")
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
