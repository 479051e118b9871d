"""A bridge round: what the reply's blocks do to the session and the files.

After the edits are applied (one transaction, by the edit engine), the reply's file
requests add files to the context, a mode switch changes the mode for the files it names,
and a CONTINUE records what is still owed so the next prompt is the follow-up. Files that
cannot be shown are remembered with the reason and reported in the next prompt.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from agentprompt.bridge._requests import resolve_requests
from agentprompt.bridge._secretcache import cached_scan, text_digest
from agentprompt.bridge._sentstore import remember_texts
from agentprompt.bridge.pack import BridgePrompt, build_prompt, session_view
from agentprompt.bridge.state import BridgeState
from agentprompt.bridge.view import Overlay, RepoView, overlay_view
from agentprompt.edits.apply import ApplyOptions, ApplyReport
from agentprompt.repo.discovery import read_texts
from agentprompt.repo.discovery.patterns import left_out_by
from agentprompt.repo.secrets import scan_texts
from agentprompt.store import default_cache_path

__all__ = ["Answer", "Round", "advance", "answered", "reply_options", "run_round"]


@dataclass(frozen=True, kw_only=True)
class Round:
    """The outcome of one round."""

    state: BridgeState
    """The session's state after the reply."""
    prompt: BridgePrompt
    """The next prompt."""
    added: tuple[str, ...] = ()
    """Files the reply asked for that are now in context."""
    missing: tuple[tuple[str, str], ...] = ()
    """Files the reply asked for that cannot be shown, with the reason."""


def reply_options(
    state: BridgeState | None,
    *,
    dry_run: bool = False,
    partial: bool = False,
    allow_whole_file: bool = False,
    fix_encoding: bool = False,
    strict: bool = False,
    root: Path | None = None,
    allow_hidden: bool = False,
) -> ApplyOptions:
    """How to apply a reply in ``state``'s session (``None``: no session, the engine's
    defaults): the edit engine words its feedback in the session's language, because the
    next prompt quotes that feedback in the middle of the session's prompt, and refuses a
    whole-file write over a file the session never showed in full (unless
    ``allow_whole_file``): in browse mode the model has seen only its outline.
    ``fix_encoding`` repairs a reply whose UTF-8 was read as Windows-1252; ``strict``
    applies exact matches only. Given the session's ``root``, the reply may not write a
    file the session never shows (:func:`hidden_files`) unless ``allow_hidden``."""
    if state is None:
        return ApplyOptions(
            dry_run=dry_run,
            partial=partial,
            allow_whole_file=allow_whole_file,
            fix_encoding=fix_encoding,
            strict=strict,
        )
    return ApplyOptions(
        dry_run=dry_run,
        partial=partial,
        lang=state.lang,
        seen_in_full=frozenset(state.shown),
        short_feedback=True,
        allow_whole_file=allow_whole_file,
        fix_encoding=fix_encoding,
        strict=strict,
        hidden=hidden_files(root, state) if root is not None else None,
        allow_hidden=allow_hidden,
    )


