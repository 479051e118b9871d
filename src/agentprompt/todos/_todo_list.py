"""The todo list an agent keeps while it works.

A :class:`TodoList` holds :class:`Todo` values (pending, in progress, completed, or proposed
by the planner), with dependencies between them and one level of subtasks. It enforces the
rule that exactly one todo is in progress while active work remains: a change that
would put two in progress is refused with :class:`TodoError`, and when the todo in progress
is completed (or none is in progress) the first pending todo whose dependencies are done is
started. Proposed todos stay out of that rule until :meth:`TodoList.accept_proposed`.
Once the user has seen a plan (:meth:`TodoList.present_proposals`), a new proposal replaces
it: a revised plan never leaves the superseded one's todos behind to be accepted with it.

The list renders its active context for the system prompt
(:meth:`TodoList.generate_active_context`) and the numbered items of the todo reminder
(:meth:`TodoList.reminder_items`), and round-trips through JSON-ready state for the session
store. It is safe to use from the batch tool's threads.
"""

from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from agentprompt.todos._rules import (
    check_todos,
    clean,
    dependency_id,
    describe_update,
    drop_todo,
    forget_dependencies,
    replace_todo,
    settle,
)
from agentprompt.todos._values import (
    MARKERS,
    Todo,
    TodoChange,
    TodoDraft,
    TodoError,
    TodoReminderItem,
    TodoStatus,
)

__all__ = ["TodoList"]

_LOG = logging.getLogger(__name__)


