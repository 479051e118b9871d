"""The base of every error agentprompt raises on purpose, and the errors more than one
layer raises.

Each error carries the input that caused it and reads as an instruction to the person or
model who gets it; an engine's error names inputs plainly and each front door words them
its own way (:meth:`AgentPromptError.worded`). The CLI turns any :class:`AgentPromptError`
into a message on stderr and exit status 2, so bad input never ends in a traceback.

Each package draws its own errors under these in its docstring; this module holds::

    AgentPromptError            the base: anything refused on purpose (bad input, bad state)
    ├── UsageError              a caller asked for something that does not exist or
    │   │                       cannot be combined (the page answers it as invalid params)
    │   └── UnknownAgent        no agent definition has that name
    ├── NotADirectory           the root to discover or to apply edits into is not a folder
    └── InvalidAgentDefinition  an agent definition that cannot be used (its file, its key)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

InputNamer = Callable[[str], str]
"""How a front door names one of its inputs: ``"max_tokens"`` is ``--max-tokens`` on the
command line, ``"max_tokens"`` to the page and to an MCP client."""

_INPUT = re.compile(r"\{\{|\}\}|\{([a-z][a-z0-9_]*)\}")
"""An input named as ``{max_tokens}``, or a brace doubled to be kept as it is."""


def literal(text: str) -> str:
    """``text`` (a path, a pattern, a line the user wrote) to be quoted in a message that
    names inputs: its braces doubled, so nothing in it is read as an input's name."""
    return text.replace("{", "{{").replace("}", "}}")


def plain_name(name: str) -> str:
    """An input named as the library names it: the parameter's own name."""
    return name


def _word(problem: str, input: str | None, fix: str | None, names: bool, name: InputNamer) -> str:
    """``problem`` with the input at fault first (unless it names it itself) and the
    ``fix`` after it, every input named by ``name`` (a doubled brace is one brace: see
    :func:`literal`); ``problem`` as it is when it names no input (an error written for
    one door is shown as it is)."""

    def named(text: str) -> str:
        return _INPUT.sub(lambda m: name(m.group(1)) if m.group(1) else m.group(0)[0], text)

    if input is None and fix is None:
        return named(problem) if names else problem
    text = named(problem)
    if input is not None and "{" + input + "}" not in problem:
        # A problem that names its own input reads without the prefix.
        text = f"{name(input)}: {text}"
    return text if fix is None else f"{text}; {named(fix)}"


class AgentPromptError(Exception):
    """Base class of every error agentprompt raises on purpose (bad input, bad state).

    Raised by an engine or a service, it names no front door's words: given ``input`` (the
    plain name of the input at fault), ``fix`` (what would fix it) or ``names=True``, the
    message and the fix may name inputs and commands as ``{max_tokens}`` or ``{recover}``.
    Each front door words it with :meth:`worded`, naming them its own way (a flag or a
    command line, a JSON-RPC param, an MCP argument); ``str()`` names them plainly.
    """

    def __init__(
        self,
        message: str = "",
        *,
        input: str | None = None,
        fix: str | None = None,
        names: bool = False,
    ) -> None:
        self._words = (message, input, fix, names)
        super().__init__(_word(message, input, fix, names, plain_name))

    def worded(self, name: InputNamer) -> str:
        """The message with every input named by ``name``: the input at fault first, then
        what is wrong, then what would fix it."""
        return _word(*self._words, name)

    json_reported: bool = False
    """A command already printed this error in its ``--json`` report (the command line
    then prints no second JSON error)."""


class UsageError(AgentPromptError):
    """A caller asked for something that does not exist or cannot be combined.

    The input at fault is a plain name (``"max_tokens"``, ``"include"``), and ``problem``
    and ``fix`` may name inputs as ``{max_tokens}`` (see :class:`AgentPromptError`). The
    front doors tell it from other errors: the page answers it as invalid params.
    """

    def __init__(
        self,
        problem: str,
        *,
        input: str | None = None,
        fix: str | None = None,
        names: bool = False,
    ) -> None:
        self.problem = problem
        """What is wrong."""
        self.input = input
        """The input at fault (its plain name), or None when no one input is."""
        self.fix = fix
        """What would fix it, or None when the problem says it."""
        super().__init__(problem, input=input, fix=fix, names=names)


class NotADirectory(AgentPromptError):
    """The root given to discover a repository or to apply edits into is not a directory."""

    def __init__(self, root: Path) -> None:
        super().__init__(f"{root} is not a directory; give the repository's folder as the root")
        self.root = root
        """The path that was given."""


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
