"""The system prompt a session regenerates before every model call.

A session hands a :class:`PromptInputs` (its current facts) to a
:data:`SystemPromptBuilder` and gets a :class:`~agentprompt.agent.placement.SystemText`
back: the whole prompt for the ``ally`` placement, and the stable part and the per-turn
facts for the default one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentprompt.agent.placement import SystemText
from agentprompt.agent.session_types import AgentRole
from agentprompt.context.usage import ContextUsage

__all__ = ["PromptInputs", "SystemPromptBuilder"]


@dataclass(frozen=True, kw_only=True)
class PromptInputs:
    """What changes the system prompt from one call to the next."""

    root: Path
    """The repository the agent works in."""
    once: bool
    """Single-response mode."""
    usage: ContextUsage
    """Context usage after the last call, with the tool-result statistics."""
    todo_context: str
    """The todo list's active context (empty for specialised agents or an empty list)."""
    tool_guidance: str
    """The ``## Tool Usage Guidance`` section for the tools this agent may use, or ``""``."""
    role: AgentRole | None = None
    """None for the main agent; the specialised agent's prompt and task otherwise."""


SystemPromptBuilder = Callable[[PromptInputs], SystemText]
"""Builds the system prompt of one call from the session's current facts."""
