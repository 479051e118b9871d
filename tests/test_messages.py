"""The provider-independent message values: their shape, validation and derived views."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.errors import AgentPromptError
from agentprompt.messages import (
    CacheControl,
    ImagePart,
    Message,
    MessageFormatError,
    TextPart,
    ToolCall,
    ToolDefinition,
)

# -- values ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "field_name"),
    [
        (Message(role="user", content="hi"), "content"),
        (TextPart(text="hi"), "text"),
        (ImagePart(url="https://example.com/a.png"), "url"),
        (ToolCall(id="c1", name="read"), "arguments"),
        (CacheControl(), "ttl"),
        (ToolDefinition(name="read", description="Read a file."), "name"),
    ],
)
def test_message_values_are_frozen(value: object, field_name: str) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field_name, "changed")


@pytest.mark.parametrize(
    ("cls", "args"),
    [
        (Message, ("user", "hi")),
        (TextPart, ("hi",)),
        (ImagePart, ("https://example.com/a.png",)),
        (ToolCall, ("c1", "read")),
        (CacheControl, ("ephemeral",)),
        (ToolDefinition, ("read", "Read a file.")),
    ],
)
def test_message_values_take_keyword_arguments_only(cls: Any, args: tuple[str, ...]) -> None:
    with pytest.raises(TypeError):
        cls(*args)


def test_message_defaults_are_an_empty_text_message() -> None:
    msg = Message(role="user")

    assert msg.content == ""
    assert msg.tool_calls == ()
    assert msg.tool_call_id is None
    assert msg.name is None
    assert msg.is_error is False
    assert msg.cache_breakpoint is False


def test_cache_control_defaults_to_ephemeral_without_ttl() -> None:
    assert CacheControl() == CacheControl(type="ephemeral", ttl=None)


def test_parts_carry_their_kind_discriminator() -> None:
    assert TextPart(text="x").kind == "text"
    assert ImagePart(data="aGk=", media_type="image/png").kind == "image"


def test_message_format_error_is_an_agentprompt_error() -> None:
    assert issubclass(MessageFormatError, AgentPromptError)


# -- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["system", "user", "tool"])
def test_only_assistant_messages_carry_tool_calls(role: Any) -> None:
    with pytest.raises(
        MessageFormatError, match=f"only assistant messages carry tool calls.*{role}"
    ):
        Message(role=role, tool_calls=(ToolCall(id="c1", name="read"),), tool_call_id="c0")


def test_assistant_message_may_carry_tool_calls() -> None:
    call = ToolCall(id="c1", name="read")

    assert Message(role="assistant", content=None, tool_calls=(call,)).tool_calls == (call,)


@pytest.mark.parametrize("tool_call_id", [None, ""])
def test_tool_message_needs_the_tool_call_id_it_answers(tool_call_id: str | None) -> None:
    with pytest.raises(MessageFormatError, match="tool_call_id"):
        Message(role="tool", content="done", tool_call_id=tool_call_id)


def test_tool_message_with_tool_call_id_is_valid() -> None:
    assert Message(role="tool", content="done", tool_call_id="c1").tool_call_id == "c1"


def test_image_part_needs_url_or_data() -> None:
    with pytest.raises(MessageFormatError, match="exactly one of url or data"):
        ImagePart()


def test_image_part_cannot_have_both_url_and_data() -> None:
    with pytest.raises(MessageFormatError, match="exactly one of url or data"):
        ImagePart(url="https://example.com/a.png", data="aGk=")


def test_image_part_by_url_or_by_data_is_valid() -> None:
    assert ImagePart(url="https://example.com/a.png").data is None
    assert ImagePart(data="aGk=", media_type="image/png").url is None


# -- tool call arguments ---------------------------------------------------------------------


def test_parsed_arguments_gives_the_json_object_as_a_dict() -> None:
    call = ToolCall(id="c1", name="read", arguments='{"path": "a.py", "lines": [1, 2]}')

    assert call.parsed_arguments() == {"path": "a.py", "lines": [1, 2]}


def test_parsed_arguments_reads_empty_arguments_as_no_arguments() -> None:
    assert ToolCall(id="c1", name="list", arguments="").parsed_arguments() == {}
    assert ToolCall(id="c1", name="list").parsed_arguments() == {}


def test_parsed_arguments_with_invalid_json_raises_naming_the_call() -> None:
    call = ToolCall(id="call_7", name="write", arguments='{"path": "a.py"')

    with pytest.raises(MessageFormatError) as info:
        call.parsed_arguments()

    text = str(info.value)
    assert "'call_7'" in text
    assert "'write'" in text
    assert "not valid JSON" in text
    assert '{"path": "a.py"' in text


@pytest.mark.parametrize("arguments", ["[1, 2]", '"path"', "3", "null", "true"])
def test_parsed_arguments_that_are_not_an_object_raise_naming_the_call(arguments: str) -> None:
    call = ToolCall(id="call_8", name="grep", arguments=arguments)

    with pytest.raises(MessageFormatError, match=r"'call_8' to 'grep'.*not a JSON object"):
        call.parsed_arguments()


def test_parsed_arguments_error_is_an_agentprompt_error() -> None:
    with pytest.raises(AgentPromptError):
        ToolCall(id="c1", name="read", arguments="{").parsed_arguments()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150)
@given(st.dictionaries(st.text(), json_values, max_size=5))
def test_parsed_arguments_inverts_json_encoding_of_any_object(arguments: dict[str, Any]) -> None:
    call = ToolCall(id="c1", name="tool", arguments=json.dumps(arguments))

    assert call.parsed_arguments() == arguments


# -- text and parts --------------------------------------------------------------------------


def test_text_of_string_content_is_the_string() -> None:
    assert Message(role="user", content="hello").text == "hello"


def test_text_of_no_content_is_empty() -> None:
    call = ToolCall(id="c1", name="read")

    assert Message(role="assistant", content=None, tool_calls=(call,)).text == ""


def test_text_of_block_content_joins_the_text_blocks_and_skips_images() -> None:
    msg = Message(
        role="user",
        content=(
            TextPart(text="look at "),
            ImagePart(url="https://example.com/a.png"),
            TextPart(text="this"),
        ),
    )

    assert msg.text == "look at this"


def test_parts_of_string_content_is_one_text_block() -> None:
    assert Message(role="user", content="hello").parts == (TextPart(text="hello"),)


@pytest.mark.parametrize("content", ["", None, ()])
def test_parts_of_empty_or_missing_content_is_no_blocks(content: Any) -> None:
    assert Message(role="assistant", content=content).parts == ()


def test_parts_of_block_content_are_the_blocks_themselves() -> None:
    blocks = (TextPart(text="a"), ImagePart(data="aGk=", media_type="image/png"))

    assert Message(role="user", content=blocks).parts == blocks


# -- tool definitions ------------------------------------------------------------------------

READ_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}


def test_tool_definition_to_openai_is_a_function_tools_entry() -> None:
    tool = ToolDefinition(name="read", description="Read a file.", parameters=READ_SCHEMA)

    assert tool.to_openai() == {
        "type": "function",
        "function": {"name": "read", "description": "Read a file.", "parameters": READ_SCHEMA},
    }


def test_tool_definition_to_anthropic_uses_input_schema() -> None:
    tool = ToolDefinition(name="read", description="Read a file.", parameters=READ_SCHEMA)

    assert tool.to_anthropic() == {
        "name": "read",
        "description": "Read a file.",
        "input_schema": READ_SCHEMA,
    }


def test_tool_definition_without_parameters_takes_an_empty_object() -> None:
    tool = ToolDefinition(name="list", description="List files.")

    assert tool.parameters == {"type": "object", "properties": {}}
    assert tool.to_anthropic()["input_schema"] == {"type": "object", "properties": {}}


def test_tool_definition_wire_json_is_its_openai_entry_with_sorted_keys() -> None:
    tool = ToolDefinition(
        name="lire", description="Lit un fichier « texte ».", parameters=READ_SCHEMA
    )

    assert json.loads(tool.wire_json) == tool.to_openai()
    assert tool.wire_json.startswith('{"function": {"description": "Lit un fichier « texte ».",')
    assert tool.wire_json.endswith('"type": "function"}')


def test_tool_definition_wire_json_is_computed_once() -> None:
    tool = ToolDefinition(name="read", description="Read a file.")

    assert tool.wire_json is tool.wire_json


@pytest.mark.parametrize(
    "content, offsets",
    [
        ("abc", (0,)),
        ("abc", (3,)),
        ("abc", (2, 1)),
        ("abc", (1, 1)),
        ((TextPart(text="abc"),), (1,)),
    ],
)
def test_inner_breakpoints_must_be_increasing_offsets_inside_a_string(
    content: str | tuple[TextPart, ...], offsets: tuple[int, ...]
) -> None:
    with pytest.raises(MessageFormatError, match="inner_breakpoints"):
        Message(role="user", content=content, inner_breakpoints=offsets)
