"""The ``agentprompt`` entry point: the command group and its error handling."""

from __future__ import annotations

import importlib
import sys

import click

from agentprompt import __version__
from agentprompt.cli._output import EXIT_BAD_INPUT, err_console, flag_name, print_json
from agentprompt.errors import AgentPromptError

__all__ = ["COMMANDS", "LazyGroup", "cli", "main"]


# Each command's module is imported only when that command runs (or help lists it), so
# starting one command does not load every engine.
COMMANDS = {
    "apply": "agentprompt.cli._apply:apply_command",
    "bridge": "agentprompt.cli._bridge:bridge_group",
    "chat": "agentprompt.cli._chat:chat_command",
    "commit-msg": "agentprompt.cli._commit_msg:commit_msg_command",
    "inspect": "agentprompt.cli._inspect:inspect_command",
    "map": "agentprompt.cli._map:map_command",
    "mcp": "agentprompt.cli._mcp:mcp_command",
    "pack": "agentprompt.cli._pack:pack_command",
    "parse": "agentprompt.cli._parse:parse_command",
    "project": "agentprompt.cli._project:project_group",
    "rank": "agentprompt.cli._rank:rank_command",
    "prompts": "agentprompt.cli._prompts:prompts_group",
    "run": "agentprompt.cli._chat:run_command",
    "select": "agentprompt.cli._select:select_command",
    "sessions": "agentprompt.cli._sessions:sessions_group",
    "snippets": "agentprompt.cli._snippets:snippets_command",
    "tiers": "agentprompt.cli._tiers:tiers_command",
    "tree": "agentprompt.cli._tree:tree_command",
    "ui": "agentprompt.cli._ui:ui_command",
    "workflow": "agentprompt.cli._workflow:workflow_group",
}


class LazyGroup(click.Group):
    """A command group that imports a command's module when the command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, sorted."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command called ``cmd_name``, imported on first use; None if there is none."""
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agentprompt")
def cli() -> None:
    """Build the prompts a coding assistant sends to a model, and apply its replies safely."""


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
        # One line, as for agentprompt's own errors: no usage block, no hint (--help has
        # them); the message names the option and the value.
        message = " ".join(exc.format_message().split())
        err_console.print(f"agentprompt: error: {message}", markup=False, highlight=False)
        sys.exit(EXIT_BAD_INPUT if exc.exit_code == 2 else exc.exit_code)
    except AgentPromptError as exc:
        message = exc.worded(flag_name)
        err_console.print(f"agentprompt: error: {message}", markup=False)
        if _wants_json(argv) and not exc.json_reported:
            # A script reading --json output gets the error as JSON too (the stderr line
            # stays, as for every command); a command that printed its own report says so.
            print_json({"error": message})
        sys.exit(EXIT_BAD_INPUT)


def _wants_json(argv: list[str] | None) -> bool:
    """Whether the command line asked for JSON output (``--json`` before any ``--``)."""
    args = sys.argv[1:] if argv is None else argv
    return "--json" in args[: args.index("--")] if "--" in args else "--json" in args
