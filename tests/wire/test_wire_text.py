"""Messages as readable plain text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.messages import ImagePart, Message, TextPart, ToolCall
from agentprompt.wire import to_text


def test_no_messages_give_empty_text() -> None:
    assert to_text([]) == ""


def test_each_message_is_headed_by_its_role() -> None:
    assert to_text([Message(role="user", content="hi")]) == "=== USER ===\nhi\n"


def test_messages_are_separated_by_a_blank_line_and_end_with_a_newline() -> None:
    messages = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="hi"),
        Message(role="assistant", content="hello"),
    ]

    assert to_text(messages) == (
        "=== SYSTEM ===\nBe brief.\n\n=== USER ===\nhi\n\n=== ASSISTANT ===\nhello\n"
    )


def test_a_named_participant_is_shown_in_the_heading() -> None:
    assert to_text([Message(role="user", name="alice", content="hi")]) == (
        "=== USER (alice) ===\nhi\n"
    )


def test_tool_results_are_headed_with_the_call_id() -> None:
    msg = Message(role="tool", tool_call_id="call_1", name="read", content="print('hi')")

    assert to_text([msg]) == "=== TOOL RESULT (call_1) ===\nprint('hi')\n"


def test_tool_calls_are_shown_as_arrow_lines_after_the_text() -> None:
    msg = Message(
        role="assistant",
        content="Let me look.",
        tool_calls=(
            ToolCall(id="c1", name="read", arguments='{"path": "a.py"}'),
            ToolCall(id="c2", name="list", arguments="{}"),
        ),
    )

    assert to_text([msg]) == (
        '=== ASSISTANT ===\nLet me look.\n→ read({"path": "a.py"})\n→ list({})\n'
    )


def test_assistant_turn_of_only_tool_calls_shows_just_the_calls() -> None:
    msg = Message(role="assistant", content=None, tool_calls=(ToolCall(id="c1", name="list"),))

    assert to_text([msg]) == "=== ASSISTANT ===\n→ list({})\n"


def test_text_blocks_are_joined_as_the_model_reads_them() -> None:
    msg = Message(role="user", content=(TextPart(text="first\n\n"), TextPart(text="second")))

    assert to_text([msg]) == "=== USER ===\nfirst\n\nsecond\n"


def test_an_image_between_text_blocks_stands_on_its_own_line() -> None:
    msg = Message(
        role="user",
        content=(TextPart(text="a"), ImagePart(url="u"), TextPart(text="b")),
    )

    assert to_text([msg]) == "=== USER ===\na\n[image: u]\nb\n"


def test_images_by_url_are_shown_with_their_url() -> None:
    msg = Message(
        role="user",
        content=(TextPart(text="see"), ImagePart(url="https://example.com/a.png")),
    )

    assert to_text([msg]) == "=== USER ===\nsee\n[image: https://example.com/a.png]\n"


def test_inline_images_are_shown_with_their_media_type() -> None:
    msg = Message(role="user", content=(ImagePart(data="iVBORw0K", media_type="image/png"),))

    assert to_text([msg]) == "=== USER ===\n[image: image/png]\n"


def test_inline_images_without_media_type_are_shown_as_inline_data() -> None:
    msg = Message(role="user", content=(ImagePart(data="iVBORw0K"),))

    assert to_text([msg]) == "=== USER ===\n[image: inline data]\n"


def test_a_message_without_content_is_just_its_heading() -> None:
    assert to_text([Message(role="user", content="")]) == "=== USER ===\n"


@settings(max_examples=100)
@given(
    st.lists(
        st.builds(
            Message,
            role=st.sampled_from(["system", "user", "assistant"]),
            content=st.text(alphabet="abc =\n", max_size=20),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_text_is_every_message_in_order_under_its_heading(messages: list[Message]) -> None:
    expected = "\n\n".join(
        f"=== {m.role.upper()} ===" + (f"\n{m.text}" if m.text else "") for m in messages
    )

    assert to_text(messages) == expected + "\n"
