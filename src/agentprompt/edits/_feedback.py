"""Feedback for the model: which block failed, why, and what the file really holds there.

Every sentence comes from a prompt file under ``edits/`` (``feedback.md`` for one failed
block, ``feedback_summary.md`` for the reply: the templates that lay paragraphs out) or from
the edit engine's message catalogue (``edits/catalogue.yaml``: the one-line ``feedback_*``
pieces they are built from), so a project can reword any of it. Each is worded in the
language asked for (:mod:`~agentprompt.edits.wording`): ``feedback_ja.md`` beside
``feedback.md``, ``catalogue_ja.yaml`` beside ``catalogue.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TypeVar

from agentprompt.edits._fuzzy import most_similar
from agentprompt.edits._hunks import HunkFailure
from agentprompt.edits._plan import ActionOutcome
from agentprompt.edits.wording import EDIT_MESSAGES, check_lang, message_in, punctuation, render_in
from agentprompt.prompts.loader import PromptLibrary

T = TypeVar("T")

__all__ = [
    "block_feedback",
    "closest_lines",
    "lost_feedback",
    "reply_feedback",
    "tool_feedback",
]

EXCERPT_CONTEXT = 2
"""Lines shown before and after the nearest region."""
EXCERPT_MAX = 30
"""At most this many file lines are quoted back per region."""
MAX_REGIONS = 6
"""At most this many regions (failed hunks, ambiguous candidates) are quoted per block."""
_SCAN_LIMIT = 5000
"""Files longer than this are not scanned line by line for a nearest line."""

DIFFERING_MAX = 3
"""Short feedback quotes at most this many of the file's lines that differ, per region."""

_KINDS = frozenset({"write", "patch", "edit", "replace", "delete", "move"})
"""The action kinds worded by the catalogue's ``feedback_kind_<kind>`` entries."""


class _Words:
    """The feedback's prompt files and catalogue entries in one language, from one
    project's prompt directories."""

    def __init__(self, library: PromptLibrary | None, lang: str) -> None:
        self.library = library or PromptLibrary()
        self.lang = lang
        self.marks = punctuation(lang)

    def render(self, base: str, /, **values: object) -> str:
        """The prompt file ``edits/<base>`` in this language with ``values`` filled in."""
        return render_in(self.library, f"edits/{base}", self.lang, **values)

    def message(self, key: str, /, **values: object) -> str:
        """The edit catalogue's entry ``key`` in this language with ``values`` filled in."""
        return message_in(self.library, key, self.lang, **values)

    def line(self, key: str, /, **values: object) -> str:
        """The entry ``key`` as one stripped phrase, for a sentence around it."""
        return self.message(key, **values).strip()

    def kind(self, kind: str) -> str:
        """What an action of ``kind`` is, as the feedback names it."""
        return self.line(f"feedback_kind_{kind}") if kind in _KINDS else kind


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
    words: _Words, lines: Sequence[str], quoted: Sequence[str], region: tuple[int, int]
) -> str:
    """Name the first quoted line the region holds differently (``lineX6`` against
    ``line6``), or nothing."""
    window = set(lines[region[0] : region[1]])
    for line in quoted:
        if not line.strip() or line in window:
            continue
        found = most_similar(lines, line, floor=0.6, start=region[0], end=region[1])
        if found is not None and lines[found[0]] != line:
            return words.message(
                "feedback_differs",
                quoted=line.strip(),
                number=found[0] + 1,
                actual=lines[found[0]].strip(),
            )
    return ""


def _where(words: _Words, hunk: int | None, place: tuple[int, int] | None) -> str:
    """What quoted lines are for (hunk ``hunk``, candidate ``place[0]`` of ``place[1]``),
    after a space, or nothing when neither is given."""
    if hunk is not None and place is not None:
        text = words.line("feedback_where_hunk_place", hunk=hunk, place=place[0], count=place[1])
    elif hunk is not None:
        text = words.line("feedback_where_hunk", hunk=hunk)
    elif place is not None:
        text = words.line("feedback_where_place", place=place[0], count=place[1])
    else:
        return ""
    return f" {text}"


