"""Messages to and from the Anthropic Messages API form, cache markers included."""

from __future__ import annotations

import json
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
    TextPart,
    ToolCall,
)
from agentprompt.wire import MAX_CACHE_BREAKPOINTS, from_anthropic, to_anthropic

CONVERSATION: list[dict[str, Any]] = [
    {"role": "user", "content": "What is in main.py, and what does this show?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "main.py"}},
            {"type": "tool_use", "id": "toolu_2", "name": "list", "input": {}},
            {
                "type": "tool_use",
                "id": "toolu_3",
                "name": "grep",
                "input": {"pattern": "def", "paths": ["a.py", "b.py"], "limit": 3},
            },
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "print('hi')\n"},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": [
                    {"type": "text", "text": "main.py"},
                    {"type": "text", "text": "shot.png"},
                ],
            },
            {
                "type": "tool_result",
                "tool_use_id": "toolu_3",
                "content": "grep: b.py: no such file",
                "is_error": True,
            },
            {"type": "text", "text": "Also look at these:"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
            },
            {"type": "image", "source": {"type": "url", "url": "https://example.com/s.jpg"}},
        ],
    },
    {"role": "assistant", "content": "It prints hi; the screenshot shows a login form."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Thanks.", "cache_control": {"type": "ephemeral"}},
        ],
    },
]


def test_request_with_string_system_round_trips_exactly() -> None:
    system = "You are a careful coding assistant."

    assert to_anthropic(from_anthropic(CONVERSATION, system)) == {
        "system": system,
        "messages": CONVERSATION,
    }


def test_request_with_cached_system_blocks_round_trips_exactly() -> None:
    system: list[dict[str, Any]] = [
        {"type": "text", "text": "You are a careful coding assistant."},
        {
            "type": "text",
            "text": "Repository map: ...",
            "cache_control": {"type": "ephemeral", "ttl": "1h"},
        },
        {"type": "text", "text": "Project rules: ...", "cache_control": {"type": "ephemeral"}},
    ]

    assert to_anthropic(from_anthropic(CONVERSATION, system)) == {
        "system": system,
        "messages": CONVERSATION,
    }


def test_request_without_system_has_no_system_field() -> None:
    assert to_anthropic(from_anthropic(CONVERSATION)) == {"messages": CONVERSATION}


def test_cached_system_blocks_read_as_one_system_message_with_cache_markers() -> None:
    system: list[dict[str, Any]] = [
        {"type": "text", "text": "rules"},
        {"type": "text", "text": "map", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
    ]

    assert from_anthropic([], system) == [
        Message(
            role="system",
            content=(
                TextPart(text="rules"),
                TextPart(text="map", cache_control=CacheControl(ttl="1h")),
            ),
        )
    ]


def test_assistant_turn_reads_as_text_blocks_and_tool_calls() -> None:
    messages = from_anthropic(CONVERSATION)

    assert messages[1] == Message(
        role="assistant",
        content=(TextPart(text="Let me look."),),
        tool_calls=(
            ToolCall(id="toolu_1", name="read", arguments='{"path": "main.py"}'),
            ToolCall(id="toolu_2", name="list", arguments="{}"),
            ToolCall(
                id="toolu_3",
                name="grep",
                arguments='{"pattern": "def", "paths": ["a.py", "b.py"], "limit": 3}',
            ),
        ),
    )


def test_tool_results_read_as_tool_messages_followed_by_the_rest_of_the_turn() -> None:
    messages = from_anthropic(CONVERSATION)

    assert messages[2:6] == [
        Message(role="tool", tool_call_id="toolu_1", content="print('hi')\n"),
        Message(
            role="tool",
            tool_call_id="toolu_2",
            content=(TextPart(text="main.py"), TextPart(text="shot.png")),
        ),
        Message(
            role="tool", tool_call_id="toolu_3", content="grep: b.py: no such file", is_error=True
        ),
        Message(
            role="user",
            content=(
                TextPart(text="Also look at these:"),
                ImagePart(data="iVBORw0K", media_type="image/png"),
                ImagePart(url="https://example.com/s.jpg"),
            ),
        ),
    ]


def test_tool_results_go_first_in_their_user_turn_as_the_api_requires() -> None:
    turn = {
        "role": "user",
        "content": [
            {"type": "text", "text": "first"},
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
            {"type": "text", "text": "last"},
        ],
    }

    assert from_anthropic([turn]) == [
        Message(role="user", content=(TextPart(text="first"),)),
        Message(role="tool", tool_call_id="t1", content="ok"),
        Message(role="user", content=(TextPart(text="last"),)),
    ]
    assert to_anthropic(from_anthropic([turn]))["messages"][0]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
        {"type": "text", "text": "first"},
        {"type": "text", "text": "last"},
    ]


