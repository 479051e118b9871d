"""The Anthropic SDK client against a loopback server speaking the Messages API."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from agentprompt.llm import (
    ModelConfig,
    ModelConnectionError,
    ModelError,
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
from agentprompt.llm._anthropic_client import DEFAULT_MAX_TOKENS, AnthropicClient
from agentprompt.messages import Message, ToolCall, ToolDefinition

from .loopback import LoopbackServer, anthropic_stream, free_port, json_answer

pytestmark = pytest.mark.usefixtures("allow_requests")

READ_TOOL = ToolDefinition(
    name="read",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)

REQUEST = ModelRequest(
    messages=(
        Message(role="system", content="You are terse.", cache_breakpoint=True),
        Message(role="user", content="Read a.py"),
        Message(
            role="assistant",
            content="Reading.",
            tool_calls=(ToolCall(id="toolu_1", name="read", arguments='{"path": "a.py"}'),),
        ),
        Message(role="tool", tool_call_id="toolu_1", content="x = 1\n", cache_breakpoint=True),
        Message(role="system", content="<system-reminder>Stay focused.</system-reminder>"),
    ),
    tools=(READ_TOOL,),
)


def config(url: str, **changes: object) -> ModelConfig:
    settings: dict[str, object] = {
        "provider": "anthropic",
        "model": "claude-test",
        "base_url": url,
        "api_key": "sk-ant-test",
        "max_retries": 0,
        "timeout": 5.0,
    }
    settings.update(changes)
    return ModelConfig(**settings)  # type: ignore[arg-type]


USAGE = {
    "input_tokens": 12,
    "output_tokens": 6,
    "cache_read_input_tokens": 300,
    "cache_creation_input_tokens": 40,
}


def message(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-1",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": USAGE,
    }


def start() -> dict[str, Any]:
    return {"type": "message_start", "message": {**message([]), "stop_reason": None}}


def text_block(index: int, text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": text},
        },
        {"type": "content_block_stop", "index": index},
    ]


def tool_block(index: int, id: str, *pieces: str, stop: bool = True) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": "read", "input": {}},
        }
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": p},
        }
        for p in pieces
    ]
    if stop:
        events.append({"type": "content_block_stop", "index": index})
    return events


def finish(stop: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 25},
        },
        {"type": "message_stop"},
    ]


def test_complete_sends_the_exact_messages_body_with_cache_markers(
    server: LoopbackServer,
) -> None:
    server.add(json_answer(message([{"type": "text", "text": "ok"}])))
    make_client(config(server.url)).complete(REQUEST)
    (sent,) = server.requests
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    # SDK versions send the key as x-api-key or as a bearer token
    assert "sk-ant-test" in (
        sent.headers.get("x-api-key"),
        sent.headers.get("authorization", "")[7:],
    )
    assert "anthropic-version" in sent.headers
    assert sent.body == {
        "model": "claude-test",
        "max_tokens": DEFAULT_MAX_TOKENS,
        "system": [
            {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}
        ],
        "messages": [
            {"role": "user", "content": "Read a.py"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Reading."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "read",
                        "input": {"path": "a.py"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "x = 1\n",
                        "cache_control": {"type": "ephemeral"},
                    },
                    {"type": "text", "text": "<system-reminder>Stay focused.</system-reminder>"},
                ],
            },
        ],
        "tools": [READ_TOOL.to_anthropic()],
    }


def test_limits_and_temperature_come_from_the_request_then_the_config(
    server: LoopbackServer,
) -> None:
    server.add(json_answer(message([])), json_answer(message([])))
    client = make_client(config(server.url, max_tokens=2000))
    client.complete(ModelRequest(messages=(Message(role="user", content="hi"),)))
    client.complete(
        ModelRequest(messages=(Message(role="user", content="hi"),), max_tokens=10, temperature=0.5)
    )
    first, second = (r.body for r in server.requests)
    assert first["max_tokens"] == 2000 and "temperature" not in first
    assert second["max_tokens"] == 10 and second["temperature"] == 0.5


def test_complete_returns_text_tool_calls_and_cache_usage(server: LoopbackServer) -> None:
    server.add(
        json_answer(
            message(
                [
                    {"type": "text", "text": "Let me read it."},
                    {
                        "type": "tool_use",
                        "id": "toolu_2",
                        "name": "read",
                        "input": {"path": "b.py"},
                    },
                ],
                stop="tool_use",
            )
        )
    )
    reply = make_client(config(server.url)).complete(REQUEST)
    assert reply == ModelReply(
        text="Let me read it.",
        tool_calls=(ToolCall(id="toolu_2", name="read", arguments='{"path": "b.py"}'),),
        usage=Usage(input_tokens=12, output_tokens=6, cache_read_tokens=300, cache_write_tokens=40),
        stop_reason="tool_use",
        model="claude-test-1",
    )


def test_stream_yields_text_and_assembles_tool_calls(server: LoopbackServer) -> None:
    server.add(
        anthropic_stream(
            [
                start(),
                *text_block(0, "Reading"),
                *tool_block(1, "toolu_3", '{"path"', ': "c.py"}'),
                *finish("tool_use"),
            ]
        )
    )
    events = list(make_client(config(server.url)).stream(REQUEST))
    assert events == [
        TextDelta(text="Reading"),
        ReplyDone(
            reply=ModelReply(
                text="Reading",
                tool_calls=(ToolCall(id="toolu_3", name="read", arguments='{"path": "c.py"}'),),
                usage=Usage(
                    input_tokens=12, output_tokens=25, cache_read_tokens=300, cache_write_tokens=40
                ),
                stop_reason="tool_use",
                model="claude-test-1",
            )
        ),
    ]
    assert server.requests[0].body["stream"] is True


def test_a_stream_cut_off_keeps_the_text_and_the_finished_tool_calls(
    server: LoopbackServer,
) -> None:
    events = [
        start(),
        *text_block(0, "Two reads."),
        *tool_block(1, "toolu_a", '{"path": "a.py"}'),
        *tool_block(2, "toolu_b", '{"path": "b', stop=False),
        *finish("tool_use"),
    ]
    server.add(anthropic_stream(events, cut_after=len(events) - 2))
    stream = make_client(config(server.url)).stream(REQUEST)
    assert next(stream) == TextDelta(text="Two reads.")
    with pytest.raises(ModelStreamInterrupted) as caught:
        list(stream)
    partial = caught.value.partial
    assert partial is not None
    assert partial.text == "Two reads."
    assert partial.tool_calls == (
        ToolCall(id="toolu_a", name="read", arguments='{"path": "a.py"}'),
    )
    assert server.url in str(caught.value)


def test_a_stream_without_message_stop_is_interrupted(server: LoopbackServer) -> None:
    server.add(anthropic_stream([start(), *text_block(0, "Half")]))
    with pytest.raises(ModelStreamInterrupted) as caught:
        list(make_client(config(server.url)).stream(REQUEST))
    assert caught.value.partial is not None and caught.value.partial.text == "Half"


def test_an_error_event_inside_the_stream_is_interrupted_with_the_partial(
    server: LoopbackServer,
) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.add(anthropic_stream([start(), *text_block(0, "Part"), error]))
    with pytest.raises(ModelStreamInterrupted) as caught:
        list(make_client(config(server.url)).stream(REQUEST))
    assert "Overloaded" in str(caught.value)
    assert caught.value.partial is not None and caught.value.partial.text == "Part"


def test_a_refused_connection_names_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ModelConnectionError) as caught:
        make_client(config(url)).stream(REQUEST)
    assert url in str(caught.value) and "connection refused" in str(caught.value)


def test_429_is_rate_limited_with_the_servers_wait(server: LoopbackServer) -> None:
    body = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}
    server.add(json_answer(body, status=429, headers={"retry-after": "3"}))
    with pytest.raises(RateLimited) as caught:
        make_client(config(server.url)).complete(REQUEST)
    assert caught.value.retry_after == 3.0 and "rate_limit_error" in caught.value.body


def test_an_overloaded_server_is_an_http_error_with_the_status(server: LoopbackServer) -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.add(json_answer(body, status=529))
    with pytest.raises(ModelHTTPError) as caught:
        make_client(config(server.url)).complete(REQUEST)
    assert caught.value.status == 529 and "ask again later" in str(caught.value)


def test_blocked_requests_never_reach_the_server(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTPROMPT_ALLOW_MODEL_REQUESTS", "0")
    client = AnthropicClient(config(server.url))
    with pytest.raises(ModelRequestsBlocked):
        client.stream(REQUEST)
    assert server.requests == []


def test_an_answer_that_is_not_a_messages_reply_is_a_clear_error(server: LoopbackServer) -> None:
    server.add(json_answer({"unexpected": True}))
    with pytest.raises(ModelReplyError) as caught:
        make_client(config(server.url)).complete(REQUEST)
    assert "did not answer in the Anthropic Messages format" in str(caught.value)


def test_a_server_that_stops_sending_mid_stream_times_out_with_the_partial(
    server: LoopbackServer,
) -> None:
    events = [start(), *text_block(0, "So far"), *finish("end_turn")]
    answer = anthropic_stream(events)
    server.add(replace(answer, stall_after=4, stall=1.0))
    with pytest.raises(ModelStreamInterrupted) as caught:
        list(make_client(config(server.url, timeout=0.2)).stream(REQUEST))
    assert "no answer within 0.2 s" in str(caught.value)
    assert caught.value.partial is not None and caught.value.partial.text == "So far"


def test_a_stable_head_marked_inside_the_system_prompt_is_sent_as_its_own_cached_block(
    server: LoopbackServer,
) -> None:
    server.add(json_answer(message([])))
    system = Message(
        role="system", content="Stable rules.\nPer-turn facts.", inner_breakpoints=(14,)
    )
    request = ModelRequest(messages=(system, Message(role="user", content="hi")))
    make_client(config(server.url)).complete(request)
    assert server.requests[0].body["system"] == [
        {"type": "text", "text": "Stable rules.\n", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Per-turn facts."},
    ]


def test_a_stream_cut_off_after_the_stop_reason_is_a_whole_reply(server: LoopbackServer) -> None:
    events = [start(), *text_block(0, "All"), *finish("end_turn")]
    server.add(anthropic_stream(events, cut_after=len(events) - 1))
    *_, done = make_client(config(server.url)).stream(REQUEST)
    assert isinstance(done, ReplyDone)
    assert (done.reply.text, done.reply.stop_reason) == ("All", "end_turn")


def test_a_history_with_tool_calls_but_no_tools_is_refused_before_sending(
    server: LoopbackServer,
) -> None:
    client = AnthropicClient(config(server.url))
    with pytest.raises(ModelError, match="pass the tool definitions again"):
        client.complete(replace(REQUEST, tools=()))
    assert server.requests == []
