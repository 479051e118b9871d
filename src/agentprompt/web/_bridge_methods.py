"""The page's bridge methods: build a round's prompt, preview a pasted reply, apply it,
add the user's note or a command's output to the next prompt.

They are the adapter between JSON-RPC params and the bridge session service, which
``agentprompt pack`` and ``agentprompt apply`` call too (a ``task`` starts a session, no
task shows the current prompt; apply is the edit engine's one transaction, then the bridge
round that advances the session), so a session can move between the page and the
terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentprompt.bridge import DEFAULT_OUTPUT_TOKENS, DEFAULT_RUN_TIMEOUT, BridgePrompt, BridgeState
from agentprompt.bridge.split import prompt_sections
from agentprompt.bridge.text import LANGS
from agentprompt.edits.apply import ApplyReport
from agentprompt.edits.dialects import AUTO, DIALECTS
from agentprompt.edits.journal import WriteFailed
from agentprompt.edits.paths import check_inside
from agentprompt.errors import UsageError
from agentprompt.services import (
    CHAT_BUDGETS,
    DEFAULT_MAX_TOKENS,
    ApplyOutcome,
    BridgeSessions,
    PromptChoices,
    ReplyChoices,
    StartRequest,
    Workspace,
)
from agentprompt.tokens import shared_counter
from agentprompt.web._params import budget, check_unknown, flag, text, text_list
from agentprompt.web._rpc import InvalidParams, worded

__all__ = [
    "apply_reply_method",
    "bridge_add_method",
    "bridge_drop_method",
    "bridge_note_method",
    "bridge_run_method",
    "bridge_undo_method",
    "budgets_json",
    "build_prompt_method",
    "preview_reply_method",
    "prompt_json",
]


def budgets_json(workspace: Workspace) -> dict[str, Any]:
    """The budgets the page offers: the chat presets (name and tokens, in order), and the
    budget a new session gets when none is chosen (``default``: tokens, or None for no
    budget; ``default_error``: why the environment's or the config file's is not one)."""
    data: dict[str, Any] = {
        "chats": [{"name": name, "tokens": tokens} for name, tokens in CHAT_BUDGETS.items()],
        "default": DEFAULT_MAX_TOKENS,
        "default_error": None,
    }
    try:
        data["default"] = workspace.default_budget().tokens
    except UsageError as exc:
        data["default_error"] = worded(exc)
    return data


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


_BUILD_PARAMS = (
    "task",
    "mode",
    "files",
    "lang",
    "full",
    "new",
    "include",
    "exclude",
    "max_tokens",
    "restate_tokens",
    "chat",
)


def build_prompt_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``build_prompt``: with ``task``, start a session over ``files`` in ``mode`` (as
    ``pack --task``; once a reply was applied in the session in progress, only with
    ``new``), showing only the files ``include`` keeps and ``exclude`` leaves (gitignore
    patterns, as ``pack --include/--exclude``; a pattern matching no file is refused);
    without it, the current prompt of the session in progress (``full``: all of it again,
    for a new chat). ``max_tokens`` is the prompt's budget (a number of tokens, or
    ``"none"`` for none), else ``chat`` names a chat preset's; kept for the session. A new
    session given neither takes the workspace's default budget. ``restate_tokens``: how
    many tokens the chat may read before a follow-up states the task again (0: every
    one), kept for the session."""
    check_unknown(params, _BUILD_PARAMS, "build_prompt")
    task = text(params, "task")
    full = flag(params, "full")
    new = flag(params, "new")
    mode = text(params, "mode", choices=("browse", "edit"))
    lang = text(params, "lang", choices=LANGS)
    files = check_inside(workspace.root, text_list(params, "files"), input="files")
    includes = text_list(params, "include", "gitignore patterns")
    excludes = text_list(params, "exclude", "gitignore patterns")
    choices = PromptChoices(
        lang=lang,
        max_tokens=budget(params, "max_tokens"),
        chat=text(params, "chat"),
        restate_tokens=_whole(params, "restate_tokens"),
    )
    sessions = BridgeSessions(workspace)
    if task is None:
        if files or mode or includes or excludes:
            raise InvalidParams(
                'params "files", "mode", "include" and "exclude" start a new session; give '
                '"task" too (without it, build_prompt shows the current prompt of the '
                "session in progress)"
            )
        packed = sessions.current(choices, full=full)
    else:
        request = StartRequest(
            task=task,
            paths=tuple(files),
            mode=mode,
            includes=tuple(includes),
            excludes=tuple(excludes),
            new=new,
            choices=choices,
        )
        packed = sessions.start(request)
    return prompt_json(packed.prompt, packed.state)


