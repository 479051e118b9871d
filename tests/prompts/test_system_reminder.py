"""Seed 004's system reminder: compact EDIT/REPL rules, an optional tip, opt-in injection."""

from __future__ import annotations

from pathlib import Path

import agentprompt
from agentprompt.messages import Message
from agentprompt.prompts.system_reminder import get_system_reminder, inject_reminder


def test_reminder_holds_the_edit_repl_markers_and_rules() -> None:
    text = get_system_reminder()
    for marker in ("««« EDIT", "═══════ REPL", "»»» EDIT END", "No markdown fences"):
        assert marker in text


def test_reminder_is_shorter_than_the_system_prompt_protocol() -> None:
    from agentprompt.prompts.loader import load_system_prompt

    assert len(get_system_reminder()) < len(load_system_prompt()) / 3


def test_go_ahead_tip_is_appended_on_its_own_line() -> None:
    assert (
        get_system_reminder("Go ahead and edit.") == get_system_reminder() + "\nGo ahead and edit."
    )


def test_reminder_is_not_exported_from_the_package_root() -> None:
    assert not hasattr(agentprompt, "get_system_reminder")


def test_injection_goes_before_the_latest_user_message_only() -> None:
    messages = (
        Message(role="system", content="S"),
        Message(role="user", content="first", cache_breakpoint=True),
        Message(role="assistant", content="ok"),
        Message(role="user", content="latest"),
    )
    out = inject_reminder(messages, "tip")
    assert out[:3] == messages[:3]
    assert out[3].text == f"{get_system_reminder('tip')}\n\nlatest"


def test_injection_without_a_user_message_changes_nothing() -> None:
    messages = (Message(role="system", content="S"),)
    assert inject_reminder(messages) == messages


def test_a_project_can_override_the_reminder(tmp_path: Path) -> None:
    (tmp_path / "config" / "prompts").mkdir(parents=True)
    (tmp_path / "config" / "prompts" / "system_reminder.md").write_text("Mind the format.\n")
    assert get_system_reminder(root=tmp_path) == "Mind the format."
