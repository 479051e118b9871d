"""``agentprompt apply``: apply a model's reply to a repository, all or nothing.

Exit status: 0 when every edit applied (or would, with ``--dry-run``), 1 when anything
failed (nothing is written unless ``--partial``; a write the disk refused, a full disk say,
is rolled back and reported, with ``--json`` as JSON), 2 for unusable input (an unreadable reply,
a root that is not a directory, an unknown dialect, a pending journal, a session that
cannot be saved): exit 2 always means nothing was written. When files were written and
something after failed (the session could not be saved, the next prompt cannot be made), the
exit status is 1 and the message names the files written.
"""

from __future__ import annotations

import functools
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from agentprompt.cli._bridge import show_round
from agentprompt.cli._options import dialect_option, json_option, make_root_option
from agentprompt.cli._output import (
    EXIT_FAILED,
    console,
    diff_text,
    err_console,
    flag_name,
    print_json,
    printable,
)
from agentprompt.cli._parse import read_reply
from agentprompt.cli._progress import scan_progress
from agentprompt.edits.actions import EditError
from agentprompt.edits.apply import ApplyReport, Placement
from agentprompt.edits.dialects import select_dialects
from agentprompt.edits.journal import RecoveryReport, RollbackFailed, WriteFailed
from agentprompt.errors import AgentPromptError, UsageError
from agentprompt.llm import ModelClient, ModelSpec, model_from_environment
from agentprompt.services import ApplyOutcome, BridgeSessions, ReplyChoices, Workspace

__all__ = ["apply_command", "diff_text"]


def _show(report: ApplyReport) -> None:
    if report.diff:
        console.print(diff_text(report.diff), end="")
    if report.matched or report.failed:
        table = Table(title="Edits", show_lines=False)
        for column in ("#", "path", "action", "result"):
            table.add_column(column)
        failed = {f.index: f for f in report.failed}
        applied = {a.index for a in report.applied}
        placed = {m.index: m.placements for m in report.matched}
        unseen = {m.index for m in report.matched if m.unseen}
        rows = [(m.index, m.path, m.action, m.stage) for m in report.matched]
        rows += [(f.index, f.path, f.action, None) for f in report.failed]
        for index, path, action, stage in sorted(rows, key=lambda r: r[0]):
            if index in failed:
                result = Text(printable(failed[index].reason), style="red")
            elif index in applied:
                done = "would apply" if report.dry_run else "applied"
                result = Text(done + (f" ({stage} match)" if stage else ""), style="green")
            else:
                result = Text("matched, not written", style="yellow")
            for placement in placed.get(index, ()):
                result.append(_placement_text(placement), style="yellow")
            if index in unseen:
                result.append("\nthe model was not shown this file in full", style="yellow")
            table.add_row(str(index + 1), Text(printable(path)), Text(action), result)
        console.print(table)
    for diagnostic in report.diagnostics:
        style = "red" if diagnostic.severity == "error" else "yellow"
        console.print(Text(f"line {diagnostic.line}: {printable(diagnostic.message)}", style=style))
    if report.requests:
        console.print(
            Text("The reply asks for these files: " + printable(", ".join(report.requests)))
        )
    if report.switch_mode:
        console.print(
            Text(f"The reply asks to switch to {printable(report.switch_mode.mode)} mode.")
        )
    if report.continue_:
        console.print("The reply says it will continue in a further reply.")
    if report.feedback:
        console.print(Text("\nFeedback for the model:\n", style="bold"))
        console.print(Text(printable(report.feedback)))
    summary = (
        "dry run: nothing written"
        if report.dry_run
        else (
            f"written: {', '.join(printable(a.path) for a in report.applied)}"
            if report.written
            else "nothing written"
        )
    )
    console.print(Text(summary, style="bold"))


def _placement_text(placement: Placement) -> str:
    """One hunk a loose stage placed: where, and what of its quote it did not find."""
    where = (
        f"line {placement.first}"
        if placement.first == placement.last
        else f"lines {placement.first}-{placement.last}"
    )
    text = f"\nhunk {placement.hunk}: {placement.stage} match at {where}"
    if placement.unmatched:
        quoted = ", ".join(_line_shown(line) for line in placement.unmatched)
        text += f"; not in the file as quoted: {printable(quoted)}"
    if placement.left_out:
        lines = ", ".join(_line_shown(line) for line in placement.left_out)
        text += f"; file lines the quote left out: {printable(lines)}"
    return text


def _line_shown(line: str) -> str:
    """A quoted or left-out line as the result table names it (a blank one in words)."""
    return repr(line.strip()) if line.strip() else "a blank line"


