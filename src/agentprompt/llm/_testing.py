"""Models for tests and demos: no network, fully predictable, and they record every request.

:class:`ScriptedModel` answers from a queue; :class:`FunctionModel` answers with a function
of the request. Both are chat clients (:class:`~agentprompt.llm.base.ModelClient`) and
prompt executors (:class:`~agentprompt.llm.base.PromptExecutor`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from agentprompt.llm.base import ModelReply, ModelRequest, ReplyDone, StreamEvent, TextDelta
from agentprompt.llm.errors import ModelError, ScriptOutOfAnswers
from agentprompt.messages import Message

__all__ = ["FunctionModel", "PromptCall", "Script", "ScriptedModel"]

Script = str | ModelReply | dict[str, object] | list[object] | BaseException
"""One scripted answer: text, a whole reply, an object (for ``execute_prompt``), or an
exception to raise."""


@dataclass(frozen=True, kw_only=True)
class PromptCall:
    """One ``execute_prompt`` call a test model received."""

    prompt: str
    """The prompt text."""
    mode: str
    """The ``mode`` argument."""
    response_shape: str
    """The ``response_shape`` argument."""


def _as_reply(answer: object) -> ModelReply:
    if isinstance(answer, ModelReply):
        return answer
    if isinstance(answer, str):
        return ModelReply(text=answer, stop_reason="end_turn", model="test")
    return ModelReply(text=json.dumps(answer), stop_reason="end_turn", model="test")


def _stream(reply: ModelReply, chunk: int) -> Iterator[StreamEvent]:
    for start in range(0, len(reply.text), chunk):
        yield TextDelta(text=reply.text[start : start + chunk])
    yield ReplyDone(reply=reply)


def _stream_then_fail(partial: ModelReply, error: ModelError, chunk: int) -> Iterator[StreamEvent]:
    for start in range(0, len(partial.text), chunk):
        yield TextDelta(text=partial.text[start : start + chunk])
    raise error


def _prompt_request(prompt: str, mode: str, response_shape: str) -> ModelRequest:
    return ModelRequest(
        messages=(Message(role="user", content=prompt),),
        mode="smart" if mode == "smart" else "fast",
        response_shape="text" if response_shape == "text" else "json",
    )


class ScriptedModel:
    """Answers each request with the next scripted answer, and records every request."""

    def __init__(self, answers: Iterable[Script] = (), *, chunk_size: int = 8) -> None:
        self._answers = list(answers)
        self._served = 0
        self._chunk = max(1, chunk_size)
        self.requests: list[ModelRequest] = []
        """Every chat request received, in order."""
        self.prompts: list[PromptCall] = []
        """Every ``execute_prompt`` call received, in order."""

    def add(self, *answers: Script) -> None:
        """Queue more answers."""
        self._answers.extend(answers)

    @property
    def remaining(self) -> int:
        """How many answers are still queued."""
        return len(self._answers)

    def _next(self) -> Script:
        if not self._answers:
            asked = len(self.requests) + len(self.prompts)
            raise ScriptOutOfAnswers(self._served, asked=asked)
        self._served += 1
        answer = self._answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def complete(self, request: ModelRequest) -> ModelReply:
        """The next scripted answer, as a reply."""
        self.requests.append(request)
        return _as_reply(self._next())

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """The next scripted answer, streamed in pieces of ``chunk_size`` characters.

        A scripted :class:`~agentprompt.llm.errors.ModelError` carrying a ``partial`` reply
        fails mid-stream as a real client's does: the partial text streams first, then the
        error is raised from the iteration. Any other scripted error raises here, before
        anything streams (as a refused connection does)."""
        self.requests.append(request)
        try:
            reply = _as_reply(self._next())
        except ModelError as exc:
            if exc.partial is None:
                raise
            return _stream_then_fail(exc.partial, exc, self._chunk)
        return _stream(reply, self._chunk)

    def execute_prompt(
        self, prompt: str, *, mode: str = "fast", response_shape: str = "json"
    ) -> object:
        """The next scripted answer as it was scripted (an object stays an object)."""
        self.prompts.append(PromptCall(prompt=prompt, mode=mode, response_shape=response_shape))
        answer = self._next()
        return answer.text if isinstance(answer, ModelReply) else answer


class FunctionModel:
    """Answers each request with ``fn(request)``, and records every request."""

    def __init__(
        self,
        fn: Callable[[ModelRequest], str | ModelReply | dict[str, object]],
        *,
        chunk_size: int = 8,
    ) -> None:
        self.fn = fn
        self._chunk = max(1, chunk_size)
        self.requests: list[ModelRequest] = []
        """Every request received (``execute_prompt`` calls included), in order."""

    def complete(self, request: ModelRequest) -> ModelReply:
        """``fn(request)`` as a reply."""
        self.requests.append(request)
        return _as_reply(self.fn(request))

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """``fn(request)`` streamed in pieces of ``chunk_size`` characters."""
        return _stream(self.complete(request), self._chunk)

    def execute_prompt(
        self, prompt: str, *, mode: str = "fast", response_shape: str = "json"
    ) -> object:
        """``fn`` of a one-message request carrying the mode and shape hints."""
        request = _prompt_request(prompt, mode, response_shape)
        self.requests.append(request)
        answer = self.fn(request)
        return answer.text if isinstance(answer, ModelReply) else answer
