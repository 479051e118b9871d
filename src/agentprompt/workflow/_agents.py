"""Agent definitions: ``agents.json`` v1.1, read and validated against its shipped schema.

The schema (``workflow/schemas/agents.schema.json``) documents every field. Loading checks
the schema and the rules a schema cannot say (unique ids, a default agent that exists),
and reports every problem with the file, the agent and the JSON pointer of the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentprompt.prompts.loader import placeholders
from agentprompt.workflow._errors import InvalidAgentsFile, PackageProblem, UnknownPackageAgent
from agentprompt.workflow._validation import AgentOf, read_json, schema_problems, sorted_problems

__all__ = [
    "AGENTS_FILE",
    "DEFAULT_MAX_READ_BYTES",
    "USER_TEMPLATE_VARIABLES",
    "AgentDefinition",
    "AgentsFile",
    "FsAccess",
    "FsPolicy",
    "McpPolicy",
    "Persona",
    "ToolSettings",
    "agents_file_problems",
    "load_agents_file",
    "user_template_problem",
    "uses_node_id",
]

AGENTS_FILE = "agents.json"
"""The agents file's name, at the package root."""

DEFAULT_MAX_READ_BYTES = 262_144
"""How many bytes one read may return when ``maxReadBytes`` is not given."""

USER_TEMPLATE_VARIABLES: tuple[str, ...] = ("input", "nodeId")
"""The placeholders an agent's ``userTemplate`` may use (``{{input}}`` is required)."""

FsAccess = Literal["read", "read-write"]
"""What the file-system tools may do."""


@dataclass(frozen=True, kw_only=True)
class Persona:
    """The structured persona of an agent."""

    role: str
    """What the agent does, in a phrase."""
    identity: str
    """Who the agent is: background, expertise, point of view."""
    communication_style: str
    """How the agent talks to the user."""
    principles: tuple[str, ...]
    """The rules the agent works by, most important first."""


@dataclass(frozen=True, kw_only=True)
class FsPolicy:
    """The file-system tools an agent may use."""

    enabled: bool = False
    """Whether file-system tools may be used at all."""
    access: FsAccess = "read-write"
    """Read only, or read and write (``@pkg`` stays read-only either way)."""
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES
    """The most bytes one read may return."""


@dataclass(frozen=True, kw_only=True)
class McpPolicy:
    """The MCP tools an agent may use."""

    enabled: bool = False
    """Whether MCP tools may be called at all."""
    servers: tuple[str, ...] | None = None
    """The servers allowed, by name; None for every server the runtime provides."""


@dataclass(frozen=True, kw_only=True)
class ToolSettings:
    """An agent's ``tools``: what the ToolPolicy layer grants."""

    fs: FsPolicy = FsPolicy()
    """File-system tools."""
    mcp: McpPolicy = McpPolicy()
    """MCP tools."""


@dataclass(frozen=True, kw_only=True)
class AgentDefinition:
    """One agent of a workflow package."""

    id: str
    """Its unique id within the package."""
    name: str
    """Its given name."""
    title: str
    """Its job title."""
    persona: Persona
    """Its structured persona."""
    tools: ToolSettings
    """What it may use."""
    icon: str | None = None
    """A short symbol shown beside its name."""
    description: str | None = None
    """When to choose it (for people; not sent to the model)."""
    system_prompt: str | None = None
    """A compiled persona text that replaces the rendered persona."""
    user_template: str | None = None
    """How user input is presented to it (contains ``{{input}}``); None for the Task format."""


@dataclass(frozen=True, kw_only=True)
class AgentsFile:
    """A package's validated ``agents.json``."""

    path: Path
    """The file it was read from."""
    agents: tuple[AgentDefinition, ...]
    """Every agent, in file order."""
    default_agent_id: str
    """The agent used when none is chosen."""

    def get(self, agent_id: str, *, package_id: str) -> AgentDefinition:
        """The agent ``agent_id``; :class:`UnknownPackageAgent` lists the ones that exist."""
        for agent in self.agents:
            if agent.id == agent_id:
                return agent
        raise UnknownPackageAgent(package_id, agent_id, [a.id for a in self.agents], self.path)

    @property
    def default(self) -> AgentDefinition:
        """The default agent."""
        return next(a for a in self.agents if a.id == self.default_agent_id)


def _agent_of(data: Any) -> AgentOf:
    def name(where: tuple[str | int, ...]) -> str | None:
        if len(where) < 2 or where[0] != "agents" or not isinstance(where[1], int):
            return None
        agents = data.get("agents") if isinstance(data, dict) else None
        agent = agents[where[1]] if isinstance(agents, list) else None
        agent_id = agent.get("id") if isinstance(agent, dict) else None
        return agent_id if isinstance(agent_id, str) and agent_id else f"#{where[1]}"

    return name