def test_a_reminder_between_a_call_and_its_result_still_puts_the_result_first() -> None:
    messages = [
        Message(role="user", content="go"),
        Message(role="assistant", tool_calls=(ToolCall(id="t1", name="read"),)),
        Message(role="system", content="<system-reminder>\nstay focused\n</system-reminder>"),
        Message(role="tool", tool_call_id="t1", content="file text"),
    ]

    last = to_anthropic(messages)["messages"][-1]
    assert [b["type"] for b in last["content"]] == ["tool_result", "text"]


def test_tool_result_without_content_round_trips() -> None:
    turn = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}

    assert from_anthropic([turn]) == [Message(role="tool", tool_call_id="t1", content=None)]
    assert to_anthropic(from_anthropic([turn])) == {"messages": [turn]}


def test_cached_tool_result_reads_as_a_cache_breakpoint() -> None:
    block = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "ok",
        "cache_control": {"type": "ephemeral"},
    }
    turn = {"role": "user", "content": [block]}

    assert from_anthropic([turn]) == [
        Message(role="tool", tool_call_id="t1", content="ok", cache_breakpoint=True)
    ]
    assert to_anthropic(from_anthropic([turn])) == {"messages": [turn]}


# -- cache breakpoints -----------------------------------------------------------------------


def test_cache_breakpoint_marks_the_last_block_of_a_user_message() -> None:
    msg = Message(role="user", content="long context", cache_breakpoint=True)

    assert to_anthropic([msg]) == {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "long context", "cache_control": {"type": "ephemeral"}}
                ],
            }
        ]
    }


def test_cache_breakpoint_marks_the_last_tool_use_of_an_assistant_message() -> None:
    msg = Message(
        role="assistant",
        content="Reading.",
        tool_calls=(ToolCall(id="t1", name="read", arguments='{"path": "a"}'),),
        cache_breakpoint=True,
    )

    assert to_anthropic([msg])["messages"][0]["content"] == [
        {"type": "text", "text": "Reading."},
        {
            "type": "tool_use",
            "id": "t1",
            "name": "read",
            "input": {"path": "a"},
            "cache_control": {"type": "ephemeral"},
        },
    ]


def test_cache_breakpoint_marks_the_tool_result_block_of_a_tool_message() -> None:
    msg = Message(role="tool", tool_call_id="t1", content="ok", cache_breakpoint=True)

    assert to_anthropic([msg])["messages"][0]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "t1",
            "content": "ok",
            "cache_control": {"type": "ephemeral"},
        }
    ]


