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
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from agentprompt.bridge.context import RepoView, view_repository
from agentprompt.bridge.rounds import reply_options
from agentprompt.bridge.state import BridgeState, held_session
from agentprompt.cli._bridge import bridge_session, finish_round
from agentprompt.cli._options import json_option, make_root_option
from agentprompt.cli._output import EXIT_FAILED, console, err_console, print_json, printable
from agentprompt.cli._parse import read_reply
from agentprompt.cli._progress import scan_progress
from agentprompt.edits.actions import EditError
from agentprompt.edits.apply import ApplyReport, apply_reply
from agentprompt.edits.dialects import AUTO, DIALECTS, select_dialects
from agentprompt.edits.journal import (
    RecoveryReport,
    RollbackFailed,
    WriteFailed,
    locked,
    recover,
)
from agentprompt.errors import AgentPromptError, UsageError
from agentprompt.store import StoreError

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


def _json_errors(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` reporting its bad input (exit 2, nothing written) as apply's JSON report
    shape under ``--json`` (the line on stderr stays, as for every command)."""

    @functools.wraps(command)
    def run(**params: Any) -> None:
        try:
            command(**params)
        except AgentPromptError as exc:
            if params["as_json"] and not params["do_recover"]:
                print_json({"error": str(exc), "written": False, "written_files": []})
                exc.json_reported = True
            raise

    return run


@click.command("apply")
@click.argument("reply", required=False, default="-")
@make_root_option("The repository root every path is relative to.")
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
@json_option("Print the report as JSON.")
@_json_errors
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
    text = read_reply(reply)
    flags = {
        "dry_run": dry_run,
        "partial": partial,
        "allow_whole_file": allow_whole_file,
        "fix_encoding": fix_encoding,
    }
    if dry_run:
        # Nothing is written and the session is not saved: no lock, no transaction.
        session = bridge_session(root)
        preview = _apply(root, text, dialect, session, flags, as_json)
        _finish(preview, _round(root, session, preview, dry_run=True, as_json=as_json), as_json)
        return
    report: ApplyReport | None = None
    data: dict[str, Any] | None = None
    round_failed: UsageError | None = None
    try:
        # One critical section: applies of this root run one at a time (a second one
        # waits), and the session is read afresh, changed and saved in one transaction of
        # the state database, whose write lock is taken before any file is written. A
        # locked or read-only database stops the apply here, with nothing written.
        with locked(root, wait=LOCK_WAIT), held_session(root) as session:
            # The repository as the round begins: the reply's requests are judged by its
            # ignore rules, not by ones the reply itself rewrites.
            before = _view_before(root, session)
            report = _apply(root, text, dialect, session, flags, as_json)
            try:
                data = _round(root, session, report, dry_run=False, as_json=as_json, before=before)
            except UsageError as exc:
                # The next prompt cannot be made; the session's new state is kept.
                round_failed = exc
    except StoreError as exc:
        if report is None or not report.written:
            raise
        _written_but(report, f"the session could not be saved: {exc}", as_json)
    if round_failed is not None:
        if report is None or not report.written:
            raise round_failed
        moved = "the reply was applied and the session moved on, but "
        _written_but(report, str(round_failed).removeprefix(moved), as_json)
    assert report is not None
    _finish(report, data, as_json)


LOCK_WAIT = 120.0
"""How long (seconds) an apply waits for another apply of the same root to finish."""


def _apply(
    root: Path,
    text: str,
    dialect: str,
    session: tuple[str, BridgeState] | None,
    flags: dict[str, bool],
    as_json: bool,
) -> ApplyReport:
    """The reply applied in ``session`` (or none); a write the disk refused ends the run."""
    dry_run = flags["dry_run"]
    try:
        state = session[1] if session is not None else None
        options = reply_options(state, **flags)
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
    if not as_json:
        _show(report)
    return report


def _view_before(root: Path, session: tuple[str, BridgeState] | None) -> RepoView | None:
    """The session's view of the repository before the reply is applied (none without a
    session)."""
    if session is None:
        return None
    # Only its file list and discovery judge the requests: no summaries needed.
    return view_repository(root, summaries=False, include_generated=session[1].include_generated)


def _round(
    root: Path,
    session: tuple[str, BridgeState] | None,
    report: ApplyReport,
    *,
    dry_run: bool,
    as_json: bool,
    before: RepoView | None = None,
) -> dict[str, Any] | None:
    """The bridge round after the apply (none without a session); its JSON with --json."""
    if session is None:
        return None
    return finish_round(root, session, report, dry_run=dry_run, as_json=as_json, before=before)


def _finish(report: ApplyReport, data: dict[str, Any] | None, as_json: bool) -> None:
    if as_json:
        out = report.to_json()
        if data is not None:
            out["bridge"] = data
        print_json(out)
    if not report.ok:
        sys.exit(EXIT_FAILED)


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