def hidden_files(root: Path, state: BridgeState) -> Callable[[str], bool]:
    """Whether a path is a file the session's prompts never show: one its include or
    exclude patterns leave out, or an existing file holding a likely secret (withheld from
    every prompt; the verdict remembered in the root's cache, as the prompts remember
    theirs). Each path is decided once."""
    patterns = (
        left_out_by(state.includes, state.excludes) if state.includes or state.excludes else None
    )
    cache = default_cache_path(root)

    @functools.cache
    def hidden(path: str) -> bool:
        if patterns is not None and patterns(path):
            return True
        try:
            text = (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        return bool(cached_scan([(path, text)], scan_texts, cache)[path])

    return hidden


def _still_owed(state: BridgeState, report: ApplyReport) -> tuple[str, ...] | None:
    """What the next prompt asks the model to continue with, or None for a full prompt.

    A reply that ends with CONTINUE names what it still owes. A reply cut off inside a
    block (the chat's output limit) is the same situation: the model is asked to continue,
    resending that block, and whatever an earlier CONTINUE still owed stays owed.
    """
    if report.continue_ is not None:
        return report.continue_.paths
    if any(d.code == "truncated" for d in report.diagnostics):
        return state.continuation or ()
    return None


def advance(
    state: BridgeState,
    report: ApplyReport,
    view: RepoView,
    root: Path | None = None,
    *,
    reply_tokens: int = 0,
) -> tuple[BridgeState, tuple[str, ...]]:
    """The state after ``report``'s reply (``reply_tokens`` long), and the files it added
    to the context (reasons for the files that cannot be shown are worded in the session's
    language, with the prompt files of ``root``)."""
    # The chat has the prompt the reply answers: what it sent is the chat's now.
    state = state.with_reply(reply_tokens)
    deleted = {a.path for a in report.applied if a.action == "delete"}
    written = tuple(a.path for a in report.applied if a.action == "write")
    touched = [a.path for a in report.applied if a.action in ("write", "patch", "edit", "replace")]
    files = [p for p in state.files if p not in deleted]
    mode = state.mode
    found, missing = resolve_requests(view, report.requests, state.lang, root)
    # A file asked for is sent (again) in full, even one the chat was shown before.
    sent = tuple((p, d) for p, d in state.sent if p not in found)
    dropped = tuple(p for p in state.dropped if p not in found)
    added = [p for p in found if p not in files]
    files += added
    if found:
        mode = "edit"
    switch = report.switch_mode
    if switch is not None:
        named, unknown = resolve_requests(view, switch.paths, state.lang, root)
        missing += unknown
        if switch.mode == "edit":
            mode = "edit"
            fresh = [p for p in named if p not in files]
            added += fresh
            files += fresh
        elif switch.mode == "browse":
            # No files named: all go back to summaries; named but unknown: none do.
            files = [p for p in files if p not in named] if switch.paths else []
            mode = "edit" if files else "browse"
    if mode == "edit":
        files += [p for p in touched if p not in files and p not in deleted and p not in dropped]
    new = replace(
        state,
        mode=mode,
        files=tuple(dict.fromkeys(files)),
        rounds=state.rounds + 1,
        continuation=_still_owed(state, report),
        missing=tuple(dict.fromkeys(missing)),
        feedback=report.feedback,
        sent=sent,
        dropped=dropped,
    ).with_shown(written)
    return new, tuple(dict.fromkeys(added))


def _written_by(root: Path, report: ApplyReport, overlay: Overlay) -> dict[str, str]:
    """The digests of the files the reply's edits wrote, as they are now (the overlay's
    texts in a dry run): the chat knows them, since its reply made them."""
    touched = [a.path for a in report.applied if a.action in ("write", "patch", "edit", "replace")]
    if not touched:
        return {}
    contents, _ = read_texts(root, [p for p in touched if p not in overlay])
    contents.update({p: t for p, t in overlay.items() if p in touched and t is not None})
    if not report.dry_run:
        remember_texts(default_cache_path(root), {text_digest(t): t for t in contents.values()})
    return {p: text_digest(t) for p, t in contents.items()}


def _as_then(view: RepoView, before: RepoView, report: ApplyReport) -> RepoView:
    """``view`` as the reply's requests are judged: by the rules of the round's start
    (``before``), so a file those left out (an ignore rule) stays out even when the reply's
    own edits (to ``.gitignore``, say) brought it in; the files the reply wrote are in."""
    then = set(before.paths)
    hidden = {p for p in view.paths if p not in then and p not in report.planned}
    if not hidden:
        return view
    kept = tuple(p for p in view.paths if p not in hidden)
    return replace(view, discovery=before.discovery, listed=kept)


def run_round(
    root: Path,
    state: BridgeState,
    report: ApplyReport,
    *,
    keep: Callable[[BridgeState], None] | None = None,
    before: RepoView | None = None,
    reply_tokens: int = 0,
) -> Round:
    """The session's next state and prompt after a reply was applied (as ``report`` says).

    ``keep`` receives the next state before the prompt is built: the reply's edits are
    already on disk, so the session must follow them even when the prompt then cannot be
    made (a split limit or budget the new files do not fit raises its usage error); once
    the prompt is built it receives the state again with the files the prompt shows in full
    among those the model has seen. ``before``: the repository's view taken before the
    reply was applied, by whose rules its requests are judged. ``reply_tokens``: the
    reply's length, which the chat has read (:attr:`BridgeState.since_task`).
    """
    # A dry run wrote nothing: its next prompt shows the files as the reply's edits would
    # leave them, so it is the prompt a real apply would make.
    overlay = report.planned if report.dry_run else {}
    view = overlay_view(session_view(root, state), overlay)
    judge = view if before is None else _as_then(view, before, report)
    new, added = advance(state, report, judge, root, reply_tokens=reply_tokens)
    new = new.with_sent(_written_by(root, report, overlay))
    if keep is not None:
        keep(new)
    prompt = build_prompt(root, new, view=view, overlay=overlay, remember=keep is not None)
    shown = new.after_prompt(prompt.shown_in_full, prompt.sends, task=prompt.task_told)
    if keep is not None and shown != new:
        keep(shown)
    return Round(state=shown, prompt=prompt, added=added, missing=shown.missing)


@dataclass(frozen=True, kw_only=True)
class Answer:
    """A reply that held nothing to apply: the model's answer for the round."""

    state: BridgeState
    """The session's state after it (the answer recorded)."""
    prompt: BridgePrompt | None = None
    """The next prompt, when the user had added something for it (a note, a command's
    output); None: the next prompt waits for the user's input."""


def answered(
    root: Path,
    state: BridgeState,
    answer: str,
    *,
    keep: Callable[[BridgeState], None] | None = None,
    reply_tokens: int = 0,
    dry_run: bool = False,
) -> Answer:
    """The session after a reply holding no edit, request or marker (``answer``, the
    model's words: the work is done, or it asks something): the round moves on with the
    answer recorded, and the next prompt is made now only when the user has added a note
    or a command's output for it (else it is made once they do). ``keep`` receives each
    state to save, as in :func:`run_round`; ``dry_run`` remembers no text."""
    new = replace(
        state.with_reply(reply_tokens),
        rounds=state.rounds + 1,
        continuation=None,
        missing=(),
        feedback="",
    )
    new = replace(new, answer=answer.strip())
    if keep is not None:
        keep(new)
    if not new.waiting_input:
        return Answer(state=new)
    prompt = build_prompt(root, new, remember=keep is not None and not dry_run)
    shown = new.after_prompt(prompt.shown_in_full, prompt.sends, task=prompt.task_told)
    if keep is not None:
        keep(shown)
    return Answer(state=shown, prompt=prompt)