def user_template_problem(template: str) -> str | None:
    """What is wrong with a ``userTemplate``, or None when it can be used.

    It must contain ``{{input}}`` and no placeholder other than ``{{input}}`` and
    ``{{nodeId}}`` (``\\{{`` writes a literal ``{{``).
    """
    used = placeholders(template)
    unknown = sorted(used - set(USER_TEMPLATE_VARIABLES))
    if unknown:
        names = ", ".join("{{" + u + "}}" for u in unknown)
        return f"it uses {names}; only {{{{input}}}} and {{{{nodeId}}}} can be filled in"
    if "input" not in used:
        return "it has no {{input}}, so the user's input would be dropped; add {{input}}"
    return None


def uses_node_id(template: str) -> bool:
    """Whether a ``userTemplate`` names the current node (``{{nodeId}}``)."""
    return "nodeId" in placeholders(template)


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _rule_problems(data: Any, path: Path) -> list[PackageProblem]:
    """The rules a schema cannot say, checked on whatever parts are well-formed, so they
    are reported together with any schema problems."""
    problems: list[PackageProblem] = []
    agents = _field(data, "agents")
    seen: set[str] = set()
    for i, agent in enumerate(agents if isinstance(agents, list) else []):
        agent_id = _field(agent, "id")
        if not isinstance(agent_id, str):
            continue
        if agent_id in seen:
            problems.append(
                PackageProblem(
                    file=path,
                    pointer=f"/agents/{i}/id",
                    message=f"the id {agent_id!r} is used by an earlier agent; ids must be unique",
                    agent=agent_id,
                )
            )
        seen.add(agent_id)
        template = _field(agent, "userTemplate")
        problem = user_template_problem(template) if isinstance(template, str) else None
        if problem is not None:
            problems.append(
                PackageProblem(
                    file=path,
                    pointer=f"/agents/{i}/userTemplate",
                    message=problem,
                    agent=agent_id,
                )
            )
    default = _field(data, "defaultAgentId")
    if isinstance(default, str) and seen and default not in seen:
        problems.append(
            PackageProblem(
                file=path,
                pointer="/defaultAgentId",
                message=f"no agent has the id {default!r}; use one of {', '.join(sorted(seen))}",
            )
        )
    return problems


def agents_file_problems(path: Path) -> tuple[Any, list[PackageProblem]]:
    """The data of the agents file at ``path`` and everything wrong with it."""
    data, problems = read_json(path)
    if problems:
        return None, problems
    problems = schema_problems(data, "agents", path, _agent_of(data))
    found = {p.pointer for p in problems}
    extra = [p for p in _rule_problems(data, path) if p.pointer not in found]
    return data, sorted_problems([*problems, *extra])


def _agent(raw: dict[str, Any]) -> AgentDefinition:
    persona = raw["persona"]
    tools = raw["tools"]
    fs = tools.get("fs", {})
    mcp = tools.get("mcp", {})
    servers = mcp.get("servers")
    return AgentDefinition(
        id=raw["id"],
        name=raw["name"],
        title=raw["title"],
        icon=raw.get("icon"),
        description=raw.get("description"),
        persona=Persona(
            role=persona["role"],
            identity=persona["identity"],
            communication_style=persona["communicationStyle"],
            principles=tuple(persona["principles"]),
        ),
        system_prompt=raw.get("systemPrompt"),
        user_template=raw.get("userTemplate"),
        tools=ToolSettings(
            fs=FsPolicy(
                enabled=fs.get("enabled", False),
                access=fs.get("access", "read-write"),
                max_read_bytes=fs.get("maxReadBytes", DEFAULT_MAX_READ_BYTES),
            ),
            mcp=McpPolicy(
                enabled=mcp.get("enabled", False),
                servers=tuple(servers) if servers is not None else None,
            ),
        ),
    )


def load_agents_file(path: Path) -> AgentsFile:
    """The agents file at ``path``, validated against schema v1.1.

    Raises :class:`InvalidAgentsFile` listing every problem: a missing or unreadable
    file, text that is not JSON, each schema violation, duplicate ids, an unknown default.
    """
    data, problems = agents_file_problems(path)
    if problems:
        raise InvalidAgentsFile(path, problems)
    agents = tuple(_agent(raw) for raw in data["agents"])
    return AgentsFile(
        path=path,
        agents=agents,
        default_agent_id=data.get("defaultAgentId", agents[0].id),
    )
