"""One gitignore line translated to a regular expression that matches a path *itself*.

git decides a path in two steps (see :class:`agentprompt.repo.discovery._ignore.RuleSet`): a folder
left out hides everything below it, and otherwise the last rule matching the path itself
decides. So each rule must answer "does this pattern match exactly this path", never "does it
match one of its parents", which is what this module's translation gives (git's wildmatch
with ``FNM_PATHNAME``: ``*`` and ``?`` never cross ``/``, ``**`` does only as a whole path
component, bracket expressions with ranges, ``!``/``^`` negation and ``[:class:]`` names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["InvalidPattern", "Translated", "translate"]


class InvalidPattern(ValueError):
    """A line git would never match (a trailing backslash, an unclosed bracket)."""


@dataclass(frozen=True, kw_only=True)
class Translated:
    """A gitignore line, read."""

    negated: bool
    """True for a ``!`` line (it re-includes)."""
    dir_only: bool
    """True when the pattern ended in ``/``: it matches folders only."""
    anchored: bool
    """True when the pattern holds a ``/`` before its end: it matches the path relative to
    the ignore file's folder; otherwise it matches the last component at any depth."""
    regex: str
    """A regular expression (no capturing groups) for ``re.fullmatch``."""


_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


def _strip_trailing_spaces(text: str) -> str:
    end = len(text)
    while end > 0 and text[end - 1] == " ":
        backslashes = 0
        index = end - 2
        while index >= 0 and text[index] == "\\":
            backslashes += 1
            index -= 1
        if backslashes % 2:
            break
        end -= 1
    return text[:end]


def _bracket(pattern: str, start: int) -> tuple[str, int]:
    """The regex class for the bracket expression opening at ``start``, and where it ends."""
    index = start + 1
    negate = index < len(pattern) and pattern[index] in "!^"
    if negate:
        index += 1
    items: list[str] = []
    first = True
    while index < len(pattern):
        char = pattern[index]
        if char == "]" and not first:
            body = "".join(items)
            if not body:
                return ("[^/]" if negate else "(?!)"), index + 1
            return (f"[^/{body}]" if negate else f"(?:(?!/)[{body}])"), index + 1
        first = False
        if char == "[" and pattern.startswith("[:", index):
            close = pattern.find(":]", index + 2)
            name = pattern[index + 2 : close] if close != -1 else ""
            if name not in _CLASSES:
                raise InvalidPattern(f"unknown character class [:{name}:]")
            items.append(_CLASSES[name])
            index = close + 2
            continue
        if char == "\\":
            index += 1
            if index >= len(pattern):
                break
            char = pattern[index]
        low = char
        if index + 2 < len(pattern) and pattern[index + 1] == "-" and pattern[index + 2] != "]":
            high_at = index + 2
            high = pattern[high_at]
            if high == "\\" and high_at + 1 < len(pattern):
                high_at += 1
                high = pattern[high_at]
            if ord(high) >= ord(low):
                items.append(f"{re.escape(low)}-{re.escape(high)}")
            index = high_at + 1
            continue
        items.append(re.escape(low))
        index += 1
    raise InvalidPattern("unclosed bracket expression")


def _component(part: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(part):
        char = part[index]
        if char == "*":
            while index < len(part) and part[index] == "*":
                index += 1
            out.append("[^/]*")
            continue
        if char == "?":
            out.append("[^/]")
        elif char == "[":
            text, index = _bracket(part, index)
            out.append(text)
            continue
        elif char == "\\":
            index += 1
            if index >= len(part):
                raise InvalidPattern("a trailing backslash")
            out.append(re.escape(part[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _split(body: str) -> list[str]:
    """``body`` split at ``/`` that are not inside a bracket expression or escaped."""
    parts, current, index, depth = [], [], 0, False
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            current.append(body[index : index + 2])
            index += 2
            continue
        if char == "[" and not depth:
            close = body.find("]", index + 2)
            if close != -1 and "/" not in body[index:close]:
                current.append(body[index : close + 1])
                index = close + 1
                continue
        if char == "/":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


def translate(line: str) -> Translated | None:
    """The rule a gitignore line states, or ``None`` for a blank line or a comment.

    Raises :class:`InvalidPattern` for a line git never matches.
    """
    text = _strip_trailing_spaces(line.rstrip("\r\n"))
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    if negated or (text.startswith("\\") and len(text) > 1 and text[1] in "!#"):
        text = text[1:]
    dir_only = text.endswith("/") and not text.endswith("\\/")
    if dir_only:
        text = text.rstrip("/")
    if not text:
        return None
    anchored = "/" in text
    text = text.lstrip("/")
    parts = _split(text)
    pieces: list[str] = []
    separate = False
    last = len(parts) - 1
    for index, part in enumerate(parts):
        if part != "**":
            pieces.append(("/" if separate else "") + _component(part))
            separate = True
        elif index == last:
            pieces.append("/.+" if separate else ".+")
        else:
            pieces.append("/(?:.*/)?" if separate else "(?:.*/)?")
            separate = False
    return Translated(negated=negated, dir_only=dir_only, anchored=anchored, regex="".join(pieces))
