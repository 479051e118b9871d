"""The `demo` profile of the agent's prompt, and the value it builds its sections from.

It is the main agent's prompt for one repository: the core directives as
static system text, the environment as session text, the repository's files as an optional
section that falls back to its top-level folders, any history, and the task as the user's
turn.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from agentprompt.errors import AgentPromptError
from agentprompt.messages import Message
from agentprompt.project.environment import Environment
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.repo.discovery import discover
from agentprompt.sections import Profile, Section, SectionSpec, Stability

__all__ = ["AgentContext", "demo_profile", "list_repository_files"]


@dataclass(frozen=True, kw_only=True)
class AgentContext:
    """Everything the agent profiles read."""

    prompts: PromptLibrary
    """Where the prompt files come from."""
    environment: Environment
    """Date, working directory, git, OS and Python version."""
    task: str
    """The user's request for this turn."""
    files: tuple[str, ...] = ()
    """The repository's files, relative to its root."""
    history: tuple[Message, ...] = ()
    """The conversation so far."""
    once: bool = False
    """Single-response mode (``--once``): no follow-up is possible."""


def list_repository_files(root: Path) -> tuple[str, ...]:
    """The files a prompt may show under ``root`` (:func:`agentprompt.repo.discovery.discover`:
    git's view inside a work tree, the default exclusions, binary and oversized files left
    out); empty when ``root`` cannot be scanned."""
    try:
        found = discover(root)
    except AgentPromptError:
        return ()
    return tuple(f.path for f in found.files)


def _working_directory(ctx: AgentContext) -> str:
    env = ctx.environment
    if env.is_git and env.git_branch:
        return ctx.prompts.render("agent/git_directory", path=env.cwd, branch=env.git_branch)
    if env.is_git and env.detached_at:
        return ctx.prompts.render("agent/git_detached", path=env.cwd, commit=env.detached_at)
    return str(env.cwd)


def _context(ctx: AgentContext) -> str:
    env = ctx.environment
    return ctx.prompts.render(
        "agent/context",
        date=env.now.strftime("%Y-%m-%d %H:%M:%S"),
        working_directory=_working_directory(ctx),
        os=env.os_name,
        python_version=env.python_version,
    )


def _files(ctx: AgentContext) -> Section | None:
    if not ctx.files:
        return None
    full = ctx.prompts.render("agent/repository_files", files="\n".join(ctx.files))
    folders = Counter(f.split("/", 1)[0] + ("/" if "/" in f else "") for f in ctx.files)
    summary = "\n".join(
        ctx.prompts.render("agent/repository_folder", folder=name, count=count)
        if name.endswith("/")
        else name
        for name, count in sorted(folders.items())
    )
    short = ctx.prompts.render("agent/repository_files", files=summary)
    return Section(
        id="repository_files",
        role="system",
        text=full,
        stability=Stability.SESSION,
        priority=1,
        fallbacks=(short,) if len(short) < len(full) else (),
    )


def _directive(name: str) -> SectionSpec[AgentContext]:
    return SectionSpec(
        id=name.removeprefix("agent/"),
        build=lambda ctx: ctx.prompts.render(name),
        stability=Stability.STATIC,
    )


def demo_profile() -> Profile[AgentContext]:
    """The main agent's prompt for a repository, cache-stable in layout."""
    return Profile(
        name="demo",
        description="The main agent's prompt for this repository and a task.",
        specs=(
            _directive("agent/identity"),
            _directive("agent/behavior"),
            _directive("agent/delegation"),
            _directive("agent/guidelines"),
            SectionSpec(
                id="once_mode",
                build=lambda ctx: ctx.prompts.render("agent/once_mode"),
                condition=lambda ctx: ctx.once,
                stability=Stability.STATIC,
            ),
            SectionSpec(id="context", build=_context, stability=Stability.SESSION),
            SectionSpec(id="repository_files", build=_files, priority=1),
            SectionSpec(id="history", build=lambda ctx: ctx.history, priority=0),
            SectionSpec(
                id="task", build=lambda ctx: ctx.task, role="user", stability=Stability.TURN
            ),
        ),
    )
