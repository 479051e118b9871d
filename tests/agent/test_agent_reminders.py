"""Seed 001's system reminders: exact texts, order, injection and removal."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.agent._reminders import (
    ReminderFacts,
    build_reminders,
    continuation_reminder,
    inject_reminders,
    interruption_reminder,
    is_reminder,
    missing_required_tools,
    remove_reminders,
    required_tools_reminder,
    todo_reminder,
    tool_context_reminder,
)
from agentprompt.messages import Message
from agentprompt.prompts.loader import PromptLibrary

INTERRUPTION = (
    "<system-reminder>\n"
    "User interrupted. Prioritize answering their new prompt over continuing your todo list.\n"
    "After responding, reassess if the todo list is still relevant. Do not blindly continue\n"
    "with pending todos.\n"
    "</system-reminder>"
)

TODO_EMPTY = (
    "<system-reminder>\n"
    "Note: The todo list is currently empty. For complex multi-step tasks, consider using\n"
    "todo_add to track progress and stay focused. Todos provide reminders after each tool\n"
    "use and help prevent drift. For simple single-step operations, todos are optional.\n"
    "</system-reminder>"
)

TODO_LIST = (
    "<system-reminder>\n"
    "Current todos:\n"
    "1. [○] Pending task\n"
    "2. [→] In-progress task\n"
    "3. [✓] Completed task\n"
    "\n"
    'You are currently working on: "In-progress task". Stay focused on completing this\n'
    "task - don't get distracted by tangential findings in tool results unless they\n"
    "directly block your progress.\n"
    "\n"
    "Housekeeping: Keep the todo list clean and focused.\n"
    "• Remove completed tasks that are no longer relevant to the conversation\n"
    "• Remove pending tasks that are no longer needed\n"
    "• Update task descriptions if they've changed\n"
    "• Remember: when working on todos, keep exactly ONE task in_progress\n"
    "\n"
    "Update the list now if needed based on the user's request.\n"
    "</system-reminder>"
)

REQUIRED = (
    "<system-reminder>\n"
    "You must call the following required tool(s) before completing your task: "
    "tool_name_1, tool_name_2\n"
    "Please call these tools now.\n"
    "</system-reminder>"
)

CONTINUATION = (
    "<system-reminder>\n"
    "Your previous response was interrupted. Continue from where you left off.\n"
    "</system-reminder>"
)

TODOS = ((1, "○", "Pending task"), (2, "→", "In-progress task"), (3, "✓", "Completed task"))


@pytest.fixture
def prompts(tmp_path: Path) -> PromptLibrary:
    return PromptLibrary(tmp_path)


def test_interruption_reminder_is_the_fixed_text(prompts: PromptLibrary) -> None:
    message = interruption_reminder(prompts)
    assert message.role == "system"
    assert message.content == INTERRUPTION


def test_todo_reminder_for_an_empty_list_is_the_fixed_text(prompts: PromptLibrary) -> None:
    assert todo_reminder(prompts, ()).content == TODO_EMPTY


def test_todo_reminder_lists_todos_with_markers_focus_and_housekeeping(
    prompts: PromptLibrary,
) -> None:
    assert todo_reminder(prompts, TODOS, "In-progress task").content == TODO_LIST


def test_todo_reminder_leaves_out_the_focus_paragraph_when_nothing_is_in_progress(
    prompts: PromptLibrary,
) -> None:
    text = todo_reminder(prompts, ((1, "○", "Pending task"),)).text
    assert "currently working on" not in text
    assert text.startswith("<system-reminder>\nCurrent todos:\n1. [○] Pending task\n\nHousekeeping")


def test_required_tools_reminder_is_the_fixed_text(prompts: PromptLibrary) -> None:
    assert required_tools_reminder(prompts, ["tool_name_1", "tool_name_2"]).content == REQUIRED


def test_continuation_reminder_is_the_fixed_text(prompts: PromptLibrary) -> None:
    assert continuation_reminder(prompts).content == CONTINUATION


def test_tool_context_reminder_wraps_the_tools_text(prompts: PromptLibrary) -> None:
    message = tool_context_reminder(prompts, "You have just created a plan.\n")
    assert message.content == "<system-reminder>\nYou have just created a plan.\n</system-reminder>"


def test_reminders_come_in_the_fixed_order(prompts: PromptLibrary) -> None:
    facts = ReminderFacts(
        interrupted=True,
        todos=(),
        tool_context="ctx",
        missing_required=("finish",),
        continuation=True,
    )
    texts = [m.text for m in build_reminders(prompts, facts)]
    assert texts[0] == INTERRUPTION
    assert texts[1] == TODO_EMPTY
    assert "ctx" in texts[2]
    assert "finish" in texts[3]
    assert texts[4] == CONTINUATION


def test_no_reminders_are_due_by_default(prompts: PromptLibrary) -> None:
    assert build_reminders(prompts, ReminderFacts()) == ()


def test_removal_drops_only_system_messages_with_the_tag(prompts: PromptLibrary) -> None:
    history = [
        Message(role="system", content="rules"),
        Message(role="user", content="mentions <system-reminder> in user text"),
    ]
    sent = inject_reminders(history, [continuation_reminder(prompts)])
    assert is_reminder(sent[-1])
    assert remove_reminders(sent) == history


def test_missing_required_tools_keeps_the_required_order() -> None:
    assert missing_required_tools(["a", "b", "c"], ["c"]) == ("a", "b")
