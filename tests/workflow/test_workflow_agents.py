"""agents.json v1.1: loading, the runtime store, and every way the file can be wrong."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentprompt.errors import UsageError
from agentprompt.workflow import (
    AgentDefinition,
    InvalidAgentDefinition,
    InvalidAgentsFile,
    InvalidPackageFile,
    RuntimeStore,
    UnknownAgent,
    UnknownPackageAgent,
    WorkflowError,
    load_agents_file,
)


def _data(package: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((package / "agents.json").read_text(encoding="utf-8"))
    return data


def _write(package: Path, data: object) -> Path:
    path = package / "agents.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _errors(package: Path, change: Callable[[dict[str, Any]], None]) -> InvalidAgentsFile:
    data = _data(package)
    change(data)
    path = _write(package, data)
    with pytest.raises(InvalidAgentsFile) as caught:
        load_agents_file(path)
    return caught.value


def test_the_example_agents_load_with_their_tools_and_persona(package_copy: Path) -> None:
    agents = load_agents_file(package_copy / "agents.json")
    assert [a.id for a in agents.agents] == ["analyst", "reviewer"]
    analyst = agents.default
    assert analyst.name == "Mary"
    assert analyst.persona.principles[0].startswith("Every requirement")
    assert analyst.tools.fs.enabled and analyst.tools.fs.access == "read-write"
    assert analyst.tools.fs.max_read_bytes == 131072
    reviewer = agents.get("reviewer", package_id="p")
    assert reviewer.tools.mcp.servers == ("issue-tracker",)
    assert reviewer.system_prompt is not None


def test_the_store_returns_the_requested_agent(package_copy: Path) -> None:
    store = RuntimeStore({"brief": package_copy})
    agent = store.get_agent_definition("brief", "reviewer")
    assert isinstance(agent, AgentDefinition)
    assert agent.title == "Brief Reviewer"


def test_the_store_returns_the_default_agent_when_none_is_asked_for(package_copy: Path) -> None:
    assert RuntimeStore({"brief": package_copy}).get_agent_definition("brief").id == "analyst"


def test_without_default_agent_id_the_first_agent_is_the_default(package_copy: Path) -> None:
    data = _data(package_copy)
    del data["defaultAgentId"]
    data["agents"].reverse()
    path = _write(package_copy, data)
    assert load_agents_file(path).default.id == "reviewer"


def test_omitted_tools_are_off_and_defaults_apply(package_copy: Path) -> None:
    data = _data(package_copy)
    data["agents"][0]["tools"] = {"fs": {"enabled": True}}
    agent = load_agents_file(_write(package_copy, data)).default
    assert agent.tools.fs.access == "read-write"
    assert agent.tools.fs.max_read_bytes == 262144
    assert not agent.tools.mcp.enabled


def test_the_store_reloads_agents_json_when_it_changes(package_copy: Path) -> None:
    store = RuntimeStore()
    store.register(package_copy, "brief")
    assert store.get_agent_definition("brief").name == "Mary"
    data = _data(package_copy)
    data["agents"][0]["name"] = "Maria!"
    _write(package_copy, data)
    assert store.get_agent_definition("brief").name == "Maria!"


def test_an_unknown_agent_lists_the_known_ones(package_copy: Path) -> None:
    store = RuntimeStore({"brief": package_copy})
    with pytest.raises(
        UnknownAgent, match=r"no agent 'pm' in .*agents.json: choose one of analyst, reviewer"
    ):
        store.get_agent_definition("brief", "pm")


def test_an_unknown_package_agent_is_an_unknown_agent_and_a_workflow_error(
    package_copy: Path,
) -> None:
    store = RuntimeStore({"brief": package_copy})
    with pytest.raises(UnknownPackageAgent) as caught:
        store.get_agent_definition("brief", "pm")
    assert isinstance(caught.value, UnknownAgent)
    assert isinstance(caught.value, WorkflowError)
    assert caught.value.name == caught.value.agent_id == "pm"


def test_an_invalid_agents_file_is_an_invalid_agent_definition_and_package_file(
    package_copy: Path,
) -> None:
    error = _errors(package_copy, lambda d: d["agents"][0].pop("id"))
    assert isinstance(error, InvalidAgentDefinition)
    assert isinstance(error, InvalidPackageFile)
    assert error.path == package_copy / "agents.json"


def test_an_unknown_package_lists_the_registered_ones(package_copy: Path) -> None:
    with pytest.raises(UsageError, match=r"'other' \(known: brief\)"):
        RuntimeStore({"brief": package_copy}).get_agent_definition("other", "analyst")


def test_a_missing_agents_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidAgentDefinition) as caught:
        load_agents_file(tmp_path / "agents.json")
    assert f"{tmp_path / 'agents.json'}, field /: the file does not exist" in str(caught.value)


def test_agents_json_that_is_not_json_names_line_and_column(package_copy: Path) -> None:
    path = package_copy / "agents.json"
    path.write_text('{"schemaVersion": "1.1",\n  "agents": [,]}', encoding="utf-8")
    with pytest.raises(InvalidAgentDefinition, match=r"not valid JSON: .* at line 2, column 14"):
        load_agents_file(path)


def test_agents_json_that_is_not_utf8_is_refused(package_copy: Path) -> None:
    path = package_copy / "agents.json"
    path.write_bytes(b'{"name": "\xff"}')
    with pytest.raises(InvalidAgentDefinition, match="not UTF-8 text"):
        load_agents_file(path)


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return change


_DELETE = object()

SCHEMA_CASES = [
    (("schemaVersion",), "1.0", None, "/schemaVersion", "'1.1' was expected"),
    (("agents",), [], None, "/agents", "should be non-empty"),
    (("agents", 0, "name"), _DELETE, "analyst", "/agents/0/name", "the required field 'name'"),
    (
        ("agents", 0, "id"),
        "has space",
        "has space",
        "/agents/0/id",
        "is not allowed here. An identifier",
    ),
    (("agents", 1, "title"), "", "reviewer", "/agents/1/title", "should be non-empty"),
    (
        ("agents", 0, "persona", "principles"),
        [],
        "analyst",
        "/agents/0/persona/principles",
        "non-empty",
    ),
    (
        ("agents", 0, "persona", "communicationStyle"),
        _DELETE,
        "analyst",
        "/agents/0/persona/communicationStyle",
        "required field 'communicationStyle' is missing",
    ),
    (
        ("agents", 0, "tools", "fs", "enabled"),
        "yes",
        "analyst",
        "/agents/0/tools/fs/enabled",
        "'yes' is not of type 'boolean'",
    ),
    (
        ("agents", 0, "tools", "fs", "access"),
        "write",
        "analyst",
        "/agents/0/tools/fs/access",
        "'write' is not one of ['read', 'read-write']",
    ),
    (
        ("agents", 0, "tools", "fs", "maxReadBytes"),
        0,
        "analyst",
        "/agents/0/tools/fs/maxReadBytes",
        "0 is less than the minimum of 1",
    ),
    (
        ("agents", 1, "tools", "mcp", "servers"),
        [],
        "reviewer",
        "/agents/1/tools/mcp/servers",
        "should be non-empty",
    ),
    (
        ("agents", 1, "userTemplate"),
        "no slot",
        "reviewer",
        "/agents/1/userTemplate",
        "'no slot' is not allowed here. Optional: how the user's input is presented",
    ),
    (
        ("agents", 0, "tools", "shell"),
        {"enabled": True},
        "analyst",
        "/agents/0/tools/shell",
        "unknown field 'shell'; allowed here: fs, mcp",
    ),
    (("agents", 0, "tools"), _DELETE, "analyst", "/agents/0/tools", "required field 'tools'"),
]


@pytest.mark.parametrize(
    ("path", "value", "agent", "pointer", "message"),
    SCHEMA_CASES,
    ids=[c[3] for c in SCHEMA_CASES],
)
def test_each_schema_violation_names_the_file_the_agent_and_the_field(
    package_copy: Path,
    path: tuple[Any, ...],
    value: Any,
    agent: str | None,
    pointer: str,
    message: str,
) -> None:
    error = _errors(package_copy, _set(path, value))
    [problem] = [p for p in error.problems if p.pointer == pointer]
    assert problem.file == package_copy / "agents.json"
    assert problem.agent == agent
    assert problem.pointer == pointer
    assert message in problem.message
    where = f"agent {agent!r}, " if agent else ""
    assert f"{package_copy / 'agents.json'}, {where}field {pointer}: " in str(error)


def test_every_problem_is_reported_at_once(package_copy: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        del data["agents"][0]["name"]
        data["agents"][1]["tools"]["fs"]["maxReadBytes"] = -5

    error = _errors(package_copy, change)
    assert [(p.agent, p.pointer) for p in error.problems] == [
        ("analyst", "/agents/0/name"),
        ("reviewer", "/agents/1/tools/fs/maxReadBytes"),
    ]
    assert "(2 problems)" in str(error)


def test_an_agent_without_a_usable_id_is_named_by_its_position(package_copy: Path) -> None:
    error = _errors(package_copy, _set(("agents", 1, "id"), 42))
    assert error.problems[0].agent == "#1"


def test_duplicate_agent_ids_are_refused(package_copy: Path) -> None:
    error = _errors(package_copy, _set(("agents", 1, "id"), "analyst"))
    [problem] = error.problems
    assert problem.pointer == "/agents/1/id"
    assert "used by an earlier agent" in problem.message


def test_an_unknown_default_agent_is_refused(package_copy: Path) -> None:
    error = _errors(package_copy, _set(("defaultAgentId",), "pm"))
    [problem] = error.problems
    assert problem.pointer == "/defaultAgentId"
    assert "no agent has the id 'pm'; use one of analyst, reviewer" in problem.message


def test_a_failed_load_leaves_the_file_untouched(package_copy: Path) -> None:
    path = package_copy / "agents.json"
    path.write_text("{broken", encoding="utf-8")
    with pytest.raises(InvalidAgentDefinition):
        RuntimeStore({"brief": package_copy}).get_agent_definition("brief")
    assert path.read_text(encoding="utf-8") == "{broken"


def test_rule_problems_are_reported_together_with_schema_problems(package_copy: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data["agents"][0]["tools"]["fs"]["maxReadBytes"] = "lots"
        data["agents"][1]["id"] = "analyst"
        data["agents"][1]["userTemplate"] = "{{input}} for {{who}}"

    error = _errors(package_copy, change)
    assert [p.pointer for p in error.problems] == [
        "/agents/0/tools/fs/maxReadBytes",
        "/agents/1/id",
        "/agents/1/userTemplate",
    ]


@pytest.mark.parametrize(
    ("template", "valid"),
    [
        ("{{ input }}", True),
        ("Step {{nodeId}}: {{input}}", True),
        ("\\{{input}} only escaped", False),
        ("{{input}} {{node}}", False),
    ],
)
def test_the_schema_and_the_runtime_agree_on_user_templates(
    package_copy: Path, template: str, valid: bool
) -> None:
    data = _data(package_copy)
    data["agents"][1]["userTemplate"] = template
    path = _write(package_copy, data)
    if valid:
        assert load_agents_file(path).agents[1].user_template == template
    else:
        with pytest.raises(InvalidAgentDefinition, match="/agents/1/userTemplate"):
            load_agents_file(path)
