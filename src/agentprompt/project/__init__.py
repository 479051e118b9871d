"""Facts the agent's prompt states: environment, project, instructions, context usage.

The project wizard (``wizard.py``) and the thresholds and file-name constants behind these
are imported from their modules. Only the environment is imported eagerly (the package root
needs it); the rest loads on first use, so starting the CLI does not pay for it.

Errors::

    AgentPromptError
    └── InstructionError   an instruction file cannot be written, or its text is unusable
"""

from typing import TYPE_CHECKING

from agentprompt._lazy import lazy_attributes as _lazy_attributes
from agentprompt.project.environment import Environment, read_environment, watch_environment

if TYPE_CHECKING:
    from agentprompt.project.detect import ProjectFacts, detect_project, project_summary
    from agentprompt.project.instructions import (
        InstructionError,
        InstructionFile,
        ProjectInstructions,
        load_instructions,
        render_instructions,
    )
    from agentprompt.project.usage import ContextUsage, ToolResultStats

_SOURCES = {
    "agentprompt.project.instructions": (
        "InstructionError",
        "InstructionFile",
        "ProjectInstructions",
        "load_instructions",
        "render_instructions",
    ),
    "agentprompt.project.detect": ("ProjectFacts", "detect_project", "project_summary"),
    "agentprompt.project.usage": ("ContextUsage", "ToolResultStats"),
}
__getattr__ = _lazy_attributes(
    globals(), {name: module for module, names in _SOURCES.items() for name in names}
)

__all__ = [
    "ContextUsage",
    "Environment",
    "InstructionError",
    "InstructionFile",
    "ProjectFacts",
    "ProjectInstructions",
    "ToolResultStats",
    "detect_project",
    "load_instructions",
    "project_summary",
    "read_environment",
    "render_instructions",
    "watch_environment",
]
