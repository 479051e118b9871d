"""Where a model call's system prompt, history, per-turn facts and reminders go.

Two profiles place them:

- ``ally`` keeps everything in ``messages[0]``: the whole system prompt, per-turn facts
  (context usage, todo state) included, is regenerated into ``messages[0]`` before every
  call, so the cached prefix ends inside ``messages[0]`` on every call.
- ``agent`` (the default) keeps ``messages[0]`` stable for the session and carries the
  per-turn facts in the ephemeral tail, after the history, so the system prompt and the
  whole history are a byte-identical prefix of the next call and a provider's cache
  reuses them.

Reminders always come last, one system message each, and never enter the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from agentprompt.composition import MESSAGE_OVERHEAD, Composition, assemble, message_tokens
from agentprompt.messages import Message, ToolDefinition
from agentprompt.sections import HistorySlot, Part, Section, Stability
from agentprompt.tokens import Tokenizer

__all__ = [
    "PROFILE_NAMES",
    "PlacedRequest",
    "ProfileName",
    "SystemText",
    "place_request",
    "request_parts",
]

ProfileName = Literal["agent", "ally"]
"""The two placements: the cache-stable default and ``ally``, all in ``messages[0]``."""

PROFILE_NAMES: tuple[ProfileName, ...] = ("agent", "ally")
"""Every placement, default first."""


@dataclass(frozen=True, kw_only=True)
class SystemText:
    """The system prompt of one call: ``messages[0]`` and the per-turn facts of the tail."""

    head: str
    """``messages[0]``: the whole prompt for ``ally``; the part that stays the same for
    the session for ``agent``."""
    tail: str = ""
    """The facts that change from call to call, sent after the history (``agent`` only;
    empty for ``ally``, whose ``head`` holds them)."""


@dataclass(frozen=True, kw_only=True)
class PlacedRequest:
    """The messages of one call and their token count."""

    messages: tuple[Message, ...]
    """What is sent: system prompt, history, per-turn facts (``agent``), reminders."""
    composition: Composition
    """The composed part (everything but the reminders), with cache markers and counts."""
    total_tokens: int
    """Input tokens of the whole request: messages, framing, reminders, tool definitions."""
    reminders: int
    """How many reminder messages end the request."""


def request_parts(
    profile: ProfileName, system: SystemText, history: Sequence[Message]
) -> tuple[Part, ...]:
    """The sections of a call before its reminders: the system prompt (static for
    ``agent``, per-turn for ``ally``), the history, and ``agent``'s per-turn facts."""
    head = Stability.TURN if profile == "ally" else Stability.STATIC
    parts: list[Part] = [
        Section(id="system", role="system", text=system.head, stability=head),
        HistorySlot(id="history", messages=tuple(history), priority=None),
    ]
    if system.tail:
        parts.append(
            Section(id="turn_facts", role="system", text=system.tail, stability=Stability.TURN)
        )
    return tuple(parts)


def place_request(
    profile: ProfileName,
    system: SystemText,
    history: Sequence[Message],
    reminders: Sequence[Message],
    *,
    counter: Tokenizer,
    tools: Sequence[ToolDefinition] = (),
) -> PlacedRequest:
    """The messages of one call under ``profile``, counted exactly."""
    composition = assemble(request_parts(profile, system, history), counter=counter, tools=tools)
    extra = sum(message_tokens(m, counter) + MESSAGE_OVERHEAD for m in reminders)
    return PlacedRequest(
        messages=(*composition.messages, *reminders),
        composition=composition,
        total_tokens=composition.total_tokens + extra,
        reminders=len(reminders),
    )
