"""The MCP server started as a subprocess (``agentprompt mcp``) and the official SDK's own
client session talking to it over standard input and output, and helpers to read results."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

EXAMPLE = Path(__file__).parents[2] / "examples" / "bridge"
"""The bridge example: ``repo/`` and the sample ``reply.md``."""

AGENTPROMPT = str(Path(sys.executable).with_name("agentprompt"))
"""The command line installed beside the interpreter running the tests."""


@asynccontextmanager
async def served(root: Path, *options: str) -> AsyncIterator[ClientSession]:
    """A client session with ``agentprompt mcp --root ROOT OPTIONS`` over stdio."""
    params = StdioServerParameters(
        command=AGENTPROMPT,
        args=["mcp", "--root", str(root), *options],
        env=dict(os.environ),
    )
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=60) as session,
        ):
            await session.initialize()
            yield session


def structured(result: CallToolResult) -> dict[str, Any]:
    """A successful call's structured result."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    """A failed call's message."""
    assert result.is_error, result.structured_content
    text = result.content[0]
    assert text.type == "text"
    return text.text


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
"""The first request of a session, as a raw JSON-RPC message."""
