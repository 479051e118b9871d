"""What the workflow composer is given: :class:`ComposeInput` and the values inside it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentprompt.errors import UsageError
from agentprompt.workflow._agents import AgentDefinition, user_template_problem
from agentprompt.workflow._aliases import Mounts, mount_overlap
from agentprompt.workflow._graph import Artifact, Edge, WorkflowGraph
from agentprompt.workflow._markers import is_id

__all__ = ["INTENTS", "MODES", "ComposeInput", "Intent", "Mode", "NodeBrief", "RunState"]

Mode = Literal["run", "agent", "chat"]
"""``run``: a workflow run; ``agent``: a session with one agent; ``chat``: free chat."""

MODES: tuple[Mode, ...] = ("run", "agent", "chat")
"""Every mode."""

Intent = Literal["start", "continue", "resume"]
"""Why a run turn is composed: a new run, the next node, or a run picked up again."""

INTENTS: tuple[Intent, ...] = ("start", "continue", "resume")
"""Every intent."""


@dataclass(frozen=True, kw_only=True)
class RunState:
    """Where a workflow run stands."""

    current_node_id: str | None = None
    """The node the run is at; None once it is completed."""
    variables: Mapping[str, Any] = field(default_factory=dict)
    """Values the run has collected, by name (JSON-compatible)."""
    completed: bool = False
    """Whether the run has finished."""


@dataclass(frozen=True, kw_only=True)
class NodeBrief:
    """What the model needs to know about the current node."""

    node_id: str
    """The node's id."""
    title: str
    """The node's name."""
    step_file_path_in_pkg: str
    """The step file, relative to the package root (shown as ``@pkg/...``)."""
    step_content: str | None = None
    """The step file's Markdown, injected into the brief; None to point at the file only."""
    inputs: tuple[Artifact, ...] = ()
    """What the step reads."""
    outputs: tuple[Artifact, ...] = ()
    """What the step must produce."""
    validation: tuple[str, ...] = ()
    """Rules the outputs must meet."""
    transitions: tuple[Edge, ...] = ()
    """The moves allowed out of the node; none means the run ends here."""


@dataclass(frozen=True, kw_only=True)
class ComposeInput:
    """Everything one composition of the workflow runtime's prompt is built from."""

    mode: Mode
    """``run``, ``agent`` or ``chat``."""
    project_root: Path
    """The user's project (``@project``)."""
    package_id: str
    """The workflow package's id."""
    package_root: Path
    """The workflow package's directory (``@pkg``)."""
    state_dir: Path
    """The run's state directory (``@state``)."""
    agent_definition: AgentDefinition
    """The active agent; in chat mode only its tool policy is used."""
    graph: WorkflowGraph | None = None
    """The workflow graph; required in run mode."""
    run_state: RunState = RunState()
    """Where the run stands (run mode)."""
    node_brief: NodeBrief | None = None
    """The current node's brief; required in run mode while the run is not completed."""
    intent: Intent = "start"
    """Why this run turn is composed (run mode)."""
    user_input: str = ""
    """The user's text; empty adds no UserInput layer."""

    @property
    def mounts(self) -> Mounts:
        """The real directories behind ``@project``, ``@pkg`` and ``@state``."""
        return Mounts(project=self.project_root, package=self.package_root, state=self.state_dir)

    @property
    def active_step(self) -> bool:
        """Whether this is a run turn with an active step (not the post-completion profile)."""
        return self.mode == "run" and not self.run_state.completed

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UsageError(f"unknown mode {self.mode!r}: use run, agent or chat")
        if self.intent not in INTENTS:
            raise UsageError(f"unknown intent {self.intent!r}: use start, continue or resume")
        for label, path in (
            ("project_root", self.project_root),
            ("package_root", self.package_root),
            ("state_dir", self.state_dir),
        ):
            if not path.is_absolute():
                raise UsageError(
                    f"{label} {path} is relative: give an absolute path, so it can be aliased"
                )
            if path == Path(path.anchor):
                raise UsageError(
                    f"{label} is the file-system root {path}: a mount must be a directory "
                    "below it, or every absolute path would be aliased to it"
                )
        overlap = mount_overlap(self.mounts)
        if overlap is not None:
            raise UsageError(overlap)
        self._check_agent()
        if self.mode != "run":
            return
        if self.graph is None:
            raise UsageError("run mode needs the workflow graph")
        if self.run_state.completed:
            if self.intent == "start":
                raise UsageError(
                    "intent start begins a new run, but this run is completed: use intent "
                    "continue or resume (--intent) for the post-completion profile; to start "
                    "a new run, delete its run state file and leave out --completed"
                )
            return
        if self.node_brief is None or self.run_state.current_node_id is None:
            raise UsageError(
                "a run that is not completed needs a current node and its brief; mark the "
                "run completed for the post-completion profile"
            )
        if self.node_brief.node_id != self.run_state.current_node_id:
            raise UsageError(
                f"the node brief is for {self.node_brief.node_id!r} but the run is at "
                f"{self.run_state.current_node_id!r}; build the brief for the current node"
            )
        entry = self.graph.entry_node_id
        if self.intent == "start" and self.run_state.current_node_id != entry:
            raise UsageError(
                f"intent start begins a new run at the entry node {entry!r}, but the run is "
                f"at {self.run_state.current_node_id!r}: use intent continue or resume "
                f"(--intent) for this node, or start at {entry!r} (leave out --node)"
            )

    def _check_agent(self) -> None:
        """Ids go into tag attributes, so they must be ids; a user template must fit."""
        named = (
            ("agent id", self.agent_definition.id),
            ("current node id", self.run_state.current_node_id),
            ("node brief id", self.node_brief.node_id if self.node_brief else None),
        )
        for label, value in named:
            if value is not None and not is_id(value):
                raise UsageError(
                    f"{label} {value!r} is not an id: use letters, digits, '_', '-' and '.', "
                    "starting with a letter or digit, at most 64 characters"
                )
        template = self.agent_definition.user_template
        problem = user_template_problem(template) if template is not None else None
        if problem is not None:
            raise UsageError(
                f"the userTemplate of agent {self.agent_definition.id!r} cannot be used: {problem}"
            )
