"""The agent session's turn driver, driven by scripted models."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentprompt.agent.compaction import CompactionPolicy
from agentprompt.agent.placement import SystemText
from agentprompt.agent.session.driver import AgentSession
from agentprompt.agent.session.prompt import PromptInputs
from agentprompt.agent.session.values import AgentRole, SessionConfig, SessionEvent
from agentprompt.errors import UsageError
from agentprompt.llm._testing import ScriptedModel
from agentprompt.llm.base import ModelReply, ModelRequest, StreamEvent, TextDelta, Usage
from agentprompt.llm.errors import ModelConnectionError
from agentprompt.messages import Message, ToolCall
from agentprompt.tools.context import ToolContext, ToolResult
from agentprompt.tools.policy import ToolPolicy
from agentprompt.tools.registry import ToolRegistry, ToolSpec

TAG = "<system-reminder>"
EMPTY_TODOS = "Note: The todo list is currently empty."
INTERRUPTED = "User interrupted."
CONTINUE = "Your previous response was interrupted. Continue from where you left off."


def _builder(inputs: PromptInputs) -> SystemText:
    per_turn = f"- Context Usage: {inputs.usage.percent}%"
    if inputs.profile == "ally":
        return SystemText(head=f"RULES\n{per_turn}")
    return SystemText(head="RULES", tail=per_turn)


def _echo(ctx: ToolContext, args: dict[str, Any]) -> str | ToolResult:
    if args.get("context"):
        return ToolResult(content="planned", tool_context=str(args["context"]))
    return f"echo {args.get('text', '')}"


def _registry() -> ToolRegistry:
    schema = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "context": {"type": "string"}},
    }
    return ToolRegistry(
        [
            ToolSpec(name="echo", description="Echo.", parameters=schema, handler=_echo),
            ToolSpec(name="finish", description="Finish.", parameters=schema, handler=_echo),
        ]
    )


def _call(name: str = "echo", args: str = '{"text": "hi"}', id: str = "c1") -> ModelReply:
    return ModelReply(tool_calls=(ToolCall(id=id, name=name, arguments=args),))


def _session(tmp_path: Path, model: Any, **config: Any) -> AgentSession:
    role = config.pop("role", None)
    events = config.pop("events", None)
    return AgentSession(
        client=model,
        root=tmp_path,
        system_prompt=_builder,
        registry=_registry(),
        config=SessionConfig(**config),
        role=role,
        on_event=events.append if events is not None else None,
    )


def _reminders(request: ModelRequest) -> list[str]:
    return [m.text for m in request.messages if m.role == "system" and TAG in m.text]


def test_a_turn_without_tools_returns_the_models_text(tmp_path: Path) -> None:
    model = ScriptedModel(["Hello."])
    result = _session(tmp_path, model).run_turn("hi")
    assert result.text == "Hello."
    assert result.requests == 1


def test_todo_reminder_is_in_the_request_and_not_in_the_history(tmp_path: Path) -> None:
    model = ScriptedModel(["Hello."])
    session = _session(tmp_path, model)
    session.run_turn("hi")
    reminders = _reminders(model.requests[0])
    assert len(reminders) == 1 and EMPTY_TODOS in reminders[0]
    assert model.requests[0].messages[-1].text == reminders[0]
    assert not any(TAG in m.text for m in session.history)
    assert [m.role for m in session.history] == ["user", "assistant"]


def test_todo_reminder_follows_only_the_user_message(tmp_path: Path) -> None:
    model = ScriptedModel([_call(), "Done."])
    _session(tmp_path, model).run_turn("go")
    assert _reminders(model.requests[0])
    assert _reminders(model.requests[1]) == []


def test_specialised_agents_get_no_todo_reminder(tmp_path: Path) -> None:
    model = ScriptedModel(["Found it."])
    role = AgentRole(name="explore", base_prompt="Explore.", task="find x")
    _session(tmp_path, model, role=role).run_turn("find x")
    assert _reminders(model.requests[0]) == []


def test_tool_calls_run_and_their_results_join_the_history(tmp_path: Path) -> None:
    model = ScriptedModel([_call(), "It echoed."])
    session = _session(tmp_path, model)
    result = session.run_turn("go")
    assert result.text == "It echoed." and result.tool_calls == 1
    assert [m.role for m in session.history] == ["user", "assistant", "tool", "assistant"]
    assert session.history[2].content == "echo hi"
    assert [d.name for d in model.requests[0].tools] == ["echo", "finish"]


def test_system_prompt_is_regenerated_before_every_call(tmp_path: Path) -> None:
    seen: list[int] = []

    def builder(inputs: PromptInputs) -> SystemText:
        seen.append(inputs.usage.used_tokens)
        return _builder(inputs)

    model = ScriptedModel([_call(), "Done."])
    session = _session(tmp_path, model)
    session.system_prompt = builder
    session.run_turn("go")
    # The first call is placed once to measure it (nothing measured yet), then built
    # stating that measure; the second call is built once.
    assert len(seen) == 3
    assert seen[0] == 0 and 0 < seen[1] < seen[2]


def test_ally_profile_puts_per_turn_facts_in_the_first_message(tmp_path: Path) -> None:
    model = ScriptedModel([_call(), "Done."])
    _session(tmp_path, model, profile="ally", context_size=1000).run_turn("go")
    first, second = (r.messages[0].text for r in model.requests)
    assert first.startswith("RULES\n- Context Usage: 19%")  # the first request, measured
    assert first != second


def test_default_profile_keeps_the_first_message_stable_and_facts_in_the_tail(
    tmp_path: Path,
) -> None:
    model = ScriptedModel([_call(), "Done."])
    _session(tmp_path, model, context_size=1000).run_turn("go")
    one, two = model.requests
    assert one.messages[0].text == two.messages[0].text == "RULES"
    tail = [m.text for m in two.messages if m.text.startswith("- Context Usage")]
    assert tail and tail[0] != "- Context Usage: 0%"
    # the whole previous history is a byte-identical prefix of the next request
    n = len(one.messages) - 2  # less the per-turn facts and the reminder
    assert [(m.role, m.text) for m in two.messages[:n]] == [
        (m.role, m.text) for m in one.messages[:n]
    ]


def test_an_empty_reply_after_tools_gets_a_follow_up_that_still_offers_the_tools(
    tmp_path: Path,
) -> None:
    # The history holds tool calls, and Anthropic refuses such a request without tool
    # definitions ("Requests which include tool_use or tool_result blocks must define
    # tools"); the same tools also keep the cached prefix byte-identical.
    model = ScriptedModel([_call(), ModelReply(text=""), "Summary of what I did."])
    result = _session(tmp_path, model).run_turn("go")
    assert result.text == "Summary of what I did."
    follow_up = model.requests[2]
    assert follow_up.tools == model.requests[0].tools != ()
    assert any("MUST provide a text response" in r for r in _reminders(follow_up))


def test_every_call_of_a_turn_offers_the_same_tools(tmp_path: Path) -> None:
    model = ScriptedModel([_call(id="a"), _call(id="b"), "Stopped."])
    _session(tmp_path, model, max_tool_rounds=2).run_turn("go")
    assert len(model.requests) == 3
    assert all(r.tools == model.requests[0].tools != () for r in model.requests)


def test_the_call_after_the_last_tool_round_asks_for_the_text_response(tmp_path: Path) -> None:
    model = ScriptedModel([_call(id="a"), _call(id="b"), "Stopped."])
    result = _session(tmp_path, model, max_tool_rounds=2).run_turn("go")
    assert result.text == "Stopped."
    assert result.tool_calls == 2
    [limit] = _reminders(model.requests[2])
    assert "used all 2 of its tool rounds" in limit
    early = [r for q in model.requests[:2] for r in _reminders(q)]
    assert not any("tool rounds" in r for r in early)


def test_tool_calls_past_the_last_tool_round_are_answered_not_run(tmp_path: Path) -> None:
    model = ScriptedModel([_call(id="a"), _call(id="b", args='{"text": "late"}')])
    events: list[SessionEvent] = []
    session = _session(tmp_path, model, max_tool_rounds=1, events=events)
    result = session.run_turn("go")
    shown = [e.text for e in events if e.kind == "tool_result"]
    assert len(shown) == 2 and shown[1].startswith("Not run: this turn has used all 1")
    assert [e.is_error for e in events if e.kind == "tool_result"] == [False, True]
    assert result.text == "" and result.tool_calls == 1 and len(model.requests) == 2
    last = session.history[-1]
    assert last.role == "tool" and last.tool_call_id == "b" and last.is_error
    assert "Not run: this turn has used all 1 of its tool rounds" in last.text
    assert not any(m.role == "tool" and m.text == "echo late" for m in session.history)


def test_required_tool_warnings_stop_after_three(tmp_path: Path) -> None:
    model = ScriptedModel(["a", "b", "c", "d"])
    role = AgentRole(
        name="plan",
        base_prompt="Plan.",
        task="t",
        policy=ToolPolicy(required_tools=("finish",)),
    )
    result = _session(tmp_path, model, role=role).run_turn("t")
    assert result.text == "d"
    assert len(model.requests) == 4
    warned = [r for req in model.requests for r in _reminders(req)]
    assert len(warned) == 3
    assert "required tool(s) before completing your task: finish" in warned[0]


def test_required_tool_warnings_are_configurable(tmp_path: Path) -> None:
    model = ScriptedModel(["a", "b"])
    role = AgentRole(
        name="plan", base_prompt="Plan.", task="t", policy=ToolPolicy(required_tools=("finish",))
    )
    _session(tmp_path, model, role=role, max_required_warnings=1).run_turn("t")
    assert len(model.requests) == 2


def test_calling_the_required_tool_ends_the_warnings(tmp_path: Path) -> None:
    model = ScriptedModel(["a", _call(name="finish"), "done"])
    role = AgentRole(
        name="plan", base_prompt="Plan.", task="t", policy=ToolPolicy(required_tools=("finish",))
    )
    assert _session(tmp_path, model, role=role).run_turn("t").text == "done"
    assert len(model.requests) == 3


def test_tool_context_becomes_a_reminder_for_the_next_call_only(tmp_path: Path) -> None:
    model = ScriptedModel(
        [_call(args='{"context": "You have just created a plan."}'), "Planned.", "ok"]
    )
    session = _session(tmp_path, model)
    session.run_turn("plan it")
    assert any("You have just created a plan." in r for r in _reminders(model.requests[1]))
    session.run_turn("next")
    assert not any("created a plan" in r for r in _reminders(model.requests[2]))


class _Interrupting:
    """A model that is interrupted (Ctrl-C) on its first call, then answers."""

    def __init__(self, answers: list[Any]) -> None:
        self.inner = ScriptedModel([KeyboardInterrupt(), *answers])
        self.requests = self.inner.requests

    def complete(self, request: ModelRequest) -> ModelReply:
        return self.inner.complete(request)

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        return self.inner.stream(request)


def test_ctrl_c_is_recorded_and_the_next_turn_gets_the_interruption_reminder(
    tmp_path: Path,
) -> None:
    model = _Interrupting([_call(), "answer"])
    session = _session(tmp_path, model)
    first = session.run_turn("long task")
    assert first.interrupted and session.interrupted
    session.run_turn("new question")
    second, third = model.requests[1:]
    assert any(INTERRUPTED in r for r in _reminders(second))
    assert not any(INTERRUPTED in r for r in _reminders(third))
    assert not session.interrupted


def test_ctrl_c_during_tools_leaves_a_valid_history(tmp_path: Path) -> None:
    def stop(ctx: ToolContext, args: dict[str, Any]) -> str:
        raise KeyboardInterrupt

    model = ScriptedModel(
        [ModelReply(tool_calls=(ToolCall(id="a", name="stop"), ToolCall(id="b", name="stop")))]
    )
    session = _session(tmp_path, model)
    session.registry.register(ToolSpec(name="stop", description="s", parameters={}, handler=stop))
    assert session.run_turn("go").interrupted
    results = [m for m in session.history if m.role == "tool"]
    assert [m.tool_call_id for m in results] == ["a", "b"]
    assert all(m.is_error and "interrupted" in m.text for m in results)


def test_partial_reply_is_kept_and_continued_once(tmp_path: Path) -> None:
    cut = ModelConnectionError("http://x", "reset", partial=ModelReply(text="Half of"))
    model = ScriptedModel([cut, " the answer."])
    events: list[SessionEvent] = []
    session = _session(tmp_path, model, events=events)
    result = session.run_turn("go")
    assert result.retried and result.text == "Half of the answer."
    retry = model.requests[1]
    assert any(CONTINUE in r for r in _reminders(retry))
    assert [m.text for m in retry.messages if m.role == "assistant"] == ["Half of"]
    assert any(e.kind == "retry" for e in events)


def test_a_second_cut_off_reply_raises(tmp_path: Path) -> None:
    def cut() -> ModelConnectionError:
        return ModelConnectionError("http://x", "reset", partial=ModelReply(text="Half"))

    model = ScriptedModel([cut(), cut()])
    with pytest.raises(ModelConnectionError):
        _session(tmp_path, model).run_turn("go")


def test_an_error_before_any_answer_leaves_the_history_as_it_was(tmp_path: Path) -> None:
    model = ScriptedModel([ModelConnectionError("http://x", "refused")])
    session = _session(tmp_path, model)
    with pytest.raises(ModelConnectionError):
        session.run_turn("go")
    assert session.history == []


def test_streaming_reports_text_deltas(tmp_path: Path) -> None:
    events: list[SessionEvent] = []
    model = ScriptedModel(["A streamed answer."], chunk_size=4)
    result = _session(tmp_path, model, stream=True, events=events).run_turn("go")
    deltas = [e.text for e in events if e.kind == "text_delta"]
    assert len(deltas) > 1 and "".join(deltas) == result.text


def test_provider_usage_drives_the_token_count(tmp_path: Path) -> None:
    reply = ModelReply(text="ok", usage=Usage(input_tokens=900, output_tokens=100))
    session = _session(tmp_path, ScriptedModel([reply]), context_size=10_000)
    result = session.run_turn("go")
    assert result.used_tokens == 1000 and result.context_percent == 10


def test_history_is_compacted_when_usage_passes_the_threshold(tmp_path: Path) -> None:
    big = Usage(input_tokens=9000)
    model = ScriptedModel(
        [
            ModelReply(text="one", usage=big),
            ModelReply(text="two", usage=big),
            ModelReply(text="three", usage=big),
            "SUMMARY OF OLD",
        ]
    )
    session = _session(
        tmp_path,
        model,
        context_size=10_000,
        compaction=CompactionPolicy(threshold=80, keep_head=1, keep_recent=2),
    )
    session.run_turn("first")
    session.run_turn("second")
    result = session.run_turn("third")
    assert result.compacted
    assert session.history[0] == Message(role="user", content="first")
    assert "SUMMARY OF OLD" in session.history[1].text
    assert [m.text for m in session.history[2:]] == ["third", "three"]
    assert session.used_tokens < 9000


def test_a_history_still_full_after_compaction_is_not_compacted_every_round(
    tmp_path: Path,
) -> None:
    # The kept recent message alone fills most of the context, so usage stays over the
    # threshold after the compaction; the tool rounds that follow must not compact again
    # (each would summarise the last summary).
    huge = "word " * 8500
    replies = ["one", "two", "three", "SUMMARY OF OLD", _call(id="c2"), _call(id="c3"), "done"]
    model = ScriptedModel(replies)
    events: list[SessionEvent] = []
    session = _session(
        tmp_path,
        model,
        events=events,
        context_size=10_000,
        compaction=CompactionPolicy(threshold=80, keep_head=1, keep_recent=2),
    )
    session.run_turn("first")
    session.run_turn("second")
    assert session.run_turn(huge).compacted
    assert session.used_tokens >= 8000
    result = session.run_turn("fourth")
    assert result.text == "done" and model.remaining == 0
    assert [e.text for e in events if e.kind == "compaction"] == ["SUMMARY OF OLD"]


def test_a_summary_quoting_a_reminder_tag_stays_in_the_history(tmp_path: Path) -> None:
    # The agent read a file holding the tag (this very repository has many); the summary
    # quotes it, and the reminder filter after the next call must not take the notice.
    big = Usage(input_tokens=9000)
    quoted = f"SUMMARY: the user asked how {TAG} messages are removed."
    replies = [ModelReply(text=t, usage=big) for t in ("one", "two", "three")]
    model = ScriptedModel([*replies, quoted, "four"])
    session = _session(
        tmp_path,
        model,
        context_size=10_000,
        compaction=CompactionPolicy(threshold=80, keep_head=1, keep_recent=2),
    )
    for text in ("first", "second", "third"):
        session.run_turn(text)
    session.run_turn("fourth")
    notice = session.history[1]
    assert notice.role == "system" and "SUMMARY: the user asked how" in notice.text
    assert TAG not in notice.text
    assert [m.text for m in session.history[2:]] == ["third", "three", "fourth", "four"]


class _CutStream:
    """Streams "Half" and stops without the final event, then answers normally."""

    def __init__(self) -> None:
        self.inner = ScriptedModel(["Done."])
        self.requests = self.inner.requests
        self.streams = 0

    def complete(self, request: ModelRequest) -> ModelReply:
        return self.inner.complete(request)

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        self.streams += 1
        if self.streams == 1:
            self.requests.append(request)
            return iter([TextDelta(text="Half")])
        return self.inner.stream(request)


class _CtrlCStream:
    """Streams "I was saying" and then the user presses Ctrl-C."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelReply:
        raise AssertionError("the session streams")

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        self.requests.append(request)
        yield TextDelta(text="I was ")
        yield TextDelta(text="saying")
        raise KeyboardInterrupt


