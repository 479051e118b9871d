"""The run state file: ``@state/run.json``, read and written against its schema."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from agentprompt.workflow._errors import (
    RUN_STATE,
    RUN_STATE_ADVICE,
    InvalidPackageFile,
    PackageProblem,
)
from agentprompt.workflow._graph import WorkflowGraph
from agentprompt.workflow._layers import STATE_FILE
from agentprompt.workflow._validation import read_json, schema_problems
from agentprompt.workflow.inputs import RunState

__all__ = ["default_state_dir", "load_run_state", "run_state_path", "save_run_state"]


def default_state_dir(project_root: Path, package_id: str) -> Path:
    """Where a package's run state lives by default: ``PROJECT/.agentprompt/workflow/ID``."""
    return project_root / ".agentprompt" / "workflow" / package_id


def run_state_path(state_dir: Path) -> Path:
    """The run state file inside ``state_dir``."""
    return state_dir / STATE_FILE


def _graph_problems(
    data: dict[str, Any], path: Path, graph: WorkflowGraph, *, check_node: bool
) -> list[PackageProblem]:
    problems = []
    workflow_id = data.get("workflowId")
    if workflow_id is not None and workflow_id != graph.id:
        problems.append(
            PackageProblem(
                file=path,
                pointer="/workflowId",
                message=f"this run follows workflow {workflow_id!r}, but the package's graph "
                f"{graph.path} is workflow {graph.id!r}",
            )
        )
    node = data["currentNodeId"]
    known = [n.id for n in graph.nodes]
    if check_node and node is not None and node not in known:
        problems.append(
            PackageProblem(
                file=path,
                pointer="/currentNodeId",
                message=f"the workflow graph {graph.path} has no node {node!r}: set it to one "
                f"of {', '.join(known)}, or pass --node",
            )
        )
    return problems


def load_run_state(
    state_dir: Path, graph: WorkflowGraph | None = None, *, node_given: bool = False
) -> RunState | None:
    """The run state in ``state_dir``, or None when no run has been saved there.

    Raises :class:`~agentprompt.workflow.InvalidPackageFile` for a file that is not JSON or
    not a valid run state, and, when ``graph`` is given, for a run of another workflow or
    (unless ``node_given``: the caller chose the node) at a node the graph does not have;
    each problem names the file and the field.
    """
    path = run_state_path(state_dir)
    if not path.exists():
        return None
    data, problems = read_json(path)
    if not problems:
        problems = schema_problems(data, "run_state", path)
    if not problems and graph is not None:
        problems = _graph_problems(data, path, graph, check_node=not node_given)
    if problems:
        raise InvalidPackageFile(path, problems, kind=RUN_STATE, advice=RUN_STATE_ADVICE)
    return RunState(
        current_node_id=data["currentNodeId"],
        variables=data.get("variables", {}),
        completed=data["completed"],
    )


def save_run_state(state_dir: Path, state: RunState, *, workflow_id: str | None = None) -> Path:
    """Write ``state`` to the run state file in ``state_dir`` atomically; return its path."""
    data: dict[str, object] = {"schemaVersion": "1.0"}
    if workflow_id is not None:
        data["workflowId"] = workflow_id
    data["currentNodeId"] = None if state.completed else state.current_node_id
    data["completed"] = state.completed
    data["variables"] = dict(state.variables)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    state_dir.mkdir(parents=True, exist_ok=True)
    path = run_state_path(state_dir)
    fd, tmp = tempfile.mkstemp(dir=state_dir, prefix=".run-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
