"""``agentprompt project init|show|edit``: the wizard, the files shown, editing and appending."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from .conftest import Result, snapshot_tree

Run = Callable[..., Result]
FIXTURES = Path(__file__).parents[1] / "project" / "fixtures"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "inventory"
    shutil.copytree(FIXTURES / "python_uv", root)
    return root


def test_init_writes_ally_md_from_flags_and_detected_facts(run: Run, project: Path) -> None:
    result = run(
        "project",
        "init",
        "--root",
        str(project),
        "--description",
        "Inventory service.",
        "--convention",
        "Type hints everywhere",
        "--avoid",
        "Editing uv.lock by hand",
    )
    assert result.code == 0, result.err
    assert (project / "ALLY.md").read_text() == (
        "# Project Instructions\n\n"
        "These instructions apply to every task in this project and override general defaults.\n\n"
        "## Project\nInventory service.\n\n"
        "## Stack\nPython • FastAPI • Pydantic • pytest • uv • Docker • GitLab CI\n\n"
        "## Commands\n- Test: `uv run pytest`\n- Lint: `uv run ruff check .`\n\n"
        "## Conventions\n- Type hints everywhere\n\n"
        "## Never\n- Editing uv.lock by hand\n"
    )


def test_init_refuses_to_replace_an_existing_file(run: Run, project: Path) -> None:
    (project / "ALLY.md").write_text("mine\n")
    result = run("project", "init", "--root", str(project), "--description", "x")
    assert result.code == 2
    assert "already exists" in result.err
    assert "Traceback" not in result.err
    assert (project / "ALLY.md").read_text() == "mine\n"


def test_init_force_replaces(run: Run, project: Path) -> None:
    (project / "ALLY.md").write_text("mine\n")
    result = run("project", "init", "--root", str(project), "--description", "New.", "--force")
    assert result.code == 0
    assert "## Project\nNew." in (project / "ALLY.md").read_text()


def test_init_dry_run_prints_and_writes_nothing(run: Run, project: Path) -> None:
    before = snapshot_tree(project)
    result = run("project", "init", "--root", str(project), "--description", "D.", "--dry-run")
    assert result.code == 0
    assert result.out.startswith("# Project Instructions\n")
    assert snapshot_tree(project) == before


def test_init_json(run: Run, project: Path) -> None:
    result = run("project", "init", "--root", str(project), "--description", "D.", "--json")
    data = json.loads(result.out)
    assert data["written"] is True
    assert data["path"] == str(project.resolve() / "ALLY.md")
    assert "## Project\nD." in data["content"]


def test_init_with_nothing_to_say_is_bad_input(run: Run, tmp_path: Path) -> None:
    result = run("project", "init", "--root", str(tmp_path), "--no-interactive")
    assert result.code == 2
    assert "nothing to write" in result.err
    assert not (tmp_path / "ALLY.md").exists()


def test_interactive_wizard_asks_with_suggestions(
    run: Run, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = "A stock tracker.\n\n\n\nmake check\nNo print debugging\n\nNever push\n\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    result = run("project", "init", "--root", str(project), "--interactive")
    assert result.code == 0, result.err
    text = (project / "ALLY.md").read_text()
    assert "## Project\nA stock tracker." in text
    assert "- Test: `uv run pytest`" in text
    assert "- Lint: `make check`" in text
    assert "## Conventions\n- No print debugging" in text
    assert "## Never\n- Never push" in text
    assert "What is this project?" in result.out


def test_show_prints_each_file_by_name(run: Run, project: Path) -> None:
    (project / "ALLY.md").write_text("Use uv.\n")
    (project / "AGENTS.md").write_text("Agents rule.\n")
    result = run("project", "show", "--root", str(project), "--cwd", str(project))
    assert result.code == 0
    assert "ALLY.md" in result.out and "Use uv." in result.out
    assert "AGENTS.md" in result.out and "Agents rule." in result.out


def test_show_json_lists_files_and_problems(run: Run, project: Path) -> None:
    (project / "ALLY.md").write_text("[bold]not markup[/bold]\n")
    (project / "CLAUDE.md").write_bytes(b"\xff")
    result = run("project", "show", "--root", str(project), "--cwd", str(project), "--json")
    data = json.loads(result.out)
    assert [f["name"] for f in data["files"]] == ["ALLY.md"]
    assert data["files"][0]["text"] == "[bold]not markup[/bold]"
    assert data["problems"] == ["CLAUDE.md: is not UTF-8 text (byte 0); save it as UTF-8"]


def test_show_without_files_says_how_to_create_one(run: Run, tmp_path: Path) -> None:
    result = run("project", "show", "--root", str(tmp_path), "--cwd", str(tmp_path))
    assert result.code == 0
    assert "agentprompt project init" in result.out


def test_edit_append_adds_text(run: Run, project: Path) -> None:
    (project / "ALLY.md").write_text("One.\n")
    result = run("project", "edit", "--root", str(project), "--append", "Two.")
    assert result.code == 0
    assert (project / "ALLY.md").read_text() == "One.\n\nTwo.\n"


def test_edit_append_empty_is_bad_input_and_changes_nothing(run: Run, project: Path) -> None:
    (project / "ALLY.md").write_text("One.\n")
    result = run("project", "edit", "--root", str(project), "--append", "  ")
    assert result.code == 2
    assert "empty" in result.err
    assert (project / "ALLY.md").read_text() == "One.\n"


def test_edit_writes_what_the_editor_saved(
    run: Run, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "ALLY.md").write_text("Old.\n")
    seen: list[str] = []

    def fake_edit(text: str, **_: object) -> str:
        seen.append(text)
        return "New rules.\n"

    monkeypatch.setattr(click, "edit", fake_edit)
    result = run("project", "edit", "--root", str(project))
    assert result.code == 0
    assert seen == ["Old.\n"]
    assert (project / "ALLY.md").read_text() == "New rules.\n"


def test_edit_closed_without_saving_changes_nothing(
    run: Run, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(click, "edit", lambda text, **_: None)
    result = run("project", "edit", "--root", str(project))
    assert result.code == 0
    assert "No change" in result.out
    assert not (project / "ALLY.md").exists()
