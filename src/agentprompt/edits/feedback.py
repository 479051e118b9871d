"""Feedback for the model: which block failed, why, and what the file really holds there.

The text comes from the prompt files ``edits/feedback.md`` (one failed block) and
``edits/feedback_summary.md`` (a reply's failed blocks together), so a project can reword it.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from agentprompt.edits.plan import ActionOutcome
from agentprompt.prompts.loader import PromptLibrary

__all__ = ["block_feedback", "closest_lines", "summary_feedback"]

EXCERPT_CONTEXT = 2
"""Lines shown before and after the nearest region."""
EXCERPT_MAX = 30
"""At most this many file lines are quoted back."""
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


def _nearest_line(lines: Sequence[str], quoted: Sequence[str]) -> int | None:
    wanted = max((q.strip() for q in quoted), key=len, default="")
    if not wanted or len(lines) > _SCAN_LIMIT:
        return None
    best, best_i = 0.0, None
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(wanted)
    for i, line in enumerate(lines):
        matcher.set_seq1(line.strip())
        if matcher.real_quick_ratio() <= best or matcher.quick_ratio() <= best:
            continue
        ratio = matcher.ratio()
        if ratio > best:
            best, best_i = ratio, i
    return best_i if best >= 0.5 else None


def closest_lines(
    lines: Sequence[str], quoted: Sequence[str], region: tuple[int, int] | None
) -> list[tuple[int, str]]:
    """The file's lines (1-based number, text) nearest to the ``quoted`` ones."""
    if region is None:
        at = _nearest_line(lines, quoted)
        if at is None:
            return []
        region = (at, at + 1)
    start = max(0, region[0] - EXCERPT_CONTEXT)
    end = min(len(lines), region[1] + EXCERPT_CONTEXT, start + EXCERPT_MAX)
    return [(i + 1, lines[i]) for i in range(start, end)]


def _closest_text(outcome: ActionOutcome, path: str) -> str:
    failure = outcome.hunk_failures[0] if outcome.hunk_failures else None
    if failure is None or not outcome.file_lines:
        return f"`{path}` was not changed."
    excerpt = closest_lines(outcome.file_lines, failure.expected, failure.closest)
    if not excerpt:
        return f"No lines similar to the quoted ones were found in `{path}`."
    width = len(str(excerpt[-1][0]))
    shown = "\n".join(f"{n:>{width}} | {text}" for n, text in excerpt)
    return f"The closest lines in `{path}` are:\n```\n{shown}\n```"


def _numbers(outcomes: Sequence[ActionOutcome]) -> str:
    numbers = ", ".join(str(o.action.block + 1) for o in outcomes)
    return f"Blocks {numbers}" if len(outcomes) > 1 else f"Block {numbers}"


def _others(outcome: ActionOutcome, all_outcomes: Sequence[ActionOutcome], written: bool) -> str:
    rest = [o for o in all_outcomes if o is not outcome]
    ok = [o for o in rest if o.ok]
    bad = [o for o in rest if not o.ok]
    parts = []
    if ok and written:
        verb = "were" if len(ok) > 1 else "was"
        parts.append(
            f"{_numbers(ok)} {verb} applied; do not send {'them' if len(ok) > 1 else 'it'} again."
        )
    elif ok:
        parts.append(
            f"{_numbers(ok)} matched, but nothing was written because a reply is "
            "applied all or nothing."
        )
    if bad:
        parts.append(f"{_numbers(bad)} failed as well.")
    if not rest:
        parts.append("It was the only file block in the reply.")
    return " ".join(parts)


def block_feedback(
    outcome: ActionOutcome,
    all_outcomes: Sequence[ActionOutcome],
    *,
    written: bool,
    library: PromptLibrary | None = None,
) -> str:
    """The feedback text for one failed block."""
    library = library or PromptLibrary()
    reason = outcome.reason.strip()
    if reason and not reason.endswith("."):
        reason += "."
    return library.render(
        "edits/feedback",
        block=outcome.action.block + 1,
        kind=_KINDS.get(outcome.action.kind, outcome.action.kind),
        path=outcome.path,
        line=outcome.action.line,
        reason=reason,
        closest=_closest_text(outcome, outcome.path),
        others=_others(outcome, all_outcomes, written),
    )


def summary_feedback(
    feedback: Sequence[str], total: int, *, written: bool, library: PromptLibrary | None = None
) -> str:
    """The feedback for a whole reply: a heading, then each failed block's text."""
    library = library or PromptLibrary()
    outcome = (
        "The blocks that matched were written."
        if written
        else "Nothing was written: a reply is applied all or nothing."
    )
    return library.render(
        "edits/feedback_summary",
        failed=len(feedback),
        total=total,
        outcome=outcome,
        blocks="\n\n".join(feedback),
    )
