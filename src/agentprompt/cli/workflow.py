"""``agentprompt workflow``: compose the workflow runtime's messages, validate a package."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from agentprompt.cli.output import EXIT_BAD_INPUT, console, err_console, print_json, printable
from agentprompt.wire import to_anthropic, to_openai, to_text
from agentprompt.workflow.compose import compose_workflow, profile_name
from agentprompt.workflow.inputs import INTENTS, MODES, Intent, Mode
from agentprompt.workflow.package import load_package, package_problems
from agentprompt.workflow.runtime import build_compose_input

__all__ = ["workflow_group"]

_DIR = click.Path(exists=True, file_okay=False, path_type=Path)


@click.group("workflow")
def workflow_group() -> None:
    """The workflow runtime composer (seed 002): run, agent and chat modes over a package."""


@workflow_group.command("compose")
@click.option("--package", "package_dir", type=_DIR, required=True, help="The workflow package.")
@click.option("--project", "project_dir", type=_DIR, required=True, help="The user's project.")
@click.option("--mode", type=click.Choice(MODES), required=True, help="run, agent or chat.")
@click.option("--agent", "agent_id", default=None, help="Agent id (default: the package's).")
@click.option("--node", "node_id", default=None, help="Node id (default: the run's or entry).")
@click.option(
    "--intent",
    type=click.Choice(INTENTS),
    default=None,
    help="Why the run turn is composed (default: start, or continue when a run is saved).",
)
@click.option("--completed", is_flag=True, help="The run is completed (post-completion profile).")
@click.option("--input", "user_input", default="", help="The user's text (empty: no layer).")
@click.option(
    "--state",
    "state_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The run state directory (default: PROJECT/.agentprompt/workflow/PACKAGE-ID).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "openai", "anthropic"]),
    default="text",
    help="How to show the messages.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def compose_command(
    package_dir: Path,
    project_dir: Path,
    mode: Mode,
    agent_id: str | None,
    node_id: str | None,
    intent: Intent | None,
    completed: bool,
    user_input: str,
    state_dir: Path | None,
    fmt: str,
    as_json: bool,
) -> None:
    """Print the messages the workflow runtime sends to the model for one turn."""
    package = load_package(package_dir.resolve())
    data = build_compose_input(
        package,
        mode=mode,
        project_root=project_dir.resolve(),
        state_dir=state_dir.resolve() if state_dir else None,
        agent_id=agent_id,
        node_id=node_id,
        intent=intent,
        completed=completed,
        user_input=user_input,
    )
    comp = compose_workflow(data)
    if as_json:
        out: dict[str, Any] = {
            "package": package.id,
            "mode": data.mode,
            "profile": profile_name(data),
            "agent": data.agent_definition.id,
            "node": data.run_state.current_node_id,
            "intent": data.intent if data.mode == "run" else None,
            "completed": data.run_state.completed,
            "total_tokens": comp.total_tokens,
            "sections": [
                {
                    "id": s.id,
                    "role": s.role,
                    "stability": s.stability.name.lower(),
                    "tokens": s.tokens,
                }
                for s in comp.sections
            ],
            "messages": to_openai(comp.messages),
        }
        if fmt == "anthropic":
            out["anthropic"] = to_anthropic(comp.messages)
        print_json(out)
    elif fmt == "openai":
        print_json(to_openai(comp.messages))
    elif fmt == "anthropic":
        print_json(to_anthropic(comp.messages))
    else:
        console.print(printable(to_text(comp.messages)), markup=False, end="")


@workflow_group.command("validate")
@click.option("--package", "package_dir", type=_DIR, required=True, help="The workflow package.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def validate_command(package_dir: Path, as_json: bool) -> None:
    """Check a package's agents.json and workflow.graph.json; list every problem found."""
    problems = package_problems(package_dir)
    if as_json:
        print_json(
            {
                "package": str(package_dir),
                "valid": not problems,
                "problems": [
                    {
                        "file": str(p.file),
                        "pointer": p.pointer,
                        "agent": p.agent,
                        "message": p.message,
                    }
                    for p in problems
                ],
            }
        )
    elif not problems:
        console.print(f"{package_dir}: valid (agents.json and workflow.graph.json)", markup=False)
    else:
        noun = "problem" if len(problems) == 1 else "problems"
        err_console.print(f"{package_dir}: {len(problems)} {noun}", markup=False)
        for p in problems:
            err_console.print(f"  - {p.describe()}", markup=False)
    if problems:
        sys.exit(EXIT_BAD_INPUT)
