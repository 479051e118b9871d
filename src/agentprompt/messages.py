"""The messages a prompt is made of, independent of any provider's wire form.

Values are frozen, keyword-only dataclasses. :mod:`agentprompt.wire` converts them to and
from the OpenAI Chat Completions and Anthropic Messages forms without loss.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from agentprompt.errors import AgentPromptError

__all__ = [
    "CacheControl",
    "ContentPart",
    "ImagePart",
    "Message",
    "MessageFormatError",
    "Role",
    "TextPart",
    "ToolCall",
    "ToolDefinition",
]

Role = Literal["system", "user", "assistant", "tool"]
"""Who speaks a message: instructions, the user, the model, or a tool's result."""


class MessageFormatError(AgentPromptError):
    """A message (usually from a provider's wire form) that cannot be represented or sent."""


@dataclass(frozen=True, kw_only=True)
class CacheControl:
    """A provider cache marker on a content block (Anthropic's ``cache_control``)."""

    type: str = "ephemeral"
    """The cache kind; Anthropic knows only ``ephemeral``."""
    ttl: str | None = None
    """How long the entry lives (``5m``, ``1h``); None for the provider's default."""


@dataclass(frozen=True, kw_only=True)
class TextPart:
    """A block of text inside a message."""

    text: str
    """The text itself."""
    cache_control: CacheControl | None = None
    """A provider cache marker placed on this block, if any."""
    kind: Literal["text"] = "text"
    """Discriminator for the content-part union."""


@dataclass(frozen=True, kw_only=True)
class ImagePart:
    """An image inside a message, by URL or as base64 data."""

    url: str | None = None
    """An ``http(s):`` or ``data:`` URL, when the image is given by address."""
    data: str | None = None
    """Base64 image bytes, when the image is given inline."""
    media_type: str | None = None
    """The MIME type of ``data`` (``image/png``)."""
    detail: str | None = None
    """OpenAI's resolution hint (``low``, ``high``, ``auto``)."""
    cache_control: CacheControl | None = None
    """A provider cache marker placed on this block, if any."""
    kind: Literal["image"] = "image"
    """Discriminator for the content-part union."""

    def __post_init__(self) -> None:
        if (self.url is None) == (self.data is None):
            raise MessageFormatError("an image part needs exactly one of url or data")


ContentPart = TextPart | ImagePart
"""One block of a message's content."""


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """The model asking to run a tool."""

    id: str
    """The provider's id for this call; the tool's result refers to it."""
    name: str
    """The tool's name."""
    arguments: str = "{}"
    """The arguments as JSON text, exactly as the model produced them."""

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; a clear error when the model wrote invalid JSON."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise MessageFormatError(
                f"tool call {self.id!r} to {self.name!r} has arguments that are not valid "
                f"JSON ({exc.msg} at position {exc.pos}): {self.arguments[:200]!r}"
            ) from None
        if not isinstance(value, dict):
            raise MessageFormatError(
                f"tool call {self.id!r} to {self.name!r} has arguments that are not a JSON "
                f"object: {self.arguments[:200]!r}"
            )
        return value


@dataclass(frozen=True, kw_only=True)
class Message:
    """One message of a conversation."""

    role: Role
    """Who speaks it."""
    content: str | tuple[ContentPart, ...] | None = ""
    """Plain text, a sequence of content blocks, or None (an assistant turn of tool calls)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Tools the assistant asks to run (assistant messages only)."""
    tool_call_id: str | None = None
    """The call this message answers (tool messages only)."""
    name: str | None = None
    """An optional participant name (OpenAI's ``name``)."""
    is_error: bool = False
    """Whether a tool result reports a failure (Anthropic's ``is_error``)."""
    cache_breakpoint: bool = False
    """Ask providers that need explicit markers to cache the prompt up to this message."""
    inner_breakpoints: tuple[int, ...] = ()
    """Character offsets inside a string content where a cache marker also goes (the text
    is sent as several blocks there); used to cache a message's stable head on its own."""

    def __post_init__(self) -> None:
        if self.tool_calls and self.role != "assistant":
            raise MessageFormatError(f"only assistant messages carry tool calls, not {self.role}")
        if self.role == "tool" and not self.tool_call_id:
            raise MessageFormatError("a tool message needs the tool_call_id it answers")
        if self.inner_breakpoints and not (
            isinstance(self.content, str)
            and all(0 < i < len(self.content) for i in self.inner_breakpoints)
            and list(self.inner_breakpoints) == sorted(set(self.inner_breakpoints))
        ):
            raise MessageFormatError(
                "inner_breakpoints must be increasing offsets strictly inside a string content"
            )

    @property
    def text(self) -> str:
        """The message's text: its string content, or its text blocks joined."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "".join(part.text for part in self.content if isinstance(part, TextPart))

    @property
    def parts(self) -> tuple[ContentPart, ...]:
        """The content as blocks: a string becomes one text block, None none."""
        if self.content is None or self.content == "":
            return ()
        if isinstance(self.content, str):
            return (TextPart(text=self.content),)
        return self.content


@dataclass(frozen=True, kw_only=True)
class ToolDefinition:
    """A tool the model may call: its name, what it does and its arguments' JSON Schema."""

    name: str
    """The name the model calls it by."""
    description: str
    """What the tool does, for the model."""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    """The JSON Schema of the arguments object."""

    @cached_property
    def wire_json(self) -> str:
        """The Chat Completions entry as key-sorted JSON (what token counts are made on)."""
        return json.dumps(self.to_openai(), ensure_ascii=False, sort_keys=True)

    def to_openai(self) -> dict[str, Any]:
        """The Chat Completions ``tools`` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def to_anthropic(self) -> dict[str, Any]:
        """The Messages API ``tools`` entry."""
        return {"name": self.name, "description": self.description, "input_schema": self.parameters}