class TodoList:
    """The agent's todo list: the todos, the rules they obey, and a log of changes."""

    def __init__(self, todos: Iterable[Todo] = (), *, next_id: int | None = None) -> None:
        self._lock = threading.RLock()
        self._todos: builtins.list[Todo] = list(todos)
        used = [int(t.id[1:]) for t in self._all() if t.id[1:].isdigit()]
        self._next_id = next_id if next_id is not None else max(used, default=0) + 1
        self._changes: builtins.list[TodoChange] = []
        self._logged: tuple[Todo, ...] | None = None
        self._presented: frozenset[str] = frozenset()
        check_todos(self._todos)

    # reading

    def list(self) -> tuple[Todo, ...]:
        """The todos in list order."""
        with self._lock:
            return tuple(self._todos)

    def get(self, todo_id: str) -> Todo:
        """The todo with ``todo_id`` (top level or subtask); :class:`TodoError` if none."""
        with self._lock:
            for todo in self._all():
                if todo.id == todo_id:
                    return todo
            known = ", ".join(t.id for t in self._all()) or "none"
            raise TodoError(f"no todo has id {todo_id!r} (ids on the list: {known})")

    def in_progress(self) -> Todo | None:
        """The top-level todo being worked on, if any."""
        with self._lock:
            return next((t for t in self._todos if t.status == "in_progress"), None)

    @property
    def changes(self) -> tuple[TodoChange, ...]:
        """Every change made through this list, oldest first."""
        with self._lock:
            return tuple(self._changes)

    def __len__(self) -> int:
        with self._lock:
            return len(self._todos)

    # changing

    def add(
        self,
        content: str,
        *,
        status: TodoStatus = "pending",
        dependencies: Sequence[str] = (),
        subtasks: Sequence[str] = (),
    ) -> Todo:
        """Add a todo at the end; returns it as stored (perhaps started, see the module)."""
        draft = TodoDraft(
            content=content,
            status=status,
            dependencies=tuple(dependencies),
            subtasks=tuple(subtasks),
        )
        return self.add_many([draft])[0]

    def add_many(self, drafts: Sequence[TodoDraft]) -> tuple[Todo, ...]:
        """Add several todos at once, all or none; returns them as stored."""
        with self._lock:
            new: builtins.list[Todo] = []
            next_id = self._next_id
            ids = [f"t{next_id + i}" for i in range(len(drafts))]
            next_id += len(drafts)
            for todo_id, draft in zip(ids, drafts, strict=True):
                subs = []
                for sub in draft.subtasks:
                    subs.append(Todo(id=f"t{next_id}", content=clean(sub), status="pending"))
                    next_id += 1
                deps = tuple(dependency_id(d, ids) for d in draft.dependencies)
                new.append(
                    Todo(
                        id=todo_id,
                        content=clean(draft.content),
                        status=draft.status,
                        dependencies=deps,
                        subtasks=tuple(subs),
                    )
                )
            entries: builtins.list[tuple[str, str | None, str]] = [
                ("add", t.id, f"added {t.id} [{t.status}] {t.content}") for t in new
            ]
            kept = self._todos
            if any(t.status == "proposed" for t in new):
                kept, superseded, gone = self._without_presented_plan()
                if superseded:
                    new = forget_dependencies(new, gone)
                    detail = f"replaced {superseded} proposed todo(s) of the previous plan"
                    entries.insert(0, ("supersede", None, detail))
            self._commit(settle([*kept, *new]), entries, {t.id: t.status for t in new})
            self._next_id = next_id
            return tuple(t for t in self._todos if t.id in set(ids))

    def update(
        self, todo_id: str, *, status: TodoStatus | None = None, content: str | None = None
    ) -> Todo:
        """Change a todo's status or text; returns it as stored."""
        with self._lock:
            old = self.get(todo_id)
            new = replace(
                old,
                status=old.status if status is None else status,
                content=old.content if content is None else clean(content),
            )
            skip = todo_id if new.status == "pending" else None
            entry = ("update", todo_id, describe_update(old, new))
            asked = {todo_id: status} if status is not None else None
            self._commit(settle(replace_todo(self._todos, new), skip), [entry], asked)
            return self.get(todo_id)

    def remove(self, todo_id: str) -> Todo:
        """Remove a todo (or a subtask); returns what was removed."""
        with self._lock:
            old = self.get(todo_id)
            dependants = [t.id for t in self._all() if todo_id in t.dependencies]
            if dependants:
                raise TodoError(
                    f"todo {todo_id} cannot be removed: {', '.join(dependants)} depend on it; "
                    "remove or complete those first"
                )
            entry = ("remove", todo_id, f"removed {todo_id} {old.content}")
            self._commit(settle(drop_todo(self._todos, todo_id)), [entry])
            return old

    def clear(self) -> int:
        """Remove every todo; returns how many there were."""
        with self._lock:
            count = len(self._todos)
            self._todos = []
            self._record("clear", None, f"cleared {count} todo(s)")
            return count

    def accept_proposed(self) -> tuple[Todo, ...]:
        """Make every proposed todo pending (the user accepted the plan); returns them."""
        with self._lock:
            ids = {t.id for t in self._todos if t.status == "proposed"}
            if not ids:
                return ()
            candidate = [replace(t, status="pending") if t.id in ids else t for t in self._todos]
            entry = ("accept", None, f"accepted {len(ids)} proposed todo(s)")
            self._commit(settle(candidate), [entry])
            return tuple(t for t in self._todos if t.id in ids)

    def proposed_ids(self) -> frozenset[str]:
        """The ids of the todos still proposed (a plan the user has not answered yet)."""
        with self._lock:
            return frozenset(t.id for t in self._todos if t.status == "proposed")

    def present_proposals(self) -> frozenset[str]:
        """Mark the proposed todos as seen by the user (a user message arrived after them)
        and return their ids: a plan proposed from now on replaces them instead of joining
        them, so accepting the revision never activates the plan it revised."""
        with self._lock:
            self._presented = self.proposed_ids()
            return self._presented

    def accept_seen_proposals(self, seen: frozenset[str]) -> tuple[Todo, ...]:
        """Accept the plan ``seen`` (the ids proposed when the user's message came) if the
        answer left it as it was: no ``deny_proposal``, no new plan."""
        return self.accept_proposed() if seen and self.proposed_ids() == seen else ()

    def deny_proposed(self) -> tuple[Todo, ...]:
        """Remove (and return) the proposed todos, a rejected plan; their dependants stay."""
        with self._lock:
            if not (denied := tuple(t for t in self._todos if t.status == "proposed")):
                return denied
            gone = frozenset(x.id for t in denied for x in (t, *t.subtasks))
            kept = forget_dependencies([t for t in self._todos if t.status != "proposed"], gone)
            self._commit(settle(kept), [("deny", None, f"rejected {len(denied)} proposed todo(s)")])
            return denied

    # rendering

    def generate_active_context(self) -> str:
        """The todo summary for the system prompt, or ``""`` for an empty list::

        📋 Active Todos (3/5 completed):
        → Currently working on: "Implement user authentication"
        ○ Pending: "Write tests for auth system"
        """
        with self._lock:
            active = [t for t in self._todos if t.status != "proposed"]
            proposed = [t for t in self._todos if t.status == "proposed"]
            if not active and not proposed:
                return ""
            done = sum(t.status == "completed" for t in active)
            lines = [f"📋 Active Todos ({done}/{len(active)} completed):"]
            for todo in active:
                if todo.status == "in_progress":
                    lines.append(f'→ Currently working on: "{todo.content}"')
                    lines.extend(
                        f'  {MARKERS[s.status]} Subtask: "{s.content}"' for s in todo.subtasks
                    )
            lines.extend(f'○ Pending: "{t.content}"' for t in active if t.status == "pending")
            lines.extend(f'◇ Proposed: "{t.content}"' for t in proposed)
            return "\n".join(lines)

    def reminder_items(self) -> tuple[TodoReminderItem, ...]:
        """The numbered items of the todo reminder, in list order."""
        with self._lock:
            return tuple(
                (i, MARKERS[t.status], t.content) for i, t in enumerate(self._todos, start=1)
            )

    def render(self) -> str:
        """The list as the todo tools show it: one line per todo with id and status."""
        with self._lock:
            if not self._todos:
                return "The todo list is empty."
            lines = []
            for i, todo in enumerate(self._todos, start=1):
                deps = f" (after {', '.join(todo.dependencies)})" if todo.dependencies else ""
                lines.append(f"{i}. [{MARKERS[todo.status]}] {todo.id}: {todo.content}{deps}")
                lines.extend(
                    f"   - [{MARKERS[s.status]}] {s.id}: {s.content}" for s in todo.subtasks
                )
            return "\n".join(lines)

    def log_if_changed(self) -> str | None:
        """Log the list (at INFO) when it changed since the last call; returns what was
        logged, or None when nothing changed (so the list is logged once per turn)."""
        with self._lock:
            current = tuple(self._todos)
            if current == self._logged:
                return None
            self._logged = current
            text = self.render()
            _LOG.info("todos:\n%s", text)
            return text

    # persistence

    def to_state(self) -> dict[str, Any]:
        """The list as JSON-ready data for the session store."""
        with self._lock:
            return {"next_id": self._next_id, "todos": [t.to_state() for t in self._todos]}

    @classmethod
    def from_state(cls, state: Mapping[str, Any] | None) -> TodoList:
        """A list from :meth:`to_state` data (None gives an empty list)."""
        if not state:
            return cls()
        try:
            todos = [Todo.from_state(t) for t in state.get("todos", ())]
            next_id = state.get("next_id")
        except (TypeError, AttributeError) as exc:
            raise TodoError(f"stored todo list is malformed ({exc!r})") from None
        return cls(todos, next_id=int(next_id) if isinstance(next_id, int) else None)

    # internals

    def _all(self) -> builtins.list[Todo]:
        return [x for t in self._todos for x in (t, *t.subtasks)]

    def _without_presented_plan(
        self,
    ) -> tuple[builtins.list[Todo], int, frozenset[str]]:
        """The list without the still-proposed todos the user has seen (a new plan replaces
        them), how many were dropped, and the ids gone with them (subtasks included)."""
        stale = frozenset(
            t.id for t in self._todos if t.status == "proposed" and t.id in self._presented
        )
        if not stale:
            return self._todos, 0, frozenset()
        gone = frozenset(x.id for t in self._todos if t.id in stale for x in (t, *t.subtasks))
        self._presented = self._presented - stale
        kept = forget_dependencies([t for t in self._todos if t.id not in stale], gone)
        return kept, len(stale), gone

    def _record(self, action: str, todo_id: str | None, detail: str) -> None:
        self._changes.append(TodoChange(action=action, todo_id=todo_id, detail=detail))

    def _commit(
        self,
        candidate: builtins.list[Todo],
        entries: Sequence[tuple[str, str | None, str]],
        requested: Mapping[str, TodoStatus] | None = None,
    ) -> None:
        """Check and store ``candidate``, log ``entries``, and log each todo the rules
        started on their own (one not ``requested`` in progress and not so before)."""
        check_todos(candidate)
        before: dict[str, str] = {t.id: t.status for t in self._todos}
        before.update(requested or {})
        self._todos = candidate
        for action, todo_id, detail in entries:
            self._record(action, todo_id, detail)
        for todo in candidate:
            if todo.status == "in_progress" and before.get(todo.id) != "in_progress":
                self._record("start", todo.id, f"started {todo.id} {todo.content}")
