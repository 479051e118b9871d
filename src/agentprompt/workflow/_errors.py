"""The errors the workflow composer raises.

Errors about a package file (``agents.json``, ``workflow.graph.json``, the run state) list
every problem found, each with the JSON pointer of the failing field and, for agents, the
agent it belongs to, so one run of ``agentprompt workflow validate`` shows everything to fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agentprompt.errors import AgentPromptError, InvalidAgentDefinition, UnknownAgent

__all__ = [
    "GRAPH",
    "READ_ONLY",
    "RUN_STATE",
    "RUN_STATE_ADVICE",
    "InvalidAgentDefinition",
    "InvalidAgentsFile",
    "InvalidPackageFile",
    "PackageProblem",
    "UnknownAgent",
    "UnknownPackageAgent",
    "UnsafeModelPath",
    "WorkflowError",
]


class WorkflowError(AgentPromptError):
    """Base class of every error of the workflow composer."""


@dataclass(frozen=True, kw_only=True)
class PackageProblem:
    """One thing wrong with one file of a workflow package."""

    file: Path
    """The file the problem is in."""
    pointer: str
    """The JSON pointer of the failing field (``/agents/0/tools/fs``); empty for the file."""
    message: str
    """What is wrong, as an instruction to whoever fixes it."""
    agent: str | None = None
    """The agent the field belongs to (its id, or ``#N`` when it has no usable id)."""
    severity: Literal["error", "warning"] = "error"
    """``error``: the file cannot be used; ``warning``: it can, but something looks wrong."""

    def describe(self) -> str:
        """One line naming the file, the agent, the field and the problem."""
        where = [str(self.file)] if self.severity == "error" else [f"warning: {self.file}"]
        if self.agent is not None:
            where.append(f"agent {self.agent!r}")
        where.append(f"field {self.pointer or '/'}")
        return f"{', '.join(where)}: {self.message}"


class InvalidPackageFile(WorkflowError):
    """A package file that cannot be used; ``problems`` lists everything wrong with it."""

    kind = "package file"
    """What the file is, for the message."""
    advice = "fix each and run 'agentprompt workflow validate' again"
    """What to do about the problems."""

    def __init__(
        self,
        path: Path,
        problems: Sequence[PackageProblem],
        *,
        kind: str | None = None,
        advice: str | None = None,
    ) -> None:
        if kind is not None:
            self.kind = kind
        if advice is not None:
            self.advice = advice
        self.path = path
        self.problems = tuple(problems)
        lines = "\n".join(f"  - {p.describe()}" for p in self.problems)
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        super().__init__(
            f"{self.kind} {path} is not valid ({count} {noun}); {self.advice}:\n{lines}"
        )


class InvalidAgentsFile(InvalidAgentDefinition, InvalidPackageFile):
    """An ``agents.json`` that is missing, not JSON, or not valid against schema v1.1: an
    invalid agent definition whose ``problems`` list everything wrong with the file."""

    kind = "agents file"
    path: Path
    """The agents file."""

    def __init__(self, path: Path, problems: Sequence[PackageProblem]) -> None:
        # The package file's message, not an agent file's: InvalidPackageFile builds it.
        InvalidPackageFile.__init__(self, path, problems)
        self.problem = str(self)
        self.field = None


GRAPH = "workflow graph"
"""The kind of a ``workflow.graph.json`` that is missing, not JSON, or not a valid graph."""

RUN_STATE = "run state"
"""The kind of a run state file under ``@state`` that is not JSON or not a valid run
state."""

RUN_STATE_ADVICE = (
    "fix the file, pass the state directory of this package's run (--state), or delete the "
    "file to start a new run"
)
"""What to do about an invalid run state."""


class UnknownPackageAgent(UnknownAgent, WorkflowError):
    """An agent id that the package's ``agents.json`` does not define."""

    def __init__(self, package_id: str, agent_id: str, known: Sequence[str], path: Path) -> None:
        self.package_id = package_id
        self.agent_id = agent_id
        self.name = agent_id
        self.known = tuple(known)
        # The package's message, not the agent runtime's: skip UnknownAgent's constructor.
        super(UnknownAgent, self).__init__(
            f"package {package_id!r} has no agent {agent_id!r} in {path}: choose one of "
            f"{', '.join(self.known)}"
        )


class UnsafeModelPath(WorkflowError):
    """A path from the model that leaves its mount, uses ``..``, or names no mount."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(
            f"path {path!r} is refused: {reason}. Use a path inside a mount, such as "
            "@project/src/app.py, without '..'"
        )


READ_ONLY = "@pkg is the workflow package and is read-only; write under @project instead"
"""Why a write to ``@pkg`` is refused."""
