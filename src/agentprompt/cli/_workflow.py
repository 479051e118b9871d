"""``agentprompt workflow``: compose the workflow runtime's messages, validate a package."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from agentprompt.cli._inspect import report_json
from agentprompt.cli._options import format_option, json_option
from agentprompt.cli._output import (
    EXIT_BAD_INPUT,
    console,
    err_console,
    print_json,
    show_messages,
)
from agentprompt.profiles import InspectReport
from agentprompt.workflow.compose import LAYER_NAMES
from agentprompt.workflow.inputs import INTENTS, MODES, Intent, Mode
from agentprompt.workflow.package import package_problems
from agentprompt.workflow.runtime import WorkflowTurn, compose_turn

__all__ = ["workflow_group"]

_DIR = click.Path(exists=True, file_okay=False, path_type=Path)


@click.group("workflow")
def workflow_group() -> None:
    """The workflow runtime composer: run, agent and chat modes over a package."""


def _turn_json(turn: WorkflowTurn, fmt: str) -> dict[str, Any]:
    data = turn.data
    report = report_json(InspectReport(profile=turn.profile, composition=turn.composition), fmt)
    for section in report["sections"]:
        section["layer"] = LAYER_NAMES.get(section["id"])
    return {
        "package": turn.package.id,
        "mode": data.mode,
        "agent": data.agent_definition.id,
        "node": data.run_state.current_node_id,
        "intent": data.intent if data.mode == "run" else None,
        "completed": data.run_state.completed,
        **report,
    }


@workflow_group.command("compose")
@click.option("--package", "package_dir", type=_DIR, required=True, help="The workflow package.")
@click.option("--project", "project_dir", type=_DIR, required=True, help="The user's project.")
@click.option("--mode", type=click.Choice(MODES), required=True, help="run, agent or chat.")
@click.option("--agent", "agent_id", default=None, help="Agent id (default: the package's).")
@click.option(
    "--node", "node_id", default=None, help="Run mode: node id (default: saved or entry)."
)
@click.option(
    "--intent",
    type=click.Choice(INTENTS),
    default=None,
    help="Run mode: why the turn is composed (default: start, or continue for a saved or "
    "completed run).",
)
@click.option("--completed", is_flag=True, help="Run mode: the run is completed.")
@click.option("--input", "user_input", default="", help="The user's text (empty: no layer).")
@click.option(
    "--state",
    "state_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The run state directory (default: PROJECT/.agentprompt/workflow/PACKAGE-ID).",
)
@format_option
@json_option()
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
    turn = compose_turn(
        package_dir,
        mode=mode,
        project_root=project_dir,
        state_dir=state_dir,
        agent_id=agent_id,
        node_id=node_id,
        intent=intent,
        completed=completed,
        user_input=user_input,
    )
    messages = turn.composition.messages
    if not any(m.role == "user" for m in messages):
        err_console.print(
            "note: no user input, so there is no user message; APIs that need one (Anthropic's) "
            "reject this request: pass --input",
            markup=False,
        )
    if as_json:
        print_json(_turn_json(turn, fmt))
    else:
        show_messages(messages, fmt)


@workflow_group.command("validate")
@click.option("--package", "package_dir", type=_DIR, required=True, help="The workflow package.")
@json_option()
def validate_command(package_dir: Path, as_json: bool) -> None:
    """Check a package's agents.json and workflow.graph.json; list every problem found.

    Warnings (a node no run can reach) are listed but do not make the package invalid.
    """
    problems = package_problems(package_dir)
    errors = [p for p in problems if p.severity == "error"]
    if as_json:
        print_json(
            {
                "package": str(package_dir),
                "valid": not errors,
                "problems": [
                    {
                        "file": str(p.file),
                        "pointer": p.pointer,
                        "agent": p.agent,
                        "severity": p.severity,
                        "message": p.message,
                    }
                    for p in problems
                ],
            }
        )
    else:
        if not errors:
            console.print(
                f"{package_dir}: valid (agents.json and workflow.graph.json)", markup=False
            )
        else:
            noun = "problem" if len(errors) == 1 else "problems"
            err_console.print(f"{package_dir}: {len(errors)} {noun}", markup=False)
        for p in problems:
            err_console.print(f"  - {p.describe()}", markup=False)
    if errors:
        sys.exit(EXIT_BAD_INPUT)
