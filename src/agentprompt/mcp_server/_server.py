"""The MCP server over one repository: its tools, resources and prompts, registered on the
official SDK's :class:`~mcp.server.mcpserver.MCPServer`.

Every tool call is checked first (:func:`~agentprompt.mcp_server._arguments.argument_problem`),
then runs in a worker thread, one call at a time (an apply and a read must not interleave
on the same files), reporting the parse's progress to a client that asked for it. The
packing and edit tools call the bridge session service over the server's one
:class:`~agentprompt.services.Workspace`. Any error agentprompt raises on purpose becomes
an error result with its message, naming the input at fault as the tool's argument
(``argument "task": ...``); the server keeps serving.
"""

# No ``from __future__ import annotations`` here: the SDK reads the tool functions'
# annotations at run time to build their schemas and find the Context parameter.

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp import MCPError
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.context import HandlerResult as _HandlerResult
from mcp.server.mcpserver import Context, MCPServer, UserMessage
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from agentprompt import __version__
from agentprompt.commands import COMMAND_LINES
from agentprompt.edits.dialect_names import AUTO, DIALECT_NAMES
from agentprompt.errors import AgentPromptError
from agentprompt.mcp_server._arguments import DEFAULT_READ_TOKENS, argument_problem
from agentprompt.mcp_server._results import (
    CountTokensResult,
    EditsResult,
    PackResult,
    RankFilesResult,
    RankSymbolsResult,
    ReadContextResult,
    RepoMapResult,
)
from agentprompt.project.instructions import instruction_names
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.services import CHAT_BUDGETS, DEFAULT_MAX_TOKENS

if TYPE_CHECKING:
    from agentprompt.mcp_server._tools import Progress
    from agentprompt.services import Workspace

# The runtimes (ranking, map, bridge, edit engine, commit prompt) and the services are
# imported by the call that needs them, not at start: a client waits for the server's first
# answer.

__all__ = ["PROGRESS_INTERVAL", "ServerConfig", "create_server"]

T = TypeVar("T")

PROGRESS_INTERVAL = 0.25
"""The least time, in seconds, between two progress notifications of one call."""

Dialect = Annotated[
    str,
    Field(
        description="The reply's format (auto: recognise it).",
        json_schema_extra={"enum": [AUTO, *sorted(DIALECT_NAMES)]},
    ),
]
"""The reply formats the edit engine reads (``auto``: recognise them)."""


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """What one server serves."""

    root: Path
    """The repository every path is relative to."""
    read_only: bool = False
    """Offer no tool that writes (``apply_edits`` is left out)."""


def _worded(exc: AgentPromptError) -> str:
    """An error as an MCP client reads it: the input at fault named as the argument."""
    return exc.worded(lambda name: COMMAND_LINES.get(name) or f'argument "{name}"')


