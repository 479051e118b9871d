"""A follow-up prompt: what the chat does not hold yet, in a session whose chat already
holds the earlier prompts.

After a session's first prompt the chat holds the system part, the task, the structure and
every file shown in full. A follow-up sends only what is new since: the results of the last
reply's changes that did not apply, the files that cannot be shown, the files newly in
context (asked for, or added by hand) in full, the files that changed on disk since the
chat last saw them (as a diff against that version when the diff is shorter), the output of
the commands the user ran and the user's notes, then the task: stated again when the chat
may have lost it (:attr:`BridgeState.restates_task`: it has read
:data:`~agentprompt.bridge.state.DEFAULT_RESTATE_TOKENS` tokens or more since it last read
it), else one line that refers to it. The mode line opens it, as it opens every prompt.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentprompt.bridge._render import (
    Level,
    RenderedUser,
    Segment,
    _fenced,
    _info,
    _section,
    file_segments,
    render_inputs,
    segmented,
    slotted,
    summary_block,
)
from agentprompt.bridge.state import BridgeState
from agentprompt.bridge.text import render_prompt
from agentprompt.repo.secrets import SecretFinding

__all__ = ["Changed", "FollowUp", "mode_line", "render_followup", "unified_diff"]


def mode_line(state: BridgeState, root: Path | None = None) -> str:
    """The first line of the mode's own prompt (``✏️ Current mode: edit``...), so the
    follow-up's is byte for byte the one the system part describes."""
    base = "browse" if state.mode == "browse" else "edit"
    values = {"task": "", "body": ""} if base == "edit" else {"task": "", "tree": "", "body": ""}
    return render_prompt(base, state.lang, root, **values).split("\n", 1)[0]


def unified_diff(path: str, old: str, new: str) -> str:
    """``old`` to ``new`` as a unified diff with three lines of context (a line without
    a final line break is marked as ``diff`` marks it)."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
        n=3,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


@dataclass(frozen=True, kw_only=True)
class Changed:
    """A file in context that changed since the chat last saw it."""

    path: str
    text: str | None
    """Its text now (``None``: deleted or unreadable)."""
    diff: str | None = None
    """The diff from the version the chat holds, when shorter than the text."""


@dataclass(frozen=True, kw_only=True)
class FollowUp:
    """What one follow-up holds besides the state."""

    added: Sequence[str]
    """Files newly in context, most relevant first."""
    contents: Mapping[str, str]
    """The text of each added file."""
    summaries: Mapping[str, str]
    """Summaries, for added files the budget cuts down."""
    changed: Sequence[Changed] = ()
    withheld: Sequence[SecretFinding] = ()


def render_followup(
    state: BridgeState,
    part: FollowUp,
    levels: Mapping[str, Level],
    left_out: Sequence[tuple[str, Level]],
    root: Path | None = None,
) -> RenderedUser:
    """The follow-up's text with the added files at ``levels``, with where each added
    file's block (its text, or its summary) landed."""
    lang = state.lang
    body: list[Segment] = []
    if state.feedback:
        body.append((None, _section("feedback", lang, root, feedback=state.feedback.rstrip("\n"))))
    if state.missing:
        lines = "\n".join(f"- {p}: {reason}" for p, reason in state.missing)
        body.append((None, _section("missing", lang, root, paths=lines)))
    full = [p for p in part.added if levels.get(p) == "full" and p in part.contents]
    if full:
        blocks = [(p, f"\n### {p}\n{_fenced(part.contents[p], _info(p))}") for p in full]
        body += slotted("added", lang, root, "files", file_segments(blocks), after="\n")
    cut = [p for p in part.added if levels.get(p) == "summary" and p in part.summaries]
    if cut:
        blocks = [(p, summary_block(p, part.summaries[p])) for p in cut]
        body += slotted("summaries", lang, root, "files", file_segments(blocks), after="\n")
    rest = ""
    if part.changed:
        changes = ""
        for change in part.changed:
            if change.text is None:
                changes += f"\n### {change.path} {render_prompt('deleted', lang, root)}\n"
            elif change.diff is not None:
                changes += f"\n### {change.path} (diff)\n{_fenced(change.diff, 'diff')}"
            else:
                changes += f"\n### {change.path}\n{_fenced(change.text, _info(change.path))}"
        rest += _section("changed", lang, root, files=changes.rstrip("\n"))
    if part.withheld:
        lines = "\n".join(f"- {f.describe()}" for f in part.withheld)
        rest += _section("withheld", lang, root, paths=lines)
    if left_out:
        lines = "".join(f"- {p} ({level})\n" for p, level in left_out).rstrip("\n")
        rest += _section("left_out", lang, root, paths=lines)
    rest += render_inputs(state.notes, state.runs, lang, root)
    body.append((None, rest))
    mode = mode_line(state, root)
    if not state.restates_task:
        return segmented(slotted("followup_brief", lang, root, "body", body, after="\n", mode=mode))
    return segmented(
        slotted("followup", lang, root, "body", body, after="\n", mode=mode, task=state.task)
    )