def _regions(
    failure: HunkFailure, many: bool, words: _Words
) -> list[tuple[str, tuple[int, int] | None]]:
    """The places to quote for one failure, each with what it is for."""
    hunk = failure.hunk + 1 if many else None
    if failure.candidates:
        n = len(failure.expected) or 1
        count = len(failure.candidates)
        return [
            (_where(words, hunk, (k + 1, count)), (c - 1, c - 1 + n))
            for k, c in enumerate(failure.candidates)
        ]
    return [(_where(words, hunk, None), failure.closest)]


def _placed(
    outcome: ActionOutcome,
    words: _Words,
    place: Callable[[HunkFailure, tuple[int, int] | None], T | None],
) -> list[tuple[HunkFailure, str, T]]:
    """The failed hunks' places the file has lines for, at most :data:`MAX_REGIONS`, in
    order: each failure, what the place is called (a block with several hunks names the
    hunk) and what ``place`` found in the file there (None: nothing to show)."""
    many = outcome.action.kind == "patch" and len(getattr(outcome.action, "hunks", ())) > 1
    shown: list[tuple[HunkFailure, str, T]] = []
    for failure in outcome.hunk_failures:
        for what, region in _regions(failure, many, words):
            found = place(failure, region)
            if found is not None:
                shown.append((failure, what, found))
                if len(shown) == MAX_REGIONS:
                    return shown
    return shown


def _closest_text(outcome: ActionOutcome, words: _Words) -> str:
    path = outcome.path
    if not outcome.hunk_failures or not outcome.file_lines:
        return words.message("feedback_unchanged", path=path)
    lines = outcome.file_lines
    parts: list[str] = []
    for failure, what, excerpt in _placed(
        outcome, words, lambda f, region: closest_lines(lines, f.expected, region) or None
    ):
        width = len(str(excerpt[-1][0]))
        text = "\n".join(f"{n:>{width}} | {line}" for n, line in excerpt)
        parts.append(words.render("feedback_closest", path=path, what=what, excerpt=text))
        if not failure.candidates and not failure.settled:
            differs = _differs(words, lines, failure.expected, (excerpt[0][0] - 1, excerpt[-1][0]))
            if differs:
                parts.append(differs)
    if not parts:
        return words.message("feedback_nothing_close", path=path)
    return "\n\n".join(parts)


def _nearest(
    lines: Sequence[str], quoted: Sequence[str], region: tuple[int, int] | None
) -> tuple[int, int] | None:
    """The 0-based span of the file's lines nearest to the ``quoted`` ones (the region
    itself when known), or None when nothing is similar."""
    if region is not None:
        return region if region[1] > region[0] else (region[0], region[0] + 1)
    wanted = max((q.strip() for q in quoted), key=len, default="")
    found = most_similar(lines, wanted) if len(lines) <= _SCAN_LIMIT else None
    return None if found is None else (found[0], found[0] + 1)


def _differing(
    lines: Sequence[str], quoted: Sequence[str], span: tuple[int, int]
) -> list[tuple[int, str]]:
    """The file's lines (1-based number, text) near ``span`` that a quoted line stands
    for but does not equal, at most :data:`DIFFERING_MAX`."""
    start = max(0, span[0] - EXCERPT_CONTEXT)
    end = min(len(lines), span[1] + EXCERPT_CONTEXT)
    window = set(lines[start:end])
    found: dict[int, str] = {}
    for line in quoted:
        if len(found) == DIFFERING_MAX:
            break
        if not line.strip() or line in window:
            continue
        near = most_similar(lines, line, floor=0.6, start=start, end=end)
        if near is not None and lines[near[0]] != line:
            found.setdefault(near[0] + 1, lines[near[0]])
    return sorted(found.items())


