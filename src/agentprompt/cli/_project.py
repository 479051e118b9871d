"""``agentprompt project``: the project instruction files.

``init`` writes ALLY.md from the wizard's answers (asked interactively on a terminal, or
given as flags), ``show`` prints the instruction files the agent would read and ``edit``
opens ALLY.md in the editor or appends to it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agentprompt.cli._options import json_option, make_root_option
from agentprompt.cli._output import console, err_console, print_json, printable
from agentprompt.context.instructions import (
    DEFAULT_INSTRUCTION_FILES,
    DEFAULT_MAX_INSTRUCTION_BYTES,
    PRIMARY_FILE,
    InstructionError,
    load_instructions,
)
from agentprompt.context.project import detect_project
from agentprompt.context.wizard import ProjectAnswers, render_ally_md, suggest_answers
from agentprompt.errors import UsageError
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.tools.instructions_tool import append_instruction, write_instructions

__all__ = ["project_group"]

_root_option = make_root_option(
    "The project (default: the repository around the cwd).", find_repository=True
)


@click.group("project")
def project_group() -> None:
    """The project's instruction files (ALLY.md, AGENTS.md, CLAUDE.md)."""


def _ask_list(question: str, defaults: tuple[str, ...]) -> tuple[str, ...]:
    """Ask for items one per line until an empty answer."""
    click.echo(f"{question} (one per answer, empty to finish)")
    items = list(defaults)
    while True:
        item = click.prompt(" ", default="", show_default=False).strip()
        if not item:
            return tuple(items)
        items.append(item)


def _interview(answers: ProjectAnswers) -> ProjectAnswers:
    """Ask each question with the current answer as the default."""
    click.echo("Project wizard: answer each question, or press Enter to keep the suggestion.")

    def ask(question: str, default: str) -> str:
        return str(click.prompt(question, default=default, show_default=bool(default))).strip()

    return ProjectAnswers(
        description=ask("What is this project?", answers.description),
        stack=ask("Stack", answers.stack),
        build_command=ask("Build command", answers.build_command),
        test_command=ask("Test command", answers.test_command),
        lint_command=ask("Lint command", answers.lint_command),
        conventions=_ask_list("Code conventions to follow", answers.conventions),
        avoid=_ask_list("Things the agent must never do", answers.avoid),
    )


