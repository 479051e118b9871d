"""The error types every part of agentprompt raises.

Each error carries the input that caused it and reads as an instruction to the person or
model who gets it. The CLI turns any :class:`AgentPromptError` into a message on stderr and
exit status 2, so bad input never ends in a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

InputNamer = Callable[[str], str]
"""How a front door names one of its inputs: ``"max_tokens"`` is ``--max-tokens`` on the
command line, ``"max_tokens"`` to the page and to an MCP client."""

_INPUT = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def plain_name(name: str) -> str:
    """An input named as the library names it: the parameter's own name."""
    return name


class AgentPromptError(Exception):
    """Base class of every error agentprompt raises on purpose (bad input, bad state)."""

    def worded(self, name: InputNamer) -> str:
        """The message as a front door shows it (``name`` names inputs its way); the plain
        message for errors that name no input."""
        return str(self)

    json_reported: bool = False
    """A command already printed this error in its ``--json`` report (the command line
    then prints no second JSON error)."""


class UsageError(AgentPromptError):
    """A caller asked for something that does not exist or cannot be combined.

    Raised by an engine or a service, it names no front door's words: the ``input`` at
    fault is a plain name (``"max_tokens"``, ``"include"``); ``problem`` may name that input
    as ``{max_tokens}`` (it is then not prefixed with it), and ``fix`` may name any input
    that way. Each front door words it with :meth:`worded`, naming
    inputs its own way (a flag, a JSON-RPC param, an MCP argument); ``str()`` names them
    plainly.
    """

    def __init__(self, problem: str, *, input: str | None = None, fix: str | None = None) -> None:
        self.problem = problem
        """What is wrong."""
        self.input = input
        """The input at fault (its plain name), or None when no one input is."""
        self.fix = fix
        """What would fix it, or None when the problem says it."""
        super().__init__(self.worded(plain_name))

    def worded(self, name: InputNamer) -> str:
        """The message with every input named by ``name``: the input at fault first (unless
        the problem names it as ``{input}``), then what is wrong, then what would fix it.
        Only the input's own placeholder is read in the problem, which may quote user text
        (a path, a pattern); the fix may name any input."""
        if self.input is None and self.fix is None:
            # An error written for one door names no input: its text is shown as it is.
            return self.problem
        text = self.problem
        if self.input is not None:
            own = "{" + self.input + "}"
            if own in text:
                text = text.replace(own, name(self.input))
            else:
                text = f"{name(self.input)}: {text}"
        if self.fix is None:
            return text
        return f"{text}; {_INPUT.sub(lambda m: name(m.group(1)), self.fix)}"


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
