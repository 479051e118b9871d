"""The project wizard's content: answers in, a new ALLY.md out.

The questions are asked by ``agentprompt project init`` (or answered by its flags); this
module only suggests defaults from the detected project and renders the answers, so it is
a pure function a test can check byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentprompt.project.detect import ProjectFacts, project_summary
from agentprompt.prompts.loader import PromptLibrary

__all__ = ["ProjectAnswers", "render_ally_md", "suggest_answers"]

SUGGESTED_COMMANDS: dict[str, tuple[str | None, str | None, str | None]] = {
    "npm": ("npm run build", "npm test", "npm run lint"),
    "yarn": ("yarn build", "yarn test", "yarn lint"),
    "pnpm": ("pnpm build", "pnpm test", "pnpm lint"),
    "bun": ("bun run build", "bun test", "bun run lint"),
    "uv": (None, "uv run pytest", "uv run ruff check ."),
    "poetry": (None, "poetry run pytest", None),
    "pdm": (None, "pdm run pytest", None),
    "pipenv": (None, "pipenv run pytest", None),
    "hatch": (None, "hatch test", None),
    "pip": (None, "pytest", None),
    "cargo": ("cargo build", "cargo test", "cargo clippy"),
    "go modules": ("go build ./...", "go test ./...", "go vet ./..."),
    "bundler": (None, "bundle exec rake test", None),
    "composer": (None, "composer test", None),
    "maven": ("mvn package", "mvn test", None),
    "gradle": ("./gradlew build", "./gradlew test", None),
    "mix": ("mix compile", "mix test", None),
}
"""Per package manager: the usual build, test and lint commands (None: no usual one)."""


@dataclass(frozen=True, kw_only=True)
class ProjectAnswers:
    """What the wizard asks about a project."""

    description: str = ""
    """What the project is, in a sentence or two."""
    stack: str = ""
    """The detected stack on one line (``Python • FastAPI • uv``)."""
    build_command: str = ""
    """How to build it ("" when there is no build step)."""
    test_command: str = ""
    """How to run its tests."""
    lint_command: str = ""
    """How to lint or type-check it."""
    conventions: tuple[str, ...] = ()
    """Code conventions the agent must follow."""
    avoid: tuple[str, ...] = ()
    """Things the agent must never do in this project."""


def _has_make_target(root: Path, target: str) -> bool:
    try:
        text = (root / "Makefile").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.startswith(f"{target}:") for line in text.splitlines())


def suggest_answers(root: Path, facts: ProjectFacts) -> ProjectAnswers:
    """Default answers from the detected project: its stack line and the usual commands of
    its package manager, with Makefile targets preferred when present."""
    build = test = lint = ""
    for manager in facts.package_managers:
        b, t, li = SUGGESTED_COMMANDS.get(manager, (None, None, None))
        build, test, lint = build or (b or ""), test or (t or ""), lint or (li or "")
    for target in ("build", "test", "lint"):
        if _has_make_target(root, target):
            command = f"make {target}"
            if target == "build":
                build = command
            elif target == "test":
                test = command
            else:
                lint = command
    return ProjectAnswers(
        stack=project_summary(facts), build_command=build, test_command=test, lint_command=lint
    )


def _items(prompts: PromptLibrary, items: Sequence[str]) -> str:
    return "\n".join(
        prompts.render("context/ally_item", item=i.strip()) for i in items if i.strip()
    )


def render_ally_md(answers: ProjectAnswers, prompts: PromptLibrary) -> str:
    """The text of a new ALLY.md holding the answered sections (empty answers are left out),
    ending with a newline."""
    sections: list[tuple[str, str]] = []
    if answers.description.strip():
        sections.append(("Project", answers.description.strip()))
    if answers.stack.strip():
        sections.append(("Stack", answers.stack.strip()))
    commands = "\n".join(
        prompts.render("context/ally_command", purpose=purpose, command=command.strip())
        for purpose, command in (
            ("Build", answers.build_command),
            ("Test", answers.test_command),
            ("Lint", answers.lint_command),
        )
        if command.strip()
    )
    if commands:
        sections.append(("Commands", commands))
    if _items(prompts, answers.conventions):
        sections.append(("Conventions", _items(prompts, answers.conventions)))
    if _items(prompts, answers.avoid):
        sections.append(("Never", _items(prompts, answers.avoid)))
    body = "\n\n".join(
        prompts.render("context/ally_section", title=title, body=text) for title, text in sections
    )
    return prompts.render("context/ally_md", sections=body).rstrip("\n") + "\n"
