"""``agentprompt pack``: start a bridge session, or print the current prompt of the one in
progress (never advancing it), split, copied or in an API's wire form."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import click

from agentprompt.bridge.context import resolve_paths, view_repository
from agentprompt.bridge.pack import build_prompt
from agentprompt.bridge.split import DEFAULT_SPLIT_CHARS
from agentprompt.bridge.state import BridgeState, load_session, save_state, start_session
from agentprompt.bridge.text import LANGS, default_lang
from agentprompt.cli.bridge import deliver, part_command
from agentprompt.cli.options import include_generated_option, root_option
from agentprompt.cli.output import err_console, print_json
from agentprompt.cli.tree import generated_summary
from agentprompt.errors import UsageError
from agentprompt.wire import to_anthropic, to_openai

__all__ = ["pack_command"]


@click.command("pack")
@click.argument("paths", nargs=-1)
@root_option
@click.option(
    "--task",
    help="Start a new session with this task (its PATHS, mode, language and limits are kept "
    "for its later prompts); without it, print the current prompt of the session in progress.",
)
@click.option("--mode", type=click.Choice(["browse", "edit"]), help="Browse or edit mode.")
@click.option("--lang", type=click.Choice(LANGS), help="The prompt's language (default: locale).")
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    metavar="N",
    help="Fit the prompt to N tokens (lowest-ranked files lose content first).",
)
@click.option(
    "--split-chars",
    type=click.IntRange(min=1),
    metavar="N",
    help=f"Split into parts of at most N characters, header included (default "
    f"{DEFAULT_SPLIT_CHARS}).",
)
@click.option(
    "--split-tokens",
    type=click.IntRange(min=1),
    metavar="N",
    help="Split into parts of at most N tokens, header included.",
)
@click.option("--copy", is_flag=True, help="Copy the part (default 1) to the clipboard.")
@click.option("--part", type=int, metavar="K", help="Print (or with --copy, copy) only part K.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "openai", "anthropic"]),
    default="text",
    help="Pasteable text, JSON, or OpenAI/Anthropic messages.",
)
@include_generated_option
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
def pack_command(
    paths: tuple[str, ...],
    root: Path,
    task: str | None,
    mode: str | None,
    lang: str | None,
    max_tokens: int | None,
    split_chars: int | None,
    split_tokens: int | None,
    copy: bool,
    part: int | None,
    fmt: str,
    include_generated: bool,
    as_json: bool,
) -> None:
    """Pack the repository into a prompt for a web chat model (PATHS: files or folders to
    show in full, in edit mode).

    On a session in progress, --lang, --max-tokens, --split-chars/--split-tokens and
    --include-generated given here are stored for the session: the next apply's prompt uses
    them too. The round does
    not move, so running pack twice prints the same prompt."""
    if not root.is_dir():
        raise UsageError(f"--root {root} is not a directory; give the repository root")
    if split_chars is not None and split_tokens is not None:
        raise UsageError("give --split-chars or --split-tokens, not both")
    if as_json:
        fmt = "json"
    if fmt != "text" and (copy or part is not None):
        raise UsageError(
            f"--copy and --part take one part of the pasteable text; --format {fmt} prints "
            "the whole prompt (its parts included in json); drop one of them"
        )
    session_id = None
    stored: BridgeState | None = None
    if task is not None:
        if not task.strip():
            raise UsageError("--task is empty; say what the model should do")
        view = view_repository(root, include_generated=include_generated)
        state = BridgeState.starting(
            task,
            resolve_paths(view, paths),
            mode=mode,
            lang=lang or default_lang(os.environ),
            max_tokens=max_tokens,
            split_chars=split_chars,
            split_tokens=split_tokens,
            include_generated=include_generated,
        )
    else:
        if paths or mode:
            raise UsageError(
                "PATHS and --mode start a new session; give --task too (without --task, "
                "pack prints the current prompt of the session in progress)"
            )
        session_id, stored = load_session(root)
        state = stored
        if split_chars is not None or split_tokens is not None:
            state = replace(state, split_chars=split_chars, split_tokens=split_tokens)
        state = replace(
            state,
            lang=lang or state.lang,
            max_tokens=max_tokens if max_tokens is not None else state.max_tokens,
            include_generated=include_generated or state.include_generated,
        )
        view = view_repository(root, include_generated=state.include_generated)
    prompt = build_prompt(root, state, view=view)
    # The model sees this prompt: the files it holds in full are ones a reply may rewrite.
    state = state.with_shown(prompt.shown_in_full)
    if part is not None and not 1 <= part <= len(prompt.parts):
        raise UsageError(
            f"--part {part} is out of range: this prompt has {len(prompt.parts)} part(s)"
        )
    if session_id is None:
        start_session(root, state)
    elif state != stored:
        # Options given on pack are the session's from now on (apply's next prompt uses
        # them too); the round does not move, so pack twice still prints the same prompt.
        save_state(root, session_id, state)
    if fmt == "json":
        print_json(prompt.to_json())
    elif fmt == "openai":
        print_json(to_openai(prompt.messages()))
    elif fmt == "anthropic":
        print_json(to_anthropic(prompt.messages()))
    elif copy or part is not None:
        deliver(prompt, root, part=part or 1, copy=copy)
    else:
        for text in prompt.parts:
            deliver(replace(prompt, parts=(text,)), root, copy=False)
        if len(prompt.parts) > 1:
            err_console.print(
                f"The prompt is in {len(prompt.parts)} parts, printed one after the other; "
                f"paste them in order, one at a time: {part_command(root, 1)}, then --part 2...",
                markup=False,
                highlight=False,
            )
    summary = (
        f"{state.mode} mode, {prompt.tokens} tokens ({prompt.tokenizer}), "
        f"{len(prompt.parts)} part(s)"
    )
    generated = generated_summary(view.discovery)
    if generated:
        summary += f"; left out: {generated}"
    err_console.print(summary, markup=False, highlight=False)
