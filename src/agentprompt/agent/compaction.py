"""Auto-compaction: summarise old messages when the context fills up.

When context usage passes the compact threshold, a span of older messages is summarised
by the model with the compaction prompt (``prompts/agent/compaction.md``) and replaced by
one compaction notice that carries the summary.

The cut is chosen so the cached prefix survives: the system prompt and the first
``keep_head`` history messages (the user's original request) stay byte for byte, so a
provider's cache of that prefix still applies after compaction, and only the span after
them is replaced. Both ends of the span fall on message boundaries that never separate a
tool call from its result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.agent._reminders import REMINDER_TAG
from agentprompt.errors import AgentPromptError
from agentprompt.llm.base import ModelClient, ModelRequest, Usage
from agentprompt.messages import Message
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.wire.text import to_text

__all__ = [
    "ESCAPED_TAG",
    "Compaction",
    "CompactionError",
    "CompactionPolicy",
    "choose_cut",
    "compact_history",
    "compaction_request",
    "is_compaction_notice",
    "should_compact",
]


ESCAPED_TAG = "&lt;system-reminder&gt;"
"""How a reminder tag quoted in a summary is written in the compaction notice."""


class CompactionError(AgentPromptError):
    """The model gave no usable summary, so the history was left as it was."""


@dataclass(frozen=True, kw_only=True)
class CompactionPolicy:
    """When to compact and what to keep."""

    threshold: float = 80.0
    """Context usage, in percent of the context size, at which the history is compacted
    (``compact_threshold``)."""
    keep_head: int = 1
    """Leading history messages kept verbatim: the cached prefix after the system prompt."""
    keep_recent: int = 6
    """At least this many of the latest messages are kept verbatim."""
    max_message_chars: int = 4000
    """Each message is clipped to this many characters in the transcript the model reads."""


@dataclass(frozen=True, kw_only=True)
class Compaction:
    """What one compaction did."""

    messages: tuple[Message, ...]
    """The new history: head, compaction notice, kept tail."""
    summary: str
    """The model's summary."""
    replaced: int
    """How many messages the notice replaced."""
    start: int
    """Index (in the old history) of the first replaced message."""
    cut: int
    """Index (in the old history) of the first message kept after the replaced span."""
    usage: Usage
    """Tokens the summarising call used."""


REGROWTH_PERCENT = 10
"""After a compaction, usage must grow by this share of the context before the next one:
a history still over the threshold after one (its kept head and recent messages are large)
would otherwise be compacted after every tool round, summarising the last summary."""


def should_compact(
    used_tokens: int, context_size: int, threshold: float, *, after: int | None = None
) -> bool:
    """Whether usage (``used_tokens`` of ``context_size``) has reached ``threshold`` percent
    and, when the history was compacted before (``after``: the usage right after that),
    has grown since by at least :data:`REGROWTH_PERCENT` of the context."""
    if context_size <= 0:
        return False
    if after is not None and (used_tokens - after) * 100 < REGROWTH_PERCENT * context_size:
        return False
    return used_tokens * 100 >= threshold * context_size


def _safe(history: Sequence[Message], index: int) -> bool:
    """A boundary before ``index`` separates no tool call from its result."""
    return index == len(history) or history[index].role != "tool"


def choose_cut(
    history: Sequence[Message], *, keep_head: int = 1, keep_recent: int = 6
) -> tuple[int, int] | None:
    """The span ``[start, cut)`` of ``history`` to summarise, or None when there is
    nothing worth replacing (fewer than two messages between the head and the tail)."""
    start = max(0, keep_head)
    while start < len(history) and not _safe(history, start):
        start += 1
    cut = max(start, len(history) - max(0, keep_recent))
    while cut > start and not _safe(history, cut):
        cut -= 1
    if cut - start < 2:
        return None
    return start, cut


def _clip(prompts: PromptLibrary, message: Message, limit: int) -> Message:
    text = message.text
    if len(text) <= limit:
        return message
    note = prompts.render("agent/compaction_clipped", omitted=len(text) - limit)
    return Message(
        role=message.role,
        content=f"{text[:limit]}\n{note}",
        tool_calls=message.tool_calls,
        tool_call_id=message.tool_call_id,
        name=message.name,
        is_error=message.is_error,
    )


def compaction_request(
    prompts: PromptLibrary,
    messages: Sequence[Message],
    *,
    model: str | None = None,
    max_message_chars: int = 4000,
) -> ModelRequest:
    """The request that asks the model to summarise ``messages`` (no tools offered)."""
    transcript = to_text(_clip(prompts, m, max_message_chars) for m in messages).rstrip("\n")
    return ModelRequest(
        messages=(
            Message(role="system", content=prompts.render("agent/compaction")),
            Message(
                role="user",
                content=prompts.render(
                    "agent/compaction_request", count=len(messages), transcript=transcript
                ),
            ),
        ),
        model=model,
    )


def is_compaction_notice(message: Message, prompts: PromptLibrary) -> bool:
    """Whether ``message`` is a compaction notice (it starts like the notice prompt)."""
    head = prompts.load("agent/compaction_notice").body.split("{{", 1)[0]
    return message.role == "system" and message.text.startswith(head)


def compact_history(
    history: Sequence[Message],
    client: ModelClient,
    prompts: PromptLibrary,
    *,
    policy: CompactionPolicy = CompactionPolicy(),
    model: str | None = None,
) -> Compaction | None:
    """Summarise the older part of ``history`` with the model and replace it by a
    compaction notice; None when there is nothing to replace. Model errors propagate and a
    blank summary raises :class:`CompactionError`; either way ``history`` is unchanged."""
    span = choose_cut(history, keep_head=policy.keep_head, keep_recent=policy.keep_recent)
    if span is None:
        return None
    start, cut = span
    old = history[start:cut]
    request = compaction_request(
        prompts, old, model=model, max_message_chars=policy.max_message_chars
    )
    reply = client.complete(request)
    summary = reply.text.strip()
    if not summary:
        raise CompactionError(
            f"the model returned an empty summary for {len(old)} messages; the history was "
            "kept as it was. Try again, or start a new session if the context is full"
        )
    inert = summary.replace(REMINDER_TAG, ESCAPED_TAG)
    notice = Message(
        role="system",
        content=prompts.render("agent/compaction_notice", count=len(old), summary=inert),
    )
    return Compaction(
        messages=(*history[:start], notice, *history[cut:]),
        summary=summary,
        replaced=len(old),
        start=start,
        cut=cut,
        usage=reply.usage,
    )
