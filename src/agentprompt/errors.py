"""The error types every part of agentprompt raises.

Each error carries the input that caused it and reads as an instruction to the person or
model who gets it. The CLI turns any :class:`AgentPromptError` into a message on stderr and
exit status 2, so bad input never ends in a traceback.
"""

from __future__ import annotations


class AgentPromptError(Exception):
    """Base class of every error agentprompt raises on purpose (bad input, bad state)."""

    json_reported: bool = False
    """A command already printed this error in its ``--json`` report (the command line
    then prints no second JSON error)."""


class UsageError(AgentPromptError):
    """A caller asked for something that does not exist or cannot be combined."""
