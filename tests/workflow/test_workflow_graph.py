"""workflow.graph.json and the run state file: loading, briefs, and invalid files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentprompt.errors import UsageError
from agentprompt.workflow import (
    InvalidPackageFile,
    RunState,
    load_graph,
    load_package,
    load_run_state,
    package_problems,
    save_run_state,
)
from agentprompt.workflow._state import run_state_path
from agentprompt.workflow.package import node_brief_for


def _graph_errors(package: Path, change: Callable[[dict[str, Any]], None]) -> InvalidPackageFile:
    path = package / "workflow.graph.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InvalidPackageFile) as caught:
        load_graph(path, package)
    return caught.value


def test_the_example_graph_loads_with_its_entry_node_and_transitions(package_copy: Path) -> None:
    graph = load_graph(package_copy / "workflow.graph.json", package_copy)
    assert graph.entry_node_id == "gather"
    assert [n.id for n in graph.nodes] == ["gather", "draft", "review"]
    assert [(e.target, e.label) for e in graph.transitions("review")] == [
        ("draft", "changes requested")
    ]
    assert graph.node("draft").inputs[1].required is False


def test_a_node_brief_holds_the_step_file_and_the_nodes_edges(package_copy: Path) -> None:
    brief = node_brief_for(load_package(package_copy), "draft")
    assert brief.step_file_path_in_pkg == "steps/02-draft.md"
    assert brief.step_content is not None and brief.step_content.startswith("# Draft the brief")
    assert [e.target for e in brief.transitions] == ["review"]
    assert brief.validation[0].startswith("The brief has the sections")


def test_an_unknown_node_lists_the_known_ones(package_copy: Path) -> None:
    with pytest.raises(UsageError, match="no node 'ship': choose one of gather, draft, review"):
        node_brief_for(load_package(package_copy), "ship")


def test_an_unreadable_step_file_names_the_node_field(package_copy: Path) -> None:
    package = load_package(package_copy)
    (package_copy / "steps" / "02-draft.md").write_bytes(b"\xff\xfe bad")
    with pytest.raises(InvalidPackageFile) as caught:
        node_brief_for(package, "draft")
    assert caught.value.problems[0].pointer == "/nodes/1/stepFile"


@pytest.mark.parametrize(
    ("change", "pointer", "message"),
    [
        (lambda d: d.update(entryNodeId="ship"), "/entryNodeId", "no node has the id 'ship'"),
        (lambda d: d["edges"][1].update(to="ship"), "/edges/1/to", "no node has the id 'ship'"),
        (lambda d: d["nodes"][2].update(id="gather"), "/nodes/2/id", "used by an earlier node"),
        (
            lambda d: d["nodes"][0].update(stepFile="steps/missing.md"),
            "/nodes/0/stepFile",
            "there is no file steps/missing.md",
        ),
        (
            lambda d: d["nodes"][0].update(stepFile="../outside.md"),
            "/nodes/0/stepFile",
            "'../outside.md' is not allowed here. The step's instructions",
        ),
        (
            lambda d: d["nodes"][0].update(stepFile="/etc/x.md"),
            "/nodes/0/stepFile",
            "without a leading '/'",
        ),
        (
            lambda d: d["nodes"][0].update(stepFile='steps/a".md'),
            "/nodes/0/stepFile",
            "without double quotes",
        ),
        (lambda d: d["nodes"][0].pop("title"), "/nodes/0/title", "required field 'title'"),
        (
            lambda d: d["nodes"][0]["outputs"][0].update(path="/real/docs.md"),
            "/nodes/0/outputs/0/path",
            "'/real/docs.md' is not allowed here. A path under a mount",
        ),
        (lambda d: d["edges"][0].update(when="x"), "/edges/0/when", "unknown field 'when'"),
    ],
    ids=[
        "entry",
        "edge-end",
        "duplicate-node",
        "missing-step",
        "traversal",
        "absolute",
        "quote",
        "title",
        "output-path",
        "edge-field",
    ],
)
def test_each_graph_problem_names_the_failing_field(
    package_copy: Path, change: Callable[[dict[str, Any]], None], pointer: str, message: str
) -> None:
    error = _graph_errors(package_copy, change)
    [problem] = [p for p in error.problems if p.pointer == pointer]
    assert message in problem.message
    assert str(package_copy / "workflow.graph.json") in str(error)


def test_a_graph_that_is_not_json_is_refused(package_copy: Path) -> None:
    path = package_copy / "workflow.graph.json"
    path.write_text("nodes: []", encoding="utf-8")
    with pytest.raises(InvalidPackageFile, match="not valid JSON"):
        load_graph(path, package_copy)


def test_package_problems_lists_both_files(package_copy: Path) -> None:
    (package_copy / "agents.json").write_text("[]", encoding="utf-8")
    (package_copy / "workflow.graph.json").unlink()
    problems = package_problems(package_copy)
    assert [(p.file.name, p.pointer) for p in problems] == [
        ("agents.json", ""),
        ("workflow.graph.json", ""),
    ]
    assert "is not of type 'object'" in problems[0].message
    assert problems[1].message == "the file does not exist"


def test_a_saved_run_state_loads_back(tmp_path: Path) -> None:
    state = RunState(current_node_id="draft", variables={"audience": "staff"})
    path = save_run_state(tmp_path / "state", state, workflow_id="feature-brief")
    assert path == run_state_path(tmp_path / "state")
    assert load_run_state(tmp_path / "state") == state
    assert json.loads(path.read_text(encoding="utf-8"))["workflowId"] == "feature-brief"


def test_a_completed_run_is_saved_without_a_current_node(tmp_path: Path) -> None:
    save_run_state(tmp_path, RunState(current_node_id="review", completed=True))
    assert load_run_state(tmp_path) == RunState(current_node_id=None, completed=True)


def test_no_run_state_file_means_no_run(tmp_path: Path) -> None:
    assert load_run_state(tmp_path) is None


def test_an_invalid_run_state_names_the_field(tmp_path: Path) -> None:
    run_state_path(tmp_path).write_text('{"schemaVersion": "1.0", "completed": "no"}')
    with pytest.raises(InvalidPackageFile) as caught:
        load_run_state(tmp_path)
    assert [p.pointer for p in caught.value.problems] == ["/completed", "/currentNodeId"]


def _rewrite(package: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = package / "workflow.graph.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_a_step_file_that_is_not_utf8_is_reported_by_validation(package_copy: Path) -> None:
    (package_copy / "steps" / "02-draft.md").write_bytes(b"\xff\xfe bad")
    [problem] = package_problems(package_copy)
    assert problem.pointer == "/nodes/1/stepFile"
    assert "is not UTF-8 text" in problem.message


def test_rule_problems_are_reported_together_with_schema_problems(package_copy: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data["nodes"][0].pop("title")
        data["edges"][0]["to"] = "ship"
        data["nodes"][2]["stepFile"] = "steps/missing.md"

    _rewrite(package_copy, change)
    problems = package_problems(package_copy)
    errors = [p.pointer for p in problems if p.severity == "error"]
    assert errors == ["/edges/0/to", "/nodes/0/title", "/nodes/2/stepFile"]


def test_artifact_names_must_be_unique_within_a_nodes_inputs(package_copy: Path) -> None:
    _rewrite(package_copy, lambda d: d["nodes"][1]["inputs"][1].update(name="requirements"))
    with pytest.raises(InvalidPackageFile) as caught:
        load_graph(package_copy / "workflow.graph.json", package_copy)
    [problem] = caught.value.problems
    assert problem.pointer == "/nodes/1/inputs/1/name"
    assert "used by an earlier entry of this node's inputs" in problem.message


def test_a_node_no_run_can_reach_is_a_warning_not_an_error(package_copy: Path) -> None:
    _rewrite(package_copy, lambda d: d["edges"].pop(1))
    [problem] = package_problems(package_copy)
    assert (problem.severity, problem.pointer) == ("warning", "/nodes/2")
    assert "no run can reach node 'review'" in problem.message
    assert problem.describe().startswith("warning: ")
    assert load_graph(package_copy / "workflow.graph.json", package_copy).id == "feature-brief"


def _write_state(state: Path, data: dict[str, Any]) -> None:
    state.mkdir(parents=True, exist_ok=True)
    run_state_path(state).write_text(json.dumps({"schemaVersion": "1.0", **data}))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"currentNodeId": None, "completed": False}, "must name its current node"),
        ({"currentNodeId": "draft", "completed": True}, "currentNodeId must be null"),
    ],
)
def test_the_current_node_must_match_completion(
    tmp_path: Path, data: dict[str, Any], message: str
) -> None:
    _write_state(tmp_path, data)
    with pytest.raises(InvalidPackageFile) as caught:
        load_run_state(tmp_path)
    [problem] = caught.value.problems
    assert problem.pointer == "/currentNodeId"
    assert message in problem.message


def test_a_run_at_a_node_the_graph_lacks_names_the_state_file_and_field(
    tmp_path: Path, package_copy: Path
) -> None:
    _write_state(tmp_path, {"currentNodeId": "ghost", "completed": False})
    graph = load_package(package_copy).graph
    with pytest.raises(InvalidPackageFile) as caught:
        load_run_state(tmp_path, graph)
    [problem] = caught.value.problems
    assert (problem.file, problem.pointer) == (run_state_path(tmp_path), "/currentNodeId")
    assert "has no node 'ghost': set it to one of gather, draft, review, or pass --node" in (
        problem.message
    )
    assert "delete the file to start a new run" in str(caught.value)
    assert "validate" not in str(caught.value)


def test_a_run_of_another_workflow_is_refused(tmp_path: Path, package_copy: Path) -> None:
    _write_state(tmp_path, {"workflowId": "other", "currentNodeId": "draft", "completed": False})
    with pytest.raises(InvalidPackageFile, match="follows workflow 'other'"):
        load_run_state(tmp_path, load_package(package_copy).graph)
