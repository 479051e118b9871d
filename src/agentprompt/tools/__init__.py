"""Tools an agent can call: the registry, the policy, the context, and the built-in tools."""

from agentprompt.tools.context import (
    DelegationKind,
    DelegationRequest,
    ToolContext,
    ToolFailure,
    ToolResult,
)
from agentprompt.tools.policy import ToolPolicy
from agentprompt.tools.registry import (
    GUIDANCE_HEADING,
    DuplicateTool,
    ToolHandler,
    ToolRegistry,
    ToolSpec,
    default_registry,
    tool_from_function,
)
from agentprompt.tools.schema import ToolDefinitionError

__all__ = [
    "GUIDANCE_HEADING",
    "DelegationKind",
    "DelegationRequest",
    "DuplicateTool",
    "ToolContext",
    "ToolDefinitionError",
    "ToolFailure",
    "ToolHandler",
    "ToolPolicy",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "default_registry",
    "tool_from_function",
]
