"""The named profiles ``agentprompt inspect`` can show.

Each runtime defines its own profiles; this registry only names them and says how to build
their sections for a repository and a task, so the CLI stays a thin layer.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from agentprompt.agent.demo_profile import AgentContext, demo_profile, list_repository_files
from agentprompt.agent.placement import ProfileName
from agentprompt.budget import Cut, fit
from agentprompt.composition import (
    Composition,
    assemble,
)
from agentprompt.errors import UsageError
from agentprompt.messages import Message, ToolDefinition
from agentprompt.prefix import SharedPrefix, shared_prefix
from agentprompt.project.environment import read_environment
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.sections import HistorySlot, Part, Section
from agentprompt.tokens import shared_counter

__all__ = [
    "PROFILES",
    "InspectReport",
    "InspectRequest",
    "NamedProfile",
    "get_profile",
    "inspect_profile",
]


@dataclass(frozen=True, kw_only=True)
class InspectRequest:
    """What a profile is built for: a repository, a task and the moment."""

    root: Path
    """The repository (or directory) the prompt is about."""
    task: str
    """The user's request."""
    history: tuple[Message, ...] = ()
    """Earlier messages of the conversation."""
    now: dt.datetime | None = None
    """The moment to state in the prompt; None for the current time."""
    once: bool = False
    """Single-response mode."""
    system_reminder: bool = False
    """Put the system reminder (the compact EDIT/REPL rules) before the text of the latest
    user message, the uncached tail, as a caller may do to reinforce the edit format."""


@dataclass(frozen=True, kw_only=True)
class NamedProfile:
    """A profile as the CLI lists and builds it."""

    name: str
    """What ``--profile`` calls it."""
    description: str
    """One line saying what it is."""
    build: Callable[[InspectRequest], list[Part]]
    """Its sections for a request."""
    tools: Callable[[InspectRequest], tuple[ToolDefinition, ...]] | None = None
    """The tool definitions a request of this profile carries, or None for none."""


def _demo(request: InspectRequest) -> list[Part]:
    fixed_now = request.now
    env = read_environment(request.root, clock=(lambda: fixed_now) if fixed_now else None)
    ctx = AgentContext(
        prompts=PromptLibrary(request.root),
        environment=env,
        task=request.task,
        files=list_repository_files(request.root),
        history=request.history,
        once=request.once,
    )
    return demo_profile().build(ctx)


def _session(profile: ProfileName) -> Callable[[InspectRequest], list[Part]]:
    def build(request: InspectRequest) -> list[Part]:
        from agentprompt.agent.session.profiles import session_profile_parts

        return session_profile_parts(
            profile,
            root=request.root,
            task=request.task,
            history=request.history,
            now=request.now,
            once=request.once,
        )

    return build


def _session_tools(request: InspectRequest) -> tuple[ToolDefinition, ...]:
    from agentprompt.agent.session.profiles import session_profile_tools

    return session_profile_tools(root=request.root)


def _ac(request: InspectRequest) -> list[Part]:
    """The cache-tiered prompt: items placed by the repository's stored tracker (read,
    never written), or spread over L1–L3 as on a first request."""
    from agentprompt.tiers.assembly import tier_parts
    from agentprompt.tiers.context import repository_context
    from agentprompt.tiers.persist import read_stored
    from agentprompt.tiers.steady import track_context

    context = repository_context(
        request.root, history=request.history, user=request.task, task=request.task
    )
    # A damaged stored state places the items afresh (the command prints its warning).
    placed, update = track_context(read_stored(request.root).state, context)
    return list(tier_parts(placed, update.state, prompts=PromptLibrary(request.root)))


PROFILES: dict[str, NamedProfile] = {
    "agent": NamedProfile(
        name="agent",
        description="the agent session's first call of a turn, cache-stable: messages[0] "
        "fixed, per-turn facts after the history",
        build=_session("agent"),
        tools=_session_tools,
    ),
    "ally": NamedProfile(
        name="ally",
        description="the agent session's first call of a turn, everything in messages[0]: "
        "per-turn facts regenerated into messages[0]",
        build=_session("ally"),
        tools=_session_tools,
    ),
    "demo": NamedProfile(
        name="demo",
        description="the main agent's prompt for a repository and a task",
        build=_demo,
    ),
    "ac": NamedProfile(
        name="ac",
        description="the cache-tiered prompt (L0–L3 and active) for a repository",
        build=_ac,
    ),
}
"""Every profile ``inspect`` knows, by name."""


def _with_system_reminder(parts: list[Part], root: Path) -> list[Part]:
    """``parts`` with the system reminder before the text of the latest user message (a
    user section, or the last user message of the history); unchanged without one."""
    from agentprompt.prompts.system_reminder import get_system_reminder

    reminder = get_system_reminder(root=root)
    out = list(parts)
    for i in range(len(out) - 1, -1, -1):
        part = out[i]
        if isinstance(part, Section) and part.role == "user":
            out[i] = replace(part, text=f"{reminder}\n\n{part.text}")
            return out
        if isinstance(part, HistorySlot):
            messages = list(part.messages)
            for j in range(len(messages) - 1, -1, -1):
                if messages[j].role == "user" and isinstance(messages[j].content, str):
                    text = f"{reminder}\n\n{messages[j].content}"
                    messages[j] = replace(messages[j], content=text)
                    out[i] = replace(part, messages=tuple(messages))
                    return out
    return out


def get_profile(name: str) -> NamedProfile:
    """The profile called ``name``; a :class:`~agentprompt.errors.UsageError` lists the
    known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(
            f"unknown profile {name!r}: choose one of {', '.join(sorted(PROFILES))}"
        ) from None


@dataclass(frozen=True, kw_only=True)
class InspectReport:
    """A profile composed for a request: its messages and what they cost."""

    profile: str
    """The profile's name."""
    composition: Composition
    """The composed (and, with a budget, fitted) prompt."""
    model: str | None = None
    """The model the tokens were counted for (None: o200k_base)."""
    budget: int | None = None
    """The input-token budget it was fitted to, if any."""
    cuts: tuple[Cut, ...] = ()
    """What fitting to the budget cut."""
    prefix: SharedPrefix | None = None
    """What it shares with a previous render, when one was given."""


def inspect_profile(
    name: str,
    request: InspectRequest,
    *,
    model: str | None = None,
    max_tokens: int | None = None,
    reserve_output: int = 0,
    previous: list[Message] | None = None,
) -> InspectReport:
    """Compose profile ``name`` for ``request``, fit it to a budget, compare with a previous
    render: everything ``agentprompt inspect`` shows."""
    profile = get_profile(name)
    counter = shared_counter(model)
    tools = profile.tools(request) if profile.tools is not None else ()
    parts = profile.build(request)
    if request.system_reminder:
        parts = _with_system_reminder(parts, request.root)
    composition = assemble(parts, counter=counter, tools=tools)
    cuts: tuple[Cut, ...] = ()
    budget: int | None = None
    if max_tokens is not None:
        fitted = fit(composition, max_tokens, reserve_output=reserve_output, counter=counter)
        composition, cuts, budget = fitted.composition, fitted.cuts, fitted.budget
    prefix = None
    if previous is not None:
        prefix = shared_prefix(previous, composition.messages, counter=counter)
    return InspectReport(
        profile=name,
        composition=composition,
        model=model,
        budget=budget,
        cuts=cuts,
        prefix=prefix,
    )
