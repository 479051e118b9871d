"""Messages to and from OpenAI Chat Completions message dicts, without loss."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.messages import (
    CacheControl,
    ContentPart,
    ImagePart,
    Message,
    MessageFormatError,
    Role,
    TextPart,
    ToolCall,
)
from agentprompt.wire import from_openai, to_openai

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a careful coding assistant."},
    {"role": "user", "content": "What is in main.py?"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "And this screenshot:"},
            {
                "type": "image_url",
                "image_url": {"url": "https://example.com/shot.png", "detail": "high"},
            },
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4AAQ"}},
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "main.py"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "list", "arguments": "{}"},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "print('hi')\n"},
    {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "main.py"}]},
    {"role": "assistant", "name": "helper", "content": "It prints hi."},
    {"role": "user", "name": "alice", "content": "Thanks."},
]


def test_chat_completions_messages_round_trip_exactly() -> None:
    assert to_openai(from_openai(CONVERSATION)) == CONVERSATION


def test_from_openai_reads_each_field_into_a_message() -> None:
    messages = from_openai(CONVERSATION)

    assert messages[2] == Message(
        role="user",
        content=(
            TextPart(text="And this screenshot:"),
            ImagePart(url="https://example.com/shot.png", detail="high"),
            ImagePart(data="/9j/4AAQ", media_type="image/jpeg"),  # data URLs read as data
        ),
    )
    assert messages[3] == Message(
        role="assistant",
        content=None,
        tool_calls=(
            ToolCall(id="call_1", name="read", arguments='{"path": "main.py"}'),
            ToolCall(id="call_2", name="list", arguments="{}"),
        ),
    )
    assert messages[4] == Message(role="tool", tool_call_id="call_1", content="print('hi')\n")
    assert messages[6] == Message(role="assistant", name="helper", content="It prints hi.")


def test_developer_role_reads_as_system() -> None:
    messages = from_openai([{"role": "developer", "content": "Be brief."}])

    assert messages == [Message(role="system", content="Be brief.")]


def test_system_messages_can_be_written_with_the_developer_role() -> None:
    messages = [Message(role="system", content="Be brief."), Message(role="user", content="hi")]

    assert to_openai(messages, system_role="developer") == [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]


def test_system_messages_are_written_with_the_system_role_by_default() -> None:
    assert to_openai([Message(role="system", content="Be brief.")]) == [
        {"role": "system", "content": "Be brief."}
    ]


def test_inline_image_data_is_sent_as_a_data_url() -> None:
    msg = Message(role="user", content=(ImagePart(data="iVBORw0K", media_type="image/webp"),))

    assert to_openai([msg])[0]["content"] == [
        {"type": "image_url", "image_url": {"url": "data:image/webp;base64,iVBORw0K"}}
    ]


def test_inline_image_data_without_media_type_is_sent_as_png() -> None:
    msg = Message(role="user", content=(ImagePart(data="iVBORw0K"),))

    assert to_openai([msg])[0]["content"][0]["image_url"]["url"] == (
        "data:image/png;base64,iVBORw0K"
    )


def test_cache_markers_are_not_sent() -> None:
    msg = Message(
        role="user",
        content=(TextPart(text="long context", cache_control=CacheControl(ttl="1h")),),
        cache_breakpoint=True,
    )

    assert to_openai([msg]) == [
        {"role": "user", "content": [{"type": "text", "text": "long context"}]}
    ]


def test_unknown_role_raises_naming_the_role_and_position() -> None:
    wire = [{"role": "user", "content": "hi"}, {"role": "function", "content": "x"}]

    with pytest.raises(MessageFormatError, match=r"message 1: unknown role 'function'"):
        from_openai(wire)


def test_unsupported_content_part_raises_naming_its_type() -> None:
    wire = [{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}]

    with pytest.raises(MessageFormatError, match=r"message 0: content part type 'input_audio'"):
        from_openai(wire)


def test_content_that_is_neither_string_list_nor_null_raises() -> None:
    with pytest.raises(
        MessageFormatError, match="content must be a string, a list of content-part objects or null"
    ):
        from_openai([{"role": "user", "content": 42}])


def test_tool_message_without_tool_call_id_raises() -> None:
    with pytest.raises(MessageFormatError, match="tool_call_id"):
        from_openai([{"role": "tool", "content": "done"}])


# -- property tests --------------------------------------------------------------------------

ids = st.text(min_size=1, max_size=12)
texts = st.text(max_size=30)
names = st.none() | st.text(min_size=1, max_size=10)
details = st.sampled_from([None, "low", "high", "auto"])

text_parts = st.builds(TextPart, text=texts)
url_images = st.builds(
    ImagePart, url=st.text(min_size=1, max_size=30), detail=details
)  # from_openai reads every image as a URL
parts: st.SearchStrategy[ContentPart] = text_parts | url_images
content = texts | st.lists(parts, max_size=3).map(tuple)
tool_calls = st.builds(ToolCall, id=ids, name=st.text(min_size=1, max_size=10), arguments=texts)


@st.composite
def canonical_messages(draw: st.DrawFn) -> Message:
    """A message that the OpenAI form represents completely."""
    role: Role = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
    if role == "tool":
        tool_content = texts | st.lists(text_parts, max_size=3).map(tuple)
        return Message(role="tool", tool_call_id=draw(ids), content=draw(tool_content))
    if role == "assistant":
        calls = tuple(draw(st.lists(tool_calls, max_size=3)))
        body = draw(st.none() | content) if calls else draw(content)
        return Message(role="assistant", content=body, tool_calls=calls, name=draw(names))
    return Message(role=role, content=draw(content), name=draw(names))


@settings(max_examples=200)
@given(st.lists(canonical_messages(), max_size=8))
def test_messages_round_trip_through_the_openai_form(messages: list[Message]) -> None:
    assert from_openai(to_openai(messages)) == messages


def _wire_content(draw: st.DrawFn, *, images: bool) -> Any:
    block: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
        {"type": st.just("text"), "text": texts}
    )
    if images:
        image = st.fixed_dictionaries(
            {"url": st.text(min_size=1, max_size=30)},
            optional={"detail": st.sampled_from(["low", "high", "auto"])},
        )
        block |= st.fixed_dictionaries({"type": st.just("image_url"), "image_url": image})
    return draw(texts | st.lists(block, max_size=3))


@st.composite
def wire_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A Chat Completions message dict in the form ``to_openai`` writes."""
    role = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
    wire: dict[str, Any] = {"role": role}
    if role == "tool":
        wire["tool_call_id"] = draw(ids)
        wire["content"] = _wire_content(draw, images=False)
        return wire
    if role == "assistant" and draw(st.booleans()):
        wire["content"] = draw(st.none() | texts)
        wire["tool_calls"] = [
            {
                "id": draw(ids),
                "type": "function",
                "function": {"name": draw(ids), "arguments": draw(texts)},
            }
            for _ in range(draw(st.integers(1, 3)))
        ]
    else:
        wire["content"] = _wire_content(draw, images=role == "user")
    name = draw(names)
    if name is not None:
        wire["name"] = name
    return wire


