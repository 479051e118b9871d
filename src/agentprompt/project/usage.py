"""Context usage and its warnings.

The context section states how full the model's context window is, how many more tool
calls of the average result size still fit, and, from 70% on, one of three fixed warning
messages (70 moderate, 85 high, 95 critical). Everything here is a pure function of token
counts; the session measures them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from agentprompt.errors import UsageError
from agentprompt.prompts.loader import PromptLibrary

__all__ = [
    "CONTEXT_THRESHOLDS",
    "DEFAULT_TOOL_RESULT_TOKENS",
    "MIN_TOOL_CALL_TOKENS",
    "ContextUsage",
    "ThresholdLevel",
    "ToolResultStats",
    "threshold_level",
    "threshold_message",
    "warning_line",
]

ThresholdLevel = Literal[70, 85, 95]
"""A context-usage threshold: 70 normal, 85 warning, 95 critical."""

CONTEXT_THRESHOLDS: dict[ThresholdLevel, str] = {
    70: "context/usage_moderate",
    85: "context/usage_high",
    95: "context/usage_critical",
}
"""Each threshold (percent) and the prompt file holding its message, lowest first."""

DEFAULT_TOOL_RESULT_TOKENS = 500
"""The tokens one tool result is assumed to take before any result has been seen."""

MIN_TOOL_CALL_TOKENS = 100
"""The least one more tool call is counted to cost in the remaining-calls estimate: the
call, its result and their framing; a few tiny results must not promise tens of thousands
of calls."""


@dataclass(frozen=True, kw_only=True)
class ToolResultStats:
    """The sizes of the tool results seen so far, for the remaining-tool-call estimate."""

    count: int = 0
    """How many tool results were counted."""
    total_tokens: int = 0
    """Their summed size in tokens."""

    def add(self, tokens: int) -> ToolResultStats:
        """These statistics with one more result of ``tokens`` tokens."""
        if tokens < 0:
            raise UsageError(f"a tool result cannot take {tokens} tokens; pass a count >= 0")
        return replace(self, count=self.count + 1, total_tokens=self.total_tokens + tokens)

    def average(self, default: int = DEFAULT_TOOL_RESULT_TOKENS) -> int:
        """The average result size in tokens (at least 1), or ``default`` before any result."""
        if self.count == 0:
            return max(1, default)
        return max(1, -(-self.total_tokens // self.count))


@dataclass(frozen=True, kw_only=True)
class ContextUsage:
    """How much of the model's context window the conversation takes."""

    used_tokens: int
    """Tokens the next request holds (or the last reply reported)."""
    context_size: int
    """The model's context window in tokens."""
    tool_results: ToolResultStats = field(default_factory=ToolResultStats)
    """The tool results seen so far, whose average size drives the estimate."""

    def __post_init__(self) -> None:
        if self.context_size <= 0:
            raise UsageError(
                f"context size must be a positive number of tokens, not {self.context_size}"
            )
        if self.used_tokens < 0:
            raise UsageError(f"used tokens cannot be negative ({self.used_tokens})")

    @property
    def percent(self) -> int:
        """Usage in whole percent, rounded half up, at most 100."""
        rounded = (self.used_tokens * 200 + self.context_size) // (2 * self.context_size)
        return min(100, rounded)

    @property
    def remaining_tokens(self) -> int:
        """Tokens still free in the context window."""
        return max(0, self.context_size - self.used_tokens)

    @property
    def remaining_tool_calls(self) -> int:
        """How many more tool results of the average size seen so far still fit (each
        counted as at least :data:`MIN_TOOL_CALL_TOKENS`)."""
        return self.remaining_tokens // max(self.tool_results.average(), MIN_TOOL_CALL_TOKENS)

    @property
    def level(self) -> ThresholdLevel | None:
        """The highest threshold reached, or None below 70%."""
        return threshold_level(self.percent)


def threshold_level(percent: int) -> ThresholdLevel | None:
    """The highest of the thresholds that ``percent`` reaches, or None below all."""
    reached = [level for level in CONTEXT_THRESHOLDS if percent >= level]
    return reached[-1] if reached else None


def threshold_message(percent: int, prompts: PromptLibrary) -> str | None:
    """The fixed message for the threshold ``percent`` reaches, or None below 70%."""
    level = threshold_level(percent)
    return None if level is None else prompts.render(CONTEXT_THRESHOLDS[level])


def warning_line(usage: ContextUsage, prompts: PromptLibrary) -> str:
    """The context usage line of the context section, followed from 70% on by the
    threshold's warning on its own line::

        - Context Usage: 85% (~8 tool calls remaining)
          ⚠️ Context usage is high. Start wrapping up or use compaction.
    """
    line = prompts.render("context/usage", percent=usage.percent, calls=usage.remaining_tool_calls)
    message = threshold_message(usage.percent, prompts)
    if message is None:
        return line
    return f"{line}\n{prompts.render('context/usage_warning', message=message)}"
