"""The HTTP transport: served on 127.0.0.1 to the SDK's client when the token (query
parameter or bearer header) and the Host are right, refused otherwise."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from mcp_server.client import AGENTPROMPT, INITIALIZE

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def url(example: Path) -> Iterator[str]:
    """The endpoint URL (token included) of ``agentprompt mcp --transport http``."""
    server = subprocess.Popen(
        [AGENTPROMPT, "mcp", "--root", str(example), "--transport", "http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline().strip()
        assert line.startswith("http://127.0.0.1:"), line
        yield line
    finally:
        server.terminate()
        server.wait(timeout=10)


def _endpoint(url: str) -> tuple[str, str]:
    """The endpoint without its query, and the token."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}", parts.query.removeprefix("token=")


def test_the_sdk_client_is_served_with_the_token_in_the_url(url: str) -> None:
    async def main() -> list[str]:
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [t.name for t in (await session.list_tools()).tools]

    assert "rank_files" in anyio.run(main)


def test_the_sdk_client_is_served_with_a_bearer_header(url: str) -> None:
    endpoint, token = _endpoint(url)

    async def main() -> str:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
        async with (
            client,
            streamable_http_client(endpoint, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("count_tokens", {"text": "hello world"})
            return str(result.structured_content)

    assert "'tokens': 2" in anyio.run(main)


def test_a_request_without_the_token_is_refused(url: str) -> None:
    endpoint, token = _endpoint(url)
    assert httpx.post(endpoint, json=INITIALIZE, headers=HEADERS).status_code == 403
    wrong = {**HEADERS, "authorization": "Bearer " + "x" * len(token)}
    assert httpx.post(endpoint, json=INITIALIZE, headers=wrong).status_code == 403
    assert httpx.post(endpoint + "?token=nope", json=INITIALIZE, headers=HEADERS).status_code == 403
    assert httpx.post(url, json=INITIALIZE, headers=HEADERS).status_code == 200


def test_a_request_with_a_foreign_host_is_refused(url: str) -> None:
    port = urlsplit(url).port
    for host in (f"evil.example:{port}", f"127.0.0.1:{port + 1 if port else 1}", "localhost"):
        answer = httpx.post(url, json=INITIALIZE, headers={**HEADERS, "host": host})
        assert answer.status_code == 403, host
    answer = httpx.post(url, json=INITIALIZE, headers={**HEADERS, "host": f"localhost:{port}"})
    assert answer.status_code == 200