def _changed_session(
    workspace: Workspace, params: Mapping[str, Any], method: str, drop: bool
) -> dict[str, Any]:
    check_unknown(params, ("files",), method)
    files = check_inside(workspace.root, text_list(params, "files"), input="files")
    if not files:
        raise InvalidParams('param "files" is empty; name the files to ' + method[7:])
    sessions = BridgeSessions(workspace)
    if drop:
        sessions.drop(files)
    else:
        sessions.add(files)
    packed = sessions.current()
    return prompt_json(packed.prompt, packed.state)


def bridge_add_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``bridge_add``: put ``files`` in the session's context in full (as ``bridge add``);
    returns the next prompt. An unknown file changes nothing."""
    return _changed_session(workspace, params, "bridge_add", drop=False)


def bridge_drop_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``bridge_drop``: take ``files`` out of the session's context (as ``bridge drop``);
    returns the next prompt. A file not in context changes nothing."""
    return _changed_session(workspace, params, "bridge_drop", drop=True)


def _whole(params: Mapping[str, Any], name: str) -> int | None:
    """The param ``name`` as a whole number of 0 or more (None when absent)."""
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidParams(f'param "{name}" must be a whole number of 0 or more')
    return value


def _seconds(params: Mapping[str, Any], name: str, default: float) -> float:
    """The param ``name`` as a number of seconds above 0 (``default`` when absent)."""
    value = params.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise InvalidParams(f'param "{name}" must be a number of seconds above 0')
    return float(value)


