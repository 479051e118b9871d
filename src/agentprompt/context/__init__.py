"""Facts about where the agent runs: date, working directory, git, OS, project root."""

from agentprompt.context.environment import Environment, find_project_root, read_environment

__all__ = ["Environment", "find_project_root", "read_environment"]
