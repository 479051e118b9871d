"""A bridge prompt fitted to its token budget by the files' rank, and as sections of the
core composer for a report.

The frame (the system part on a first round, the task, the tree, the notes) is required;
every file is shown at one level: its full text, its summary, or its path in the tree.
:func:`fit_files` counts the frame with every file at its path, then gives each file in
rank order the most of it that fits the room left (its block's own tokens, and what
showing it opens in a folded tree), so the cuts follow the rank and a file whose full text
fits is never cut to its summary; an exact count of the prompt made follows, and while it
is over, the files shown last go back to their paths (:func:`~agentprompt.budget.largest_fitting`,
the bisection the repository map fits with).

For a report, the prompt is cut into sections that join back to its text: each file's
block (its text from ``## path`` to the closing fence, or its summary under ``### path``
among the summaries) is a section ``file:PATH``, and the frame between them is required.
Without a budget, and when no report is asked for, the rendered prompt is all there is:
it is counted once, by its keyed parts, and no composition is built (a whole repository's
prompt is hundreds of megabytes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial

from agentprompt.bridge._ranked import is_file_key, key_label
from agentprompt.bridge._render import LEFT_OUT_LISTED, Level, RenderedUser
from agentprompt.budget import BudgetExceeded, Cut, largest_fitting
from agentprompt.composition import Composition, PlacedSection, assemble
from agentprompt.sections import Section
from agentprompt.tokens import CountCache

__all__ = ["Fitted", "Growth", "fit_files", "paths_only_too_large", "report_sections"]

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
    compose: Callable[[], Composition] | None = None
    """Makes the prompt as sections, with each one's tokens (None: there is none, see
    the module); made when first asked for (:attr:`composition`)."""
    report_cuts: Callable[[], tuple[Cut, ...]] | None = None
    """Makes the report of what the budget cut (:attr:`cuts`), when first asked for."""

    @cached_property
    def composition(self) -> Composition | None:
        """The prompt as sections, with each one's tokens (None: not built)."""
        return self.compose() if self.compose else None

    @cached_property
    def cuts(self) -> tuple[Cut, ...]:
        """What the budget cut, in rank order (counted when first asked for: a large
        repository's files cut number thousands)."""
        return self.report_cuts() if self.report_cuts else ()

    @property
    def sections(self) -> tuple[PlacedSection, ...]:
        """The prompt's sections for a report (:func:`report_sections`; empty when no
        composition was built)."""
        composition = self.composition
        return report_sections(composition) if composition else ()


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
                id=key_label(path),
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


Growth = Callable[[str, Level], Mapping[str, int]]
"""What showing a file (or a code block) at a level adds around it, each thing with the
tokens it costs and counted once however many files need it: the folders of a folded
tree it opens, the heading of the section it goes in."""


class _Choosing:
    """Each file's level, chosen in rank order within the room the frame leaves."""

    def __init__(
        self,
        blocks: Mapping[tuple[str, Level], str],
        tokens: CountCache,
        lists_all: bool,
        credits: Mapping[str, str],
    ) -> None:
        self.blocks = blocks
        self.tokens = tokens
        self.lists_all = lists_all
        self.credits = credits
        self.costs: dict[tuple[str, Level], int] = {}
        """Each block's cost once asked for: the files the choosing looked at."""

    def listed(self, path: str) -> int:
        """The tokens of ``path``'s line in the note on the files cut, which showing it
        whole takes away (when the note names every file cut, as the frame counted it)."""
        return self.tokens.count(f"- {path} (path)\n") if self.lists_all else 0

    def cost(self, path: str, level: Level) -> int:
        """The tokens ``path``'s block takes at ``level`` (none for its path alone)."""
        if level == "path":
            return 0
        known = self.costs.get((path, level))
        if known is not None:
            return known
        text = self.blocks.get((path, level))
        if text is None:
            return 0
        replaced = self.credits.get(path)
        cost = self.tokens.count(text) - (self.tokens.count(replaced) if replaced else 0)
        self.costs[(path, level)] = max(0, cost)
        return self.costs[(path, level)]


_STEPS: dict[Level, tuple[Level, ...]] = {
    "full": ("full", "summary", "path"),
    "summary": ("summary", "path"),
    "path": ("path",),
}

_SIZE: dict[Level, int] = {"path": 0, "summary": 1, "full": 2}

