"""The OpenAI Chat Completions client, through the official ``openai`` SDK.

It talks to OpenAI or to any server that speaks the same protocol (a local model server, a
proxy): the base URL, key and model come from a :class:`~agentprompt.llm.config.ModelConfig`.
Request bodies are built by :mod:`agentprompt.wire.openai`; replies, streamed or not, come
back as :class:`~agentprompt.llm.base.ModelReply` with usage (cached prompt tokens
included), and every failure as a :class:`~agentprompt.llm.errors.ModelError`.
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
from agentprompt.wire.openai import to_openai

if TYPE_CHECKING:
    import openai
    from openai.types import CompletionUsage
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

__all__ = ["PROTOCOL", "OpenAIClient", "chat_request_body", "normal_stop_reason"]

PROTOCOL: Final = "Chat Completions"
"""The protocol this client speaks, as errors name it."""

MALFORMED: Final = (ValueError, TypeError, AttributeError, KeyError)
"""What reading an answer of the wrong shape raises (JSON and validation errors included)."""

STOP_REASONS: Final = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}
"""OpenAI's finish reasons in the names :class:`ModelReply` uses (Anthropic's)."""


def normal_stop_reason(reason: str | None) -> str | None:
    """``finish_reason`` as ``end_turn``, ``tool_use``, ``max_tokens`` (others unchanged)."""
    return STOP_REASONS.get(reason, reason) if reason is not None else None


def chat_request_body(
    request: ModelRequest, config: ModelConfig, *, stream: bool = False
) -> dict[str, Any]:
    """The Chat Completions request body for ``request``.

    The reply limit is sent as ``max_completion_tokens`` to OpenAI's own API and as
    ``max_tokens`` to any other server (which may not know the newer name). A streamed
    request asks for usage in the last chunk.
    """
    body: dict[str, Any] = {
        "model": request.model or config.model,
        "messages": to_openai(request.messages),
    }
    if request.tools:
        body["tools"] = [tool.to_openai() for tool in request.tools]
    limit = request.max_tokens or config.max_tokens
    if limit is not None:
        body["max_completion_tokens" if config.base_url is None else "max_tokens"] = limit
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


def _usage(usage: CompletionUsage | None) -> Usage:
    if usage is None:
        return Usage()
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details else 0
    written = (details.cache_write_tokens or 0) if details else 0
    return Usage(
        input_tokens=max(0, usage.prompt_tokens - cached - written),
        output_tokens=usage.completion_tokens,
        cache_read_tokens=cached,
        cache_write_tokens=written,
    )


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text or "{}"), dict)
    except json.JSONDecodeError:
        return False


@dataclass
class _PendingCall:
    """A tool call as its pieces stream in."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def call(self) -> ToolCall:
        return ToolCall(id=self.id, name=self.name, arguments="".join(self.arguments) or "{}")