@settings(max_examples=200)
@given(st.lists(wire_messages(), max_size=8))
def test_chat_completions_conversations_round_trip_exactly(wire: list[dict[str, Any]]) -> None:
    assert to_openai(from_openai(wire)) == wire


def test_a_tool_call_without_a_function_is_a_format_error() -> None:
    wire = [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]}
    ]
    with pytest.raises(MessageFormatError, match="tool call needs an id and a function"):
        from_openai(wire)


def test_a_message_that_is_not_an_object_is_a_format_error() -> None:
    with pytest.raises(MessageFormatError, match="message 0"):
        from_openai(["hello"])  # type: ignore[list-item]


def test_inner_breakpoints_do_not_change_the_openai_form() -> None:
    msg = Message(role="system", content="static\n\nsession", inner_breakpoints=(8,))
    assert to_openai([msg]) == [{"role": "system", "content": "static\n\nsession"}]


def test_a_data_url_image_goes_to_anthropic_as_base64_data() -> None:
    from agentprompt.wire import to_anthropic

    wire = [
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}],
        }
    ]
    block = to_anthropic(from_openai(wire))["messages"][0]["content"][0]
    assert block == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
    }


def test_an_image_url_part_that_is_not_an_object_is_a_format_error() -> None:
    wire = [{"role": "user", "content": [{"type": "image_url", "image_url": "http://x/a.png"}]}]
    with pytest.raises(MessageFormatError, match="image_url part needs an object"):
        from_openai(wire)