class _Calls:
    """Runs the tools' work: one call at a time, in a worker thread, with progress."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._workspace: Workspace | None = None

    def workspace(self) -> "Workspace":
        """The server's one workspace for its root, made by the first call that needs it
        (importing the services at start would delay the server's first answer); called
        inside a call's work, so one call at a time."""
        if self._workspace is None:
            from agentprompt.services import Workspace

            self._workspace = Workspace(self.root)
        return self._workspace

    def check_root(self) -> None:
        """Refuse to work on a root that was moved or deleted since the server started."""
        if not self.root.is_dir():
            raise ToolError(
                f"the repository root {self.root} (--root) no longer exists or is not a "
                "folder; nothing was read or written. Restart the server with --root naming "
                "the repository"
            )

    async def run(
        self,
        ctx: Context,
        name: str,
        work: Callable[["Progress"], T],
        *,
        needs_root: bool = True,
    ) -> T:
        """``work``'s result, given a progress callback that notifies the client."""
        if needs_root:
            self.check_root()
        await ctx.report_progress(0, None, f"{name}: started")
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if done < total and now - last[0] < PROGRESS_INTERVAL:
                return
            last[0] = now
            anyio.from_thread.run(ctx.report_progress, done, total, f"{name}: parsing files")

        def call() -> T:
            with self._lock:
                return work(progress)

        try:
            return await anyio.to_thread.run_sync(call)
        except AgentPromptError as exc:
            raise ToolError(_worded(exc)) from None

    async def read(self, work: Callable[[], T]) -> T:
        """``work``'s result, for a resource or a prompt (errors as a ResourceError)."""
        if not self.root.is_dir():
            raise ResourceError(f"the repository root {self.root} (--root) no longer exists")

        def call() -> T:
            with self._lock:
                return work()

        try:
            return await anyio.to_thread.run_sync(call)
        except AgentPromptError as exc:
            raise ResourceError(_worded(exc)) from None


class _ArgumentCheck:
    """Middleware refusing a tool call whose tool or arguments are unusable, before any
    work: an error result naming the argument."""

    def __init__(self, server: MCPServer, read_only: bool) -> None:
        self._server = server
        self._schemas: dict[str, dict[str, Any]] | None = None
        self._not_offered = (
            {
                "apply_edits": "apply_edits is not offered: this server was started read-only "
                "(--read-only); use preview_edits to see what a reply would change"
            }
            if read_only
            else {}
        )

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        if ctx.method != "tools/call" or not isinstance(ctx.params, dict):
            return await call_next(ctx)
        if self._schemas is None:
            self._schemas = {t.name: t.input_schema for t in await self._server.list_tools()}
        name = ctx.params.get("name")
        problem = argument_problem(
            str(name),
            self._schemas,
            ctx.params.get("arguments"),
            not_offered=self._not_offered,
        )
        if problem is None:
            result: _HandlerResult = await call_next(ctx)
            return result
        return CallToolResult(content=[TextContent(type="text", text=problem)], is_error=True)


def _text(description: str) -> Any:
    return Field(description=description)


def create_server(config: ServerConfig) -> MCPServer:
    """The MCP server for ``config.root``: the tools (``apply_edits`` only when not
    read-only), the prompt files, instruction files and map as resources, and the
    commit-message and file-selection prompts."""
    root = config.root.resolve()
    library = PromptLibrary(root)
    calls = _Calls(root)
    server: MCPServer = MCPServer(
        "agentprompt",
        instructions=library.render("mcp/instructions"),
        version=__version__,
        log_level="WARNING",
    )
    server.middleware.append(_ArgumentCheck(server, config.read_only))
    reading = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    async def rank_files(
        ctx: Context,
        task: Annotated[str, _text("The task: a bug report, a request, a stack trace.")],
        top: Annotated[int, Field(ge=1, le=1000, description="How many files to return.")] = 15,
    ) -> RankFilesResult:
        from agentprompt.mcp_server import _tools as tools

        return await calls.run(
            ctx,
            "rank_files",
            lambda progress: tools.rank_files(calls.workspace(), task, top, progress),
        )

    async def rank_symbols(
        ctx: Context,
        task: Annotated[str, _text("The task: a bug report, a request, a stack trace.")],
        top: Annotated[
            int, Field(ge=1, le=1000, description="How many functions and classes to return.")
        ] = 15,
    ) -> RankSymbolsResult:
        from agentprompt.mcp_server import _tools as tools

        return await calls.run(
            ctx,
            "rank_symbols",
            lambda progress: tools.rank_symbols(calls.workspace(), task, top, progress),
        )

    async def repo_map(
        ctx: Context,
        task: Annotated[str | None, _text("Rank the map for this task.")] = None,
        max_tokens: Annotated[
            int, Field(ge=1, le=200_000, description="The map's token budget.")
        ] = 1024,
        focus: Annotated[tuple[str, ...], _text("Files to rank the map toward.")] = (),
        in_context: Annotated[
            tuple[str, ...], _text("Files whose full text you already have (left out).")
        ] = (),
    ) -> RepoMapResult:
        from agentprompt.mcp_server import _tools as tools

        return await calls.run(
            ctx,
            "repo_map",
            lambda progress: tools.repo_map(
                calls.workspace(), task, max_tokens, focus, in_context, progress
            ),
        )

    async def read_context(
        ctx: Context,
        paths: Annotated[tuple[str, ...], _text("Files or folders, relative to the root.")] = (),
        globs: Annotated[tuple[str, ...], _text("Gitignore-style patterns: src/**/*.py.")] = (),
        mode: Annotated[
            Literal["full", "signatures"], _text("Whole files, or their signatures only.")
        ] = "full",
        max_tokens: Annotated[
            int | None,
            Field(ge=1, description=f"Token budget (default {DEFAULT_READ_TOKENS})."),
        ] = None,
    ) -> ReadContextResult:
        from agentprompt.mcp_server import _tools as tools

        return await calls.run(
            ctx,
            "read_context",
            lambda _progress: tools.read_context(calls.workspace(), paths, globs, mode, max_tokens),
        )

    async def pack(
        ctx: Context,
        task: Annotated[str, _text("What the other model should do.")],
        max_tokens: Annotated[
            int | None,
            Field(
                ge=1,
                description=f"Token budget (default: {DEFAULT_MAX_TOKENS}, one paste into "
                "the common web chats, or the project's own).",
            ),
        ] = None,
        chat: Annotated[
            str | None,
            _text(
                "Fit one paste into this chat instead (max_tokens wins): "
                + ", ".join(f"{name} ({tokens} tokens)" for name, tokens in CHAT_BUDGETS.items())
                + "."
            ),
        ] = None,
        files: Annotated[tuple[str, ...], _text("Files or folders to show in full.")] = (),
        exclude: Annotated[
            tuple[str, ...],
            _text("Gitignore-style patterns of files to leave out (each must match a file)."),
        ] = (),
    ) -> PackResult:
        from agentprompt.mcp_server import _tools as tools

        return await calls.run(
            ctx,
            "pack",
            lambda _progress: tools.pack(
                calls.workspace(), task, max_tokens, files, exclude, chat=chat
            ),
        )

    async def preview_edits(
        ctx: Context,
        reply: Annotated[str, _text("The reply holding the edit blocks.")],
        dialect: Dialect = AUTO,
        strict: Annotated[
            bool,
            _text(
                "Apply only edits whose quoted lines match the files exactly; refuse any "
                "looser match (other spacing or indentation, a line left out, fuzzy)."
            ),
        ] = False,
    ) -> EditsResult:
        from agentprompt.mcp_server import _tools as tools

        return await calls.run(
            ctx,
            "preview_edits",
            lambda progress: tools.preview_edits(
                calls.workspace(), reply, dialect, progress, strict=strict
            ),
        )

    async def apply_edits(
        ctx: Context,
        reply: Annotated[str, _text("The reply holding the edit blocks.")],
        dialect: Dialect = AUTO,
        strict: Annotated[
            bool,
            _text(
                "Apply only edits whose quoted lines match the files exactly; refuse any "
                "looser match (other spacing or indentation, a line left out, fuzzy)."
            ),
        ] = False,
    ) -> EditsResult:
        from agentprompt.mcp_server import _tools as tools

        return await calls.run(
            ctx,
            "apply_edits",
            lambda progress: tools.apply_edits(
                calls.workspace(), reply, dialect, progress, strict=strict
            ),
        )

    async def count_tokens(
        ctx: Context,
        text: Annotated[str, _text("The text to count.")],
        model: Annotated[str | None, _text("A model name (default: o200k_base).")] = None,
    ) -> CountTokensResult:
        from agentprompt.mcp_server import _tools as tools

        return await calls.run(
            ctx,
            "count_tokens",
            lambda _progress: tools.count_tokens(text, model),
            needs_root=False,
        )

    offered: list[tuple[Callable[..., Any], ToolAnnotations]] = [
        (rank_files, reading),
        (rank_symbols, reading),
        (repo_map, reading),
        (read_context, reading),
        (pack, reading),
        (preview_edits, reading),
        (count_tokens, reading),
    ]
    if not config.read_only:
        writing = ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=False
        )
        offered.append((apply_edits, writing))
    for function, annotations in offered:
        name = function.__name__
        server.add_tool(
            function,
            name=name,
            description=library.render(f"mcp/{name}"),
            annotations=annotations,
            structured_output=True,
        )
    _add_resources(server, root, library, calls)
    _add_prompts(server, root, library, calls)
    return server


