"""Seed 003's copy-paste bridge markers.

```
<<<FILE: path>>> ... <<<END>>>          whole new content (``[NEW] path``: create only)
<<<DIFF: path>>> @@ hunks <<<END>>>      a patch
<<<DELETE: path>>>                       delete
<<<REQUEST_FILE: path>>>                 ask for one file
<<<REQUEST_FILES>>> - path ... <<<END>>> ask for several
<<<SWITCH_MODE: edit>>> 対象ファイル: - path 理由: ... <<<END>>>
<<<CONTINUE>>> 残り: N個のファイル変更があります - path <<<END>>>
```

The English labels (``Target files:``, ``Reason:``, ``Remaining: N file changes``) are read
too. A list block whose ``<<<END>>>`` is missing ends where the next marker begins (a
warning); a FILE or DIFF block with no ``<<<END>>>`` is dropped (an error), as is any block
the reply ends inside. A FILE or DIFF block ends at the last ``<<<END>>>`` before the next
marker (or the end of its code block, or of the reply), so content holding an END line is
kept whole (a warning). Text after a marker's ``>>>`` is ignored with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

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
from agentprompt.edits.dialects.base import (
    BlockOutcome,
    BlockReader,
    Fence,
    ScanState,
    clean_path,
    closes_fence,
    looks_like_path,
    note,
    opens_fence,
    text_of,
)
from agentprompt.edits.dialects.hunk_text import parse_hunks
from agentprompt.edits.dialects.udiff_files import GIT_HEADERS

__all__ = ["DIALECT", "BridgeDialect", "is_bridge_marker"]

NAME = "bridge"
_MARKER = re.compile(
    r"^\s*<<<\s*(FILE|DIFF|DELETE|REQUEST_FILES|REQUEST_FILE|SWITCH_MODE|CONTINUE|END)"
    r"\s*(?::\s*(.*?))?\s*>>>(.*)$",
    re.IGNORECASE,
)
_SINGLE = {"DELETE", "REQUEST_FILE"}
_NEW = re.compile(r"^\[\s*NEW\s*\]\s*", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:[-*+•・]|\d+[.)]\s)\s*(.+?)\s*$")
_LINK = re.compile(r"^\[([^\]]+)\]\([^)]*\)")
_QUOTED = re.compile(r"^(`[^`]+`|\*\*[^*]+\*\*)")
_NOTE = re.compile(r"\s+[—–-]\s|[:：]\s|\s\(|\s#")
_TARGETS = re.compile(r"^\s*(?:対象ファイル|Target files?)\s*[:：]\s*(.*)$", re.IGNORECASE)
_REASON = re.compile(r"^\s*(?:理由|Reason)\s*[:：]\s*(.*)$", re.IGNORECASE)
_REMAINING = re.compile(r"^\s*(?:残り|Remaining)\s*[:：]\s*(\d{1,9})(?!\d)", re.IGNORECASE)


def _marker(line: str) -> tuple[str, str, str] | None:
    """The kind, argument and any text after ``>>>`` of a marker line (an ``<<<END>>>``
    only when nothing follows it)."""
    match = _MARKER.match(line)
    if not match:
        return None
    kind, tail = match.group(1).upper(), match.group(3).strip()
    if kind == "END" and tail:
        return None
    return kind, (match.group(2) or "").strip(), tail


def is_bridge_marker(line: str) -> bool:
    """True for any ``<<<KIND...>>>`` line of seed 003, ``<<<END>>>`` included."""
    return _marker(line) is not None


@dataclass(frozen=True)
class BridgeDialect:
    """Seed 003's bridge dialect."""

    name: str = NAME
    """Registry name."""
    prompt: str = "edits/dialect_bridge"
    """Instruction prompt name (``edits/dialect_bridge_en`` is the English variant)."""
    lang: str = "ja"
    """The language of that prompt (other languages are ``<prompt>_<lang>``)."""

    def detect(self, text: str) -> bool:
        """True when ``text`` holds a bridge marker."""
        return any(is_bridge_marker(line) for line in text.split("\n"))

    def starts(self, lines: Sequence[str], i: int, final: bool) -> bool | None:
        """A bridge marker line (a stray ``<<<END>>>`` too, to report it)."""
        return is_bridge_marker(lines[i])

    def open_block(self, lines: Sequence[str], i: int, state: ScanState) -> BlockReader:
        """A reader for the block the marker at line ``i`` opens."""
        found = _marker(lines[i])
        kind, arg, tail = found if found else ("END", "", "")
        return _Reader(
            start=i, j=i + 1, kind=kind, arg=arg, tail=tail, state=state, fence=state.fence
        )


