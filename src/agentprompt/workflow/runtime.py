"""One turn of the workflow runtime, assembled from a package, a project and its run state.

:func:`build_compose_input` picks the defaults (the package's default agent, the run
state's current node or else the graph's entry node, ``start`` for a new run and
``continue`` for one with saved state or a completed one) and reads the node's step file;
:func:`compose_turn` also loads the package and composes the messages. This is what
``agentprompt workflow compose`` calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentprompt.composition import Composition
from agentprompt.errors import UsageError
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.tokens import Tokenizer
from agentprompt.workflow._state import default_state_dir, load_run_state
from agentprompt.workflow.compose import compose_workflow, profile_name
from agentprompt.workflow.inputs import ComposeInput, Intent, Mode, NodeBrief, RunState
from agentprompt.workflow.package import WorkflowPackage, load_package, node_brief_for

__all__ = ["WorkflowTurn", "build_compose_input", "compose_turn"]


def build_compose_input(
    package: WorkflowPackage,
    *,
    mode: Mode,
    project_root: Path,
    state_dir: Path | None = None,
    agent_id: str | None = None,
    node_id: str | None = None,
    intent: Intent | None = None,
    completed: bool = False,
    user_input: str = "",
) -> ComposeInput:
    """The compose input for one turn.

    ``agent_id`` defaults to the package's default agent. In run mode, ``node_id`` defaults
    to the saved run's current node, else the graph's entry node; ``intent`` to
    ``continue`` when a run state is saved or the run is completed, and ``start``
    otherwise; ``completed`` (or a saved completed run) selects the post-completion
    profile, which has no current node. Agent and chat modes have no run: a node, an
    intent or ``completed`` is refused there, and the run state file is not read.
    Directories are made absolute (not resolved: the aliases know both spellings).
    """
    if mode != "run" and (node_id is not None or intent is not None or completed):
        raise UsageError(
            f"a node, an intent and a completed run (--node, --intent, --completed) belong "
            f"to run mode; {mode} mode has no run: leave them out or use --mode run"
        )
    project_root = project_root.absolute()
    state_dir = (state_dir or default_state_dir(project_root, package.id)).absolute()
    agent = (
        package.agents.default
        if agent_id is None
        else package.agents.get(agent_id, package_id=package.id)
    )
    if mode != "run":
        return ComposeInput(
            mode=mode,
            project_root=project_root,
            package_id=package.id,
            package_root=package.root.absolute(),
            state_dir=state_dir,
            agent_definition=agent,
            graph=package.graph,
            user_input=user_input,
        )
    saved = load_run_state(state_dir, package.graph, node_given=node_id is not None)
    done = completed or (saved is not None and saved.completed)
    brief: NodeBrief | None = None
    current: str | None = None
    if not done:
        current = node_id or (saved.current_node_id if saved else None)
        current = current or package.graph.entry_node_id
        brief = node_brief_for(package, current)
    elif node_id is not None:
        package.graph.node(node_id)
        raise UsageError(
            f"node {node_id!r} was given but the run is completed: a completed run has "
            "no current node; leave out --node"
        )
    return ComposeInput(
        mode=mode,
        project_root=project_root,
        package_id=package.id,
        package_root=package.root.absolute(),
        state_dir=state_dir,
        agent_definition=agent,
        graph=package.graph,
        run_state=RunState(
            current_node_id=current,
            variables=saved.variables if saved is not None else {},
            completed=done,
        ),
        node_brief=brief,
        intent=intent or ("continue" if saved is not None or done else "start"),
        user_input=user_input,
    )


@dataclass(frozen=True, kw_only=True)
class WorkflowTurn:
    """One composed turn: what it was built from and the messages."""

    package: WorkflowPackage
    """The loaded package."""
    data: ComposeInput
    """The compose input, with every default filled in."""
    profile: str
    """The profile used (``run``, ``run-completed``, ``agent`` or ``chat``)."""
    composition: Composition
    """The messages, with tokens and cache breakpoints."""


def compose_turn(
    package_root: Path,
    *,
    mode: Mode,
    project_root: Path,
    state_dir: Path | None = None,
    agent_id: str | None = None,
    node_id: str | None = None,
    intent: Intent | None = None,
    completed: bool = False,
    user_input: str = "",
    prompts: PromptLibrary | None = None,
    counter: Tokenizer | None = None,
) -> WorkflowTurn:
    """Load the package in ``package_root`` and compose one turn (the defaults are those
    of :func:`build_compose_input`)."""
    package = load_package(package_root)
    data = build_compose_input(
        package,
        mode=mode,
        project_root=project_root,
        state_dir=state_dir,
        agent_id=agent_id,
        node_id=node_id,
        intent=intent,
        completed=completed,
        user_input=user_input,
    )
    composition = compose_workflow(data, prompts=prompts, counter=counter)
    return WorkflowTurn(
        package=package, data=data, profile=profile_name(data), composition=composition
    )
