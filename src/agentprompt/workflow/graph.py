"""The workflow graph: ``workflow.graph.json``, read and validated against its schema.

Beyond the schema, loading checks what a schema cannot: node ids are unique, the entry
node and every edge's ends exist, and every step file is a file inside the package.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprompt.workflow.errors import InvalidWorkflowGraph, PackageProblem, UnknownNode
from agentprompt.workflow.validation import read_json, schema_problems

__all__ = [
    "GRAPH_FILE",
    "Artifact",
    "Edge",
    "GraphNode",
    "WorkflowGraph",
    "graph_problems",
    "load_graph",
]

GRAPH_FILE = "workflow.graph.json"
"""The graph file's name, at the package root."""


@dataclass(frozen=True, kw_only=True)
class Artifact:
    """Something a step reads (an input) or produces (an output)."""

    name: str
    """Its name."""
    description: str | None = None
    """What it holds."""
    path: str | None = None
    """Where it lives, as a mount path (``@project/docs/brief.md``)."""
    required: bool = True
    """Whether the step needs it (inputs) or is unfinished without it (outputs)."""


@dataclass(frozen=True, kw_only=True)
class Edge:
    """An allowed move between two nodes."""

    source: str
    """The node the move leaves (``from`` in the file)."""
    target: str
    """The node the move enters (``to`` in the file)."""
    label: str | None = None
    """The move's name."""
    condition: str | None = None
    """When the move may be taken."""


@dataclass(frozen=True, kw_only=True)
class GraphNode:
    """One step of a workflow."""

    id: str
    """Its unique id."""
    title: str
    """Its name for people."""
    step_file: str
    """Its instructions, relative to the package root."""
    inputs: tuple[Artifact, ...] = ()
    """What it reads."""
    outputs: tuple[Artifact, ...] = ()
    """What it must produce."""
    validation: tuple[str, ...] = ()
    """Rules its outputs must meet before the run moves on."""


@dataclass(frozen=True, kw_only=True)
class WorkflowGraph:
    """A validated workflow graph."""

    path: Path
    """The file it was read from."""
    id: str
    """The workflow's id."""
    title: str
    """The workflow's name."""
    entry_node_id: str
    """Where a new run starts."""
    nodes: tuple[GraphNode, ...]
    """Every node, in file order."""
    edges: tuple[Edge, ...]
    """Every allowed move, in file order."""
    description: str | None = None
    """What the workflow produces."""

    def node(self, node_id: str) -> GraphNode:
        """The node ``node_id``; :class:`UnknownNode` lists the ones that exist."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise UnknownNode(node_id, [n.id for n in self.nodes], self.path)

    def transitions(self, node_id: str) -> tuple[Edge, ...]:
        """The moves out of ``node_id``, in file order."""
        return tuple(e for e in self.edges if e.source == node_id)


def _rule_problems(data: dict[str, Any], path: Path, package_root: Path) -> list[PackageProblem]:
    problems: list[PackageProblem] = []

    def problem(where: str, message: str) -> None:
        problems.append(PackageProblem(file=path, pointer=where, message=message))

    ids: list[str] = []
    root = package_root.resolve()
    for i, node in enumerate(data["nodes"]):
        if node["id"] in ids:
            problem(f"/nodes/{i}/id", f"the id {node['id']!r} is used by an earlier node")
        ids.append(node["id"])
        step = (package_root / node["stepFile"]).resolve()
        if not step.is_relative_to(root):
            problem(f"/nodes/{i}/stepFile", "the step file leads outside the package")
        elif not step.is_file():
            problem(
                f"/nodes/{i}/stepFile",
                f"there is no file {node['stepFile']} in the package; create it or fix the path",
            )
    known = ", ".join(ids)
    if data["entryNodeId"] not in ids:
        problem("/entryNodeId", f"no node has the id {data['entryNodeId']!r}; use one of {known}")
    for i, edge in enumerate(data["edges"]):
        for end in ("from", "to"):
            if edge[end] not in ids:
                problem(
                    f"/edges/{i}/{end}", f"no node has the id {edge[end]!r}; use one of {known}"
                )
    return problems


def graph_problems(path: Path, package_root: Path) -> tuple[Any, list[PackageProblem]]:
    """The data of the graph file at ``path`` and everything wrong with it."""
    data, problems = read_json(path)
    if problems:
        return None, problems
    problems = schema_problems(data, "graph", path)
    if problems:
        return data, problems
    return data, _rule_problems(data, path, package_root)


def _artifacts(raw: list[dict[str, Any]]) -> tuple[Artifact, ...]:
    return tuple(
        Artifact(
            name=a["name"],
            description=a.get("description"),
            path=a.get("path"),
            required=a.get("required", True),
        )
        for a in raw
    )


def load_graph(path: Path, package_root: Path) -> WorkflowGraph:
    """The graph file at ``path`` (of the package at ``package_root``), validated.

    Raises :class:`InvalidWorkflowGraph` listing every problem found.
    """
    data, problems = graph_problems(path, package_root)
    if problems:
        raise InvalidWorkflowGraph(path, problems)
    return WorkflowGraph(
        path=path,
        id=data["id"],
        title=data["title"],
        description=data.get("description"),
        entry_node_id=data["entryNodeId"],
        nodes=tuple(
            GraphNode(
                id=n["id"],
                title=n["title"],
                step_file=n["stepFile"],
                inputs=_artifacts(n.get("inputs", [])),
                outputs=_artifacts(n.get("outputs", [])),
                validation=tuple(n.get("validation", [])),
            )
            for n in data["nodes"]
        ),
        edges=tuple(
            Edge(
                source=e["from"], target=e["to"], label=e.get("label"), condition=e.get("condition")
            )
            for e in data["edges"]
        ),
    )
