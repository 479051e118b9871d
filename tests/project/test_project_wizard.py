"""The project wizard's suggestions and the ALLY.md it renders."""

from __future__ import annotations

from pathlib import Path

from agentprompt.project.detect import ProjectFacts, detect_project
from agentprompt.project.wizard import ProjectAnswers, render_ally_md, suggest_answers
from agentprompt.prompts.loader import PromptLibrary

FIXTURES = Path(__file__).parent / "fixtures"


def test_cargo_project_gets_cargo_commands() -> None:
    root = FIXTURES / "rust_cli"
    answers = suggest_answers(root, detect_project(root))
    assert (answers.build_command, answers.test_command, answers.lint_command) == (
        "cargo build",
        "cargo test",
        "cargo clippy",
    )
    assert answers.stack == "Rust • Tokio • cargo • Jenkins"


def test_makefile_targets_win_over_package_manager_commands(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("test: lint\n\tpytest\nlint:\n\truff check .\n")
    answers = suggest_answers(tmp_path, ProjectFacts(package_managers=("npm",)))
    assert answers.test_command == "make test"
    assert answers.lint_command == "make lint"
    assert answers.build_command == "npm run build"


def test_unknown_project_suggests_nothing(tmp_path: Path) -> None:
    assert suggest_answers(tmp_path, ProjectFacts()) == ProjectAnswers()


def test_empty_answers_leave_their_sections_out(tmp_path: Path) -> None:
    text = render_ally_md(
        ProjectAnswers(description="A CLI.", conventions=("  ", "Small modules")),
        PromptLibrary(tmp_path),
    )
    assert text == (
        "# Project Instructions\n\n"
        "These instructions apply to every task in this project and override general defaults.\n\n"
        "## Project\nA CLI.\n\n"
        "## Conventions\n- Small modules\n"
    )
