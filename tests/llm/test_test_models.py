"""The test models: ScriptedModel answers from a queue, FunctionModel from a function."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentprompt.llm import (
    FunctionModel,
    ModelClient,
    ModelReply,
    ModelRequest,
    PromptCall,
    PromptExecutor,
    ReplyDone,
    ScriptedModel,
    ScriptOutOfAnswers,
    StreamEvent,
    TextDelta,
)
from agentprompt.llm.errors import ModelConnectionError, ModelStreamInterrupted
from agentprompt.messages import Message, ToolCall


def ask(text: str) -> ModelRequest:
    """A one-message request."""
    return ModelRequest(messages=(Message(role="user", content=text),))


def deltas(events: list[StreamEvent]) -> list[str]:
    """The text pieces of a stream."""
    return [e.text for e in events if isinstance(e, TextDelta)]


# ScriptedModel


def test_scripted_model_answers_from_its_queue_in_order() -> None:
    model = ScriptedModel(["first", "second"])
    assert model.complete(ask("a")).text == "first"
    assert model.complete(ask("b")).text == "second"


def test_a_text_answer_is_a_finished_reply_with_that_text() -> None:
    reply = ScriptedModel(["hi"]).complete(ask("a"))
    assert reply == ModelReply(text="hi", stop_reason="end_turn", model="test")


def test_a_reply_answer_is_returned_as_it_is() -> None:
    scripted = ModelReply(text="", tool_calls=(ToolCall(id="c1", name="read"),), model="m")
    assert ScriptedModel([scripted]).complete(ask("a")) is scripted


def test_scripted_model_records_every_request() -> None:
    model = ScriptedModel(["one", "two"])
    first, second = ask("a"), ask("b")
    model.complete(first)
    list(model.stream(second))
    assert model.requests == [first, second]
    assert model.prompts == []


def test_scripted_model_records_every_execute_prompt_call() -> None:
    model = ScriptedModel(["one", "two"])
    model.execute_prompt("pick files")
    model.execute_prompt("write it", mode="smart", response_shape="text")
    assert model.prompts == [
        PromptCall(prompt="pick files", mode="fast", response_shape="json"),
        PromptCall(prompt="write it", mode="smart", response_shape="text"),
    ]
    assert model.requests == []


def test_an_object_answer_is_returned_as_it_is_by_execute_prompt() -> None:
    answer = {"done": True, "files": ["a.py"], "reason": "enough"}
    assert ScriptedModel([answer]).execute_prompt("p") is answer


def test_a_text_answer_is_returned_unparsed_by_execute_prompt() -> None:
    assert ScriptedModel(['{"a": 1}']).execute_prompt("p") == '{"a": 1}'


def test_a_reply_answer_gives_its_text_to_execute_prompt() -> None:
    assert ScriptedModel([ModelReply(text="plain")]).execute_prompt("p") == "plain"


def test_an_object_answer_is_json_text_for_complete() -> None:
    answer = {"done": False, "files": ["b.py"]}
    reply = ScriptedModel([answer]).complete(ask("a"))
    assert json.loads(reply.text) == answer


def test_an_exception_answer_is_raised() -> None:
    model = ScriptedModel([TimeoutError("slow"), RuntimeError("boom")])
    with pytest.raises(TimeoutError, match="slow"):
        model.complete(ask("a"))
    with pytest.raises(RuntimeError, match="boom"):
        model.execute_prompt("p")


def test_an_exception_answer_uses_up_its_place_in_the_queue() -> None:
    model = ScriptedModel([ValueError("once"), "after"])
    with pytest.raises(ValueError):
        model.complete(ask("a"))
    assert model.complete(ask("b")).text == "after"


def test_running_out_of_answers_raises_script_out_of_answers_saying_how_to_queue_more() -> None:
    model = ScriptedModel(["only"])
    model.complete(ask("a"))
    with pytest.raises(ScriptOutOfAnswers) as caught:
        model.complete(ask("b"))
    assert "asked 2 times" in str(caught.value)
    assert "add()" in str(caught.value)


def test_execute_prompt_also_runs_out() -> None:
    with pytest.raises(ScriptOutOfAnswers):
        ScriptedModel().execute_prompt("p")


def test_answers_can_be_queued_later() -> None:
    model = ScriptedModel()
    model.add("one", {"two": 2})
    assert model.remaining == 2
    assert model.complete(ask("a")).text == "one"
    assert model.execute_prompt("p") == {"two": 2}
    assert model.remaining == 0


def test_stream_yields_text_pieces_then_one_reply_done() -> None:
    events = list(ScriptedModel(["hello world"], chunk_size=4).stream(ask("a")))
    assert events[:-1] == [
        TextDelta(text="hell"),
        TextDelta(text="o wo"),
        TextDelta(text="rld"),
    ]
    assert events[-1] == ReplyDone(
        reply=ModelReply(text="hello world", stop_reason="end_turn", model="test")
    )


def test_streaming_an_empty_answer_yields_only_reply_done() -> None:
    events = list(ScriptedModel([""]).stream(ask("a")))
    assert events == [ReplyDone(reply=ModelReply(text="", stop_reason="end_turn", model="test"))]


@given(text=st.text(), chunk_size=st.integers(min_value=-2, max_value=20))
def test_streamed_pieces_add_up_to_the_reply_text(text: str, chunk_size: int) -> None:
    events = list(ScriptedModel([text], chunk_size=chunk_size).stream(ask("a")))
    done = events[-1]
    assert isinstance(done, ReplyDone)
    assert all(isinstance(e, TextDelta) for e in events[:-1])
    assert "".join(deltas(events)) == done.reply.text == text
    assert all(0 < len(piece) <= max(1, chunk_size) for piece in deltas(events))


# FunctionModel


def test_function_model_answers_with_the_function_of_the_request() -> None:
    model = FunctionModel(lambda request: f"you said {request.messages[-1].text}")
    assert model.complete(ask("hi")).text == "you said hi"


def test_function_model_may_answer_with_a_whole_reply() -> None:
    scripted = ModelReply(text="", tool_calls=(ToolCall(id="c1", name="read"),))
    assert FunctionModel(lambda _: scripted).complete(ask("a")) is scripted


def test_function_model_gives_an_object_answer_to_complete_as_json_text() -> None:
    reply = FunctionModel(lambda _: {"a": [1, 2]}).complete(ask("a"))
    assert json.loads(reply.text) == {"a": [1, 2]}


def test_function_model_records_every_request() -> None:
    model = FunctionModel(lambda _: "ok")
    first, second = ask("a"), ask("b")
    model.complete(first)
    list(model.stream(second))
    model.execute_prompt("c")
    assert model.requests[:2] == [first, second]
    assert len(model.requests) == 3


def test_function_model_streams_its_answer_ending_with_reply_done() -> None:
    events = list(FunctionModel(lambda _: "streamed text", chunk_size=5).stream(ask("a")))
    assert deltas(events) == ["strea", "med t", "ext"]
    assert events[-1] == ReplyDone(
        reply=ModelReply(text="streamed text", stop_reason="end_turn", model="test")
    )


def test_function_model_execute_prompt_sends_one_user_message_with_the_hints() -> None:
    seen: list[ModelRequest] = []

    def answer(request: ModelRequest) -> str:
        seen.append(request)
        return "ok"

    model = FunctionModel(answer)
    model.execute_prompt("choose files")
    model.execute_prompt("explain", mode="smart", response_shape="text")
    assert seen == [
        ModelRequest(
            messages=(Message(role="user", content="choose files"),),
            mode="fast",
            response_shape="json",
        ),
        ModelRequest(
            messages=(Message(role="user", content="explain"),),
            mode="smart",
            response_shape="text",
        ),
    ]
    assert model.requests == seen


def test_function_model_execute_prompt_returns_the_answer_as_it_is() -> None:
    answer: dict[str, object] = {"done": True}
    assert FunctionModel(lambda _: answer).execute_prompt("p") is answer
    assert FunctionModel(lambda _: "text").execute_prompt("p") == "text"
    assert FunctionModel(lambda _: ModelReply(text="reply")).execute_prompt("p") == "reply"


# ModelReply


def test_a_text_reply_becomes_an_assistant_message() -> None:
    assert ModelReply(text="Done.").to_message() == Message(role="assistant", content="Done.")


def test_a_reply_of_only_tool_calls_becomes_a_message_without_content() -> None:
    calls = (ToolCall(id="c1", name="read", arguments='{"path": "a.py"}'),)
    message = ModelReply(tool_calls=calls).to_message()
    assert message == Message(role="assistant", content=None, tool_calls=calls)


def test_a_reply_of_text_and_tool_calls_keeps_both() -> None:
    calls = (ToolCall(id="c1", name="read"),)
    message = ModelReply(text="Reading.", tool_calls=calls).to_message()
    assert message == Message(role="assistant", content="Reading.", tool_calls=calls)


# Protocols


@pytest.mark.parametrize(
    "model",
    [ScriptedModel(), FunctionModel(lambda _: "")],
    ids=["ScriptedModel", "FunctionModel"],
)
def test_test_models_are_model_clients_and_prompt_executors(model: object) -> None:
    assert isinstance(model, ModelClient)
    assert isinstance(model, PromptExecutor)


def test_script_out_of_answers_counts_the_answers_it_really_had() -> None:
    model = ScriptedModel(["only one"])
    model.execute_prompt("a")
    for _ in range(2):
        with pytest.raises(ScriptOutOfAnswers, match="had only 1 answers"):
            model.execute_prompt("again")


def test_a_scripted_error_with_a_partial_reply_streams_the_partial_text_first() -> None:
    partial = ModelReply(text="Half of the ans", model="test")
    model = ScriptedModel(
        [ModelStreamInterrupted("http://x", "cut", partial=partial)], chunk_size=4
    )
    events = model.stream(ModelRequest(messages=(Message(role="user", content="hi"),)))
    seen: list[str] = []
    with pytest.raises(ModelStreamInterrupted) as caught:
        for event in events:
            assert isinstance(event, TextDelta)
            seen.append(event.text)
    assert "".join(seen) == "Half of the ans"
    assert caught.value.partial == partial


def test_a_scripted_error_without_a_partial_reply_raises_before_streaming() -> None:
    model = ScriptedModel([ModelConnectionError("http://x", "connection refused")])
    with pytest.raises(ModelConnectionError):
        model.stream(ModelRequest(messages=(Message(role="user", content="hi"),)))
