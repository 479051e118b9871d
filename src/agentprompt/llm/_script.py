"""``script:FILE``: a model that replays the replies listed in a JSON file, with no network.

The file holds a JSON list with one item per model call, in order:

- a string: a text reply;
- a reply object, with only the keys ``text``, ``tool_calls``, ``stop_reason`` and
  ``usage`` (and at least one of the first two); each tool call is
  ``{"id": ..., "name": ..., "arguments": {...}}`` (``id`` optional, ``arguments`` an object
  or JSON text); ``usage`` has ``input_tokens``, ``output_tokens``, ``cache_read_tokens``,
  ``cache_write_tokens``;
- an error object, ``{"error": KIND, ...}`` with KIND one of ``http``, ``rate_limited``,
  ``connection`` or ``interrupted`` and optional ``status``, ``message``, ``retry_after``
  and ``partial`` (a reply object: what arrived before the failure); the call raises the
  matching :class:`~agentprompt.llm.errors.ModelError`;
- any other object: an answer for ``execute_prompt`` (sent as JSON text to a
  chat call).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from agentprompt.llm._testing import Script, ScriptedModel
from agentprompt.llm.base import ModelReply, ModelRequest, StreamEvent, Usage
from agentprompt.llm.errors import (
    ModelConfigError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelStreamInterrupted,
    RateLimited,
    ScriptOutOfAnswers,
)
from agentprompt.messages import ToolCall

__all__ = ["ScriptFileModel", "load_script_model", "parse_script"]

REPLY_KEYS: Final = frozenset({"text", "tool_calls", "stop_reason", "usage"})
"""The keys of a reply object."""
ERROR_KEYS: Final = frozenset({"error", "status", "message", "retry_after", "partial"})
"""The keys of an error object."""
ERROR_KINDS: Final = ("http", "rate_limited", "connection", "interrupted")
"""The failures an error object can stand for."""

SCRIPT_URL: Final = "script"
"""The address errors from a script name (there is no server)."""


def _fail(path: Path, index: int, problem: str) -> ModelConfigError:
    return ModelConfigError(
        f"the model script {path}: item {index + 1} {problem}", source=str(path)
    )


def _tool_call(path: Path, index: int, number: int, raw: object) -> ToolCall:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        raise _fail(path, index, 'has a tool call without a name; write {"name": ..., ...}')
    arguments = raw.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    call_id = raw.get("id")
    return ToolCall(
        id=call_id if isinstance(call_id, str) else f"call_{index + 1}_{number + 1}",
        name=raw["name"],
        arguments=arguments,
    )


def _usage(path: Path, index: int, raw: object) -> Usage:
    fields = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    if not isinstance(raw, Mapping) or not all(
        isinstance(raw.get(k, 0), int) and not isinstance(raw.get(k, 0), bool) for k in fields
    ):
        raise _fail(path, index, f"has a usage that is not an object of whole numbers {fields}")
    return Usage(**{k: raw[k] for k in fields if k in raw})


def _reply(path: Path, index: int, raw: Mapping[str, Any]) -> ModelReply:
    text = raw.get("text", "")
    calls = raw.get("tool_calls", [])
    if not isinstance(text, str):
        raise _fail(path, index, "has a text that is not a string")
    if not isinstance(calls, list):
        raise _fail(path, index, "has tool_calls that are not a list")
    tool_calls = tuple(_tool_call(path, index, n, c) for n, c in enumerate(calls))
    stop = raw.get("stop_reason")
    return ModelReply(
        text=text,
        tool_calls=tool_calls,
        usage=_usage(path, index, raw["usage"]) if "usage" in raw else Usage(),
        stop_reason=stop if isinstance(stop, str) else ("tool_use" if tool_calls else "end_turn"),
        model="script",
    )


def _is_reply(raw: Mapping[str, Any]) -> bool:
    return bool(raw) and raw.keys() <= REPLY_KEYS and bool(raw.keys() & {"text", "tool_calls"})


def _error(path: Path, index: int, raw: Mapping[str, Any]) -> ModelError:
    kind = raw["error"]
    if kind not in ERROR_KINDS:
        raise _fail(path, index, f"has error {kind!r}; use one of {', '.join(ERROR_KINDS)}")
    partial_raw = raw.get("partial")
    partial = None
    if partial_raw is not None:
        if not isinstance(partial_raw, Mapping) or not _is_reply(partial_raw):
            raise _fail(path, index, "has a partial that is not a reply object")
        partial = _reply(path, index, partial_raw)
    message = str(raw.get("message", "scripted failure"))
    status = raw.get("status", 500)
    retry_after = raw.get("retry_after")
    if kind == "http":
        if not isinstance(status, int) or isinstance(status, bool):
            raise _fail(path, index, "has a status that is not a whole number")
        return ModelHTTPError(SCRIPT_URL, status, message, partial=partial)
    if kind == "rate_limited":
        wait = float(retry_after) if isinstance(retry_after, int | float) else None
        return RateLimited(SCRIPT_URL, message, retry_after=wait, partial=partial)
    if kind == "connection":
        return ModelConnectionError(SCRIPT_URL, message, partial=partial)
    return ModelStreamInterrupted(SCRIPT_URL, message, partial=partial)


def _item(path: Path, index: int, raw: object) -> Script:
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, dict):
        raise _fail(path, index, "is neither a string nor an object")
    if "error" in raw and raw.keys() <= ERROR_KEYS:
        return _error(path, index, raw)
    if _is_reply(raw):
        return _reply(path, index, raw)
    return raw


def parse_script(path: Path) -> list[Script]:
    """The answers listed in the JSON file ``path``, in order.

    Raises :class:`ModelConfigError` naming the file (and the item) when it cannot be read,
    is not JSON, is not a list, or holds an item of the wrong shape.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelConfigError(
            f"cannot read the model script {path}: {exc.strerror}", source=str(path)
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelConfigError(
            f"the model script {path} is not JSON ({exc}); give a JSON list of replies such as "
            '["Hello", {"text": "", "tool_calls": [{"name": "ls", "arguments": {}}]}]',
            source=str(path),
        ) from None
    if not isinstance(data, list):
        raise ModelConfigError(
            f"the model script {path} must hold a JSON list of answers (strings or objects), "
            "one per model call",
            source=str(path),
        )
    return [_item(path, i, raw) for i, raw in enumerate(data)]


class ScriptFileModel:
    """A chat client and prompt executor answering from a script file, in order."""

    def __init__(self, path: Path, answers: list[Script], *, advice: str = "") -> None:
        self.path = path
        """The script file."""
        self.model = ScriptedModel(answers)
        """The test model that serves the answers (its ``requests`` records every call)."""
        self._count = len(answers)
        self._advice = advice

    @property
    def requests(self) -> list[ModelRequest]:
        """Every chat request received, in order."""
        return self.model.requests

    def _out(self) -> ScriptOutOfAnswers:
        return ScriptOutOfAnswers(self._count, path=str(self.path), advice=self._advice)

    def complete(self, request: ModelRequest) -> ModelReply:
        """The script's next reply."""
        try:
            return self.model.complete(request)
        except ScriptOutOfAnswers:
            raise self._out() from None

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        """The script's next reply, streamed in pieces."""
        try:
            return self.model.stream(request)
        except ScriptOutOfAnswers:
            raise self._out() from None

    def execute_prompt(
        self, prompt: str, *, mode: str = "fast", response_shape: str = "json"
    ) -> object:
        """The script's next answer (an object stays an object)."""
        try:
            return self.model.execute_prompt(prompt, mode=mode, response_shape=response_shape)
        except ScriptOutOfAnswers:
            raise self._out() from None


def load_script_model(path: Path, *, advice: str = "") -> ScriptFileModel:
    """The model replaying the script file ``path``; ``advice`` ends its out-of-answers error."""
    return ScriptFileModel(path, parse_script(path), advice=advice)
