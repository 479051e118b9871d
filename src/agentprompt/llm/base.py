"""What agentprompt needs from a language model, as small protocols.

A :class:`ModelClient` takes a chat turn (messages and tool definitions) and returns a
:class:`ModelReply`, optionally streamed as events. A :class:`PromptExecutor` is the
simpler interface file selection uses: one prompt in, an object or a string out.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from agentprompt.errors import AgentPromptError
from agentprompt.messages import Message, ToolCall, ToolDefinition

__all__ = [
    "ALLOW_MODEL_REQUESTS_ENV",
    "ModelClient",
    "ModelReply",
    "ModelRequest",
    "ModelRequestsBlocked",
    "PromptExecutor",
    "ReplyDone",
    "StreamEvent",
    "TextDelta",
    "Usage",
    "check_model_requests_allowed",
    "model_requests",
]

ALLOW_MODEL_REQUESTS_ENV = "AGENTPROMPT_ALLOW_MODEL_REQUESTS"
"""Set to ``0`` to make every call to a real model fail (the test suite does)."""


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Tokens a request used, as the provider reports them."""

    input_tokens: int = 0
    """Tokens of the prompt that were processed normally."""
    output_tokens: int = 0
    """Tokens the model generated."""
    cache_read_tokens: int = 0
    """Prompt tokens served from the provider's cache."""
    cache_write_tokens: int = 0
    """Prompt tokens written to the provider's cache."""


@dataclass(frozen=True, kw_only=True)
class ModelRequest:
    """One call to a model."""

    messages: tuple[Message, ...]
    """The conversation to continue."""
    tools: tuple[ToolDefinition, ...] = ()
    """Tools the model may call."""
    model: str | None = None
    """The model to use; None for the client's default."""
    max_tokens: int | None = None
    """The most tokens the reply may have."""
    temperature: float | None = None
    """Sampling temperature; None for the provider's default."""
    mode: Literal["fast", "smart"] | None = None
    """A speed hint: ``fast`` asks for a quick, cheap model."""
    response_shape: Literal["json", "text"] | None = None
    """A shape hint: ``json`` asks for a JSON object and nothing else."""


@dataclass(frozen=True, kw_only=True)
class ModelReply:
    """What a model answered."""

    text: str = ""
    """The reply's text."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Tools the model asks to run."""
    usage: Usage = Usage()
    """Tokens used."""
    stop_reason: str | None = None
    """Why generation stopped (``end_turn``, ``tool_use``, ``max_tokens``...)."""
    model: str | None = None
    """The model that answered."""

    def to_message(self) -> Message:
        """The reply as an assistant message for the history."""
        return Message(
            role="assistant",
            content=self.text if self.text or not self.tool_calls else None,
            tool_calls=self.tool_calls,
        )


@dataclass(frozen=True, kw_only=True)
class TextDelta:
    """A piece of the reply's text, as it streams."""

    text: str
    """The new text."""
    kind: Literal["text"] = "text"
    """Discriminator for the stream-event union."""


@dataclass(frozen=True, kw_only=True)
class ReplyDone:
    """The end of a streamed reply, with the whole reply."""

    reply: ModelReply
    """Everything the model answered."""
    kind: Literal["done"] = "done"
    """Discriminator for the stream-event union."""


StreamEvent = TextDelta | ReplyDone
"""One event of a streamed reply; the last one is always :class:`ReplyDone`."""


@runtime_checkable
class ModelClient(Protocol):
    """A chat model: messages and tool definitions in, a reply out."""

    def complete(self, request: ModelRequest) -> ModelReply:
        """The model's whole reply to ``request``."""
        ...

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """The model's reply to ``request`` as it is generated, ending with :class:`ReplyDone`."""
        ...


@runtime_checkable
class PromptExecutor(Protocol):
    """A model that runs one prompt and returns an object or a string."""

    def execute_prompt(
        self, prompt: str, *, mode: str = "fast", response_shape: str = "json"
    ) -> object:
        """The model's answer: a parsed object when it could be parsed, else its text."""
        ...


class ModelRequestsBlocked(AgentPromptError):
    """A real model was called while model requests are switched off (as in tests)."""

    def __init__(self, client: str) -> None:
        super().__init__(
            f"a request to a real model ({client}) was blocked because "
            f"{ALLOW_MODEL_REQUESTS_ENV}=0; use ScriptedModel or FunctionModel from "
            "agentprompt.llm instead, or unset the variable to allow real calls"
        )


def check_model_requests_allowed(client: str) -> None:
    """Raise :class:`ModelRequestsBlocked` when real model calls are switched off.

    Every client that reaches a real model calls this before sending anything.
    """
    if os.environ.get(ALLOW_MODEL_REQUESTS_ENV, "1").strip().lower() in ("0", "false", "no"):
        raise ModelRequestsBlocked(client)


@contextmanager
def model_requests(allowed: bool) -> Iterator[None]:
    """Within the block, allow or block real model requests; the old setting returns after."""
    old = os.environ.get(ALLOW_MODEL_REQUESTS_ENV)
    os.environ[ALLOW_MODEL_REQUESTS_ENV] = "1" if allowed else "0"
    try:
        yield
    finally:
        if old is None:
            del os.environ[ALLOW_MODEL_REQUESTS_ENV]
        else:
            os.environ[ALLOW_MODEL_REQUESTS_ENV] = old
