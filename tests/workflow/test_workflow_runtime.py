"""build_compose_input: the defaults a turn is composed with, and the runtime store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentprompt.errors import UsageError
from agentprompt.workflow import (
    RunState,
    RuntimeStore,
    build_compose_input,
    compose_turn,
    load_package,
    save_run_state,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project."""
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_a_new_run_starts_at_the_entry_node_with_the_default_agent(
    package_copy: Path, project: Path
) -> None:
    data = build_compose_input(load_package(package_copy), mode="run", project_root=project)
    assert data.agent_definition.id == "analyst"
    assert data.run_state == RunState(current_node_id="gather")
    assert data.node_brief is not None and data.node_brief.node_id == "gather"
    assert data.intent == "start"
    assert data.state_dir == project / ".agentprompt" / "workflow" / "feature-brief"


def test_a_saved_run_continues_at_its_current_node(package_copy: Path, project: Path) -> None:
    package = load_package(package_copy)
    state = project / "state"
    save_run_state(state, RunState(current_node_id="review", variables={"n": 1}))
    data = build_compose_input(package, mode="run", project_root=project, state_dir=state)
    assert data.run_state == RunState(current_node_id="review", variables={"n": 1})
    assert data.intent == "continue"


def test_a_saved_completed_run_gives_the_post_completion_profile(
    package_copy: Path, project: Path
) -> None:
    package = load_package(package_copy)
    save_run_state(project / "s", RunState(completed=True))
    data = build_compose_input(package, mode="run", project_root=project, state_dir=project / "s")
    assert data.run_state.completed and data.node_brief is None
    assert data.run_state.current_node_id is None


def test_a_node_given_for_a_completed_run_is_refused(package_copy: Path, project: Path) -> None:
    with pytest.raises(UsageError, match="leave out --node"):
        build_compose_input(
            load_package(package_copy),
            mode="run",
            project_root=project,
            node_id="draft",
            completed=True,
        )


def test_an_unknown_node_is_refused(package_copy: Path, project: Path) -> None:
    with pytest.raises(UsageError):
        build_compose_input(
            load_package(package_copy), mode="run", project_root=project, node_id="ship"
        )


def test_relative_directories_are_made_absolute(
    package_copy: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.parent)
    package = load_package(Path(os.path.relpath(package_copy, project.parent)))
    data = build_compose_input(package, mode="chat", project_root=Path("project"))
    assert data.project_root == project
    assert data.package_root == package_copy


def test_the_store_serves_the_graph_and_the_whole_package(package_copy: Path) -> None:
    store = RuntimeStore({"brief": package_copy})
    assert store.get_graph("brief").entry_node_id == "gather"
    package = store.get_package("brief")
    assert (package.id, package.root) == ("brief", package_copy)
    assert store.package_ids() == ["brief"]


def test_a_run_marked_completed_without_saved_state_continues(
    package_copy: Path, project: Path
) -> None:
    data = build_compose_input(
        load_package(package_copy), mode="run", project_root=project, completed=True
    )
    assert (data.intent, data.run_state.completed) == ("continue", True)


@pytest.mark.parametrize("extra", [{"node_id": "draft"}, {"intent": "resume"}, {"completed": True}])
@pytest.mark.parametrize("mode", ["agent", "chat"])
def test_run_options_are_refused_outside_run_mode(
    package_copy: Path, project: Path, mode: str, extra: dict[str, object]
) -> None:
    with pytest.raises(UsageError, match="belong to run mode"):
        build_compose_input(
            load_package(package_copy),
            mode=mode,  # type: ignore[arg-type]
            project_root=project,
            **extra,  # type: ignore[arg-type]
        )


@pytest.mark.parametrize("mode", ["agent", "chat"])
def test_agent_and_chat_do_not_read_the_run_state(
    package_copy: Path, project: Path, mode: str
) -> None:
    state = project / "state"
    state.mkdir()
    (state / "run.json").write_text("{ not json")
    data = build_compose_input(
        load_package(package_copy),
        mode=mode,  # type: ignore[arg-type]
        project_root=project,
        state_dir=state,
    )
    assert data.run_state == RunState()


def test_compose_turn_loads_the_package_and_composes(package_copy: Path, project: Path) -> None:
    turn = compose_turn(package_copy, mode="run", project_root=project, user_input="Go")
    assert (turn.profile, turn.package.id) == ("run", "feature-brief")
    assert [m.role for m in turn.composition.messages] == ["system", "user"]
