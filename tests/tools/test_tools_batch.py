"""The batch tool: the seed's custom definition, concurrency, limits, and errors per call."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from agentprompt.messages import ToolCall
from agentprompt.tools import (
    ToolContext,
    ToolPolicy,
    ToolRegistry,
    ToolResult,
    default_registry,
    tool_from_function,
)

Call = Callable[..., ToolResult]


def test_definition_is_the_hand_written_custom_definition(registry: ToolRegistry) -> None:
    spec = registry.get("batch")
    assert spec is not None
    params = spec.parameters
    assert params["required"] == ["tools"]
    item = params["properties"]["tools"]["items"]
    assert item["required"] == ["name", "arguments"]
    assert item["properties"]["name"] == {
        "type": "string",
        "description": "Name of the tool to execute",
    }
    assert item["properties"]["arguments"] == {
        "type": "object",
        "description": "Arguments to pass to the tool",
    }


def test_batch_reports_each_result_in_order(call: Call) -> None:
    result = call(
        "batch",
        tools=[
            {"name": "read", "arguments": {"path": "src/app/util.py"}},
            {"name": "read", "arguments": {"path": "missing.py"}},
            {"name": "glob", "arguments": {"pattern": "*.md"}},
        ],
    )
    assert not result.is_error
    parts = result.content.split("\n\n")
    assert parts[0].startswith("[1] read (ok):\n     1\tdef helper(x):")
    assert parts[1].startswith("[2] read (error):\nread failed: missing.py does not exist")
    assert parts[2] == "[3] glob (ok):\nREADME.md"


def test_batch_runs_calls_concurrently(tmp_path: Path) -> None:
    barrier = threading.Barrier(3, timeout=5)

    def wait() -> str:
        """Wait for the others."""
        barrier.wait()
        return "met"

    registry = default_registry()
    registry.register(tool_from_function(wait, read_only=True))
    call = ToolCall(
        id="1",
        name="batch",
        arguments='{"tools": [{"name": "wait", "arguments": {}}, '
        '{"name": "wait", "arguments": {}}, {"name": "wait", "arguments": {}}]}',
    )
    result = registry.run(call, ToolContext(root=tmp_path))
    assert result.content.count("(ok):\nmet") == 3


def test_batch_over_the_limit_is_refused(call: Call, repo: Path) -> None:
    ctx = ToolContext(root=repo, policy=ToolPolicy(max_batch=2))
    tools = [{"name": "ls", "arguments": {}}] * 3
    result = call("batch", ctx, tools=tools)
    assert result.is_error and "at most 2 tools" in result.content


def test_batch_inside_batch_and_disallowed_tools_fail_per_call(call: Call, repo: Path) -> None:
    ctx = ToolContext(root=repo, policy=ToolPolicy(read_only=True))
    result = call(
        "batch",
        ctx,
        tools=[
            {"name": "batch", "arguments": {"tools": []}},
            {"name": "write", "arguments": {"path": "x", "content": "y"}},
        ],
    )
    assert result.is_error
    assert "batch cannot run inside batch" in result.content
    assert "Tool 'write' is not available" in result.content
    assert not (repo / "x").exists()


def test_concurrent_writes_in_a_batch_all_land(call: Call, repo: Path) -> None:
    tools = [
        {"name": "write", "arguments": {"path": f"f{i}.txt", "content": f"{i}\n"}} for i in range(5)
    ]
    result = call("batch", tools=tools)
    assert not result.is_error, result.content
    assert sorted(p.name for p in repo.glob("f*.txt")) == [f"f{i}.txt" for i in range(5)]
