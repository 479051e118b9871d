"""Placed edits: the minimal change a placed hunk makes, and splicing edits into lines.

A hunk placed by :mod:`~agentprompt.edits._hunks` becomes an :class:`Edit` (original lines
``start..end`` become ``new``); :func:`apply_edits` splices a file's sorted edits in one pass
and settles its final newline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.edits._match import Found, Stage
from agentprompt.edits._reasons import reason
from agentprompt.edits.actions import Hunk

__all__ = ["Edit", "Unplaceable", "apply_edits", "render_edit", "render_exact"]


class Unplaceable(ValueError):
    """A placed hunk's added lines cannot be written into the file; the message is the
    reason the model is told. Either the quoted lines are indented differently from the
    file (tabs for spaces, or another width) and an added line's indentation cannot be
    carried over to the file's, or added lines sit where the file has a line the quote left
    out, after a context line, so whether they go before or after it cannot be told."""


@dataclass(frozen=True, kw_only=True)
class Edit:
    """One placed change: original lines ``start..end`` become ``new``."""

    start: int
    """The first original line replaced (0-based)."""
    end: int
    """One past the last original line replaced (``start`` for a pure insertion)."""
    new: tuple[str, ...]
    """The lines put in their place."""
    hunk: int
    """The hunk (0-based, in the model's order) this change came from."""
    stage: Stage
    """The matcher stage that placed it."""
    split: bool = False
    """It is a part of a hunk that could only be placed after splitting."""
    no_newline_at_end: bool = False
    """Its hunk said the new last line has no newline."""
    old_no_newline_at_end: bool = False
    """Its hunk said the old last line had no newline (so, without the marker above, the new
    one has)."""
    landed: tuple[int, int] | None = None
    """For a hunk placed by a loose stage (not ``exact``): the original lines (0-based
    start, end) its quoted lines were matched with, where it landed."""
    unmatched: tuple[str, ...] = ()
    """For a fuzzy or aligned placement: the quoted lines not found in the file as written
    (spacing aside)."""
    left_out: tuple[str, ...] = ()
    """For a fuzzy or aligned placement: the file's lines inside :attr:`landed` the quote
    did not mention."""


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _unit(indents: Sequence[str]) -> str | None:
    """The one indentation unit ``indents`` are made of (a tab, or N spaces), if any."""
    found = [i for i in indents if i]
    if not found:
        return ""
    if all(set(i) == {"\t"} for i in found):
        return "\t"
    if all(set(i) == {" "} for i in found):
        return " " * min(len(i) for i in found)
    return None


def _indent_map(lines: Sequence[str], hunk: Hunk, found: Found) -> dict[str, str] | None:
    """How the quote's indentation maps onto the file's, when the two differ in kind (tabs
    against spaces, or another width) rather than by a uniform offset; ``None`` when they
    agree line by line."""
    pairs: dict[str, str] = {}
    old_i = 0
    for line in hunk.lines:
        if line[:1] == "+":
            continue
        target = found.pairs[old_i]
        old_i += 1
        if target is None or not line[1:].strip() or not lines[target].strip():
            continue
        pairs.setdefault(_indent(line[1:]), _indent(lines[target]))
    if all(q == f for q, f in pairs.items()) or found.indent_add or found.indent_remove:
        return None
    return pairs


def _mapped(line: str, table: dict[str, str]) -> str:
    lead = _indent(line)
    if lead in table:
        return table[lead] + line[len(lead) :]
    if not lead:
        return line  # no indentation is none in any kind
    quote_unit = _unit(list(table))
    file_unit = _unit(list(table.values()))
    if quote_unit and file_unit and lead and _unit([lead]) is not None:
        level, rest = divmod(len(lead), len(quote_unit))
        if not rest and lead == quote_unit * level:
            return file_unit * level + line[len(lead) :]
    kind = set(lead)
    if (
        len(kind) == 1
        and file_unit
        and kind == set(file_unit)
        and any(q == f and q and set(q) == kind for q, f in table.items())
    ):
        # The quote mostly agrees with the file (only some of its lines drifted, a tab for
        # four spaces): an added line indented in the file's own kind is written as is.
        return line
    raise Unplaceable(reason("indent", line=repr(line.strip())))


def _reindent(line: str, found: Found, table: dict[str, str] | None) -> str:
    if not line.strip():
        return line
    if table is not None:
        return _mapped(line, table)
    if found.indent_add:
        return found.indent_add + line
    if found.indent_remove:
        if line.startswith(found.indent_remove):
            return line[len(found.indent_remove) :]
        lead = len(line) - len(line.lstrip())
        return line[min(lead, len(found.indent_remove)) :]
    return line


def render_edit(lines: Sequence[str], hunk: Hunk, found: Found) -> tuple[int, int, tuple[str, ...]]:
    """The minimal edit a placed hunk makes: (start, end, new lines); :class:`Unplaceable`
    when added lines cannot be placed against lines the file gained inside the match.

    Context lines keep the file's text (which a loose stage may not have quoted exactly),
    added lines are re-indented by the match's offset (or, when the quote used another kind
    of indentation, mapped onto the file's; :class:`Unplaceable` when that cannot be
    done), and lines the file gained inside a fuzzy match stay where they are.
    """
    if found.stage == "exact":
        return render_exact(hunk, found.start, found.end)
    table = _indent_map(lines, hunk, found)
    out: list[str] = []
    pending: list[str] = []
    pos = found.start
    old_i = 0
    before = ""
    removed = 0
    """How many removed lines came right before the pending additions."""
    for line in hunk.lines:
        sign, text = line[:1], line[1:]
        if sign == "+":
            pending.append(_reindent(text, found, table))
            continue
        target = found.pairs[old_i]
        old_i += 1
        if target is None:
            continue
        if pending and target > pos and (before != "-" or len(pending) > removed):
            # An insertion after a context line, where the file gained lines the quote
            # lacks: before them or after them? (Additions replacing removed lines, no more
            # lines than those, take their place, before the gained lines.)
            raise Unplaceable(reason("gap_unclear", line=repr(lines[pos].strip())))
        if pending or sign != "-":
            removed = 0
        if sign == "-":
            removed += 1
        before = sign
        if sign == "-":
            # Lines the file gained before a removed line stay; additions take its place.
            out.extend(lines[pos:target])
            out.extend(pending)
        else:
            # Additions follow the line before them; lines the file gained come after.
            out.extend(pending)
            out.extend(lines[pos:target])
            out.append(lines[target])
        pending = []
        pos = target + 1
    out.extend(pending)
    out.extend(lines[pos : found.end])
    start, end = found.start, found.end
    lead = 0
    while start + lead < end and lead < len(out) and out[lead] == lines[start + lead]:
        lead += 1
    trail = 0
    while (
        start + lead < end - trail
        and trail < len(out) - lead
        and out[len(out) - 1 - trail] == lines[end - 1 - trail]
    ):
        trail += 1
    return start + lead, end - trail, tuple(out[lead : len(out) - trail])


def render_exact(hunk: Hunk, start: int, end: int) -> tuple[int, int, tuple[str, ...]]:
    """:func:`render_edit` for an exact match at ``start..end``: the hunk's lines are the
    file's."""
    body = hunk.lines
    lead = 0
    for line in body:
        if line[:1] != " ":
            break
        lead += 1
    trail = 0
    for line in reversed(body[lead:]):
        if line[:1] != " ":
            break
        trail += 1
    new = tuple([line[1:] for line in body[lead : len(body) - trail] if line[:1] != "-"])
    return start + lead, end - trail, new


def apply_edits(
    lines: Sequence[str], final_newline: bool, edits: Sequence[Edit]
) -> tuple[list[str], bool]:
    """The lines after ``edits`` (sorted, not overlapping), and the final-newline state.

    A file keeps its final-newline state (an empty file gains one), unless a hunk that
    reaches the end says otherwise with ``\\ No newline at end of file`` (after its new
    last line: none; after its old last line only: one).
    """
    out: list[str] = []
    pos = 0
    final = final_newline or not lines
    for edit in edits:
        out.extend(lines[pos : edit.start])
        out.extend(edit.new)
        pos = edit.end
        if edit.end == len(lines):
            if edit.no_newline_at_end:
                final = False
            elif edit.old_no_newline_at_end:
                final = True
    out.extend(lines[pos:])
    return out, final
