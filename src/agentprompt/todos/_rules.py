"""The rules a todo list obeys, as pure functions over tuples of todos.

:func:`check_todos` refuses a list that breaks a rule (unique ids, known and acyclic
dependencies, dependencies done before a todo starts, at most one todo in progress) with a
:class:`TodoError` that names the rule and the fix; :func:`settle` starts the next ready todo
when none is in progress. :class:`~agentprompt.todos.TodoList` applies them on every change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agentprompt.todos._values import Todo, TodoError

__all__ = [
    "check_cycles",
    "check_todos",
    "clean",
    "dependency_id",
    "describe_update",
    "drop_todo",
    "replace_todo",
    "settle",
]


def check_todos(todos: Sequence[Todo]) -> None:
    """Refuse a list that breaks a rule, naming the rule and the fix."""
    every = [x for t in todos for x in (t, *t.subtasks)]
    ids = [t.id for t in every]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise TodoError(f"todo ids must be unique; repeated: {', '.join(dupes)}")
    known = set(ids)
    by_id = {t.id: t for t in every}
    for todo in every:
        if not todo.content:
            raise TodoError(f"todo {todo.id} has no text; describe the task in one line")
        missing = [d for d in todo.dependencies if d not in known]
        if missing:
            raise TodoError(
                f"todo {todo.id} depends on {', '.join(missing)}, which is not on the list "
                f"(ids on the list: {', '.join(sorted(known)) or 'none'})"
            )
        if todo.id in todo.dependencies:
            raise TodoError(f"todo {todo.id} cannot depend on itself")
        if todo.status in ("in_progress", "completed"):
            open_deps = [d for d in todo.dependencies if by_id[d].status != "completed"]
            if open_deps:
                raise TodoError(
                    f"todo {todo.id} cannot be {todo.status} before its dependencies "
                    f"{', '.join(open_deps)} are completed; complete them first"
                )
    check_cycles(every)
    started = [t.id for t in todos if t.status == "in_progress"]
    if len(started) > 1:
        raise TodoError(
            "exactly one todo may be in_progress at a time, but this change would start "
            f"{', '.join(started)}; set the current one to completed or pending first"
        )
    for todo in todos:
        for sub in todo.subtasks:
            if sub.status == "proposed":
                raise TodoError(f"subtask {sub.id} cannot be proposed; only todos can")


def settle(todos: list[Todo], skip: str | None = None) -> list[Todo]:
    """Start the first ready pending todo when active work remains and none is started
    (``skip``: a todo just set back to pending on purpose, which is not restarted)."""
    if any(t.status == "in_progress" for t in todos):
        return todos
    done = {t.id for t in todos if t.status == "completed"}
    for i, todo in enumerate(todos):
        if todo.id != skip and todo.status == "pending" and set(todo.dependencies) <= done:
            return [*todos[:i], replace(todo, status="in_progress"), *todos[i + 1 :]]
    return todos


def check_cycles(todos: Sequence[Todo]) -> None:
    deps = {t.id: t.dependencies for t in todos}
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        if state.get(node) == 2:
            return
        if state.get(node) == 1:
            loop = " -> ".join([*path[path.index(node) :], node])
            raise TodoError(f"todo dependencies form a cycle ({loop}); remove one dependency")
        state[node] = 1
        for dep in deps.get(node, ()):
            visit(dep, [*path, node])
        state[node] = 2

    for node in deps:
        visit(node, [])


def dependency_id(dependency: str | int, batch: Sequence[str]) -> str:
    """A dependency as an id: positions (1-based) refer to the todos added in one call."""
    if isinstance(dependency, int):
        if not 1 <= dependency <= len(batch):
            raise TodoError(
                f"dependency {dependency} is not a position among the {len(batch)} todo(s) "
                "added in this call; give a todo id (t1) or a position from 1"
            )
        return batch[dependency - 1]
    return str(dependency)


def clean(text: str) -> str:
    """A todo's text on one line, trimmed."""
    return " ".join(str(text).split())


def replace_todo(todos: Sequence[Todo], new: Todo) -> list[Todo]:
    out = []
    for todo in todos:
        if todo.id == new.id:
            out.append(new)
        elif any(s.id == new.id for s in todo.subtasks):
            out.append(
                replace(todo, subtasks=tuple(new if s.id == new.id else s for s in todo.subtasks))
            )
        else:
            out.append(todo)
    return out


def forget_dependencies(todos: Sequence[Todo], gone: frozenset[str]) -> list[Todo]:
    """``todos`` (and their subtasks) no longer depending on the todos ``gone``."""

    def without(todo: Todo) -> Todo:
        deps = tuple(d for d in todo.dependencies if d not in gone)
        subtasks = tuple(without(s) for s in todo.subtasks)
        if deps == todo.dependencies and subtasks == todo.subtasks:
            return todo
        return replace(todo, dependencies=deps, subtasks=subtasks)

    return [without(t) for t in todos]


def drop_todo(todos: Sequence[Todo], todo_id: str) -> list[Todo]:
    return [
        replace(t, subtasks=tuple(s for s in t.subtasks if s.id != todo_id))
        for t in todos
        if t.id != todo_id
    ]


def describe_update(old: Todo, new: Todo) -> str:
    parts = []
    if old.status != new.status:
        parts.append(f"{old.status} -> {new.status}")
    if old.content != new.content:
        parts.append(f"text {old.content!r} -> {new.content!r}")
    return f"updated {old.id}: {'; '.join(parts) or 'no change'}"
