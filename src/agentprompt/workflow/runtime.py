"""One turn's :class:`ComposeInput`, assembled from a package, a project and its run state.

This is what ``agentprompt workflow compose`` calls: it picks the defaults (the package's
default agent, the run state's current node or else the graph's entry node, ``start`` for a
new run and ``continue`` for one with saved state) and reads the node's step file.
"""

from __future__ import annotations

from pathlib import Path

from agentprompt.workflow.errors import InvalidComposeInput
from agentprompt.workflow.inputs import ComposeInput, Intent, Mode, NodeBrief, RunState
from agentprompt.workflow.package import WorkflowPackage, node_brief_for
from agentprompt.workflow.state import default_state_dir, load_run_state

__all__ = ["build_compose_input"]


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

    ``agent_id`` defaults to the package's default agent; ``node_id`` to the saved run's
    current node, else the graph's entry node; ``intent`` to ``continue`` when a run state
    is saved and ``start`` otherwise. ``completed`` (or a saved completed run) selects the
    post-completion profile, which has no current node. Relative directories are made
    absolute, so they can be aliased.
    """
    project_root = project_root.absolute()
    state_dir = (state_dir or default_state_dir(project_root, package.id)).absolute()
    saved = load_run_state(state_dir)
    agent = (
        package.agents.default
        if agent_id is None
        else package.agents.get(agent_id, package_id=package.id)
    )
    done = completed or (saved is not None and saved.completed)
    variables = saved.variables if saved is not None else {}
    brief: NodeBrief | None = None
    current: str | None = None
    if mode == "run" and not done:
        current = node_id or (saved.current_node_id if saved else None)
        current = current or package.graph.entry_node_id
        brief = node_brief_for(package, current)
    elif node_id is not None:
        package.graph.node(node_id)
        if mode == "run":
            raise InvalidComposeInput(
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
        run_state=RunState(current_node_id=current, variables=variables, completed=done),
        node_brief=brief,
        intent=intent or ("continue" if saved is not None else "start"),
        user_input=user_input,
    )
