"""The ``agentprompt`` entry point: the command group and its error handling."""

from __future__ import annotations

import sys

import click

from agentprompt import __version__
from agentprompt.cli.apply import apply_command
from agentprompt.cli.inspect import inspect_command
from agentprompt.cli.map import map_command
from agentprompt.cli.output import EXIT_BAD_INPUT, err_console
from agentprompt.cli.parse import parse_command
from agentprompt.cli.prompts import prompts_group
from agentprompt.cli.select import select_command
from agentprompt.cli.sessions import sessions_group
from agentprompt.cli.tree import tree_command
from agentprompt.cli.workflow import workflow_group
from agentprompt.errors import AgentPromptError

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agentprompt")
def cli() -> None:
    """Build the prompts a coding assistant sends to a model, and apply its replies safely."""


cli.add_command(apply_command)
cli.add_command(inspect_command)
cli.add_command(parse_command)
cli.add_command(map_command)
cli.add_command(prompts_group)
cli.add_command(select_command)
cli.add_command(sessions_group)
cli.add_command(workflow_group)
cli.add_command(tree_command)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; bad input ends with a message on stderr and exit status 2."""
    try:
        cli.main(args=argv, prog_name="agentprompt", standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.Abort:
        err_console.print("agentprompt: aborted")
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_BAD_INPUT if exc.exit_code == 2 else exc.exit_code)
    except AgentPromptError as exc:
        err_console.print(f"agentprompt: error: {exc}", markup=False)
        sys.exit(EXIT_BAD_INPUT)