def _read_prompt_file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceError(f"the prompt file {path} cannot be read: {exc}") from None


def _add_resources(server: MCPServer, root: Path, library: PromptLibrary, calls: _Calls) -> None:
    """The prompt files, the project's instruction files and the map, as resources."""

    def add(uri: str, name: str, description: str, mime_type: str, read: Callable[[], Any]) -> None:
        server.add_resource(
            FunctionResource(
                uri=uri, name=name, description=description, mime_type=mime_type, fn=read
            )
        )

    for source in library.list():
        add(
            f"agentprompt://prompts/{source.name}",
            f"prompt {source.name}",
            f"The prompt file {source.name}.md ({source.origin}).",
            "text/markdown",
            partial(_read_prompt_file, source.path),
        )

    async def read_instructions(name: str) -> str:
        from agentprompt.project.instructions import load_instructions

        found = await calls.read(lambda: load_instructions(root, names=[name]))
        if not found.files:
            problem = "; ".join(found.problems) or "it no longer exists"
            raise ResourceError(f"the instruction file {name} cannot be read: {problem}")
        return found.files[0].text

    for name in instruction_names():
        if (root / name).is_file():
            add(
                f"agentprompt://instructions/{name}",
                f"instructions {name}",
                f"The project's instruction file {name}.",
                "text/markdown",
                partial(read_instructions, name),
            )

    async def read_map() -> str:
        from agentprompt.repo.map import MapOptions, build_map

        result = await calls.read(lambda: build_map(root, MapOptions()))
        return result.text

    add(
        "agentprompt://map",
        "repository map",
        "The repository's symbol map, fitted to 1024 tokens.",
        "text/plain",
        read_map,
    )


def _add_prompts(server: MCPServer, root: Path, library: PromptLibrary, calls: _Calls) -> None:
    """The commit-message prompt and the file-selection prompt."""

    async def commit_message(
        diff: Annotated[str | None, _text("The diff (default: the staged changes).")] = None,
    ) -> list[UserMessage]:
        def messages() -> list[UserMessage]:
            from agentprompt.commitmsg import commit_messages, staged_diff

            text = diff if diff is not None else staged_diff(root)
            return [UserMessage(str(m.content)) for m in commit_messages(text, root=root)]

        try:
            return await calls.read(messages)
        except ResourceError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None

    async def file_selection(
        request: Annotated[str, _text("What the files are needed for.")],
    ) -> list[UserMessage]:
        from agentprompt.repo.selection import SelectionOptions, first_selection_prompt

        work = partial(first_selection_prompt, request, root, SelectionOptions())
        try:
            return [UserMessage(await calls.read(work))]
        except ResourceError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None

    for function in (commit_message, file_selection):
        name = function.__name__
        server.prompt(name=name, description=library.render(f"mcp/{name}"))(function)