@dataclass
class _Reader:
    start: int
    j: int
    kind: str
    arg: str
    tail: str
    """Text written after the marker's ``>>>`` (ignored, with a warning)."""
    state: ScanState
    fence: Fence | None = None
    """The markdown fence the block sits in, whose closer ends a block with no END."""
    inner: Fence | None = None
    """A fence the block's content opened inside that fence."""
    last_end: int | None = None
    """The last ``<<<END>>>`` line of a FILE or DIFF block seen so far."""
    ends: int = 0
    """How many ``<<<END>>>`` lines that block has seen."""

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        at = self.start + 1
        if self.kind == "END":
            stray = note(
                "warning",
                "stray-end",
                "A '<<<END>>>' with no block open was ignored.",
                line=at,
                block=None,
                dialect=NAME,
            )
            return BlockOutcome(end=self.start + 1, diagnostics=(stray,))
        if self.kind in _SINGLE:
            return self._finish(lines, self.start + 1, self.start + 1, [])
        n = len(lines)
        while self.j < n:
            line = lines[self.j]
            found = _marker(line)
            if found is not None:
                if found[0] == "END":
                    if self.kind not in ("FILE", "DIFF"):
                        return self._finish(lines, self.j, self.j + 1, [])
                    # A file's content may hold an END line: its block ends at the last one.
                    self.last_end = self.j
                    self.ends += 1
                    self.j += 1
                    continue
                if self.last_end is not None:
                    return self._ended(lines)
                return self._unended(lines, self.j, "the next marker", bounded=False)
            if self.fence is not None:
                if self.inner is not None:
                    if closes_fence(line, self.inner):
                        self.inner = None
                elif closes_fence(line, self.fence):
                    if self.last_end is not None:
                        return self._ended(lines)
                    return self._unended(lines, self.j, "the end of its code block", bounded=True)
                else:
                    opened = opens_fence(line)
                    if opened is not None and opened.info:
                        self.inner = opened
            self.j += 1
        if not final:
            return None
        if self.last_end is not None:
            return self._ended(lines)
        what = "that file" if self.kind in ("FILE", "DIFF") else "the block"
        cut = note(
            "error",
            "truncated",
            f"The reply was cut off inside the <<<{self.kind}{': ' + self.arg if self.arg else ''}"
            f">>> block (no '<<<END>>>'); it was dropped. Send {what} again.",
            line=self.start + 1,
            block=self.state.take_block(),
            dialect=NAME,
        )
        return BlockOutcome(end=n, diagnostics=(cut,))

    def _ended(self, lines: Sequence[str]) -> BlockOutcome:
        """Finishes a FILE or DIFF block at its last ``<<<END>>>`` line."""
        end = self.last_end if self.last_end is not None else self.j
        notes: list[Diagnostic] = []
        if self.ends > 1:
            notes.append(
                note(
                    "warning",
                    "end-in-content",
                    f"The <<<{self.kind}: {self.arg}>>> block holds {self.ends} '<<<END>>>' "
                    "lines; it was read up to the last one, the others were taken as content.",
                    line=self.start + 1,
                    block=None,
                    dialect=NAME,
                )
            )
        return self._finish(lines, end, end + 1, notes)

    def _unended(
        self, lines: Sequence[str], stop: int, where: str, *, bounded: bool
    ) -> BlockOutcome:
        """A block with no ``<<<END>>>`` that stops at line ``stop`` (``where`` says what is
        there). Unless the code block around it ``bounded`` it, a file's content cannot be told
        from the prose after it, so FILE and DIFF are dropped; a list keeps its items."""
        at = self.start + 1
        if self.kind in ("FILE", "DIFF") and not bounded:
            lost = note(
                "error",
                "missing-end",
                f"The <<<{self.kind}: {self.arg}>>> block at line {at} has no '<<<END>>>' before "
                f"{where}; it was dropped because its content cannot be told from the text "
                "after it. Send it again, closed by '<<<END>>>'.",
                line=at,
                block=self.state.take_block(),
                dialect=NAME,
            )
            return BlockOutcome(end=stop, diagnostics=(lost,))
        missing = note(
            "warning",
            "missing-end",
            f"The <<<{self.kind}>>> block at line {at} has no '<<<END>>>'; it was read up to "
            f"{where}.",
            line=at,
            block=None,
            dialect=NAME,
        )
        return self._finish(lines, stop, stop, [missing])

    def _finish(
        self, lines: Sequence[str], body_end: int, end: int, notes: list[Diagnostic]
    ) -> BlockOutcome:
        block = self.state.take_block()
        if self.tail:
            notes.append(
                note(
                    "warning",
                    "marker-tail",
                    f"The text after the <<<{self.kind}>>> marker's '>>>' "
                    f"({self.tail[:60]!r}) was ignored; put nothing after a marker.",
                    line=self.start + 1,
                    block=None,
                    dialect=NAME,
                )
            )
        notes = [d if d.block is not None else replace(d, block=block) for d in notes]
        body = _dedented(lines[self.start + 1 : body_end], lines[self.start])
        action, found = _build(self.kind, self.arg, body, self.start + 1, block)
        notes.extend(found)
        return BlockOutcome(end=end, actions=(action,) if action else (), diagnostics=tuple(notes))


