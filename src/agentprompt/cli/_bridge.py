"""``agentprompt bridge status|add|drop|note|run|reset|undo``, and how ``agentprompt pack`` and
``agentprompt apply`` deliver a prompt and show a bridge round."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from agentprompt.bridge import (
    DEFAULT_OUTPUT_TOKENS,
    DEFAULT_RUN_TIMEOUT,
    BridgePrompt,
    BridgeState,
    CommandRun,
    Round,
    split_limit,
)
from agentprompt.bridge.clipboard import copy_prompt
from agentprompt.bridge.text import render_prompt
from agentprompt.cli._options import json_option, read_text_source, root_option
from agentprompt.cli._output import console, diff_text, err_console, print_json, printable
from agentprompt.edits.apply import ApplyReport
from agentprompt.errors import UsageError
from agentprompt.services import BridgeSessions, Workspace

__all__ = [
    "bridge_group",
    "deliver",
    "part_command",
    "print_part",
    "show_round",
]


def part_command(root: Path, part: int) -> str:
    """The command that copies part ``part`` of the current prompt (``--root`` kept, so it
    works from where the user is)."""
    where = "" if root == Path(".") else f" --root {shlex.quote(str(root))}"
    return f"agentprompt pack{where} --part {part} --copy"


def print_part(text: str) -> None:
    """Print a part of a prompt on stdout as it is (lone surrogates made visible)."""
    click.echo(printable(text), nl=False)


def deliver(prompt: BridgePrompt, root: Path, *, part: int = 1, copy: bool = True) -> None:
    """Print or copy part ``part`` of ``prompt`` (only that part is made): copied, say so
    and how to get the next part; no clipboard, say why, write it to a file and print it on
    stdout."""
    total = prompt.part_count
    if not 1 <= part <= total:
        raise UsageError(f"--part {part} is out of range: this prompt has {total} part(s)")
    text = prompt.part(part)
    if not copy:
        print_part(text)
        return
    name = "prompt.md" if total == 1 else f"prompt-part-{part}.md"
    result = copy_prompt(text, root, name=name)
    where = f"part {part}/{total}" if total > 1 else "the prompt"
    if result.copied:
        err_console.print(Text(f"Copied {where} to the clipboard ({prompt.tokens} tokens in all)."))
    else:
        # One short line: where the prompt went (the clipboard library's own message, with
        # its URL, says nothing the user can act on).
        if result.fallback is not None:
            line = f"No clipboard: {where} was written to {result.fallback} (also printed below)."
        else:
            line = (
                f"No clipboard, and {where} could not be saved ({printable(result.reason)}); "
                "it is printed below."
            )
        err_console.print(Text(line, style="yellow"))
        print_part(text)
    if part < total:
        err_console.print(
            Text(f"Next: {part_command(root, part + 1)} (then paste it).", style="bold")
        )


def _round_json(outcome: Round, saved: bool) -> dict[str, Any]:
    return {
        "state": outcome.state.to_json(),
        "added": list(outcome.added),
        "missing": [{"path": p, "reason": r} for p, r in outcome.missing],
        "prompt": outcome.prompt.to_json(),
        "saved": saved,
    }


def _dry_run_heading(report: ApplyReport) -> str:
    """The heading of a dry run's next prompt: nothing was written, yet the prompt shows
    the files as the reply's edits would leave them (what a real apply would make next)."""
    shown = "; it shows the files as the reply's edits would leave them" if report.planned else ""
    return f"\nNext prompt (dry run: nothing written, the session unchanged{shown}):\n"


def show_round(
    root: Path, outcome: Round, report: ApplyReport, *, saved: bool, as_json: bool
) -> dict[str, Any] | None:
    """Present the bridge round after ``apply`` (already saved, unless a dry run): the
    files added and missing, then the next prompt copied (a dry run prints it). Returns
    the JSON to merge into ``apply --json``'s output (None when printing for people)."""
    if as_json:
        return _round_json(outcome, saved=saved)
    dry_run = report.dry_run
    for path, reason in outcome.missing:
        console.print(Text(f"cannot show {printable(path)}: {printable(reason)}", style="yellow"))
    if outcome.added:
        added = "Would be added to the context: " if dry_run else "Added to the context: "
        console.print(Text(added + printable(", ".join(outcome.added))))
    if dry_run:
        console.print(Text(_dry_run_heading(report), style="bold"))
        for text in outcome.prompt.each_part():
            console.print(Text(printable(text)), end="")
        return None
    deliver(outcome.prompt, root)
    # The fixed notice says files were added: it is for a round that added some.
    notice = render_prompt("notice" if outcome.added else "notice_next", outcome.state.lang, root)
    console.print(Text(notice, style="bold green"))
    return None