def test_ctrl_c_while_streaming_keeps_the_text_the_user_saw(tmp_path: Path) -> None:
    session = _session(tmp_path, _CtrlCStream(), stream=True)
    result = session.run_turn("go")
    assert result.interrupted and session.interrupted
    assert [(m.role, m.text) for m in session.history] == [
        ("user", "go"),
        ("assistant", "I was saying"),
    ]


def test_a_stream_cut_off_before_its_end_is_continued(tmp_path: Path) -> None:
    model = _CutStream()
    result = _session(tmp_path, model, stream=True).run_turn("go")
    assert result.retried and result.text == "HalfDone."
    assert any(CONTINUE in r for r in _reminders(model.requests[1]))


def test_an_invalid_configuration_names_every_problem() -> None:
    with pytest.raises(UsageError, match="context_size must be at least 1, not 0; max_tool"):
        SessionConfig(context_size=0, max_tool_rounds=0)


def test_the_next_user_message_accepts_a_proposed_plan(tmp_path: Path) -> None:
    session = _session(tmp_path, ScriptedModel(["Here is the plan.", "Starting."]))
    session.run_turn("plan it")
    session.todos.add("step one", status="proposed")
    session.run_turn("looks good, go ahead")
    assert [(t.content, t.status) for t in session.todos.list()] == [("step one", "in_progress")]


