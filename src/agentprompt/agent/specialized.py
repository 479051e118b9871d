"""Specialised agents: the planner, the explorer and custom agents.

An :class:`AgentSpec` is what a sub-agent is: its name, one-line description, its own system
prompt (the "Primary Identity" of :func:`~agentprompt.agent._system_prompt.agent_system_prompt`),
the tools it may use, the tools it must call before it finishes, and an optional model.

The planner and explorer prompts are fixed texts in ``prompts/agent/planner.md`` and
``explorer.md``. Custom agents are Markdown files whose front matter names the agent::

    ---
    name: security-reviewer
    description: Security analysis and vulnerability detection
    tools: [read, grep, glob]
    model: openai:gpt-4o
    ---
    You are a security reviewer...

read from the user's config directory (``agents/``) and then the project's
``.agentprompt/agents/``; a later definition of the same name replaces an earlier one, and
both may replace the built-in ``general`` agent. :func:`scan_agents` skips a file it cannot
use and reports it in :attr:`AgentCatalog.problems` (one broken file must not take every
other agent, and the session, down with it); :func:`load_agents` is the strict form.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentprompt.errors import InvalidAgentDefinition, UnknownAgent
from agentprompt.prompts.frontmatter import InvalidFrontMatter, read_front_matter
from agentprompt.prompts.loader import PACKAGED_DIR, PromptLibrary, user_prompt_dir
from agentprompt.prompts.stamps import StampedCache

__all__ = [
    "EXPLORER_TOOLS",
    "PLANNER_TOOLS",
    "PLAN_HEADINGS",
    "AgentCatalog",
    "AgentOrigin",
    "AgentSpec",
    "InvalidAgentDefinition",
    "OutputCheck",
    "UnknownAgent",
    "builtin_agents",
    "check_exploration",
    "check_plan",
    "explorer_agent",
    "find_agent",
    "load_agents",
    "parse_agent_file",
    "planner_agent",
    "scan_agents",
    "user_agents_dir",
]

AgentOrigin = Literal["builtin", "user", "project"]
"""Where an agent definition came from."""

EXPLORER_TOOLS: tuple[str, ...] = ("tree", "glob", "grep", "read", "ls", "batch")
"""The explorer's tools, as its prompt lists them; all read-only."""

PLANNER_TOOLS: tuple[str, ...] = (
    "tree",
    "glob",
    "grep",
    "read",
    "ls",
    "batch",
    "explore",
    "todo_add",
)
"""The planner's tools, as its prompt lists them."""

PLAN_HEADINGS: tuple[str, ...] = (
    "## Implementation Plan",
    "### Context",
    "### Implementation Steps",
    "### Considerations",
    "### Files to Modify/Create",
    "### Proposed Todos",
)
"""The headings the planner's output format requires, in order."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_KNOWN_KEYS = frozenset({"name", "description", "tools", "model", "required_tools", "read_only"})


@dataclass(frozen=True, kw_only=True)
class AgentSpec:
    """A specialised agent: who it is, what it may use, what it must do."""

    name: str
    """Its name, as the ``agent`` tool and ``@name`` in user text take it."""
    description: str
    """What it is for, in one line (shown in the main agent's Available Agents list)."""
    system_prompt: str
    """Its own system prompt: the Primary Identity of its specialised prompt."""
    tools: tuple[str, ...] | None = None
    """The only tools it may use, or None for every tool the session's policy allows."""
    required_tools: tuple[str, ...] = ()
    """Tools it must call before it may finish (else it gets the required tool reminder)."""
    read_only: bool = False
    """Whether it may only use tools that change nothing."""
    model: str | None = None
    """The model to run it on (``openai:gpt-4o``), or None for the session's model."""
    origin: AgentOrigin = "builtin"
    """Where the definition came from."""
    path: Path | None = None
    """The file it was read from (None for the planner and explorer)."""


@dataclass(frozen=True, kw_only=True)
class OutputCheck:
    """Whether a specialised agent's final response has the structure its prompt requires."""

    ok: bool
    """Every required part is present, in order."""
    missing: tuple[str, ...] = ()
    """The required parts that are absent (or out of order), in the required order."""


def planner_agent(prompts: PromptLibrary) -> AgentSpec:
    """The planner behind the ``plan`` tool (``agent/planner``); it must propose
    todos with ``todo_add`` before it finishes."""
    return AgentSpec(
        name="plan",
        description="Creates a detailed implementation plan and proposes todos for it",
        system_prompt=prompts.render("agent/planner"),
        tools=PLANNER_TOOLS,
        required_tools=("todo_add",),
    )


def explorer_agent(prompts: PromptLibrary) -> AgentSpec:
    """The read-only explorer behind the ``explore`` tool (``agent/explorer``)."""
    return AgentSpec(
        name="explore",
        description="Read-only codebase exploration and analysis",
        system_prompt=prompts.render("agent/explorer"),
        tools=EXPLORER_TOOLS,
        read_only=True,
    )


def _names(value: Any, key: str, path: Path | None) -> tuple[str, ...]:
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",")]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value]
    else:
        raise InvalidAgentDefinition(
            path,
            f"'{key}' must be a list of tool names or a comma-separated string",
            field=key,
        )
    names = tuple(dict.fromkeys(v for v in items if v))
    bad = [n for n in names if not _NAME.match(n)]
    if bad:
        raise InvalidAgentDefinition(
            path, f"'{key}' has invalid tool name(s): {', '.join(bad)}", field=key
        )
    return names


