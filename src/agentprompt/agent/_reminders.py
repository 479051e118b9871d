"""Temporary system reminders: built for one model call, removed right after it.

A reminder is a system message whose text is wrapped in ``<system-reminder>`` tags. The
session appends the reminders due for a call as the last messages of the request, and
right after the response it filters the history (every system
message whose content includes ``<system-reminder>`` goes), so reminders never pile up and
never reach the stored conversation.

The texts are fixed, byte for byte, in ``prompts/agent/reminders/``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agentprompt.messages import Message
from agentprompt.prompts.loader import PromptLibrary

__all__ = [
    "DEFAULT_MAX_REQUIRED_WARNINGS",
    "REMINDER_TAG",
    "ReminderFacts",
    "TodoLine",
    "build_reminders",
    "continuation_reminder",
    "inject_reminders",
    "interruption_reminder",
    "is_reminder",
    "missing_required_tools",
    "remove_reminders",
    "required_tools_reminder",
    "text_response_reminder",
    "todo_reminder",
    "tool_context_reminder",
    "tool_round_limit_reminder",
    "wrap_reminder",
]

REMINDER_TAG = "<system-reminder>"
"""The tag that marks a system message as temporary."""

DEFAULT_MAX_REQUIRED_WARNINGS = 3
"""How many required-tool reminders an agent gets before it may finish anyway."""

TodoLine = tuple[int, str, str]
"""One todo as the reminder lists it: its position from 1, its status marker, its text."""


def wrap_reminder(prompts: PromptLibrary, body: str) -> Message:
    """``body`` as a reminder: a system message inside ``<system-reminder>`` tags."""
    return Message(role="system", content=prompts.render("agent/reminders/wrapper", body=body))


def interruption_reminder(prompts: PromptLibrary) -> Message:
    """The reminder sent on the first call after the user interrupted the agent (3.1)."""
    return wrap_reminder(prompts, prompts.render("agent/reminders/interruption"))


def todo_reminder(
    prompts: PromptLibrary, todos: Sequence[TodoLine], current: str | None = None
) -> Message:
    """The todo reminder sent after a user message (3.2): the empty-list nudge, or the list
    with its markers, the focus paragraph when a todo is in progress, and the housekeeping
    lines."""
    if not todos:
        return wrap_reminder(prompts, prompts.render("agent/reminders/todo_empty"))
    lines = "\n".join(
        prompts.render("agent/reminders/todo_item", index=index, marker=marker, content=content)
        for index, marker, content in todos
    )
    paragraphs = [prompts.render("agent/reminders/todo_list", todos=lines)]
    if current is not None:
        paragraphs.append(prompts.render("agent/reminders/todo_focus", content=current))
    paragraphs.append(prompts.render("agent/reminders/todo_housekeeping"))
    return wrap_reminder(prompts, "\n\n".join(paragraphs))


def tool_context_reminder(prompts: PromptLibrary, text: str) -> Message:
    """The reminder carrying the context a tool set for the next call (3.3)."""
    return wrap_reminder(prompts, text.strip("\n"))


def required_tools_reminder(prompts: PromptLibrary, tools: Iterable[str]) -> Message:
    """The reminder sent when an agent tries to finish without its required tools (3.4)."""
    return wrap_reminder(
        prompts, prompts.render("agent/reminders/required_tools", tools=", ".join(tools))
    )


def continuation_reminder(prompts: PromptLibrary) -> Message:
    """The reminder sent with the retry after a reply was cut off by an error (3.5)."""
    return wrap_reminder(prompts, prompts.render("agent/reminders/continuation"))


def text_response_reminder(prompts: PromptLibrary) -> Message:
    """The reminder sent when a reply ended the turn without text, enforcing the
    critical rule that a turn never ends with only tool calls."""
    return wrap_reminder(prompts, prompts.render("agent/reminders/text_response"))


def tool_round_limit_reminder(prompts: PromptLibrary, limit: int) -> Message:
    """The reminder sent with the last call of a turn that used all its ``limit`` tool
    rounds: no more tools, the text response now."""
    return wrap_reminder(prompts, prompts.render("agent/reminders/tool_round_limit", limit=limit))


def missing_required_tools(required: Iterable[str], called: Iterable[str]) -> tuple[str, ...]:
    """The required tools not called yet, in the order they are required."""
    done = set(called)
    return tuple(name for name in required if name not in done)


@dataclass(frozen=True, kw_only=True)
class ReminderFacts:
    """What decides which reminders one model call gets."""

    interrupted: bool = False
    """The user interrupted the previous turn (first call of the next turn only)."""
    todos: tuple[TodoLine, ...] | None = None
    """The todo list for the todo reminder; None when no todo reminder is due (specialised
    agents, or a call that does not follow a user message)."""
    current_todo: str | None = None
    """The text of the todo in progress, if any."""
    tool_context: str | None = None
    """Context a tool set for this call, if any."""
    missing_required: tuple[str, ...] = ()
    """Required tools the agent tried to finish without."""
    continuation: bool = False
    """This call retries a reply that an error cut off."""
    text_response: bool = False
    """The previous reply ended the turn without text."""
    round_limit: int | None = None
    """The turn used all this many tool rounds: the call asks for the text response (and
    replaces the text-response nudge)."""


def build_reminders(prompts: PromptLibrary, facts: ReminderFacts) -> tuple[Message, ...]:
    """The reminders due for one call, in this order: interruption, todo, tool
    context, required tools, continuation (then the tool-round limit or the text-response
    nudge)."""
    out: list[Message] = []
    if facts.interrupted:
        out.append(interruption_reminder(prompts))
    if facts.todos is not None:
        out.append(todo_reminder(prompts, facts.todos, facts.current_todo))
    if facts.tool_context:
        out.append(tool_context_reminder(prompts, facts.tool_context))
    if facts.missing_required:
        out.append(required_tools_reminder(prompts, facts.missing_required))
    if facts.continuation:
        out.append(continuation_reminder(prompts))
    if facts.round_limit is not None:
        out.append(tool_round_limit_reminder(prompts, facts.round_limit))
    elif facts.text_response:
        out.append(text_response_reminder(prompts))
    return tuple(out)


def is_reminder(message: Message) -> bool:
    """Whether ``message`` is a temporary reminder: a system message containing the tag."""
    return message.role == "system" and REMINDER_TAG in message.text


def inject_reminders(messages: Sequence[Message], reminders: Sequence[Message]) -> list[Message]:
    """The conversation with ``reminders`` appended, ready to send."""
    return [*messages, *reminders]


def remove_reminders(messages: Iterable[Message]) -> list[Message]:
    """The conversation without any reminder (the filter run after every response)."""
    return [m for m in messages if not is_reminder(m)]
