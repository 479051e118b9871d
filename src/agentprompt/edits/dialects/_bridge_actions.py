"""The actions of the copy-paste bridge's blocks, built from a block's kind, argument and body:
whole files (without a fence the model wrapped them in), patches (without git headers),
deletions, file requests, mode switches and continuations (with their labelled fields)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentprompt.edits.actions import (
    Action,
    Continue,
    DeleteFile,
    Diagnostic,
    PatchFile,
    RequestFiles,
    SwitchMode,
    WriteFile,
)
from agentprompt.edits.dialects._hunk_text import parse_hunks
from agentprompt.edits.dialects._udiff_files import GIT_HEADERS
from agentprompt.edits.dialects.base import (
    clean_path,
    closes_fence,
    diagnostic_text,
    looks_like_path,
    note,
    opens_fence,
    text_of,
)

__all__ = ["NAME", "build_action", "lost_message"]

NAME = "bridge"
"""The bridge dialect's registry name."""
_NEW = re.compile(r"^\[\s*NEW\s*\]\s*", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:[-*+•・]|\d+[.)]\s)\s*(\S.*)$")
_LINK = re.compile(r"^\[([^\]]+)\]\([^)]*\)")
_QUOTED = re.compile(r"^(`[^`]+`|\*\*[^*]+\*\*)")
# (?<!\s): a run of blanks is tried once, from its start, not once per blank.
_NOTE = re.compile(r"(?<!\s)\s+[—–-]\s|[:：]\s|\s\(|\s#")
_TARGETS = re.compile(r"^\s*(?:対象ファイル|Target files?)\s*[:：]\s*(.*)$", re.IGNORECASE)
_REASON = re.compile(r"^\s*(?:理由|Reason)\s*[:：]\s*(.*)$", re.IGNORECASE)
_REMAINING = re.compile(r"^\s*(?:残り|Remaining)\s*[:：]\s*(\d{1,9})(?!\d)", re.IGNORECASE)


def _list_path(text: str) -> str:
    """The path of a list item, without the note after it (`` `p` - note``, ``p: note``,
    ``p — note``, ``p (note)``) or the link around it (``[p](p)``)."""
    text = text.strip()
    link = _LINK.match(text)
    if link:
        return clean_path(link.group(1))
    quoted = _QUOTED.match(text)
    if quoted:
        return clean_path(quoted.group(1))
    cut = _NOTE.search(text)
    return clean_path(text[: cut.start()] if cut else text)


def _line_path(line: str) -> str | None:
    """The path a list line names: a bullet's item, or a bare path line."""
    match = _ITEM.match(line)
    if match:
        return _list_path(match.group(1)) or None
    return looks_like_path(line)


def _items(body: Sequence[str]) -> tuple[str, ...]:
    """The paths listed in a block's body (``- path`` lines or bare path lines), without
    duplicates."""
    paths: dict[str, None] = {}
    for line in body:
        path = _line_path(line)
        if path:
            paths.setdefault(path)
    return tuple(paths)


def _unfenced(path: str, body: Sequence[str]) -> tuple[Sequence[str], bool]:
    """The content without a markdown fence the model wrapped it in (not for Markdown files)."""
    if len(body) < 2 or path.lower().endswith((".md", ".markdown")):
        return body, False
    fence = opens_fence(body[0])
    if fence is None or not closes_fence(body[-1], fence):
        return body, False
    return body[1:-1], True


def _diff_rows(body: Sequence[str], first: int) -> tuple[list[str], int]:
    """The hunk lines of a DIFF block's body and the reply line of the first: without a
    markdown fence around them and without the git and ``---``/``+++`` headers before them
    (a ``---`` line is a header only when ``+++`` follows it)."""
    rows = list(body)
    while rows and not rows[-1].strip():
        rows.pop()
    skipped = 0
    while skipped < len(rows) and not rows[skipped].strip():
        skipped += 1
    del rows[:skipped]
    fence = opens_fence(rows[0]) if rows else None
    if fence is not None and len(rows) >= 2 and closes_fence(rows[-1], fence):
        rows = rows[1:-1]
        skipped += 1
    at = 0
    while at < len(rows):
        head = rows[at]
        if head.startswith(GIT_HEADERS) or not head.strip():
            at += 1
        elif head.startswith("--- ") and at + 1 < len(rows) and rows[at + 1].startswith("+++ "):
            at += 2
        else:
            break
    return rows[at:], first + skipped + at


