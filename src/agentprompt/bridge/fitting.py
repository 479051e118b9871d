"""Fitting a bridge prompt to a token budget: full text, then signatures, then the path only.

Files are cut down lowest-ranked first: every file loses its full text before any loses its
summary. Costs per file are estimated from each block's own count, and every candidate
prompt is counted exactly, so the result is within the budget by the exact count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from agentprompt.bridge.render import Level, RenderedUser
from agentprompt.errors import UsageError
from agentprompt.tokens import KeyedSpan

__all__ = ["BudgetTooSmall", "Fitted", "fit_levels"]

_LOWER: dict[Level, Level] = {"full": "summary", "summary": "path"}

Render = Callable[[Mapping[str, Level], Sequence[tuple[str, Level]]], RenderedUser]
"""Renders the prompt for given levels and the files cut down (with what was kept)."""


class SpanCounter(Protocol):
    """Counts a prompt exactly, told which spans of it keys identify (the shared
    :meth:`~agentprompt.tokens.CountCache.count_keyed` with the cache's store)."""

    def __call__(self, text: str, known: Sequence[KeyedSpan] = ()) -> int: ...


class BudgetTooSmall(UsageError):
    """A token budget the prompt cannot fit even with every file shown as a path only."""

    def __init__(self, budget: int, needed: int) -> None:
        super().__init__(
            f"--max-tokens {budget} is too small: with every file shown only by its path the "
            f"prompt still takes {needed} tokens; raise --max-tokens, or name fewer files"
        )
        self.budget = budget
        """The budget given."""
        self.needed = needed
        """The smallest prompt's token count."""


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


def fit_levels(
    render: Render,
    levels: Mapping[str, Level],
    order: Sequence[str],
    blocks: Mapping[tuple[str, Level], str],
    budget: int | None,
    counter: SpanCounter,
) -> Fitted:
    """The prompt ``render`` makes, cut down (lowest of ``order`` first) to ``budget``.

    ``blocks`` holds each file's text at each level it may be shown at, for estimates.
    """
    current = dict(levels)
    cut: dict[str, Level] = {}
    text, tokens = _counted(render(current, ()), counter)
    if budget is None or tokens <= budget:
        return Fitted(text=text, tokens=tokens, levels=current, left_out=())
    estimate = tokens
    for path, lower in _steps(current, order, blocks):
        before = blocks.get((path, current.get(path, "path")), "")
        after = blocks.get((path, lower), "") if lower != "path" else ""
        current[path] = lower
        cut[path] = lower
        estimate -= counter(before) - counter(after)
        if estimate > budget:
            continue
        text, tokens = _counted(render(current, _left_out(cut, order)), counter)
        estimate = tokens
        if tokens <= budget:
            return Fitted(text=text, tokens=tokens, levels=current, left_out=_left_out(cut, order))
    text, tokens = _counted(render(current, _left_out(cut, order)), counter)
    if tokens <= budget:
        return Fitted(text=text, tokens=tokens, levels=current, left_out=_left_out(cut, order))
    raise BudgetTooSmall(budget, tokens)


def _counted(rendered: RenderedUser, counter: SpanCounter) -> tuple[str, int]:
    return rendered.text, counter(rendered.text, rendered.spans)


def _steps(
    current: dict[str, Level], order: Sequence[str], blocks: Mapping[tuple[str, Level], str]
) -> Iterator[tuple[str, Level]]:
    """Each cut in turn: every file's full text (lowest-ranked first), then its summary; a
    file with no summary goes straight to its path."""
    sources: tuple[Level, ...] = ("full", "summary")
    for source in sources:
        for path in reversed(order):
            if current.get(path) == source:
                lower = _LOWER[source]
                yield path, lower if (path, lower) in blocks or lower == "path" else "path"


def _left_out(cut: Mapping[str, Level], order: Sequence[str]) -> tuple[tuple[str, Level], ...]:
    return tuple((p, cut[p]) for p in order if p in cut)
