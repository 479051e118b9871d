"""Placing hunks: by their context, in order, split when a whole hunk will not fit.

Every hunk is located in the original lines with :func:`~agentprompt.edits._match.locate`,
each at or after the place of the one before; the line numbers in its header never choose
between places (an ambiguous hunk fails, listing the candidates). A hunk marked as the end of
the file must sit at the end; a hunk with no old lines is placed only at the start or the end
of the file. A hunk that cannot be placed whole is split at its runs
of context lines into smaller hunks that are placed one by one. Each placed hunk becomes a
minimal edit (the changed lines only), so hunks whose context overlaps are fine, and hunks
that change the same lines are refused.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from agentprompt.edits._match import (
    STAGES,
    Found,
    LineIndex,
    Missing,
    Stage,
    locate,
    normalise,
)
from agentprompt.edits._reasons import listed, reason
from agentprompt.edits._splice import Edit, Unplaceable, render_edit, render_exact
from agentprompt.edits.actions import Hunk

__all__ = [
    "HunkFailure",
    "PatchOutcome",
    "apply_hunks",
    "hunk_from_texts",
    "split_hunk",
]


@dataclass(frozen=True, kw_only=True)
class HunkFailure:
    """A hunk (or a part of it) that could not be placed."""

    hunk: int
    """The hunk's position in the patch, from 0."""
    reason: str
    """Why, in a sentence."""
    expected: tuple[str, ...] = ()
    """The lines the hunk expected to find."""
    candidates: tuple[int, ...] = ()
    """1-based first lines of the equally good places, when it was ambiguous."""
    closest: tuple[int, int] | None = None
    """The original lines (0-based start, end) that came nearest."""
    settled: bool = False
    """The hunk's change is already in the file."""


@dataclass(frozen=True, kw_only=True)
class PatchOutcome:
    """The result of placing a patch's hunks."""

    edits: tuple[Edit, ...] = ()
    """The placed changes, in file order."""
    failures: tuple[HunkFailure, ...] = ()
    """The hunks that could not be placed."""

    @property
    def stage(self) -> Stage:
        """The loosest stage any hunk needed (``exact`` when there was nothing to place)."""
        order = [STAGES.index(e.stage) for e in self.edits]
        return STAGES[max(order)] if order else "exact"


