"""Applying a reply: every file action as one transaction, with feedback for what failed.

:func:`apply_actions` plans all actions in memory (:mod:`~agentprompt.edits._plan`), and
then either writes every change under a journal (:mod:`~agentprompt.edits.journal`) or, if
any action failed, writes nothing (``partial=True`` writes the ones that matched). Requests
for files, mode switches and continuations are passed through to the report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentprompt.edits._diff import render_diff
from agentprompt.edits._feedback import (
    block_feedback,
    lost_feedback,
    reply_feedback,
    tool_feedback,
)
from agentprompt.edits._match import Stage
from agentprompt.edits._mojibake import GarbledLine, garbled_lines, garbled_reply, repair
from agentprompt.edits._plan import FileChange, Plan, plan_actions
from agentprompt.edits._reasons import diagnostic
from agentprompt.edits.actions import (
    Action,
    Continue,
    Diagnostic,
    EditError,
    FileAction,
    RequestFiles,
    SwitchMode,
    action_to_json,
)
from agentprompt.edits.journal import ensure_no_pending, locked, write_changes
from agentprompt.edits.parse import parse_reply
from agentprompt.edits.paths import resolve_inside
from agentprompt.edits.revert import FileBefore, before_changes
from agentprompt.edits.wording import check_lang, speaking
from agentprompt.errors import NotADirectory
from agentprompt.prompts.loader import PromptLibrary

__all__ = [
    "AppliedAction",
    "ApplyOptions",
    "ApplyReport",
    "FailedAction",
    "Placement",
    "apply_actions",
    "apply_reply",
]


@dataclass(frozen=True, kw_only=True)
class ApplyOptions:
    """How to apply."""

    dry_run: bool = False
    """Compute and report everything, including the diff, but write nothing."""
    partial: bool = False
    """Write the actions that matched even when others failed."""
    lang: str = "en"
    """The language of the feedback and the reasons (``en`` or ``ja``): a bridge session
    passes its own, so a Japanese prompt quotes Japanese feedback."""
    seen_in_full: frozenset[str] | None = None
    """The files (relative paths, ``/`` separators) the model has been shown in full in this
    session: a whole-file write over an existing file not among them is refused, since it
    would replace code the model has not read. ``None``: not known, nothing refused."""
    short_feedback: bool = False
    """Word the reply's feedback in short when every failed block names a file of
    ``seen_in_full`` (the model holds it, as a chat follow-up's does): the nearest lines by
    number and only those that differ from what the block quoted, not an excerpt."""
    allow_whole_file: bool = False
    """Write whole files over existing ones even when the model has not seen them in full."""
    progress: Callable[[int, int], None] | None = None
    """Called with (actions planned, actions in all) while a reply's actions are planned, so
    a long apply can show how far it is."""
    fix_encoding: bool = False
    """Repair a reply whose UTF-8 was read as Windows-1252 or Latin-1 (by default such a
    reply raises an :class:`~agentprompt.edits.EditError` saying how to repair it)."""
    tool: str | None = None
    """The tool call the actions come from (its name, such as ``edit``), when they are not a
    reply's: the feedback then speaks of the call and its arguments."""
    strict: bool = False
    """Apply only exact placements: a hunk or search text that only a looser stage places
    (spacing, indentation, one line left out, fuzzy) is refused, with feedback; so is an
    edit to an existing file not among ``seen_in_full`` (when that is known)."""
    hidden: Callable[[str], bool] | None = None
    """Whether a path (relative, ``/`` separators) is one the session cannot show the model
    (its include rules leave it out, or it holds a secret): an action touching such a file
    is refused, unless ``allow_hidden``."""
    allow_hidden: bool = False
    """The user says so: write files ``hidden`` names all the same."""


@dataclass(frozen=True, kw_only=True)
class Placement:
    """Where a loose stage (anything but ``exact``) placed one hunk, and what of its quote
    it did not find as written."""

    hunk: int
    """The hunk's number in its block, from 1 (a search text is hunk 1)."""
    stage: Stage
    """The stage that placed it."""
    first: int
    """The first line (1-based, in the file before the edit) its quoted lines matched."""
    last: int
    """The last such line."""
    unmatched: tuple[str, ...] = ()
    """The quoted lines not found in the file as written (spacing aside): for fuzzy and
    aligned placements."""
    left_out: tuple[str, ...] = ()
    """The file's lines inside ``first..last`` that the quote did not mention."""

    def to_json(self) -> dict[str, Any]:
        """The placement as JSON-ready data."""
        return {
            "hunk": self.hunk,
            "stage": self.stage,
            "lines": [self.first, self.last],
            "unmatched": list(self.unmatched),
            "left_out": list(self.left_out),
        }


@dataclass(frozen=True, kw_only=True)
class AppliedAction:
    """A file action that was applied (or, in a dry run, would be)."""

    index: int
    """Its position in the actions given."""
    path: str
    """The path it names."""
    action: str
    """Its kind: ``write``, ``patch``, ``edit``, ``replace``, ``delete`` or ``move``."""
    stage: Stage | None = None
    """The loosest matcher stage it needed (``None`` for actions that do not search)."""
    placements: tuple[Placement, ...] = ()
    """Each hunk a loose stage placed: where it landed and what it did not find as written
    (empty when every hunk matched exactly)."""
    unseen: bool = False
    """It changes an existing file the model has not been shown in full in this session
    (``ApplyOptions.seen_in_full``), so its edit rests on what the model guessed."""

    def to_json(self) -> dict[str, Any]:
        """The entry as JSON-ready data (``placements`` only when there are any, ``unseen``
        only when true)."""
        data: dict[str, Any] = {
            "index": self.index,
            "path": self.path,
            "action": self.action,
            "stage": self.stage,
        }
        if self.placements:
            data["placements"] = [p.to_json() for p in self.placements]
        if self.unseen:
            data["unseen"] = True
        return data


@dataclass(frozen=True, kw_only=True)
class FailedAction:
    """A file action that did not apply."""

    index: int
    """Its position in the actions given."""
    path: str
    """The path it names."""
    reason: str
    """Why it failed."""
    feedback: str
    """Text for the model: which block, why, the nearest actual lines, the others' status."""
    action: str = ""
    """Its kind."""
    candidates: tuple[int, ...] = ()
    """1-based lines of the equally good places, when the match was ambiguous."""

    def to_json(self) -> dict[str, Any]:
        """The entry as JSON-ready data."""
        return {
            "index": self.index,
            "path": self.path,
            "action": self.action,
            "reason": self.reason,
            "feedback": self.feedback,
            "candidates": list(self.candidates),
        }


@dataclass(frozen=True, kw_only=True)
class ApplyReport:
    """What applying a reply did."""

    applied: tuple[AppliedAction, ...] = ()
    """The file actions written (in a dry run: that would be written)."""
    failed: tuple[FailedAction, ...] = ()
    """The file actions that did not apply."""
    matched: tuple[AppliedAction, ...] = ()
    """Every file action that matched, whether or not it was written."""
    requests: tuple[str, ...] = ()
    """Files the reply asked to see, without duplicates."""
    switch_mode: SwitchMode | None = None
    """The mode switch the reply asked for, if any."""
    continue_: Continue | None = None
    """The reply's continuation marker, if it stopped early."""
    diff: str = ""
    """The unified diff of what was (or, in a dry run, would be) written."""
    written: bool = False
    """Files were changed on disk."""
    dry_run: bool = False
    """This was a dry run."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """What the parser noticed (for :func:`apply_reply`)."""
    feedback: str = ""
    """The feedback for the whole reply (empty when everything applied)."""
    lost: int = 0
    """Blocks the parser could not read (cut off or malformed); they count as failures."""
    planned: Mapping[str, str | None] = field(default_factory=dict)
    """Each file the written edits change, with its new text as read back from disk would
    give it (``None``: deleted); filled in a dry run too, so a preview can show the files
    as a real apply leaves them. Empty when nothing would be written."""
    originals: tuple[FileBefore, ...] = field(default=(), repr=False)
    """Each file the edits wrote as it was before them, for
    :func:`~agentprompt.edits.revert.revert` (empty unless files were written)."""

    @property
    def empty(self) -> bool:
        """The reply held nothing to act on: no file action, request, switch, continue, and
        no block the parser lost."""
        return not (
            self.matched
            or self.failed
            or self.lost
            or self.requests
            or self.switch_mode
            or self.continue_
        )

    @property
    def ok(self) -> bool:
        """Every file action applied and no block was lost."""
        return not self.failed and not self.lost

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data (what every door prints as JSON)."""
        return {
            "applied": [a.to_json() for a in self.applied],
            "failed": [f.to_json() for f in self.failed],
            "matched": [a.to_json() for a in self.matched],
            "requests": list(self.requests),
            "switch_mode": action_to_json(self.switch_mode) if self.switch_mode else None,
            "continue": action_to_json(self.continue_) if self.continue_ else None,
            "diff": self.diff,
            "written": self.written,
            "dry_run": self.dry_run,
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "feedback": self.feedback,
            "lost": self.lost,
        }


def _passthrough(
    actions: Sequence[Action],
) -> tuple[tuple[str, ...], SwitchMode | None, Continue | None]:
    requests: dict[str, None] = {}
    switch: SwitchMode | None = None
    more: Continue | None = None
    for action in actions:
        if isinstance(action, RequestFiles):
            requests.update(dict.fromkeys(action.paths))
        elif isinstance(action, SwitchMode):
            switch = action
        elif isinstance(action, Continue):
            more = action
    return tuple(requests), switch, more


def apply_actions(
    root: Path, actions: Sequence[Action], options: ApplyOptions | None = None
) -> ApplyReport:
    """Apply a reply's actions under ``root``: all file actions, or none of them.

    Raises :class:`~agentprompt.edits.journal.JournalPending` when an interrupted apply must
    be recovered first, and :class:`~agentprompt.edits.journal.WriteFailed` when the disk
    refused a write (every file is restored before it is raised).
    """
    options = options or ApplyOptions()
    check_lang(options.lang)
    root = Path(root)
    if not root.is_dir():
        raise NotADirectory(root)
    with locked(root):
        ensure_no_pending(root)
        file_actions: list[tuple[int, FileAction]] = [
            (i, a)
            for i, a in enumerate(actions)
            if not isinstance(a, RequestFiles | SwitchMode | Continue)
        ]
        seen = None if options.allow_whole_file else options.seen_in_full
        plan = plan_actions(
            root,
            file_actions,
            lang=options.lang,
            seen=seen,
            progress=options.progress,
            strict=options.strict,
            shown=options.seen_in_full,
            hidden=None if options.allow_hidden else options.hidden,
        )
        lands = not plan.failed or options.partial
        # Everything the report says is computed before anything is written, so a failure
        # here (a broken prompt override, say) leaves the files untouched.
        failed, summary = _failures(root, plan, lands, options)
        diff = render_diff(plan.changes) if lands else ""
        written = False
        originals: tuple[FileBefore, ...] = ()
        if lands and not options.dry_run:
            originals = before_changes(root, plan.changes)
            write_changes(root, plan.changes)
            written = bool(plan.changes)
    matched = tuple(
        AppliedAction(
            index=o.index,
            path=o.path,
            action=o.action.kind,
            stage=o.stage,
            placements=tuple(
                Placement(
                    hunk=e.hunk + 1,
                    stage=e.stage,
                    first=e.landed[0] + 1,
                    last=e.landed[1],
                    unmatched=e.unmatched,
                    left_out=e.left_out,
                )
                for e in o.placements
                if e.landed is not None
            ),
            unseen=o.unseen,
        )
        for o in plan.outcomes
        if o.ok
    )
    requests, switch, more = _passthrough(actions)
    planned = {c.path: _read_back(c) for c in plan.changes} if lands else {}
    return ApplyReport(
        applied=matched if lands else (),
        failed=failed,
        matched=matched,
        requests=requests,
        switch_mode=switch,
        continue_=more,
        diff=diff,
        written=written,
        dry_run=options.dry_run,
        feedback=summary,
        planned=planned,
        originals=originals,
    )


def _read_back(change: FileChange) -> str | None:
    """The text a reader of the written file gets (its bytes decoded, a BOM dropped)."""
    after = change.after
    return None if after is None else after.decode("utf-8-sig", errors="replace")


def _failures(
    root: Path, plan: Plan, lands: bool, options: ApplyOptions
) -> tuple[tuple[FailedAction, ...], str]:
    """Each failed action with its feedback, and the feedback for the whole reply (or, for
    a tool call's actions, for the call)."""
    if not plan.failed:
        return (), ""
    library = PromptLibrary(root)
    lang, tool = options.lang, options.tool
    feedback = [
        tool_feedback(o, tool, library=library, lang=lang)
        if tool is not None
        else block_feedback(o, plan.outcomes, written=lands, library=library, lang=lang)
        for o in plan.failed
    ]
    failed = tuple(
        FailedAction(
            index=o.index,
            path=o.path,
            reason=o.reason,
            feedback=text,
            action=o.action.kind,
            candidates=tuple(c for f in o.hunk_failures for c in f.candidates),
        )
        for o, text in zip(plan.failed, feedback, strict=True)
    )
    if tool is not None:
        return failed, "\n\n".join(feedback)
    held = options.seen_in_full if options.short_feedback else None
    summary = reply_feedback(
        plan.failed, plan.outcomes, written=lands, library=library, lang=lang, held=held
    )
    return failed, summary


def apply_reply(
    root: Path, reply: str, dialect: str = "auto", options: ApplyOptions | None = None
) -> ApplyReport:
    """Parse ``reply`` (see :func:`~agentprompt.edits.parse.parse_reply`) and apply it.

    A block the parser lost (cut off, unusable) counts as a failure: unless ``partial``,
    nothing is written, and the feedback asks for that block again.
    """
    options = options or ApplyOptions()
    with speaking(options.lang):
        # A block the parser drops is explained in the feedback, in the apply's language.
        parsed = parse_reply(reply, dialect)
    garbled = _garbled(root, reply, parsed.actions)
    if garbled and not options.fix_encoding:
        raise garbled_reply(garbled)
    if garbled:
        with speaking(options.lang):
            parsed = parse_reply(repair(reply, garbled), dialect)
            repaired = Diagnostic(
                severity="warning",
                code="encoding-repaired",
                message=diagnostic("encoding_repaired", count=len(garbled)),
                line=garbled[0].line,
                block=None,
                dialect=None,
            )
        parsed = replace(parsed, diagnostics=(repaired, *parsed.diagnostics))
    lost = [d for d in parsed.diagnostics if d.severity == "error"]
    hold = bool(lost) and not options.partial
    report = apply_actions(
        root, parsed.actions, replace(options, dry_run=True) if hold else options
    )
    if hold:
        # Nothing is written; a dry run still shows the diff of the blocks that matched.
        diff = report.diff if options.dry_run else ""
        report = replace(report, applied=(), diff=diff, dry_run=options.dry_run, planned={})
    if lost:
        library = PromptLibrary(root)
        notes = "\n".join(
            lost_feedback(
                [(d.line, d.message) for d in lost],
                written=not hold,
                library=library,
                lang=options.lang,
            )
        )
        feedback = f"{report.feedback}\n\n{notes}" if report.feedback else notes
        report = replace(report, feedback=feedback, lost=len(lost))
    return replace(report, diagnostics=parsed.diagnostics)


def _garbled(root: Path, reply: str, actions: Sequence[Action]) -> tuple[GarbledLine, ...]:
    """The reply's lines that read as mis-decoded UTF-8, except those quoting text that the
    files the reply names already hold (a file may hold such text on purpose)."""
    found = garbled_lines(reply)
    if not found:
        return ()
    texts = []
    for path in dict.fromkeys(a.path for a in actions if isinstance(a, FileAction)):
        try:
            texts.append(resolve_inside(root, path).read_text(encoding="utf-8", errors="replace"))
        except (EditError, OSError):
            continue
    return tuple(g for g in found if not any(_quoted(g.text, t) for t in texts))


def _quoted(line: str, text: str) -> bool:
    """True when ``line`` (maybe a diff line, with its one-character prefix) is in ``text``."""
    body = line.strip()
    return bool(body) and (body in text or (body[:1] in "+- " and body[1:].strip() in text))
