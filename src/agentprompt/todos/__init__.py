"""The todo list an agent keeps while it works: the todos (:mod:`.values`), the rules they
obey (:mod:`.rules`) and the list that applies them (:class:`TodoList`).

It sits below the tools and the agent, which both use it: the todo tools change the list in
the tool context, and the session stores it and shows it in the prompt.

Errors::

    AgentPromptError
    └── TodoError   a todo change that cannot be made; the message says what to do instead
"""

from agentprompt.todos._todo_list import TodoList
from agentprompt.todos._values import (
    MARKERS,
    STATUSES,
    Todo,
    TodoChange,
    TodoDraft,
    TodoError,
    TodoReminderItem,
    TodoStatus,
)

__all__ = [
    "MARKERS",
    "STATUSES",
    "Todo",
    "TodoChange",
    "TodoDraft",
    "TodoError",
    "TodoList",
    "TodoReminderItem",
    "TodoStatus",
]
