"""The byte-identical prefix two renders of a prompt share."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.composition import (
    assemble,
)
from agentprompt.messages import Message, Role, ToolCall
from agentprompt.prefix import SharedPrefix, shared_prefix
from agentprompt.sections import (
    HistorySlot,
    Section,
    Stability,
)
from agentprompt.tokens import get_tokenizer

TOK = get_tokenizer("o200k_base")

SYSTEM = Message(role="system", content="You are a careful engineer. Follow the rules below.")
ASK = Message(role="user", content="Rename foo to bar in src/app.py.")
ANSWER = Message(role="assistant", content="Done: foo is now bar.")


def cost(message: Message) -> int:
    """A message's tokens with its framing."""
    return TOK.count(message.text) + 3


def size(text: str) -> int:
    """UTF-8 bytes of ``text``."""
    return len(text.encode("utf-8"))


def test_identical_renders_share_everything() -> None:
    render = [SYSTEM, ASK, ANSWER]

    prefix = shared_prefix(render, list(render))

    total = sum(cost(m) for m in render)
    assert prefix == SharedPrefix(
        identical_messages=3,
        bytes=sum(size(m.text) for m in render),
        tokens=total,
        total_tokens=total,
        first_difference=None,
    )
    assert prefix.share == 1.0


def test_a_change_in_the_last_message_keeps_all_earlier_messages_shared() -> None:
    previous = [SYSTEM, ASK, Message(role="user", content="Context: 12% used.")]
    current = [SYSTEM, ASK, Message(role="user", content="Context: 15% used.")]

    prefix = shared_prefix(previous, current)

    assert prefix.identical_messages == 2
    assert prefix.first_difference == 2
    assert prefix.bytes == size(SYSTEM.text) + size(ASK.text) + size("Context: 1")
    # The shared text's last token may merge with what follows, so it is not counted.
    partial = 3 + TOK.count("Context: 1") - 1
    assert prefix.tokens == cost(SYSTEM) + cost(ASK) + partial
    assert prefix.total_tokens == sum(cost(m) for m in current)
    assert prefix.share == prefix.tokens / prefix.total_tokens


def test_a_change_in_the_first_message_shares_only_the_common_text_prefix() -> None:
    previous = [Message(role="system", content="Today is Monday. Be brief."), ASK, ANSWER]
    current = [Message(role="system", content="Today is Tuesday. Be brief."), ASK, ANSWER]

    prefix = shared_prefix(previous, current)

    assert prefix.identical_messages == 0
    assert prefix.first_difference == 0
    assert prefix.bytes == size("Today is ")
    assert prefix.tokens == 3 + TOK.count("Today is ") - 1
    assert prefix.share == prefix.tokens / sum(cost(m) for m in current)


def test_a_first_differing_message_of_another_role_shares_none_of_its_text() -> None:
    previous = [SYSTEM, Message(role="user", content="Same words.")]
    current = [SYSTEM, Message(role="assistant", content="Same words.")]

    prefix = shared_prefix(previous, current)

    assert (prefix.identical_messages, prefix.first_difference) == (1, 1)
    assert (prefix.bytes, prefix.tokens) == (size(SYSTEM.text), cost(SYSTEM))


def test_a_differing_message_with_no_text_in_common_adds_nothing() -> None:
    previous = [SYSTEM, Message(role="user", content="alpha")]
    current = [SYSTEM, Message(role="user", content="beta")]

    prefix = shared_prefix(previous, current)

    assert (prefix.bytes, prefix.tokens) == (size(SYSTEM.text), cost(SYSTEM))


def test_a_render_that_extends_the_previous_one_shares_all_of_the_previous() -> None:
    previous = [SYSTEM, ASK]
    current = [SYSTEM, ASK, ANSWER, Message(role="user", content="Now add a test.")]

    prefix = shared_prefix(previous, current)

    assert prefix.identical_messages == 2
    assert prefix.first_difference is None
    assert prefix.tokens == cost(SYSTEM) + cost(ASK)
    assert prefix.total_tokens == sum(cost(m) for m in current)
    assert prefix.share == (cost(SYSTEM) + cost(ASK)) / sum(cost(m) for m in current)


def test_a_render_shorter_than_the_previous_one_is_shared_whole() -> None:
    prefix = shared_prefix([SYSTEM, ASK, ANSWER], [SYSTEM, ASK])

    assert (prefix.identical_messages, prefix.first_difference, prefix.share) == (2, None, 1.0)


def test_an_empty_render_shares_everything_of_nothing() -> None:
    prefix = shared_prefix([SYSTEM], [])

    assert (prefix.tokens, prefix.total_tokens, prefix.share) == (0, 0, 1.0)


