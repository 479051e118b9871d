"""Feedback for the model: which block failed, why, and what the file really holds there.

Every sentence comes from a prompt file under ``edits/`` (``feedback.md`` for one failed
block, ``feedback_summary.md`` for the reply, and the small ``feedback_*.md`` pieces they are
built from), so a project can reword any of it.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentprompt.edits.fuzzy import most_similar
from agentprompt.edits.hunks import HunkFailure
from agentprompt.edits.plan import ActionOutcome
from agentprompt.prompts.loader import PromptLibrary

__all__ = ["block_feedback", "closest_lines", "lost_feedback", "summary_feedback"]

EXCERPT_CONTEXT = 2
"""Lines shown before and after the nearest region."""
EXCERPT_MAX = 30
"""At most this many file lines are quoted back per region."""
MAX_REGIONS = 6
"""At most this many regions (failed hunks, ambiguous candidates) are quoted per block."""
_SCAN_LIMIT = 5000
"""Files longer than this are not scanned line by line for a nearest line."""

_KINDS = {
    "write": "a whole-file write",
    "patch": "a patch",
    "edit": "an EDIT/REPL edit",
    "replace": "a SEARCH/REPLACE edit",
    "delete": "a delete",
    "move": "a move",
}


def closest_lines(
    lines: Sequence[str], quoted: Sequence[str], region: tuple[int, int] | None
) -> list[tuple[int, str]]:
    """The file's lines (1-based number, text) nearest to the ``quoted`` ones."""
    if region is None:
        wanted = max((q.strip() for q in quoted), key=len, default="")
        found = most_similar(lines, wanted) if len(lines) <= _SCAN_LIMIT else None
        if found is None:
            return []
        region = (found[0], found[0] + 1)
    start = max(0, region[0] - EXCERPT_CONTEXT)
    end = min(len(lines), region[1] + EXCERPT_CONTEXT, start + EXCERPT_MAX)
    return [(i + 1, lines[i]) for i in range(start, end)]


def _differs(
    library: PromptLibrary, lines: Sequence[str], quoted: Sequence[str], region: tuple[int, int]
) -> str:
    """Name the first quoted line the region holds differently (``lineX6`` against
    ``line6``), or nothing."""
    window = set(lines[region[0] : region[1]])
    for line in quoted:
        if not line.strip() or line in window:
            continue
        found = most_similar(lines, line, floor=0.6, start=region[0], end=region[1])
        if found is not None and lines[found[0]] != line:
            return library.render(
                "edits/feedback_differs",
                quoted=line.strip(),
                number=found[0] + 1,
                actual=lines[found[0]].strip(),
            )
    return ""


def _regions(failure: HunkFailure, many: bool) -> list[tuple[str, tuple[int, int] | None]]:
    """The places to quote for one failure, each with what it is for."""
    label = f" for hunk {failure.hunk + 1}" if many else ""
    if failure.candidates:
        n = len(failure.expected) or 1
        count = len(failure.candidates)
        return [
            (f"{label} (place {k + 1} of {count})", (c - 1, c - 1 + n))
            for k, c in enumerate(failure.candidates)
        ]
    return [(label, failure.closest)]


def _closest_text(outcome: ActionOutcome, library: PromptLibrary) -> str:
    path = outcome.path
    if not outcome.hunk_failures or not outcome.file_lines:
        return library.render("edits/feedback_unchanged", path=path)
    lines = outcome.file_lines
    many = outcome.action.kind == "patch" and len(getattr(outcome.action, "hunks", ())) > 1
    parts: list[str] = []
    shown = 0
    for failure in outcome.hunk_failures:
        for what, region in _regions(failure, many):
            if shown == MAX_REGIONS:
                break
            excerpt = closest_lines(lines, failure.expected, region)
            if not excerpt:
                continue
            shown += 1
            width = len(str(excerpt[-1][0]))
            text = "\n".join(f"{n:>{width}} | {line}" for n, line in excerpt)
            parts.append(
                library.render("edits/feedback_closest", path=path, what=what, excerpt=text)
            )
            if not failure.candidates and not failure.settled:
                differs = _differs(
                    library, lines, failure.expected, (excerpt[0][0] - 1, excerpt[-1][0])
                )
                if differs:
                    parts.append(differs)
    if not parts:
        return library.render("edits/feedback_nothing_close", path=path)
    return "\n\n".join(parts)


def _numbers(outcomes: Sequence[ActionOutcome], capital: bool = True) -> str:
    numbers = ", ".join(str(o.action.block + 1) for o in outcomes)
    word = "Blocks" if len(outcomes) > 1 else "Block"
    return f"{word if capital else word.lower()} {numbers}"


def _others(
    outcome: ActionOutcome,
    all_outcomes: Sequence[ActionOutcome],
    written: bool,
    library: PromptLibrary,
) -> str:
    rest = [o for o in all_outcomes if o is not outcome]
    ok = [o for o in rest if o.ok]
    bad = [o for o in rest if not o.ok]
    parts = []
    if ok and written:
        parts.append(
            library.render("edits/feedback_others_applied", blocks=_numbers(ok, capital=False))
        )
    elif ok:
        parts.append(library.render("edits/feedback_others_held", blocks=_numbers(ok)))
    if bad:
        parts.append(library.render("edits/feedback_others_failed", blocks=_numbers(bad)))
    if not rest:
        parts.append(library.render("edits/feedback_others_none"))
    return " ".join(part.strip() for part in parts)


def block_feedback(
    outcome: ActionOutcome,
    all_outcomes: Sequence[ActionOutcome],
    *,
    written: bool,
    library: PromptLibrary | None = None,
) -> str:
    """The feedback text for one failed block (``written``: the blocks that matched land)."""
    library = library or PromptLibrary()
    reason = outcome.reason.strip()
    if reason and not reason.endswith("."):
        reason += "."
    if outcome.settled:
        resend = ""
    elif written:
        resend = library.render("edits/feedback_resend")
    else:
        resend = library.render("edits/feedback_resend_all")
    text = library.render(
        "edits/feedback",
        block=outcome.action.block + 1,
        kind=_KINDS.get(outcome.action.kind, outcome.action.kind),
        path=outcome.path,
        line=outcome.action.line,
        reason=reason,
        closest=_closest_text(outcome, library),
        others=_others(outcome, all_outcomes, written, library),
        resend=resend.strip(),
    )
    return text.strip()


def summary_feedback(
    feedback: Sequence[str], total: int, *, written: bool, library: PromptLibrary | None = None
) -> str:
    """The feedback for a whole reply: a heading, then each failed block's text."""
    library = library or PromptLibrary()
    name = "edits/feedback_outcome_written" if written else "edits/feedback_outcome_held"
    return library.render(
        "edits/feedback_summary",
        failed=len(feedback),
        total=total,
        outcome=library.render(name).strip(),
        blocks="\n\n".join(text.strip() for text in feedback),
    )


def lost_feedback(line: int, message: str, *, written: bool, library: PromptLibrary) -> str:
    """The feedback for a block the parser could not read, and what became of the others."""
    others = library.render(
        "edits/feedback_lost_written" if written else "edits/feedback_lost_held"
    ).strip()
    return library.render("edits/feedback_lost", line=line, message=message, others=others)
