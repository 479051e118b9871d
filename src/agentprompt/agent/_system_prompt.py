"""The agent's system prompts: the main agent's, a specialised agent's, and their context.

:func:`main_system_prompt` builds the main agent's system prompt: the core directives
(identity, behaviour, delegation, general guidelines), the once-mode instructions, the tool
usage guidance section, the context information and the todo status, rebuilt from
:class:`PromptFacts` before every model call. :func:`agent_system_prompt` is
``getAgentSystemPrompt()``: the specialised structure, without the delegation guidelines, the
agents list or the project instructions.

The ``*_parts`` forms split the same text for the cache-stable profile: ``stable`` holds
everything that stays the same for a session, ``per_turn`` the facts that change on every
call (the date, context usage and the todo status), which the session sends in the
conversation's tail so messages[0] stays byte-identical between calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentprompt.agent.specialized import AgentSpec
from agentprompt.context.environment import Environment
from agentprompt.context.instructions import ProjectInstructions, render_instructions
from agentprompt.context.project import ProjectFacts, project_summary
from agentprompt.context.usage import ContextUsage, warning_line
from agentprompt.project_root import find_project_root
from agentprompt.prompts.loader import PromptLibrary

__all__ = [
    "PromptFacts",
    "SystemParts",
    "agent_system_parts",
    "agent_system_prompt",
    "context_lines",
    "core_directives",
    "main_system_parts",
    "main_system_prompt",
    "turn_lines",
]

DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
"""How the context states the current date (``2025-10-31 14:32:15``)."""


@dataclass(frozen=True, kw_only=True)
class PromptFacts:
    """Everything a system prompt states, gathered by the session before each call."""

    environment: Environment
    """Date, working directory, git branch, OS and Python version."""
    project: ProjectFacts | None = None
    """The detected project, or None to leave the Project line out."""
    instructions: ProjectInstructions | None = None
    """The project instruction files (main agent only)."""
    usage: ContextUsage | None = None
    """Context usage, or None before anything was measured (the line is left out)."""
    todo_context: str = ""
    """The todo list's ``generate_active_context()`` text ("" when there are no todos)."""
    tool_guidance: str = ""
    """The registry's ``## Tool Usage Guidance`` section ("" when no tool has guidance)."""
    agents: tuple[AgentSpec, ...] = ()
    """The agents the main agent may delegate to (main agent only)."""
    runs_commands: bool = True
    """Whether a tool that runs commands (the shell) is offered: the behaviour directives
    then say to run and verify yourself; without one they tell the
    model to ask the user to run commands (``agent/behavior_no_shell``)."""


@dataclass(frozen=True, kw_only=True)
class SystemParts:
    """A system prompt split by how often its parts change."""

    stable: str
    """The part that stays byte-identical for a session: messages[0] of the default profile."""
    per_turn: str
    """The facts that change every call (date, context usage, todo status)."""


def _library(facts: PromptFacts, prompts: PromptLibrary | None) -> PromptLibrary:
    if prompts is not None:
        return prompts
    return PromptLibrary(find_project_root(facts.environment.cwd))


def behavior_prompt(runs_commands: bool) -> str:
    """The behaviour directives' prompt name: ``agent/behavior`` when the agent can run commands,
    the variant that asks the user to run them when it cannot."""
    return "agent/behavior" if runs_commands else "agent/behavior_no_shell"


def core_directives(
    prompts: PromptLibrary, *, delegation: bool = True, runs_commands: bool = True
) -> str:
    """The core directives: identity, behaviour (for an agent that can run commands,
    or one that cannot), delegation guidelines (main agent only, ``delegation``) and general
    guidelines, separated by blank lines."""
    names = ["agent/identity", behavior_prompt(runs_commands)]
    if delegation:
        names.append("agent/delegation")
    names.append("agent/guidelines")
    return "\n\n".join(prompts.render(n) for n in names)


def _working_directory(env: Environment, prompts: PromptLibrary) -> str:
    if env.is_git and env.git_branch:
        return prompts.render("agent/git_directory", path=env.cwd, branch=env.git_branch)
    if env.is_git and env.detached_at:
        return prompts.render("agent/git_detached", path=env.cwd, commit=env.detached_at)
    return str(env.cwd)


def _date_line(facts: PromptFacts, prompts: PromptLibrary) -> str:
    return prompts.render("context/date", date=facts.environment.now.strftime(DATE_FORMAT))


def _session_lines(facts: PromptFacts, prompts: PromptLibrary) -> list[str]:
    env = facts.environment
    lines = [
        prompts.render(
            "context/working_directory", working_directory=_working_directory(env, prompts)
        ),
        prompts.render("context/os", os=env.os_name),
        prompts.render("context/python", version=env.python_version),
    ]
    if facts.project is not None and not facts.project.empty:
        lines.append(prompts.render("context/project", summary=project_summary(facts.project)))
    return lines


