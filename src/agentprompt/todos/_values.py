"""The values of a todo list: a todo, its status and markers, a draft, a logged change,
and the error a refused change raises."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from agentprompt.errors import AgentPromptError

__all__ = [
    "MARKERS",
    "STATUSES",
    "Todo",
    "TodoChange",
    "TodoDraft",
    "TodoError",
    "TodoReminderItem",
    "TodoStatus",
]


class TodoError(AgentPromptError):
    """A todo change that cannot be made; the message says what to do instead."""


TodoStatus = Literal["pending", "in_progress", "completed", "proposed"]
"""Where a todo stands: waiting, being worked on, done, or drafted by the planner."""

STATUSES: tuple[TodoStatus, ...] = get_args(TodoStatus)
"""Every status, in the order the type declares them."""

MARKERS: Mapping[TodoStatus, str] = {
    "pending": "○",
    "in_progress": "→",
    "completed": "✓",
    "proposed": "◇",
}
"""The marker shown before a todo in the reminder and the active context."""


@dataclass(frozen=True, kw_only=True)
class Todo:
    """One task on the list."""

    id: str
    """A short stable identifier (``t1``, ``t2``, ...) the todo tools refer to."""
    content: str
    """What is to be done, in one line."""
    status: TodoStatus = "pending"
    """Where the task stands."""
    dependencies: tuple[str, ...] = ()
    """Ids of todos that must be completed before this one can start."""
    subtasks: tuple[Todo, ...] = ()
    """Smaller steps of this task (one level deep), each with its own status."""

    def to_state(self) -> dict[str, Any]:
        """The todo as JSON-ready data."""
        return {
            "id": self.id,
            "content": self.content,
            "status": self.status,
            "dependencies": list(self.dependencies),
            "subtasks": [s.to_state() for s in self.subtasks],
        }

    @classmethod
    def from_state(cls, data: Mapping[str, Any]) -> Todo:
        """A todo from :meth:`to_state` data; :class:`TodoError` when it is malformed."""
        try:
            status = data.get("status", "pending")
            if status not in STATUSES:
                raise TodoError(f"stored todo has unknown status {status!r}")
            return cls(
                id=str(data["id"]),
                content=str(data["content"]),
                status=cast(TodoStatus, status),
                dependencies=tuple(str(d) for d in data.get("dependencies", ())),
                subtasks=tuple(cls.from_state(s) for s in data.get("subtasks", ())),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise TodoError(f"stored todo state is malformed ({exc!r}): {data!r}") from None


TodoReminderItem = tuple[int, str, str]
"""One numbered line of the todo reminder: its position from 1, its marker, its text."""


@dataclass(frozen=True, kw_only=True)
class TodoDraft:
    """A todo to add, before it has an id."""

    content: str
    """What is to be done, in one line."""
    status: TodoStatus = "pending"
    """The status to add it with (``proposed`` for the planner's drafts)."""
    dependencies: tuple[str | int, ...] = ()
    """Ids of todos on the list, or 1-based positions of drafts added in the same call."""
    subtasks: tuple[str, ...] = ()
    """The texts of its subtasks, added as pending."""


@dataclass(frozen=True, kw_only=True)
class TodoChange:
    """One entry of the list's change log."""

    action: str
    """What happened: ``add``, ``update``, ``remove``, ``clear``, ``start``, ``accept``,
    ``deny`` or ``supersede``."""
    todo_id: str | None
    """The todo it concerns, or None for changes to the whole list."""
    detail: str
    """A one-line description of the change."""
