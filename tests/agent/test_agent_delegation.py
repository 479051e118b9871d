"""Sub-agents run by the explore, plan and agent tools, on the reference runtime."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import time
from pathlib import Path

from agentprompt.agent.runtime import create_session
from agentprompt.agent.session.values import SessionConfig, SessionEvent
from agentprompt.llm._testing import FunctionModel, ScriptedModel
from agentprompt.llm.base import ModelReply, ModelRequest
from agentprompt.messages import ToolCall

NOW = dt.datetime(2026, 1, 2, 3, 4, 5)


def _call(name: str, **args: object) -> ModelReply:
    return ModelReply(
        tool_calls=(ToolCall(id=f"id-{name}", name=name, arguments=json.dumps(args)),)
    )


def _tools(request: ModelRequest) -> set[str]:
    return {t.name for t in request.tools}


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def main():\n    return 1\n")
    return tmp_path


def test_explore_runs_a_read_only_explorer_and_returns_its_summary(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            _call("explore", task_description="Find the entry point"),
            _call("read", path="app.py"),
            "The entry point is main() in app.py.",
            "main() in app.py is the entry point.",
        ]
    )
    session = create_session(client=model, root=_repo(tmp_path), clock=lambda: NOW)
    result = session.run_turn("where does it start?")
    assert result.text == "main() in app.py is the entry point."
    explorer = model.requests[1]
    assert "You are a specialized code exploration assistant." in explorer.messages[0].text
    assert "**Current Task:**\nFind the entry point" in explorer.messages[0].text
    assert "write" not in _tools(explorer) and "read" in _tools(explorer)
    assert not {"plan", "agent", "explore"} & _tools(explorer)
    tool_result = model.requests[3].messages
    assert any(m.role == "tool" and "The entry point is main()" in m.text for m in tool_result)


def test_plan_proposes_todos_into_the_main_list_and_sets_the_tool_context(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            _call("plan", requirements="Add a --verbose flag"),
            _call("todo_add", todos=[{"content": "Add the flag", "status": "proposed"}]),
            "## Implementation Plan\n...",
            "I proposed a plan.",
            "ok",
        ]
    )
    session = create_session(client=model, root=_repo(tmp_path), clock=lambda: NOW)
    session.run_turn("plan a verbose flag")
    planner = model.requests[1]
    assert "You are an expert implementation planner." in planner.messages[0].text
    assert [t.status for t in session.todos.list()] == ["proposed"]
    after = model.requests[3]
    reminders = [m.text for m in after.messages if "<system-reminder>" in m.text]
    assert any("planning context with proposed todos" in r for r in reminders)


def test_the_planners_todos_are_proposals_whatever_status_it_asks_for(tmp_path: Path) -> None:
    # Without the forced status, a planner that leaves out status="proposed" would put its
    # todos straight into the user's active list: no acceptance, nothing deny_proposal removes.
    model = ScriptedModel(
        [
            _call("plan", requirements="Add a --verbose flag"),
            _call("todo_add", todos=[{"content": "Add the flag"}, {"content": "Test it"}]),
            "## Implementation Plan\n...",
            "I proposed a plan.",
            _call("deny_proposal"),
            "Plan dropped.",
        ]
    )
    session = create_session(client=model, root=_repo(tmp_path), clock=lambda: NOW)
    session.run_turn("plan a verbose flag")
    assert [t.status for t in session.todos.list()] == ["proposed", "proposed"]
    reminders = [m.text for m in model.requests[3].messages if "<system-reminder>" in m.text]
    assert any("planning context with proposed todos" in r for r in reminders)
    session.run_turn("no, drop it")
    assert session.todos.list() == ()


def test_the_planner_is_reminded_to_propose_todos(tmp_path: Path) -> None:
    model = ScriptedModel(
        [_call("plan", requirements="Add a flag"), "plan text", "plan text", "p", "p", "done"]
    )
    session = create_session(client=model, root=_repo(tmp_path), clock=lambda: NOW)
    session.run_turn("plan it")
    planner_calls = model.requests[1:5]
    warned = [m.text for r in planner_calls for m in r.messages if "required tool(s)" in m.text]
    assert len(warned) == 3 and "todo_add" in warned[0]


def test_a_custom_agent_runs_with_its_own_prompt_and_tools(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    agents = root / ".agentprompt" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code\ntools: [read, grep]\n---\n"
        "You review code for bugs.\n"
    )
    model = ScriptedModel(["No bugs found.", "The reviewer found no bugs."])
    session = create_session(client=model, root=root, clock=lambda: NOW)
    assert "reviewer" in session.agent_names
    result = session.run_turn("@reviewer look at app.py")
    assert result.text == "The reviewer found no bugs."
    reviewer = model.requests[0]
    assert reviewer.messages[0].text.startswith("**Primary Identity:**\nYou review code for bugs.")
    assert _tools(reviewer) == {"read", "grep"}
    main = model.requests[1]
    assert "- reviewer: Reviews code" in main.messages[0].text


def test_an_unknown_agent_is_an_error_result_the_model_can_read(tmp_path: Path) -> None:
    model = ScriptedModel([_call("agent", task_prompt="x", agent_name="ghost"), "Sorry."])
    session = create_session(client=model, root=_repo(tmp_path), clock=lambda: NOW)
    session.run_turn("go")
    result = next(m for m in model.requests[1].messages if m.role == "tool")
    assert result.is_error and "no agent is called 'ghost'" in result.text


def test_once_mode_puts_the_single_response_instructions_in_the_prompt(tmp_path: Path) -> None:
    model = ScriptedModel(["Answer."])
    session = create_session(
        client=model, root=_repo(tmp_path), config=SessionConfig(once=True), clock=lambda: NOW
    )
    session.run_turn("q")
    assert "**IMPORTANT - Single Response Mode:**" in model.requests[0].messages[0].text


def test_a_custom_agent_with_its_own_model_asks_that_model(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    replies = tmp_path / "reviewer-replies.json"
    replies.write_text(json.dumps(["Reviewed by my own model."]))
    agents = root / ".agentprompt" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        f"---\nname: reviewer\ndescription: Reviews code\nmodel: script:{replies}\n---\n"
        "You review code.\n"
    )
    model = ScriptedModel(["Done."])
    session = create_session(client=model, root=root, clock=lambda: NOW)
    session.run_turn("@reviewer look")
    tool = next(m for m in model.requests[0].messages if m.role == "tool")
    assert tool.text == "Reviewed by my own model."
    assert len(model.requests) == 1


def test_a_tagged_agent_is_reported_as_one_delegation(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    agents = root / ".agentprompt" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code\n---\nYou review code.\n"
    )
    events: list[SessionEvent] = []
    model = ScriptedModel(["No problems.", "The reviewer found no problems."])
    session = create_session(client=model, root=root, clock=lambda: NOW, on_event=events.append)
    session.run_turn("@reviewer check app.py")
    delegations = [(e.name, e.text, e.depth) for e in events if e.kind == "delegation"]
    assert delegations == [("reviewer", "check app.py", 1)]


def test_ctrl_c_during_a_batch_stops_its_explorers_before_their_next_call(
    tmp_path: Path,
) -> None:
    # Ctrl-C reaches only the main thread; an explorer running in a batch thread must not
    # go on asking the model (and running tools) after the user stopped the turn.
    explorer_calls: list[int] = []

    def answer(request: ModelRequest) -> ModelReply | str:
        if "specialized code exploration assistant" not in request.messages[0].text:
            return _call(
                "batch", tools=[{"name": "explore", "arguments": {"task_description": "x"}}]
            )
        explorer_calls.append(1)
        if len(explorer_calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)  # the main thread leaves the batch meanwhile
            return _call("read", path="app.py")
        return "explored"

    model = FunctionModel(answer)
    session = create_session(client=model, root=_repo(tmp_path), clock=lambda: NOW)
    result = session.run_turn("explore it")
    assert result.interrupted
    time.sleep(1)
    assert len(explorer_calls) == 1
