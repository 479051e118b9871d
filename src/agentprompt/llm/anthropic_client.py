"""The Anthropic Messages client, through the official ``anthropic`` SDK.

Request bodies are built by :mod:`agentprompt.wire.anthropic`, so the cache breakpoints a
composition marks (``cache_breakpoint`` and ``inner_breakpoints`` on messages) travel as
``cache_control`` markers. Replies, streamed or not, come back as
:class:`~agentprompt.llm.base.ModelReply` with usage including cache reads and writes, and
every failure as a :class:`~agentprompt.llm.errors.ModelError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from agentprompt.llm.base import (
    ModelReply,
    ModelRequest,
    ReplyDone,
    StreamEvent,
    TextDelta,
    Usage,
    check_model_requests_allowed,
)
from agentprompt.llm.config import ModelConfig, api_key_for
from agentprompt.llm.errors import (
    ClientNotInstalled,
    ModelConnectionError,
    ModelError,
    ModelReplyError,
    ModelStreamInterrupted,
    status_error,
)
from agentprompt.messages import ToolCall
from agentprompt.wire.anthropic import to_anthropic

if TYPE_CHECKING:
    import anthropic
    from anthropic.types import Message as SDKMessage
    from anthropic.types import RawMessageStreamEvent

__all__ = ["DEFAULT_MAX_TOKENS", "PROTOCOL", "AnthropicClient", "messages_request_body"]

PROTOCOL: Final = "Anthropic Messages"
"""The protocol this client speaks, as errors name it."""

MALFORMED: Final = (ValueError, TypeError, AttributeError, KeyError)
"""What reading an answer of the wrong shape raises (JSON and validation errors included)."""

SDK_ARGUMENTS: Final = frozenset({"model", "max_tokens", "messages", "system", "tools", "stream"})
"""Body fields passed to the SDK by name; any other (``temperature``, which some SDK
versions no longer name) travels as ``extra_body``, so the request body is the same."""

DEFAULT_MAX_TOKENS: Final = 8192
"""The reply limit sent when neither the request nor the configuration sets one (the
Messages API requires a limit)."""


def messages_request_body(
    request: ModelRequest, config: ModelConfig, *, stream: bool = False
) -> dict[str, Any]:
    """The Messages API request body for ``request``: system, messages, tools, limits."""
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


def _retry_after(headers: Any) -> float | None:
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class AnthropicClient:
    """A chat client for Anthropic's Messages API (and servers that speak it)."""

    def __init__(self, config: ModelConfig) -> None:
        try:
            import anthropic
        except ModuleNotFoundError:
            raise ClientNotInstalled("anthropic", "anthropic") from None
        self.config = config
        """The model, server and limits this client uses."""
        self._sdk = anthropic.Anthropic(
            api_key=api_key_for(config),
            base_url=config.endpoint,
            timeout=anthropic.Timeout(config.timeout, connect=config.connect_timeout),
            max_retries=config.max_retries,
        )

    def _error(
        self, exc: BaseException, partial: ModelReply | None, *, streaming: bool
    ) -> ModelError:
        import anthropic
        import httpx2

        url = self.config.endpoint
        if isinstance(exc, anthropic.APIStatusError):
            try:
                body = exc.response.text
            except Exception:  # a streamed body that cannot be read any more
                body = str(exc.body if exc.body is not None else exc.message)
            if exc.response.status_code == 200:  # an error event inside a streamed reply
                return ModelStreamInterrupted(
                    url, f"the server reported an error: {exc.message}", partial=partial
                )
            return status_error(
                url,
                exc.status_code,
                body,
                retry_after=_retry_after(exc.response.headers),
                key_env=self.config.api_key_env,
                partial=partial,
            )
        if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
            reason = f"no answer within {self.config.timeout:g} s (raise it with --timeout)"
        else:
            cause = exc.__cause__ or exc.__context__ or exc
            described = str(cause) or type(cause).__name__
            reason = (
                "connection refused (nothing is listening there)"
                if "refused" in described.lower()
                else described
            )
        if streaming:
            return ModelStreamInterrupted(url, reason, partial=partial)
        return ModelConnectionError(url, reason, partial=partial)

    def _send(self, body: dict[str, Any]) -> Any:
        named = {k: v for k, v in body.items() if k in SDK_ARGUMENTS}
        extra = {k: v for k, v in body.items() if k not in SDK_ARGUMENTS}
        return self._sdk.messages.create(**named, extra_body=extra or None)

    def complete(self, request: ModelRequest) -> ModelReply:
        """The model's whole reply to ``request``."""
        import anthropic

        check_model_requests_allowed("anthropic")
        body = messages_request_body(request, self.config)
        try:
            return _reply(self._send(body))
        except anthropic.APIError as exc:
            raise self._error(exc, None, streaming=False) from None
        except MALFORMED as exc:
            raise ModelReplyError(self.config.endpoint, PROTOCOL, str(exc)) from None

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """The reply as it is generated: text deltas, then :class:`ReplyDone`.

        The request is sent before this returns, so a refused connection or an error status
        raises here; a failure while the reply streams raises from the iteration with what
        arrived before in the error's ``partial``.
        """
        import anthropic

        check_model_requests_allowed("anthropic")
        body = messages_request_body(request, self.config, stream=True)
        try:
            events: anthropic.Stream[RawMessageStreamEvent] = self._send(body)
        except anthropic.APIError as exc:
            raise self._error(exc, None, streaming=False) from None
        return self._events(events)

    def _events(self, events: anthropic.Stream[RawMessageStreamEvent]) -> Iterator[StreamEvent]:
        import anthropic
        import httpx2

        streamed = _StreamedReply()
        try:
            for event in events:
                text = streamed.add(event)
                if text:
                    yield TextDelta(text=text)
        except (anthropic.APIConnectionError, httpx2.TransportError) as exc:
            # Cut off after the model said why it stopped (only message_stop lost): whole.
            if streamed.stop_reason is None:
                raise self._error(exc, streamed.partial(), streaming=True) from None
        except (anthropic.APIError, httpx2.HTTPError) as exc:
            raise self._error(exc, streamed.partial(), streaming=True) from None
        except MALFORMED as exc:
            raise ModelReplyError(
                self.config.endpoint, PROTOCOL, str(exc), partial=streamed.partial()
            ) from None
        finally:
            events.close()
        if not streamed.stopped and streamed.stop_reason is None:
            raise ModelStreamInterrupted(
                self.config.endpoint,
                "the stream ended before the model said it had finished",
                partial=streamed.partial(),
            )
        yield ReplyDone(reply=streamed.reply())
