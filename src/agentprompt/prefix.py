"""The byte-identical prefix two renders of a prompt share: what a provider's cache can reuse."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.composition import (
    MESSAGE_OVERHEAD,
    message_tokens,
)
from agentprompt.messages import Message
from agentprompt.tokens import Tokenizer, shared_counter

__all__ = ["SharedPrefix", "shared_prefix"]


@dataclass(frozen=True, kw_only=True)
class SharedPrefix:
    """How much of the current prompt repeats the previous one byte for byte."""

    identical_messages: int
    """Leading messages that are the same in both (role, content, tool calls)."""
    bytes: int
    """UTF-8 bytes of message content shared from the start."""
    tokens: int
    """Tokens of that shared content, message framing included."""
    total_tokens: int
    """Tokens of the current prompt's messages, framing included."""
    first_difference: int | None
    """Index of the first message that differs, or None when one prompt extends the other."""

    @property
    def share(self) -> float:
        """The shared tokens as a fraction of the current prompt's message tokens."""
        return self.tokens / self.total_tokens if self.total_tokens else 1.0


def _same(a: Message, b: Message) -> bool:
    # Everything that is sent counts; a moved cache marker is not a change of content.
    return (a.role, a.content, a.tool_calls, a.tool_call_id, a.name, a.is_error) == (
        b.role,
        b.content,
        b.tool_calls,
        b.tool_call_id,
        b.name,
        b.is_error,
    )


def shared_prefix(
    previous: Sequence[Message], current: Sequence[Message], *, counter: Tokenizer | None = None
) -> SharedPrefix:
    """Compare two renders message by message, then character by character in the first
    message that differs."""
    counter = counter or shared_counter()
    total = sum(message_tokens(m, counter) + MESSAGE_OVERHEAD for m in current)
    n = 0
    shared_bytes = 0
    shared_tokens = 0
    while n < min(len(previous), len(current)) and _same(previous[n], current[n]):
        shared_bytes += len(current[n].text.encode("utf-8", "surrogatepass"))
        shared_tokens += message_tokens(current[n], counter) + MESSAGE_OVERHEAD
        n += 1
    first_difference: int | None = None
    if n < len(current) and n < len(previous):
        first_difference = n
        if previous[n].role == current[n].role:
            # commonprefix compares character by character, which is what is wanted here.
            common = os.path.commonprefix([previous[n].text, current[n].text])  # noqa: RUF071
            shared_bytes += len(common.encode("utf-8", "surrogatepass"))
            # Framing tokens plus the whole tokens of the shared text, less the last one,
            # which the differing text may have merged into another token.
            if common:
                shared_tokens += MESSAGE_OVERHEAD + max(0, counter.count(common) - 1)
    return SharedPrefix(
        identical_messages=n,
        bytes=shared_bytes,
        tokens=shared_tokens,
        total_tokens=total,
        first_difference=first_difference,
    )