def _short_closest_text(outcome: ActionOutcome, words: _Words) -> str:
    """Where the lines nearest to what the block quoted are, by number, and the file's
    lines among them that differ from the quoted ones (the model holds the rest)."""
    path = outcome.path
    if not outcome.hunk_failures or not outcome.file_lines:
        return words.line("feedback_unchanged", path=path)
    lines = outcome.file_lines
    parts: list[str] = []
    for failure, what, span in _placed(
        outcome, words, lambda f, region: _nearest(lines, f.expected, region)
    ):
        first, last = span[0] + 1, min(span[1], len(lines))
        numbers = str(first) if last <= first else f"{first}-{last}"
        differing = (
            []
            if failure.candidates or failure.settled
            else _differing(lines, failure.expected, span)
        )
        if not (differing and last <= first and not what):
            # A one-line region is named by its differing line alone.
            parts.append(words.line("feedback_compact_near", span=numbers, what=what))
        for number, actual in differing:
            parts.append(words.line("feedback_compact_line", number=number, actual=actual))
    if not parts:
        return words.line("feedback_nothing_close", path=path)
    return words.marks.sentences.join(parts)


def _numbers(outcomes: Sequence[ActionOutcome], words: _Words, capital: bool = True) -> str:
    """The blocks' numbers with their noun (``Blocks 1, 3``; ``block 2`` within a sentence)."""
    numbers = words.marks.items.join(str(o.action.block + 1) for o in outcomes)
    name = "feedback_blocks" if len(outcomes) > 1 else "feedback_block"
    text = words.line(name, numbers=numbers)
    return text if capital else text[:1].lower() + text[1:]


def _others(
    outcome: ActionOutcome,
    all_outcomes: Sequence[ActionOutcome],
    written: bool,
    words: _Words,
) -> str:
    rest = [o for o in all_outcomes if o is not outcome]
    ok = [o for o in rest if o.ok]
    bad = [o for o in rest if not o.ok]
    parts = []
    if ok and written:
        blocks = _numbers(ok, words, capital=False)
        parts.append(words.message("feedback_others_applied", blocks=blocks))
    elif ok:
        parts.append(words.message("feedback_others_held", blocks=_numbers(ok, words)))
    if bad:
        parts.append(words.message("feedback_others_failed", blocks=_numbers(bad, words)))
    if not rest:
        parts.append(words.message("feedback_others_none"))
    return words.marks.sentences.join(part.strip() for part in parts)


def _sentence(reason: str, words: _Words) -> str:
    """``reason`` ending with a full stop of the feedback's language."""
    reason = reason.strip()
    if reason and not reason.endswith((".", words.marks.stop)):
        reason += words.marks.stop
    return reason


def block_feedback(
    outcome: ActionOutcome,
    all_outcomes: Sequence[ActionOutcome],
    *,
    written: bool,
    library: PromptLibrary | None = None,
    alone: bool = True,
    lang: str = "en",
) -> str:
    """The feedback text for one failed block (``written``: the blocks that matched land),
    worded in ``lang``.

    ``alone=False`` leaves out what became of the other blocks and what to resend: in a
    reply's feedback with several failed blocks that is said once, after all of them.
    """
    return _block_text(outcome, all_outcomes, written, _Words(library, lang), alone=alone)


def _block_text(
    outcome: ActionOutcome,
    all_outcomes: Sequence[ActionOutcome],
    written: bool,
    words: _Words,
    *,
    alone: bool,
) -> str:
    reason = _sentence(outcome.reason, words)
    if outcome.settled or not alone:
        resend = ""
    elif written:
        resend = words.message("feedback_resend")
    else:
        resend = words.message("feedback_resend_all")
    text = words.render(
        "feedback",
        block=outcome.action.block + 1,
        kind=words.kind(outcome.action.kind),
        path=outcome.path,
        line=outcome.action.line,
        reason=reason,
        closest=_closest_text(outcome, words),
        others=_others(outcome, all_outcomes, written, words) if alone else "",
        resend=resend.strip(),
    )
    return text.strip()


