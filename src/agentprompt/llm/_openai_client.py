"""The OpenAI Chat Completions client, through the official ``openai`` SDK.

It talks to OpenAI or to any server that speaks the same protocol (a local model server, a
proxy): the base URL, key and model come from a :class:`~agentprompt.llm.config.ModelConfig`.
Request bodies are built by :mod:`agentprompt.wire.openai`; replies, streamed or not, come
back as :class:`~agentprompt.llm.base.ModelReply` with usage (cached prompt tokens
included), and every failure as a :class:`~agentprompt.llm.errors.ModelError`.
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
from agentprompt.wire.openai import to_openai

if TYPE_CHECKING:
    from openai.types import CompletionUsage
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

__all__ = ["PROTOCOL", "OpenAIClient", "chat_request_body", "normal_stop_reason"]

PROTOCOL: Final = "Chat Completions"
"""The protocol this client speaks, as errors name it."""

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

    @property
    def finished(self) -> bool:
        """Whether a finish reason has arrived."""
        return self.finish_reason is not None

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


class OpenAIClient(SdkClient):
    """A chat client for OpenAI and OpenAI-compatible servers."""

    provider = "openai"
    protocol = PROTOCOL

    def __init__(self, config: ModelConfig) -> None:
        try:
            import openai
        except ModuleNotFoundError:
            raise ClientNotInstalled("openai", "openai") from None
        super().__init__(config)
        self._sdk = openai.OpenAI(
            api_key=api_key_for(config),
            base_url=config.endpoint,
            timeout=openai.Timeout(config.timeout, connect=config.connect_timeout),
            max_retries=config.max_retries,
        )

    def _body(self, request: ModelRequest, *, stream: bool) -> dict[str, Any]:
        return chat_request_body(request, self.config, stream=stream)

    def _send(self, body: dict[str, Any]) -> Any:
        return self._sdk.chat.completions.create(**body)

    def _read(self, answer: Any) -> ModelReply:
        return _reply(answer)

    def _assembler(self) -> _StreamedReply:
        return _StreamedReply()

    def _failures(self) -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
        import openai

        return (openai.APIConnectionError,), (openai.APIError,)

    def _error(
        self, exc: BaseException, partial: ModelReply | None, *, streaming: bool
    ) -> ModelError:
        import openai

        if isinstance(exc, openai.APIStatusError):
            return self._status_error(exc, partial, fallback_body=exc.message)
        if isinstance(exc, openai.APIConnectionError):
            timed_out = isinstance(exc, openai.APITimeoutError)
            reason = connection_reason(exc, timeout=self.config.timeout, timed_out=timed_out)
            return self._connection_error(reason, partial, streaming=streaming)
        message = exc.message if isinstance(exc, openai.APIError) else str(exc)
        return ModelStreamInterrupted(
            self.config.endpoint, f"the server reported an error: {message}", partial=partial
        )
