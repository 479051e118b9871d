"""``script:FILE``: replies, tool calls and failures replayed from a JSON file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentprompt.llm import (
    ModelConfigError,
    ModelConnectionError,
    ModelHTTPError,
    ModelReply,
    ModelRequest,
    ModelStreamInterrupted,
    RateLimited,
    ReplyDone,
    ScriptOutOfAnswers,
    TextDelta,
    Usage,
    load_script_model,
)
from agentprompt.messages import Message, ToolCall

REQUEST = ModelRequest(messages=(Message(role="user", content="hi"),))


def script(tmp_path: Path, items: object) -> Path:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps(items))
    return path


def test_a_string_is_a_text_reply(tmp_path: Path) -> None:
    model = load_script_model(script(tmp_path, ["Hello there"]))
    reply = model.complete(REQUEST)
    assert reply.text == "Hello there" and reply.tool_calls == ()
    assert model.requests == [REQUEST]


def test_a_reply_object_carries_tool_calls_usage_and_stop_reason(tmp_path: Path) -> None:
    item = {
        "text": "Reading.",
        "tool_calls": [
            {"id": "c1", "name": "read", "arguments": {"path": "a.py"}},
            {"name": "ls", "arguments": "{}"},
        ],
        "usage": {"input_tokens": 10, "output_tokens": 2, "cache_read_tokens": 5},
    }
    reply = load_script_model(script(tmp_path, [item])).complete(REQUEST)
    assert reply == ModelReply(
        text="Reading.",
        tool_calls=(
            ToolCall(id="c1", name="read", arguments='{"path": "a.py"}'),
            ToolCall(id="call_1_2", name="ls", arguments="{}"),
        ),
        usage=Usage(input_tokens=10, output_tokens=2, cache_read_tokens=5),
        stop_reason="tool_use",
        model="script",
    )


def test_stream_replays_the_reply_in_pieces(tmp_path: Path) -> None:
    events = list(load_script_model(script(tmp_path, ["abcdefghij"])).stream(REQUEST))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "abcdefghij"
    assert isinstance(events[-1], ReplyDone) and events[-1].reply.text == "abcdefghij"


@pytest.mark.parametrize(
    ("item", "error"),
    [
        ({"error": "http", "status": 502}, ModelHTTPError),
        ({"error": "rate_limited", "retry_after": 2}, RateLimited),
        ({"error": "connection"}, ModelConnectionError),
        ({"error": "interrupted"}, ModelStreamInterrupted),
    ],
)
def test_an_error_object_raises_the_matching_model_error(
    tmp_path: Path, item: dict[str, object], error: type[Exception]
) -> None:
    model = load_script_model(script(tmp_path, [item, "after"]))
    with pytest.raises(error):
        model.complete(REQUEST)
    assert model.complete(REQUEST).text == "after"


def test_an_error_object_carries_its_partial_reply(tmp_path: Path) -> None:
    item = {"error": "interrupted", "partial": {"text": "Half an ans"}}
    events = load_script_model(script(tmp_path, [item])).stream(REQUEST)
    streamed: list[str] = []
    with pytest.raises(ModelStreamInterrupted) as caught:
        # As from a real client: the partial text streams, then the stream fails.
        streamed.extend(event.text for event in events if isinstance(event, TextDelta))
    assert "".join(streamed) == "Half an ans"
    assert caught.value.partial is not None and caught.value.partial.text == "Half an ans"


def test_a_rate_limit_item_keeps_its_wait(tmp_path: Path) -> None:
    model = load_script_model(script(tmp_path, [{"error": "rate_limited", "retry_after": 2}]))
    with pytest.raises(RateLimited) as caught:
        model.complete(REQUEST)
    assert caught.value.retry_after == 2.0


def test_any_other_object_is_an_answer_for_execute_prompt(tmp_path: Path) -> None:
    answer = {"done": True, "files": ["a.py"]}
    model = load_script_model(script(tmp_path, [answer]))
    assert model.execute_prompt("which files?") == answer


def test_running_out_names_the_file_and_the_count(tmp_path: Path) -> None:
    path = script(tmp_path, ["one"])
    model = load_script_model(path, advice="or ask less")
    model.complete(REQUEST)
    with pytest.raises(ScriptOutOfAnswers) as caught:
        model.stream(REQUEST)
    assert str(caught.value) == (
        f"the model script {path} has no answer for round 2 (it holds 1); add one reply per "
        "model call to its JSON list, or ask less"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the model script"),
        ("not json", "is not JSON"),
        ('{"text": "x"}', "must hold a JSON list of answers"),
        ("[3]", "item 1 is neither a string nor an object"),
        ('["ok", {"tool_calls": [{"arguments": {}}]}]', "item 2 has a tool call without a name"),
        ('[{"error": "teapot"}]', "has error 'teapot'"),
        ('[{"text": "x", "usage": {"input_tokens": "many"}}]', "has a usage that is not"),
        ('[{"error": "http", "partial": "x"}]', "has a partial that is not a reply object"),
    ],
)
def test_a_bad_script_is_an_error_naming_the_file(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "replies.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ModelConfigError) as caught:
        load_script_model(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
