"""The todo tools change the context's todo list and show it."""

from __future__ import annotations

from collections.abc import Callable

from agentprompt.tools import ToolContext, ToolResult

Call = Callable[..., ToolResult]


def test_todo_add_with_dependencies_and_subtasks(call: Call, ctx: ToolContext) -> None:
    result = call(
        "todo_add",
        todos=[
            {"content": "Design schema", "subtasks": ["tables", "indexes"]},
            {"content": "Write API", "dependencies": [1]},
        ],
    )
    assert result.content == (
        "Added 2 todo(s).\n"
        "1. [→] t1: Design schema\n"
        "   - [○] t3: tables\n"
        "   - [○] t4: indexes\n"
        "2. [○] t2: Write API (after t1)"
    )
    assert ctx.todos.get("t2").dependencies == ("t1",)


def test_todo_add_rejects_unknown_fields(call: Call, ctx: ToolContext) -> None:
    result = call("todo_add", todos=[{"content": "x", "priority": "high"}])
    assert result.is_error and "Additional properties" in result.content
    assert len(ctx.todos) == 0


def test_todo_update_completes_and_starts_next(call: Call, ctx: ToolContext) -> None:
    call("todo_add", todos=[{"content": "a"}, {"content": "b"}])
    result = call("todo_update", id="t1", status="completed")
    assert result.content == "Updated t1.\n1. [✓] t1: a\n2. [→] t2: b"


def test_todo_update_second_in_progress_is_an_error_result(call: Call) -> None:
    call("todo_add", todos=[{"content": "a"}, {"content": "b"}])
    result = call("todo_update", id="t2", status="in_progress")
    assert result.is_error and "exactly one todo may be in_progress" in result.content


def test_todo_update_needs_a_change(call: Call) -> None:
    call("todo_add", todos=[{"content": "a"}])
    assert call("todo_update", id="t1").is_error


def test_todo_remove_clear_and_list(call: Call, ctx: ToolContext) -> None:
    call("todo_add", todos=[{"content": "a"}, {"content": "b"}])
    assert call("todo_remove", id="t2").content == "Removed t2.\n1. [→] t1: a"
    assert call("todo_list").content == "1. [→] t1: a"
    assert call("todo_clear").content == "Cleared 1 todo(s)."
    assert call("todo_list").content == "The todo list is empty."


def test_unknown_todo_id_is_an_error_naming_the_ids(call: Call) -> None:
    call("todo_add", todos=[{"content": "a"}])
    result = call("todo_remove", id="t7")
    assert result.is_error and "ids on the list: t1" in result.content


def test_deny_proposal_removes_proposed_todos(call: Call, ctx: ToolContext) -> None:
    call("todo_add", todos=[{"content": "keep"}, {"content": "plan", "status": "proposed"}])
    result = call("deny_proposal")
    assert result.content.startswith("Rejected the plan; removed 1 proposed todo(s).")
    assert [t.content for t in ctx.todos.list()] == ["keep"]
    assert call("deny_proposal").is_error
