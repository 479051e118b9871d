"""Saving an agent session in the project's SQLite store, and resuming it.

The stored state is plain JSON: the history (never a reminder or the system prompt, which
is regenerated), the todo list, token usage, the tool-result statistics, the interruption
flag and any pending tool context. A damaged state gives a :class:`SessionStateError`
that names the session, and the session it was to be loaded into is left untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from agentprompt.agent._reminders import remove_reminders
from agentprompt.agent.session.driver import AgentSession
from agentprompt.context.usage import ToolResultStats
from agentprompt.errors import AgentPromptError
from agentprompt.messages import Message, MessageFormatError, Role, ToolCall
from agentprompt.store import SessionRecord, Store
from agentprompt.todos import TodoError, TodoList

__all__ = [
    "SESSION_KIND",
    "STATE_VERSION",
    "SessionStateError",
    "load_session_state",
    "message_from_state",
    "message_to_state",
    "restore_session",
    "save_session",
    "session_state",
]

SESSION_KIND = "agent"
"""The store's ``kind`` for agent sessions."""

STATE_VERSION = 1
"""The layout of the stored state; a newer one is refused with a clear error."""


ROLES: tuple[str, ...] = get_args(Role)
"""The roles a stored history message may have."""


class SessionStateError(AgentPromptError):
    """A stored agent session that cannot be resumed."""


def message_to_state(message: Message) -> dict[str, Any]:
    """One history message as JSON data."""
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if not isinstance(message.content, str | None):
        data["content"] = message.text
    if message.tool_calls:
        data["tool_calls"] = [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls
        ]
    if message.tool_call_id:
        data["tool_call_id"] = message.tool_call_id
    if message.name:
        data["name"] = message.name
    if message.is_error:
        data["is_error"] = True
    return data


def message_from_state(data: Mapping[str, Any]) -> Message:
    """A history message from its JSON data; :class:`SessionStateError` when malformed."""
    try:
        if data["role"] not in ROLES:
            raise TypeError(f"role must be one of {', '.join(ROLES)}")
        content = data.get("content")
        if content is not None and not isinstance(content, str):
            raise TypeError("content must be text or null")
        return Message(
            role=data["role"],
            content=content,
            tool_calls=tuple(
                ToolCall(id=str(c["id"]), name=str(c["name"]), arguments=str(c["arguments"]))
                for c in data.get("tool_calls", ())
            ),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            is_error=bool(data.get("is_error", False)),
        )
    except (KeyError, TypeError, AttributeError, MessageFormatError) as exc:
        raise SessionStateError(f"a stored message is malformed ({exc}): {dict(data)!r}") from None


def session_state(session: AgentSession) -> dict[str, Any]:
    """Everything of ``session`` that must survive until it is resumed."""
    stats = session.tool_results
    return {
        "version": STATE_VERSION,
        "root": str(session.root),
        "profile": session.config.profile,
        "model": session.config.model,
        "history": [message_to_state(m) for m in remove_reminders(session.history)],
        "todos": session.todos.to_state(),
        "interrupted": session.interrupted,
        "tool_context": session.tool_context,
        "used_tokens": session.used_tokens,
        "tool_results": {"count": stats.count, "total_tokens": stats.total_tokens},
    }


def restore_session(session: AgentSession, state: Mapping[str, Any], *, label: str = "") -> None:
    """Load ``state`` into ``session``; nothing changes when the state is malformed."""
    name = f"session {label!r}" if label else "the stored session"
    version = state.get("version")
    if version != STATE_VERSION:
        raise SessionStateError(
            f"{name} was stored in layout {version!r}, but this agentprompt reads layout "
            f"{STATE_VERSION}; resume it with the agentprompt version that wrote it"
        )
    try:
        history = [message_from_state(m) for m in state["history"]]
        todos = TodoList.from_state(state.get("todos"))
        stats = state.get("tool_results") or {}
        results = ToolResultStats(
            count=int(stats.get("count", 0)), total_tokens=int(stats.get("total_tokens", 0))
        )
        used = int(state.get("used_tokens", 0))
        tool_context = state.get("tool_context")
        if tool_context is not None and not isinstance(tool_context, str):
            raise TypeError("tool_context must be text")
    except SessionStateError as exc:
        raise SessionStateError(f"{name} cannot be resumed: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError, TodoError) as exc:
        raise SessionStateError(
            f"{name} cannot be resumed: its stored state is malformed ({exc!r}); start a "
            "new session"
        ) from None
    session.history = history
    session.todos = todos
    session.tool_results = results
    session.used_tokens = used
    session.interrupted = bool(state.get("interrupted", False))
    session.tool_context = tool_context


def load_session_state(store: Store, session_id: str) -> SessionRecord:
    """The stored agent session ``session_id``; an error when it belongs to another runtime."""
    record = store.get_session(session_id)
    if record.kind != SESSION_KIND:
        raise SessionStateError(
            f"session {session_id!r} is a {record.kind} session, not an agent session; "
            "list agent sessions with 'agentprompt sessions list --kind agent'"
        )
    return record


def save_session(store: Store, session: AgentSession, session_id: str | None = None) -> str:
    """Store ``session`` (as a new session, or over ``session_id``) and return its id."""
    state = session_state(session)
    if session_id is None:
        return store.create_session(SESSION_KIND, state).id
    store.save_session(session_id, state)
    return session_id