def _text_field(meta: dict[str, Any], key: str, path: Path | None) -> str | None:
    value = meta.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidAgentDefinition(path, f"'{key}' must be a non-empty string", field=key)
    return " ".join(value.split())


def parse_agent_file(
    text: str, *, path: Path | None = None, origin: AgentOrigin = "project"
) -> AgentSpec:
    """An :class:`AgentSpec` from an agent file's text: front matter with ``description``
    (required), ``name`` (default: the file's stem), ``tools``, ``required_tools``,
    ``read_only`` and ``model``; the body is the system prompt."""
    try:
        front = read_front_matter(text.removeprefix("\ufeff"))
    except InvalidFrontMatter as exc:
        raise InvalidAgentDefinition(path, str(exc)) from None
    if front is None:
        raise InvalidAgentDefinition(
            path, "it must start with front matter between '---' lines naming its description"
        )
    meta = front.meta
    unknown = sorted(str(k) for k in meta if k not in _KNOWN_KEYS)
    if unknown:
        raise InvalidAgentDefinition(
            path,
            f"unknown key(s) {', '.join(unknown)}; use {', '.join(sorted(_KNOWN_KEYS))}",
            field=unknown[0],
        )
    name = _text_field(meta, "name", path) or (path.stem if path else None)
    if not name or not _NAME.match(name):
        raise InvalidAgentDefinition(
            path,
            f"'name' is {name!r}; an agent name must be letters, digits, '-', '_' or '.' "
            "(no spaces)",
            field="name",
        )
    description = _text_field(meta, "description", path)
    if description is None:
        raise InvalidAgentDefinition(
            path, "'description' is required: say what the agent does", field="description"
        )
    body = front.body.strip()
    if not body:
        raise InvalidAgentDefinition(path, "the body (the agent's system prompt) is empty")
    read_only = meta.get("read_only", False)
    if not isinstance(read_only, bool):
        raise InvalidAgentDefinition(path, "'read_only' must be true or false", field="read_only")
    tools = _names(meta["tools"], "tools", path) if meta.get("tools") is not None else None
    required = _names(meta.get("required_tools") or [], "required_tools", path)
    if tools is not None:
        absent = [t for t in required if t not in tools]
        if absent:
            raise InvalidAgentDefinition(
                path,
                f"required tool(s) {', '.join(absent)} are not in its 'tools' list",
                field="required_tools",
            )
    return AgentSpec(
        name=name,
        description=description,
        system_prompt=body,
        tools=tools,
        required_tools=required,
        read_only=read_only,
        model=_text_field(meta, "model", path),
        origin=origin,
        path=path,
    )


_PARSED: StampedCache[tuple[Path, AgentOrigin], AgentSpec] = StampedCache()
"""Agent files already parsed: a session reads the agents before every call, and an
unchanged file is not parsed again."""


def _read_agent(path: Path, origin: AgentOrigin) -> AgentSpec:
    def parse(raw: bytes) -> AgentSpec:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidAgentDefinition(
                path, f"is not UTF-8 text (byte {exc.start}); save it as UTF-8"
            ) from None
        return parse_agent_file(text, path=path, origin=origin)

    try:
        return _PARSED.load((path, origin), path, parse)
    except OSError as exc:
        raise InvalidAgentDefinition(path, f"cannot be read ({exc.strerror})") from None


