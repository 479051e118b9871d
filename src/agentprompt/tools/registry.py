"""The tool registry: tool specs, their definitions for the model, guidance, and running calls.

A :class:`ToolSpec` is one tool: its name, description, arguments' JSON Schema, optional
usage guidance for the system prompt, and a handler. Specs come from plain functions
(:func:`tool_from_function`) or are written out by hand (a custom definition, as the batch
tool's). :class:`ToolRegistry` keeps them in order, builds the function definitions and the
``## Tool Usage Guidance`` section for a :class:`ToolPolicy`, and runs a model's tool call:
arguments are validated against the schema, and every failure becomes an error result the
model can act on, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import jsonschema

from agentprompt.errors import AgentPromptError
from agentprompt.messages import MessageFormatError, ToolCall, ToolDefinition
from agentprompt.tools._schema import call_handler, function_schema
from agentprompt.tools.context import ToolContext, ToolResult
from agentprompt.tools.policy import ToolPolicy

__all__ = [
    "GUIDANCE_HEADING",
    "ToolHandler",
    "ToolRegistry",
    "ToolSpec",
    "tool_from_function",
]

GUIDANCE_HEADING = "## Tool Usage Guidance"
"""The heading of the guidance section in the system prompt."""

ToolHandler = Callable[[ToolContext, dict[str, Any]], "str | ToolResult"]
"""What runs a tool: the context and the validated arguments in, the result text out."""


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """One tool: what the model is told about it and what runs when it is called."""

    name: str
    """The name the model calls it by."""
    description: str
    """What the tool does, for the model."""
    parameters: dict[str, Any]
    """The JSON Schema of the arguments object."""
    handler: ToolHandler
    """Runs the tool with the context and the validated arguments."""
    guidance: str | None = None
    """Extended usage guidance for the system prompt's guidance section, if any."""
    read_only: bool = False
    """Whether the tool changes nothing (files, todos); read-only agents get only these."""
    runs_commands: bool = False
    """Whether the tool runs shell commands (offered only when the policy enables shell)."""

    def definition(self) -> ToolDefinition:
        """The function definition the model sees."""
        return ToolDefinition(
            name=self.name, description=self.description, parameters=self.parameters
        )


def tool_from_function(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    guidance: str | None = None,
    read_only: bool = False,
    runs_commands: bool = False,
    parameters: dict[str, Any] | None = None,
) -> ToolSpec:
    """A tool spec from a typed function: schema from its hints, description and argument
    descriptions from its docstring. ``description`` replaces the docstring's summary, and
    ``parameters`` (a custom definition) replaces the generated schema."""
    tool_name = name or fn.__name__
    summary, schema, context_params = function_schema(fn, tool_name)
    return ToolSpec(
        name=tool_name,
        description=description if description is not None else summary,
        parameters=parameters if parameters is not None else schema,
        handler=call_handler(fn, context_params),
        guidance=guidance,
        read_only=read_only,
        runs_commands=runs_commands,
    )


class ToolRegistry:
    """The tools an agent knows, in registration order."""

    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs:
            self.register(spec)

    def register(self, spec: ToolSpec) -> ToolSpec:
        """Add a tool; :class:`~agentprompt.errors.AgentPromptError` if the name is
        taken. Returns the spec."""
        if spec.name in self._specs:
            raise AgentPromptError(
                f"a tool named {spec.name!r} is already registered; choose another name"
            )
        self._specs[spec.name] = spec
        return spec

    def replace(self, spec: ToolSpec) -> ToolSpec:
        """Put ``spec`` in place of the registered tool of the same name (or add it)."""
        self._specs[spec.name] = spec
        return spec

    def get(self, name: str) -> ToolSpec | None:
        """The tool with ``name``, or None."""
        return self._specs.get(name)

    def names(self) -> tuple[str, ...]:
        """Every registered tool name, in order."""
        return tuple(self._specs)

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(tuple(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)

    def enabled(self, policy: ToolPolicy) -> tuple[ToolSpec, ...]:
        """The tools the policy allows, in registry order."""
        return tuple(s for s in self._specs.values() if _allowed(policy, s))

    def definitions(self, policy: ToolPolicy | None = None) -> tuple[ToolDefinition, ...]:
        """The function definitions of the allowed tools, in registry order."""
        return tuple(s.definition() for s in self.enabled(policy or ToolPolicy()))

    def guidance_section(self, policy: ToolPolicy | None = None) -> str:
        """``## Tool Usage Guidance`` followed by each allowed tool's guidance, separated by a
        blank line; ``""`` when no allowed tool has guidance."""
        guidances = [s.guidance for s in self.enabled(policy or ToolPolicy()) if s.guidance]
        if not guidances:
            return ""
        return f"{GUIDANCE_HEADING}\n\n" + "\n\n".join(guidances)

    def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run a model's tool call; every failure comes back as an error result."""
        spec = self._specs.get(call.name)
        if spec is None or not _allowed(ctx.policy, spec):
            available = ", ".join(s.name for s in self.enabled(ctx.policy)) or "none"
            why = "is not available" if spec is not None else "does not exist"
            return _error(f"Tool {call.name!r} {why}. Available tools: {available}.")
        try:
            arguments = call.parsed_arguments()
        except MessageFormatError as exc:
            return _error(f"{exc}. Send the arguments as one JSON object.")
        problems = _schema_problems(spec, arguments)
        if problems:
            return _error(
                f"Invalid arguments for {spec.name}: {'; '.join(problems)}. Parameters: "
                f"{json.dumps(spec.parameters.get('properties', {}), ensure_ascii=False)}"
            )
        bound = replace(ctx, registry=self) if ctx.registry is not self else ctx
        try:
            result = spec.handler(bound, arguments)
        except AgentPromptError as exc:
            return _error(f"{spec.name} failed: {exc}")
        except OSError as exc:
            return _error(f"{spec.name} failed: {exc.strerror or exc} ({exc.filename or ''})")
        except Exception as exc:
            return _error(f"{spec.name} failed unexpectedly: {type(exc).__name__}: {exc}")
        if isinstance(result, str):
            result = ToolResult(content=result)
        return _clip(result, ctx.policy.max_output_chars)


def _allowed(policy: ToolPolicy, spec: ToolSpec) -> bool:
    return policy.allows(spec.name, read_only=spec.read_only, runs_commands=spec.runs_commands)


def _schema_problems(spec: ToolSpec, arguments: dict[str, Any]) -> list[str]:
    try:
        validator = jsonschema.Draft202012Validator(spec.parameters)
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    except jsonschema.SchemaError as exc:
        return [f"the tool's own schema is invalid ({exc.message})"]
    problems = []
    for err in errors[:5]:
        where = "/".join(str(p) for p in err.absolute_path)
        problems.append(f"{where}: {err.message}" if where else err.message)
    return problems


def _error(text: str) -> ToolResult:
    return ToolResult(content=text, is_error=True)


def _clip(result: ToolResult, limit: int) -> ToolResult:
    if len(result.content) <= limit:
        return result
    cut = result.content[:limit]
    note = (
        f"\n[output cut at {limit} of {len(result.content)} characters; "
        "narrow the request to see the rest]"
    )
    return replace(result, content=cut + note)
