"""The ``agent`` and ``ally`` profiles ``agentprompt inspect`` shows: the first model call
of a session's turn, exactly as :class:`~agentprompt.agent.session.AgentSession` places it.

Both hold the regenerated system prompt with the built-in tools' guidance, the history, the
user's request, and the todo reminder due after a user message; ``agent`` keeps
``messages[0]`` stable and sends the per-turn facts after the history, ``ally`` puts them
in ``messages[0]``, regenerated before every call.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from agentprompt.agent._reminders import todo_reminder
from agentprompt.agent.placement import ProfileName, place_request, request_parts
from agentprompt.agent.session.prompt import PromptInputs, seed_system_prompt
from agentprompt.agent.session.values import SessionConfig
from agentprompt.context.environment import working_directory
from agentprompt.context.usage import ContextUsage
from agentprompt.messages import Message, ToolDefinition
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.sections import Part, Section, Stability
from agentprompt.tokens import shared_counter
from agentprompt.tools.builtins import default_registry

__all__ = ["session_profile_parts", "session_profile_tools"]


def session_profile_tools(*, root: Path) -> tuple[ToolDefinition, ...]:
    """The tool definitions the session's first call offers (the default policy's tools),
    which a request carries beside its messages."""
    prompts = PromptLibrary(root)
    return default_registry(prompts).definitions(SessionConfig().policy)


def session_profile_parts(
    profile: ProfileName,
    *,
    root: Path,
    task: str,
    history: Sequence[Message] = (),
    now: dt.datetime | None = None,
    once: bool = False,
    cwd: Path | None = None,
) -> list[Part]:
    """The sections of the first call of a turn on ``task`` under ``profile``, for an
    agent started in ``cwd`` (default: this process's working directory, as ``agentprompt
    chat`` takes it; the root when that is outside it). Its Context Usage line states the
    request's own size, tool definitions included, as the session's first call does."""
    prompts = PromptLibrary(root)
    config = SessionConfig(profile=profile, once=once)
    where = working_directory(root.resolve(), cwd if cwd is not None else Path.cwd())
    clock = (lambda: now) if now is not None else None
    build = seed_system_prompt(prompts, clock=clock, cwd=where)
    registry = default_registry(prompts)
    inputs = PromptInputs(
        root=root,
        once=once,
        usage=ContextUsage(used_tokens=0, context_size=config.context_size),
        todo_context="",
        tool_guidance=registry.guidance_section(config.policy),
        profile=profile,
        runs_commands=any(s.runs_commands for s in registry.enabled(config.policy)),
    )
    turn = [*history, Message(role="user", content=task)] if task else list(history)
    reminder = todo_reminder(prompts, ())
    counter = shared_counter(config.model)
    measured = place_request(
        profile,
        build(inputs),
        turn,
        (reminder,),
        counter=counter,
        tools=registry.definitions(config.policy),
    )
    usage = ContextUsage(used_tokens=measured.total_tokens, context_size=config.context_size)
    parts = list(request_parts(profile, build(replace(inputs, usage=usage)), turn))
    parts.append(
        Section(id="reminder", role="system", text=reminder.text, stability=Stability.EPHEMERAL)
    )
    return parts
