"""The MCP server: agentprompt's ranking, symbol map, context reading, packing and edit
engine as tools any Model Context Protocol client (Claude Code, Codex, Cursor, Claude
Desktop) can call, built on the official ``mcp`` SDK; served over standard input and output,
or over HTTP on 127.0.0.1 behind a token.

It defines no errors of its own: a tool's bad argument is a
:class:`~agentprompt.errors.UsageError` whose input is the argument's name, and every
:class:`~agentprompt.errors.AgentPromptError` becomes an MCP error result naming it as
``argument "name"``.
"""

from __future__ import annotations

from agentprompt.mcp_server._server import ServerConfig, create_server
from agentprompt.mcp_server._transport import HttpEndpoint, serve_http, serve_stdio

__all__ = ["HttpEndpoint", "ServerConfig", "create_server", "serve_http", "serve_stdio"]
