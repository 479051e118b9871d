"""``agentprompt commit-msg``: a commit message for the staged diff.

The model is named by ``--model`` or ``$AGENTPROMPT_MODEL``; :func:`resolve_chat_model`
turns the name into a chat model. ``--model script:FILE`` replays the replies listed in a
JSON file (no network). ``--print-prompt`` shows the request and needs no model.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from agentprompt.cli._options import json_option, make_root_option
from agentprompt.cli._output import (
    EXIT_FAILED,
    err_console,
    format_option,
    print_json,
    printable,
    show_messages,
)
from agentprompt.commitmsg import commit_messages, get_commit_message, staged_diff
from agentprompt.errors import UsageError
from agentprompt.llm.base import ModelClient
from agentprompt.llm.clients import make_client
from agentprompt.llm.config import resolve_model_config
from agentprompt.wire import to_openai

__all__ = ["ChatModelNotConfigured", "commit_msg_command", "resolve_chat_model"]

MODEL_ENV = "AGENTPROMPT_MODEL"
"""The environment variable naming the model when ``--model`` is not given."""

SCRIPT_PREFIX = "script:"
"""``--model script:FILE`` replays the replies listed in the JSON file FILE, in order."""


class ChatModelNotConfigured(UsageError):
    """No usable chat model is named."""


def resolve_chat_model(name: str | None) -> ModelClient:
    """The chat model ``name`` (or ``$AGENTPROMPT_MODEL``) names: ``openai:M``,
    ``anthropic:M`` or ``script:FILE`` (a JSON list of replies, no network), through the same
    configuration as every other command (:mod:`agentprompt.llm.config`)."""
    chosen = name or os.environ.get(MODEL_ENV, "").strip()
    if not chosen:
        raise ChatModelNotConfigured(
            f"commit-msg needs a model: pass '--model openai:MODEL', '--model anthropic:MODEL' or "
            f"'--model {SCRIPT_PREFIX}FILE' (or set {MODEL_ENV}), or use --print-prompt to see "
            "the request without one"
        )
    return make_client(resolve_model_config(chosen))


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
    client = resolve_chat_model(model)
    result = get_commit_message(diff, client, root=base)
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
