"""A bridge prompt as sections of the core composer, fitted by the core budget.

The prompt is cut into sections that join back to its text: each file's block (its text
from ``## path`` to the closing fence, or its summary under ``### path`` among the
summaries) is a section ``file:PATH``, and the frame between them (the system part on a
first round, the task, the tree, the notes) is required. The files that may be cut are
sections too, most relevant first, their full text with their summary's block as
fallback; all share one priority, so :func:`agentprompt.budget.fit` cuts every file's
full text (lowest-ranked first) before any file loses its summary, and a dropped file
leaves its path. The budget's :class:`~agentprompt.budget.Layout` renders the prompt the
files kept make (a summary moves to the summaries, each cut file gets its line in the
note naming what was cut) and counts it exactly, so one fit decides what is cut, by the
prompt's own tokens.

Without a budget, and when no report is asked for, the rendered prompt is all there is:
it is counted once, by its keyed parts, and no composition is built (a whole repository's
prompt is hundreds of megabytes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from agentprompt.bridge._render import Level, RenderedUser, summary_block
from agentprompt.budget import BudgetExceeded, Cut, Layout, fit
from agentprompt.composition import Composition, PlacedSection, assemble
from agentprompt.sections import Part, Section
from agentprompt.tokens import CountCache

__all__ = ["Fitted", "fit_files", "paths_only_too_large", "report_sections"]

FILE_PRIORITY = 1
"""The budget priority of every file section (the frame's is required)."""

FRAME = "frame"
"""The id of the frame's first section, and of all of it in the report."""

Render = Callable[[Mapping[str, Level], Sequence[tuple[str, Level]]], RenderedUser]
"""Renders the prompt for given levels and the files cut down (with what was kept)."""


@dataclass(frozen=True, kw_only=True)
class Fitted:
    """A prompt within its budget."""

    text: str
    """The prompt."""
    tokens: int
    """Its exact token count."""
    levels: Mapping[str, Level]
    """What is shown of each file."""
    left_out: tuple[tuple[str, Level], ...]
    """Files cut down to fit, with what was kept, most relevant first."""
    composition: Composition | None = None
    """The prompt as sections, with each one's tokens (None: not built, see the module)."""
    cuts: tuple[Cut, ...] = ()
    """What the budget cut, in the order it was cut."""

    @property
    def sections(self) -> tuple[PlacedSection, ...]:
        """The prompt's sections for a report (:func:`report_sections`; empty when no
        composition was built)."""
        return report_sections(self.composition) if self.composition else ()


def paths_only_too_large(budget: int, needed: int) -> BudgetExceeded:
    """The error for a ``budget`` the prompt cannot fit even with every file shown by its
    path only, which takes ``needed`` tokens."""
    return BudgetExceeded(
        budget=budget,
        needed=needed,
        problem=f"{{max_tokens}} {budget} is too small: with every file shown only by its path "
        f"the prompt still takes {needed} tokens",
        fix="raise {max_tokens}, or name fewer files",
    )


def report_sections(composition: Composition) -> tuple[PlacedSection, ...]:
    """The sections of a bridge prompt's composition as a report gives them: the frame
    (every piece of it, its tokens summed) as one section, ``frame``, first, then each
    file's block in prompt order."""
    frame = [s for s in composition.sections if s.priority is None]
    files = tuple(s for s in composition.sections if s.priority is not None)
    if not frame:
        return files
    first = frame[0]
    whole = PlacedSection(
        id=FRAME,
        kind=first.kind,
        role=first.role,
        stability=first.stability,
        priority=None,
        tokens=sum(s.tokens for s in frame),
        first_message=first.first_message,
        last_message=frame[-1].last_message,
    )
    return (whole, *files)


def _laid_out(rendered: RenderedUser) -> list[Section]:
    """``rendered`` cut into sections that join back to its text: each file's block
    (keyed by its span's key when it has one), and the frame between them."""
    text = rendered.text
    keys = {(start, end): key for start, end, key in rendered.spans}
    sections: list[Section] = []
    at = 0

    def frame(end: int) -> None:
        name = FRAME if not sections else f"{FRAME}:{len(sections) + 1}"
        sections.append(Section(id=name, role="user", text=text[at:end]))

    for start, end, path in rendered.blocks:
        if start > at:
            frame(start)
        key = keys.get((start, end))
        sections.append(
            Section(
                id=f"file:{path}",
                role="user",
                text=text[start:end],
                priority=FILE_PRIORITY,
                count_keys=(key,) if key is not None else (),
            )
        )
        at = end
    if at < len(text) or not sections:
        frame(len(text))
    return sections


def _compose(rendered: RenderedUser, tokens: CountCache) -> Composition:
    """The composition of ``rendered``: one user message, its sections joined with
    nothing between them, so its text is the prompt's."""
    return assemble(_laid_out(rendered), counter=tokens, separator="")


class _Files:
    """The files the budget may cut, as sections in rank order, and the prompt the files
    kept make."""

    def __init__(
        self,
        render: Render,
        levels: Mapping[str, Level],
        order: Sequence[str],
        blocks: Mapping[tuple[str, Level], str],
        rendered: RenderedUser,
        tokens: CountCache,
    ) -> None:
        self.render = render
        self.levels = dict(levels)
        self.tokens = tokens
        ranked = [p for p in order if p in levels]
        placed = set(ranked)
        ranked += [p for p in levels if p not in placed]
        shown = {path: (start, end) for start, end, path in rendered.blocks}
        keys = {(start, end): key for start, end, key in rendered.spans}
        parts: list[Part] = []
        for path in ranked:
            level = levels[path]
            if level == "path" or path not in shown:
                continue
            start, end = shown[path]
            text = rendered.text[start:end]
            summary = blocks.get((path, "summary")) if level == "full" else None
            full = blocks.get((path, level))
            fallbacks: tuple[str, ...] = ()
            if summary is not None and full is not None and len(summary) < len(full):
                smaller = summary_block(path, summary)
                fallbacks = (smaller,) if len(smaller) < len(text) else ()
            key = keys.get((start, end))
            parts.append(
                Section(
                    id=f"file:{path}",
                    role="user",
                    text=text,
                    priority=FILE_PRIORITY,
                    fallbacks=fallbacks,
                    count_keys=(key,) if key is not None else (),
                )
            )
        self.parts = tuple(parts)

    def cut_to(
        self, cut: Mapping[str, Level]
    ) -> tuple[dict[str, Level], tuple[tuple[str, Level], ...]]:
        """Each file's level once the files ``cut`` (by section id) are cut to their
        level, and the files cut (most relevant first) with what was kept."""
        current = dict(self.levels)
        left_out = []
        for part in self.parts:
            level = cut.get(part.id)
            if level is not None:
                path = part.id.removeprefix("file:")
                current[path] = level
                left_out.append((path, level))
        return current, tuple(left_out)

    def compose(self, kept: tuple[Part, ...]) -> Composition:
        """The prompt the parts ``kept`` (each as cut so far) make."""
        there = {p.id: p for p in kept}
        cut: dict[str, Level] = {}
        for part in self.parts:
            now = there.get(part.id)
            if now is None:
                cut[part.id] = "path"
            elif isinstance(now, Section) and len(now.fallbacks) < _steps(part):
                cut[part.id] = "summary"
        return _compose(self.render(*self.cut_to(cut)), self.tokens)


def _steps(part: Part) -> int:
    """How many smaller versions ``part`` has."""
    return len(part.fallbacks) if isinstance(part, Section) else 0


def fit_files(
    render: Render,
    levels: Mapping[str, Level],
    order: Sequence[str],
    blocks: Mapping[tuple[str, Level], str],
    budget: int | None,
    tokens: CountCache,
    *,
    report: bool = False,
) -> Fitted:
    """The prompt ``render`` makes, its files cut down by the core budget (lowest of
    ``order`` first) to ``budget``; ``blocks`` holds each file's text at each level it may
    be shown at. ``tokens`` counts the prompt and its sections (remembering their counts
    by key, in its store too); ``report``: build the sections' composition even when
    nothing is cut."""
    rendered = render(levels, ())
    exact = tokens.count_keyed(rendered.text, rendered.spans)
    if (budget is None or exact <= budget) and not report:
        return Fitted(text=rendered.text, tokens=exact, levels=dict(levels), left_out=())
    whole = _compose(rendered, tokens)
    if budget is None or exact <= budget:
        return Fitted(
            text=rendered.text, tokens=exact, levels=dict(levels), left_out=(), composition=whole
        )
    files = _Files(render, levels, order, blocks, rendered, tokens)
    # The composition counts the chat message's framing too; the budget is the text's.
    framing = whole.total_tokens - sum(whole.message_tokens)
    try:
        result = fit(
            whole,
            budget + framing,
            counter=tokens,
            layout=Layout(parts=files.parts, compose=files.compose),
        )
    except BudgetExceeded:
        paths: dict[str, Level] = {p: "path" for p in levels}
        smallest = render(paths, tuple((p, "path") for p in order if p in levels))
        raise paths_only_too_large(
            budget, tokens.count_keyed(smallest.text, smallest.spans)
        ) from None
    cut: dict[str, Level] = {
        c.section: "path" if c.action == "dropped" else "summary" for c in result.cuts
    }
    current, left_out = files.cut_to(cut)
    fitted = result.composition
    return Fitted(
        text=fitted.messages[0].text,
        tokens=fitted.message_tokens[0],
        levels=current,
        left_out=left_out,
        composition=fitted,
        cuts=result.cuts,
    )
