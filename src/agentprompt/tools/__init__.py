"""Tools an agent can call: the registry, the policy, the context, and the built-in tools.

:func:`default_registry` loads the built-in tools (and the edit engine they use) on first
use, so importing the registry or the context stays cheap.

Errors::

    AgentPromptError
    ├── ToolDefinitionError   a function that cannot become a tool (every problem listed)
    └── ToolFailure           a tool could not do what it was asked (told to the model)

Registering a second tool of one name is an ``AgentPromptError``.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes
from agentprompt.tools._schema import ToolDefinitionError
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
    ToolHandler,
    ToolRegistry,
    ToolSpec,
    tool_from_function,
)

if _typing.TYPE_CHECKING:
    from agentprompt.tools.builtins import default_registry

__getattr__ = _lazy_attributes(globals(), {"default_registry": "agentprompt.tools.builtins"})

__all__ = [
    "GUIDANCE_HEADING",
    "DelegationKind",
    "DelegationRequest",
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
