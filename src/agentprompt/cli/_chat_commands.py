"""The slash commands of the ``chat`` prompt: they act on the session here and never reach
the model.

``/help`` lists them; ``/project init|show|edit`` runs the ``project`` commands on the
session's repository; ``/todos``, ``/agents``, ``/tools`` and ``/context`` show the todo list,
the agents ``@name`` can tag, the tools offered and how full the context is (the usage line
the model reads and the tokens of each part of the next request); ``/compact`` summarises the
older history now; ``/clear`` starts the conversation afresh in the same stored session.
Anything else starting with ``/`` gets a hint instead of a model call; a message that
really starts with ``/`` is typed with ``//``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass

import click

from agentprompt.agent.compaction import CompactionError
from agentprompt.agent.runtime import Chat
from agentprompt.agent.session.driver import AgentSession
from agentprompt.agent.specialized import scan_agents
from agentprompt.context.usage import warning_line
from agentprompt.errors import AgentPromptError
from agentprompt.llm.errors import ModelError

__all__ = ["COMMANDS", "run_slash_command", "tools_line"]

_RECENT_KEPT = 2
"""Latest messages ``/compact`` keeps verbatim (fewer than auto-compaction: the user asked)."""


@dataclass(frozen=True, kw_only=True)
class _Command:
    usage: str
    """How it is typed."""
    summary: str
    """What it does, in one line."""
    run: Callable[[Chat, list[str]], str]
    """Does it; returns what to show."""
    saves: bool = False
    """Whether it changes the stored session."""


def tools_line(session: AgentSession) -> str:
    """Which tools the agent is offered, and how to turn on command execution when off."""
    offered = session.registry.enabled(session.policy)
    line = f"tools: {', '.join(s.name for s in offered) or 'none'}"
    if not any(s.runs_commands for s in offered):
        line += " (no shell: the agent asks you to run commands; --shell lets it run them)"
    return line


def _help(chat: Chat, args: list[str]) -> str:
    width = max(len(c.usage) for c in COMMANDS.values())
    lines = [f"{c.usage.ljust(width)}  {c.summary}" for c in COMMANDS.values()]
    lines.append(f"{'/exit, /quit'.ljust(width)}  end the chat")
    return "\n".join(lines)


def _project(chat: Chat, args: list[str]) -> str:
    from agentprompt.cli._project import project_group

    if not args or args[0] not in ("init", "show", "edit"):
        return "usage: /project init|show|edit [OPTIONS] (/project show --help for the options)"
    try:
        project_group.main(
            args=[*args, "--root", str(chat.session.root)],
            prog_name="/project",
            standalone_mode=False,
        )
    except click.ClickException as exc:
        return f"agentprompt: error: {exc.format_message()}"
    except click.exceptions.Exit:
        pass
    except click.Abort:
        return "aborted"
    return ""


def _todos(chat: Chat, args: list[str]) -> str:
    return chat.session.todos.render()


def _agents(chat: Chat, args: list[str]) -> str:
    catalog = scan_agents(chat.session.root)
    lines = [f"@{a.name}: {a.description}" for a in catalog.agents]
    lines.extend(f"skipped {p}" for p in catalog.problems)
    return "\n".join(lines) or "no agents"


def _tools(chat: Chat, args: list[str]) -> str:
    return tools_line(chat.session)


def _context(chat: Chat, args: list[str]) -> str:
    session = chat.session
    placed = session.build_request()
    usage = warning_line(session.usage, session.prompts).removeprefix("- ")
    comp = placed.composition
    lines = [usage, f"next request: {placed.total_tokens} tokens of {session.config.context_size}"]
    width = max((len(s.id) for s in comp.sections), default=0)
    lines.extend(f"  {s.id.ljust(width)}  {s.tokens:>7}" for s in comp.sections)
    lines.append(f"  {'tools'.ljust(width)}  {comp.tool_tokens:>7}  ({len(comp.tools)} tools)")
    return "\n".join(lines)


def _compact(chat: Chat, args: list[str]) -> str:
    try:
        done = chat.session.compact(keep_recent=_RECENT_KEPT)
    except (CompactionError, ModelError) as exc:
        return f"agentprompt: error: the history was not compacted: {exc}"
    if done is None:
        return "nothing to compact yet: the conversation is too short"
    return f"compacted {done.replaced} message(s); context now {chat.session.usage.percent}%"


def _clear(chat: Chat, args: list[str]) -> str:
    chat.session.clear()
    return "cleared the conversation and the todo list"


COMMANDS: dict[str, _Command] = {
    "/help": _Command(usage="/help", summary="list the commands", run=_help),
    "/project": _Command(
        usage="/project init|show|edit",
        summary="create, show or edit the project instructions (ALLY.md)",
        run=_project,
    ),
    "/todos": _Command(usage="/todos", summary="show the todo list", run=_todos),
    "/agents": _Command(usage="/agents", summary="list the agents @name can tag", run=_agents),
    "/tools": _Command(usage="/tools", summary="list the tools the agent is offered", run=_tools),
    "/context": _Command(
        usage="/context", summary="show context usage and the tokens of each part", run=_context
    ),
    "/compact": _Command(
        usage="/compact", summary="summarise the older history now", run=_compact, saves=True
    ),
    "/clear": _Command(
        usage="/clear", summary="start the conversation afresh", run=_clear, saves=True
    ),
}
"""Every slash command, in the order ``/help`` lists them."""


def run_slash_command(chat: Chat, line: str) -> str:
    """Run the slash command ``line`` on ``chat`` and return what to show; an unknown or
    malformed command gets a hint. Never calls the model (except ``/compact``'s summary)."""
    try:
        words = shlex.split(line)
    except ValueError as exc:
        return f"agentprompt: error: cannot read the command ({exc}); /help lists the commands"
    command = COMMANDS.get(words[0]) if words else None
    if command is None:
        return (
            f"unknown command {words[0] if words else line!r}; /help lists the commands "
            "(to send a message starting with '/', start it with '//')"
        )
    try:
        shown = command.run(chat, words[1:])
    except AgentPromptError as exc:
        return f"agentprompt: error: {exc}"
    if command.saves:
        chat.save()
    return shown
