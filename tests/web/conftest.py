"""Fixtures of the web page tests: a copy of the bridge example repository, and a client of
its page that carries the right token and Host."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from agentprompt.web import Guard, create_app

EXAMPLES = Path(__file__).parents[2] / "examples" / "bridge"
TOKEN = "test-token-0123456789"
PORT = 8765


@pytest.fixture
def repo(example: Path) -> Path:
    """The repository the page serves: a fresh copy of examples/bridge/repo (the suite's
    ``example`` fixture)."""
    return example


@pytest.fixture
def sample_reply() -> str:
    """examples/bridge/reply.md: two patches and a file request."""
    return (EXAMPLES / "reply.md").read_text(encoding="utf-8")


@pytest.fixture
def client(repo: Path) -> Iterator[TestClient]:
    """A client of the page for ``repo`` whose requests pass the guard (add the token)."""
    app = create_app(repo, Guard(token=TOKEN, port=PORT))
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as test_client:
        yield test_client


@pytest.fixture
def rpc(client: TestClient) -> Callable[..., dict[str, Any]]:
    """Call a JSON-RPC method; returns the whole response object."""
    counter = iter(range(1, 10_000))

    def call(method: str, **params: Any) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": next(counter), "method": method, "params": params}
        answer = client.post(f"/rpc?token={TOKEN}", json=body)
        assert answer.status_code == 200
        data: dict[str, Any] = answer.json()
        return data

    return call
