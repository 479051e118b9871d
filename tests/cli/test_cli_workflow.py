"""``agentprompt workflow compose`` and ``validate`` on the example package."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Result, snapshot_tree

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workflow" / "feature-brief"

Run = Callable[..., Result]


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A copy of the example package."""
    target = tmp_path / "pkgs" / "feature-brief"
    shutil.copytree(EXAMPLE, target)
    return target


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory."""
    root = tmp_path / "project"
    root.mkdir()
    return root


def _compose(run: Run, package: Path, project: Path, *args: str) -> Result:
    return run("workflow", "compose", "--package", str(package), "--project", str(project), *args)


def _state(project: Path, data: dict[str, object]) -> None:
    state = project / ".agentprompt" / "workflow" / "feature-brief"
    state.mkdir(parents=True)
    (state / "run.json").write_text(json.dumps({"schemaVersion": "1.0", **data}))


def test_compose_run_starts_at_the_entry_node_with_the_default_agent(
    run: Run, package: Path, project: Path
) -> None:
    result = _compose(run, package, project, "--mode", "run", "--json")
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert (out["profile"], out["agent"], out["node"], out["intent"]) == (
        "run",
        "analyst",
        "gather",
        "start",
    )
    assert [m["role"] for m in out["messages"]] == ["system", "user"]
    assert "currentNodeId: gather" in out["messages"][1]["content"]


def test_compose_run_continues_at_the_saved_runs_current_node(
    run: Run, package: Path, project: Path
) -> None:
    _state(project, {"currentNodeId": "draft", "completed": False, "variables": {"k": "v"}})
    out = json.loads(_compose(run, package, project, "--mode", "run", "--json").out)
    assert (out["node"], out["intent"]) == ("draft", "continue")
    assert '"k": "v"' in out["messages"][1]["content"]


def test_compose_node_and_intent_options_override_the_defaults(
    run: Run, package: Path, project: Path
) -> None:
    result = _compose(
        run, package, project, "--mode", "run", "--node", "review", "--intent", "resume"
    )
    assert result.code == 0
    assert "intent: resume\n" in result.out
    assert '<node-brief nodeId="review">' in result.out


def test_compose_completed_uses_the_post_completion_profile(
    run: Run, package: Path, project: Path
) -> None:
    result = _compose(run, package, project, "--mode", "run", "--completed", "--input", "Thanks")
    assert result.code == 0
    assert "## Post-Run Protocol" in result.out
    assert "currentNodeId:" not in result.out
    assert "<node-brief" not in result.out


def test_compose_chat_has_no_persona_and_no_real_paths(
    run: Run, package: Path, project: Path
) -> None:
    result = _compose(
        run, package, project, "--mode", "chat", "--input", f"look at {project}/notes.md"
    )
    assert result.code == 0
    assert "<persona" not in result.out
    assert "look at @project/notes.md" in result.out
    assert str(project) not in result.out
    assert str(package) not in result.out


def test_compose_agent_uses_the_chosen_agent(run: Run, package: Path, project: Path) -> None:
    result = _compose(run, package, project, "--mode", "agent", "--agent", "reviewer")
    assert result.code == 0
    assert '<persona agent="reviewer">\nYou are Quinn' in result.out


def test_compose_openai_format_prints_the_messages_list(
    run: Run, package: Path, project: Path
) -> None:
    result = _compose(run, package, project, "--mode", "chat", "--format", "openai")
    assert [m["role"] for m in json.loads(result.out)] == ["system"]


def test_compose_with_an_explicit_state_dir_reads_its_run(
    run: Run, package: Path, project: Path, tmp_path: Path
) -> None:
    state = tmp_path / "elsewhere"
    state.mkdir()
    (state / "run.json").write_text(
        json.dumps({"schemaVersion": "1.0", "currentNodeId": None, "completed": True})
    )
    result = _compose(run, package, project, "--mode", "run", "--state", str(state), "--json")
    assert json.loads(result.out)["profile"] == "run-completed"
    assert str(state) not in result.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--mode", "agent", "--agent", "pm"), "has no agent 'pm'"),
        (("--mode", "run", "--node", "ship"), "has no node 'ship'"),
        (("--mode", "run", "--completed", "--node", "draft"), "leave out --node"),
        (("--mode", "run", "--node", "review", "--intent", "start"), "use intent continue"),
        (("--mode", "run", "--completed", "--intent", "start"), "this run is completed"),
        (("--mode", "agent", "--intent", "resume"), "belong to run mode"),
        (("--mode", "chat", "--completed"), "belong to run mode"),
        (("--mode", "agent", "--node", "draft"), "belong to run mode"),
    ],
)
def test_compose_bad_input_exits_2_with_a_message_and_writes_nothing(
    run: Run, package: Path, project: Path, args: tuple[str, ...], message: str
) -> None:
    before = snapshot_tree(project), snapshot_tree(package)
    result = _compose(run, package, project, *args)
    assert result.code == 2
    assert message in result.err
    assert "Traceback" not in result.err
    assert (snapshot_tree(project), snapshot_tree(package)) == before


def test_compose_on_an_invalid_package_exits_2_naming_the_field(
    run: Run, package: Path, project: Path
) -> None:
    data = json.loads((package / "agents.json").read_text(encoding="utf-8"))
    data["agents"][0]["tools"]["fs"]["maxReadBytes"] = "lots"
    (package / "agents.json").write_text(json.dumps(data), encoding="utf-8")
    result = _compose(run, package, project, "--mode", "chat")
    assert result.code == 2
    assert "agent 'analyst', field /agents/0/tools/fs/maxReadBytes" in result.err


def test_compose_on_an_invalid_run_state_exits_2(run: Run, package: Path, project: Path) -> None:
    _state(project, {"currentNodeId": 3, "completed": False})
    before = snapshot_tree(project), snapshot_tree(package)
    result = _compose(run, package, project, "--mode", "run")
    assert result.code == 2
    assert "field /currentNodeId" in result.err
    assert (snapshot_tree(project), snapshot_tree(package)) == before


def test_validate_reports_a_valid_package(run: Run, package: Path) -> None:
    result = run("workflow", "validate", "--package", str(package))
    assert result.code == 0
    assert "valid" in result.out


def test_validate_lists_every_problem_and_exits_2(run: Run, package: Path) -> None:
    data = json.loads((package / "agents.json").read_text(encoding="utf-8"))
    del data["agents"][1]["persona"]
    data["defaultAgentId"] = 7
    (package / "agents.json").write_text(json.dumps(data), encoding="utf-8")
    (package / "steps" / "03-review.md").unlink()
    result = run("workflow", "validate", "--package", str(package), "--json")
    assert result.code == 2
    out = json.loads(result.out)
    assert out["valid"] is False
    assert [(Path(p["file"]).name, p["agent"], p["pointer"]) for p in out["problems"]] == [
        ("agents.json", "reviewer", "/agents/1/persona"),
        ("agents.json", None, "/defaultAgentId"),
        ("workflow.graph.json", None, "/nodes/2/stepFile"),
    ]


def test_validate_text_output_goes_to_stderr_with_each_problem(run: Run, package: Path) -> None:
    (package / "workflow.graph.json").write_text("{", encoding="utf-8")
    result = run("workflow", "validate", "--package", str(package))
    assert result.code == 2
    assert "1 problem" in result.err
    assert "workflow.graph.json, field /: the file is not valid JSON" in result.err


def test_compose_hides_a_symlinked_project_in_both_spellings(
    run: Run, package: Path, project: Path, tmp_path: Path
) -> None:
    link = tmp_path / "link"
    link.symlink_to(project)
    text = f"see {link}/src/x.py and {project}/src/y.py and {project}.txt"
    result = _compose(run, package, link, "--mode", "chat", "--input", text)
    assert result.code == 0, result.err
    assert "see @project/src/x.py and @project/src/y.py and [hidden path]" in result.out
    assert str(link) not in result.out
    assert str(project) not in result.out


def test_compose_completed_without_saved_state_continues(
    run: Run, package: Path, project: Path
) -> None:
    out = json.loads(_compose(run, package, project, "--mode", "run", "--completed", "--json").out)
    assert (out["profile"], out["intent"]) == ("run-completed", "continue")


def test_compose_on_a_run_at_an_unknown_node_blames_the_state_file(
    run: Run, package: Path, project: Path
) -> None:
    _state(project, {"currentNodeId": "ghost", "completed": False})
    result = _compose(run, package, project, "--mode", "run")
    assert result.code == 2
    assert "run.json is not valid" in result.err
    assert "field /currentNodeId: the workflow graph" in result.err
    assert "or pass --node" in result.err
    assert _compose(run, package, project, "--mode", "run", "--node", "draft").code == 0


def test_compose_agent_mode_ignores_a_broken_run_state(
    run: Run, package: Path, project: Path
) -> None:
    _state(project, {"currentNodeId": 3})
    assert _compose(run, package, project, "--mode", "agent", "--input", "hi").code == 0


@pytest.mark.parametrize("same", ["project", "state"])
def test_compose_refuses_overlapping_mounts(
    run: Run, package: Path, project: Path, same: str
) -> None:
    if same == "project":
        result = _compose(run, package, package, "--mode", "chat")
        message = "@project and @pkg are the same directory"
    else:
        result = _compose(run, package, project, "--mode", "chat", "--state", str(project))
        message = "@project and @state are the same directory"
    assert result.code == 2
    assert message in result.err


def test_compose_agent_without_input_notes_that_there_is_no_user_message(
    run: Run, package: Path, project: Path
) -> None:
    result = _compose(run, package, project, "--mode", "agent")
    assert result.code == 0
    assert "note: no user input, so there is no user message" in result.err
    with_input = _compose(run, package, project, "--mode", "agent", "--input", "hi")
    assert "note:" not in with_input.err


def test_compose_json_names_each_sections_layer(run: Run, package: Path, project: Path) -> None:
    out = json.loads(_compose(run, package, project, "--mode", "run", "--input", "x", "--json").out)
    assert [(s["id"], s["layer"]) for s in out["sections"]] == [
        ("base_runtime_rules", "BaseRuntimeRules"),
        ("tool_policy", "ToolPolicy"),
        ("persona", "Persona"),
        ("run_directive", "RunDirective"),
        ("node_brief", "NodeBrief"),
        ("user_input", "UserInput"),
    ]
    assert out["total_tokens"] > 0 and "breakpoints" in out


def test_validate_reports_warnings_but_exits_0(run: Run, package: Path) -> None:
    data = json.loads((package / "workflow.graph.json").read_text(encoding="utf-8"))
    data["edges"].pop(1)
    (package / "workflow.graph.json").write_text(json.dumps(data), encoding="utf-8")
    result = run("workflow", "validate", "--package", str(package))
    assert result.code == 0
    assert "valid" in result.out
    assert "warning: " in result.err and "no run can reach node 'review'" in result.err
    out = json.loads(run("workflow", "validate", "--package", str(package), "--json").out)
    assert out["valid"] is True
    assert [p["severity"] for p in out["problems"]] == ["warning"]


def test_validate_reports_a_step_file_that_is_not_utf8(run: Run, package: Path) -> None:
    (package / "steps" / "02-draft.md").write_bytes(b"\xff\xfe")
    result = run("workflow", "validate", "--package", str(package))
    assert result.code == 2
    assert "/nodes/1/stepFile: the step file steps/02-draft.md is not UTF-8" in result.err
