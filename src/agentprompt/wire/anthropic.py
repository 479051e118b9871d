"""Messages to and from the Anthropic Messages API form.

The form differs from OpenAI's in three ways that matter here: system text travels apart
from the conversation, tool results are ``tool_result`` blocks inside a user turn, and
cache breakpoints are explicit ``cache_control`` markers on blocks (at most four).

System messages that come after the conversation has started (such as the ephemeral
``<system-reminder>`` messages of an agent turn) cannot be placed in ``system`` without
changing their position, so they travel as text blocks of a user turn.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from agentprompt.messages import (
    CacheControl,
    ContentPart,
    ImagePart,
    Message,
    MessageFormatError,
    TextPart,
    ToolCall,
)

__all__ = ["MAX_CACHE_BREAKPOINTS", "from_anthropic", "to_anthropic"]

MAX_CACHE_BREAKPOINTS = 4
"""The most ``cache_control`` markers one Anthropic request may carry."""


def _cache_to_wire(cache: CacheControl) -> dict[str, Any]:
    wire: dict[str, Any] = {"type": cache.type}
    if cache.ttl is not None:
        wire["ttl"] = cache.ttl
    return wire


def _cache_from_wire(raw: Any) -> CacheControl | None:
    if not isinstance(raw, Mapping):
        return None
    return CacheControl(type=str(raw.get("type", "ephemeral")), ttl=raw.get("ttl"))


def _part_to_wire(part: ContentPart) -> dict[str, Any]:
    block: dict[str, Any]
    if isinstance(part, TextPart):
        block = {"type": "text", "text": part.text}
    elif part.data is not None:
        source = {"type": "base64", "media_type": part.media_type or "image/png", "data": part.data}
        block = {"type": "image", "source": source}
    else:
        block = {"type": "image", "source": {"type": "url", "url": part.url}}
    if part.cache_control is not None:
        block["cache_control"] = _cache_to_wire(part.cache_control)
    return block


def _blocks(msg: Message) -> list[dict[str, Any]]:
    """The content blocks one message contributes to its wire turn."""
    if msg.role == "tool":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": msg.tool_call_id}
        if isinstance(msg.content, str):
            block["content"] = msg.content
        elif msg.content is not None:
            block["content"] = [_part_to_wire(p) for p in msg.content]
        if msg.is_error:
            block["is_error"] = True
        return [block]
    blocks: list[dict[str, Any]]
    if msg.inner_breakpoints and isinstance(msg.content, str):
        cuts = (0, *msg.inner_breakpoints, len(msg.content))
        blocks = [{"type": "text", "text": msg.content[a:b]} for a, b in itertools.pairwise(cuts)]
        for head in blocks[:-1]:
            head["cache_control"] = _cache_to_wire(CacheControl())
    else:
        blocks = [_part_to_wire(p) for p in msg.parts]
    for call in msg.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.parsed_arguments()}
        )
    return blocks


def _wire_role(msg: Message) -> str:
    return "assistant" if msg.role == "assistant" else "user"


def _marked(blocks: list[Any]) -> Iterator[dict[str, Any]]:
    """Every block carrying a ``cache_control`` marker, in request order (nested included)."""
    for block in blocks:
        if not isinstance(block, dict):
            continue
        nested = block.get("content")
        if isinstance(nested, list):
            yield from _marked(nested)
        if "cache_control" in block:
            yield block


def _limit_markers(request: dict[str, Any]) -> None:
    """Remove the earliest cache markers beyond the four the API accepts.

    Later markers cover longer prefixes, so they are the ones worth keeping.
    """
    blocks: list[Any] = []
    if isinstance(request.get("system"), list):
        blocks.extend(request["system"])
    for turn in request["messages"]:
        if isinstance(turn["content"], list):
            blocks.extend(turn["content"])
    marked = list(_marked(blocks))
    for block in marked[: max(0, len(marked) - MAX_CACHE_BREAKPOINTS)]:
        del block["cache_control"]


def _results_first(turn: dict[str, Any]) -> None:
    """Put a user turn's ``tool_result`` blocks before its other blocks, as the API requires."""
    content = turn["content"]
    if turn["role"] == "user" and isinstance(content, list):
        results = [b for b in content if b.get("type") == "tool_result"]
        if results and content[: len(results)] != results:
            turn["content"] = results + [b for b in content if b.get("type") != "tool_result"]


