"""The copy-paste bridge's markers.

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

from agentprompt.edits.actions import Diagnostic
from agentprompt.edits.dialects._bridge_actions import NAME, build_action, lost_message
from agentprompt.edits.dialects.base import (
    BlockOutcome,
    BlockReader,
    Fence,
    ScanState,
    closes_fence,
    diagnostic_text,
    note,
    opens_fence,
)

__all__ = ["DIALECT", "BridgeDialect", "Marker", "is_bridge_marker", "read_marker"]

_HEAD = re.compile(
    r"[ \t]*(<{2,4})[ \t]*(FILE|DIFF|DELETE|REQUEST_FILES|REQUEST_FILE|SWITCH_MODE|CONTINUE|END)"
    r"(?![A-Za-z0-9_])",
    re.IGNORECASE,
)
_SINGLE = {"DELETE", "REQUEST_FILE"}


@dataclass(frozen=True, kw_only=True)
class Marker:
    """A bridge marker line, read."""

    kind: str
    """``FILE``, ``DIFF``, ``DELETE``, ``REQUEST_FILE(S)``, ``SWITCH_MODE``, ``CONTINUE`` or
    ``END``, upper case."""
    arg: str
    """What follows the colon (a path, a mode), stripped."""
    tail: str
    """Text after the closing ``>>>``."""
    exact: bool
    """Written as the format says (``<<<KIND: arg>>>``); False for a slip the reader still
    takes (``<<FILE: a>>``, ``<<<FILE a>>>``, a full-width colon)."""


def read_marker(line: str) -> Marker | None:
    """The marker a line holds, exact or slightly malformed, or None.

    Read without a backtracking pattern over the argument, so a line with long runs of
    spaces is read in one pass. An ``<<<END>>>`` counts only when nothing follows it.
    """
    head = _HEAD.match(line)
    if head is None:
        return None
    kind = head.group(2).upper()
    rest = line[head.end() :]
    close = rest.find(">>")
    if close < 0:
        return None
    stop = close
    while stop < len(rest) and rest[stop] == ">":
        stop += 1
    closers = stop - close
    if closers > 4:
        return None
    inner = rest[:close].strip()
    tail = rest[stop:].strip()
    colon = inner[:1] in (":", "\uff1a")
    arg = inner[1:].strip() if colon else inner
    exact = len(head.group(1)) == 3 and closers == 3 and inner[:1] in (":", "")
    if kind == "END" and (tail or arg):
        return None
    if not colon and inner and rest[:1] not in (" ", "\t"):
        return None
    return Marker(kind=kind, arg=arg, tail=tail, exact=exact)


def _marker(line: str) -> tuple[str, str, str] | None:
    """The kind, argument and any text after ``>>>`` of a marker line (an ``<<<END>>>``
    only when nothing follows it)."""
    found = read_marker(line)
    return None if found is None else (found.kind, found.arg, found.tail)


def is_bridge_marker(line: str) -> bool:
    """True for any ``<<<KIND...>>>`` line of the copy-paste bridge, ``<<<END>>>`` included,
    also when slightly malformed (``<<<FILE path>>>``, ``<<FILE: path>>``)."""
    return read_marker(line) is not None


@dataclass(frozen=True)
class BridgeDialect:
    """The copy-paste bridge's dialect."""

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
        found = read_marker(lines[i]) or Marker(kind="END", arg="", tail="", exact=True)
        return _Reader(
            start=i,
            j=i + 1,
            kind=found.kind,
            arg=found.arg,
            tail=found.tail,
            exact=found.exact,
            state=state,
            fence=state.fence,
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
    exact: bool = True
    """The marker was written exactly as the format says (else a warning names the slip)."""
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
                diagnostic_text("bridge_stray_end"),
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
                return self._unended(lines, self.j, "marker", bounded=False)
            if self.fence is not None:
                if self.inner is not None:
                    if closes_fence(line, self.inner):
                        self.inner = None
                elif closes_fence(line, self.fence):
                    if self.last_end is not None:
                        return self._ended(lines)
                    return self._unended(lines, self.j, "fence", bounded=True)
                else:
                    opened = opens_fence(line)
                    if opened is not None and opened.info:
                        self.inner = opened
            self.j += 1
        if not final:
            return None
        if self.last_end is not None:
            return self._ended(lines)
        marker = f"<<<{self.kind}{': ' + self.arg if self.arg else ''}>>>"
        what = "file" if self.kind in ("FILE", "DIFF") else "block"
        cut = note(
            "error",
            "truncated",
            lost_message(f"truncated_{what}", marker=marker),
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
                    diagnostic_text(
                        "bridge_end_in_content",
                        marker=f"<<<{self.kind}: {self.arg}>>>",
                        count=self.ends,
                    ),
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
        there: the next ``marker``, or the ``fence`` closing the code block around it). Unless
        the code block around it ``bounded`` it (then it stops at the next marker), a file's
        content cannot be told from the prose after it, so FILE and DIFF are
        dropped; a list keeps its items."""
        at = self.start + 1
        if self.kind in ("FILE", "DIFF") and not bounded:
            lost = note(
                "error",
                "missing-end",
                lost_message("missing_end", marker=f"<<<{self.kind}: {self.arg}>>>", line=at),
                line=at,
                block=self.state.take_block(),
                dialect=NAME,
            )
            return BlockOutcome(end=stop, diagnostics=(lost,))
        missing = note(
            "warning",
            "missing-end",
            diagnostic_text(f"bridge_missing_end_{where}", marker=f"<<<{self.kind}>>>", line=at),
            line=at,
            block=None,
            dialect=NAME,
        )
        return self._finish(lines, stop, stop, [missing])

    def _finish(
        self, lines: Sequence[str], body_end: int, end: int, notes: list[Diagnostic]
    ) -> BlockOutcome:
        block = self.state.take_block()
        if not self.exact:
            written = lines[self.start].strip()
            notes.append(
                note(
                    "warning",
                    "marker-form",
                    diagnostic_text(
                        "bridge_marker_form",
                        written=repr(written[:80]),
                        marker=f"<<<{self.kind}{': ' + self.arg if self.arg else ''}>>>",
                    ),
                    line=self.start + 1,
                    block=None,
                    dialect=NAME,
                )
            )
        if self.tail:
            notes.append(
                note(
                    "warning",
                    "marker-tail",
                    diagnostic_text(
                        "bridge_marker_tail", marker=f"<<<{self.kind}>>>", tail=repr(self.tail[:60])
                    ),
                    line=self.start + 1,
                    block=None,
                    dialect=NAME,
                )
            )
        notes = [d if d.block is not None else replace(d, block=block) for d in notes]
        body = _dedented(lines[self.start + 1 : body_end], lines[self.start])
        action, found = build_action(self.kind, self.arg, body, self.start + 1, block)
        notes.extend(found)
        return BlockOutcome(end=end, actions=(action,) if action else (), diagnostics=tuple(notes))


def _dedented(body: Sequence[str], marker: str) -> Sequence[str]:
    """The body without the indent its marker line has (a block written under a list item),
    when every non-blank body line carries that indent."""
    indent = len(marker) - len(marker.lstrip(" "))
    if not indent or any(row.strip() and not row.startswith(" " * indent) for row in body):
        return body
    return [row[indent:] for row in body]


DIALECT = BridgeDialect()
"""The registered instance."""
