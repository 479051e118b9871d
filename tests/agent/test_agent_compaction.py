"""Auto-compaction: threshold, cut point, the summarising call and the notice."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.agent.compaction import (
    CompactionError,
    CompactionPolicy,
    choose_cut,
    compact_history,
    is_compaction_notice,
    should_compact,
)
from agentprompt.llm._testing import ScriptedModel
from agentprompt.messages import Message, ToolCall
from agentprompt.prompts.loader import PromptLibrary


@pytest.fixture
def prompts(tmp_path: Path) -> PromptLibrary:
    return PromptLibrary(tmp_path)


def _history() -> list[Message]:
    call = ToolCall(id="c1", name="read", arguments='{"path": "a.py"}')
    return [
        Message(role="user", content="first request"),
        Message(role="assistant", content=None, tool_calls=(call,)),
        Message(role="tool", content="x" * 50, tool_call_id="c1"),
        Message(role="assistant", content="read it"),
        Message(role="user", content="second"),
        Message(role="assistant", content="ok"),
        Message(role="user", content="third"),
        Message(role="assistant", content="done"),
    ]


def test_compaction_is_due_at_the_threshold() -> None:
    assert should_compact(80, 100, 80.0)
    assert not should_compact(79, 100, 80.0)


def test_cut_keeps_the_head_and_the_recent_messages() -> None:
    assert choose_cut(_history(), keep_head=1, keep_recent=2) == (1, 6)


def test_cut_never_separates_a_tool_result_from_its_call() -> None:
    history = _history()
    # keep_recent=6 would start the tail at the tool result (index 2); the cut moves before it.
    assert choose_cut(history, keep_head=1, keep_recent=6) is None
    start, cut = choose_cut(history, keep_head=2, keep_recent=1) or (0, 0)
    assert history[start].role != "tool" and history[cut].role != "tool"


def test_nothing_to_compact_in_a_short_history() -> None:
    assert choose_cut(_history()[:3], keep_head=1, keep_recent=2) is None


def test_compaction_replaces_the_span_with_a_notice_holding_the_summary(
    prompts: PromptLibrary,
) -> None:
    model = ScriptedModel(["## Requests\n- read a.py"])
    history = _history()
    done = compact_history(
        history, model, prompts, policy=CompactionPolicy(keep_head=1, keep_recent=2)
    )
    assert done is not None
    assert done.replaced == 5
    assert done.messages[0] == history[0]
    assert done.messages[2:] == tuple(history[6:])
    notice = done.messages[1]
    assert notice.role == "system" and "## Requests\n- read a.py" in notice.text
    assert notice.text.startswith("Context compacted: 5 earlier messages")
    assert is_compaction_notice(notice, prompts)
    request = model.requests[0]
    assert request.tools == ()
    assert "You are compacting the history" in request.messages[0].text
    assert "=== TOOL RESULT (c1) ===" in request.messages[1].text


def test_long_messages_are_clipped_in_the_transcript(prompts: PromptLibrary) -> None:
    model = ScriptedModel(["summary"])
    history = _history()
    history[2] = Message(role="tool", content="y" * 100, tool_call_id="c1")
    compact_history(
        history,
        model,
        prompts,
        policy=CompactionPolicy(keep_head=1, keep_recent=2, max_message_chars=10),
    )
    text = model.requests[0].messages[1].text
    assert "y" * 11 not in text
    assert "[... 90 more characters not shown]" in text


def test_an_empty_summary_is_an_error_and_changes_nothing(prompts: PromptLibrary) -> None:
    history = _history()
    before = list(history)
    with pytest.raises(CompactionError, match="empty summary"):
        compact_history(
            history,
            ScriptedModel(["  "]),
            prompts,
            policy=CompactionPolicy(keep_head=1, keep_recent=2),
        )
    assert history == before


def test_after_a_compaction_usage_must_grow_before_the_next() -> None:
    # Still over the threshold right after a compaction (large kept messages): no second
    # compaction until a tenth of the context has been added.
    assert not should_compact(9000, 10_000, 80.0, after=8500)
    assert not should_compact(9499, 10_000, 80.0, after=8500)
    assert should_compact(9500, 10_000, 80.0, after=8500)
    assert not should_compact(7900, 10_000, 80.0, after=5000)
