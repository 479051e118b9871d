"""The batch tool: run up to five tool calls concurrently in one call.

Its definition is written out by hand (a custom definition: an array of
``{name, arguments}``). Each call runs through the same registry, in a thread of its own,
so every call is validated and allowed by the policy exactly as a direct call would be.
Batch may not contain batch. Ctrl-C during a batch stops its shell commands and returns
at once.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from agentprompt.messages import ToolCall
from agentprompt.tools.context import ToolContext, ToolFailure, ToolResult

__all__ = ["BATCH", "batch", "batch_parameters"]

BATCH = "batch"
"""The batch tool's name."""


def batch_parameters(tools_description: str) -> dict[str, Any]:
    """The batch tool's arguments schema, written by hand."""
    return {
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "description": tools_description,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "Name of the tool to execute"},
                        "arguments": {
                            "type": "object",
                            "description": "Arguments to pass to the tool",
                        },
                    },
                    "required": ["name", "arguments"],
                },
            }
        },
        "required": ["tools"],
    }


def batch(ctx: ToolContext, arguments: dict[str, Any]) -> ToolResult:
    """Run the listed tool calls concurrently; each result is reported under its number."""
    specs = arguments["tools"]
    limit = ctx.policy.max_batch
    if not specs:
        raise ToolFailure("tools is empty; list the tool calls to run")
    if len(specs) > limit:
        raise ToolFailure(
            f"batch runs at most {limit} tools at once, not {len(specs)}; split them into "
            "several batch calls"
        )
    registry = ctx.registry
    if registry is None:
        raise ToolFailure("batch can only run inside a tool registry")
    calls = [
        ToolCall(id=f"batch-{i}", name=s["name"], arguments=json.dumps(s["arguments"]))
        for i, s in enumerate(specs, start=1)
    ]

    inner = replace(ctx, stop=threading.Event())

    def run(call: ToolCall) -> ToolResult:
        if call.name == BATCH:
            return ToolResult(content="batch cannot run inside batch", is_error=True)
        return registry.run(call, inner)

    pool = ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="batch")
    try:
        results = list(pool.map(run, calls))
    except BaseException:
        # Ctrl-C arrives in this thread only: tell the calls to stop (a shell command is
        # killed) and return at once instead of waiting for them.
        assert inner.stop is not None
        inner.stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    parts = []
    for i, (call, result) in enumerate(zip(calls, results, strict=True), start=1):
        status = "error" if result.is_error else "ok"
        parts.append(f"[{i}] {call.name} ({status}):\n{result.content}")
    contexts = [r.tool_context for r in results if r.tool_context]
    return ToolResult(
        content="\n\n".join(parts),
        is_error=all(r.is_error for r in results),
        tool_context="\n\n".join(contexts) or None,
    )
