"""The values an agent session is configured with and reports: config, role, events, results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agentprompt.agent._reminders import DEFAULT_MAX_REQUIRED_WARNINGS
from agentprompt.agent.compaction import CompactionPolicy
from agentprompt.agent.placement import ProfileName
from agentprompt.errors import UsageError
from agentprompt.tools.policy import ToolPolicy

__all__ = [
    "AgentRole",
    "EventKind",
    "SessionConfig",
    "SessionEvent",
    "TurnResult",
]


@dataclass(frozen=True, kw_only=True)
class SessionConfig:
    """How a session runs its turns."""

    profile: ProfileName = "agent"
    """Where per-turn facts go: ``agent`` (cache-stable tail, default) or ``ally`` (a
    ``messages[0]`` regenerated before every call)."""
    once: bool = False
    """Single-response mode (``--once``): the once-mode instructions are in the prompt."""
    stream: bool = False
    """Stream the main agent's replies (specialised agents never stream)."""
    model: str | None = None
    """The model to ask; None for the client's default. Also picks the tokenizer."""
    max_tokens: int | None = None
    """The most tokens one reply may have; None for the provider's default."""
    context_size: int = 128_000
    """The model's context window in tokens."""
    compaction: CompactionPolicy = field(default_factory=CompactionPolicy)
    """When to compact and what to keep."""
    policy: ToolPolicy = field(default_factory=ToolPolicy)
    """The main agent's tools and their limits."""
    max_tool_rounds: int = 30
    """Replies whose tool calls are run, per turn; then one last call asks for the text
    response (the same tools offered; tool calls in its reply are answered, not run)."""
    max_required_warnings: int = DEFAULT_MAX_REQUIRED_WARNINGS
    """Required-tool reminders an agent gets before it may finish anyway."""
    max_depth: int = 2
    """How deep sub-agents may nest (the main agent is depth 0)."""

    def __post_init__(self) -> None:
        problems = [
            f"{name} must be at least {least}, not {value}"
            for name, value, least in (
                ("context_size", self.context_size, 1),
                ("max_tool_rounds", self.max_tool_rounds, 1),
                ("max_required_warnings", self.max_required_warnings, 0),
                ("max_depth", self.max_depth, 0),
            )
            if value < least
        ]
        if problems:
            raise UsageError(f"invalid session configuration: {'; '.join(problems)}")


@dataclass(frozen=True, kw_only=True)
class AgentRole:
    """What makes a session a specialised agent (plan, explore or a custom agent)."""

    name: str
    """The agent's name (``explore``, ``plan``, or a custom agent's name)."""
    base_prompt: str
    """Its own system prompt (``agent/planner``, ``agent/explorer`` or a custom agent's body)."""
    task: str
    """The task it was given."""
    policy: ToolPolicy = field(default_factory=ToolPolicy)
    """The tools it may use; ``required_tools`` are enforced with reminders."""
    depth: int = 1
    """How deep it is nested below the main agent."""
    model: str | None = None
    """A model of its own (a custom agent's ``model``); None for the session's."""


EventKind = Literal[
    "text",
    "text_delta",
    "tool_call",
    "tool_result",
    "compaction",
    "retry",
    "delegation",
    "warning",
]
"""What a :class:`SessionEvent` reports."""


@dataclass(frozen=True, kw_only=True)
class SessionEvent:
    """Something a session did, for a user interface to show as it happens."""

    kind: EventKind
    """What happened."""
    text: str = ""
    """The text (a reply, a delta, a tool result, a notice)."""
    name: str | None = None
    """The tool or agent concerned, if any."""
    is_error: bool = False
    """Whether a tool result reports a failure."""
    depth: int = 0
    """0 for the main agent, deeper for sub-agents."""


@dataclass(frozen=True, kw_only=True)
class TurnResult:
    """What one turn did."""

    text: str
    """The final text response (empty only when the model gave none after being asked)."""
    requests: int
    """Model calls made (the compaction call not included)."""
    tool_calls: int
    """Tool calls run."""
    interrupted: bool = False
    """The user interrupted the turn (Ctrl-C); the next turn gets the interruption reminder."""
    compacted: bool = False
    """The history was compacted during the turn."""
    retried: bool = False
    """A reply cut off by an error was continued with one retry."""
    used_tokens: int = 0
    """Context tokens in use after the turn."""
    context_percent: int = 0
    """``used_tokens`` as a percentage of the context size."""
