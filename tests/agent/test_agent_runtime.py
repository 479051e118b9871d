"""The reference runtime: facts regenerated into each call, thresholds, todos."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

from agentprompt.agent.runtime import create_session
from agentprompt.agent.session.values import SessionConfig
from agentprompt.llm._testing import ScriptedModel
from agentprompt.llm.base import ModelReply, Usage
from agentprompt.messages import ToolCall

NOW = dt.datetime(2026, 1, 2, 3, 4, 5)
HIGH = "⚠️ Context usage is high. Start wrapping up or use compaction."


def _call(name: str, **args: object) -> ModelReply:
    return ModelReply(
        tool_calls=(ToolCall(id=f"id-{name}", name=name, arguments=json.dumps(args)),)
    )


def _high_usage(text: str) -> ModelReply:
    return ModelReply(text=text, usage=Usage(input_tokens=8600))


def test_the_85_percent_warning_is_in_the_tail_of_the_next_call(tmp_path: Path) -> None:
    model = ScriptedModel([_high_usage("a"), "b"])
    config = SessionConfig(context_size=10_000)
    session = create_session(client=model, root=tmp_path, config=config, clock=lambda: NOW)
    session.run_turn("one")
    session.run_turn("two")
    first, second = model.requests
    assert HIGH not in first.messages[-2].text
    assert "- Context Usage: 86% (~" in second.messages[-2].text
    assert HIGH in second.messages[-2].text
    assert HIGH not in second.messages[0].text


def test_the_ally_profile_regenerates_the_warning_into_the_first_message(
    tmp_path: Path,
) -> None:
    model = ScriptedModel([_high_usage("a"), "b"])
    config = SessionConfig(context_size=10_000, profile="ally")
    session = create_session(client=model, root=tmp_path, config=config, clock=lambda: NOW)
    session.run_turn("one")
    session.run_turn("two")
    assert HIGH in model.requests[1].messages[0].text


def test_an_appended_instruction_is_in_the_next_calls_system_prompt(tmp_path: Path) -> None:
    model = ScriptedModel([_call("instructions_append", text="Use tabs."), "Noted."])
    session = create_session(client=model, root=tmp_path, clock=lambda: NOW)
    session.run_turn("remember: tabs")
    assert "Use tabs." not in model.requests[0].messages[0].text
    assert "Use tabs." in model.requests[1].messages[0].text


def test_todos_show_in_the_turn_facts_and_the_next_todo_reminder(tmp_path: Path) -> None:
    todos = [{"content": "Write the parser", "status": "in_progress"}, {"content": "Test it"}]
    model = ScriptedModel([_call("todo_add", todos=todos), "Added.", "ok"])
    session = create_session(client=model, root=tmp_path, clock=lambda: NOW)
    session.run_turn("plan the work")
    assert '→ Currently working on: "Write the parser"' in model.requests[1].messages[-1].text
    session.run_turn("go on")
    reminder = model.requests[2].messages[-1].text
    assert "1. [→] Write the parser\n2. [○] Test it" in reminder
    assert 'You are currently working on: "Write the parser".' in reminder


def _nested_instructions(root: Path) -> Path:
    (root / "pkg").mkdir()
    (root / "AGENTS.md").write_text("Root rule.\n")
    (root / "pkg" / "AGENTS.md").write_text("Package rule.\n")
    (root / "pkg" / "ALLY.md").write_text("Ally rule of pkg.\n")
    return root / "pkg"


def test_a_session_run_from_a_subdirectory_reads_its_instruction_files(tmp_path: Path) -> None:
    pkg = _nested_instructions(tmp_path)
    model = ScriptedModel(["ok"])
    session = create_session(client=model, root=tmp_path, clock=lambda: NOW, cwd=pkg)
    session.run_turn("hi")
    system = model.requests[0].messages[0].text
    assert system.index("Root rule.") < system.index("Package rule.")
    assert "Ally rule of pkg." in system
    assert f"- Working Directory: {pkg}" in system


def test_a_working_directory_outside_the_root_falls_back_to_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "AGENTS.md").write_text("Root rule.\n")
    model = ScriptedModel(["ok"])
    session = create_session(client=model, root=root, clock=lambda: NOW, cwd=tmp_path)
    session.run_turn("hi")
    system = model.requests[0].messages[0].text
    assert "Root rule." in system and f"- Working Directory: {root}" in system


def test_the_prompt_states_the_branch_checked_out_during_the_session(tmp_path: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=tmp_path, check=True)
    model = ScriptedModel(["a", "b"])
    session = create_session(client=model, root=tmp_path, clock=lambda: NOW)
    session.run_turn("one")
    subprocess.run([*git, "checkout", "-q", "-b", "feature"], cwd=tmp_path, check=True)
    session.run_turn("two")
    first, second = (r.messages[0].text for r in model.requests)
    assert "(git repository, branch: main)" in first
    assert "(git repository, branch: feature)" in second
