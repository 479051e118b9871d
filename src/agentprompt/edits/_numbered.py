"""Line-number prefixes a model copied into quoted code (``12 | x = 1``, ``12: x = 1``) from a
prompt or feedback that showed the file's lines numbered.

The applier tries them off only when the text as written is not found, and only when every
non-blank quoted line of the old text carries one in the same style with rising numbers, as a
numbered excerpt's do; the new text's lines lose a prefix of that style where they have one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["unnumbered", "unnumbered_hunk_lines"]

_PREFIX = re.compile(r"^[ \t]{0,8}(\d{1,7})( \| ?| ?\|$| ?\| |: )")


def _style(separator: str) -> str:
    return "|" if "|" in separator else ":"


def _numbered(lines: Sequence[str]) -> str | None:
    """The style (``|`` or ``:``) when every non-blank line is numbered in it with numbers
    rising by one (blank lines may be missing theirs), else None."""
    style = None
    last = None
    seen = 0
    for line in lines:
        if not line.strip():
            continue
        match = _PREFIX.match(line)
        if match is None:
            return None
        number, this = int(match.group(1)), _style(match.group(2))
        if style is None:
            style = this
        elif this != style:
            return None
        if last is not None and number <= last:
            return None
        last = number
        seen += 1
    return style if seen >= 2 or (seen == 1 and style == "|") else None


def _strip(line: str, style: str) -> str:
    match = _PREFIX.match(line)
    if match is None or _style(match.group(2)) != style:
        return line
    return line[match.end() :]


def unnumbered(old: Sequence[str], new: Sequence[str]) -> tuple[Sequence[str], Sequence[str], bool]:
    """``old`` and ``new`` without copied line numbers, and whether any were taken off."""
    style = _numbered(old)
    if style is None:
        return old, new, False
    return [_strip(x, style) for x in old], [_strip(x, style) for x in new], True


def unnumbered_hunk_lines(lines: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """A hunk's prefixed lines (`` ``/``-``/``+``) without copied line numbers after the
    prefix, and whether any were taken off."""
    old = [line[1:] for line in lines if line[:1] in (" ", "-")]
    style = _numbered(old)
    if style is None:
        return tuple(lines), False
    return tuple(
        line[:1] + _strip(line[1:], style) if line[:1] in " -+" else line for line in lines
    ), True
