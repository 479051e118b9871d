"""The guard in front of every local HTTP front door (the web page, the MCP server over
HTTP): the loopback socket, the secret token, the Host and the Origin.

Both run on the user's machine with the power to write their files, so any other site the
browser visits must not be able to drive them: a request without the token printed at start
(as the ``token`` query parameter, or an ``Authorization: Bearer`` header) is refused, and so
is one whose Host is not the loopback address and port we bound (a DNS-rebinding page
reaches 127.0.0.1 under its own host name), and so is one a browser sends from another
page (its ``Origin`` header, when present, must be our own ``http://127.0.0.1:PORT`` or
``http://localhost:PORT``). A refusal says nothing about why, so it leaks
nothing.
"""

from __future__ import annotations

import secrets
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from agentprompt.errors import UsageError

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LOOPBACK", "SECURITY_HEADERS", "Guard", "GuardedApp", "bind_loopback", "new_token"]

LOOPBACK = "127.0.0.1"
"""The only address a local front door binds to."""

SECURITY_HEADERS = (
    (b"cache-control", b"no-store"),
    (b"content-security-policy", b"default-src 'self'; frame-ancestors 'none'"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
)
"""Added to every answer: the token must not leak through a referrer, a cache or a frame,
and the page runs only its own scripts."""

_REFUSED = b"forbidden\n"


def new_token() -> str:
    """A fresh random token for one run of a server."""
    return secrets.token_urlsafe(32)


def bind_loopback(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:``port`` (0: a free port); a port in use is a
    :class:`UsageError` saying so."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((LOOPBACK, port))
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"--port {port}: cannot listen on {LOOPBACK}:{port} ({exc.strerror or exc}); "
            "give another port, or --port 0 for a free one"
        ) from None
    sock.listen(64)
    return sock


@dataclass(frozen=True, kw_only=True)
class Guard:
    """What a request must carry to be served."""

    token: str
    """The secret token (the ``token`` query parameter, or an ``Authorization: Bearer``
    header)."""
    port: int
    """The port the server listens on; the Host header must name it."""

    def allowed_hosts(self) -> frozenset[str]:
        """The Host header values accepted: the loopback address (or ``localhost``, which
        no outside DNS can point elsewhere) with our port."""
        return frozenset({f"{LOOPBACK}:{self.port}", f"localhost:{self.port}"})

    def allowed_origins(self) -> frozenset[str]:
        """The Origin header values accepted: the page's own origin, under either host name
        of :meth:`allowed_hosts`."""
        return frozenset(f"http://{host}" for host in self.allowed_hosts())

    def admits(
        self,
        host: str | None,
        query: str,
        authorization: str | None = None,
        origin: str | None = None,
    ) -> bool:
        """Whether a request with this Host header, query string, Authorization header and
        Origin header (``None``: none sent, as by a client that is not a browser) may be
        served."""
        if host is None or host.lower() not in self.allowed_hosts():
            return False
        if origin is not None and origin.lower() not in self.allowed_origins():
            return False
        given = parse_qs(query, keep_blank_values=True).get("token", [])
        if len(given) > 1:
            return False
        if authorization is not None:
            scheme, _, bearer = authorization.partition(" ")
            if scheme.lower() != "bearer":
                return False
            given.append(bearer.strip())
        return bool(given) and all(secrets.compare_digest(t, self.token) for t in given)


class GuardedApp:
    """An ASGI app that serves ``app`` only to requests the guard admits (403 otherwise)."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        """The app behind the guard."""
        self.guard = guard
        """The token and port checked."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse or pass on one connection."""
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        raw_host = headers.get(b"host")
        host = raw_host.decode("latin-1") if raw_host is not None else None
        query = scope.get("query_string", b"").decode("latin-1")
        raw_authorization = headers.get(b"authorization")
        authorization = raw_authorization.decode("latin-1") if raw_authorization else None
        raw_origin = headers.get(b"origin")
        origin = raw_origin.decode("latin-1") if raw_origin is not None else None
        admitted = self.guard.admits(host, query, authorization, origin)
        if scope["type"] != "http":  # a WebSocket (neither server opens one): the same guard
            if admitted:
                await self.app(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        if admitted:

            async def send_secured(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message = {
                        **message,
                        "headers": [*message.get("headers", []), *SECURITY_HEADERS],
                    }
                await send(message)

            await self.app(scope, receive, send_secured)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(_REFUSED)).encode()),
                    *SECURITY_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": _REFUSED})