def test_cache_breakpoint_on_the_system_message_makes_system_a_marked_block_list() -> None:
    msg = Message(role="system", content="rules", cache_breakpoint=True)

    assert to_anthropic([msg]) == {
        "system": [{"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}],
        "messages": [],
    }


def test_cache_breakpoint_keeps_a_longer_lived_marker_already_on_the_last_block() -> None:
    part = TextPart(text="context", cache_control=CacheControl(ttl="1h"))
    msg = Message(role="user", content=(part,), cache_breakpoint=True)

    assert to_anthropic([msg])["messages"][0]["content"] == [
        {"type": "text", "text": "context", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    ]


def test_cache_breakpoint_on_a_message_without_content_raises() -> None:
    with pytest.raises(MessageFormatError, match="no content cannot carry a cache breakpoint"):
        to_anthropic([Message(role="user", content="", cache_breakpoint=True)])


def _markers(request: dict[str, Any]) -> list[str]:
    """The text (or tool id) of every block that carries cache_control, in request order."""
    found: list[str] = []

    def visit(blocks: Any) -> None:
        if not isinstance(blocks, list):
            return
        for block in blocks:
            if "cache_control" in block:
                found.append(block.get("text") or block.get("tool_use_id") or block["id"])
            visit(block.get("content"))

    visit(request.get("system"))
    for turn in request["messages"]:
        visit(turn["content"])
    return found


def test_a_request_carries_at_most_four_cache_markers() -> None:
    assert MAX_CACHE_BREAKPOINTS == 4


def test_the_earliest_message_level_breakpoints_are_dropped_beyond_the_limit() -> None:
    messages = [Message(role="system", content="s", cache_breakpoint=True)]
    for i in range(3):
        messages.append(Message(role="user", content=f"u{i}", cache_breakpoint=True))
        messages.append(Message(role="assistant", content=f"a{i}", cache_breakpoint=True))

    assert _markers(to_anthropic(messages)) == ["u1", "a1", "u2", "a2"]


def test_part_level_markers_count_against_the_limit_and_the_last_four_are_kept() -> None:
    wired = TextPart(text="wired", cache_control=CacheControl())
    messages = [
        Message(role="system", content=(wired,)),
        Message(role="user", content="u0", cache_breakpoint=True),
        Message(role="assistant", content="a0", cache_breakpoint=True),
        Message(role="user", content=(TextPart(text="w2", cache_control=CacheControl()),)),
        Message(role="assistant", content="a1", cache_breakpoint=True),
        Message(role="user", content="u2", cache_breakpoint=True),
    ]

    assert _markers(to_anthropic(messages)) == ["a0", "w2", "a1", "u2"]


def test_breakpoints_within_the_limit_are_all_kept() -> None:
    messages = [
        Message(role="system", content="s", cache_breakpoint=True),
        Message(role="user", content="u", cache_breakpoint=True),
        Message(role="tool", tool_call_id="t1", content="r", cache_breakpoint=True),
    ]

    assert _markers(to_anthropic(messages)) == ["s", "t1", "u"]  # results go first


@settings(max_examples=150)
@given(st.lists(st.tuples(st.sampled_from(["user", "assistant"]), st.booleans()), max_size=12))
def test_only_the_last_four_message_level_breakpoints_are_kept(
    turns: list[tuple[str, bool]],
) -> None:
    messages = [
        Message(role=role, content=f"m{i}", cache_breakpoint=marked)  # type: ignore[arg-type]
        for i, (role, marked) in enumerate(turns)
    ]
    wanted = [f"m{i}" for i, (_, marked) in enumerate(turns) if marked]

    assert _markers(to_anthropic(messages)) == wanted[-MAX_CACHE_BREAKPOINTS:]


def test_to_anthropic_leaves_its_input_messages_unchanged() -> None:
    messages = [Message(role="user", content=f"u{i}", cache_breakpoint=True) for i in range(6)]
    before = list(messages)

    to_anthropic(messages)

    assert messages == before


# -- system messages and turn merging --------------------------------------------------------


def test_leading_system_messages_travel_apart_from_the_conversation() -> None:
    messages = [
        Message(role="system", content="rules"),
        Message(role="system", content="map"),
        Message(role="user", content="hi"),
    ]

    assert to_anthropic(messages) == {
        "system": [{"type": "text", "text": "rules"}, {"type": "text", "text": "map"}],
        "messages": [{"role": "user", "content": "hi"}],
    }


def test_late_system_message_merges_into_the_preceding_user_turn() -> None:
    messages = [
        Message(role="system", content="rules"),
        Message(role="user", content="hi"),
        Message(role="system", content="<system-reminder>be brief</system-reminder>"),
    ]

    assert to_anthropic(messages) == {
        "system": "rules",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "hi"},
                    {"type": "text", "text": "<system-reminder>be brief</system-reminder>"},
                ],
            }
        ],
    }


