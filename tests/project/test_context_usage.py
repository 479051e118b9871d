"""Context usage, seed 001's 70/85/95 thresholds and the warning line (section 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.errors import AgentPromptError
from agentprompt.project.usage import (
    DEFAULT_TOOL_RESULT_TOKENS,
    ContextUsage,
    ToolResultStats,
    threshold_level,
    threshold_message,
    warning_line,
)
from agentprompt.prompts.loader import PromptLibrary


@pytest.fixture
def prompts(tmp_path: Path) -> PromptLibrary:
    return PromptLibrary(tmp_path)


def test_usage_line_at_85_percent_with_its_warning(prompts: PromptLibrary) -> None:
    stats = ToolResultStats().add(1000).add(2000)
    usage = ContextUsage(used_tokens=85_000, context_size=100_000, tool_results=stats)
    assert warning_line(usage, prompts) == (
        "- Context Usage: 85% (~10 tool calls remaining)\n"
        "  ⚠️ Context usage is high. Start wrapping up or use compaction."
    )


def test_below_70_percent_there_is_no_warning(prompts: PromptLibrary) -> None:
    usage = ContextUsage(used_tokens=45_000, context_size=100_000)
    assert warning_line(usage, prompts) == "- Context Usage: 45% (~110 tool calls remaining)"


@pytest.mark.parametrize(
    ("percent", "message"),
    [
        (69, None),
        (70, "Context usage is moderate. Continue normally."),
        (84, "Context usage is moderate. Continue normally."),
        (85, "Context usage is high. Start wrapping up or use compaction."),
        (94, "Context usage is high. Start wrapping up or use compaction."),
        (95, "CRITICAL: Context nearly full. Finish immediately or compact."),
        (100, "CRITICAL: Context nearly full. Finish immediately or compact."),
    ],
)
def test_threshold_messages_are_the_fixed_texts(
    prompts: PromptLibrary, percent: int, message: str | None
) -> None:
    assert threshold_message(percent, prompts) == message


def test_threshold_levels() -> None:
    assert [threshold_level(p) for p in (0, 70, 85, 95)] == [None, 70, 85, 95]


def test_critical_line_has_the_warning_sign(prompts: PromptLibrary) -> None:
    usage = ContextUsage(used_tokens=96, context_size=100)
    assert warning_line(usage, prompts).endswith(
        "\n  ⚠️ CRITICAL: Context nearly full. Finish immediately or compact."
    )


def test_percent_rounds_half_up_and_caps_at_100() -> None:
    assert ContextUsage(used_tokens=845, context_size=1000).percent == 85
    assert ContextUsage(used_tokens=844, context_size=1000).percent == 84
    assert ContextUsage(used_tokens=2000, context_size=1000).percent == 100


def test_remaining_calls_use_the_average_tool_result_size() -> None:
    stats = ToolResultStats().add(100).add(300)
    usage = ContextUsage(used_tokens=1000, context_size=3000, tool_results=stats)
    assert usage.remaining_tool_calls == 10


def test_remaining_calls_before_any_result_use_the_default_size() -> None:
    usage = ContextUsage(used_tokens=0, context_size=10 * DEFAULT_TOOL_RESULT_TOKENS)
    assert usage.remaining_tool_calls == 10


def test_remaining_calls_are_zero_when_the_context_is_full() -> None:
    usage = ContextUsage(used_tokens=5000, context_size=4000)
    assert usage.remaining_tokens == 0
    assert usage.remaining_tool_calls == 0


def test_empty_tool_results_do_not_divide_by_zero() -> None:
    stats = ToolResultStats().add(0)
    assert stats.average() == 1


@pytest.mark.parametrize(("used", "size"), [(0, 0), (-1, 10)])
def test_impossible_sizes_are_refused(used: int, size: int) -> None:
    with pytest.raises(AgentPromptError):
        ContextUsage(used_tokens=used, context_size=size)


def test_negative_tool_result_size_is_refused() -> None:
    with pytest.raises(AgentPromptError):
        ToolResultStats().add(-5)
