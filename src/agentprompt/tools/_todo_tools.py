"""The todo tools: add, update, remove, clear and list todos, and deny a proposed plan.

They change the :class:`~agentprompt.todos.TodoList` in the tool context; the session
shows the list's new state in the next system prompt and todo reminder. Each returns the
list as it now stands, so the model sees ids and statuses.
"""

from __future__ import annotations

from typing import Any, cast

from agentprompt.todos import STATUSES, TodoDraft, TodoStatus
from agentprompt.tools.context import ToolContext, ToolFailure

__all__ = ["deny_proposal", "todo_add", "todo_clear", "todo_list", "todo_remove", "todo_update"]


def _draft(item: dict[str, Any], *, propose: bool = False) -> TodoDraft:
    status = item.get("status", "pending")
    if status not in STATUSES:
        raise ToolFailure(f"status {status!r} is not one of {', '.join(STATUSES)}")
    if propose:
        status = "proposed"
    return TodoDraft(
        content=str(item["content"]),
        status=cast(TodoStatus, status),
        dependencies=tuple(item.get("dependencies", ())),
        subtasks=tuple(str(s) for s in item.get("subtasks", ())),
    )


def todo_add(ctx: ToolContext, todos: list[dict[str, Any]]) -> str:
    """Add todos to the list.

    Args:
        todos: The todos to add, in order.
    """
    propose = ctx.policy.propose_todos
    added = ctx.todos.add_many([_draft(item, propose=propose) for item in todos])
    return f"Added {len(added)} todo(s).\n{ctx.todos.render()}"


def todo_update(
    ctx: ToolContext,
    id: str,
    status: TodoStatus | None = None,
    content: str | None = None,
) -> str:
    """Change a todo's status or text.

    Args:
        id: The todo's id (t1, t2, ...).
        status: The new status.
        content: The new text.
    """
    if status is None and content is None:
        raise ToolFailure("give a status or a content to change")
    todo = ctx.todos.update(id, status=status, content=content)
    return f"Updated {todo.id}.\n{ctx.todos.render()}"


def todo_remove(ctx: ToolContext, id: str) -> str:
    """Remove a todo from the list.

    Args:
        id: The todo's id (t1, t2, ...).
    """
    todo = ctx.todos.remove(id)
    return f"Removed {todo.id}.\n{ctx.todos.render()}"


def todo_clear(ctx: ToolContext) -> str:
    """Remove every todo from the list."""
    count = ctx.todos.clear()
    return f"Cleared {count} todo(s)."


def todo_list(ctx: ToolContext) -> str:
    """Show the todo list with ids and statuses."""
    return ctx.todos.render()


def deny_proposal(ctx: ToolContext) -> str:
    """Reject the proposed plan: remove every proposed todo."""
    denied = ctx.todos.deny_proposed()
    if not denied:
        raise ToolFailure("there are no proposed todos to reject")
    return f"Rejected the plan; removed {len(denied)} proposed todo(s).\n{ctx.todos.render()}"
