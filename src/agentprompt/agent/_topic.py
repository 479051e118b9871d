"""Topic-boundary detection for history compaction (``TopicDetector``).

The detector asks a model where the conversation's current topic began, with the
``skills/compaction.md`` skill prompt as the system message (loaded lazily, on the first
detection), and returns that boundary and a summary of what came before it, for a
compaction step to replace those messages with.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentprompt.errors import AgentPromptError
from agentprompt.llm.base import ModelClient, ModelRequest
from agentprompt.messages import Message
from agentprompt.prompts.loader import load_skill

__all__ = ["TopicBoundary", "TopicDetector", "parse_topic_reply"]

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def _unusable(reply: str, problem: str) -> AgentPromptError:
    """The model's answer to a topic-boundary request could not be read."""
    return AgentPromptError(
        f"the topic-boundary reply could not be used ({problem}); expected one JSON object "
        f'like {{"boundary_index": 4, "boundary_reason": "...", "confidence": 0.8, '
        f'"summary": "..."}}. Reply started: {reply[:200]!r}'
    )


@dataclass(frozen=True, kw_only=True)
class TopicBoundary:
    """Where the current topic began, and what came before it."""

    boundary_index: int | None
    """Index of the first message of the current topic (None: one topic throughout)."""
    boundary_reason: str = ""
    """Why the model put the boundary there."""
    confidence: float = 0.0
    """How sure the model is, from 0 to 1."""
    summary: str = ""
    """What happened before the boundary."""


def parse_topic_reply(reply: str, message_count: int) -> TopicBoundary:
    """The boundary in a model's reply (a JSON object, possibly fenced or with prose around)."""
    match = _OBJECT.search(reply)
    if match is None:
        raise _unusable(reply, "it holds no JSON object")
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise _unusable(reply, f"invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise _unusable(reply, "it is not a JSON object")
    index = data.get("boundary_index")
    if index is not None and (
        isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < message_count
    ):
        raise _unusable(
            reply, f"boundary_index {index!r} is not a message number from 0 to {message_count - 1}"
        )
    try:
        confidence = min(1.0, max(0.0, float(data.get("confidence", 0.0))))
    except (TypeError, ValueError):
        raise _unusable(reply, "confidence is not a number") from None
    return TopicBoundary(
        boundary_index=index,
        boundary_reason=str(data.get("boundary_reason") or ""),
        confidence=confidence,
        summary=str(data.get("summary") or "") if index else "",
    )


def _transcript(messages: Sequence[Message]) -> str:
    return "\n\n".join(f"[{i}] {m.role.upper()}:\n{m.text}" for i, m in enumerate(messages))


@dataclass(kw_only=True)
class TopicDetector:
    """Asks ``model`` where the current topic of a conversation began."""

    model: ModelClient
    """The model that reads the conversation."""
    root: Path | None = None
    """The project whose ``config/prompts/skills/compaction.md`` may override the default."""
    _prompt: str | None = field(default=None, init=False, repr=False)

    def _load_compaction_prompt(self) -> str:
        """The compaction skill prompt, read on first use and kept after."""
        if self._prompt is None:
            self._prompt = load_skill("compaction", self.root)
        return self._prompt

    def detect(self, messages: Sequence[Message]) -> TopicBoundary:
        """The boundary of the current topic in ``messages`` (oldest first)."""
        if not messages:
            return TopicBoundary(boundary_index=None, boundary_reason="no messages")
        request = ModelRequest(
            messages=(
                Message(role="system", content=self._load_compaction_prompt()),
                Message(role="user", content=_transcript(messages)),
            ),
            response_shape="json",
        )
        reply = self.model.complete(request).text
        return parse_topic_reply(reply, len(messages))
