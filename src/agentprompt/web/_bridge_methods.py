"""The page's bridge methods: build a round's prompt, preview a pasted reply, apply it.

They are the adapter between JSON-RPC params and the bridge's public API, doing what
``agentprompt pack`` and ``agentprompt apply`` do (a ``task`` starts a session, no task
shows the current prompt; apply is the edit engine's one transaction, then the bridge round
that advances the session), so a session can move between the page and the terminal.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from agentprompt.bridge.context import RepoView, UnknownFile, view_repository
from agentprompt.bridge.control import add_files, drop_files
from agentprompt.bridge.pack import BridgePrompt, build_prompt, session_view, starting_state
from agentprompt.bridge.rounds import reply_options, run_round
from agentprompt.bridge.split import prompt_sections
from agentprompt.bridge.state import (
    BridgeState,
    find_session,
    held_session,
    load_session,
    save_state,
)
from agentprompt.bridge.state import start_session as store_session
from agentprompt.bridge.text import LANGS, default_lang
from agentprompt.edits.apply import ApplyReport, apply_reply
from agentprompt.edits.dialects import AUTO, DIALECTS
from agentprompt.edits.journal import WriteFailed, locked
from agentprompt.errors import UsageError
from agentprompt.store import StoreError
from agentprompt.tokens import shared_counter
from agentprompt.web._params import check_unknown, count, flag, safe_paths, text, text_list
from agentprompt.web._rpc import InvalidParams

__all__ = [
    "apply_reply_method",
    "bridge_add_method",
    "bridge_drop_method",
    "build_prompt_method",
    "preview_reply_method",
    "prompt_json",
]

Keep = Callable[[BridgeState], None]
"""Saves the session's next state."""

LOCK_WAIT = 120.0
"""How long (seconds) an apply waits for another apply of the same root to finish."""


def prompt_json(prompt: BridgePrompt, state: BridgeState) -> dict[str, Any]:
    """A prompt as the page shows it: its parts (split as the bridge splits) and its
    sections (cut at its headings), each with its exact token count, and the session state
    it was built from."""
    counter = shared_counter()
    parts = [
        {"index": i, "text": part, "tokens": counter.count(part)}
        for i, part in enumerate(prompt.parts, start=1)
    ]
    data = prompt.to_json()
    data["parts"] = parts
    data["sections"] = [
        {"title": title, "tokens": counter.count(part), "chars": len(part)}
        for title, part in prompt_sections(prompt.text)
    ]
    data["state"] = state.to_json()
    return data


_BUILD_PARAMS = ("task", "mode", "files", "lang", "full", "new", "include", "exclude", "max_tokens")


def build_prompt_method(root: Path, params: Mapping[str, Any]) -> dict[str, Any]:
    """``build_prompt``: with ``task``, start a session over ``files`` in ``mode`` (as
    ``pack --task``; once a reply was applied in the session in progress, only with
    ``new``), showing only the files ``include`` keeps and ``exclude`` leaves (gitignore
    patterns, as ``pack --include/--exclude``; a pattern matching no file is refused);
    without it, the current prompt of the session in progress (``full``: all of it again,
    for a new chat). ``max_tokens`` is the prompt's budget, kept for the session."""
    check_unknown(params, _BUILD_PARAMS, "build_prompt")
    task = text(params, "task")
    full = flag(params, "full")
    new = flag(params, "new")
    mode = text(params, "mode", choices=("browse", "edit"))
    lang = text(params, "lang", choices=LANGS)
    files = safe_paths(root, text_list(params, "files"), "files")
    includes = text_list(params, "include", "gitignore patterns")
    excludes = text_list(params, "exclude", "gitignore patterns")
    max_tokens = count(params, "max_tokens")
    if task is None:
        if files or mode or includes or excludes:
            raise InvalidParams(
                'params "files", "mode", "include" and "exclude" start a new session; give '
                '"task" too (without it, build_prompt shows the current prompt of the '
                "session in progress)"
            )
        session_id, stored = load_session(root)
        state = replace(
            stored,
            lang=lang or stored.lang,
            resend=stored.resend or full,
            max_tokens=max_tokens if max_tokens is not None else stored.max_tokens,
        )
        prompt = build_prompt(root, state, view=session_view(root, state), remember=True)
        # What the prompt sends is pending until a reply to it is applied (as pack does).
        state = state.after_prompt(prompt.shown_in_full, prompt.sends)
        if state != stored:
            save_state(root, session_id, state)
        return prompt_json(prompt, state)
    if not task.strip():
        raise InvalidParams('param "task" is empty; say what the model should do')
    found = find_session(root)
    if found is not None and found[1].rounds > 0 and not new:
        raise InvalidParams(
            f'a bridge session is in progress (round {found[1].rounds}); give "new": true '
            'to replace it with this task, or leave out "task" to show its current prompt'
        )
    make = partial(
        BridgeState.starting,
        task,
        mode=mode,
        lang=lang or default_lang(os.environ),
        max_tokens=max_tokens,
        includes=includes,
        excludes=excludes,
    )
    try:
        state, view = starting_state(root, files, make)
    except UnknownFile:
        raise
    except UsageError as exc:
        raise InvalidParams(f'params "include"/"exclude": {exc}') from None
    prompt = build_prompt(root, state, view=view, remember=True)
    state = state.after_prompt(prompt.shown_in_full, prompt.sends)
    store_session(root, state)
    return prompt_json(prompt, state)