def _dir_agents(
    directory: Path, origin: AgentOrigin, problems: list[InvalidAgentDefinition]
) -> list[AgentSpec]:
    """The usable agent files of ``directory``; each unusable one is added to ``problems``
    and skipped (of two files defining one name, the first in name order is kept)."""
    if not directory.is_dir():
        return []
    base = directory.resolve()
    specs: dict[str, AgentSpec] = {}
    for path in sorted(p for p in directory.glob("*.md") if p.is_file()):
        # A repository's agent file must not pull text from elsewhere on the machine into
        # the prompt; the user's own directory may link wherever its owner likes.
        if origin == "project" and not path.resolve().is_relative_to(base):
            problems.append(
                InvalidAgentDefinition(
                    path,
                    f"is a link to {path.resolve()}, outside {directory}; copy the file instead",
                )
            )
            continue
        try:
            spec = _read_agent(path, origin)
        except InvalidAgentDefinition as exc:
            problems.append(exc)
            continue
        first = specs.get(spec.name)
        if first is not None:
            problems.append(
                InvalidAgentDefinition(
                    path,
                    f"'name' {spec.name!r} is already defined by {first.path}; rename one",
                    field="name",
                )
            )
            continue
        specs[spec.name] = spec
    return list(specs.values())


def builtin_agents() -> tuple[AgentSpec, ...]:
    """The packaged custom-style agents (``general``)."""
    problems: list[InvalidAgentDefinition] = []
    specs = _dir_agents(PACKAGED_DIR / "agent" / "agents", "builtin", problems)
    if problems:
        raise problems[0]
    return tuple(specs)


def user_agents_dir() -> Path:
    """The user's agents directory: ``agents/`` beside the user's prompt directory."""
    return user_prompt_dir().parent / "agents"


@dataclass(frozen=True, kw_only=True)
class AgentCatalog:
    """The agents a session may delegate to, and the agent files it had to skip."""

    agents: tuple[AgentSpec, ...]
    """The usable agents, sorted by name (a later layer replacing an earlier one)."""
    problems: tuple[InvalidAgentDefinition, ...] = ()
    """One error per agent file that was skipped, naming the file and what to fix."""

    @property
    def names(self) -> tuple[str, ...]:
        """The usable agents' names."""
        return tuple(a.name for a in self.agents)

    def problem_for(self, name: str) -> InvalidAgentDefinition | None:
        """The error of a skipped file that would define agent ``name`` (by its file name),
        or None; a usable agent of that name wins."""
        if name in self.names:
            return None
        return next((p for p in self.problems if p.path is not None and p.path.stem == name), None)


def scan_agents(root: Path, *, user_dir: Path | None = None) -> AgentCatalog:
    """Every usable agent (see :func:`load_agents`), skipping the files that cannot be used
    and reporting each in :attr:`AgentCatalog.problems`."""
    problems: list[InvalidAgentDefinition] = []
    merged: dict[str, AgentSpec] = {}
    layers: Iterable[list[AgentSpec]] = (
        list(builtin_agents()),
        _dir_agents(user_dir if user_dir is not None else user_agents_dir(), "user", problems),
        _dir_agents(Path(root) / ".agentprompt" / "agents", "project", problems),
    )
    for layer in layers:
        merged.update((s.name, s) for s in layer)
    return AgentCatalog(
        agents=tuple(merged[name] for name in sorted(merged)), problems=tuple(problems)
    )


def load_agents(root: Path, *, user_dir: Path | None = None) -> tuple[AgentSpec, ...]:
    """Every agent the main agent may delegate to: the built-ins, the user's, then the
    project's ``.agentprompt/agents/*.md``, a later one replacing an earlier one of the same
    name; sorted by name. An unusable file raises :class:`InvalidAgentDefinition`
    (:func:`scan_agents` skips it instead)."""
    catalog = scan_agents(root, user_dir=user_dir)
    if catalog.problems:
        raise catalog.problems[0]
    return catalog.agents


def find_agent(agents: Sequence[AgentSpec], name: str) -> AgentSpec:
    """The agent called ``name``; :class:`UnknownAgent` lists the known ones."""
    for spec in agents:
        if spec.name == name:
            return spec
    raise UnknownAgent(name, [s.name for s in agents])


def check_plan(text: str) -> OutputCheck:
    """Whether a planner's response has the required output format: every heading of
    :data:`PLAN_HEADINGS` on a line of its own, in order."""
    lines = [line.strip() for line in text.splitlines()]
    missing = []
    position = 0
    for heading in PLAN_HEADINGS:
        try:
            position = lines.index(heading, position) + 1
        except ValueError:
            missing.append(heading)
    return OutputCheck(ok=not missing, missing=tuple(missing))


def check_exploration(text: str) -> OutputCheck:
    """Whether an explorer's response is a final summary: it has text (a response of only
    tool calls, or a blank one, breaks the explorer's contract)."""
    if text.strip():
        return OutputCheck(ok=True)
    return OutputCheck(ok=False, missing=("a summary of the findings",))
