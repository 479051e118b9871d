"""The todo list: statuses, the one-in-progress rule, dependencies, rendering, persistence."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.todos import Todo, TodoDraft, TodoError, TodoList


def three() -> TodoList:
    todos = TodoList()
    todos.add("Implement user authentication")
    todos.add("Write tests for auth system")
    todos.add("Update documentation")
    return todos


def test_first_added_todo_is_started_when_none_is_in_progress() -> None:
    todos = three()
    assert [t.status for t in todos.list()] == ["in_progress", "pending", "pending"]


def test_ids_are_sequential_and_stable() -> None:
    todos = three()
    todos.remove("t3")
    added = todos.add("Another")
    assert [t.id for t in todos.list()] == ["t1", "t2", "t4"]
    assert added.id == "t4"


def test_second_in_progress_is_refused_with_instruction() -> None:
    todos = three()
    with pytest.raises(TodoError, match="exactly one todo may be in_progress"):
        todos.update("t2", status="in_progress")
    assert todos.get("t2").status == "pending"


def test_completing_current_todo_starts_next_ready_one() -> None:
    todos = three()
    todos.update("t1", status="completed")
    assert todos.in_progress() == todos.get("t2")
    assert [c.action for c in todos.changes][-2:] == ["update", "start"]


def test_setting_current_back_to_pending_does_not_restart_it() -> None:
    todos = three()
    todos.update("t1", status="pending")
    assert todos.get("t1").status == "pending"
    assert todos.get("t2").status == "in_progress"


def test_dependency_must_be_completed_before_start() -> None:
    todos = TodoList()
    todos.add_many([TodoDraft(content="schema", status="completed"), TodoDraft(content="api")])
    todos.add("docs", dependencies=["t2"])
    todos.update("t2", status="pending")
    with pytest.raises(TodoError, match="dependencies t2 are completed"):
        todos.update("t3", status="in_progress")


def test_dependency_by_position_in_same_call() -> None:
    todos = TodoList()
    added = todos.add_many([TodoDraft(content="a"), TodoDraft(content="b", dependencies=(1,))])
    assert added[1].dependencies == ("t1",)


def test_unknown_dependency_is_refused_and_list_unchanged() -> None:
    todos = three()
    with pytest.raises(TodoError, match="depends on t9"):
        todos.add("x", dependencies=["t9"])
    assert len(todos) == 3


def test_dependency_cycle_is_refused() -> None:
    with pytest.raises(TodoError, match="cycle"):
        TodoList(
            [
                Todo(id="t1", content="a", dependencies=("t2",)),
                Todo(id="t2", content="b", dependencies=("t1",)),
            ]
        )


def test_removing_a_dependency_of_another_todo_is_refused() -> None:
    todos = TodoList()
    todos.add_many([TodoDraft(content="a"), TodoDraft(content="b", dependencies=(1,))])
    with pytest.raises(TodoError, match="t2 depend on it"):
        todos.remove("t1")


def test_subtasks_get_ids_and_can_be_updated() -> None:
    todos = TodoList()
    todo = todos.add("feature", subtasks=["model", "view"])
    assert [s.id for s in todo.subtasks] == ["t2", "t3"]
    todos.update("t2", status="completed")
    assert todos.get("t1").subtasks[0].status == "completed"


def test_active_context_has_the_fixed_format() -> None:
    todos = TodoList()
    todos.add_many([TodoDraft(content="Set up", status="completed") for _ in range(2)])
    todos.add("Implement user authentication")
    todos.add("Write tests for auth system")
    todos.add("Update documentation")
    assert todos.generate_active_context() == (
        "📋 Active Todos (2/5 completed):\n"
        '→ Currently working on: "Implement user authentication"\n'
        '○ Pending: "Write tests for auth system"\n'
        '○ Pending: "Update documentation"'
    )


def test_active_context_is_empty_for_empty_list() -> None:
    assert TodoList().generate_active_context() == ""


def test_reminder_items_carry_the_status_markers() -> None:
    todos = three()
    todos.update("t1", status="completed")
    assert todos.reminder_items() == (
        (1, "✓", "Implement user authentication"),
        (2, "→", "Write tests for auth system"),
        (3, "○", "Update documentation"),
    )


def test_proposed_todos_are_not_started_until_accepted() -> None:
    todos = TodoList()
    todos.add("plan step one", status="proposed")
    todos.add("plan step two", status="proposed")
    assert todos.in_progress() is None
    assert '◇ Proposed: "plan step one"' in todos.generate_active_context()
    todos.accept_proposed()
    assert [t.status for t in todos.list()] == ["in_progress", "pending"]


def test_denying_proposal_removes_only_proposed() -> None:
    todos = three()
    todos.add("maybe", status="proposed")
    denied = todos.deny_proposed()
    assert [t.content for t in denied] == ["maybe"]
    assert len(todos) == 3


def test_state_round_trips_through_json() -> None:
    todos = three()
    todos.add("feature", subtasks=["part"], dependencies=["t1"])
    state = json.loads(json.dumps(todos.to_state()))
    again = TodoList.from_state(state)
    assert again.list() == todos.list()
    assert again.add("next").id == todos.add("next").id


def test_malformed_state_is_a_clear_error() -> None:
    with pytest.raises(TodoError, match="malformed"):
        TodoList.from_state({"todos": [{"content": "no id"}]})
    with pytest.raises(TodoError, match="unknown status"):
        TodoList.from_state({"todos": [{"id": "t1", "content": "x", "status": "done"}]})


def test_change_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    todos = three()
    with caplog.at_level(logging.INFO, logger="agentprompt.todos._todo_list"):
        assert todos.log_if_changed() is not None
        assert todos.log_if_changed() is None
        todos.update("t1", content="Implement login")
        assert "Implement login" in (todos.log_if_changed() or "")
    assert len(caplog.records) == 2


def test_empty_content_is_refused() -> None:
    with pytest.raises(TodoError, match="no text"):
        TodoList().add("   ")


def test_clear_empties_the_list() -> None:
    todos = three()
    assert todos.clear() == 3
    assert todos.list() == ()


OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["add", "update", "remove", "accept", "deny"]),
        st.integers(min_value=1, max_value=6),
        st.sampled_from(["pending", "in_progress", "completed", "proposed"]),
    ),
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(OPERATIONS)
def test_any_sequence_of_changes_keeps_the_rules(operations: list[tuple[str, int, str]]) -> None:
    todos = TodoList()
    for action, n, status in operations:
        before = todos.to_state()
        try:
            if action == "add":
                deps = [f"t{n}"] if n % 2 else []
                todos.add(f"task {n}", status=status, dependencies=deps)  # type: ignore[arg-type]
            elif action == "update":
                todos.update(f"t{n}", status=status)  # type: ignore[arg-type]
            elif action == "remove":
                todos.remove(f"t{n}")
            elif action == "accept":
                todos.accept_proposed()
            else:
                todos.deny_proposed()
        except TodoError:
            assert todos.to_state() == before
        items = todos.list()
        assert sum(t.status == "in_progress" for t in items) <= 1
        active = [t for t in items if t.status in ("pending", "in_progress")]
        ready = [
            t for t in active if all(todos.get(d).status == "completed" for d in t.dependencies)
        ]
        if ready and not any(t.status == "in_progress" for t in items):
            assert any(c.action == "update" and "-> pending" in c.detail for c in todos.changes)
        assert TodoList.from_state(todos.to_state()).list() == items


def test_change_log_names_automatic_starts_only() -> None:
    todos = three()
    todos.update("t1", content="Implement login")
    todos.update("t1", status="completed")
    assert [(c.action, c.todo_id) for c in todos.changes] == [
        ("add", "t1"),
        ("start", "t1"),
        ("add", "t2"),
        ("add", "t3"),
        ("update", "t1"),
        ("update", "t1"),
        ("start", "t2"),
    ]


def test_a_seen_plan_is_accepted_when_it_is_still_proposed() -> None:
    todos = TodoList()
    todos.add("plan step one", status="proposed")
    seen = todos.proposed_ids()
    accepted = todos.accept_seen_proposals(seen)
    assert [t.content for t in accepted] == ["plan step one"]
    assert [t.status for t in todos.list()] == ["in_progress"]


def test_a_plan_not_yet_seen_or_replaced_is_not_accepted() -> None:
    todos = TodoList()
    todos.add("old step", status="proposed")
    assert todos.accept_seen_proposals(frozenset()) == ()
    seen = todos.proposed_ids()
    todos.add("new step", status="proposed")
    assert todos.accept_seen_proposals(seen) == ()
    assert {t.status for t in todos.list()} == {"proposed"}


def test_denying_a_plan_frees_the_todos_that_waited_for_it() -> None:
    # Found by the property test below: a kept todo depending on a rejected one broke get().
    todos = TodoList()
    first = todos.add("plan step", status="proposed")
    waiting = todos.add("after the plan", dependencies=[first.id])
    todos.deny_proposed()
    kept = todos.get(waiting.id)
    assert kept.dependencies == ()
    assert kept.status == "in_progress"
    assert [t.id for t in todos.list()] == [waiting.id]


def test_a_plan_proposed_after_the_user_saw_one_replaces_it() -> None:
    todos = TodoList()
    todos.add("old step", status="proposed")
    todos.add("old follow-up", status="proposed", dependencies=["t1"])
    seen = todos.present_proposals()
    todos.add_many(
        [
            TodoDraft(content="new step", status="proposed"),
            TodoDraft(content="new follow-up", status="proposed", dependencies=(1, "t1")),
        ]
    )
    assert [(t.content, t.status, t.dependencies) for t in todos.list()] == [
        ("new step", "proposed", ()),
        ("new follow-up", "proposed", ("t3",)),
    ]
    assert todos.accept_seen_proposals(seen) == ()
    assert [c.action for c in todos.changes][-3:] == ["supersede", "add", "add"]


def test_proposals_of_one_plan_made_in_several_calls_all_stay() -> None:
    todos = TodoList()
    todos.present_proposals()
    todos.add("first", status="proposed")
    todos.add("second", status="proposed")
    assert [t.content for t in todos.list()] == ["first", "second"]
