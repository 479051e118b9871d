"""The system prompt a session regenerates before every model call.

A session hands a :class:`PromptInputs` (its current facts) to a
:data:`SystemPromptBuilder` and gets a :class:`~agentprompt.agent.placement.SystemText`
back: the whole prompt for the ``ally`` placement, and the stable part and the per-turn
facts for the default one. :func:`seed_system_prompt` is the builder of the reference
agent: the main and specialised prompts from :mod:`agentprompt.agent._system_prompt`,
with the environment, project facts, project instructions and available agents read again
for every call (the stable part changes only when one of them does).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from agentprompt.agent._system_prompt import (
    PromptFacts,
    agent_system_parts,
    agent_system_prompt,
    main_system_parts,
    main_system_prompt,
)
from agentprompt.agent.placement import ProfileName, SystemText
from agentprompt.agent.session.values import AgentRole
from agentprompt.agent.specialized import scan_agents
from agentprompt.context.environment import Environment, watch_environment
from agentprompt.context.instructions import load_instructions
from agentprompt.context.project import detect_project
from agentprompt.context.usage import ContextUsage
from agentprompt.prompts.loader import PromptLibrary

__all__ = ["PromptInputs", "SystemPromptBuilder", "seed_system_prompt"]


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
    profile: ProfileName = "agent"
    """Where the per-turn facts go (``ally``: in the prompt; ``agent``: in the tail)."""
    role: AgentRole | None = None
    """None for the main agent; the specialised agent's prompt and task otherwise."""
    runs_commands: bool = True
    """Whether a tool that runs commands (the shell) is offered to this agent."""


SystemPromptBuilder = Callable[[PromptInputs], SystemText]
"""Builds the system prompt of one call from the session's current facts."""


def seed_system_prompt(
    prompts: PromptLibrary,
    *,
    clock: Callable[[], dt.datetime] | None = None,
    environment: Environment | None = None,
    cwd: Path | None = None,
) -> SystemPromptBuilder:
    """The reference agent's system prompt builder for a session over ``prompts.root``, run from
    ``cwd`` (default: the root), the prompt's working directory: the instruction files
    (ALLY.md, AGENTS.md, CLAUDE.md) are read from the root down to it.

    Every call states current facts: the date comes from ``clock``, the git branch is read
    again when HEAD changed, and project facts, instructions and agents are read again, so
    an instruction the model appended shows up next call. A given ``environment`` is
    used as it is (only its date follows ``clock``), which keeps a test byte-stable.
    """
    if environment is not None:
        fixed, now = environment, clock or dt.datetime.now
        current: Callable[[], Environment] = lambda: replace(fixed, now=now())  # noqa: E731
    else:
        current = watch_environment(cwd or prompts.root, clock=clock)

    def build(inputs: PromptInputs) -> SystemText:
        env = current()
        usage = inputs.usage if inputs.usage.used_tokens else None
        if inputs.role is not None:
            facts = PromptFacts(
                environment=env,
                project=detect_project(inputs.root),
                usage=usage,
                tool_guidance=inputs.tool_guidance,
                runs_commands=inputs.runs_commands,
            )
            role = inputs.role
            if inputs.profile == "ally":
                return SystemText(
                    head=agent_system_prompt(role.base_prompt, role.task, facts, prompts=prompts)
                )
            parts = agent_system_parts(role.base_prompt, role.task, facts, prompts=prompts)
            return SystemText(head=parts.stable, tail=parts.per_turn)
        facts = PromptFacts(
            environment=env,
            project=detect_project(inputs.root),
            instructions=load_instructions(inputs.root, env.cwd),
            usage=usage,
            todo_context=inputs.todo_context,
            tool_guidance=inputs.tool_guidance,
            agents=scan_agents(inputs.root).agents,
            runs_commands=inputs.runs_commands,
        )
        if inputs.profile == "ally":
            return SystemText(head=main_system_prompt(facts, once=inputs.once, prompts=prompts))
        main = main_system_parts(facts, once=inputs.once, prompts=prompts)
        return SystemText(head=main.stable, tail=main.per_turn)

    return build
