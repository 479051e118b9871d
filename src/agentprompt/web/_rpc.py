"""JSON-RPC 2.0 over one HTTP endpoint: decode a request, call the named method, encode the
result or the error (the codes the specification fixes, so any JSON-RPC client can use it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from agentprompt.commands import COMMAND_LINES
from agentprompt.errors import AgentPromptError, UsageError
from agentprompt.jsondata import unusable_value

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "SERVER_ERROR",
    "InvalidParams",
    "Method",
    "encode_answer",
    "handle_rpc",
    "param_name",
    "worded",
]

PARSE_ERROR = -32700
"""The body is not JSON."""
INVALID_REQUEST = -32600
"""The JSON is not a JSON-RPC 2.0 request."""
METHOD_NOT_FOUND = -32601
"""No method of that name."""
INVALID_PARAMS = -32602
"""The params are missing, of the wrong type, or name something unusable."""
INTERNAL_ERROR = -32603
"""An unexpected failure inside the method."""
SERVER_ERROR = -32000
"""The engine refused the request (e.g. a pending journal or a broken store)."""

Method = Callable[[Mapping[str, Any]], Any]
"""A method: takes the params object, returns JSON-ready data."""


class InvalidParams(UsageError):
    """A param is missing or of the wrong type; the message names it and what is expected."""


def param_name(name: str) -> str:
    """How the page names an input a library error names plainly: as a param,
    ``param "max_tokens"``, never as a flag; an action to run, as its command line."""
    return COMMAND_LINES.get(name) or f'param "{name}"'


def worded(exc: AgentPromptError) -> str:
    """An error's message in the page's terms (inputs named as params)."""
    return exc.worded(param_name)


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _valid_id(value: Any) -> bool:
    """A request id JSON-RPC allows: a string, a number or null (never a bool)."""
    return value is None or isinstance(value, str) or type(value) in (int, float)


def _call(methods: Mapping[str, Method], request: Any) -> dict[str, Any] | None:
    if not isinstance(request, dict) or request.get("jsonrpc") != "2.0":
        return _error(None, INVALID_REQUEST, 'not a JSON-RPC 2.0 request (need "jsonrpc": "2.0")')
    request_id = request.get("id")
    if not _valid_id(request_id):
        return _error(None, INVALID_REQUEST, '"id" must be a string, a number or null')
    for key in ("id", "method"):
        flaw = unusable_value(request.get(key))
        if flaw is not None:
            return _error(None, INVALID_REQUEST, f'"{key}" holds {flaw}')
    for key in [k for k in request if k not in ("id", "method", "params")]:
        flaw = unusable_value(key) or unusable_value(request[key])
        if flaw is not None:
            return _error(None, INVALID_REQUEST, f"the request holds {flaw}")
    notification = "id" not in request
    name = request.get("method")
    if not isinstance(name, str):
        return _error(request_id, INVALID_REQUEST, '"method" must be a string')
    method = methods.get(name)
    if method is None:
        known = ", ".join(sorted(methods))
        return _error(request_id, METHOD_NOT_FOUND, f"no method {name!r}; the methods: {known}")
    params = request.get("params", {})
    if not isinstance(params, dict):
        return _error(request_id, INVALID_PARAMS, '"params" must be an object of named params')
    for key, value in params.items():
        flaw = unusable_value(key) or unusable_value(value)
        if flaw is not None:
            where = param_name(key) if unusable_value(key) is None else "a param's name"
            return _error(request_id, INVALID_PARAMS, f"{where} holds {flaw}")
    try:
        result = method(params)
    except UsageError as exc:
        return _error(request_id, INVALID_PARAMS, worded(exc))
    except AgentPromptError as exc:
        return _error(request_id, SERVER_ERROR, worded(exc))
    except Exception as exc:
        return _error(request_id, INTERNAL_ERROR, f"{name} failed: {type(exc).__name__}: {exc}")
    if notification:
        return None
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _not_json(name: str) -> Any:
    """``NaN`` and ``Infinity`` are Python's extensions, not JSON: refused as a parse error."""
    raise ValueError(f"{name} is not a JSON value")


def handle_rpc(methods: Mapping[str, Method], body: bytes) -> Any:
    """The response to one HTTP body: an object, a list (for a batch), or None (only
    notifications, nothing to send)."""
    try:
        request = json.loads(body.decode("utf-8"), parse_constant=_not_json)
    except (UnicodeDecodeError, ValueError) as exc:
        return _error(None, PARSE_ERROR, f"the body is not JSON: {exc}")
    except RecursionError:
        return _error(None, PARSE_ERROR, "the body is not usable JSON: it is nested too deeply")
    if isinstance(request, list):
        if not request:
            return _error(None, INVALID_REQUEST, "an empty batch")
        answers = [a for a in (_call(methods, r) for r in request) if a is not None]
        return answers or None
    return _call(methods, request)


def encode_answer(answer: Any) -> bytes:
    """The JSON text of an answer of :func:`handle_rpc`, as UTF-8; an answer no JSON can
    hold (infinity, a lone surrogate the engine let through) becomes an internal error, so
    no request is ever answered with HTTP 500."""
    try:
        text = json.dumps(answer, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8")
    except (ValueError, UnicodeEncodeError) as exc:
        error = _error(None, INTERNAL_ERROR, f"the answer could not be sent as JSON: {exc}")
        return json.dumps(error, ensure_ascii=False).encode("utf-8", "backslashreplace")
