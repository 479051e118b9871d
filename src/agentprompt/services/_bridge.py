"""The bridge session service: start a session, print its current prompt, apply a reply
and move to the next round (a reply with nothing to apply is the model's answer), add or
drop files, add the user's note or a command's output to the next prompt, show or clear the
session, roll back an interrupted apply, undo the last applied round.

It is the one place the session's housekeeping is written (which state to start from,
when to save, what is held under the apply's lock): the command line, the page and the MCP
server call it with plain values and word its results and errors in their own terms. It
prints nothing and names no flag.

Errors (each a :class:`~agentprompt.errors.UsageError` naming the input at fault)::

    UsageError
    ├── SessionInProgress   a new task while a session has had replies (give ``new``)
    └── EmptyReply          an empty reply, or outside a session one holding nothing to apply

The engines' own errors pass through: :class:`~agentprompt.bridge.NoBridgeSession`,
the user input's :class:`~agentprompt.bridge.inputs.BadNote` and
:class:`~agentprompt.bridge.inputs.CommandNotStarted`,
:class:`~agentprompt.bridge.UnknownFile`, the edit engine's ``WriteFailed`` and
``RollbackFailed`` (something was attempted), :class:`~agentprompt.store.StoreError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from agentprompt.bridge.control import add_files, drop_files
from agentprompt.bridge.inputs import (
    DEFAULT_OUTPUT_TOKENS,
    DEFAULT_RUN_TIMEOUT,
    CommandRun,
    check_note,
    run_command,
)
from agentprompt.bridge.pack import BridgePrompt, build_prompt, session_view, starting_state
from agentprompt.bridge.rounds import Answer, Round, answered, reply_options, run_round
from agentprompt.bridge.sizes import SizeReport, size_report
from agentprompt.bridge.state import (
    BridgeState,
    NoBridgeSession,
    clear_session,
    load_session,
    save_state,
    start_session,
)
from agentprompt.bridge.undo import (
    RoundUndo,
    forget_round,
    keep_round,
    last_round,
    rounds_kept,
    undoable,
)
from agentprompt.bridge.view import RepoView
from agentprompt.commitmsg import (
    CommitResult,
    check_committable,
    commit_files,
    get_commit_message,
    paths_diff,
    round_message,
)
from agentprompt.edits.apply import ApplyReport, apply_reply
from agentprompt.edits.dialects import AUTO, select_dialects
from agentprompt.edits.journal import RecoveryReport, recover
from agentprompt.edits.revert import RevertReport, revert_files
from agentprompt.errors import AgentPromptError, UsageError
from agentprompt.llm.base import ModelClient
from agentprompt.services._budgets import (
    BudgetChoice,
    NoBudget,
    check_floor,
    chosen_budget,
    requested_budget,
)
from agentprompt.services._workspace import Session, Workspace
from agentprompt.store import StoreError, default_cache_path
from agentprompt.tokens import shared_counter

__all__ = [
    "ApplyOutcome",
    "BridgeSessions",
    "EmptyReply",
    "FilesChanged",
    "InputAdded",
    "PackedPrompt",
    "PromptChoices",
    "ReplyChoices",
    "SessionInProgress",
    "StartRequest",
    "UndoOutcome",
]

Progress = Callable[[int, int], None]
"""Told ``(done, total)`` as a long apply goes on."""

ModelSource = Callable[[], ModelClient | None]
"""Gives the model that writes a round's commit message (None: no model, the message is
made from the round); asked only when a round is committed."""

BeforeSave = Callable[[BridgePrompt, BridgeState], None]
"""Runs once a prompt is made and before the session is saved (writing the prompt to a
file, checking a part number): if it raises, nothing is saved."""


SURELY_ENOUGH = 3_000
"""A budget this much above twice the task's tokens surely holds the system part and the
task (the bare prompt is not built to check it)."""

NEEDED = 10
"""How many of the files a task ranks best a size warning keeps (never suggesting to
leave out a folder holding one)."""


def _needed(view: RepoView, state: BridgeState) -> list[str]:
    """The files the session cannot do without: those in its context or focus, and the
    best ranked for its task."""
    from agentprompt.repo.rank import RankOptions, rank_repository

    if not state.task.strip():
        return [*state.files, *state.focus]
    ranked = rank_repository(
        view.root, state.task, RankOptions(focus=state.files), discovery=view.discovery
    ).ranking.scores()
    best = sorted(ranked, key=lambda p: -ranked[p])[:NEEDED]
    return [*state.files, *state.focus, *best]


def _round_name(record: RoundUndo) -> str:
    """The round as an error names it."""
    return f"round {record.rounds}"


class SessionInProgress(UsageError):
    """A new task was given while a session that has had replies is in progress."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        """How many replies the session in progress has had."""
        super().__init__(
            f"a bridge session is in progress (round {rounds})",
            fix="add {new} to replace it with this task, or leave out {task} to print its "
            "current prompt",
        )


class EmptyReply(UsageError):
    """A reply that is empty (or only whitespace), or, outside a session, holds no edit
    block, request or other marker: nothing to apply. (In a session such a reply is the
    model's answer, :attr:`ApplyOutcome.answer`.)"""

    def __init__(self) -> None:
        super().__init__(
            "{reply} holds no edit blocks, requests or other markers; nothing can be applied",
            input="reply",
            fix="check the {dialect}, or that the whole reply was given",
        )


@dataclass(frozen=True, kw_only=True)
class PromptChoices:
    """What a request may set for the prompts of a session; None keeps what the session
    has (a new session: the defaults)."""

    lang: str | None = None
    """The prompts' language (``en`` or ``ja``)."""
    max_tokens: int | NoBudget | None = None
    """The prompt's token budget, or ``"none"`` for no budget (the whole repository; see
    :mod:`agentprompt.services._budgets` for the default and its precedence)."""
    chat: str | None = None
    """A chat preset whose budget the prompts take (see
    :data:`~agentprompt.services.CHAT_BUDGETS`), when ``max_tokens`` is not given."""
    split_chars: int | None = None
    """Split into parts of at most this many characters."""
    split_tokens: int | None = None
    """Split into parts of at most this many tokens."""
    warn_tokens: int | None = None
    """Warn when a prompt is over this many tokens."""
    include_generated: bool = False
    """List generated and minified files too."""
    restate_tokens: int | None = None
    """A follow-up states the task again once the chat has read this many tokens since it
    last read it (0: every follow-up; see
    :data:`~agentprompt.bridge.state.DEFAULT_RESTATE_TOKENS`)."""


@dataclass(frozen=True, kw_only=True)
class StartRequest:
    """A new session: the task, the files to start from, the files to show at all."""

    task: str
    """What the model should do."""
    paths: tuple[str, ...] = ()
    """Files or folders to start from (in full in edit mode, ranked first in browse)."""
    mode: str | None = None
    """``browse`` or ``edit`` (None: edit when paths are given)."""
    includes: tuple[str, ...] = ()
    """Gitignore patterns: show only the files they match."""
    excludes: tuple[str, ...] = ()
    """Gitignore patterns: leave out the files they match."""
    new: bool = False
    """Replace a session that has had replies (without it that is refused)."""
    commit_rounds: bool = False
    """Commit the files each round of the session changes (as :attr:`ReplyChoices.commit`
    does for one apply)."""
    choices: PromptChoices = PromptChoices()
    """The prompts' language, budget, split and warning limits."""


@dataclass(frozen=True, kw_only=True)
class ReplyChoices:
    """How a reply is applied."""

    dialect: str = AUTO
    """The reply's dialect, or ``auto``."""
    dry_run: bool = False
    """Report what would change and write nothing (the session is not saved)."""
    partial: bool = False
    """Write the edits that matched even if others failed."""
    allow_whole_file: bool = False
    """Let a whole-file write replace a file the model never saw in full."""
    fix_encoding: bool = False
    """Repair a reply whose UTF-8 was read as Windows-1252 or Latin-1."""
    strict: bool = False
    """Apply only edits whose quoted lines match the file exactly; any looser placement
    (spacing, indentation, a line left out, fuzzy) is refused with feedback, and so is an
    edit to a file the session has not shown the model in full."""
    allow_hidden: bool = False
    """Let the reply write files the session cannot show the model: left out by its include
    and exclude patterns, or holding a likely secret (by default a reply never writes
    them)."""
    commit: bool = False
    """Commit the files the round changed, and only them, once it is applied (a session
    started with ``commit_rounds`` commits every round without it)."""


@dataclass(frozen=True, kw_only=True)
class PackedPrompt:
    """A session's prompt and the session it was made for (saved, unless asked not to)."""

    prompt: BridgePrompt
    """The prompt."""
    state: BridgeState
    """The session's state with this prompt sent."""
    view: RepoView
    """The repository as the prompt shows it."""
    size: SizeReport
    """How large the prompt is, and the warning when it is large."""
    started: bool
    """A new session was started (else the prompt is the current one's)."""


@dataclass(frozen=True, kw_only=True)
class ApplyOutcome:
    """What applying a reply did: the edit engine's report and, in a session, the round."""

    report: ApplyReport
    """Each edit's outcome, the diff, the feedback, what the reply asked for."""
    round: Round | None = None
    """The session's next state and prompt (None: no session, or it could not be made)."""
    saved: bool = False
    """The session's new state was saved."""
    round_error: UsageError | None = None
    """Why the next prompt could not be made (the session moved on all the same, unless a
    dry run)."""
    save_error: StoreError | None = None
    """Why the session could not be saved after the reply's edits were written."""
    answer: Answer | None = None
    """The reply held nothing to apply: the model's answer, recorded in the session (whose
    next prompt, in :attr:`round` too, is made only when the user added a note or a
    command's output for it)."""
    commit: CommitResult | None = None
    """The round's git commit, when one was asked for and files were written."""
    commit_error: AgentPromptError | None = None
    """Why the round's files could not be committed (they stay written, the round
    applied)."""

    @property
    def written(self) -> tuple[str, ...]:
        """The files the reply's edits wrote, sorted."""
        return tuple(sorted(self.report.planned)) if self.report.written else ()


@dataclass(frozen=True, kw_only=True)
class UndoOutcome:
    """What undoing the last applied round did (or, in a dry run, would do)."""

    session_id: str
    """The session's id."""
    undone: int
    """The number of the round taken back."""
    state: BridgeState
    """The session's state now (as it was before that round)."""
    files: RevertReport
    """The files put back, with the diff from how they were to how they are now."""
    commit: str | None = None
    """The commit made for the round: undo leaves it in git's history."""
    left: int = 0
    """How many earlier rounds can still be undone."""
    dry_run: bool = False
    """Nothing was changed."""

    def to_json(self) -> dict[str, Any]:
        """The outcome as JSON-ready data (what every door prints)."""
        return {
            "id": self.session_id,
            "undone": self.undone,
            "rounds": self.state.rounds,
            **self.files.to_json(),
            "commit": self.commit,
            "left": self.left,
            "state": self.state.to_json(),
        }


@dataclass(frozen=True, kw_only=True)
class FilesChanged:
    """The session after files were added to or dropped from its context."""

    session_id: str
    """The session's id."""
    state: BridgeState
    """Its new state (saved)."""
    changed: tuple[str, ...]
    """The files added, or dropped."""


@dataclass(frozen=True, kw_only=True)
class InputAdded:
    """The session after the user added a note or a command's output to its next prompt."""

    session_id: str
    """The session's id."""
    state: BridgeState
    """Its new state (saved)."""
    run: CommandRun | None = None
    """The command that was run, as the next prompt shows it (None: a note was added)."""


class BridgeSessions:
    """The copy-paste bridge's sessions in one workspace."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        """The repository and what is kept for it."""

    @property
    def _root(self) -> Path:
        return self.workspace.root

    def start(
        self,
        request: StartRequest,
        *,
        report: bool = False,
        split: bool = True,
        save: bool = True,
        before_save: BeforeSave | None = None,
    ) -> PackedPrompt:
        """Start a session for ``request`` and make its first prompt (``report``: with
        tokens per section; ``split``: planned into parts). ``save`` false leaves any
        session in progress as it is."""
        if not request.task.strip():
            raise UsageError("{task} is empty", input="task", fix="say what the model should do")
        if request.commit_rounds:
            check_committable(self._root)
        if save and not request.new:
            found = self.workspace.session()
            if found is not None and found[1].rounds > 0:
                raise SessionInProgress(found[1].rounds)
        choices = request.choices
        budget = chosen_budget(
            choices.max_tokens,
            choices.chat,
            environ=self.workspace.config.max_tokens,
            root=self._root,
        )
        make = partial(
            BridgeState.starting,
            request.task,
            mode=request.mode,
            lang=choices.lang or self.workspace.config.lang,
            max_tokens=budget.tokens,
            split_chars=choices.split_chars,
            split_tokens=choices.split_tokens,
            include_generated=choices.include_generated,
            includes=request.includes,
            excludes=request.excludes,
            warn_tokens=choices.warn_tokens,
            commit_rounds=request.commit_rounds,
        )
        state, view = starting_state(self._root, request.paths, make)
        state = replace(state, restate_tokens=_restate(choices.restate_tokens))
        self._check_floor(budget, state, view)
        prompt, state = self._made(state, view, save, report, split, before_save)
        if save:
            start_session(self._root, state)
        return self._packed(prompt, state, view, started=True)

    def current(
        self,
        choices: PromptChoices = PromptChoices(),
        *,
        full: bool = False,
        report: bool = False,
        split: bool = True,
        before_save: BeforeSave | None = None,
    ) -> PackedPrompt:
        """The current prompt of the session in progress (``full``: everything again, for
        a new chat). The choices given are the session's from then on (the next apply's
        prompt uses them too); the round does not move, so asking twice gives the same
        prompt."""
        budget = requested_budget(choices.max_tokens, choices.chat)
        session_id, stored = load_session(self._root)
        state = stored
        if choices.split_chars is not None or choices.split_tokens is not None:
            state = replace(
                state, split_chars=choices.split_chars, split_tokens=choices.split_tokens
            )
        state = replace(
            state,
            lang=choices.lang or state.lang,
            max_tokens=budget.tokens if budget is not None else state.max_tokens,
            include_generated=choices.include_generated or state.include_generated,
            warn_tokens=(
                choices.warn_tokens if choices.warn_tokens is not None else state.warn_tokens
            ),
            resend=state.resend or full,
        )
        if choices.restate_tokens is not None:
            state = replace(state, restate_tokens=_restate(choices.restate_tokens))
        view = session_view(self._root, state)
        if budget is not None:
            self._check_floor(budget, state, view)
        prompt, state = self._made(state, view, True, report, split, before_save)
        if state != stored:
            save_state(self._root, session_id, state)
        return self._packed(prompt, state, view, started=False)

    def _check_floor(self, budget: BudgetChoice, state: BridgeState, view: RepoView) -> None:
        """Refuse ``budget`` when it cannot hold ``state``'s first prompt with no file at
        all (the system part and the task): the error names the smallest budget."""
        if budget.tokens is None:
            return
        # The system part is about 1,000 tokens in English, 1,400 in Japanese: a budget
        # well above that and the task needs no exact count of the bare prompt.
        if budget.tokens >= SURELY_ENOUGH + 2 * self.workspace.counter.count(state.task):
            return
        bare = BridgeState.starting(state.task, (), mode=state.mode, lang=state.lang)
        empty = replace(view, listed=(), notes={}, summaries={}, entry_points=frozenset())
        floor = build_prompt(self._root, bare, view=empty, split=False).tokens
        if floor is not None:
            check_floor(budget, floor)

    def _made(
        self,
        state: BridgeState,
        view: RepoView,
        remember: bool,
        report: bool,
        split: bool,
        before_save: BeforeSave | None,
    ) -> tuple[BridgePrompt, BridgeState]:
        """The prompt for ``state`` and the state with it sent, once ``before_save`` (if
        any) has accepted it."""
        prompt = build_prompt(
            self._root, state, view=view, remember=remember, report=report, split=split
        )
        # The model sees this prompt: the files it holds in full are ones a reply may
        # rewrite, and what it sends is pending until a reply to it is applied.
        state = state.after_prompt(prompt.shown_in_full, prompt.sends, task=prompt.task_told)
        if before_save is not None:
            before_save(prompt, state)
        return prompt, state

    def _packed(
        self, prompt: BridgePrompt, state: BridgeState, view: RepoView, *, started: bool
    ) -> PackedPrompt:
        threshold = state.warn_tokens or self.workspace.config.warn_tokens
        return PackedPrompt(
            prompt=prompt,
            state=state,
            view=view,
            size=size_report(prompt, threshold, partial(_needed, view, state)),
            started=started,
        )

    def apply(
        self,
        reply: str,
        choices: ReplyChoices = ReplyChoices(),
        *,
        session: bool = True,
        progress: Progress | None = None,
        note: str | None = None,
        commit_model: ModelSource | None = None,
    ) -> ApplyOutcome:
        """Apply ``reply`` as one transaction and, when a session is in progress (and
        ``session``), run its round: the session advances and the next prompt is made
        (with the user's ``note``, if given, in it).

        A real apply and the session's update are one critical section (see
        :meth:`Workspace.applying`); a dry run takes no lock and saves nothing, and its
        round gives the prompt a real apply would make next. In a session, a reply holding
        nothing to apply is the model's answer (:attr:`ApplyOutcome.answer`); an empty one,
        or outside a session one holding nothing to apply, is :class:`EmptyReply`, with
        nothing written. A bad ``note`` is refused before anything is applied.

        A round is kept so that :meth:`undo` can take it back, and, with ``choices.commit``
        or in a session started with ``commit_rounds``, the files it changed are committed
        (the message from the model ``commit_model`` gives, if any, else made from the
        round); with no
        git repository to commit in, that is refused and nothing is applied.
        """
        select_dialects(choices.dialect)
        checked = check_note(note) if note is not None else None
        if not reply.strip():
            raise EmptyReply()
        if checked is not None and (not session or self.workspace.session() is None):
            raise NoBridgeSession(self._root)
        self._check_commit(choices, session)
        if choices.dry_run:
            found = self.workspace.session() if session else None
            report = self._apply(reply, choices, found, progress)
            return self._round(found, report, keep=False, reply=reply, note=checked)
        report_seen: ApplyReport | None = None
        try:
            with self.workspace.applying(session=session) as found:
                # The repository as the round begins: the reply's requests are judged by
                # its ignore rules, not by ones the reply itself rewrites.
                before = (
                    self.workspace.view(
                        summaries=False, include_generated=found[1].include_generated
                    )
                    if found is not None
                    else None
                )
                report_seen = self._apply(reply, choices, found, progress)
                outcome = self._round(
                    found, report_seen, keep=True, before=before, reply=reply, note=checked
                )
                if found is not None:
                    commit = choices.commit or found[1].commit_rounds
                    outcome = self._kept(found, outcome, commit, commit_model)
                return outcome
        except StoreError as exc:
            if report_seen is None or not report_seen.written:
                raise
            return ApplyOutcome(report=report_seen, save_error=exc)

    def _check_commit(self, choices: ReplyChoices, session: bool) -> None:
        """Refuse, before anything is applied, a commit that cannot be made: no session
        to commit a round of, or no git repository to commit in."""
        found = self.workspace.session() if session else None
        if choices.commit and found is None:
            raise UsageError(
                "{commit} commits a bridge session's round, and there is no session",
                input="commit",
                fix="start one with {start_session}, or leave out {commit}",
            )
        if choices.commit or (found is not None and found[1].commit_rounds):
            check_committable(self._root)

    def _kept(
        self,
        found: Session,
        outcome: ApplyOutcome,
        commit: bool,
        model: ModelSource | None,
    ) -> ApplyOutcome:
        """``outcome`` once its round is committed (when asked and files were written) and
        kept for :meth:`undo` (in the apply's transaction)."""
        session_id, state = found
        report = outcome.report
        if not outcome.saved:
            return outcome
        made: CommitResult | None = None
        if commit and report.written:
            try:
                made = self._commit(state, report, model)
            except AgentPromptError as exc:
                outcome = replace(outcome, commit_error=exc)
        keep_round(
            self._root,
            RoundUndo(
                session_id=session_id,
                rounds=state.rounds + 1,
                state=state,
                files=report.originals if report.written else (),
                commit=made.commit if made is not None else None,
            ),
        )
        return replace(outcome, commit=made)

    def _commit(
        self, state: BridgeState, report: ApplyReport, source: ModelSource | None
    ) -> CommitResult:
        """Commit the files the round wrote, and only them."""
        files = [
            (f.path, "created" if f.before is None else "deleted" if f.after is None else "changed")
            for f in report.originals
        ]
        paths = [path for path, _ in files]
        message = round_message(state.task, state.rounds + 1, files, root=self._root)
        model = source() if source is not None else None
        if model is not None:
            diff = paths_diff(self._root, paths)
            try:
                made = get_commit_message(diff, model, root=self._root) if diff.strip() else None
            except AgentPromptError:
                made = None
            if made is not None and made.action != "invalid":
                message = made.text
        return commit_files(self._root, paths, message)

    def undo(self, *, dry_run: bool = False) -> UndoOutcome:
        """Take the session's last applied round back: every file it wrote, created or
        deleted goes back to its bytes and mode before the apply (one transaction), and the
        session's state to what it was before the round. Walks back one round per call,
        as far as rounds are kept (:data:`~agentprompt.bridge.undo.KEEP_ROUNDS`).

        Refused (a :class:`~agentprompt.errors.UsageError`, nothing changed) when no round
        is kept, when the session was cleared or replaced since, and
        (:class:`~agentprompt.edits.ChangedSince`, naming them) when a file the round
        wrote was changed since. A commit made for the round stays in git's history: the
        files then differ from it, for the user to commit or reset.
        """
        if dry_run:
            number, record = undoable(self.workspace.session(), last_round(self._root))
            files = revert_files(self._root, record.files, dry_run=True, what=_round_name(record))
            return self._undone(record, files, left=rounds_kept(self._root, record.session_id))
        reverted: RevertReport | None = None
        try:
            with self.workspace.applying() as found:
                number, record = undoable(found, last_round(self._root))
                reverted = revert_files(self._root, record.files, what=_round_name(record))
                save_state(self._root, record.session_id, record.state)
                forget_round(self._root, number)
                left = rounds_kept(self._root, record.session_id)
        except BaseException:
            if reverted is not None:
                # The session could not be taken back: the files go forward again, so the
                # round stands whole (all or nothing).
                revert_files(self._root, reverted.redo, what="the undo")
            raise
        return self._undone(record, reverted, left=left)

    def _undone(self, record: RoundUndo, files: RevertReport, *, left: int) -> UndoOutcome:
        return UndoOutcome(
            session_id=record.session_id,
            undone=record.rounds,
            state=record.state,
            files=files,
            commit=record.commit,
            left=max(0, left - 1) if files.dry_run else left,
            dry_run=files.dry_run,
        )

    def _apply(
        self,
        reply: str,
        choices: ReplyChoices,
        found: Session | None,
        progress: Progress | None,
    ) -> ApplyReport:
        options = reply_options(
            found[1] if found is not None else None,
            dry_run=choices.dry_run,
            partial=choices.partial,
            allow_whole_file=choices.allow_whole_file,
            fix_encoding=choices.fix_encoding,
            strict=choices.strict,
            root=self._root,
            allow_hidden=choices.allow_hidden,
        )
        if progress is not None:
            options = replace(options, progress=progress)
        report = apply_reply(self._root, reply, choices.dialect, options)
        if report.empty and found is None:
            raise EmptyReply()
        return report

    def _round(
        self,
        found: Session | None,
        report: ApplyReport,
        *,
        keep: bool,
        before: RepoView | None = None,
        reply: str = "",
        note: str | None = None,
    ) -> ApplyOutcome:
        if found is None:
            return ApplyOutcome(report=report)
        session_id, state = found
        if note is not None:
            state = state.with_note(note)
        saved: list[BridgeState] = []

        def save(new: BridgeState) -> None:
            save_state(self._root, session_id, new)
            saved.append(new)

        tokens = shared_counter().count(reply)
        if report.empty:
            answer = answered(
                self._root,
                state,
                reply,
                keep=save if keep else None,
                reply_tokens=tokens,
                dry_run=not keep,
            )
            step = (
                Round(state=answer.state, prompt=answer.prompt)
                if answer.prompt is not None
                else None
            )
            return ApplyOutcome(report=report, round=step, saved=bool(saved), answer=answer)
        try:
            outcome = run_round(
                self._root,
                state,
                report,
                keep=save if keep else None,
                before=before,
                reply_tokens=tokens,
            )
        except UsageError as exc:
            # The reply's edits are on disk: the session follows them (saved above) even
            # though its next prompt cannot be made.
            return ApplyOutcome(report=report, saved=bool(saved), round_error=exc)
        return ApplyOutcome(report=report, round=outcome, saved=bool(saved))

    def add(self, files: Sequence[str]) -> FilesChanged:
        """Put ``files`` (or every file under a folder) in the session's context in full;
        an unknown file changes nothing."""
        session_id, state = load_session(self._root)
        new, added = add_files(session_view(self._root, state), state, files)
        if new != state:
            save_state(self._root, session_id, new)
        return FilesChanged(session_id=session_id, state=new, changed=tuple(added))

    def drop(self, files: Sequence[str]) -> FilesChanged:
        """Take ``files`` (or folders) out of the session's context; a file not in context
        changes nothing."""
        session_id, state = load_session(self._root)
        new = drop_files(self._root, state, files)
        save_state(self._root, session_id, new)
        gone = tuple(p for p in state.files if p not in new.files)
        return FilesChanged(session_id=session_id, state=new, changed=gone)

    def note(self, text: str) -> InputAdded:
        """Add the user's note ``text`` to the next prompt (kept in the session until a
        prompt holding it is made); a bad note (:class:`~agentprompt.bridge.inputs.BadNote`)
        changes nothing."""
        checked = check_note(text)
        session_id, state = load_session(self._root)
        new = state.with_note(checked)
        save_state(self._root, session_id, new)
        return InputAdded(session_id=session_id, state=new)

    def run(
        self,
        command: Sequence[str],
        *,
        timeout: float = DEFAULT_RUN_TIMEOUT,
        max_tokens: int = DEFAULT_OUTPUT_TOKENS,
    ) -> InputAdded:
        """Run ``command`` in the repository root (no shell) and add its output and exit
        status to the next prompt: a command that fails is what the model should see (a
        test run's failures); one that runs past ``timeout`` seconds is killed, and that is
        said. The output is trimmed to ``max_tokens`` and screened for secrets before it is
        kept. A command that cannot be started
        (:class:`~agentprompt.bridge.inputs.CommandNotStarted`) changes nothing."""
        if timeout <= 0:
            raise UsageError(
                "{timeout} must be more than 0 seconds", input="timeout", fix="give the seconds"
            )
        if max_tokens <= 0:
            raise UsageError(
                "{max_tokens} must be more than 0",
                input="max_tokens",
                fix="give how many tokens of output the prompt may show",
            )
        _, state = load_session(self._root)
        ran = run_command(
            self._root,
            command,
            timeout=timeout,
            max_tokens=max_tokens,
            lang=state.lang,
            cache_path=default_cache_path(self._root),
        )
        # The command may have run for minutes: the session is read again, so an apply
        # made meanwhile is not undone.
        session_id, state = load_session(self._root)
        new = state.with_run(ran)
        save_state(self._root, session_id, new)
        return InputAdded(session_id=session_id, state=new, run=ran)

    def status(self) -> Session:
        """The session in progress (its id and state); ``NoBridgeSession`` when none."""
        return load_session(self._root)

    def reset(self) -> int:
        """Clear the session (no file is touched); how many sessions there were."""
        return clear_session(self._root)

    def recover(self, *, dry_run: bool = False) -> RecoveryReport:
        """Roll back an apply that was interrupted (``dry_run``: say what would be
        restored, change nothing)."""
        return recover(self._root, dry_run=dry_run)


def _restate(tokens: int | None) -> int | None:
    """``tokens`` as the session's restating threshold (a negative one is refused)."""
    if tokens is not None and tokens < 0:
        raise UsageError(
            "{restate_tokens} must be 0 or more",
            input="restate_tokens",
            fix="give the tokens after which the task is stated again (0: every follow-up)",
        )
    return tokens