def _changed_session(
    root: Path, params: Mapping[str, Any], method: str, drop: bool
) -> dict[str, Any]:
    check_unknown(params, ("files",), method)
    files = safe_paths(root, text_list(params, "files"), "files")
    if not files:
        raise InvalidParams('param "files" is empty; name the files to ' + method[7:])
    session_id, stored = load_session(root)
    view = session_view(root, stored)
    try:
        if drop:
            state = drop_files(root, stored, files)
        else:
            state, _ = add_files(view, stored, files)
    except UsageError as exc:
        raise InvalidParams(f'param "files": {exc}') from None
    prompt = build_prompt(root, state, view=view, remember=True)
    state = state.after_prompt(prompt.shown_in_full, prompt.sends)
    save_state(root, session_id, state)
    return prompt_json(prompt, state)


def bridge_add_method(root: Path, params: Mapping[str, Any]) -> dict[str, Any]:
    """``bridge_add``: put ``files`` in the session's context in full (as ``bridge add``);
    returns the next prompt. An unknown file changes nothing."""
    return _changed_session(root, params, "bridge_add", drop=False)


def bridge_drop_method(root: Path, params: Mapping[str, Any]) -> dict[str, Any]:
    """``bridge_drop``: take ``files`` out of the session's context (as ``bridge drop``);
    returns the next prompt. A file not in context changes nothing."""
    return _changed_session(root, params, "bridge_drop", drop=True)


def _reply_params(params: Mapping[str, Any], method: str) -> tuple[str, str]:
    check_unknown(
        params, ("reply", "dialect", "partial", "allow_whole_file", "fix_encoding"), method
    )
    reply = text(params, "reply", required=True) or ""
    dialect = text(params, "dialect", choices=(AUTO, *sorted(DIALECTS))) or AUTO
    return reply, dialect


def _check_not_empty(report: ApplyReport) -> None:
    if report.empty:
        raise InvalidParams(
            "the reply holds no edit blocks, requests or other markers; nothing can be "
            'applied (check the "dialect", or that the whole reply was pasted)'
        )


def _round_json(
    root: Path,
    state: BridgeState,
    report: ApplyReport,
    *,
    keep: Keep | None,
    before: RepoView | None = None,
) -> dict[str, Any]:
    """The bridge round after ``report`` (saved through ``keep``; a dry run's report gives
    the prompt a real apply would make next, with nothing saved)."""
    saved = keep is not None
    try:
        outcome = run_round(root, state, report, keep=keep, before=before)
    except UsageError as exc:
        done = "the reply was applied and the session moved on, but " if saved else ""
        return {
            "saved": saved,
            "error": f"{done}the next prompt cannot be made: {exc}; start a new session with "
            "another task",
        }
    return {
        "saved": saved,
        "added": list(outcome.added),
        "missing": [{"path": p, "reason": r} for p, r in outcome.missing],
        "prompt": prompt_json(outcome.prompt, outcome.state),
    }


def preview_reply_method(root: Path, params: Mapping[str, Any]) -> dict[str, Any]:
    """``preview_reply``: what applying ``reply`` would do (diffs for the edits, requested
    files, a mode switch, a continuation), with nothing written; when a bridge session is in
    progress, ``bridge`` holds the next prompt exactly as applying would make it (the
    files shown as the reply's edits would leave them), not saved."""
    reply, dialect = _reply_params(params, "preview_reply")
    session = find_session(root)
    state = session[1] if session is not None else None
    options = reply_options(
        state,
        dry_run=True,
        partial=flag(params, "partial"),
        allow_whole_file=flag(params, "allow_whole_file"),
        fix_encoding=flag(params, "fix_encoding"),
    )
    report = apply_reply(root, reply, dialect, options)
    _check_not_empty(report)
    data: dict[str, Any] = {**report.to_json(), "ok": report.ok}
    if session is not None:
        data["bridge"] = _round_json(root, session[1], report, keep=None)
    return data


def apply_reply_method(root: Path, params: Mapping[str, Any]) -> dict[str, Any]:
    """``apply_reply``: apply ``reply`` as ``agentprompt apply`` does (one transaction), and,
    when a bridge session is in progress, run its round: the session advances and the next
    prompt is returned under ``bridge``. As with the CLI, the apply and the session's update
    are one critical section (applies of a root one at a time, the session read afresh and
    saved under the state database's write lock, taken before any file is written)."""
    reply, dialect = _reply_params(params, "apply_reply")
    report: ApplyReport | None = None
    try:
        with locked(root, wait=LOCK_WAIT), held_session(root) as session:
            state = session[1] if session is not None else None
            # The repository as the round begins: requests are judged by its ignore rules.
            before = (
                view_repository(root, summaries=False, include_generated=state.include_generated)
                if state is not None
                else None
            )
            try:
                options = reply_options(
                    state,
                    partial=flag(params, "partial"),
                    allow_whole_file=flag(params, "allow_whole_file"),
                    fix_encoding=flag(params, "fix_encoding"),
                )
                report = apply_reply(root, reply, dialect, options)
            except WriteFailed as exc:
                return {**ApplyReport().to_json(), "ok": False, "error": str(exc)}
            _check_not_empty(report)
            data: dict[str, Any] = {**report.to_json(), "ok": report.ok}
            if session is None:
                return data
            session_id, state = session

            def keep(new: BridgeState) -> None:
                save_state(root, session_id, new)

            data["bridge"] = _round_json(root, state, report, keep=keep, before=before)
    except StoreError as exc:
        if report is None or not report.written:
            raise
        written = sorted(report.planned)
        return {
            **report.to_json(),
            "ok": False,
            "error": f"the reply's edits were written ({', '.join(written)}), but the session "
            f"could not be saved: {exc}",
            "written_files": written,
        }
    return data