def bridge_note_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``bridge_note``: add ``note`` (the user's own words for the model) to the next
    prompt, as ``bridge note`` does; it is kept in the session until a prompt is made
    (build_prompt, or the next apply_reply). Returns the session's state."""
    check_unknown(params, ("note",), "bridge_note")
    note = text(params, "note", required=True) or ""
    added = BridgeSessions(workspace).note(note)
    return {"id": added.session_id, "state": added.state.to_json()}


def bridge_run_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``bridge_run``: run ``command`` (a list: the program and its arguments, no shell) in
    the repository root, as ``bridge run`` does, and add its output and exit status to the
    next prompt; ``timeout`` (seconds, default 120) kills it, ``max_tokens`` (default 4000)
    bounds the output shown. A command that fails is no error (its status is in ``run``);
    one that cannot be started is invalid params, with the session unchanged."""
    check_unknown(params, ("command", "timeout", "max_tokens"), "bridge_run")
    command = text_list(params, "command", "the program and its arguments")
    if not command:
        raise InvalidParams('param "command" is empty; give the program and its arguments')
    shown = _whole(params, "max_tokens")
    added = BridgeSessions(workspace).run(
        command,
        timeout=_seconds(params, "timeout", DEFAULT_RUN_TIMEOUT),
        max_tokens=DEFAULT_OUTPUT_TOKENS if shown is None else shown,
    )
    assert added.run is not None
    return {"id": added.session_id, "run": added.run.to_json(), "state": added.state.to_json()}


def _reply_choices(params: Mapping[str, Any], method: str, *, dry_run: bool) -> ReplyChoices:
    check_unknown(
        params,
        (
            "reply",
            "note",
            "dialect",
            "partial",
            "allow_whole_file",
            "allow_hidden",
            "fix_encoding",
            "strict",
            "commit",
        ),
        method,
    )
    return ReplyChoices(
        dialect=text(params, "dialect", choices=(AUTO, *sorted(DIALECTS))) or AUTO,
        dry_run=dry_run,
        partial=flag(params, "partial"),
        allow_whole_file=flag(params, "allow_whole_file"),
        fix_encoding=flag(params, "fix_encoding"),
        strict=flag(params, "strict"),
        allow_hidden=flag(params, "allow_hidden"),
        commit=flag(params, "commit"),
    )


def _outcome_json(outcome: ApplyOutcome) -> dict[str, Any]:
    """An apply's report and, in a session, its round (``bridge``), as the page shows them."""
    report = outcome.report
    data: dict[str, Any] = {**report.to_json(), "ok": report.ok}
    if outcome.save_error is not None:
        written = list(outcome.written)
        return {
            **data,
            "ok": False,
            "error": f"the reply's edits were written ({', '.join(written)}), but the session "
            f"could not be saved: {worded(outcome.save_error)}",
            "written_files": written,
        }
    if outcome.round_error is not None:
        done = "" if report.dry_run else "the reply was applied and the session moved on, but "
        data["bridge"] = {
            "saved": outcome.saved,
            "error": f"{done}the next prompt cannot be made: {worded(outcome.round_error)}; "
            "start a new session with another task",
        }
    if outcome.answer is not None:
        data["answer"] = outcome.answer.state.answer
        if outcome.round is None:
            data["bridge"] = {
                "saved": outcome.saved,
                "state": outcome.answer.state.to_json(),
                "prompt": None,
            }
    if outcome.round is not None and outcome.round_error is None:
        step = outcome.round
        data["bridge"] = {
            "saved": outcome.saved,
            "added": list(step.added),
            "missing": [{"path": p, "reason": r} for p, r in step.missing],
            "prompt": prompt_json(step.prompt, step.state),
        }
    if outcome.commit is not None or outcome.commit_error is not None:
        made, error = outcome.commit, outcome.commit_error
        data["commit"] = {
            "commit": made.commit if made is not None else None,
            "files": list(made.files) if made is not None else [],
            "error": worded(error) if error is not None else None,
        }
    return data


def preview_reply_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``preview_reply``: what applying ``reply`` would do (diffs for the edits, requested
    files, a mode switch, a continuation), with nothing written; when a bridge session is in
    progress, ``bridge`` holds the next prompt exactly as applying would make it (the
    files shown as the reply's edits would leave them), not saved."""
    choices = _reply_choices(params, "preview_reply", dry_run=True)
    reply = text(params, "reply", required=True) or ""
    note = text(params, "note")
    return _outcome_json(BridgeSessions(workspace).apply(reply, choices, note=note))


def apply_reply_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``apply_reply``: apply ``reply`` as ``agentprompt apply`` does (one transaction), and,
    when a bridge session is in progress, run its round: the session advances and the next
    prompt is returned under ``bridge``. As with the CLI, the apply and the session's update
    are one critical section (applies of a root one at a time, the session read afresh and
    saved under the state database's write lock, taken before any file is written).
    ``note``: the user's words for the next prompt. A reply with nothing to apply is the
    model's answer (``answer``), recorded in the session; the next prompt is made only when
    the user added something for it (else ``bridge.prompt`` is null)."""
    choices = _reply_choices(params, "apply_reply", dry_run=False)
    reply = text(params, "reply", required=True) or ""
    note = text(params, "note")
    try:
        outcome = BridgeSessions(workspace).apply(reply, choices, note=note)
    except WriteFailed as exc:
        return {**ApplyReport().to_json(), "ok": False, "error": worded(exc)}
    return _outcome_json(outcome)


def bridge_undo_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``bridge_undo``: undo the session's last applied round (as ``bridge undo``): its
    files and the session's state go back to what they were before it; with ``dry_run``,
    only say what would be restored. Returns what was restored (the diff), the round
    undone, how many more can be, and (unless a dry run) the prompt to send again. A
    refusal (nothing to undo, a file changed by hand since, a session replaced) changes
    nothing."""
    check_unknown(params, ("dry_run",), "bridge_undo")
    sessions = BridgeSessions(workspace)
    outcome = sessions.undo(dry_run=flag(params, "dry_run"))
    data = outcome.to_json()
    if not outcome.dry_run:
        packed = sessions.current()
        data["prompt"] = prompt_json(packed.prompt, packed.state)
    return data