def to_anthropic(messages: Iterable[Message]) -> dict[str, Any]:
    """The ``system`` and ``messages`` fields of a Messages API request.

    Adjacent messages that map to the same wire role share one turn, with any tool results
    first. A message marked ``cache_breakpoint`` gets ``cache_control`` on its last block;
    when more than four markers would result, the earliest are dropped.
    """
    msgs = list(messages)
    lead = 0
    while lead < len(msgs) and msgs[lead].role == "system":
        lead += 1
    request: dict[str, Any] = {}
    system = msgs[:lead]
    plain = not (system and (system[0].cache_breakpoint or system[0].inner_breakpoints))
    if len(system) == 1 and isinstance(system[0].content, str) and plain:
        request["system"] = system[0].content
    elif system:
        request["system"] = [b for m in system for b in _marked_blocks(m)]

    turns: list[dict[str, Any]] = []
    for msg in msgs[lead:]:
        role = _wire_role(msg)
        standalone = (
            isinstance(msg.content, str)
            and msg.role in ("user", "assistant")
            and not msg.tool_calls
            and not msg.cache_breakpoint
            and not msg.inner_breakpoints
        )
        if turns and turns[-1]["role"] == role:
            last = turns[-1]
            if isinstance(last["content"], str):
                last["content"] = [{"type": "text", "text": last["content"]}]
            last["content"].extend(_marked_blocks(msg))
        elif standalone:
            turns.append({"role": role, "content": msg.content})
        else:
            turns.append({"role": role, "content": _marked_blocks(msg)})
    for turn in turns:
        _results_first(turn)
    request["messages"] = turns
    _limit_markers(request)
    return request


def _marked_blocks(msg: Message) -> list[dict[str, Any]]:
    blocks = _blocks(msg)
    if msg.cache_breakpoint:
        if not blocks:
            raise MessageFormatError(
                f"a {msg.role} message with no content cannot carry a cache breakpoint"
            )
        # A marker the block already carries (perhaps with a longer ttl) is kept.
        blocks[-1].setdefault("cache_control", _cache_to_wire(CacheControl()))
    return blocks


def _part_from_wire(block: Mapping[str, Any], where: str) -> ContentPart:
    kind = block.get("type")
    cache = _cache_from_wire(block.get("cache_control"))
    if kind == "text":
        return TextPart(text=str(block.get("text", "")), cache_control=cache)
    if kind == "image":
        source = block.get("source")
        if not isinstance(source, Mapping):
            raise MessageFormatError(f"{where}: an image block needs a source object")
        if source.get("type") == "base64":
            return ImagePart(
                data=str(source.get("data", "")),
                media_type=source.get("media_type"),
                cache_control=cache,
            )
        return ImagePart(url=str(source.get("url", "")), cache_control=cache)
    raise MessageFormatError(
        f"{where}: content block type {kind!r} is not supported here; expected text, image, "
        "tool_use or tool_result"
    )


def _content_from_wire(raw: Any, where: str) -> str | tuple[ContentPart, ...] | None:
    if raw is None or isinstance(raw, str):
        return raw
    if isinstance(raw, list) and all(isinstance(b, Mapping) for b in raw):
        return tuple(_part_from_wire(b, where) for b in raw)
    raise MessageFormatError(f"{where}: content must be a string or a list of block objects")


def _tool_use(block: Mapping[str, Any], where: str) -> ToolCall:
    if "id" not in block or "name" not in block:
        raise MessageFormatError(f"{where}: a tool_use block needs an id and a name")
    return ToolCall(
        id=str(block["id"]),
        name=str(block["name"]),
        arguments=json.dumps(block.get("input", {}), ensure_ascii=False),
    )


def from_anthropic(
    messages: Sequence[Mapping[str, Any]], system: str | Sequence[Mapping[str, Any]] | None = None
) -> list[Message]:
    """Messages from a Messages API request's ``system`` and ``messages`` fields.

    A user turn holding ``tool_result`` blocks becomes one tool message per result, followed
    by a user message for any other blocks of the turn, in their order.
    """
    out: list[Message] = []
    if isinstance(system, str):
        out.append(Message(role="system", content=system))
    elif isinstance(system, Sequence):
        out.append(Message(role="system", content=_content_from_wire(list(system), "system")))
    elif system is not None:
        raise MessageFormatError("system must be a string or a list of text blocks")

    for i, turn in enumerate(messages):
        where = f"message {i}"
        if not isinstance(turn, Mapping):
            raise MessageFormatError(f"{where}: a message must be an object with role and content")
        role = turn.get("role")
        raw = turn.get("content")
        if role not in ("user", "assistant"):
            raise MessageFormatError(f"{where}: role must be user or assistant, not {role!r}")
        if isinstance(raw, list) and not all(isinstance(b, Mapping) for b in raw):
            raise MessageFormatError(f"{where}: every content block must be an object")
        if not isinstance(raw, list):
            out.append(Message(role=role, content=_content_from_wire(raw, where)))
            continue
        if role == "assistant":
            parts = tuple(_part_from_wire(b, where) for b in raw if b.get("type") != "tool_use")
            calls = tuple(_tool_use(b, where) for b in raw if b.get("type") == "tool_use")
            out.append(Message(role="assistant", content=parts, tool_calls=calls))
            continue
        pending: list[ContentPart] = []
        for block in raw:
            if block.get("type") == "tool_result":
                if pending:
                    out.append(Message(role="user", content=tuple(pending)))
                    pending = []
                out.append(
                    Message(
                        role="tool",
                        tool_call_id=str(block.get("tool_use_id")),
                        content=_content_from_wire(block.get("content"), where),
                        is_error=bool(block.get("is_error", False)),
                        cache_breakpoint=block.get("cache_control") is not None,
                    )
                )
            else:
                pending.append(_part_from_wire(block, where))
        if pending:
            out.append(Message(role="user", content=tuple(pending)))
    return out