def test_late_system_message_after_an_assistant_turn_opens_the_next_user_turn() -> None:
    messages = [
        Message(role="user", content="hi"),
        Message(role="assistant", content="hello"),
        Message(role="system", content="reminder"),
        Message(role="user", content="next"),
    ]

    assert to_anthropic(messages)["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "reminder"}, {"type": "text", "text": "next"}],
        },
    ]


def test_adjacent_messages_of_the_same_wire_role_share_one_turn() -> None:
    messages = [
        Message(role="user", content="one"),
        Message(role="user", content=(TextPart(text="two"),)),
        Message(role="assistant", content="three"),
        Message(role="assistant", content="four"),
    ]

    assert to_anthropic(messages)["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "three"}, {"type": "text", "text": "four"}],
        },
    ]


def test_tool_results_and_following_user_text_share_one_user_turn() -> None:
    messages = [
        Message(role="tool", tool_call_id="t1", content="a"),
        Message(role="tool", tool_call_id="t2", content="b", is_error=True),
        Message(role="user", content="go on"),
    ]

    assert to_anthropic(messages)["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "b", "is_error": True},
                {"type": "text", "text": "go on"},
            ],
        }
    ]


def test_inline_image_without_media_type_is_sent_as_png() -> None:
    msg = Message(role="user", content=(ImagePart(data="iVBORw0K"),))

    assert to_anthropic([msg])["messages"][0]["content"] == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
        }
    ]


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["assistant", "user"])
def test_unknown_block_type_raises_naming_it(role: str) -> None:
    turn = {"role": role, "content": [{"type": "thinking", "thinking": "hmm", "signature": "x"}]}

    with pytest.raises(MessageFormatError, match=r"message 0: content block type 'thinking'"):
        from_anthropic([turn])


def test_unknown_block_type_in_system_raises_naming_it() -> None:
    with pytest.raises(MessageFormatError, match=r"system: content block type 'document'"):
        from_anthropic([], [{"type": "document", "source": {}}])


def test_unknown_block_type_inside_a_tool_result_raises_naming_it() -> None:
    block = {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "search_result"}]}

    with pytest.raises(MessageFormatError, match="'search_result'"):
        from_anthropic([{"role": "user", "content": [block]}])


@pytest.mark.parametrize("role", ["system", "tool", "developer", None])
def test_turn_role_other_than_user_or_assistant_raises(role: str | None) -> None:
    with pytest.raises(
        MessageFormatError, match=f"message 0: role must be user or assistant, not {role!r}"
    ):
        from_anthropic([{"role": role, "content": "x"}])


def test_tool_call_with_invalid_json_arguments_raises() -> None:
    msg = Message(
        role="assistant", content=None, tool_calls=(ToolCall(id="t1", name="read", arguments="{"),)
    )

    with pytest.raises(MessageFormatError, match=r"'t1' to 'read'.*not valid JSON"):
        to_anthropic([msg])


def test_tool_call_with_non_object_arguments_raises() -> None:
    msg = Message(
        role="assistant", content=None, tool_calls=(ToolCall(id="t1", name="read", arguments="[]"),)
    )

    with pytest.raises(MessageFormatError, match="not a JSON object"):
        to_anthropic([msg])


# -- property tests --------------------------------------------------------------------------

texts = st.text(max_size=20)
ids = st.text(min_size=1, max_size=10)
ttls = st.sampled_from([None, "5m", "1h"])
json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
tool_inputs = st.dictionaries(
    st.text(max_size=8),
    json_scalars | st.lists(json_scalars, max_size=3),
    max_size=3,
)


def _cache(draw: st.DrawFn, budget: list[int]) -> dict[str, Any] | None:
    """A cache_control marker now and then, while the request's budget of four lasts."""
    if budget[0] == 0 or draw(st.integers(0, 4)) != 0:
        return None
    budget[0] -= 1
    ttl = draw(ttls)
    return {"type": "ephemeral"} if ttl is None else {"type": "ephemeral", "ttl": ttl}