@project_group.command("init")
@_root_option
@click.option("--description", default=None, help="What the project is.")
@click.option("--build-command", default=None, help="How to build it.")
@click.option("--test-command", default=None, help="How to run its tests.")
@click.option("--lint-command", default=None, help="How to lint it.")
@click.option("--convention", "conventions", multiple=True, help="A convention (repeatable).")
@click.option("--avoid", multiple=True, help="Something never to do (repeatable).")
@click.option(
    "--interactive/--no-interactive",
    default=None,
    help="Ask the wizard's questions (default: only on a terminal).",
)
@click.option("--force", is_flag=True, help="Replace an existing ALLY.md.")
@click.option("--dry-run", is_flag=True, help="Print the file instead of writing it.")
@json_option()
def init_command(
    root: Path,
    description: str | None,
    build_command: str | None,
    test_command: str | None,
    lint_command: str | None,
    conventions: tuple[str, ...],
    avoid: tuple[str, ...],
    interactive: bool | None,
    force: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Create ALLY.md with the project wizard; detected facts are the suggestions."""
    where = root.resolve()
    target = where / PRIMARY_FILE
    if target.exists() and not force and not dry_run:
        raise UsageError(
            f"{target} already exists; use 'agentprompt project edit' to change it, "
            "or --force to replace it"
        )
    suggested = suggest_answers(where, detect_project(where))
    answers = ProjectAnswers(
        description=description if description is not None else suggested.description,
        stack=suggested.stack,
        build_command=build_command if build_command is not None else suggested.build_command,
        test_command=test_command if test_command is not None else suggested.test_command,
        lint_command=lint_command if lint_command is not None else suggested.lint_command,
        conventions=conventions,
        avoid=avoid,
    )
    if interactive is None:
        interactive = sys.stdin.isatty() and not as_json
    if interactive:
        answers = _interview(answers)
    if not any(
        (answers.description, answers.stack, answers.build_command, answers.test_command)
    ) and not (answers.lint_command or answers.conventions or answers.avoid):
        raise UsageError(
            "nothing to write: no project was detected and no answer was given; pass "
            "--description (and commands or conventions), or run with --interactive"
        )
    text = render_ally_md(answers, PromptLibrary(where))
    if dry_run:
        if as_json:
            print_json({"path": str(target), "written": False, "content": text})
        else:
            sys.stdout.write(printable(text))
        return
    path = write_instructions(where, text)
    if as_json:
        print_json({"path": str(path), "written": True, "content": text})
    else:
        console.print(f"Wrote {printable(str(path))}", markup=False)


@project_group.command("show")
@_root_option
@click.option(
    "--cwd",
    "cwd",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="The working directory the agent runs in (default: the current one if inside ROOT).",
)
@click.option(
    "--max-bytes",
    type=click.IntRange(min=0),
    default=DEFAULT_MAX_INSTRUCTION_BYTES,
    show_default=True,
    help="The size cap on the instruction text.",
)
@click.option(
    "--file",
    "names",
    multiple=True,
    help="Instruction file names to read, in order (default: $AGENTPROMPT_INSTRUCTION_FILES, "
    "else " + ", ".join(DEFAULT_INSTRUCTION_FILES) + ").",
)
@json_option()
def show_command(
    root: Path, cwd: Path | None, max_bytes: int, names: tuple[str, ...], as_json: bool
) -> None:
    """The instruction files the agent reads here, as the prompt includes them."""
    where = root.resolve()
    here = cwd.resolve() if cwd else Path.cwd().resolve()
    if cwd is None and not here.is_relative_to(where):
        here = where
    found = load_instructions(where, here, max_bytes=max_bytes, names=names or None)
    if as_json:
        print_json(
            {
                "root": str(where),
                "cwd": str(here),
                "files": [
                    {"name": f.name, "path": str(f.path), "text": f.text, "omitted": f.omitted}
                    for f in found.files
                ],
                "problems": list(found.problems),
            }
        )
        return
    for problem in found.problems:
        err_console.print(f"agentprompt: warning: {printable(problem)}", markup=False)
    if found.empty:
        console.print(
            f"No project instructions in {printable(str(here))}. "
            "Create ALLY.md with 'agentprompt project init'.",
            markup=False,
        )
        return
    for f in found.files:
        console.print(f"── {printable(f.name)} ──", style="bold", markup=False)
        console.print(printable(f.text), markup=False)
        if f.omitted:
            console.print(f"[{f.omitted} more bytes not included]", style="dim", markup=False)


@project_group.command("edit")
@_root_option
@click.option("--append", "addition", default=None, help="Append this text instead of editing.")
@json_option()
def edit_command(root: Path, addition: str | None, as_json: bool) -> None:
    """Open ALLY.md in $EDITOR (created if missing), or append text to it with --append."""
    where = root.resolve()
    target = where / PRIMARY_FILE
    if addition is not None:
        path = append_instruction(where, addition)
        _report(path, True, as_json)
        return
    try:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise InstructionError(f"cannot edit {target}: {exc}") from None
    edited = click.edit(current, extension=".md", require_save=True)
    if edited is None or edited == current:
        _report(target, False, as_json)
        return
    path = write_instructions(where, edited)
    _report(path, True, as_json)


def _report(path: Path, written: bool, as_json: bool) -> None:
    if as_json:
        print_json({"path": str(path), "written": written})
    elif written:
        console.print(f"Wrote {printable(str(path))}", markup=False)
    else:
        console.print(f"No change to {printable(str(path))}", markup=False)
