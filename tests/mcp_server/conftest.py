"""Fixtures of the MCP server tests: run an async scenario against a served repository."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession

from mcp_server.client import served

Scenario = Callable[[ClientSession], Awaitable[None]]


@pytest.fixture
def run_served() -> Callable[..., None]:
    """Run an async scenario against a server for a root (with extra options)."""

    def run(root: Path, scenario: Scenario, *options: str) -> None:
        async def main() -> None:
            async with served(root, *options) as session:
                await scenario(session)

        anyio.run(main)

    return run