def test_shared_bytes_are_counted_in_utf8() -> None:
    previous = [Message(role="user", content="Grüße aus 東京, bitte")]
    current = [Message(role="user", content="Grüße aus 東京, danke")]

    prefix = shared_prefix(previous, current)

    assert prefix.bytes == len("Grüße aus 東京, ".encode()) == 20


def test_moving_a_cache_breakpoint_is_not_a_difference() -> None:
    previous = [SYSTEM, Message(role="user", content="q1", cache_breakpoint=True)]
    current = [
        SYSTEM,
        Message(role="user", content="q1"),
        Message(role="assistant", content="a1", cache_breakpoint=True),
    ]

    prefix = shared_prefix(previous, current)

    assert (prefix.identical_messages, prefix.first_difference) == (2, None)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            Message(role="assistant", content="Reading.", tool_calls=(ToolCall(id="1", name="a"),)),
            Message(role="assistant", content="Reading.", tool_calls=(ToolCall(id="1", name="b"),)),
        ),
        (
            Message(role="tool", content="ok", tool_call_id="1"),
            Message(role="tool", content="ok", tool_call_id="2"),
        ),
        (
            Message(role="tool", content="failed", tool_call_id="1"),
            Message(role="tool", content="failed", tool_call_id="1", is_error=True),
        ),
        (
            Message(role="user", content="hi", name="ann"),
            Message(role="user", content="hi", name="bob"),
        ),
    ],
    ids=["tool calls", "tool call id", "error flag", "name"],
)
def test_a_message_that_differs_only_outside_its_text_is_a_difference(
    before: Message, after: Message
) -> None:
    prefix = shared_prefix([SYSTEM, before, ANSWER], [SYSTEM, after, ANSWER])

    assert (prefix.identical_messages, prefix.first_difference) == (1, 1)
    assert prefix.bytes == size(SYSTEM.text) + size(after.text)


def test_counts_use_the_given_tokenizer() -> None:
    cl100k = get_tokenizer("cl100k_base")
    render = [Message(role="user", content="Ünïcödé 日本語のテキスト")]

    prefix = shared_prefix(render, render, counter=cl100k)

    assert prefix.tokens == cl100k.count(render[0].text) + 3


def test_per_turn_text_at_the_tail_keeps_every_stable_message_shared_across_turns() -> None:
    def turn(history: tuple[Message, ...], task: str, usage: str) -> tuple[Message, ...]:
        return assemble(
            [
                Section(id="rules", role="system", text=SYSTEM.text, stability=Stability.STATIC),
                HistorySlot(messages=history),
                Section(id="task", role="user", text=task, stability=Stability.TURN),
                Section(id="usage", role="user", text=usage, stability=Stability.EPHEMERAL),
            ]
        ).messages

    first = turn((), "Rename foo.", "1% of context used.")
    # The first turn's request is now the start of the history; its reminder is gone.
    history = (Message(role="user", content="Rename foo."), ANSWER)
    second = turn(history, "Add a test.", "2% of context used.")

    prefix = shared_prefix(first, second)

    assert prefix.identical_messages == 2
    assert prefix.first_difference == 2
    assert prefix.bytes == size(SYSTEM.text) + size("Rename foo.")
    assert prefix.tokens == cost(SYSTEM) + cost(history[0])


# --- Properties -----------------------------------------------------------------------------

message_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=30)
roles: st.SearchStrategy[Role] = st.sampled_from(["system", "user", "assistant"])
renders = st.lists(
    st.builds(lambda role, text: Message(role=role, content=text), roles, message_text),
    max_size=6,
)


@settings(max_examples=100, deadline=None)
@given(renders, renders)
def test_appending_messages_keeps_the_whole_previous_render_shared(
    previous: list[Message], more: list[Message]
) -> None:
    prefix = shared_prefix(previous, previous + more)

    assert prefix.identical_messages == len(previous)
    assert prefix.first_difference is None
    assert prefix.bytes == sum(len(m.text.encode("utf-8")) for m in previous)
    assert prefix.tokens == sum(TOK.count(m.text) + 3 for m in previous)
    assert 0.0 <= prefix.share <= 1.0


@settings(max_examples=100, deadline=None)
@given(renders.filter(bool), st.data())
def test_extending_one_messages_text_shares_everything_before_the_extension(
    previous: list[Message], data: st.DataObject
) -> None:
    i = data.draw(st.integers(0, len(previous) - 1))
    extra = data.draw(message_text.filter(bool))
    role: Role = previous[i].role
    current = [
        *previous[:i],
        Message(role=role, content=previous[i].text + extra),
        *previous[i + 1 :],
    ]

    prefix = shared_prefix(previous, current)

    assert prefix.identical_messages == i
    assert prefix.first_difference == i
    assert prefix.bytes == sum(len(m.text.encode("utf-8")) for m in previous[: i + 1])
    assert prefix.tokens <= prefix.total_tokens