def _text_block(draw: st.DrawFn, budget: list[int]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": draw(texts)}
    cache = _cache(draw, budget)
    if cache is not None:
        block["cache_control"] = cache
    return block


def _content_block(draw: st.DrawFn, budget: list[int]) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text", "base64", "url"]))
    if kind == "text":
        return _text_block(draw, budget)
    if kind == "base64":
        media_type = draw(st.sampled_from(["image/png", "image/jpeg", "image/gif"]))
        source = {"type": "base64", "media_type": media_type, "data": draw(texts)}
    else:
        source = {"type": "url", "url": draw(texts)}
    block: dict[str, Any] = {"type": "image", "source": source}
    cache = _cache(draw, budget)
    if cache is not None:
        block["cache_control"] = cache
    return block


def _tool_result(draw: st.DrawFn, budget: list[int]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": draw(ids)}
    kind = draw(st.sampled_from(["none", "str", "list"]))
    if kind == "str":
        block["content"] = draw(texts)
    elif kind == "list":
        block["content"] = [_content_block(draw, budget) for _ in range(draw(st.integers(0, 3)))]
    if draw(st.booleans()):
        block["is_error"] = True
    if budget[0] and draw(st.integers(0, 4)) == 0:
        budget[0] -= 1  # a tool result's marker is a message-level breakpoint: no ttl
        block["cache_control"] = {"type": "ephemeral"}
    return block


@st.composite
def anthropic_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A canonical Messages API request: alternating turns, at most four cache markers."""
    budget = [MAX_CACHE_BREAKPOINTS]
    request: dict[str, Any] = {}
    system_kind = draw(st.sampled_from(["none", "str", "blocks"]))
    if system_kind == "str":
        request["system"] = draw(texts)
    elif system_kind == "blocks":
        request["system"] = [_text_block(draw, budget) for _ in range(draw(st.integers(1, 3)))]
    turns: list[dict[str, Any]] = []
    for i in range(draw(st.integers(0, 6))):
        role = "user" if i % 2 == 0 else "assistant"
        if draw(st.integers(0, 3)) == 0:
            turns.append({"role": role, "content": draw(texts)})
            continue
        blocks: list[dict[str, Any]] = []
        if role == "user":
            # Tool results come first in a user turn, as the API requires.
            results = draw(st.integers(0, 3))
            others = draw(st.integers(0 if results else 1, 3))
            blocks += [_tool_result(draw, budget) for _ in range(results)]
            blocks += [_content_block(draw, budget) for _ in range(others)]
        else:
            blocks = [_content_block(draw, budget) for _ in range(draw(st.integers(0, 2)))]
            blocks += [
                {"type": "tool_use", "id": draw(ids), "name": draw(ids), "input": draw(tool_inputs)}
                for _ in range(draw(st.integers(0, 2)))
            ]
        turns.append({"role": role, "content": blocks})
    request["messages"] = turns
    return request


@settings(max_examples=200)
@given(anthropic_requests())
def test_canonical_requests_round_trip_exactly(request: dict[str, Any]) -> None:
    messages = from_anthropic(request["messages"], request.get("system"))

    assert to_anthropic(messages) == request


text_parts = st.builds(TextPart, text=texts, cache_control=st.none())
image_parts = st.builds(ImagePart, url=texts.filter(bool)) | st.builds(
    ImagePart, data=texts, media_type=st.sampled_from(["image/png", "image/jpeg"])
)
parts: st.SearchStrategy[ContentPart] = text_parts | image_parts
tool_calls = st.builds(
    ToolCall,
    id=ids,
    name=ids,
    arguments=tool_inputs.map(lambda v: json.dumps(v, ensure_ascii=False)),
)  # arguments as from_anthropic writes them


def _tool_message(draw: st.DrawFn, budget: list[int]) -> Message:
    content = draw(st.none() | texts | st.lists(parts, max_size=3).map(tuple))
    marked = budget[0] > 0 and draw(st.integers(0, 4)) == 0
    budget[0] -= marked
    return Message(
        role="tool",
        tool_call_id=draw(ids),
        content=content,
        is_error=draw(st.booleans()),
        cache_breakpoint=marked,
    )


@st.composite
def canonical_conversations(draw: st.DrawFn) -> list[Message]:
    """Messages the Anthropic form represents one to one: one system, alternating turns."""
    messages: list[Message] = []
    budget = [MAX_CACHE_BREAKPOINTS]
    system = draw(st.sampled_from(["none", "str", "blocks"]))
    if system == "str":
        messages.append(Message(role="system", content=draw(texts)))
    elif system == "blocks":
        blocks = tuple(draw(st.lists(text_parts, min_size=1, max_size=3)))
        messages.append(Message(role="system", content=blocks))
    for i in range(draw(st.integers(0, 6))):
        if i % 2 == 1:
            if draw(st.booleans()):
                messages.append(Message(role="assistant", content=draw(texts)))
            else:
                body = tuple(draw(st.lists(parts, max_size=2)))
                calls = tuple(draw(st.lists(tool_calls, max_size=2)))
                messages.append(Message(role="assistant", content=body, tool_calls=calls))
        elif draw(st.booleans()):
            messages.append(Message(role="user", content=draw(texts)))
        else:
            # A user turn of blocks: tool results first, then at most one user message.
            results = draw(st.integers(0, 3))
            for _ in range(results):
                messages.append(_tool_message(draw, budget))
            if not results or draw(st.booleans()):
                body = tuple(draw(st.lists(parts, min_size=1, max_size=3)))
                messages.append(Message(role="user", content=body))
    return messages


@settings(max_examples=200)
@given(canonical_conversations())
def test_canonical_messages_round_trip_through_the_anthropic_form(
    messages: list[Message],
) -> None:
    request = to_anthropic(messages)

    assert from_anthropic(request["messages"], request.get("system")) == messages


def test_a_block_that_is_not_an_object_is_a_format_error() -> None:
    with pytest.raises(MessageFormatError, match="every content block must be an object"):
        from_anthropic([{"role": "user", "content": ["plain string"]}])


def test_a_tool_use_without_an_id_is_a_format_error() -> None:
    turn = {"role": "assistant", "content": [{"type": "tool_use", "name": "read", "input": {}}]}
    with pytest.raises(MessageFormatError, match="tool_use block needs an id"):
        from_anthropic([turn])


def test_more_than_four_markers_from_the_wire_are_trimmed_to_the_last_four() -> None:
    blocks = tuple(TextPart(text=f"b{i}", cache_control=CacheControl()) for i in range(6))
    request = to_anthropic([Message(role="user", content=blocks)])
    assert _markers(request) == ["b2", "b3", "b4", "b5"]


def test_inner_breakpoints_split_a_text_into_marked_blocks() -> None:
    msg = Message(role="system", content="static\n\nsession", inner_breakpoints=(8,))
    assert to_anthropic([msg]) == {
        "system": [
            {"type": "text", "text": "static\n\n", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "session"},
        ],
        "messages": [],
    }


def test_inner_breakpoints_count_against_the_limit_of_four() -> None:
    messages = [
        Message(role="system", content="ab", inner_breakpoints=(1,), cache_breakpoint=True),
        Message(role="user", content="cd", inner_breakpoints=(1,), cache_breakpoint=True),
        Message(role="assistant", content="e", cache_breakpoint=True),
    ]
    assert _markers(to_anthropic(messages)) == ["b", "c", "d", "e"]


@pytest.mark.parametrize(
    "messages, system",
    [
        ([], 5),
        ([{"role": "user", "content": [{"type": "image", "source": "x"}]}], None),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": [1]}],
                }
            ],
            None,
        ),
    ],
)
def test_malformed_requests_are_format_errors_not_crashes(messages: Any, system: Any) -> None:
    with pytest.raises(MessageFormatError):
        from_anthropic(messages, system)


def test_tool_arguments_keep_non_ascii_text_as_it_is() -> None:
    turn = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t", "name": "w", "input": {"text": "日本語"}}],
    }
    [message] = from_anthropic([turn])
    assert message.tool_calls[0].arguments == '{"text": "日本語"}'