def lost_message(name: str, /, **values: object) -> str:
    """Why a block was dropped, the catalogue's ``reason_lost_<name>``: it reaches the model in
    the apply's feedback, so it is worded as the engine's reasons are, in the language of the
    apply in progress."""
    # Imported here: a reply that loses no block is parsed without the prompt loader.
    from agentprompt.edits._reasons import reason

    return reason(f"lost_{name}", **values)


def build_action(
    kind: str, arg: str, body: Sequence[str], line: int, block: int
) -> tuple[Action | None, list[Diagnostic]]:
    """The action of a ``<<<kind: arg>>>`` block whose content is ``body`` (None when it is
    unusable), and the diagnostics found on the way."""
    notes: list[Diagnostic] = []

    def fail(code: str, message: str) -> tuple[Action | None, list[Diagnostic]]:
        notes.append(note("error", code, message, line=line, block=block, dialect=NAME))
        return None, notes

    if kind in ("FILE", "DIFF", "DELETE", "REQUEST_FILE"):
        new = kind == "FILE" and _NEW.match(arg) is not None
        path = clean_path(_NEW.sub("", arg)) if kind == "FILE" else clean_path(arg)
        if not path:
            return fail("missing-path", lost_message("no_path", marker=f"<<<{kind}>>>"))
        if kind == "DELETE":
            return DeleteFile(path=path, dialect=NAME, line=line, block=block), notes
        if kind == "REQUEST_FILE":
            return RequestFiles(paths=(path,), dialect=NAME, line=line, block=block), notes
        if kind == "FILE":
            content, stripped = _unfenced(path, body)
            if stripped:
                notes.append(
                    note(
                        "warning",
                        "fence-in-block",
                        diagnostic_text("bridge_fence_in_block", path=path),
                        line=line,
                        block=block,
                        dialect=NAME,
                    )
                )
            return WriteFile(
                path=path,
                content=text_of(content),
                create_only=new,
                dialect=NAME,
                line=line,
                block=block,
            ), notes
        rows, first = _diff_rows(body, line + 1)
        hunks, found = parse_hunks(rows, first, dialect=NAME, block=block)
        notes.extend(found)
        if not hunks:
            return fail("empty-patch", lost_message("empty_patch", marker=f"<<<DIFF: {path}>>>"))
        return PatchFile(path=path, hunks=tuple(hunks), dialect=NAME, line=line, block=block), notes
    if kind == "REQUEST_FILES":
        paths = _items(body)
        if not paths:
            return fail("empty-request", lost_message("empty_request"))
        return RequestFiles(paths=paths, dialect=NAME, line=line, block=block), notes
    if kind == "SWITCH_MODE":
        mode = arg.strip().lower()
        if not mode:
            return fail("missing-mode", lost_message("no_mode"))
        return SwitchMode(
            mode=mode,
            paths=_targets(body),
            reason=_reason(body),
            dialect=NAME,
            line=line,
            block=block,
        ), notes
    remaining = next((int(m.group(1)) for m in map(_REMAINING.match, body) if m), None)
    return Continue(
        remaining=remaining, paths=_items(body), dialect=NAME, line=line, block=block
    ), notes


def _targets(body: Sequence[str]) -> tuple[str, ...]:
    """The target files of a SWITCH_MODE block: the label's inline value (split on commas)
    and the items listed up to the reason label."""
    paths: dict[str, None] = {}
    for line in body:
        if _REASON.match(line):
            break
        label = _TARGETS.match(line)
        if label:
            words = [_list_path(w) for w in re.split(r"[,、]", label.group(1))]
        else:
            found = _line_path(line)
            words = [found] if found else []
        for path in words:
            if path:
                paths.setdefault(path)
    return tuple(paths)


def _reason(body: Sequence[str]) -> str:
    """The reason of a SWITCH_MODE block: the label's text and every line after it, up to a
    target-files label."""
    parts: list[str] = []
    inside = False
    for line in body:
        match = _REASON.match(line)
        if match:
            inside = True
            parts.append(match.group(1).strip())
        elif _TARGETS.match(line):
            inside = False
        elif inside:
            parts.append(line.strip())
    return "\n".join(p for p in parts if p)