_UPWARD: tuple[Level, ...] = ("summary", "full")

_GIVE_UP_AFTER = 200
"""How many files in a row may fail to fit before the rest are left at their paths (the
room left is then smaller than what the files ranked next need)."""

_ROOM_LEFT = 24
"""Below this many tokens of room, no further block can fit."""


def _choose(
    levels: Mapping[str, Level],
    ranked: Sequence[str],
    room: int,
    choosing: _Choosing,
    growth: Growth | None,
) -> dict[str, Level]:
    """Each file's level: in rank order, the most of it that fits the room left (its
    block, and the tree folders showing it opens), else its path. A file that fits in full
    is never cut to its summary, and a file ranked lower is only shown when the files
    ranked above it took what fitted."""
    chosen: dict[str, Level] = {p: "path" for p in levels}
    opened: set[str] = set()
    misses = 0
    for path in ranked:
        if room < _ROOM_LEFT or misses >= _GIVE_UP_AFTER:
            break
        fitted = False
        for level in _STEPS[levels[path]]:
            if level == "path" or (path, level) not in choosing.blocks:
                continue
            grows = growth(path, level) if growth else {}
            opens = {f: n for f, n in grows.items() if f not in opened}
            cost = choosing.cost(path, level) + sum(opens.values())
            if level == levels[path]:
                cost -= choosing.listed(path)
            if cost <= room:
                chosen[path] = level
                room -= cost
                opened.update(opens)
                fitted = True
                break
        misses = 0 if fitted else misses + 1
    return chosen


def _left_out(
    levels: Mapping[str, Level],
    chosen: Mapping[str, Level],
    ranked: Sequence[str],
    blocks: Mapping[tuple[str, Level], str],
) -> tuple[tuple[str, Level], ...]:
    """The files cut down, in rank order, with what was kept of each."""
    return tuple(
        (path, chosen[path])
        for path in ranked
        if levels[path] != chosen[path] and (path, levels[path]) in blocks
    )


def _cut_report(
    levels: Mapping[str, Level], left_out: Sequence[tuple[str, Level]], choosing: _Choosing
) -> tuple[Cut, ...]:
    """The cuts as a report gives them: each file the choosing looked at and cut, its
    tokens before and after; then, as one cut, the files ranked below the last one it
    looked at, left at their paths without being counted (a large repository's thousands)."""
    looked = {key[0] for key in choosing.costs}
    cuts = [
        Cut(
            section=key_label(path),
            action="dropped" if now == "path" else "fallback",
            tokens_before=choosing.cost(path, levels[path]),
            tokens_after=choosing.cost(path, now),
            detail=f"{levels[path]} -> {now}",
            reason="the files ranked above it took the room left",
        )
        for path, now in left_out
        if path in looked
    ]
    rest = [path for path, _now in left_out if path not in looked and is_file_key(path)]
    if rest:
        cuts.append(
            Cut(
                section=RANKED_LOWER,
                action="dropped",
                tokens_before=0,
                tokens_after=0,
                detail=f"{len(rest)} files ranked lower, each at its path (not counted)",
                reason="no room was left when their turn came",
            )
        )
    return tuple(cuts)


RANKED_LOWER = "files:ranked-lower"
"""The section a report names for the files ranked below the last one the fitter
looked at."""


_MOST_CHARS_PER_TOKEN = 8
"""More characters than any text holds per token: files whose blocks hold more than this
many characters per token of the budget cannot all be shown, so the prompt showing them
all is not made."""

_ATTEMPTS = 3
"""How many times the files are chosen again in a smaller room before the files shown
last are taken back one level at a time."""


def _stepped_back(
    render: Render,
    levels: Mapping[str, Level],
    ranked: Sequence[str],
    chosen: Mapping[str, Level],
    blocks: Mapping[tuple[str, Level], str],
    budget: int,
    tokens: CountCache,
    choosing: _Choosing,
) -> tuple[RenderedUser, dict[str, Level], int]:
    """The prompt of ``chosen`` with the files shown last taken back to fit: each file's
    steps up from its path, in rank order, of which the most that fit are kept (the last
    file's full text goes first, then its summary, then the file ranked above it)."""
    steps: list[tuple[str, Level]] = [
        (p, lv)
        for p in ranked
        for lv in _UPWARD
        if chosen[p] != "path" and (p, lv) in blocks and _SIZE[lv] <= _SIZE[chosen[p]]
    ]

    def measure(count: int) -> tuple[int, tuple[RenderedUser, dict[str, Level]]]:
        current: dict[str, Level] = {p: "path" for p in levels}
        for path, level in steps[:count]:
            current[path] = level
        left_out = _left_out(levels, current, ranked, blocks)
        made = render(current, left_out)
        return tokens.count_keyed(made.text, made.spans), (made, current)

    _count, made = largest_fitting(measure, len(steps), budget)
    if made is None:
        made = measure(0)[1]
    rendered, current = made
    return rendered, current, tokens.count_keyed(rendered.text, rendered.spans)


