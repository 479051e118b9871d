"""Checking a tool call's arguments before the tool runs: the tool exists, every argument
is one it takes, of the type its schema says, and not too large. Each problem is one
message naming the argument and what to give instead, so the caller can correct the call;
nothing has run when it is refused."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


__all__ = [
    "DEFAULT_READ_TOKENS",
    "MAX_ITEMS",
    "MAX_TEXT_CHARS",
    "MAX_VALUE_CHARS",
    "TEXT_ARGUMENTS",
    "argument_problem",
]

TEXT_ARGUMENTS = frozenset({"reply", "text"})
"""The arguments that carry a whole text (a model's reply, a text to count)."""

MAX_TEXT_CHARS = 5_000_000
"""The most characters a whole-text argument may hold (a reply rewriting many files is far
smaller)."""

MAX_VALUE_CHARS = 100_000
"""The most characters any other string (a task, a path, a pattern) may hold."""

MAX_ITEMS = 10_000
"""The most items a list argument may hold."""

DEFAULT_READ_TOKENS = 50_000
"""``read_context``'s budget when none is given: the files asked for must not flood the
caller's context."""


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _size_problem(name: str, value: Any) -> str | None:
    limit = MAX_TEXT_CHARS if name in TEXT_ARGUMENTS else MAX_VALUE_CHARS
    if isinstance(value, str) and len(value) > limit:
        return (
            f'argument "{name}" is {len(value):,} characters long; at most {limit:,} are '
            "taken: send less"
        )
    if isinstance(value, list):
        if len(value) > MAX_ITEMS:
            return f'argument "{name}" has {len(value):,} items; at most {MAX_ITEMS:,} are taken'
        for item in value:
            if isinstance(item, str) and len(item) > limit:
                return (
                    f'argument "{name}" holds an item of {len(item):,} characters; at most '
                    f"{limit:,} are taken"
                )
    return None


def _schema_problem(error: ValidationError, arguments: Mapping[str, Any]) -> str:
    if error.validator == "required":
        missing = str(error.message).split("'")[1] if "'" in error.message else error.message
        return f'argument "{missing}" is required'
    path = [str(p) for p in error.absolute_path]
    if not path:
        return f"the arguments do not fit the tool's schema: {error.message}"
    name = path[0]
    where = f'argument "{name}"' + (f" (item {path[1]})" if len(path) > 1 else "")
    expected = error.schema if isinstance(error.schema, Mapping) else {}
    if error.validator in ("type", "anyOf") and "type" in expected:
        return f"{where} must be of type {expected['type']}, not {_describe(error.instance)}"
    if error.validator == "anyOf":
        kinds = [s.get("type") for s in expected.get("anyOf", ()) if isinstance(s, Mapping)]
        allowed = " or ".join(str(k) for k in kinds if k)
        return f"{where} must be {allowed}, not {_describe(error.instance)}"
    if error.validator == "enum":
        choices = ", ".join(repr(c) for c in expected.get("enum", ()))
        return f"{where} must be one of {choices}, not {error.instance!r}"
    return f"{where}: {error.message}"


def argument_problem(
    tool: str,
    schemas: Mapping[str, Mapping[str, Any]],
    arguments: Any,
    *,
    not_offered: Mapping[str, str] | None = None,
) -> str | None:
    """What is wrong with calling ``tool`` with ``arguments``, given each tool's input
    schema (``schemas``), or None when the call may go ahead. ``not_offered`` says why a
    known tool is not served (read-only mode)."""
    if tool not in schemas:
        if not_offered and tool in not_offered:
            return not_offered[tool]
        return f'there is no tool "{tool}"; the tools are: {", ".join(sorted(schemas))}'
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        return f'the arguments of "{tool}" must be an object of named arguments'
    schema = schemas[tool]
    properties: Sequence[str] = list(schema.get("properties", {}))
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        takes = ", ".join(properties) or "no arguments"
        return f'{tool} does not take the argument "{unknown[0]}"; it takes: {takes}'
    for name, value in arguments.items():
        problem = _size_problem(name, value)
        if problem is not None:
            return problem
    # Imported on the first call, not at the server's start (clients time the start).
    from jsonschema import Draft202012Validator

    errors = sorted(
        Draft202012Validator(schema).iter_errors(dict(arguments)),
        key=lambda e: (list(map(str, e.absolute_path)), e.validator != "type"),
    )
    if errors:
        return _schema_problem(errors[0], arguments)
    return None
