"""``agentprompt mcp``: serve a repository to MCP clients (Claude Code, Codex, Cursor,
Claude Desktop), over standard input and output or over HTTP on 127.0.0.1."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import click

from agentprompt.cli._options import check_root, port_option, root_option
from agentprompt.cli._output import err_console
from agentprompt.errors import UsageError

__all__ = ["TOKEN_ENV", "mcp_command"]

TOKEN_ENV = "AGENTPROMPT_MCP_TOKEN"
"""The environment variable that fixes the HTTP transport's token (else a fresh one per
run), so a client's configuration keeps working across restarts."""


@click.command("mcp")
@root_option
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio: the client starts this command; http: serve on 127.0.0.1 with a token.",
)
@port_option("With --transport http: the port on 127.0.0.1 (0: a free one).")
@click.option(
    "--read-only", is_flag=True, help="Offer no tool that writes (apply_edits is left out)."
)
def mcp_command(root: Path, transport: str, port: int, read_only: bool) -> None:
    """Serve the repository's ranking, symbol map, context, packing and edit engine as
    MCP tools, resources and prompts.

    With --transport http the endpoint's URL (with its secret token) is printed; the token
    is also accepted as an "Authorization: Bearer TOKEN" header, and is fixed by the
    AGENTPROMPT_MCP_TOKEN environment variable when set."""
    check_root(root)
    if transport == "stdio" and port:
        raise UsageError("--port is for --transport http; standard input needs no port")
    token = os.environ.get(TOKEN_ENV, "").strip() or None
    if transport == "http" and token is not None and len(token) < 16:
        raise UsageError(
            f"{TOKEN_ENV} is {len(token)} characters long; give a token of 16 characters "
            "or more (or unset it for a fresh one)"
        )
    # Importing the SDK builds some 560 pydantic models, and the cyclic garbage collector,
    # run again and again while they are made, costs a tenth of the start (a client waits
    # for it). Nothing made while starting is garbage: collection waits until the server is
    # built, and what start made is then left out of later collections (gc.freeze).
    gc.disable()
    try:
        from agentprompt.mcp_server import (
            HttpEndpoint,
            ServerConfig,
            create_server,
            serve_http,
            serve_stdio,
        )

        server = create_server(ServerConfig(root=root, read_only=read_only))
        gc.freeze()
    finally:
        gc.enable()
    if transport == "stdio":
        serve_stdio(server)
        return

    def announce(endpoint: HttpEndpoint) -> None:
        click.echo(endpoint.url)
        err_console.print(
            "Serving MCP over HTTP for this repository; only this URL (with its token), or "
            "the endpoint with an 'Authorization: Bearer' header, is served. Stop with Ctrl-C.",
            markup=False,
            highlight=False,
        )

    serve_http(server, port, token=token, announce=announce)
