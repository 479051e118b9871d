"""Running the page: bind the loopback address, say the URL (with its token), serve.

The socket is bound before the server starts, so the URL printed is the one that works
(also with port 0, which lets the system choose a free port) and the Host guard knows the
port to expect.
"""

from __future__ import annotations

import socket
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from agentprompt.loopback import LOOPBACK, Guard, bind_loopback, new_token
from agentprompt.web._app import create_app

__all__ = ["PageServer", "bind_loopback", "page_url", "prepare", "serve"]


@dataclass(frozen=True, kw_only=True)
class PageServer:
    """A page ready to serve: its bound socket, guard and URL."""

    sock: socket.socket
    """The listening socket, bound to 127.0.0.1."""
    guard: Guard
    """The token and port every request must carry."""
    url: str
    """The page's address, token included."""


def page_url(guard: Guard) -> str:
    """The address of the page, with the token that opens it."""
    return f"http://{LOOPBACK}:{guard.port}/?token={guard.token}"


def prepare(port: int, token: str | None = None) -> PageServer:
    """Bind the socket and make the guard and URL for it."""
    sock = bind_loopback(port)
    guard = Guard(token=token or new_token(), port=sock.getsockname()[1])
    return PageServer(sock=sock, guard=guard, url=page_url(guard))


def serve(
    root: Path,
    page: PageServer,
    *,
    open_browser: bool = False,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve the page for ``root`` on ``page``'s socket until interrupted."""
    app = create_app(root, page.guard)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    announce(page.url)
    if open_browser:
        webbrowser.open(page.url)
    server.run(sockets=[page.sock])
