"""Reading a package's JSON files and checking them against their shipped JSON Schemas.

Every problem becomes a :class:`PackageProblem` naming the file, the JSON pointer of the
failing field and (for ``agents.json``) the agent; nothing stops at the first problem. A
value of the wrong form is explained by the field's schema ``description``, not by the
raw regular expression it failed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from agentprompt.workflow._errors import PackageProblem

__all__ = ["load_schema", "pointer", "read_json", "schema_problems", "sorted_problems"]

AgentOf = Callable[[tuple[str | int, ...]], str | None]
"""Names the agent a failing field belongs to, from the field's path."""


@cache
def load_schema(name: str) -> Mapping[str, Any]:
    """The shipped JSON Schema ``schemas/NAME.schema.json``."""
    text = resources.files("agentprompt.workflow").joinpath(f"schemas/{name}.schema.json")
    data: Mapping[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    return data


@cache
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(name))


def pointer(path: Iterable[str | int]) -> str:
    """The JSON pointer (RFC 6901) of a path of keys and indices."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def read_json(path: Path) -> tuple[Any, list[PackageProblem]]:
    """The JSON data in ``path``, or the problems that stop it being read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, [PackageProblem(file=path, pointer="", message="the file does not exist")]
    except OSError as exc:
        message = f"the file cannot be read ({exc.strerror})"
        return None, [PackageProblem(file=path, pointer="", message=message)]
    try:
        return json.loads(raw.decode("utf-8-sig")), []
    except UnicodeDecodeError as exc:
        message = f"the file is not UTF-8 text (byte {exc.start}); save it as UTF-8"
        return None, [PackageProblem(file=path, pointer="", message=message)]
    except json.JSONDecodeError as exc:
        message = f"the file is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        return None, [PackageProblem(file=path, pointer="", message=message)]


def _problems(error: ValidationError, path: Path, agent_of: AgentOf) -> Iterable[PackageProblem]:
    where = tuple(error.absolute_path)
    agent = agent_of(where)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        required = error.validator_value if isinstance(error.validator_value, list) else []
        for name in required:
            if name not in instance:
                yield PackageProblem(
                    file=path,
                    pointer=pointer((*where, name)),
                    message=f"the required field {name!r} is missing",
                    agent=agent,
                )
        return
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        known = set(schema.get("properties", {}))
        for name in sorted(set(instance) - known):
            yield PackageProblem(
                file=path,
                pointer=pointer((*where, name)),
                message=f"unknown field {name!r}; allowed here: {', '.join(sorted(known))}",
                agent=agent,
            )
        return
    yield PackageProblem(file=path, pointer=pointer(where), message=_explained(error), agent=agent)


def _explained(error: ValidationError) -> str:
    """The schema's message, with what the field must hold (from its schema's
    ``description``) in place of a raw pattern, so the message says what to write."""
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    description = schema.get("description")
    if not isinstance(description, str):
        return error.message
    if error.validator == "pattern":
        shown = repr(error.instance) if len(repr(error.instance)) <= 60 else "the value"
        return f"{shown} is not allowed here. {description}"
    return f"{error.message}. {description}"


def schema_problems(
    data: Any, schema: str, path: Path, agent_of: AgentOf | None = None
) -> list[PackageProblem]:
    """Every way ``data`` breaks the shipped schema ``schema``, in document order."""
    named: AgentOf = agent_of or (lambda _where: None)
    found: list[PackageProblem] = []
    for error in _validator(schema).iter_errors(data):
        found.extend(_problems(error, path, named))
    unique = {(p.pointer, p.message): p for p in found}
    return sorted_problems(unique.values())


def sorted_problems(problems: Iterable[PackageProblem]) -> list[PackageProblem]:
    """Problems in document order of their fields (``/agents/2`` before ``/agents/10``)."""
    return sorted(problems, key=lambda p: (_order(p.pointer), p.message))


def _order(where: str) -> tuple[tuple[int, int, str], ...]:
    """Sorts pointers in document order: ``/agents/2`` before ``/agents/10``."""
    return tuple((0, int(s), "") if s.isdigit() else (1, 0, s) for s in where.split("/"))