def test_a_denied_plan_is_not_accepted(tmp_path: Path) -> None:
    def deny(ctx: ToolContext, args: dict[str, Any]) -> str:
        ctx.todos.deny_proposed()
        return "denied"

    session = _session(tmp_path, ScriptedModel([_call("finish", "{}"), "Dropped it."]))
    session.registry.replace(
        ToolSpec(name="finish", description="Deny.", parameters={"type": "object"}, handler=deny)
    )
    session.todos.add("step one", status="proposed")
    session.run_turn("no, not like that")
    assert session.todos.list() == ()


def _big_result_session(tmp_path: Path, model: Any, **config: Any) -> AgentSession:
    """A session whose ``dump`` tool returns 3,300 words for a call with no arguments."""
    dump = ToolSpec(
        name="dump",
        description="Dump.",
        parameters={"type": "object", "properties": {}},
        handler=lambda ctx, args: " ".join(["word"] * 3300),
    )
    return AgentSession(
        client=model,
        root=tmp_path,
        system_prompt=_builder,
        registry=ToolRegistry([dump]),
        config=SessionConfig(context_size=4000, **config),
    )


def _stated_percent(request: ModelRequest) -> int:
    [facts] = [m.text for m in request.messages if "Context Usage: " in m.text]
    return int(facts.split("Context Usage: ")[1].split("%")[0])


def test_tool_results_count_in_the_usage_the_next_call_states(tmp_path: Path) -> None:
    model = ScriptedModel([_call("dump", "{}"), "Done."])
    _big_result_session(tmp_path, model).run_turn("go")
    first, second = model.requests
    assert _stated_percent(first) <= 5  # the first request's own size
    assert _stated_percent(second) >= 80  # the 3,300-word result is in this request


def test_a_large_tool_result_triggers_compaction_before_the_next_call(tmp_path: Path) -> None:
    model = ScriptedModel(["a", "b", _call("dump", "{}"), "SUMMARY", "Done."])
    policy = CompactionPolicy(threshold=80, keep_head=1, keep_recent=2)
    session = _big_result_session(tmp_path, model, compaction=policy)
    session.run_turn("one")
    session.run_turn("two")
    result = session.run_turn("three")
    assert result.compacted and result.text == "Done."
    assert "SUMMARY" in model.requests[4].messages[2].text