def _sessions(root: Path) -> BridgeSessions:
    return BridgeSessions(Workspace(root))


@click.group("bridge")
def bridge_group() -> None:
    """Show, change or clear the copy-paste bridge session."""


@bridge_group.command("status")
@root_option
@json_option("Print the state as JSON.")
def status_command(root: Path, as_json: bool) -> None:
    """Show the bridge session in progress: task, mode, files in context, rounds."""
    session_id, state = _sessions(root).status()
    if as_json:
        print_json({"id": session_id, **state.to_json()})
        return
    console.print(
        Text(f"session {session_id}, round {state.rounds}, {state.mode} mode, lang {state.lang}")
    )
    console.print(Text("task: " + printable(state.task)))
    limit = split_limit(state)
    split = (
        "none (one part within the token budget)"
        if limit is None
        else f"{limit.size} {'tokens' if limit.unit == 'tokens' else 'characters'}"
    )
    budget = f"{state.max_tokens} tokens" if state.max_tokens is not None else "none"
    console.print(Text(f"split limit: {split}; token budget: {budget}"))
    if state.files:
        console.print("files in context:")
    for path in state.files:
        console.print(Text("  " + printable(path)))
    if state.continuation is not None:
        console.print("waiting for the rest of a reply (the next prompt asks to continue)")
        for path in state.continuation:
            console.print(Text("  still owed: " + printable(path)))
    for path, reason in state.missing:
        console.print(Text(f"cannot show {printable(path)}: {printable(reason)}"))
    if state.dropped:
        console.print(Text("dropped by hand: " + printable(", ".join(state.dropped))))
    if state.commit_rounds:
        console.print("each applied round is committed (git)")
    if state.includes or state.excludes:
        patterns = [f"--include {p}" for p in state.includes]
        patterns += [f"--exclude {p}" for p in state.excludes]
        console.print(Text("file patterns: " + printable(" ".join(patterns))))
    _show_inputs(state)
    if state.continuation is None:
        kind = (
            "the whole prompt (for a new chat)"
            if state.full_next
            else "a follow-up with only what is new (pack --full sends everything)"
        )
        console.print(Text(f"next prompt: {kind}"))
        if not state.full_next:
            told = "states the task again" if state.restates_task else "refers to the task"
            console.print(
                Text(
                    f"  it {told} ({state.since_task} tokens read since the task was stated; "
                    f"restated from {state.restate_limit})"
                )
            )


def _show_inputs(state: BridgeState) -> None:
    """The model's last answer, and the user's notes and command runs the next prompt (or
    the current one) holds."""
    if state.answer:
        console.print(Text("the model's last answer (nothing to apply):", style="bold"))
        console.print(Text("  " + printable(state.answer).replace("\n", "\n  ")))
    for note in state.notes:
        where = "in the current prompt" if note.in_prompt else "pending, for the next prompt"
        console.print(Text(f"note ({where}): " + printable(note.text)))
    for run in state.runs:
        where = "in the current prompt" if run.in_prompt else "pending, for the next prompt"
        console.print(Text(f"command output ({where}): {printable(_ran(run))}"))


def _ran(run: CommandRun) -> str:
    """One line saying how a command the user ran ended."""
    if run.timed_out:
        how = f"stopped at the time limit ({run.timeout:g} s)"
    else:
        how = f"exit status {run.status} ({run.seconds:g} s)"
    cut = f"; {run.cut_lines} lines ({run.cut_tokens} tokens) cut" if run.cut_lines else ""
    held = f"; held back as likely secrets: {', '.join(run.held)}" if run.held else ""
    return f"{run.command}: {how}{cut}{held}"


def _next_prompt_line(root: Path) -> str:
    where = "" if root == Path(".") else " --root " + shlex.quote(str(root))
    return (
        f"print the next prompt with agentprompt pack{where} (or it goes with the next "
        "apply's prompt)"
    )


@bridge_group.command("note")
@click.argument("text")
@root_option
@json_option("Print the session's state as JSON.")
def note_command(text: str, root: Path, as_json: bool) -> None:
    """Add TEXT (your own words for the model; - reads it from standard input) to the next
    prompt, as its own section; kept in the session until that prompt is made."""
    if text == "-":
        text = read_text_source("-", "note")
    added = _sessions(root).note(text)
    if as_json:
        print_json({"id": added.session_id, **added.state.to_json()})
        return
    console.print(Text("Note added to the next prompt; " + _next_prompt_line(root)))


