"""Tool definitions from plain typed Python functions and their docstrings.

:func:`tool_from_function` reads a function's signature, type hints and docstring: the
summary (everything before ``Args:``) becomes the description, each annotated parameter a
JSON Schema property (required unless it has a default), and the Google-style ``Args:``
section each property's description. A parameter annotated :class:`ToolContext` is not part
of the schema; the registry passes the context in. All problems in one function are
collected and raised together as :class:`ToolDefinitionError`.
"""

from __future__ import annotations

import inspect
import json
import re
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from agentprompt.errors import AgentPromptError
from agentprompt.tools.context import ToolContext, ToolResult

__all__ = ["ToolDefinitionError", "function_schema", "parse_docstring"]

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_SECTION_HEADER = re.compile(r"^\s*(Returns|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


class ToolDefinitionError(AgentPromptError):
    """A function that cannot become a tool; lists every problem found in it."""

    def __init__(self, name: str, problems: Sequence[str]) -> None:
        self.name = name
        self.problems = tuple(problems)
        super().__init__(
            f"function {name!r} cannot be made a tool: {'; '.join(problems)}. Annotate every "
            "parameter with a JSON-representable type and document it under 'Args:'."
        )


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The summary of a docstring and its ``Args:`` entries (name to description)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    section = "summary"
    current: str | None = None
    indent = 0
    for line in lines:
        if _ARGS_HEADER.match(line):
            section, current = "args", None
            continue
        if _SECTION_HEADER.match(line):
            section, current = "other", None
            continue
        if section == "summary":
            summary.append(line)
        elif section == "args":
            match = _ARG_LINE.match(line)
            if match and (current is None or len(match.group(1)) <= indent):
                current, indent = match.group(2), len(match.group(1))
                args[current] = match.group(3).strip()
            elif current is not None and line.strip():
                args[current] = f"{args[current]} {line.strip()}".strip()
    return "\n".join(summary).strip(), args


def function_schema(
    fn: Callable[..., Any], name: str
) -> tuple[str, dict[str, Any], tuple[str, ...]]:
    """The description, the arguments' JSON Schema, and the names of the parameters that
    take the :class:`ToolContext`, for ``fn``; :class:`ToolDefinitionError` on problems."""
    problems: list[str] = []
    summary, documented = parse_docstring(fn.__doc__)
    try:
        hints = get_type_hints(fn)
    except (NameError, TypeError) as exc:
        raise ToolDefinitionError(name, [f"its type hints cannot be resolved ({exc})"]) from None
    properties: dict[str, Any] = {}
    required: list[str] = []
    context_params: list[str] = []
    signature = inspect.signature(fn).parameters
    for param in signature.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            problems.append(f"*{param.name} cannot be described to a model")
            continue
        hint = hints.get(param.name)
        if hint is ToolContext:
            context_params.append(param.name)
            continue
        if hint is None:
            problems.append(f"parameter {param.name!r} has no type annotation")
            continue
        try:
            schema = type_schema(hint)
        except TypeError as exc:
            problems.append(f"parameter {param.name!r}: {exc}")
            continue
        if param.name in documented:
            schema = {**schema, "description": documented[param.name]}
        else:
            problems.append(f"parameter {param.name!r} is not described under 'Args:'")
        if param.default is param.empty:
            required.append(param.name)
        elif param.default is not None and _is_json(param.default):
            schema["default"] = param.default
        properties[param.name] = schema
    unknown = sorted(set(documented) - set(signature))
    if unknown:
        problems.append(f"'Args:' describes unknown parameter(s) {', '.join(unknown)}")
    if not summary:
        problems.append("it has no docstring summary to describe it")
    if problems:
        raise ToolDefinitionError(name, problems)
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    parameters["additionalProperties"] = False
    return summary, parameters, tuple(context_params)


def type_schema(hint: Any) -> dict[str, Any]:
    """The JSON Schema of one Python type hint; :class:`TypeError` for types JSON lacks."""
    if hint is str:
        return {"type": "string"}
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is float:
        return {"type": "number"}
    if hint is Any:
        return {}
    origin = get_origin(hint)
    args = get_args(hint)
    if origin is Literal:
        kinds = {type(a) for a in args}
        if not kinds <= {str, int, bool}:
            raise TypeError(f"Literal values must be str, int or bool, not {hint!r}")
        schema: dict[str, Any] = {"enum": list(args)}
        if len(kinds) == 1:
            schema["type"] = type_schema(kinds.pop())["type"]
        return schema
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return type_schema(options[0])
        return {"anyOf": [type_schema(a) for a in options]}
    if origin in (list, Sequence, tuple) or hint in (list, tuple):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            raise TypeError(f"tuples must be written tuple[X, ...], not {hint!r}")
        item = args[0] if args else Any
        return {"type": "array", "items": type_schema(item)}
    if origin in (dict, Mapping) or hint is dict:
        if args and args[0] is not str:
            raise TypeError(f"object keys must be str, not {args[0]!r}")
        return {"type": "object"}
    raise TypeError(f"type {hint!r} has no JSON Schema form")


def call_handler(
    fn: Callable[..., Any], context_params: tuple[str, ...]
) -> Callable[[ToolContext, dict[str, Any]], str | ToolResult]:
    """A registry handler that calls ``fn`` with the arguments and the context."""

    def handler(ctx: ToolContext, arguments: dict[str, Any]) -> str | ToolResult:
        extra = dict.fromkeys(context_params, ctx)
        result = fn(**arguments, **extra)
        if isinstance(result, ToolResult | str):
            return result
        return json.dumps(result, ensure_ascii=False, indent=2)

    return handler


def _is_json(value: object) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
