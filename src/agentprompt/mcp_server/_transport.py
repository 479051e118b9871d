"""Serving the MCP server: over standard input and output, or over HTTP on the loopback
address behind the same token and Host guard as the web page.

Over standard input, every line is first read as JSON here: the SDK drops a line it cannot
read without a word (and reads ``"id": 1e400`` as a notification, having no id it can use),
so a line that is not JSON, holds a lone surrogate, or a number that overflows to infinity
is answered with JSON-RPC's parse error (-32700, id null), and one that is JSON but not an
object with an invalid request (-32600); neither is passed on.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from io import TextIOWrapper
from typing import IO, Any, cast

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError

from agentprompt.jsondata import unusable_value
from agentprompt.loopback import LOOPBACK, Guard, GuardedApp, bind_loopback, new_token

__all__ = ["ENDPOINT", "HttpEndpoint", "line_error", "serve_http", "serve_stdio"]

ENDPOINT = "/mcp"
"""The path of the streamable HTTP endpoint."""


@dataclass(frozen=True, kw_only=True)
class HttpEndpoint:
    """Where an HTTP server listens, and what a client must send."""

    url: str
    """The endpoint's address, token included as the ``token`` query parameter."""
    token: str
    """The token (also accepted as ``Authorization: Bearer TOKEN``)."""
    port: int
    """The port on 127.0.0.1."""


def serve_stdio(server: MCPServer) -> None:
    """Serve ``server`` over standard input and output until the client closes them; a
    line that is no JSON-RPC message is answered as JSON-RPC says (see the module's doc)."""
    anyio.run(_run_stdio, server)


def _not_json(name: str) -> Any:
    """``NaN`` and ``Infinity`` are Python's extensions, not JSON."""
    raise ValueError(f"{name} is not a JSON value")


def line_error(line: str) -> JSONRPCError | None:
    """The error answering one line read from standard input, or ``None`` when it is JSON
    the SDK can read (a blank line, too, is left to the SDK, which ignores it)."""
    if not line.strip():
        return None
    try:
        message = json.loads(line, parse_constant=_not_json)
    except RecursionError:
        problem = "the message is not usable JSON: it is nested too deeply"
        return JSONRPCError(
            jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=problem)
        )
    except ValueError as exc:
        problem = f"the message is not JSON: {exc}"
        return JSONRPCError(
            jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=problem)
        )
    flaw = unusable_value(message)
    if flaw is not None:
        problem = f"the message is not usable JSON: it holds {flaw}"
        return JSONRPCError(
            jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=problem)
        )
    if not isinstance(message, dict):
        problem = "not a JSON-RPC 2.0 message: it must be a JSON object"
        return JSONRPCError(
            jsonrpc="2.0", id=None, error=ErrorData(code=INVALID_REQUEST, message=problem)
        )
    return None


class _OwnText(TextIOWrapper):
    """Standard input's text, whose close never closes the descriptor under it (a worker
    thread may still be reading it)."""

    def close(self) -> None:
        """Let go of the buffer without closing it."""
        with suppress(ValueError):
            self.detach()


@contextmanager
def _claimed_stdin() -> Iterator[IO[bytes]]:
    """Standard input's bytes, read from a private copy of its descriptor while descriptor 0
    points at the null device (as the SDK's own transport does), so that nothing the tools
    run can read the client's messages; restored on exit."""
    try:
        private = os.dup(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        yield sys.stdin.buffer
        return
    os.set_inheritable(private, False)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        # closefd=False: a worker thread may still block on it after the server ends.
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        os.dup2(private, 0)


class _CheckedLines:
    """Standard input's lines as the SDK reads them, each checked first (:func:`line_error`):
    a line that is no message is answered on ``answers`` and not passed on."""

    def __init__(self, lines: anyio.AsyncFile[str]) -> None:
        self.lines = lines
        """Standard input, as text."""
        self.answers: Any = None
        """Where the answers go: the stream the SDK writes to standard output, once open."""
        self.ready = anyio.Event()
        """Set once :attr:`answers` is given."""

    def answer_on(self, answers: Any) -> None:
        """Send the answers to malformed lines on ``answers`` from now on."""
        self.answers = answers
        self.ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._checked()

    async def _checked(self) -> AsyncIterator[str]:
        async for line in self.lines:
            error = line_error(line)
            if error is None:
                yield line
                continue
            await self.ready.wait()
            await self.answers.send(SessionMessage(error))


async def _run_stdio(server: MCPServer) -> None:
    """What :meth:`MCPServer.run_stdio_async` does, with standard input's lines checked."""
    with _claimed_stdin() as raw:
        text = _OwnText(raw, encoding="utf-8", errors="replace")
        checked = _CheckedLines(anyio.wrap_file(text))
        # The SDK's stdio transport takes any async iterable of lines for standard input.
        async with stdio_server(stdin=cast("anyio.AsyncFile[str]", checked)) as (read, write):
            checked.answer_on(write)
            # MCPServer has no public way to run on given streams; its own stdio runner
            # is these lines, on its low-level server.
            lowlevel = server._lowlevel_server
            await lowlevel.run(read, write, lowlevel.create_initialization_options())


def serve_http(
    server: MCPServer,
    port: int,
    *,
    token: str | None = None,
    announce: Callable[[HttpEndpoint], None] = print,
) -> None:
    """Serve ``server`` on 127.0.0.1:``port`` (0: a free port) until interrupted; only
    requests carrying the token, with a Host naming that address and port, are served.
    ``announce`` is told the endpoint once the socket is bound."""
    sock = bind_loopback(port)
    guard = Guard(token=token or new_token(), port=sock.getsockname()[1])
    hosts = sorted(guard.allowed_hosts())
    app = server.streamable_http_app(
        streamable_http_path=ENDPOINT,
        host=LOOPBACK,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=hosts,
            allowed_origins=[f"http://{h}" for h in hosts],
        ),
    )
    config = uvicorn.Config(
        GuardedApp(app, guard), log_level="warning", lifespan="on", access_log=False
    )
    endpoint = HttpEndpoint(
        url=f"http://{LOOPBACK}:{guard.port}{ENDPOINT}?token={guard.token}",
        token=guard.token,
        port=guard.port,
    )
    announce(endpoint)
    uvicorn.Server(config).run(sockets=[sock])
