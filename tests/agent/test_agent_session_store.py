"""Agent sessions saved in the SQLite store and resumed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.agent.placement import SystemText
from agentprompt.agent.session.driver import AgentSession
from agentprompt.agent.session.persist import (
    SessionStateError,
    load_session_state,
    restore_session,
    save_session,
    session_state,
)
from agentprompt.agent.session.prompt import PromptInputs
from agentprompt.llm._testing import ScriptedModel
from agentprompt.llm.base import ModelReply
from agentprompt.messages import ToolCall
from agentprompt.store import Store
from agentprompt.tools.registry import ToolRegistry, ToolSpec


def _builder(inputs: PromptInputs) -> SystemText:
    return SystemText(head="RULES")


def _session(tmp_path: Path, model: ScriptedModel) -> AgentSession:
    registry = ToolRegistry(
        [ToolSpec(name="echo", description="e", parameters={}, handler=lambda c, a: "out")]
    )
    return AgentSession(client=model, root=tmp_path, system_prompt=_builder, registry=registry)


def test_a_saved_session_resumes_with_history_todos_and_usage(tmp_path: Path) -> None:
    call = ToolCall(id="c1", name="echo")
    first = _session(tmp_path, ScriptedModel([ModelReply(tool_calls=(call,)), "done"]))
    first.run_turn("go")
    first.todos.add("Write tests")
    first.interrupted = True
    with Store(tmp_path / "state.db") as store:
        session_id = save_session(store, first)
        record = load_session_state(store, session_id)
    resumed = _session(tmp_path, ScriptedModel(["again"]))
    restore_session(resumed, record.state)
    assert resumed.history == first.history
    assert [t.content for t in resumed.todos.list()] == ["Write tests"]
    assert resumed.used_tokens == first.used_tokens
    assert resumed.tool_results == first.tool_results
    assert resumed.interrupted
    assert session_state(resumed) == session_state(first)


def test_saving_again_updates_the_same_session(tmp_path: Path) -> None:
    session = _session(tmp_path, ScriptedModel(["a", "b"]))
    with Store(tmp_path / "state.db") as store:
        session.run_turn("one")
        session_id = save_session(store, session)
        session.run_turn("two")
        assert save_session(store, session, session_id) == session_id
        assert len(store.get_session(session_id).state["history"]) == 4
        assert len(store.list_sessions("agent")) == 1


def test_a_malformed_state_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    session = _session(tmp_path, ScriptedModel(["a"]))
    session.run_turn("one")
    before = list(session.history)
    state = session_state(session)
    state["history"] = [{"role": "tool", "content": "no call id"}]
    with pytest.raises(SessionStateError, match="cannot be resumed"):
        restore_session(session, state, label="abc")
    assert session.history == before


def test_a_stored_message_with_an_unknown_role_is_refused(tmp_path: Path) -> None:
    session = _session(tmp_path, ScriptedModel(["a"]))
    session.run_turn("one")
    before = list(session.history)
    state = session_state(session)
    state["history"] = [{"role": "bogus", "content": "x"}, *state["history"]]
    with pytest.raises(SessionStateError, match="role must be one of system, user"):
        restore_session(session, state, label="abc")
    assert session.history == before


def test_a_state_of_another_layout_is_refused(tmp_path: Path) -> None:
    session = _session(tmp_path, ScriptedModel([]))
    with pytest.raises(SessionStateError, match="layout 99"):
        restore_session(session, {"version": 99, "history": []})


def test_a_session_of_another_runtime_is_not_resumed(tmp_path: Path) -> None:
    with Store(tmp_path / "state.db") as store:
        other = store.create_session("bridge", {})
        with pytest.raises(SessionStateError, match="bridge session"):
            load_session_state(store, other.id)
