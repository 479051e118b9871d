"""Facts the agent's prompt states: environment, project, instructions, context usage."""

from agentprompt.context.environment import Environment, find_project_root, read_environment
from agentprompt.context.instructions import (
    DEFAULT_INSTRUCTION_FILES,
    DEFAULT_MAX_INSTRUCTION_BYTES,
    InstructionError,
    InstructionFile,
    ProjectInstructions,
    append_instruction,
    load_instructions,
    render_instructions,
    write_instructions,
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

__all__ = [
    "CONTEXT_THRESHOLDS",
    "DEFAULT_INSTRUCTION_FILES",
    "DEFAULT_MAX_INSTRUCTION_BYTES",
    "ContextUsage",
    "Environment",
    "InstructionError",
    "InstructionFile",
    "ProjectFacts",
    "ProjectInstructions",
    "ToolResultStats",
    "append_instruction",
    "detect_project",
    "find_project_root",
    "load_instructions",
    "project_summary",
    "read_environment",
    "render_instructions",
    "threshold_level",
    "threshold_message",
    "warning_line",
    "write_instructions",
]
