"""``agentprompt commit-msg``: a commit message for the staged diff.

The model is named by ``--model``, ``$AGENTPROMPT_MODEL`` or the config file, as for every
command (:func:`~agentprompt.llm.model_from_environment`); ``--model script:FILE`` replays
the replies listed in a JSON file (no network). ``--print-prompt`` shows the request and
needs no model.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from agentprompt.cli._options import format_option, json_option, make_root_option
from agentprompt.cli._output import (
    EXIT_FAILED,
    err_console,
    print_json,
    printable,
    show_messages,
)
from agentprompt.commitmsg import commit_messages, get_commit_message, staged_diff
from agentprompt.llm import ModelSpec, model_from_environment
from agentprompt.wire import to_openai

__all__ = ["commit_msg_command"]


_ACTIONS = {
    "accepted": "the model's message was used as it was",
    "cleaned": "the model's message was cleaned up",
    "reasked": "the model's first message broke the format, so it was asked again once",
    "invalid": "the model's message still breaks the format after asking again once",
}


@click.command("commit-msg")
@make_root_option("The repository (default: the one around the cwd).", find_repository=True)
@click.option("--model", default=None, help="The model (script:FILE replays JSON replies).")
@click.option("--print-prompt", is_flag=True, help="Print the request instead of sending it.")
@format_option
@json_option()
def commit_msg_command(
    root: Path, model: str | None, print_prompt: bool, fmt: str, as_json: bool
) -> None:
    """Write a commit message for the staged diff."""
    base = root.resolve()
    diff = staged_diff(base)
    messages = commit_messages(diff, root=base)
    if print_prompt:
        if as_json:
            print_json({"messages": to_openai(messages)})
        else:
            show_messages(messages, fmt)
        return
    chosen = model_from_environment(
        ModelSpec(model=model),
        os.environ,
        needed_for="commit-msg",
        without="use {print_prompt} to see the request without one",
    )
    result = get_commit_message(diff, chosen.client, root=base)
    if as_json:
        print_json(
            {
                "message": result.text,
                "action": result.action,
                "cleanups": list(result.cleanups),
                "problems": list(result.problems),
                "replies": list(result.replies),
            }
        )
    else:
        click.echo(result.text)
        if result.action != "accepted":
            err_console.print(f"agentprompt: {_ACTIONS[result.action]}", markup=False)
        for cleanup in result.cleanups:
            err_console.print(f"  cleaned: {cleanup}", markup=False)
        for problem in result.problems:
            err_console.print(f"  problem: {printable(problem)}", markup=False)
    if result.action == "invalid":
        sys.exit(EXIT_FAILED)
