"""A bridge prompt as sections of the core composer, fitted by the core budget.

The prompt's files are sections of a :class:`~agentprompt.composition.Composition`: one
required section, ``frame``, holds the prompt with every file shown by its path only
(the system part on a first round, the task, the tree, the notes); each file that shows
more is an optional section ``file:PATH`` whose fallback is its summary. All file sections
share one priority and stand in rank order, so :func:`agentprompt.budget.fit` cuts every
file's full text (lowest-ranked first) before any file loses its summary, and a dropped
section leaves the file's path. The composition gives the per-section token report and the
budget's cut report; the prompt itself is then rendered at the levels the fit chose and
counted exactly, and when that count (with the note naming what was cut) is still over,
the composition is fitted again with the difference taken off.

Without a budget, and when no report is asked for, the rendered prompt is all there is:
it is counted once, by its keyed parts, and no composition is built (a whole repository's
prompt is hundreds of megabytes).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from agentprompt.bridge._render import Level, RenderedUser
from agentprompt.budget import BudgetExceeded, Cut, fit
from agentprompt.composition import Composition, assemble
from agentprompt.sections import Section, Stability
from agentprompt.tokens import CountCache

__all__ = ["Fitted", "fit_files", "paths_only_too_large", "prompt_sections"]

FILE_PRIORITY = 1
"""The budget priority of every file section (the frame's is required)."""

_REFITS = 6
"""How many times a composition is fitted again before the budget is called too small."""

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


def prompt_sections(
    frame: str,
    levels: Mapping[str, Level],
    order: Sequence[str],
    blocks: Mapping[tuple[str, Level], str],
    digests: Mapping[str, str] | None = None,
) -> list[Section]:
    """The prompt's sections: ``frame`` (required), then each file shown at more than its
    path, most relevant first, at its level, with its summary as fallback. ``digests``:
    the files' contents' digests, by path, which key their sections' token counts (a
    summary is keyed by its own digest), so a count is remembered across runs."""
    sections = [Section(id="frame", role="user", text=frame, stability=Stability.SESSION)]
    ranked = [p for p in order if p in levels]
    placed = set(ranked)
    ranked += [p for p in levels if p not in placed]
    for path in ranked:
        level = levels[path]
        text = blocks.get((path, level))
        if level == "path" or text is None:
            continue
        head = f"## {path}\n"
        summary = blocks.get((path, "summary")) if level == "full" else None
        keep = summary is not None and len(summary) < len(text)
        texts = (text, summary) if keep and summary is not None else (text,)
        full_key = (digests or {}).get(path) if level == "full" else None
        keys = [
            _key(path, level, full_key, text),
            *(_key(path, "summary", None, t) for t in texts[1:]),
        ]
        sections.append(
            Section(
                id=f"file:{path}",
                role="user",
                text=head + text,
                priority=FILE_PRIORITY,
                fallbacks=tuple(head + t for t in texts[1:]),
                count_keys=tuple(keys),
            )
        )
    return sections


def _key(path: str, level: Level, digest: str | None, text: str) -> str:
    """The count key of a file's section at ``level``: its path and its text's digest
    (``digest`` when known, else worked out from ``text``)."""
    if digest is None:
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()
    return f"bridge-section\0{path}\0{level}\0{digest}"


def fit_files(
    render: Render,
    levels: Mapping[str, Level],
    order: Sequence[str],
    blocks: Mapping[tuple[str, Level], str],
    budget: int | None,
    tokens: CountCache,
    *,
    report: bool = False,
    digests: Mapping[str, str] | None = None,
) -> Fitted:
    """The prompt ``render`` makes, its files cut down by the core budget (lowest of
    ``order`` first) to ``budget``; ``blocks`` holds each file's text at each level it may
    be shown at, ``digests`` its content's digest. ``tokens`` counts the prompt and its
    sections (remembering their counts by key, in its store too); ``report``: build the
    sections' composition even when nothing is cut."""
    rendered = render(levels, ())
    exact = tokens.count_keyed(rendered.text, rendered.spans)
    if (budget is None or exact <= budget) and not report:
        return Fitted(text=rendered.text, tokens=exact, levels=dict(levels), left_out=())
    frame = render({}, ()).text
    whole = assemble(prompt_sections(frame, levels, order, blocks, digests), counter=tokens)
    if budget is None or exact <= budget:
        return Fitted(
            text=rendered.text, tokens=exact, levels=dict(levels), left_out=(), composition=whole
        )
    # The composition counts the files as sections, not as the rendered prompt shows them
    # (nor the note naming what was cut): the difference is carried over to the budget,
    # and when the rendered prompt is still over, the composition must shed that much more.
    target = budget + whole.total_tokens - exact
    for _ in range(_REFITS):
        try:
            result = fit(whole, target, counter=tokens)
        except BudgetExceeded:
            break
        current, left_out = _levels_after(levels, order, result.cuts)
        rendered = render(current, left_out)
        exact = tokens.count_keyed(rendered.text, rendered.spans)
        if exact <= budget:
            return Fitted(
                text=rendered.text,
                tokens=exact,
                levels=current,
                left_out=left_out,
                composition=result.composition,
                cuts=result.cuts,
            )
        target = result.composition.total_tokens - (exact - budget)
    smallest = render({p: "path" for p in levels}, tuple((p, "path") for p in order if p in levels))
    raise paths_only_too_large(budget, tokens.count_keyed(smallest.text, smallest.spans))


def _levels_after(
    levels: Mapping[str, Level], order: Sequence[str], cuts: Sequence[Cut]
) -> tuple[dict[str, Level], tuple[tuple[str, Level], ...]]:
    """Each file's level once ``cuts`` are made, and the files cut down (most relevant
    first) with what was kept."""
    current = dict(levels)
    cut: dict[str, Level] = {}
    for step in cuts:
        path = step.section.removeprefix("file:")
        cut[path] = current[path] = "path" if step.action == "dropped" else "summary"
    ranked = [p for p in order if p in cut]
    known = set(ranked)
    ranked += [p for p in cut if p not in known]
    return current, tuple((p, cut[p]) for p in ranked)
