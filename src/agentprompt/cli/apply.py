"""``agentprompt apply``: apply a model's reply to a repository, all or nothing.

Exit status: 0 when every edit applied (or would, with ``--dry-run``), 1 when anything
failed (nothing is written unless ``--partial``; a write the disk refused, a full disk say,
is rolled back and reported, with ``--json`` as JSON), 2 for unusable input (an unreadable reply,
a root that is not a directory, an unknown dialect, a pending journal).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from agentprompt.bridge.rounds import reply_options
from agentprompt.cli.bridge import bridge_session, finish_round
from agentprompt.cli.output import EXIT_FAILED, console, err_console, print_json, printable
from agentprompt.cli.parse import read_reply
from agentprompt.cli.progress import scan_progress
from agentprompt.edits.actions import EditError
from agentprompt.edits.apply import ApplyReport, apply_reply
from agentprompt.edits.dialects import AUTO, DIALECTS, select_dialects
from agentprompt.edits.journal import RecoveryReport, RollbackFailed, WriteFailed, recover
from agentprompt.errors import UsageError

__all__ = ["apply_command", "diff_text"]


def diff_text(diff: str) -> Text:
    """``diff`` coloured for a terminal: additions green, removals red, hunk heads cyan."""
    out = Text()
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---", "diff --git", "new file", "deleted file")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = ""
        out.append(printable(line), style=style)
    return out


def _show(report: ApplyReport) -> None:
    if report.diff:
        console.print(diff_text(report.diff), end="")
    if report.matched or report.failed:
        table = Table(title="Edits", show_lines=False)
        for column in ("#", "path", "action", "result"):
            table.add_column(column)
        failed = {f.index: f for f in report.failed}
        applied = {a.index for a in report.applied}
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
        else ("written" if report.written else "nothing written")
    )
    console.print(Text(summary, style="bold"))


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


@click.command("apply")
@click.argument("reply", required=False, default="-")
@click.option(
    "--root",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="The repository root every path is relative to.",
)
@click.option(
    "--dialect",
    default=AUTO,
    show_default=True,
    metavar="NAME",
    help=f"The reply's dialect: {', '.join([AUTO, *DIALECTS])}.",
)
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
    "--fix-encoding",
    is_flag=True,
    help="Repair a reply whose UTF-8 text was read as Windows-1252 or Latin-1 (cafÃ© for café); "
    "by default such a reply is refused.",
)
@click.option(
    "--recover", "do_recover", is_flag=True, help="Roll back an interrupted apply and exit."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def apply_command(
    reply: str,
    root: Path,
    dialect: str,
    dry_run: bool,
    partial: bool,
    allow_whole_file: bool,
    fix_encoding: bool,
    do_recover: bool,
    as_json: bool,
) -> None:
    """Apply the edits in REPLY (a file, or - for standard input) under --root."""
    if not root.is_dir():
        raise UsageError(f"--root {root} is not a directory; give the repository root")
    if do_recover:
        try:
            recovery = recover(root, dry_run=dry_run)
        except EditError as exc:
            if not as_json:
                raise
            print_json({"found": True, "error": str(exc)})
            sys.exit(EXIT_FAILED)
        if as_json:
            print_json(recovery.to_json())
        else:
            _show_recovery(recovery)
        return
    select_dialects(dialect)
    session = bridge_session(root)
    text = read_reply(reply)
    try:
        state = session[1] if session is not None else None
        options = reply_options(
            state,
            dry_run=dry_run,
            partial=partial,
            allow_whole_file=allow_whole_file,
            fix_encoding=fix_encoding,
        )
        # A bar on the terminal's stderr once the apply has run for a second.
        with scan_progress("Applying the reply's edits") as bar:
            report = apply_reply(root, text, dialect, replace(options, progress=bar.update))
    except (WriteFailed, RollbackFailed) as exc:
        # Something was attempted and (for WriteFailed) rolled back: exit 1, not 2.
        if as_json:
            failed = ApplyReport(dry_run=dry_run).to_json()
            print_json(
                {
                    **failed,
                    "error": str(exc),
                    "error_code": exc.code,
                    "error_path": exc.path,
                    "rolled_back": isinstance(exc, WriteFailed),
                }
            )
        else:
            err_console.print(f"agentprompt: {exc}", markup=False)
        sys.exit(EXIT_FAILED)
    if report.empty:
        raise UsageError(
            "the reply holds no edit blocks, requests or other markers; nothing can be "
            "applied (check the --dialect, or that the whole reply was given)"
        )
    if as_json:
        data = report.to_json()
        if session is not None:
            data["bridge"] = finish_round(root, session, report, dry_run=dry_run, as_json=True)
        print_json(data)
    else:
        _show(report)
        if session is not None:
            finish_round(root, session, report, dry_run=dry_run, as_json=False)
    if not report.ok:
        sys.exit(EXIT_FAILED)
