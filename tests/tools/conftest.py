"""Fixtures for the tool tests: a small repository, a registry, and a call helper."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentprompt.messages import ToolCall
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.tools import ToolContext, ToolRegistry, ToolResult, default_registry

Call = Callable[..., ToolResult]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A tiny project: two Python files, a README, and an ignored build folder."""
    root = tmp_path / "proj"
    (root / "src" / "app").mkdir(parents=True)
    (root / "src" / "app" / "main.py").write_text(
        "import os\n\n\ndef main():\n    return os.getcwd()\n"
    )
    (root / "src" / "app" / "util.py").write_text("def helper(x):\n    return x * 2\n")
    (root / "README.md").write_text("# Project\n\nRun main.\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("def main(): pass\n")
    return root


@pytest.fixture
def registry(repo: Path) -> ToolRegistry:
    """The built-in tools, described by the packaged prompts."""
    return default_registry(PromptLibrary(repo))


@pytest.fixture
def ctx(repo: Path) -> ToolContext:
    """A context over the tiny project with default policy."""
    return ToolContext(root=repo)


@pytest.fixture
def call(registry: ToolRegistry, ctx: ToolContext) -> Call:
    """Run a tool by name with keyword arguments, as a model's call would."""

    def run(name: str, context: ToolContext | None = None, /, **arguments: Any) -> ToolResult:
        tool_call = ToolCall(id="call-1", name=name, arguments=json.dumps(arguments))
        return registry.run(tool_call, context or ctx)

    return run
