"""Serving the MCP server: over standard input and output, or over HTTP on the loopback
address behind the same token and Host guard as the web page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from agentprompt.loopback import LOOPBACK, Guard, GuardedApp, bind_loopback, new_token

__all__ = ["ENDPOINT", "HttpEndpoint", "serve_http", "serve_stdio"]

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
    """Serve ``server`` over standard input and output until the client closes them."""
    anyio.run(server.run_stdio_async)


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