def tool_feedback(
    outcome: ActionOutcome,
    tool: str,
    *,
    library: PromptLibrary | None = None,
    lang: str = "en",
) -> str:
    """The feedback for a failed tool call (``tool``: its name, such as ``edit``): the call
    and its arguments, not blocks and lines of a reply; worded in ``lang``."""
    words = _Words(library, lang)
    reason = _sentence(outcome.reason, words)
    closest = _closest_text(outcome, words)
    retry = words.message(
        "feedback_tool_retry_match" if closest else "feedback_tool_retry", tool=tool
    )
    text = words.render(
        "feedback_tool",
        tool=tool,
        path=outcome.path,
        reason=reason,
        closest=closest,
        retry=retry.strip(),
    )
    return "\n\n".join(part.strip() for part in text.split("\n\n") if part.strip())


def _summary_text(feedback: Sequence[str], total: int, written: bool, words: _Words) -> str:
    name = "feedback_outcome_written" if written else "feedback_outcome_held"
    return words.render(
        "feedback_summary",
        failed=len(feedback),
        total=total,
        outcome=words.line(name),
        blocks="\n\n".join(text.strip() for text in feedback),
    )


def reply_feedback(
    failed: Sequence[ActionOutcome],
    all_outcomes: Sequence[ActionOutcome],
    *,
    written: bool,
    library: PromptLibrary | None = None,
    lang: str = "en",
    held: Collection[str] | None = None,
) -> str:
    """The feedback for a whole reply with ``failed`` blocks, worded in ``lang``: with one,
    that block's full text; with several, each block's own part, then once what became of
    the blocks that matched and how to resend (said per block, it would repeat for every
    one). ``held``: the files the model holds as they are (a chat that was sent them);
    when every failed block names one of them, the feedback is the short form, which
    names the nearest lines by number and quotes only those that differ."""
    words = _Words(library, lang)
    if held is not None and all(o.path in held for o in failed):
        return _short_reply_text(failed, all_outcomes, written, words)
    alone = len(failed) == 1
    texts = [_block_text(o, all_outcomes, written, words, alone=alone) for o in failed]
    if not alone:
        ok = [o for o in all_outcomes if o.ok]
        closing = []
        if ok and written:
            blocks = _numbers(ok, words, capital=False)
            closing.append(words.message("feedback_others_applied", blocks=blocks))
        elif ok:
            closing.append(words.message("feedback_others_held", blocks=_numbers(ok, words)))
        if not all(o.settled for o in failed):
            closing.append(words.message("feedback_resend_many"))
        if closing:
            once = words.marks.sentences.join(part.strip() for part in closing)
            summary = _summary_text(texts, len(all_outcomes), written, words)
            return f"{summary}\n\n{once}"
    return _summary_text(texts, len(all_outcomes), written, words)


def _short_reply_text(
    failed: Sequence[ActionOutcome],
    all_outcomes: Sequence[ActionOutcome],
    written: bool,
    words: _Words,
) -> str:
    """The short form of :func:`reply_feedback`: a line on what was written and what to
    resend, then a line per failed block with the nearest lines by number."""
    blocks = [
        words.message(
            "feedback_compact",
            block=o.action.block + 1,
            kind=words.kind(o.action.kind),
            path=o.path,
            line=o.action.line,
            reason=_sentence(o.reason, words),
            closest=_short_closest_text(o, words),
        ).strip()
        for o in failed
    ]
    outcome = words.line("feedback_compact_written" if written else "feedback_compact_held")
    if any(o.settled for o in failed):
        outcome += words.marks.sentences + words.line("feedback_compact_settled")
    return words.render(
        "feedback_compact_summary",
        failed=len(failed),
        total=len(all_outcomes),
        outcome=outcome,
        blocks="\n\n".join(blocks),
    ).strip()


def lost_feedback(
    lost: Sequence[tuple[int, str]], *, written: bool, library: PromptLibrary, lang: str = "en"
) -> list[str]:
    """The feedback for each block the parser could not read (its reply line and the
    parser's message), and what became of the others, worded in ``lang``.

    The catalogue entries are looked up once for all the blocks (a reply of many broken
    blocks costs one lookup, not one per block)."""
    words = _Words(library, lang)
    others = words.line("feedback_lost_written" if written else "feedback_lost_held")
    entry = EDIT_MESSAGES.lookup(words.library, "feedback_lost", check_lang(lang))
    return [entry.render(line=line, message=message, others=others) for line, message in lost]
