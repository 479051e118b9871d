"""What the clients built on an official SDK share: sending a request whole or streamed,
assembling a streamed reply, and turning the SDK's failures into
:class:`~agentprompt.llm.errors.ModelError`\\s that keep what arrived before them.

A provider's client supplies the protocol-specific pieces (the request body, reading a
whole answer, a :class:`StreamAssembler` for its stream events, and which SDK exceptions
mean what); the order of the steps and the failure rules live here once:

- a failure while sending raises before any event is yielded;
- a connection lost after the model said it had finished (only a trailing usage or stop
  event lost) still yields the whole reply;
- any other failure mid-stream raises with the text and complete tool calls received so far
  in the error's ``partial``;
- a stream that ends without the model saying it had finished is an interruption.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar, Final, Protocol

from agentprompt.llm.base import (
    ModelReply,
    ModelRequest,
    ReplyDone,
    StreamEvent,
    TextDelta,
    check_model_requests_allowed,
)
from agentprompt.llm.config import ModelConfig
from agentprompt.llm.errors import (
    ModelConnectionError,
    ModelError,
    ModelReplyError,
    ModelStreamInterrupted,
    status_error,
)

__all__ = ["MALFORMED", "SdkClient", "StreamAssembler", "connection_reason", "retry_after"]

MALFORMED: Final = (ValueError, TypeError, AttributeError, KeyError)
"""What reading an answer of the wrong shape raises (JSON and validation errors included)."""


class StreamAssembler(Protocol):
    """A reply put together from a provider's stream events."""

    @property
    def finished(self) -> bool:
        """Whether the model has said it finished (a stop or finish reason arrived)."""
        ...

    def add(self, event: Any) -> str:
        """Take in one event; the new text it carries."""
        ...

    def reply(self) -> ModelReply:
        """The whole reply, once the stream has finished."""
        ...

    def partial(self) -> ModelReply | None:
        """What arrived so far (text, complete tool calls), or None when nothing did."""
        ...


def retry_after(headers: Any) -> float | None:
    """The wait a rate-limited answer asks for, in seconds (``retry-after-ms`` or
    ``retry-after``), or None."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) / scale
        except ValueError:
            continue
    return None


def connection_reason(exc: BaseException, *, timeout: float, timed_out: bool) -> str:
    """Why a connection failed, in words a user can act on."""
    if timed_out:
        return f"no answer within {timeout:g} s (raise it with --timeout)"
    cause = exc.__cause__ or exc.__context__ or exc
    described = str(cause) or str(exc) or type(cause).__name__
    if "refused" in described.lower():
        return "connection refused (nothing is listening there)"
    return described


class SdkClient(ABC):
    """The request/stream skeleton of an SDK-backed chat client."""

    provider: ClassVar[str]
    """The provider's name, as ``check_model_requests_allowed`` and errors use it."""
    protocol: ClassVar[str]
    """The protocol the client speaks, as errors name it."""

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        """The model, server and limits this client uses."""

    # What each provider supplies.

    @abstractmethod
    def _body(self, request: ModelRequest, *, stream: bool) -> dict[str, Any]:
        """The request body for ``request``."""

    @abstractmethod
    def _send(self, body: dict[str, Any]) -> Any:
        """Send ``body`` through the SDK: an answer, or a stream of events."""

    @abstractmethod
    def _read(self, answer: Any) -> ModelReply:
        """A whole (not streamed) answer as a reply."""

    @abstractmethod
    def _assembler(self) -> StreamAssembler:
        """A fresh assembler for one streamed reply."""

    @abstractmethod
    def _failures(self) -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
        """The SDK's exception types: (connection lost, any API failure)."""

    @abstractmethod
    def _error(
        self, exc: BaseException, partial: ModelReply | None, *, streaming: bool
    ) -> ModelError:
        """The :class:`ModelError` for an SDK failure."""

    # Shared by every provider.

    def _status_error(
        self, exc: Any, partial: ModelReply | None, *, fallback_body: str
    ) -> ModelError:
        """The error for an HTTP status the server answered with."""
        try:
            body = exc.response.text
        except Exception:  # a streamed body that cannot be read any more
            body = fallback_body
        return status_error(
            self.config.endpoint,
            exc.status_code,
            body,
            retry_after=retry_after(exc.response.headers),
            key_env=self.config.api_key_env,
            partial=partial,
        )

    def _connection_error(
        self, reason: str, partial: ModelReply | None, *, streaming: bool
    ) -> ModelError:
        url = self.config.endpoint
        if streaming:
            return ModelStreamInterrupted(url, reason, partial=partial)
        return ModelConnectionError(url, reason, partial=partial)

    def complete(self, request: ModelRequest) -> ModelReply:
        """The model's whole reply to ``request``."""
        check_model_requests_allowed(self.provider)
        _, failed = self._failures()
        body = self._body(request, stream=False)
        try:
            return self._read(self._send(body))
        except failed as exc:
            raise self._error(exc, None, streaming=False) from None
        except MALFORMED as exc:
            raise ModelReplyError(self.config.endpoint, self.protocol, str(exc)) from None

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """The reply as it is generated: text deltas, then :class:`ReplyDone`.

        The request is sent before this returns, so a refused connection or an error status
        raises here; a failure while the reply streams raises from the iteration with what
        arrived before in the error's ``partial``.
        """
        check_model_requests_allowed(self.provider)
        _, failed = self._failures()
        body = self._body(request, stream=True)
        try:
            events = self._send(body)
        except failed as exc:
            raise self._error(exc, None, streaming=False) from None
        return self._events(events)

    def _events(self, events: Any) -> Iterator[StreamEvent]:
        lost, failed = self._failures()
        streamed = self._assembler()
        try:
            for event in events:
                text = streamed.add(event)
                if text:
                    yield TextDelta(text=text)
        except lost as exc:
            # Cut off after the model said it had finished: only a trailing event is lost.
            if not streamed.finished:
                raise self._error(exc, streamed.partial(), streaming=True) from None
        except failed as exc:
            raise self._error(exc, streamed.partial(), streaming=True) from None
        except MALFORMED as exc:
            raise ModelReplyError(
                self.config.endpoint, self.protocol, str(exc), partial=streamed.partial()
            ) from None
        finally:
            events.close()
        if not streamed.finished:
            raise ModelStreamInterrupted(
                self.config.endpoint,
                "the stream ended before the model said it had finished",
                partial=streamed.partial(),
            )
        yield ReplyDone(reply=streamed.reply())
