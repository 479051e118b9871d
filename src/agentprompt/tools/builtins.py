"""The built-in tools, in the order the model is shown them.

Each tool's description, and its usage guidance where it has any, is a prompt file under
``prompts/tools/`` (``NAME.md`` and ``NAME_guidance.md``), so a project can override them
like any other prompt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentprompt.prompts.loader import PromptLibrary
from agentprompt.tools import _browse as browse
from agentprompt.tools import _delegation as delegation
from agentprompt.tools import _files as files
from agentprompt.tools import _todo_tools as todo_tools
from agentprompt.tools._batch import BATCH, batch, batch_parameters
from agentprompt.tools._shell import shell
from agentprompt.tools.instructions_tool import instructions_append
from agentprompt.tools.registry import ToolRegistry, ToolSpec, tool_from_function

__all__ = [
    "BUILTIN_NAMES",
    "READ_ONLY_NAMES",
    "builtin_specs",
    "default_registry",
    "todo_add_parameters",
]

BUILTIN_NAMES = (
    "read",
    "write",
    "edit",
    "line_edit",
    "ls",
    "tree",
    "glob",
    "grep",
    "todo_add",
    "todo_update",
    "todo_remove",
    "todo_clear",
    "todo_list",
    "deny_proposal",
    "batch",
    "explore",
    "plan",
    "agent",
    "instructions_append",
    "shell",
)
"""Every built-in tool's name, in registry order."""

READ_ONLY_NAMES = frozenset({"read", "ls", "tree", "glob", "grep", "todo_list", "batch", "explore"})
"""The built-ins that change nothing (batch runs only what the policy allows)."""


def todo_add_parameters() -> dict[str, Any]:
    """The todo_add tool's arguments schema: a list of todos with their options."""
    item = {
        "type": "object",
        "properties": {
            "content": {"type": "string", "description": "The task, in one line."},
            "status": {
                "type": "string",
                "enum": ["pending", "in_progress", "completed", "proposed"],
                "description": "Defaults to pending; the planner uses proposed.",
            },
            "dependencies": {
                "type": "array",
                "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "description": "Todo ids, or positions from 1 in this call, to finish first.",
            },
            "subtasks": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Smaller steps of this task.",
            },
        },
        "required": ["content"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "todos": {"type": "array", "items": item, "minItems": 1, "description": "The todos."}
        },
        "required": ["todos"],
        "additionalProperties": False,
    }


def _guidance(prompts: PromptLibrary, name: str) -> str | None:
    if prompts.find(f"tools/{name}_guidance") is None:
        return None
    return prompts.render(f"tools/{name}_guidance")


def builtin_specs(prompts: PromptLibrary) -> tuple[ToolSpec, ...]:
    """Every built-in tool, described by the prompt files ``prompts`` resolves."""
    functions: dict[str, Callable[..., Any]] = {
        "read": files.read,
        "write": files.write,
        "edit": files.edit,
        "line_edit": files.line_edit,
        "ls": browse.ls,
        "tree": browse.tree,
        "glob": browse.glob,
        "grep": browse.grep,
        "todo_add": todo_tools.todo_add,
        "todo_update": todo_tools.todo_update,
        "todo_remove": todo_tools.todo_remove,
        "todo_clear": todo_tools.todo_clear,
        "todo_list": todo_tools.todo_list,
        "deny_proposal": todo_tools.deny_proposal,
        "explore": delegation.explore,
        "plan": delegation.plan_tool(prompts.render("tools/plan_context")),
        "agent": delegation.agent,
        "instructions_append": instructions_append,
        "shell": shell,
    }
    specs = []
    for name in BUILTIN_NAMES:
        if name == BATCH:
            specs.append(
                ToolSpec(
                    name=BATCH,
                    description=prompts.render("tools/batch"),
                    parameters=batch_parameters(prompts.render("tools/batch_tools")),
                    handler=batch,
                    guidance=_guidance(prompts, BATCH),
                    read_only=True,
                )
            )
            continue
        specs.append(
            tool_from_function(
                functions[name],
                name=name,
                description=prompts.render(f"tools/{name}"),
                guidance=_guidance(prompts, name),
                read_only=name in READ_ONLY_NAMES,
                runs_commands=name == "shell",
                parameters=todo_add_parameters() if name == "todo_add" else None,
            )
        )
    return tuple(specs)


def default_registry(prompts: PromptLibrary | None = None) -> ToolRegistry:
    """A registry holding every built-in tool, described by the prompt files of ``prompts``
    (default: the packaged prompts and the current project's overrides)."""
    return ToolRegistry(builtin_specs(prompts or PromptLibrary()))
