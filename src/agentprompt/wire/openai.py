"""Messages to and from the OpenAI Chat Completions message dicts.

OpenAI caches prompt prefixes automatically, so cache markers are not part of this form:
``cache_breakpoint`` is ignored and part-level ``cache_control`` is not sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from agentprompt.messages import (
    ContentPart,
    ImagePart,
    Message,
    MessageFormatError,
    TextPart,
    ToolCall,
)

__all__ = ["from_openai", "to_openai"]


_DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+);base64,([A-Za-z0-9+/=\s]*)")


def _part_to_openai(part: ContentPart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    url = part.url or f"data:{part.media_type or 'image/png'};base64,{part.data}"
    image: dict[str, Any] = {"url": url}
    if part.detail is not None:
        image["detail"] = part.detail
    return {"type": "image_url", "image_url": image}


def to_openai(
    messages: Iterable[Message], *, system_role: Literal["system", "developer"] = "system"
) -> list[dict[str, Any]]:
    """The Chat Completions ``messages`` list; ``system_role`` names system messages."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        wire: dict[str, Any] = {"role": system_role if msg.role == "system" else msg.role}
        if msg.content is None or isinstance(msg.content, str):
            wire["content"] = msg.content
        else:
            wire["content"] = [_part_to_openai(p) for p in msg.content]
        if msg.name is not None:
            wire["name"] = msg.name
        if msg.tool_calls:
            wire["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in msg.tool_calls
            ]
        if msg.tool_call_id is not None:
            wire["tool_call_id"] = msg.tool_call_id
        out.append(wire)
    return out


def _part_from_openai(block: Mapping[str, Any], where: str) -> ContentPart:
    kind = block.get("type")
    if kind == "text":
        return TextPart(text=str(block.get("text", "")))
    if kind == "image_url":
        image = block.get("image_url")
        if not isinstance(image, Mapping) or not isinstance(image.get("url"), str):
            raise MessageFormatError(f"{where}: an image_url part needs an object with a url")
        inline = _DATA_URL.fullmatch(image["url"])
        if inline:  # kept as data, so other wire forms can send it inline
            return ImagePart(
                data=inline.group(2), media_type=inline.group(1), detail=image.get("detail")
            )
        return ImagePart(url=image["url"], detail=image.get("detail"))
    raise MessageFormatError(
        f"{where}: content part type {kind!r} is not supported; use text or image_url parts"
    )


def _tool_call(call: Any, where: str) -> ToolCall:
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping) or "id" not in call or "name" not in function:
        raise MessageFormatError(
            f"{where}: a tool call needs an id and a function with a name and arguments"
        )
    return ToolCall(
        id=str(call["id"]),
        name=str(function["name"]),
        arguments=str(function.get("arguments", "")),
    )


def from_openai(messages: Sequence[Mapping[str, Any]]) -> list[Message]:
    """Messages from a Chat Completions ``messages`` list (``developer`` reads as system)."""
    out: list[Message] = []
    for i, wire in enumerate(messages):
        where = f"message {i}"
        if not isinstance(wire, Mapping):
            raise MessageFormatError(f"{where}: a message must be an object with a role")
        role = wire.get("role")
        if role == "developer":
            role = "system"
        if role not in ("system", "user", "assistant", "tool"):
            raise MessageFormatError(
                f"{where}: unknown role {role!r}; expected system, developer, user, assistant "
                "or tool"
            )
        raw = wire.get("content")
        content: str | tuple[ContentPart, ...] | None
        if raw is None or isinstance(raw, str):
            content = raw
        elif isinstance(raw, list) and all(isinstance(b, Mapping) for b in raw):
            content = tuple(_part_from_openai(block, where) for block in raw)
        else:
            raise MessageFormatError(
                f"{where}: content must be a string, a list of content-part objects or null"
            )
        calls = tuple(_tool_call(call, where) for call in wire.get("tool_calls") or ())
        out.append(
            Message(
                role=role,
                content=content,
                tool_calls=calls,
                tool_call_id=wire.get("tool_call_id"),
                name=wire.get("name"),
            )
        )
    return out
