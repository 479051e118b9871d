"""What a tool runs with, and what it gives back.

A tool handler gets a :class:`ToolContext` (the repository root, the policy, the todo list,
and the session's delegation hook) and returns text or a :class:`ToolResult`. The explore,
plan and agent tools run a sub-agent by handing a :class:`DelegationRequest` to
``ctx.delegate``, which the session supplies.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from agentprompt.errors import AgentPromptError
from agentprompt.messages import ToolCall
from agentprompt.todos import TodoList
from agentprompt.tools.policy import ToolPolicy

__all__ = [
    "DelegationKind",
    "DelegationRequest",
    "ToolContext",
    "ToolFailure",
    "ToolResult",
    "ToolRunner",
]

DelegationKind = Literal["explore", "plan", "agent"]
"""Which kind of sub-agent a tool asks for."""


class ToolFailure(AgentPromptError):
    """A tool could not do what it was asked; the message tells the model what to do."""


@dataclass(frozen=True, kw_only=True)
class DelegationRequest:
    """A tool asking the session to run a sub-agent on a task."""

    kind: DelegationKind
    """``explore`` (read-only investigation), ``plan`` (proposes todos) or ``agent``."""
    task: str
    """The task the sub-agent is given, in the calling model's words."""
    agent_name: str | None = None
    """The custom agent to run (``agent`` kind; None for the general agent)."""
    read_only: bool = False
    """Whether the sub-agent may only use tools that change nothing."""
    stop: threading.Event | None = None
    """The calling tool's :attr:`ToolContext.stop`: when set, the sub-agent stops before
    its next model call (Ctrl-C reached the batch it runs in)."""


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What a tool call produced, as the model will read it."""

    content: str
    """The result text (or the error, worded so the model can act on it)."""
    is_error: bool = False
    """Whether the call failed."""
    tool_context: str | None = None
    """Text for the tool-context reminder before the next model call."""


@dataclass(frozen=True, kw_only=True)
class ToolContext:
    """Everything a tool handler may use; the session builds one per agent."""

    root: Path
    """The repository root; every path a tool gets is resolved inside it."""
    policy: ToolPolicy = field(default_factory=ToolPolicy)
    """The tools allowed and their limits."""
    todos: TodoList = field(default_factory=TodoList)
    """The agent's todo list, which the todo tools change."""
    delegate: Callable[[DelegationRequest], str] | None = None
    """Runs a sub-agent and returns its final response (None: delegation unavailable)."""
    registry: ToolRunner | None = None
    """The registry running the call (set by :meth:`~agentprompt.tools.ToolRegistry.run`,
    used by batch)."""
    stop: threading.Event | None = None
    """Set when the call must end early: Ctrl-C reached the batch running it in a thread,
    where no KeyboardInterrupt arrives. A tool that runs long (the shell) polls it."""


class ToolRunner(Protocol):
    """What runs a model's tool call in a context: the registry, through which the batch
    tool runs each of its calls."""

    def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run ``call``; every failure comes back as an error result."""
        ...