def hunk_from_texts(old: Sequence[str], new: Sequence[str]) -> Hunk:
    """A hunk turning the lines ``old`` into ``new`` (lines they share become context)."""
    lines: list[str] = []
    matcher = SequenceMatcher(None, list(old), list(new), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            lines.extend(" " + line for line in old[i1:i2])
            continue
        lines.extend("-" + line for line in old[i1:i2])
        lines.extend("+" + line for line in new[j1:j2])
    return Hunk(lines=tuple(lines), derived=True)


def split_hunk(hunk: Hunk) -> list[Hunk]:
    """``hunk`` cut at its runs of context lines into parts with one change each.

    A run of context between two changes is shared out: its first half trails the earlier
    part, the rest leads the later one. Each part keeps a line-number hint.
    """
    groups: list[tuple[int, int]] = []
    i, lines = 0, hunk.lines
    while i < len(lines):
        if lines[i][:1] in ("-", "+"):
            j = i
            while j < len(lines) and lines[j][:1] in ("-", "+"):
                j += 1
            groups.append((i, j))
            i = j
        else:
            i += 1
    if len(groups) < 2:
        return [hunk]
    cuts = [0]
    for (_, a_end), (b_start, _) in itertools.pairwise(groups):
        cuts.append(a_end + (b_start - a_end + 1) // 2)
    cuts.append(len(lines))
    parts = []
    old_offset = 0
    for a, b in itertools.pairwise(cuts):
        piece = lines[a:b]
        start = None if hunk.old_start is None else hunk.old_start + old_offset
        old_offset += sum(1 for line in piece if line[:1] != "+")
        parts.append(
            Hunk(
                lines=piece,
                old_start=start,
                scope=hunk.scope,
                at_end_of_file=hunk.at_end_of_file and b == len(lines),
                no_newline_at_end=hunk.no_newline_at_end and b == len(lines),
                old_no_newline_at_end=hunk.old_no_newline_at_end and b == len(lines),
                derived=hunk.derived,
            )
        )
    return parts


def _hint(hunk: Hunk) -> int | None:
    if hunk.old_start is None:
        return None
    return max(hunk.old_start - 1, 0)


def _insertion_point(hunk: Hunk, count: int) -> int | None:
    """Where a hunk with no old lines goes: only the start or the end of the file, which its
    header or end-of-file marker names; anywhere else it needs context lines."""
    if hunk.at_end_of_file or count == 0:
        return count
    if hunk.old_start is None:
        return None
    at_start = hunk.old_start == 0 or (hunk.old_start == 1 and hunk.new_start == 1)
    if at_start and not hunk.old_count:
        return 0
    if hunk.old_start >= count and not hunk.old_count:
        return count
    return None


def _scope_start(index: LineIndex, hunk: Hunk, cursor: int) -> int:
    """The line after the hunk's ``@@ scope`` lines (each found after the one before), or
    ``cursor`` when it has none or one of them is not in the file."""
    scopes = hunk.scopes or ((hunk.scope,) if hunk.scope else ())
    at = cursor
    for scope in scopes:
        want = scope.strip()
        if not want:
            continue
        for i in range(at, len(index.lines)):
            if index.lines[i].strip() == want:
                at = i + 1
                break
        else:
            return cursor
    return at


def _edit(
    hunk: Hunk,
    number: int,
    split: bool,
    span: tuple[int, int, tuple[str, ...]],
    stage: Stage,
    placed: tuple[tuple[int, int], tuple[str, ...], tuple[str, ...]] | None = None,
) -> Edit:
    """The edit of a placed hunk; ``placed``: where a loose stage landed it, the quoted
    lines not found as written and the file lines the quote left out."""
    start, end, new = span
    landed, unmatched, left_out = placed or (None, (), ())
    return Edit(
        landed=landed,
        unmatched=unmatched,
        left_out=left_out,
        start=start,
        end=end,
        new=new,
        hunk=number,
        stage=stage,
        split=split,
        no_newline_at_end=hunk.no_newline_at_end,
        old_no_newline_at_end=hunk.old_no_newline_at_end,
    )


def _place(
    index: LineIndex, hunk: Hunk, number: int, cursor: int, split: bool
) -> tuple[Edit | None, int, HunkFailure | None, Missing | None]:
    """Place one hunk at or after ``cursor``: its edit, the next cursor, or why not."""
    lines = index.lines
    quoted = [line for line in hunk.lines if line[:1] in (" ", "-")]
    old = [line[1:] for line in quoted]
    if not old:
        at = _insertion_point(hunk, len(lines))
        if at is None or at < cursor:
            failure = HunkFailure(hunk=number, reason=reason("no_context"))
            return None, cursor, failure, None
        return _edit(hunk, number, split, (at, at, hunk.new_lines), "exact"), at, None, None
    start = _scope_start(index, hunk, cursor)
    hint = _hint(hunk)
    if hunk.at_end_of_file:
        # It must sit at the very end: search only there.
        start = max(cursor, len(lines) - len(old))
        if start != len(lines) - len(old):
            try:
                fitted = _aligned_at_end(index, hunk, number, cursor, split)
            except Unplaceable as exc:
                return (
                    None,
                    cursor,
                    HunkFailure(hunk=number, reason=str(exc), expected=tuple(old)),
                    None,
                )
            if fitted is not None:
                return fitted[0], fitted[1], None, None
            return None, cursor, None, Missing(closest=(max(0, len(lines) - 1), len(lines)))
        if hunk.open_end:
            # Read as reaching the end only because it stops on a change: its quoted lines
            # standing anywhere else is what a reply cut off there looks like.
            elsewhere = [at for at in index.find_exact(old, 0) if at != start]
            if elsewhere:
                candidates = (*elsewhere[:4], start)
                return None, cursor, None, Missing(candidates=candidates, stage="exact")
    exact = index.find_exact(old, start)
    if len(exact) == 1:
        # The common case, without the matcher's general machinery.
        at = exact[0]
        span = render_exact(hunk, at, at + len(old))
        return _edit(hunk, number, split, span, "exact"), at + 1, None, None
    removed = [line[:1] == "-" for line in quoted]
    found = locate(index, old, start=start, hint=hint, removed=removed, fuzzy=False)
    # Why the one place a one-gap alignment found could not take the hunk's added lines.
    unclear: str | None = None
    if isinstance(found, Missing) and not found.ambiguous and not hunk.at_end_of_file:
        # A quote that leaves out (or adds) one line of the file is aligned with it before
        # the fuzzy stage is tried: its lines match the file exactly, a stronger sign.
        try:
            aligned = _aligned(index, hunk, number, cursor, split)
        except Unplaceable as exc:
            aligned, unclear = None, str(exc)
        if aligned is not None:
            return aligned[0], aligned[1], None, None
        found = locate(index, old, start=start, hint=hint, removed=removed)
    elif isinstance(found, Found) and found.stage not in ("exact", "trailing-whitespace"):
        # Found only by loosening the text (another indentation, spacing): a place where the
        # quote stands as written but for one left-out line is as likely the one meant.
        try:
            aligned = _aligned(index, hunk, number, cursor, split)
        except Unplaceable:
            aligned = None
        if aligned is not None and aligned[1] - 1 != found.start:
            found = Missing(candidates=(found.start, aligned[1] - 1), stage=found.stage)
    if isinstance(found, Missing) and start > cursor and not hunk.at_end_of_file:
        found = locate(index, old, start=cursor, hint=hint, removed=removed)
    if isinstance(found, Found) and hunk.at_end_of_file and found.end != len(lines):
        found = Missing(closest=(found.start, found.end))
    if isinstance(found, Missing) and hunk.at_end_of_file and not found.ambiguous:
        try:
            fitted = _aligned_at_end(index, hunk, number, cursor, split)
        except Unplaceable as exc:
            fitted, unclear = None, str(exc)
        if fitted is not None:
            return fitted[0], fitted[1], None, None
    if isinstance(found, Missing) and unclear is not None and not found.ambiguous:
        # The quote stands in one place but for a line it left out, right where it adds
        # lines: the model is told which line to quote, not that nothing was found.
        return None, cursor, HunkFailure(hunk=number, reason=unclear, expected=tuple(old)), None
    if isinstance(found, Missing):
        return None, cursor, None, found
    try:
        span = render_edit(lines, hunk, found)
    except Unplaceable as exc:
        return None, cursor, HunkFailure(hunk=number, reason=str(exc), expected=tuple(old)), None
    if found.stage == "exact":
        return _edit(hunk, number, split, span, found.stage), found.start + 1, None, None
    placed = _placement(lines, old, found)
    if found.stage == "fuzzy" and _too_far(old, placed[1]):
        return None, cursor, _far_failure(number, old, placed), None
    return _edit(hunk, number, split, span, found.stage, placed), found.start + 1, None, None


FUZZY_UNMATCHED_MOST = 0.25
"""A fuzzy placement is refused when more than this share of its quoted non-blank lines
(and more than one of them) are not found in the file as written: the place is a guess the
user cannot judge (a changelog hunk quoting a version heading the file does not hold lands
under another version's heading)."""


def _placement(
    lines: Sequence[str], old: Sequence[str], found: Found
) -> tuple[tuple[int, int], tuple[str, ...], tuple[str, ...]]:
    """Where a loose stage placed ``old``: the file lines it spans, the quoted lines not
    found there as written (spacing aside; only for the fuzzy stage, the others match every
    line by a looser form of its text) and the file lines the quote left out."""
    if found.stage != "fuzzy":
        return (found.start, found.end), (), ()
    paired = set()
    unmatched = []
    for text, at in zip(old, found.pairs, strict=True):
        if at is not None:
            paired.add(at)
        if at is None or normalise(text, "whitespace") != normalise(lines[at], "whitespace"):
            unmatched.append(text)
    left_out = tuple(lines[k] for k in range(found.start, found.end) if k not in paired)
    return (found.start, found.end), tuple(unmatched), left_out


def _too_far(old: Sequence[str], unmatched: Sequence[str]) -> bool:
    """Whether too many of the quoted non-blank lines are not in the file as written."""
    missing = sum(1 for line in unmatched if line.strip())
    quoted = sum(1 for line in old if line.strip())
    return missing > 1 and missing > FUZZY_UNMATCHED_MOST * quoted


def _far_failure(
    number: int,
    old: Sequence[str],
    placed: tuple[tuple[int, int], tuple[str, ...], tuple[str, ...]],
) -> HunkFailure:
    (start, end), unmatched, _ = placed
    shown = [repr(line.strip()) for line in unmatched if line.strip()]
    return HunkFailure(
        hunk=number,
        reason=reason(
            "too_far",
            count=len(shown),
            quoted=sum(1 for line in old if line.strip()),
            first=start + 1,
            last=end,
            lines=listed(shown),
        ),
        expected=tuple(old),
        closest=(start, end),
    )


ALIGN_LEAST = 3
"""A hunk needs this many quoted lines, and two non-blank ones matched, to be aligned."""


def _alignments(
    keys: Sequence[str], removed: Sequence[bool], file_keys: Sequence[str], s: int
) -> list[tuple[int, str, int]]:
    """The one-gap alignments of the quoted ``keys`` starting at file line ``s``: ``("file",
    p)`` when the file has one line more, at ``s + p``; ``("quote", p)`` when the quote has
    one context line the file lacks, its ``p``-th."""
    n, size = len(keys), len(file_keys)
    p = 0
    while p < n and s + p < size and file_keys[s + p] == keys[p]:
        p += 1
    found = []
    if (
        1 <= p < n
        and s + n + 1 <= size
        and list(file_keys[s + p + 1 : s + n + 1]) == list(keys[p:])
    ):
        found.append((s, "file", p))
    if p < n and not removed[p] and list(file_keys[s + p : s + n - 1]) == list(keys[p + 1 :]):
        found.append((s, "quote", p))
    return found


def _side_known(lines: Sequence[str], before: int, after: int) -> bool:
    """Whether the lines a hunk adds between its lines ``before`` and ``after``, where the
    file has one line more, have a known side of it: there are none, or they replace the
    removed lines just before them, no more lines than those, and so stand where those
    stood (``A -D +E G`` over ``A D F G`` is ``A E F G``: the change is anchored on ``D``).
    Lines added right after a context line, or more lines than were removed, may go before
    or after the file's extra line: ``A +x C`` over ``A B C`` is ``A x B C`` as well as
    ``A B x C``, and ``-D +E +x G`` may be ``E x F G`` or ``E F x G``."""
    added = after - before - 1
    if added == 0:
        return True
    removed = 0
    while before - removed >= 0 and lines[before - removed][:1] == "-":
        removed += 1
    return 0 < added <= removed


def _slide(keys: Sequence[str], file_keys: Sequence[str], s: int, kind: str, p: int) -> int:
    """The first of the places a one-line gap found at ``p`` could equally fall (it moves
    back over lines equal to the one left out or added)."""
    low = p
    if kind == "file":
        while low > 0 and keys[low - 1] == file_keys[s + low]:
            low -= 1
    else:
        while low > 0 and keys[low - 1] == keys[low]:
            low -= 1
    return low


def _aligned_at_end(
    index: LineIndex, hunk: Hunk, number: int, cursor: int, split: bool
) -> tuple[Edit, int] | None:
    """Place a hunk read as reaching the end of its file whose quote leaves out one line of
    the file: where its aligned place ends the file, or, for an open-ended hunk that ends on
    context and whose header counts exactly the one line it left out, wherever its one
    place is. A reply cut off inside the closing context quotes its lines as the file holds
    them, with no line left out between them, so it finds no such place and stays refused."""
    fitted = _aligned(index, hunk, number, cursor, split, kinds=("file",))
    if fitted is None:
        return None
    edit, after, end = fitted
    held = sum(1 for line in hunk.lines if line[:1] != "+")
    counted = (
        hunk.open_end
        and hunk.lines[-1][:1] == " "
        and hunk.old_count is not None
        and hunk.old_count == held + 1
    )
    return (edit, after) if counted or end == len(index.lines) else None


def _aligned(
    index: LineIndex,
    hunk: Hunk,
    number: int,
    cursor: int,
    split: bool,
    *,
    kinds: tuple[str, ...] = ("file", "quote"),
) -> tuple[Edit, int, int] | None:
    """Place a hunk whose quoted lines leave out one line of the file, or add one context
    line the file lacks (models drop a blank or repeated line), by aligning it with the file
    with one gap: only when exactly one such place exists at or after ``cursor`` and every
    removed line is matched (``kinds`` names the gaps looked for: ``"file"``, a line of the
    file left out, ``"quote"``, a quoted line the file lacks). The edit, the next cursor and
    one past the last file line the hunk spans; None when there is no single place.
    :class:`Unplaceable` when the one place has the left-out line right where the hunk adds
    lines that may go on either side of it."""
    quoted = [line for line in hunk.lines if line[:1] in (" ", "-")]
    if len(quoted) < ALIGN_LEAST:
        return None
    keys = [normalise(line[1:], "aligned") for line in quoted]
    removed = [line[:1] == "-" for line in quoted]
    file_keys = index.keys("aligned")
    starts = {s for s in index.positions("aligned", keys[0]) if s >= cursor}
    places = [a for s in sorted(starts) for a in _alignments(keys, removed, file_keys, s)]
    places = [a for a in places if a[1] in kinds]
    if len(places) > 1:
        # A place where every quoted line stands (the file has one more) explains all the
        # model wrote; one where a quoted line stands nowhere explains less.
        places = [a for a in places if a[1] == "file"]
    if len(places) != 1:
        return None
    s, kind, p = places[0]
    kept = [k for k in keys if k.strip()]
    if hunk.derived and len(set(kept)) != len(kept):
        # A search text repeating a line: which of the repeats its replacement changes, and
        # so where the gap falls, is the diff's guess.
        return None
    if len(kept) - (1 if kind == "quote" and keys[p].strip() else 0) < 2:
        return None
    # The quote's p-th quoted line, as an index into the hunk's lines.
    positions = [k for k, line in enumerate(hunk.lines) if line[:1] in (" ", "-")]
    at = positions[p]
    low = _slide(keys, file_keys, s, kind, p)
    if low < p and (
        low == 0 or any(line[:1] != " " for line in hunk.lines[positions[low - 1] + 1 : at + 1])
    ):
        # Among repeated lines the gap could fall at several places, and the changes
        # between them would land differently.
        return None
    lines = list(hunk.lines)
    if kind == "file" and not _side_known(hunk.lines, positions[p - 1], at):
        raise Unplaceable(reason("gap_unclear", line=repr(index.lines[s + p].strip())))
    if kind == "file":
        lines.insert(at, " " + index.lines[s + p])
    else:
        del lines[at]
    fitted = replace(hunk, lines=tuple(lines))
    span = len([x for x in lines if x[:1] in (" ", "-")])
    found = Found(start=s, end=s + span, stage="aligned", pairs=range(s, s + span))
    try:
        edit = render_edit(index.lines, fitted, found)
    except Unplaceable:
        return None
    placed: tuple[tuple[int, int], tuple[str, ...], tuple[str, ...]] = (
        ((s, s + span), (), (index.lines[s + p],))
        if kind == "file"
        else ((s, s + span), (quoted[p][1:],), ())
    )
    return _edit(fitted, number, split, edit, "aligned", placed), s + 1, s + span


def _already_applied(index: LineIndex, hunk: Hunk, cursor: int) -> int | None:
    """Where the hunk's new lines already stand, when its old lines are not found."""
    new = hunk.new_lines
    if not new or new == hunk.old_lines or not any(line.strip() for line in new):
        return None
    found = locate(index, new, start=cursor, fuzzy=False)
    return found.start if isinstance(found, Found) else None


def _missing_failure(
    number: int,
    old: tuple[str, ...],
    missing: Missing,
    *,
    end_of_file: bool = False,
    open_end: bool = False,
    first: bool,
) -> HunkFailure:
    if open_end:
        return HunkFailure(
            hunk=number,
            reason=reason("open_end"),
            expected=old,
            candidates=tuple(c + 1 for c in missing.candidates),
            closest=missing.closest,
        )
    if missing.ambiguous:
        where = listed([str(c + 1) for c in missing.candidates])
        return HunkFailure(
            hunk=number,
            reason=reason("ambiguous", count=len(missing.candidates), where=where),
            expected=old,
            candidates=tuple(c + 1 for c in missing.candidates),
            closest=missing.closest,
        )
    if end_of_file:
        why = reason("end_of_file")
    elif first:
        why = reason("not_found")
    else:
        why = reason("not_found_after")
    return HunkFailure(hunk=number, reason=why, expected=old, closest=missing.closest)


def apply_hunks(
    lines: Sequence[str],
    hunks: Sequence[Hunk],
    *,
    allow_split: bool = True,
    text: str | None = None,
) -> PatchOutcome:
    """Place every hunk in ``lines``, in order; split a hunk that does not fit whole.

    ``text`` is the lines already joined by newlines, when the caller has it.
    """
    index = LineIndex(lines, text)
    edits: list[Edit] = []
    failures: list[HunkFailure] = []
    cursor = 0
    for number, hunk in enumerate(hunks):
        edit, next_cursor, failure, missing = _place(index, hunk, number, cursor, False)
        if edit is not None:
            edits.append(edit)
            cursor = next_cursor
            continue
        if failure is not None:
            failures.append(failure)
            continue
        assert missing is not None
        done = None if hunk.open_end else _already_applied(index, hunk, cursor)
        if done is not None:
            failures.append(
                HunkFailure(
                    hunk=number,
                    reason=reason("already_applied", line=done + 1),
                    expected=hunk.old_lines,
                    closest=(done, done + len(hunk.new_lines)),
                    settled=True,
                )
            )
            continue
        whole = not allow_split or missing.ambiguous or hunk.open_end
        parts = [hunk] if whole else split_hunk(hunk)
        if len(parts) < 2:
            failures.append(
                _missing_failure(
                    number,
                    hunk.old_lines,
                    missing,
                    end_of_file=hunk.at_end_of_file,
                    open_end=hunk.open_end,
                    first=cursor == 0,
                )
            )
            continue
        placed: list[Edit] = []
        part_cursor = cursor
        for k, part in enumerate(parts):
            p_edit, p_next, p_fail, p_missing = _place(index, part, number, part_cursor, True)
            if p_edit is None:
                failure = p_fail or _missing_failure(
                    number,
                    part.old_lines,
                    p_missing or missing,
                    end_of_file=part.at_end_of_file,
                    first=part_cursor == 0,
                )
                failures.append(
                    replace(
                        failure,
                        reason=reason(
                            "split_part", part=k + 1, parts=len(parts), reason=failure.reason
                        ),
                    )
                )
                break
            placed.append(p_edit)
            part_cursor = p_next
        else:
            edits.extend(e for e in placed if e.new or e.start != e.end)
            cursor = part_cursor
    edits = [e for e in edits if e.new or e.start != e.end]
    edits.sort(key=lambda e: (e.start, e.end, e.hunk))
    for before, after in itertools.pairwise(edits):
        if after.start < before.end:
            failures.append(
                HunkFailure(
                    hunk=after.hunk,
                    reason=reason("overlap", other=before.hunk + 1, line=before.start + 1),
                )
            )
    return PatchOutcome(edits=tuple(edits), failures=tuple(failures))