def _whole(render: Render, levels: Mapping[str, Level], tokens: CountCache, report: bool) -> Fitted:
    """The prompt with every file at its level, nothing cut."""
    rendered = render(levels, ())
    return Fitted(
        text=rendered.text,
        tokens=tokens.count_keyed(rendered.text, rendered.spans),
        levels=dict(levels),
        left_out=(),
        compose=partial(_compose, rendered, tokens) if report else None,
    )


def fit_files(
    render: Render,
    levels: Mapping[str, Level],
    order: Sequence[str],
    blocks: Mapping[tuple[str, Level], str],
    budget: int | None,
    tokens: CountCache,
    *,
    report: bool = False,
    growth: Growth | None = None,
    credits: Mapping[str, str] | None = None,
    shown_chars: int | None = None,
) -> Fitted:
    """The prompt ``render`` makes, its files shown, in the rank order ``order``, at the
            most of each that fits ``budget`` (``blocks`` holds each file's text at each level it
            may be shown at; ``growth``, what showing a file adds around it; ``credits``, by key, a
        text the key's block replaces when shown, whose tokens it does not add; ``shown_chars``,
    the characters of every block at its level, when known without making them). The frame (every
            file at its path) is counted first; then each file in turn takes its full text, else
            its summary, else its path, by what the room left holds; an exact count of the prompt
            made follows, and while it is over, the files shown last go back to their paths. So
            the cuts follow the rank, and a file whose full text fits is shown in full.

            ``tokens`` counts the prompt and its blocks (remembering counts by key, in its store
            too); ``report``: build the sections' composition even when nothing is cut."""
    ranked = [p for p in order if p in levels]
    placed = set(ranked)
    ranked += [p for p in levels if p not in placed]
    if budget is None:
        return _whole(render, levels, tokens, report)
    cuttable = sum(1 for p, lv in levels.items() if (p, lv) in blocks)
    choosing = _Choosing(blocks, tokens, cuttable <= LEFT_OUT_LISTED, credits or {})
    if shown_chars is None:
        shown_chars = sum(len(blocks.get((p, lv), "")) for p, lv in levels.items())
    if shown_chars <= budget * _MOST_CHARS_PER_TOKEN:
        whole = _whole(render, levels, tokens, report)
        if whole.tokens <= budget:
            return whole
    paths: dict[str, Level] = {p: "path" for p in levels}
    bare = render(paths, _left_out(levels, paths, ranked, blocks))
    frame = tokens.count_keyed(bare.text, bare.spans)
    if frame > budget:
        raise paths_only_too_large(budget, frame)
    room = budget - frame
    first: dict[str, Level] | None = None
    for _attempt in range(_ATTEMPTS):
        chosen = _choose(levels, ranked, room, choosing, growth)
        first = first or chosen
        left_out = _left_out(levels, chosen, ranked, blocks)
        rendered = render(chosen, left_out)
        exact = tokens.count_keyed(rendered.text, rendered.spans)
        if exact <= budget:
            current = chosen
            break
        # The blocks' own counts leave out what joining them adds (headings, the note on
        # what was cut): choose again in a room smaller by what the count was over.
        room -= exact - budget
    else:
        rendered, current, exact = _stepped_back(
            render, levels, ranked, first or chosen, blocks, budget, tokens, choosing
        )
    left_out = _left_out(levels, current, ranked, blocks)
    cut = bool(left_out)
    return Fitted(
        text=rendered.text,
        tokens=exact,
        levels=current,
        left_out=left_out,
        compose=partial(_compose, rendered, tokens) if report or cut else None,
        report_cuts=partial(_cut_report, levels, left_out, choosing),
    )
