"""Facts the agent's prompt states: environment, project, instructions, context usage,
and the project wizard's ALLY.md.

Only the environment is imported eagerly (the package root needs it); the rest loads on
first use, so starting the CLI does not pay for it.
"""

from typing import TYPE_CHECKING

from agentprompt._lazy import lazy_attributes as _lazy_attributes
from agentprompt.context.environment import (
    Environment,
    read_environment,
    watch_environment,
    working_directory,
)
from agentprompt.project_root import find_project_root

if TYPE_CHECKING:
    from agentprompt.context.instructions import (
        DEFAULT_INSTRUCTION_FILES,
        DEFAULT_MAX_INSTRUCTION_BYTES,
        INSTRUCTION_FILES_ENV,
        PRIMARY_FILE,
        InstructionError,
        InstructionFile,
        ProjectInstructions,
        appended_instructions,
        instruction_names,
        load_instructions,
        render_instructions,
        written_instructions,
    )
    from agentprompt.context.project import ProjectFacts, detect_project, project_summary
    from agentprompt.context.usage import (
        CONTEXT_THRESHOLDS,
        ContextUsage,
        ToolResultStats,
        threshold_level,
        threshold_message,
        warning_line,
    )
    from agentprompt.context.wizard import ProjectAnswers, render_ally_md, suggest_answers

_SOURCES = {
    "agentprompt.context.instructions": (
        "DEFAULT_INSTRUCTION_FILES",
        "DEFAULT_MAX_INSTRUCTION_BYTES",
        "INSTRUCTION_FILES_ENV",
        "PRIMARY_FILE",
        "InstructionError",
        "InstructionFile",
        "ProjectInstructions",
        "appended_instructions",
        "instruction_names",
        "load_instructions",
        "render_instructions",
        "written_instructions",
    ),
    "agentprompt.context.project": ("ProjectFacts", "detect_project", "project_summary"),
    "agentprompt.context.usage": (
        "CONTEXT_THRESHOLDS",
        "ContextUsage",
        "ToolResultStats",
        "threshold_level",
        "threshold_message",
        "warning_line",
    ),
    "agentprompt.context.wizard": ("ProjectAnswers", "render_ally_md", "suggest_answers"),
}
__getattr__ = _lazy_attributes(
    globals(), {name: module for module, names in _SOURCES.items() for name in names}
)

__all__ = [
    "CONTEXT_THRESHOLDS",
    "DEFAULT_INSTRUCTION_FILES",
    "DEFAULT_MAX_INSTRUCTION_BYTES",
    "INSTRUCTION_FILES_ENV",
    "PRIMARY_FILE",
    "ContextUsage",
    "Environment",
    "InstructionError",
    "InstructionFile",
    "ProjectAnswers",
    "ProjectFacts",
    "ProjectInstructions",
    "ToolResultStats",
    "appended_instructions",
    "detect_project",
    "find_project_root",
    "instruction_names",
    "load_instructions",
    "project_summary",
    "read_environment",
    "render_ally_md",
    "render_instructions",
    "suggest_answers",
    "threshold_level",
    "threshold_message",
    "warning_line",
    "watch_environment",
    "working_directory",
    "written_instructions",
]
