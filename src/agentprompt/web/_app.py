"""The page's ASGI app: the HTML page, its static files, and the JSON-RPC endpoint, all
behind the token and Host guard."""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agentprompt.loopback import Guard, GuardedApp
from agentprompt.services import Workspace
from agentprompt.web._bridge_methods import (
    apply_reply_method,
    bridge_add_method,
    bridge_drop_method,
    bridge_note_method,
    bridge_run_method,
    bridge_undo_method,
    build_prompt_method,
    preview_reply_method,
)
from agentprompt.web._context_methods import (
    get_context_breakdown_method,
    get_prompt_snippets_method,
    get_tree_method,
    rank_files_method,
    rank_symbols_method,
)
from agentprompt.web._rpc import Method, encode_answer, handle_rpc

__all__ = ["STATIC", "create_app", "rpc_methods"]

STATIC = Path(__file__).parent / "static"
"""The page's HTML, CSS and JavaScript (package data, served as they are)."""


def rpc_methods(root: Path) -> dict[str, Method]:
    """Every JSON-RPC method of the page, bound to one workspace for ``root``, made once
    for the page server."""
    workspace = Workspace(root)
    table = {
        "apply_reply": apply_reply_method,
        "bridge_add": bridge_add_method,
        "bridge_drop": bridge_drop_method,
        "bridge_note": bridge_note_method,
        "bridge_run": bridge_run_method,
        "bridge_undo": bridge_undo_method,
        "build_prompt": build_prompt_method,
        "get_context_breakdown": get_context_breakdown_method,
        "get_prompt_snippets": get_prompt_snippets_method,
        "get_tree": get_tree_method,
        "preview_reply": preview_reply_method,
        "rank_files": rank_files_method,
        "rank_symbols": rank_symbols_method,
    }
    return {name: partial(method, workspace) for name, method in table.items()}


def create_app(root: Path, guard: Guard) -> GuardedApp:
    """The page for the repository at ``root``, served only to requests ``guard`` admits."""
    root = root.resolve()
    methods = rpc_methods(root)
    # One call at a time: an apply and a build must not interleave on the same files.
    lock = threading.Lock()

    def call(body: bytes) -> Any:
        with lock:
            return handle_rpc(methods, body)

    async def rpc(request: Request) -> Response:
        answer = await run_in_threadpool(call, await request.body())
        if answer is None:
            return Response(status_code=204)
        return Response(encode_answer(answer), media_type="application/json")

    async def page(request: Request) -> Response:
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        return HTMLResponse(html.replace("__TOKEN__", guard.token))

    app = Starlette(
        routes=[
            Route("/", page, methods=["GET"]),
            Route("/rpc", rpc, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
    )
    return GuardedApp(app, guard)
