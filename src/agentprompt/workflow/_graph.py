"""The workflow graph: ``workflow.graph.json``, read and validated against its schema.

Beyond the schema, loading checks what a schema cannot: node ids are unique, artifact
names are unique within a node's inputs and within its outputs, the entry node and every
edge's ends exist, and every step file is a UTF-8 file inside the package. A node no run
can reach from the entry node is a warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprompt.errors import UsageError
from agentprompt.workflow._errors import GRAPH, InvalidPackageFile, PackageProblem
from agentprompt.workflow._validation import read_json, schema_problems, sorted_problems

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
        """The node ``node_id``; a :class:`~agentprompt.errors.UsageError` lists the ones
        that exist."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        known = ", ".join(n.id for n in self.nodes)
        raise UsageError(
            f"the workflow graph {self.path} has no node {node_id!r}: choose one of {known}"
        )

    def transitions(self, node_id: str) -> tuple[Edge, ...]:
        """The moves out of ``node_id``, in file order."""
        return tuple(e for e in self.edges if e.source == node_id)


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _list(value: Any, key: str) -> list[Any]:
    found = _field(value, key)
    return found if isinstance(found, list) else []


def _step_problem(package_root: Path, step_file: str) -> str | None:
    root = package_root.resolve()
    step = (package_root / step_file).resolve()
    if not step.is_relative_to(root):
        return "the step file leads outside the package"
    try:
        step.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        return f"there is no file {step_file} in the package; create it or fix the path"
    except IsADirectoryError:
        return f"{step_file} is a directory; name a Markdown file"
    except OSError as exc:
        return f"the step file {step_file} cannot be read ({exc.strerror})"
    except UnicodeDecodeError as exc:
        return f"the step file {step_file} is not UTF-8 text (byte {exc.start}); save it as UTF-8"
    return None


def _node_problems(node: Any, i: int, package_root: Path) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    step_file = _field(node, "stepFile")
    if isinstance(step_file, str):
        problem = _step_problem(package_root, step_file)
        if problem is not None:
            found.append((f"/nodes/{i}/stepFile", problem))
    for kind in ("inputs", "outputs"):
        names: set[str] = set()
        for j, artifact in enumerate(_list(node, kind)):
            name = _field(artifact, "name")
            if isinstance(name, str) and name in names:
                found.append(
                    (
                        f"/nodes/{i}/{kind}/{j}/name",
                        f"the name {name!r} is used by an earlier entry of this node's {kind}; "
                        "names must be unique there",
                    )
                )
            names.add(name)
    return found


def _unreachable(ids: list[str], entry: Any, edges: list[Any]) -> list[str]:
    if entry not in ids:
        return []
    reached = {entry}
    frontier = [entry]
    while frontier:
        node = frontier.pop()
        for edge in edges:
            target = _field(edge, "to")
            if _field(edge, "from") == node and target in ids and target not in reached:
                reached.add(target)
                frontier.append(target)
    return [i for i in ids if i not in reached]


def _rule_problems(data: Any, path: Path, package_root: Path) -> list[PackageProblem]:
    """The rules a schema cannot say, checked on whatever parts are well-formed, so they
    are reported together with any schema problems."""
    problems: list[PackageProblem] = []

    def problem(where: str, message: str) -> None:
        problems.append(PackageProblem(file=path, pointer=where, message=message))

    ids: list[str] = []
    for i, node in enumerate(_list(data, "nodes")):
        node_id = _field(node, "id")
        if isinstance(node_id, str):
            if node_id in ids:
                problem(f"/nodes/{i}/id", f"the id {node_id!r} is used by an earlier node")
            ids.append(node_id)
        for where, message in _node_problems(node, i, package_root):
            problem(where, message)
    known = ", ".join(ids)
    entry = _field(data, "entryNodeId")
    if isinstance(entry, str) and ids and entry not in ids:
        problem("/entryNodeId", f"no node has the id {entry!r}; use one of {known}")
    edges = _list(data, "edges")
    for i, edge in enumerate(edges):
        for end in ("from", "to"):
            value = _field(edge, end)
            if isinstance(value, str) and ids and value not in ids:
                problem(f"/edges/{i}/{end}", f"no node has the id {value!r}; use one of {known}")
    for node_id in _unreachable(ids, entry, edges):
        problems.append(
            PackageProblem(
                file=path,
                pointer=f"/nodes/{ids.index(node_id)}",
                message=f"no run can reach node {node_id!r} from the entry node; add an edge "
                "into it or remove it",
                severity="warning",
            )
        )
    return problems


def graph_problems(path: Path, package_root: Path) -> tuple[Any, list[PackageProblem]]:
    """The data of the graph file at ``path`` and everything wrong with it (errors, and
    warnings such as nodes no run can reach)."""
    data, problems = read_json(path)
    if problems:
        return None, problems
    problems = schema_problems(data, "graph", path)
    found = {p.pointer for p in problems}
    extra = [p for p in _rule_problems(data, path, package_root) if p.pointer not in found]
    return data, sorted_problems([*problems, *extra])


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

    Raises :class:`~agentprompt.workflow.InvalidPackageFile` listing every error found
    (warnings do not stop loading; ``agentprompt workflow validate`` shows them).
    """
    data, problems = graph_problems(path, package_root)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise InvalidPackageFile(path, errors, kind=GRAPH)
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
