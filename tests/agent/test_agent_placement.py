"""Where a call's system prompt, history, per-turn facts and reminders go."""

from __future__ import annotations

from agentprompt.agent.placement import SystemText, place_request
from agentprompt.composition import MESSAGE_OVERHEAD, message_tokens
from agentprompt.messages import Message
from agentprompt.tokens import shared_counter

HISTORY = [Message(role="user", content="hi"), Message(role="assistant", content="hello")]
REMINDER = Message(role="system", content="<system-reminder>\nx\n</system-reminder>")


def test_agent_placement_caches_the_system_prompt_and_the_history() -> None:
    placed = place_request(
        "agent",
        SystemText(head="RULES", tail="FACTS"),
        HISTORY,
        [REMINDER],
        counter=shared_counter(),
    )
    texts = [m.text for m in placed.messages]
    assert texts == ["RULES", "hi", "hello", "FACTS", REMINDER.text]
    marked = [i for i, m in enumerate(placed.messages) if m.cache_breakpoint]
    assert marked == [0, 2]


def test_ally_placement_has_no_tail_and_does_not_cache_the_first_message() -> None:
    placed = place_request(
        "ally", SystemText(head="RULES\nFACTS"), HISTORY, [], counter=shared_counter()
    )
    assert [m.text for m in placed.messages] == ["RULES\nFACTS", "hi", "hello"]
    assert not placed.messages[0].cache_breakpoint and placed.messages[2].cache_breakpoint


def test_the_request_total_counts_the_reminders() -> None:
    counter = shared_counter()
    without = place_request("agent", SystemText(head="R"), HISTORY, [], counter=counter)
    with_one = place_request("agent", SystemText(head="R"), HISTORY, [REMINDER], counter=counter)
    extra = message_tokens(REMINDER, counter) + MESSAGE_OVERHEAD
    assert with_one.total_tokens == without.total_tokens + extra
    assert with_one.reminders == 1
