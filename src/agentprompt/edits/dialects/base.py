"""What every dialect provides, and the line-level helpers they share.

A reply is read line by line. At each line the scanner asks the dialects in turn whether a
block of theirs starts there (:meth:`Dialect.starts`); the first that says yes opens a
:class:`BlockReader`, which is fed the lines as they arrive and says when its block ended
(:class:`BlockOutcome`). Lines no block claims are prose. Readers keep their own position,
so a streamed reply is read once however it is chunked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, Protocol

from agentprompt.edits.actions import Action, Diagnostic

__all__ = [
    "BlockOutcome",
    "BlockReader",
    "Dialect",
    "Fence",
    "FenceTally",
    "ScanState",
    "clean_path",
    "closes_fence",
    "diagnostic_text",
    "fence_path_before",
    "line_before",
    "looks_like_path",
    "note",
    "opens_fence",
    "path_before",
    "path_in_fence_info",
    "text_of",
]


@dataclass(frozen=True, kw_only=True)
class Fence:
    """An open markdown code fence: its character and how many of them opened it."""

    char: str
    """The fence character, a backtick or a tilde; for a tag fence, its closing tag
    (``</source>``)."""
    length: int
    """How many fence characters opened it; a closer needs at least as many."""
    info: str = ""
    """The info string after the opener (``diff``, ``python``, ...)."""
    indent: int = 0
    """How many spaces the opener was indented by (up to three, as in a list item)."""


@dataclass
class FenceTally:
    """The bare fence lines of one stretch of the reply that holds no block start, counted
    once for each kind of fence, so that every block ending in that stretch reads the
    count instead of the stretch (the whole-file dialect's Markdown files)."""

    start: int = 0
    """The first line of the stretch."""
    stop: int = -1
    """The line after it: the next block's first line, or the reply's end."""
    counts: dict[tuple[str, int, int], list[int]] = field(default_factory=dict)
    """For each fence (character, length, indent), how many of the stretch's first ``i``
    lines are a bare closer of it, for each ``i``."""


@dataclass
class ScanState:
    """What the scanner knows across the blocks of one reply (mutable while it reads)."""

    fence: Fence | None = None
    """The markdown fence open in the prose around blocks, if any."""
    last_path: dict[str, str] = field(default_factory=dict)
    """The path of each dialect's previous block, for blocks that carry it over."""
    last_end: dict[str, int] = field(default_factory=dict)
    """The index of each delimited dialect's previous end-marker line."""
    blocks: int = 0
    """How many blocks were numbered so far."""
    open_tail: bool = False
    """The reply ended without a newline: its last line may have been cut part way."""
    tally: FenceTally = field(default_factory=FenceTally)
    """The stretch of bare fence lines counted last (see :class:`FenceTally`)."""

    def take_block(self) -> int:
        """The number of the next block in the reply, counting every dialect."""
        number = self.blocks
        self.blocks += 1
        return number


@dataclass(frozen=True, kw_only=True)
class BlockOutcome:
    """How a block ended and what it holds."""

    end: int
    """The index of the first line after the block."""
    actions: tuple[Action, ...] = ()
    """The actions the block yields, in order."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """What was repaired or lost in the block."""
    rejected: bool = False
    """The lines turned out not to be this dialect's block: rescan them as prose from the
    line after the start."""
    partial: bool = False
    """The actions of a part of the block that is complete (a file of a multi-file diff, an
    operation of a patch) released early: the block goes on, its reader stays open and
    ``end`` means nothing."""


class BlockReader(Protocol):
    """Reads one block as its lines arrive."""

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        """The outcome once the block ended, or None while it needs more lines.

        ``final`` says no more lines will come: the reader must then decide.
        """
        ...


class Dialect(Protocol):
    """A reply format: how to recognise its blocks and read them into actions."""

    @property
    def name(self) -> str:
        """The registry name (``bridge``, ``udiff``, ...)."""
        ...

    @property
    def prompt(self) -> str:
        """The name of the instruction prompt that teaches the model this format."""
        ...

    @property
    def lang(self) -> str:
        """The language of :attr:`prompt`; ``<prompt>_<lang>`` holds other languages."""
        ...

    def detect(self, text: str) -> bool:
        """True when ``text`` holds this dialect's markers."""
        ...

    def starts(self, lines: Sequence[str], i: int, final: bool) -> bool | None:
        """Whether a block starts at line ``i``; None when the next lines are needed to say."""
        ...

    def open_block(self, lines: Sequence[str], i: int, state: ScanState) -> BlockReader:
        """A reader for the block that starts at line ``i``."""
        ...


_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})([^`]*)$")
_TAG_OPEN = re.compile(
    r"^( {0,3})<(source|code|pre|codeblock)((?:\s[^<>]*)?)>[ \t]*([\w+#.\-/]*)[ \t]*$",
    re.IGNORECASE,
)
_TAG_LANG = re.compile(r"""\b(?:lang|language|class)\s*=\s*["']?(?:language-)?([\w+#.\-]+)""")


def opens_fence(line: str) -> Fence | None:
    """The fence a line opens (```` ```lang ````, ``~~~``, or a tag some models use instead:
    ``<source>python``, ``<code>``, ``<pre>``, ``<codeblock lang="go">``), or None."""
    match = _FENCE.match(line)
    if match:
        marks = match.group(2)
        return Fence(
            char=marks[0],
            length=len(marks),
            info=match.group(3).strip(),
            indent=len(match.group(1)),
        )
    if "<" not in line:
        return None
    tag = _TAG_OPEN.match(line)
    if tag is None:
        return None
    lang = tag.group(4)
    if not lang and tag.group(3):
        attr = _TAG_LANG.search(tag.group(3))
        lang = attr.group(1) if attr else ""
    return Fence(char=f"</{tag.group(2).lower()}>", length=1, info=lang, indent=len(tag.group(1)))


def closes_fence(line: str, fence: Fence) -> bool:
    """True when ``line`` closes ``fence``: the same character, at least as many, nothing else,
    indented no deeper than the opener (so a diff's context line `` ```` `` stays content);
    for a tag, its closing tag (``</source>``) alone on the line."""
    if fence.char.startswith("</"):
        return line.strip().lower() == fence.char
    stripped = line.rstrip()
    marks = stripped.lstrip(" ")
    return (
        len(stripped) - len(marks) <= fence.indent
        and len(marks) >= fence.length
        and marks == fence.char * len(marks)
    )


_DECORATED = (
    re.compile(r"^\*{3}\s+([^*].*?)(?:\s+\*{3})?$"),
    re.compile(r"^<!--\s*(?:(?:File|Path|Filename)\s*:\s*)?(.+?)\s*-->$", re.IGNORECASE),
    re.compile(r"^(?://|--|;)\s*(?:(?:File|Path|Filename)\s*:\s*)?(.+?)$", re.IGNORECASE),
    re.compile(
        r"^(?:File|Path|Filename)?\s*`([^`]+)`\s*(?:\((?:new|new file|updated)\))?:?$", re.I
    ),
    re.compile(r"^\*\*(.+?)\*\*:?$"),
    re.compile(r"^__(.+?)__:?$"),
    re.compile(r"^`([^`]+)`:?$"),
    re.compile(r"^(\S+)\s+\((?:new|new file|updated)\):?$", re.IGNORECASE),
    re.compile(r"^#{1,6}\s+(?:(?:File|Path|Filename)\s*:\s*)?(.+?)$", re.IGNORECASE),
    re.compile(r"^(?:File|Path|Filename)\s*:\s*(.+?)$", re.IGNORECASE),
)
_PATH_CHARS = re.compile(r"^[\w.@+~\-/\\\[\]()]+$")
_SPACED_PATH = re.compile(r"^[\w.@+~\-/\\\[\]()]+/[\w.@+~\-\[\]() ]+$")
_FILE_NAME = re.compile(r"^(?:[\w@+~\-. ]*[\w@+~\-])?\.[A-Za-z0-9_+\-]{1,16}$")
_BARE_NAMES = {"Makefile", "Dockerfile", "Procfile", "Gemfile", "Rakefile", "Jenkinsfile"}
_BULLET = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")
_QUOTED = re.compile(r"^(?:`[^`]+`|\*\*[^*]+\*\*):?$")
_BARE_WORD = re.compile(r"^(?:[A-Z][A-Z0-9_]*|[\w][\w.\-]*[._\-][\w.\-]*)$")


_UNDECORATED = re.compile(r"^(?!__)[\w.~/\\\[\]()@+\-]+$")
"""A path with nothing any decoration pattern could take off (the common case)."""


def clean_path(text: str) -> str:
    """A path as the model wrote it, without markdown decoration and surrounding quotes."""
    path = text.strip()
    if _UNDECORATED.match(path):
        return path
    for pattern in _DECORATED:
        match = pattern.match(path)
        if match:
            path = match.group(1).strip()
    path = path.strip("`*").strip()
    if len(path) >= 2 and path[0] == path[-1] and path[0] in "\"'":
        path = path[1:-1]
    return path.rstrip(":").strip()


@lru_cache(maxsize=4096)
def looks_like_path(line: str) -> str | None:
    """The path a path line names (bare, ``**p**``, `` `p` ``, ``# p``, ``File: p``, each
    possibly after a list bullet: ``- p``, ``1. p``), or None.

    A backticked or bold path may hold spaces in its file name (`` `docs/my notes.md` ``).
    """
    stripped = _BULLET.sub("", line.strip(), count=1)
    if not stripped or len(stripped) > 300 or "://" in stripped:
        return None
    path = clean_path(stripped)
    if not path or path.startswith("-"):
        return None
    spaced = _QUOTED.match(stripped) is not None and _SPACED_PATH.match(path) is not None
    if not _PATH_CHARS.match(path) and not spaced:
        return None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if _FILE_NAME.match(name) or name in _BARE_NAMES or ("/" in path and name):
        return path
    return None


def path_in_fence_info(line: str) -> str | None:
    """The path a fence opener names in its info string (```` ```python src/a.py ````, or
    ```` ```src/a.py ```` alone when it reads as a path with a folder or an extension)."""
    fence = opens_fence(line)
    words = fence.info.split() if fence is not None else []
    if not words:
        return None
    path = looks_like_path(words[-1])
    if path is None or (len(words) == 1 and "/" not in path and "." not in path):
        return None
    return path


def fence_path_before(lines: Sequence[str], i: int) -> str | None:
    """The path a fence opener just before line ``i`` (blank lines skipped, up to three lines
    back) names in its info string (```` ```python src/a.py ````), or None."""
    k = i - 1
    while k >= 0 and k >= i - 3 and not lines[k].strip():
        k -= 1
    return path_in_fence_info(lines[k]) if k >= 0 else None


def text_of(lines: Sequence[str]) -> str:
    """Lines joined as file text: each ends with a newline; no lines is the empty string."""
    return "".join(line + "\n" for line in lines)


def note(
    severity: Literal["error", "warning"],
    code: str,
    message: str,
    *,
    line: int,
    block: int | None,
    dialect: str | None,
) -> Diagnostic:
    """A diagnostic about a block (``line`` is 1-based in the reply)."""
    return Diagnostic(
        severity=severity, code=code, message=message, line=line, block=block, dialect=dialect
    )


def diagnostic_text(name: str, /, **values: object) -> str:
    """The note ``diagnostic_<name>`` of the edit catalogue with ``values`` filled in, in the
    language of the apply in progress (it reaches the model, as the engine's reasons do)."""
    # Imported here: a reply with nothing to note is parsed without the prompt loader.
    from agentprompt.edits._reasons import diagnostic

    return diagnostic(name, **values)


def line_before(lines: Sequence[str], i: int) -> int | None:
    """The index of the last line before line ``i`` that is neither blank nor a fence line
    (up to four lines back), or None."""
    k = i - 1
    while k >= 0 and k >= i - 4:
        line = lines[k]
        if line.strip() and opens_fence(line) is None:
            return k
        k -= 1
    return None


def path_before(lines: Sequence[str], i: int, *, lenient: bool = False) -> str | None:
    """The path on the line before line ``i`` (blank lines and fence lines skipped, up to four
    lines back), or None when that line names no path.

    ``lenient`` also accepts a single word that reads as a file name without an extension
    (``LICENSE``, ``run-tests``, ``build.sh``), as EDIT/REPL's "the file on the line before"
    allows; prose words (``Changes:``, ``Here``) are refused.
    """
    k = line_before(lines, i)
    if k is None or k < i - 4:
        return None
    line = lines[k]
    path = looks_like_path(line)
    if path is None and lenient:
        stripped = line.strip()
        word = clean_path(stripped)
        bare = bool(word) and not stripped.endswith(":") and _BARE_WORD.match(word) is not None
        spaced = _SPACED_PATH.match(word) and _FILE_NAME.match(word.rsplit("/", 1)[-1])
        if bare or spaced:
            path = word
    return path