def _dedented(body: Sequence[str], marker: str) -> Sequence[str]:
    """The body without the indent its marker line has (a block written under a list item),
    when every non-blank body line carries that indent."""
    indent = len(marker) - len(marker.lstrip(" "))
    if not indent or any(row.strip() and not row.startswith(" " * indent) for row in body):
        return body
    return [row[indent:] for row in body]


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
    paths: list[str] = []
    for line in body:
        path = _line_path(line)
        if path and path not in paths:
            paths.append(path)
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
    while rows and not rows[0].strip():
        rows.pop(0)
        skipped += 1
    fence = opens_fence(rows[0]) if rows else None
    if fence is not None and len(rows) >= 2 and closes_fence(rows[-1], fence):
        rows = rows[1:-1]
        skipped += 1
    while rows:
        head = rows[0]
        if head.startswith(GIT_HEADERS) or not head.strip():
            take = 1
        elif head.startswith("--- ") and len(rows) > 1 and rows[1].startswith("+++ "):
            take = 2
        else:
            break
        del rows[:take]
        skipped += take
    return rows, first + skipped


def _build(
    kind: str, arg: str, body: Sequence[str], line: int, block: int
) -> tuple[Action | None, list[Diagnostic]]:
    notes: list[Diagnostic] = []

    def fail(code: str, message: str) -> tuple[Action | None, list[Diagnostic]]:
        notes.append(note("error", code, message, line=line, block=block, dialect=NAME))
        return None, notes

    if kind in ("FILE", "DIFF", "DELETE", "REQUEST_FILE"):
        new = kind == "FILE" and _NEW.match(arg) is not None
        path = clean_path(_NEW.sub("", arg)) if kind == "FILE" else clean_path(arg)
        if not path:
            return fail("missing-path", f"The <<<{kind}>>> marker names no file.")
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
                        f"The content of {path} was wrapped in a markdown fence; the fence "
                        "lines were removed.",
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
            return fail("empty-patch", f"The <<<DIFF: {path}>>> block holds no hunks.")
        return PatchFile(path=path, hunks=tuple(hunks), dialect=NAME, line=line, block=block), notes
    if kind == "REQUEST_FILES":
        paths = _items(body)
        if not paths:
            return fail("empty-request", "The <<<REQUEST_FILES>>> block lists no files.")
        return RequestFiles(paths=paths, dialect=NAME, line=line, block=block), notes
    if kind == "SWITCH_MODE":
        mode = arg.strip().lower()
        if not mode:
            return fail("missing-mode", "The <<<SWITCH_MODE>>> marker names no mode.")
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
    paths: list[str] = []
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
            if path and path not in paths:
                paths.append(path)
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


DIALECT = BridgeDialect()
"""The registered instance."""
