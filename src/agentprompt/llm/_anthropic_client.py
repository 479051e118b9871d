"""The Anthropic Messages client, through the official ``anthropic`` SDK.

Request bodies are built by :mod:`agentprompt.wire.anthropic`, so the cache breakpoints a
composition marks (``cache_breakpoint`` and ``inner_breakpoints`` on messages) travel as
``cache_control`` markers. Replies, streamed or not, come back as
:class:`~agentprompt.llm.base.ModelReply` with usage including cache reads and writes, and
every failure as a :class:`~agentprompt.llm.errors.ModelError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from agentprompt.llm._sdk_client import SdkClient, connection_reason
from agentprompt.llm.base import ModelReply, ModelRequest, Usage
from agentprompt.llm.config import ModelConfig, api_key_for
from agentprompt.llm.errors import ClientNotInstalled, ModelError, ModelStreamInterrupted
from agentprompt.messages import ToolCall
from agentprompt.wire.anthropic import to_anthropic

if TYPE_CHECKING:
    from anthropic.types import Message as SDKMessage
    from anthropic.types import RawMessageStreamEvent

__all__ = ["DEFAULT_MAX_TOKENS", "PROTOCOL", "AnthropicClient", "messages_request_body"]

PROTOCOL: Final = "Anthropic Messages"
"""The protocol this client speaks, as errors name it."""

SDK_ARGUMENTS: Final = frozenset({"model", "max_tokens", "messages", "system", "tools", "stream"})
"""Body fields passed to the SDK by name; any other (``temperature``, which some SDK
versions no longer name) travels as ``extra_body``, so the request body is the same."""

DEFAULT_MAX_TOKENS: Final = 8192
"""The reply limit sent when neither the request nor the configuration sets one (the
Messages API requires a limit)."""


def messages_request_body(
    request: ModelRequest, config: ModelConfig, *, stream: bool = False
) -> dict[str, Any]:
    """The Messages API request body for ``request``: system, messages, tools, limits.

    The Messages API refuses a request whose history holds tool calls or results but that
    offers no tools, so such a request raises :class:`ModelError` here, before anything is
    sent, naming the fix."""
    if not request.tools and any(m.tool_calls or m.role == "tool" for m in request.messages):
        raise ModelError(
            "this request's history holds tool calls or tool results but the request offers no "
            "tools, which the Anthropic Messages API refuses; pass the tool definitions again "
            "(they may go unused)"
        )
    body: dict[str, Any] = {
        "model": request.model or config.model,
        "max_tokens": request.max_tokens or config.max_tokens or DEFAULT_MAX_TOKENS,
    }
    body.update(to_anthropic(request.messages))
    if request.tools:
        body["tools"] = [tool.to_anthropic() for tool in request.tools]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if stream:
        body["stream"] = True
    return body


def _usage(raw: Any, before: Usage | None = None) -> Usage:
    """Usage from an SDK usage object; figures it leaves out keep their ``before`` value."""
    old = before or Usage()

    def pick(name: str, default: int) -> int:
        value = getattr(raw, name, None)
        return value if isinstance(value, int) else default

    return Usage(
        input_tokens=pick("input_tokens", old.input_tokens),
        output_tokens=pick("output_tokens", old.output_tokens),
        cache_read_tokens=pick("cache_read_input_tokens", old.cache_read_tokens),
        cache_write_tokens=pick("cache_creation_input_tokens", old.cache_write_tokens),
    )


def _reply(message: SDKMessage) -> ModelReply:
    text: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content:
        if block.type == "text":
            text.append(block.text)
        elif block.type == "tool_use":
            calls.append(
                ToolCall(
                    id=block.id,
                    name=block.name,
                    arguments=json.dumps(block.input, ensure_ascii=False),
                )
            )
    return ModelReply(
        text="".join(text),
        tool_calls=tuple(calls),
        usage=_usage(message.usage),
        stop_reason=message.stop_reason,
        model=message.model,
    )


@dataclass
class _Block:
    """A content block as its pieces stream in."""

    kind: str
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    finished: bool = False

    def call(self) -> ToolCall:
        return ToolCall(id=self.id, name=self.name, arguments="".join(self.parts) or "{}")


@dataclass
class _StreamedReply:
    """The reply as events arrive: content blocks by index, stop reason, usage."""

    blocks: dict[int, _Block] = field(default_factory=dict)
    stop_reason: str | None = None
    stopped: bool = False
    usage: Usage = field(default_factory=Usage)
    model: str | None = None

    def add(self, event: RawMessageStreamEvent) -> str:
        """Take in one event; the new text it carries."""
        if event.type == "message_start":
            self.model = event.message.model
            self.usage = _usage(event.message.usage)
        elif event.type == "content_block_start":
            block = event.content_block
            if block.type == "tool_use":
                self.blocks[event.index] = _Block(kind="tool_use", id=block.id, name=block.name)
            elif block.type == "text":
                self.blocks[event.index] = _Block(kind="text", parts=[block.text])
                return block.text
        elif event.type == "content_block_delta":
            pending = self.blocks.get(event.index)
            delta = event.delta
            if pending is not None and delta.type == "text_delta":
                pending.parts.append(delta.text)
                return delta.text
            if pending is not None and delta.type == "input_json_delta":
                pending.parts.append(delta.partial_json)
        elif event.type == "content_block_stop":
            if event.index in self.blocks:
                self.blocks[event.index].finished = True
        elif event.type == "message_delta":
            self.stop_reason = event.delta.stop_reason or self.stop_reason
            self.usage = _usage(event.usage, self.usage)
        elif event.type == "message_stop":
            self.stopped = True
        return ""

    @property
    def finished(self) -> bool:
        """Whether the model said why it stopped, or the stream's end event arrived."""
        return self.stopped or self.stop_reason is not None

    def _text(self) -> str:
        return "".join("".join(b.parts) for _, b in sorted(self.blocks.items()) if b.kind == "text")

    def reply(self) -> ModelReply:
        """The whole reply, once the stream has finished."""
        calls = tuple(b.call() for _, b in sorted(self.blocks.items()) if b.kind == "tool_use")
        return ModelReply(
            text=self._text(),
            tool_calls=calls,
            usage=self.usage,
            stop_reason=self.stop_reason,
            model=self.model,
        )

    def partial(self) -> ModelReply | None:
        """What arrived so far: the text and the finished tool calls, or None."""
        calls = tuple(
            b.call() for _, b in sorted(self.blocks.items()) if b.kind == "tool_use" and b.finished
        )
        text = self._text()
        if not text and not calls:
            return None
        return ModelReply(text=text, tool_calls=calls, usage=self.usage, model=self.model)