def _show_recovery(report: RecoveryReport) -> None:
    if not report.found:
        console.print("No interrupted apply to recover.")
        return
    would = "would " if report.dry_run else ""
    for path in report.restored:
        console.print(Text(f"{would}restore {printable(path)}"))
    for path in report.removed:
        console.print(Text(f"{would}remove {printable(path)}"))
    for path in report.kept:
        console.print(Text(f"keep {printable(path)} (it no longer holds what the apply wrote)"))
    if report.dry_run:
        console.print("dry run: nothing was changed; run without --dry-run to roll back.")
    else:
        console.print("The interrupted apply was rolled back.")


def _json_errors(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` reporting its bad input (exit 2, nothing written) as apply's JSON report
    shape under ``--json`` (the line on stderr stays, as for every command)."""

    @functools.wraps(command)
    def run(**params: Any) -> None:
        try:
            command(**params)
        except AgentPromptError as exc:
            if params["as_json"] and not params["do_recover"]:
                print_json({"error": exc.worded(flag_name), "written": False, "written_files": []})
                exc.json_reported = True
            raise

    return run


@click.command("apply")
@click.argument("reply", required=False, default="-")
@make_root_option("The repository root every path is relative to.")
@dialect_option
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show the diff of what would change (with --recover: what it would restore); "
    "write nothing.",
)
@click.option("--partial", is_flag=True, help="Write the edits that matched even if others failed.")
@click.option(
    "--allow-whole-file",
    is_flag=True,
    help="In a bridge session, let the reply replace whole files the model was never shown "
    "in full (by default such a write is refused).",
)
@click.option(
    "--allow-hidden",
    is_flag=True,
    help="In a bridge session, let the reply write files the session cannot show the model "
    "(left out by its include and exclude patterns, or holding a likely secret); by default "
    "such a write is refused.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Apply only edits whose quoted lines match the files exactly; refuse any looser "
    "placement (other spacing or indentation, a line left out, a fuzzy match).",
)
@click.option(
    "--fix-encoding",
    is_flag=True,
    help="Repair a reply whose UTF-8 text was read as Windows-1252 or Latin-1 (cafÃ© for café); "
    "by default such a reply is refused.",
)
@click.option(
    "--note",
    metavar="TEXT",
    help="In a bridge session, add TEXT (your own words for the model) to the next prompt.",
)
@click.option(
    "--commit",
    is_flag=True,
    help="In a bridge session, commit the files the round changed, and only them, once it "
    "is applied (git; the message from the model configured for agentprompt, else made "
    "from the task and the files). Outside a git repository nothing is applied.",
)
@click.option(
    "--recover", "do_recover", is_flag=True, help="Roll back an interrupted apply and exit."
)
@json_option("Print the report as JSON.")
@_json_errors
def apply_command(
    reply: str,
    root: Path,
    dialect: str,
    dry_run: bool,
    partial: bool,
    allow_whole_file: bool,
    allow_hidden: bool,
    strict: bool,
    fix_encoding: bool,
    note: str | None,
    commit: bool,
    do_recover: bool,
    as_json: bool,
) -> None:
    """Apply the edits in REPLY (a file, or - for standard input) under --root.

    In a bridge session, a reply with nothing to apply is the model's answer: it is shown
    and recorded, and the next prompt holds what you add next (bridge note, bridge run)."""
    sessions = BridgeSessions(Workspace(root))
    if do_recover:
        try:
            recovery = sessions.recover(dry_run=dry_run)
        except EditError as exc:
            if not as_json:
                raise
            print_json({"found": True, "error": exc.worded(flag_name)})
            sys.exit(EXIT_FAILED)
        if as_json:
            print_json(recovery.to_json())
        else:
            _show_recovery(recovery)
        return
    select_dialects(dialect)
    text = read_reply(reply)
    choices = ReplyChoices(
        dialect=dialect,
        dry_run=dry_run,
        partial=partial,
        allow_whole_file=allow_whole_file,
        fix_encoding=fix_encoding,
        strict=strict,
        allow_hidden=allow_hidden,
        commit=commit,
    )
    try:
        # A bar on the terminal's stderr once the apply has run for a second.
        with scan_progress("Applying the reply's edits") as bar:
            outcome = sessions.apply(
                text, choices, progress=bar.update, note=note, commit_model=_commit_model
            )
    except (WriteFailed, RollbackFailed) as exc:
        # Something was attempted and (for WriteFailed) rolled back: exit 1, not 2.
        if as_json:
            failed = ApplyReport(dry_run=dry_run).to_json()
            print_json(
                {
                    **failed,
                    "error": exc.worded(flag_name),
                    "error_code": exc.code,
                    "error_path": exc.path,
                    "rolled_back": isinstance(exc, WriteFailed),
                }
            )
        else:
            err_console.print(f"agentprompt: {exc.worded(flag_name)}", markup=False)
        sys.exit(EXIT_FAILED)
    # Everything below only reports: the session is saved already, so an output that
    # closes early (a pipe into head) loses no round.
    report = outcome.report
    if outcome.answer is not None:
        _show_answer(root, outcome, as_json)
        return
    if not as_json:
        _show(report)
    if outcome.save_error is not None:
        _written_but(
            report,
            f"the session could not be saved: {outcome.save_error.worded(flag_name)}",
            as_json,
        )
    if outcome.round_error is not None:
        problem = _no_next_prompt(root, outcome.round_error)
        if report.written:
            _written_but(report, problem, as_json)
        moved = "" if dry_run else "the reply was applied and the session moved on, but "
        raise UsageError(moved + problem)
    data = None
    if outcome.round is not None:
        data = show_round(root, outcome.round, report, saved=outcome.saved, as_json=as_json)
    if as_json:
        out = report.to_json()
        if data is not None:
            out["bridge"] = data
        if outcome.commit is not None or outcome.commit_error is not None:
            out["commit"] = _commit_json(outcome)
        print_json(out)
    else:
        _show_commit(outcome)
    if not report.ok or outcome.commit_error is not None:
        sys.exit(EXIT_FAILED)


def _show_answer(root: Path, outcome: ApplyOutcome, as_json: bool) -> None:
    """A reply with nothing to apply: the model's answer, then the next prompt when the
    user had added something for it, else what they can do next."""
    assert outcome.answer is not None
    state = outcome.answer.state
    dry_run = outcome.report.dry_run
    hint = None if outcome.round is not None else _answer_hint(root)
    if as_json:
        data: dict[str, Any] = {**outcome.report.to_json(), "answer": state.answer}
        if outcome.round is not None:
            data["bridge"] = show_round(
                root, outcome.round, outcome.report, saved=outcome.saved, as_json=True
            )
        else:
            data["bridge"] = {"state": state.to_json(), "prompt": None, "saved": outcome.saved}
            data["next"] = hint
        print_json(data)
        return
    heading = "The model's answer (nothing to apply"
    heading += "; dry run: the session unchanged):" if dry_run else "; recorded in the session):"
    console.print(Text(heading, style="bold"))
    console.print(Text(printable(state.answer)))
    if outcome.round is not None:
        show_round(root, outcome.round, outcome.report, saved=outcome.saved, as_json=False)
    elif hint is not None:
        console.print(Text(hint, style="bold"))


def _answer_hint(root: Path) -> str:
    """What the user can do after the model's answer, in one line."""
    where = "" if root == Path(".") else " --root " + shlex.quote(str(root))
    return (
        f"Next: answer it with agentprompt bridge note{where} TEXT, or show it a command's "
        f"output with agentprompt bridge run{where} -- CMD, then print the next prompt with "
        f"agentprompt pack{where}."
    )


def _commit_model() -> ModelClient | None:
    """The model configured for agentprompt, to write a round's commit message (None: no
    usable one, and the message is made from the round)."""
    try:
        return model_from_environment(ModelSpec(), os.environ).client
    except AgentPromptError:
        return None


def _commit_json(outcome: ApplyOutcome) -> dict[str, Any]:
    made = outcome.commit
    error = outcome.commit_error
    return {
        "commit": made.commit if made is not None else None,
        "files": list(made.files) if made is not None else [],
        "left_out": list(made.left_out) if made is not None else [],
        "error": error.worded(flag_name) if error is not None else None,
    }


def _show_commit(outcome: ApplyOutcome) -> None:
    """Say what the round's commit did (on stderr: stdout may carry the next prompt)."""
    made, error = outcome.commit, outcome.commit_error
    if error is not None:
        err_console.print(
            printable(
                "agentprompt: the round was applied, but committing it failed: "
                + error.worded(flag_name)
            ),
            markup=False,
        )
        return
    if made is None:
        return
    if made.commit is None:
        err_console.print("Nothing to commit: the round's files match the last commit.")
    else:
        err_console.print(
            Text(f"Committed {', '.join(made.files)} as {made.commit[:12]}.", style="green")
        )
    if made.left_out:
        err_console.print(
            Text("Not committed (ignored by git, or never tracked): " + ", ".join(made.left_out))
        )


def _no_next_prompt(root: Path, exc: UsageError) -> str:
    """Why the next prompt cannot be made, and how to get it."""
    where = "" if root == Path(".") else " --root " + shlex.quote(str(root))
    return (
        f"the next prompt cannot be made: {exc.worded(flag_name)}; print it with agentprompt "
        f"pack{where} and a larger limit (or start a new session with agentprompt pack "
        "--task TEXT)"
    )


def _written_but(report: ApplyReport, problem: str, as_json: bool) -> None:
    """Files were written, then something else failed: say which files, and what the
    reply asked for that the session may not have recorded; exit 1."""
    written = sorted(report.planned)
    asked = list(report.requests)
    if as_json:
        print_json({**report.to_json(), "error": problem, "written_files": written})
    else:
        line = f"agentprompt: the reply's edits were written ({', '.join(written)}), but {problem}"
        if asked:
            line += f"; the reply asked for: {', '.join(asked)}"
        err_console.print(printable(line), markup=False)
    sys.exit(EXIT_FAILED)
