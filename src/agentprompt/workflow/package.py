"""A workflow package on disk: its agents, its graph, and the brief of each node.

A package is a directory holding ``agents.json``, ``workflow.graph.json`` and the step
files the graph names. :class:`RuntimeStore` keeps the packages a runtime knows by id and
reloads a file only when it changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentprompt.errors import UsageError
from agentprompt.workflow._agents import (
    AGENTS_FILE,
    AgentDefinition,
    AgentsFile,
    agents_file_problems,
    load_agents_file,
)
from agentprompt.workflow._errors import GRAPH, InvalidPackageFile, PackageProblem
from agentprompt.workflow._graph import GRAPH_FILE, WorkflowGraph, graph_problems, load_graph
from agentprompt.workflow.inputs import NodeBrief

__all__ = [
    "RuntimeStore",
    "WorkflowPackage",
    "load_package",
    "node_brief_for",
    "package_problems",
]


@dataclass(frozen=True, kw_only=True)
class WorkflowPackage:
    """A loaded, validated workflow package."""

    id: str
    """The package's id (its directory name unless registered otherwise)."""
    root: Path
    """The package's directory (``@pkg``)."""
    agents: AgentsFile
    """Its ``agents.json``."""
    graph: WorkflowGraph
    """Its ``workflow.graph.json``."""


def load_package(root: Path, package_id: str | None = None) -> WorkflowPackage:
    """The package in ``root``, with both files validated (agents first)."""
    return WorkflowPackage(
        id=package_id or root.resolve().name,
        root=root,
        agents=load_agents_file(root / AGENTS_FILE),
        graph=load_graph(root / GRAPH_FILE, root),
    )


def package_problems(root: Path) -> list[PackageProblem]:
    """Everything wrong with the package in ``root``: both files, every problem, errors
    and warnings (see :attr:`PackageProblem.severity`)."""
    _, agent_problems = agents_file_problems(root / AGENTS_FILE)
    _, graph_file_problems = graph_problems(root / GRAPH_FILE, root)
    return [*agent_problems, *graph_file_problems]


def node_brief_for(package: WorkflowPackage, node_id: str) -> NodeBrief:
    """The brief of node ``node_id``, with its step file's content read from the package."""
    graph = package.graph
    node = graph.node(node_id)
    path = package.root / node.step_file
    try:
        content = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        index = graph.nodes.index(node)
        reason = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
        problem = PackageProblem(
            file=graph.path,
            pointer=f"/nodes/{index}/stepFile",
            message=f"the step file {node.step_file} cannot be read ({reason})",
        )
        raise InvalidPackageFile(graph.path, [problem], kind=GRAPH) from None
    return NodeBrief(
        node_id=node.id,
        title=node.title,
        step_file_path_in_pkg=node.step_file,
        step_content=content,
        inputs=node.inputs,
        outputs=node.outputs,
        validation=node.validation,
        transitions=graph.transitions(node.id),
    )


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (-1, -1)
    return (stat.st_size, stat.st_mtime_ns)


class RuntimeStore:
    """The workflow packages a runtime knows, by id, with their files loaded on demand.

    Each file is reloaded when it changes on disk, so an edited definition takes effect on
    the next call; ``get_agent_definition`` reads only ``agents.json``.
    """

    def __init__(self, packages: Mapping[str, Path] | None = None) -> None:
        self._roots: dict[str, Path] = dict(packages or {})
        self._agents: dict[str, tuple[tuple[int, int], AgentsFile]] = {}
        self._graphs: dict[str, tuple[tuple[int, int], WorkflowGraph]] = {}

    def register(self, root: Path, package_id: str | None = None) -> str:
        """Make the package in ``root`` known (by default under its directory name)."""
        key = package_id or root.resolve().name
        self._roots[key] = root
        self._agents.pop(key, None)
        self._graphs.pop(key, None)
        return key

    def package_ids(self) -> list[str]:
        """The ids of every registered package, sorted."""
        return sorted(self._roots)

    def root(self, package_id: str) -> Path:
        """The directory of package ``package_id``."""
        root = self._roots.get(package_id)
        if root is None:
            choices = ", ".join(self.package_ids()) or "none registered"
            raise UsageError(f"unknown workflow package {package_id!r} (known: {choices})")
        return root

    def agents(self, package_id: str) -> AgentsFile:
        """The validated ``agents.json`` of package ``package_id``."""
        path = self.root(package_id) / AGENTS_FILE
        stamp = _stamp(path)
        cached = self._agents.get(package_id)
        if cached is None or cached[0] != stamp:
            cached = self._agents[package_id] = (stamp, load_agents_file(path))
        return cached[1]

    def get_agent_definition(self, package_id: str, agent_id: str | None = None) -> AgentDefinition:
        """The agent ``agent_id`` of package ``package_id`` (its default agent when None),
        read from the package's ``agents.json`` and validated against schema v1.1."""
        agents = self.agents(package_id)
        if agent_id is None:
            return agents.default
        return agents.get(agent_id, package_id=package_id)

    def get_graph(self, package_id: str) -> WorkflowGraph:
        """The validated workflow graph of package ``package_id``."""
        root = self.root(package_id)
        path = root / GRAPH_FILE
        stamp = _stamp(path)
        cached = self._graphs.get(package_id)
        if cached is None or cached[0] != stamp:
            cached = self._graphs[package_id] = (stamp, load_graph(path, root))
        return cached[1]

    def get_package(self, package_id: str) -> WorkflowPackage:
        """The package ``package_id`` with both files validated (agents first)."""
        return WorkflowPackage(
            id=package_id,
            root=self.root(package_id),
            agents=self.agents(package_id),
            graph=self.get_graph(package_id),
        )
