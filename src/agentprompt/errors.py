"""The error types every part of agentprompt raises.

Each error carries the input that caused it and reads as an instruction to the person or
model who gets it. The CLI turns any :class:`AgentPromptError` into a message on stderr and
exit status 2, so bad input never ends in a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


class AgentPromptError(Exception):
    """Base class of every error agentprompt raises on purpose (bad input, bad state)."""

    json_reported: bool = False
    """A command already printed this error in its ``--json`` report (the command line
    then prints no second JSON error)."""


class UsageError(AgentPromptError):
    """A caller asked for something that does not exist or cannot be combined."""


class InvalidAgentDefinition(AgentPromptError):
    """An agent definition that cannot be used; the message names the file and what to fix.

    The agent runtime raises it for an agent file (``.agentprompt/agents/NAME.md``); a
    workflow package's ``agents.json`` raises :class:`~agentprompt.workflow.InvalidAgentsFile`,
    which is one too and lists every problem of the file.
    """

    def __init__(self, path: Path | None, problem: str, *, field: str | None = None) -> None:
        self.path = path
        self.problem = problem
        self.field = field
        """The front-matter key at fault, or None when the problem is the whole file."""
        where = f"agent file {path}" if path else "agent definition"
        super().__init__(f"{where}: {problem}")


class UnknownAgent(UsageError):
    """An agent name that no definition provides.

    The agent runtime raises it for a name no agent file defines; a workflow package raises
    :class:`~agentprompt.workflow.UnknownPackageAgent`, which is one too.
    """

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        self.known = tuple(known)
        super().__init__(
            f"no agent is called {name!r}; available agents: {', '.join(known) or 'none'}. "
            "Define it in .agentprompt/agents/NAME.md"
        )
