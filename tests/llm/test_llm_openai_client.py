"""The OpenAI SDK client against a loopback server speaking Chat Completions."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from agentprompt.llm import (
    ModelConfig,
    ModelConnectionError,
    ModelHTTPError,
    ModelReply,
    ModelReplyError,
    ModelRequest,
    ModelRequestsBlocked,
    ModelStreamInterrupted,
    RateLimited,
    ReplyDone,
    TextDelta,
    Usage,
    make_client,
)
from agentprompt.llm._openai_client import OpenAIClient
from agentprompt.messages import Message, ToolCall, ToolDefinition

from .loopback import Answer, LoopbackServer, free_port, json_answer, openai_stream

pytestmark = pytest.mark.usefixtures("allow_requests")

READ_TOOL = ToolDefinition(
    name="read",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)

REQUEST = ModelRequest(
    messages=(
        Message(role="system", content="You are terse."),
        Message(role="user", content="Read a.py"),
        Message(
            role="assistant",
            content=None,
            tool_calls=(ToolCall(id="call_1", name="read", arguments='{"path": "a.py"}'),),
        ),
        Message(role="tool", tool_call_id="call_1", content="x = 1\n"),
    ),
    tools=(READ_TOOL,),
    max_tokens=100,
    temperature=0.0,
)


def config(url: str, **changes: object) -> ModelConfig:
    settings: dict[str, object] = {
        "provider": "openai",
        "model": "gpt-test",
        "base_url": f"{url}/v1",
        "api_key": "sk-test",
        "max_retries": 0,
        "timeout": 5.0,
    }
    settings.update(changes)
    return ModelConfig(**settings)  # type: ignore[arg-type]


def completion(content: str | None = "Done.", tool_calls: list[object] | None = None) -> object:
    message: dict[str, object] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test-0001",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 120,
            "completion_tokens": 7,
            "total_tokens": 127,
            "prompt_tokens_details": {"cached_tokens": 100},
        },
    }


def chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test-0001",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


USAGE_CHUNK = {
    "id": "chatcmpl-1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "gpt-test-0001",
    "choices": [],
    "usage": {
        "prompt_tokens": 50,
        "completion_tokens": 9,
        "total_tokens": 59,
        "prompt_tokens_details": {"cached_tokens": 32},
    },
}


def tool_delta(
    index: int, *, id: str | None = None, name: str | None = None, args: str = ""
) -> dict[str, object]:
    function: dict[str, object] = {"arguments": args}
    if name is not None:
        function["name"] = name
    piece: dict[str, object] = {"index": index, "function": function}
    if id is not None:
        piece.update(id=id, type="function")
    return chunk({"tool_calls": [piece]})


def test_complete_sends_the_exact_chat_completions_body(server: LoopbackServer) -> None:
    server.add(json_answer(completion()))
    make_client(config(server.url)).complete(REQUEST)
    (sent,) = server.requests
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.body == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Read a.py"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "read", "arguments": '{"path": "a.py"}'},
                    }
                ],
            },
            {"role": "tool", "content": "x = 1\n", "tool_call_id": "call_1"},
        ],
        "tools": [READ_TOOL.to_openai()],
        "max_tokens": 100,
        "temperature": 0.0,
    }


def test_the_request_model_overrides_the_configured_one(server: LoopbackServer) -> None:
    server.add(json_answer(completion()))
    request = ModelRequest(messages=(Message(role="user", content="hi"),), model="other")
    make_client(config(server.url)).complete(request)
    assert server.requests[0].body["model"] == "other"


def test_openai_itself_gets_max_completion_tokens() -> None:
    from agentprompt.llm._openai_client import chat_request_body

    body = chat_request_body(REQUEST, ModelConfig(provider="openai", model="gpt-4o"))
    assert body["max_completion_tokens"] == 100 and "max_tokens" not in body


def test_complete_returns_text_usage_and_a_normal_stop_reason(server: LoopbackServer) -> None:
    server.add(json_answer(completion("Done.")))
    reply = make_client(config(server.url)).complete(REQUEST)
    assert reply == ModelReply(
        text="Done.",
        usage=Usage(input_tokens=20, output_tokens=7, cache_read_tokens=100),
        stop_reason="end_turn",
        model="gpt-test-0001",
    )


def test_complete_returns_the_tool_calls(server: LoopbackServer) -> None:
    call = {"id": "c9", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    server.add(json_answer(completion(None, [call])))
    reply = make_client(config(server.url)).complete(REQUEST)
    assert reply.tool_calls == (ToolCall(id="c9", name="read", arguments="{}"),)
    assert reply.text == "" and reply.stop_reason == "tool_use"


def test_stream_yields_text_deltas_then_the_whole_reply(server: LoopbackServer) -> None:
    server.add(
        openai_stream(
            [
                chunk({"role": "assistant", "content": ""}),
                chunk({"content": "Hel"}),
                chunk({"content": "lo"}),
                chunk({}, "stop"),
                USAGE_CHUNK,
            ]
        )
    )
    events = list(make_client(config(server.url)).stream(REQUEST))
    assert events[:2] == [TextDelta(text="Hel"), TextDelta(text="lo")]
    assert events[2] == ReplyDone(
        reply=ModelReply(
            text="Hello",
            usage=Usage(input_tokens=18, output_tokens=9, cache_read_tokens=32),
            stop_reason="end_turn",
            model="gpt-test-0001",
        )
    )
    body = server.requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_stream_assembles_tool_calls_from_their_pieces(server: LoopbackServer) -> None:
    server.add(
        openai_stream(
            [
                tool_delta(0, id="c1", name="read", args='{"pa'),
                tool_delta(0, args='th": "a.py"}'),
                tool_delta(1, id="c2", name="ls", args=""),
                tool_delta(1, args="{}"),
                chunk({}, "tool_calls"),
                USAGE_CHUNK,
            ]
        )
    )
    *deltas, done = make_client(config(server.url)).stream(REQUEST)
    assert deltas == []
    assert isinstance(done, ReplyDone)
    assert done.reply.tool_calls == (
        ToolCall(id="c1", name="read", arguments='{"path": "a.py"}'),
        ToolCall(id="c2", name="ls", arguments="{}"),
    )
    assert done.reply.stop_reason == "tool_use"


def test_a_stream_cut_off_keeps_the_text_and_the_complete_tool_calls(
    server: LoopbackServer,
) -> None:
    server.add(
        openai_stream(
            [
                chunk({"content": "Let me look."}),
                tool_delta(0, id="c1", name="read", args='{"path": "a.py"}'),
                tool_delta(1, id="c2", name="read", args='{"path": "b'),
                chunk({}, "tool_calls"),
            ],
            cut_after=3,
        )
    )
    events = make_client(config(server.url)).stream(REQUEST)
    assert next(events) == TextDelta(text="Let me look.")
    with pytest.raises(ModelStreamInterrupted) as caught:
        list(events)
    assert caught.value.partial == ModelReply(
        text="Let me look.",
        tool_calls=(ToolCall(id="c1", name="read", arguments='{"path": "a.py"}'),),
        model="gpt-test-0001",
    )
    assert f"{server.url}/v1" in str(caught.value)


def test_a_stream_that_ends_without_a_finish_reason_is_interrupted(
    server: LoopbackServer,
) -> None:
    server.add(openai_stream([chunk({"content": "Half"})], done=False))
    with pytest.raises(ModelStreamInterrupted) as caught:
        list(make_client(config(server.url)).stream(REQUEST))
    assert caught.value.partial is not None and caught.value.partial.text == "Half"
    assert "before the model said it had finished" in str(caught.value)


def test_an_error_inside_the_stream_is_interrupted_with_the_partial(
    server: LoopbackServer,
) -> None:
    server.add(openai_stream([chunk({"content": "Part"}), {"error": {"message": "overloaded"}}]))
    with pytest.raises(ModelStreamInterrupted) as caught:
        list(make_client(config(server.url)).stream(REQUEST))
    assert "overloaded" in str(caught.value)
    assert caught.value.partial is not None and caught.value.partial.text == "Part"


def test_a_refused_connection_names_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ModelConnectionError) as caught:
        make_client(config(url)).complete(REQUEST)
    assert f"{url}/v1" in str(caught.value)
    assert "connection refused" in str(caught.value)
    assert caught.value.partial is None


def test_a_refused_connection_when_streaming_raises_before_any_event() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ModelConnectionError) as caught:
        make_client(config(url)).stream(REQUEST)
    assert not isinstance(caught.value, ModelStreamInterrupted)


def test_a_slow_server_times_out_with_a_clear_error(server: LoopbackServer) -> None:
    server.add(Answer(delay=1.0, body=b"{}"))
    with pytest.raises(ModelConnectionError) as caught:
        make_client(config(server.url, timeout=0.2)).complete(REQUEST)
    assert "no answer within 0.2 s" in str(caught.value)


def test_429_is_rate_limited_with_the_servers_wait(server: LoopbackServer) -> None:
    server.add(
        json_answer({"error": {"message": "slow down"}}, status=429, headers={"retry-after": "7"})
    )
    with pytest.raises(RateLimited) as caught:
        make_client(config(server.url)).complete(REQUEST)
    assert caught.value.retry_after == 7.0
    assert caught.value.status == 429
    assert "wait 7 s" in str(caught.value)


def test_a_server_error_carries_the_status_and_the_body(server: LoopbackServer) -> None:
    server.add(json_answer({"error": {"message": "boom"}}, status=500))
    with pytest.raises(ModelHTTPError) as caught:
        make_client(config(server.url)).stream(REQUEST)
    assert caught.value.status == 500
    assert "boom" in caught.value.body
    assert "HTTP 500" in str(caught.value)


def test_a_refused_key_names_the_variable_it_came_from(server: LoopbackServer) -> None:
    server.add(json_answer({"error": {"message": "bad key"}}, status=401))
    with pytest.raises(ModelHTTPError) as caught:
        make_client(config(server.url, api_key_env="MY_KEY")).complete(REQUEST)
    assert "check the key in MY_KEY" in str(caught.value)


def test_sdk_retries_are_bounded_by_max_retries(server: LoopbackServer) -> None:
    busy = json_answer({"error": {"message": "busy"}}, status=503, headers={"retry-after-ms": "5"})
    server.add(busy, json_answer(completion("ok")))
    reply = make_client(config(server.url, max_retries=1)).complete(REQUEST)
    assert reply.text == "ok" and len(server.requests) == 2
    server.add(busy, busy, json_answer(completion("never")))
    with pytest.raises(ModelHTTPError):
        make_client(config(server.url, max_retries=1)).complete(REQUEST)
    assert len(server.requests) == 4


def test_a_server_at_a_custom_url_needs_no_key(server: LoopbackServer) -> None:
    server.add(json_answer(completion()))
    make_client(config(server.url, api_key=None)).complete(REQUEST)
    assert server.requests[0].headers["authorization"] == "Bearer unused"


def test_blocked_requests_never_reach_the_server(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTPROMPT_ALLOW_MODEL_REQUESTS", "0")
    client = OpenAIClient(config(server.url))
    with pytest.raises(ModelRequestsBlocked):
        client.complete(REQUEST)
    with pytest.raises(ModelRequestsBlocked):
        client.stream(REQUEST)
    assert server.requests == []


def test_an_answer_that_is_not_chat_completions_is_a_clear_error(server: LoopbackServer) -> None:
    server.add(Answer(headers={"Content-Type": "text/html"}, body=b"<html>a web page</html>"))
    with pytest.raises(ModelReplyError) as caught:
        make_client(config(server.url)).complete(REQUEST)
    assert "did not answer in the Chat Completions format" in str(caught.value)


def test_a_stream_chunk_that_is_not_json_is_a_clear_error_with_the_partial(
    server: LoopbackServer,
) -> None:
    events = (f"data: {json.dumps(chunk({'content': 'Hi'}))}\n\n", "data: {oops\n\n")
    server.add(Answer(headers={"Content-Type": "text/event-stream"}, events=events))
    with pytest.raises(ModelReplyError) as caught:
        list(make_client(config(server.url)).stream(REQUEST))
    assert caught.value.partial is not None and caught.value.partial.text == "Hi"


def test_a_server_that_stops_sending_mid_stream_times_out_with_the_partial(
    server: LoopbackServer,
) -> None:
    answer = openai_stream([chunk({"content": "So far"}), chunk({}, "stop")])
    server.add(replace(answer, stall_after=1, stall=1.0))
    with pytest.raises(ModelStreamInterrupted) as caught:
        list(make_client(config(server.url, timeout=0.2)).stream(REQUEST))
    assert "no answer within 0.2 s" in str(caught.value)
    assert caught.value.partial is not None and caught.value.partial.text == "So far"


def test_a_stream_cut_off_after_the_finish_reason_is_a_whole_reply(
    server: LoopbackServer,
) -> None:
    server.add(
        openai_stream([chunk({"content": "All"}), chunk({}, "stop"), USAGE_CHUNK], cut_after=2)
    )
    *_, done = make_client(config(server.url)).stream(REQUEST)
    assert isinstance(done, ReplyDone)
    assert (done.reply.text, done.reply.stop_reason) == ("All", "end_turn")