@dataclass
class _StreamedReply:
    """The reply as chunks arrive: text, tool calls by index, finish reason, usage."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, _PendingCall] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str | None = None

    def add(self, chunk: ChatCompletionChunk) -> str:
        """Take in one chunk; the new text it carries."""
        self.model = chunk.model or self.model
        if chunk.usage is not None:
            self.usage = _usage(chunk.usage)
        new = ""
        for choice in chunk.choices[:1]:
            delta = choice.delta
            new = delta.content or ""
            if new:
                self.text.append(new)
            for piece in delta.tool_calls or ():
                pending = self.calls.setdefault(piece.index, _PendingCall())
                pending.id = piece.id or pending.id
                if piece.function is not None:
                    pending.name = piece.function.name or pending.name
                    if piece.function.arguments:
                        pending.arguments.append(piece.function.arguments)
            if choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason
        return new

    def reply(self) -> ModelReply:
        """The whole reply, once the stream has finished."""
        return ModelReply(
            text="".join(self.text),
            tool_calls=tuple(self.calls[i].call() for i in sorted(self.calls)),
            usage=self.usage,
            stop_reason=normal_stop_reason(self.finish_reason),
            model=self.model,
        )

    def partial(self) -> ModelReply | None:
        """What arrived so far: the text and the tool calls known to be complete, or None."""
        order = sorted(self.calls)
        done = [
            self.calls[i].call()
            for n, i in enumerate(order)
            if self.calls[i].id
            and self.calls[i].name
            and (n < len(order) - 1 or _is_json_object("".join(self.calls[i].arguments)))
        ]
        text = "".join(self.text)
        if not text and not done:
            return None
        return ModelReply(text=text, tool_calls=tuple(done), usage=self.usage, model=self.model)


def _reply(completion: ChatCompletion) -> ModelReply:
    if not completion.choices:
        return ModelReply(usage=_usage(completion.usage), model=completion.model)
    choice = completion.choices[0]
    message = choice.message
    calls = tuple(
        ToolCall(id=call.id, name=call.function.name, arguments=call.function.arguments or "{}")
        for call in message.tool_calls or ()
        if call.type == "function"
    )
    return ModelReply(
        text=message.content or "",
        tool_calls=calls,
        usage=_usage(completion.usage),
        stop_reason=normal_stop_reason(choice.finish_reason),
        model=completion.model,
    )


def _retry_after(headers: Any) -> float | None:
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) / scale
        except ValueError:
            continue
    return None


def _connection_reason(exc: BaseException, timeout: float) -> str:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return f"no answer within {timeout:g} s (raise it with --timeout)"
    cause = exc.__cause__ or exc.__context__
    described = str(cause) if cause is not None and str(cause) else str(exc)
    if "refused" in described.lower():
        return "connection refused (nothing is listening there)"
    return described


class OpenAIClient:
    """A chat client for OpenAI and OpenAI-compatible servers."""

    def __init__(self, config: ModelConfig) -> None:
        try:
            import openai
        except ModuleNotFoundError:
            raise ClientNotInstalled("openai", "openai") from None
        self.config = config
        """The model, server and limits this client uses."""
        self._sdk = openai.OpenAI(
            api_key=api_key_for(config),
            base_url=config.endpoint,
            timeout=openai.Timeout(config.timeout, connect=config.connect_timeout),
            max_retries=config.max_retries,
        )

    def _error(
        self, exc: openai.APIError, partial: ModelReply | None, *, streaming: bool
    ) -> ModelError:
        import openai

        url = self.config.endpoint
        if isinstance(exc, openai.APIStatusError):
            try:
                body = exc.response.text
            except Exception:  # a streamed body that cannot be read any more
                body = exc.message
            return status_error(
                url,
                exc.status_code,
                body,
                retry_after=_retry_after(exc.response.headers),
                key_env=self.config.api_key_env,
                partial=partial,
            )
        if isinstance(exc, openai.APIConnectionError):
            reason = _connection_reason(exc, self.config.timeout)
            if streaming:
                return ModelStreamInterrupted(url, reason, partial=partial)
            return ModelConnectionError(url, reason, partial=partial)
        return ModelStreamInterrupted(
            url, f"the server reported an error: {exc.message}", partial=partial
        )

    def complete(self, request: ModelRequest) -> ModelReply:
        """The model's whole reply to ``request``."""
        import openai

        check_model_requests_allowed("openai")
        body = chat_request_body(request, self.config)
        try:
            return _reply(self._sdk.chat.completions.create(**body))
        except openai.APIError as exc:
            raise self._error(exc, None, streaming=False) from None
        except MALFORMED as exc:
            raise ModelReplyError(self.config.endpoint, PROTOCOL, str(exc)) from None

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """The reply as it is generated: text deltas, then :class:`ReplyDone`.

        The request is sent before this returns, so a refused connection or an error status
        raises here; a failure while the reply streams raises from the iteration with what
        arrived before in the error's ``partial``.
        """
        import openai

        check_model_requests_allowed("openai")
        body = chat_request_body(request, self.config, stream=True)
        try:
            chunks = self._sdk.chat.completions.create(**body)
        except openai.APIError as exc:
            raise self._error(exc, None, streaming=False) from None
        return self._events(chunks)

    def _events(self, chunks: openai.Stream[ChatCompletionChunk]) -> Iterator[StreamEvent]:
        import openai

        streamed = _StreamedReply()
        try:
            for chunk in chunks:
                text = streamed.add(chunk)
                if text:
                    yield TextDelta(text=text)
        except openai.APIConnectionError as exc:
            # Cut off after the model finished (only the usage chunk lost): the reply is whole.
            if streamed.finish_reason is None:
                raise self._error(exc, streamed.partial(), streaming=True) from None
        except openai.APIError as exc:
            raise self._error(exc, streamed.partial(), streaming=True) from None
        except MALFORMED as exc:
            raise ModelReplyError(
                self.config.endpoint, PROTOCOL, str(exc), partial=streamed.partial()
            ) from None
        finally:
            chunks.close()
        if streamed.finish_reason is None:
            raise ModelStreamInterrupted(
                self.config.endpoint,
                "the stream ended before the model said it had finished",
                partial=streamed.partial(),
            )
        yield ReplyDone(reply=streamed.reply())