def _main_tail_lines(facts: PromptFacts, prompts: PromptLibrary) -> list[str]:
    lines = []
    if facts.instructions is not None and not facts.instructions.empty:
        lines.append(render_instructions(facts.instructions, prompts))
    if facts.agents:
        items = "\n".join(
            prompts.render("context/agent_item", name=a.name, description=a.description)
            for a in facts.agents
        )
        lines.append(prompts.render("context/agents", agents=items))
    return lines


def context_lines(facts: PromptFacts, prompts: PromptLibrary, *, main: bool = True) -> str:
    """The context information in its fixed order: date, working directory and git
    branch, OS, Python version, project, context usage, then for the main agent only the
    project instructions and the available agents."""
    lines = [_date_line(facts, prompts), *_session_lines(facts, prompts)]
    if facts.usage is not None:
        lines.append(warning_line(facts.usage, prompts))
    if main:
        lines.extend(_main_tail_lines(facts, prompts))
    return "\n".join(lines)


def turn_lines(facts: PromptFacts, prompts: PromptLibrary, *, todos: bool = True) -> str:
    """The per-call facts alone: date, context usage and (with ``todos``) the todo status."""
    lines = [_date_line(facts, prompts)]
    if facts.usage is not None:
        lines.append(warning_line(facts.usage, prompts))
    text = "\n".join(lines)
    if todos and facts.todo_context.strip():
        text = f"{text}\n{facts.todo_context.strip(chr(10))}"
    return text


def _join(*blocks: str) -> str:
    return "\n\n".join(b.strip("\n") for b in blocks if b.strip())


def _with_todos(context: str, facts: PromptFacts) -> str:
    """The context followed by the todo status on the next line."""
    todo = facts.todo_context.strip("\n")
    return f"{context}\n{todo}" if todo.strip() else context


def main_system_prompt(
    facts: PromptFacts, *, once: bool = False, prompts: PromptLibrary | None = None
) -> str:
    """The main agent's system prompt (the ``ally`` profile's messages[0]): core directives,
    once-mode instructions (with ``once``), tool usage guidance, context and todo status."""
    lib = _library(facts, prompts)
    context = lib.render("agent/main_context", lines=context_lines(facts, lib, main=True))
    return _join(
        core_directives(lib, delegation=True, runs_commands=facts.runs_commands),
        lib.render("agent/once_mode") if once else "",
        facts.tool_guidance,
        _with_todos(context, facts),
    )


def main_system_parts(
    facts: PromptFacts, *, once: bool = False, prompts: PromptLibrary | None = None
) -> SystemParts:
    """The main agent's system prompt split for the cache-stable profile: ``stable`` has
    every part of :func:`main_system_prompt` except the date, context usage and todo status,
    which are in ``per_turn``."""
    lib = _library(facts, prompts)
    stable_lines = "\n".join([*_session_lines(facts, lib), *_main_tail_lines(facts, lib)])
    stable = _join(
        core_directives(lib, delegation=True, runs_commands=facts.runs_commands),
        lib.render("agent/once_mode") if once else "",
        facts.tool_guidance,
        lib.render("agent/main_context", lines=stable_lines),
    )
    per_turn = lib.render("agent/turn_context", lines=turn_lines(facts, lib))
    return SystemParts(stable=stable, per_turn=per_turn)


def _specialized(
    base: str, task: str, context: str, lib: PromptLibrary, *, runs_commands: bool
) -> str:
    return lib.render(
        "agent/specialized",
        agent_prompt=base.strip("\n"),
        behavior=lib.render(behavior_prompt(runs_commands)),
        guidelines=lib.render("agent/guidelines"),
        task=task.strip("\n"),
        context=context,
    )


def agent_system_prompt(
    base: str, task: str, facts: PromptFacts, *, prompts: PromptLibrary | None = None
) -> str:
    """A specialised agent's system prompt: Primary Identity (``base``),
    behavioural directives, general guidelines, Current Task (``task``), Context without
    the agents list or project instructions, and the Final Response Requirement."""
    lib = _library(facts, prompts)
    context = context_lines(facts, lib, main=False)
    return _specialized(base, task, context, lib, runs_commands=facts.runs_commands)


def agent_system_parts(
    base: str, task: str, facts: PromptFacts, *, prompts: PromptLibrary | None = None
) -> SystemParts:
    """:func:`agent_system_prompt` split for the cache-stable profile: the date and context
    usage move from the Context section to ``per_turn``."""
    lib = _library(facts, prompts)
    context = "\n".join(_session_lines(facts, lib))
    stable = _specialized(base, task, context, lib, runs_commands=facts.runs_commands)
    per_turn = lib.render("agent/turn_context", lines=turn_lines(facts, lib, todos=False))
    return SystemParts(stable=stable, per_turn=per_turn)