class AnthropicClient(SdkClient):
    """A chat client for Anthropic's Messages API (and servers that speak it)."""

    provider = "anthropic"
    protocol = PROTOCOL

    def __init__(self, config: ModelConfig) -> None:
        try:
            import anthropic
        except ModuleNotFoundError:
            raise ClientNotInstalled("anthropic", "anthropic") from None
        super().__init__(config)
        self._sdk = anthropic.Anthropic(
            api_key=api_key_for(config),
            base_url=config.endpoint,
            timeout=anthropic.Timeout(config.timeout, connect=config.connect_timeout),
            max_retries=config.max_retries,
        )

    def _body(self, request: ModelRequest, *, stream: bool) -> dict[str, Any]:
        return messages_request_body(request, self.config, stream=stream)

    def _send(self, body: dict[str, Any]) -> Any:
        named = {k: v for k, v in body.items() if k in SDK_ARGUMENTS}
        extra = {k: v for k, v in body.items() if k not in SDK_ARGUMENTS}
        return self._sdk.messages.create(**named, extra_body=extra or None)

    def _read(self, answer: Any) -> ModelReply:
        return _reply(answer)

    def _assembler(self) -> _StreamedReply:
        return _StreamedReply()

    def _failures(self) -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
        import anthropic
        import httpx2

        # The SDK lets some transport errors of a streamed body through unwrapped.
        lost = (anthropic.APIConnectionError, httpx2.TransportError)
        return lost, (anthropic.APIError, httpx2.HTTPError)

    def _error(
        self, exc: BaseException, partial: ModelReply | None, *, streaming: bool
    ) -> ModelError:
        import anthropic
        import httpx2

        if isinstance(exc, anthropic.APIStatusError):
            if exc.response.status_code == 200:  # an error event inside a streamed reply
                return ModelStreamInterrupted(
                    self.config.endpoint,
                    f"the server reported an error: {exc.message}",
                    partial=partial,
                )
            fallback = str(exc.body if exc.body is not None else exc.message)
            return self._status_error(exc, partial, fallback_body=fallback)
        timed_out = isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException)
        reason = connection_reason(exc, timeout=self.config.timeout, timed_out=timed_out)
        return self._connection_error(reason, partial, streaming=streaming)