@bridge_group.command(
    "run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@root_option
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_RUN_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="Kill the command after this many seconds (the prompt says so).",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    default=DEFAULT_OUTPUT_TOKENS,
    show_default=True,
    metavar="N",
    help="Show at most N tokens of its output (the head and the tail; the prompt says what "
    "was cut).",
)
@json_option("Print the run and the session's state as JSON.")
def run_command(
    command: tuple[str, ...], root: Path, timeout: float, max_tokens: int, as_json: bool
) -> None:
    """Run COMMAND in the repository root (no shell: give one, sh -c '...', for pipes) and
    put its output and exit status in the next prompt, like a test run's failures. A
    command that fails is no error here; one that cannot be started changes nothing."""
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("give the command to run after --")
    added = _sessions(root).run(command, timeout=timeout, max_tokens=max_tokens)
    ran = added.run
    assert ran is not None
    if as_json:
        print_json({"id": added.session_id, "run": ran.to_json(), **added.state.to_json()})
        return
    click.echo(printable(ran.output), nl=not ran.output.endswith("\n"))
    console.print(Text(printable(_ran(ran)), style="bold"))
    console.print(Text("Output added to the next prompt; " + _next_prompt_line(root)))


@bridge_group.command("drop")
@click.argument("files", nargs=-1, required=True)
@root_option
@json_option("Print the session's state as JSON.")
def drop_command(files: tuple[str, ...], root: Path, as_json: bool) -> None:
    """Take FILES (or folders) out of the session's context: their changes are no longer
    sent, and a reply's edits do not bring them back (bridge add does)."""
    dropped = _sessions(root).drop(files)
    if as_json:
        print_json(
            {"id": dropped.session_id, "dropped": list(dropped.changed), **dropped.state.to_json()}
        )
        return
    console.print(Text("Dropped from the context: " + printable(", ".join(dropped.changed))))


@bridge_group.command("add")
@click.argument("files", nargs=-1, required=True)
@root_option
@json_option("Print the session's state as JSON.")
def add_command(files: tuple[str, ...], root: Path, as_json: bool) -> None:
    """Put FILES (or every file under a folder) in the session's context in full (edit
    mode): the next prompt sends them."""
    changed = _sessions(root).add(files)
    added = changed.changed
    if as_json:
        print_json({"id": changed.session_id, "added": list(added), **changed.state.to_json()})
        return
    if added:
        console.print(
            Text(
                "Added to the context: "
                + printable(", ".join(added))
                + "; print the next prompt with agentprompt pack"
            )
        )
    else:
        console.print(Text("Already in the context: " + printable(", ".join(files))))


@bridge_group.command("reset")
@root_option
@json_option("Print the result as JSON.")
def reset_command(root: Path, as_json: bool) -> None:
    """Clear the bridge session (files are not touched)."""
    removed = _sessions(root).reset()
    if as_json:
        print_json({"removed": removed})
    else:
        console.print("bridge session cleared" if removed else "no bridge session to clear")


@bridge_group.command("undo")
@root_option
@click.option(
    "--dry-run", is_flag=True, help="Show what undo would restore (the diff); change nothing."
)
@json_option("Print the result as JSON.")
def undo_command(root: Path, dry_run: bool, as_json: bool) -> None:
    """Undo the last applied round: every file it wrote, created or deleted goes back to
    what it was before, and the session to its state before that round. Run it again to
    walk further back (the last rounds of the session are kept). A file changed by hand
    since the round is never overwritten: undo is refused and names it. A commit made for
    the round stays in git's history."""
    outcome = _sessions(root).undo(dry_run=dry_run)
    if as_json:
        print_json(outcome.to_json())
        return
    files = outcome.files
    if files.diff:
        console.print(diff_text(files.diff), end="")
    would = "would " if dry_run else ""
    for path in files.restored:
        console.print(Text(f"{would}restore {printable(path)}"))
    for path in files.recreated:
        console.print(Text(f"{would}restore {printable(path)} (the round deleted it)"))
    for path in files.removed:
        console.print(Text(f"{would}remove {printable(path)} (the round created it)"))
    done = (
        f"dry run: round {outcome.undone} would be undone; nothing was changed"
        if dry_run
        else f"Round {outcome.undone} undone: the session is back at round {outcome.state.rounds}"
    )
    console.print(Text(done, style="bold"))
    if outcome.commit is not None:
        console.print(
            Text(
                f"The round's commit {outcome.commit[:12]} stays in git's history"
                + ("" if dry_run else "; the files now differ from it (commit or reset them)"),
                style="yellow",
            )
        )
    console.print(
        f"{outcome.left} earlier round(s) can still be undone."
        if outcome.left
        else "No earlier round is kept to undo."
    )
    if not dry_run:
        console.print("Print the prompt to send again with agentprompt pack.")
