"""The bookkeeping of one agent turn, and the answers to tool calls that are never run.

A turn is a run of model calls for one user message; :class:`TurnState` carries what the
session must remember between those calls (which reminders are due, how many tool rounds
were used, whether a cut-off reply is being continued). A tool call that is not run (the
user interrupted the turn, or the turn used up its tool rounds) still gets a result, so the
history stays a conversation every provider accepts: each call followed by its answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agentprompt.agent.session.values import TurnResult
from agentprompt.context.usage import ContextUsage
from agentprompt.messages import Message, ToolCall

__all__ = ["TurnState", "answer_calls", "unanswered_calls"]


@dataclass
class TurnState:
    """What one turn in progress has done and what its next call needs."""

    first_call: bool = True
    """No model call of this turn has been answered yet (the todo reminder is due)."""
    interrupted: bool = False
    """The previous turn was interrupted (the interruption reminder is due)."""
    requests: int = 0
    """Model calls made."""
    tool_calls: int = 0
    """Tool calls run."""
    tool_rounds: int = 0
    """Replies whose tool calls were run."""
    called: set[str] = field(default_factory=set)
    """Names of the tools run (for the required-tool check)."""
    required_warnings: int = 0
    """Required-tool reminders sent."""
    missing_required: tuple[str, ...] = ()
    """Required tools the next call's reminder names."""
    continuation: bool = False
    """The next call continues a reply an error cut off."""
    retried: bool = False
    """The one retry after a cut-off reply was used."""
    cut_text: str = ""
    """The text of a cut-off reply, which its continuation completes."""
    streamed: list[str] = field(default_factory=list)
    """The text streamed so far by the call in progress (kept if Ctrl-C stops it)."""
    want_text: bool = False
    """The next call asks for the text response (reminder)."""
    asked_for_text: bool = False
    """The text response was asked for already; a reply without text now ends the turn."""
    compacted: bool = False
    """The history was compacted during the turn."""

    def result(self, text: str, usage: ContextUsage, *, interrupted: bool = False) -> TurnResult:
        """What the turn did, ending with ``text`` and context ``usage``."""
        return TurnResult(
            text=text,
            requests=self.requests,
            tool_calls=self.tool_calls,
            interrupted=interrupted,
            compacted=self.compacted,
            retried=self.retried,
            used_tokens=usage.used_tokens,
            context_percent=usage.percent,
        )


def unanswered_calls(history: Sequence[Message]) -> tuple[ToolCall, ...]:
    """The tool calls of the last assistant message with tool calls that have no result."""
    answered = {m.tool_call_id for m in history if m.role == "tool"}
    for message in reversed(history):
        if message.role == "assistant" and message.tool_calls:
            return tuple(c for c in message.tool_calls if c.id not in answered)
    return ()


def answer_calls(calls: Sequence[ToolCall], note: str) -> list[Message]:
    """Error results saying ``note`` for tool calls that were not run."""
    return [
        Message(role="tool", content=note, tool_call_id=c.id, name=c.name, is_error=True)
        for c in calls
    ]
