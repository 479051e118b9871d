"""Fitting a composition to a token budget.

Optional sections are cut lowest priority first. A section with fallbacks steps down its
chain (a file's full text → its signatures → its path) before it is dropped. The history
slot loses its oldest messages in quantised steps, so the cut point (and with it the cached
prefix) stays put while the conversation grows. Nothing is ever cut mid-line: whole
sections, fallback texts and whole messages are the only units. Every cut is reported.
"""

from __future__ import annotations

import copy
import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Literal, TypeVar

from agentprompt.composition import (
    MESSAGE_OVERHEAD,
    Composition,
    assemble,
    count_text,
    message_tokens,
)
from agentprompt.errors import UsageError
from agentprompt.messages import Message, ToolDefinition
from agentprompt.sections import (
    HistorySlot,
    Part,
    Section,
)
from agentprompt.tokens import CountCache, Tokenizer, shared_counter

__all__ = [
    "BudgetExceeded",
    "Cut",
    "FitResult",
    "Layout",
    "fit",
    "history_cut",
    "largest_fitting",
]


class BudgetExceeded(UsageError):
    """A prompt that cannot fit its token budget: what may not be cut is larger on its own.

    :func:`fit` raises it when the sections that may not be cut are over the budget (or
    the budget leaves no room at all); the bridge raises it when its prompt, with every
    file shown by its path only, is still over. The input at fault is ``max_tokens``, and
    the message names it where it belongs (``{max_tokens} 10 is too small``, ``raise the
    budget ({max_tokens})``), so it is not named again before the problem.
    """

    def __init__(
        self,
        *,
        budget: int,
        needed: int,
        required: Sequence[tuple[str, int]] = (),
        problem: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.budget = budget
        """The budget given (input tokens: max tokens minus the reserved output)."""
        self.needed = needed
        """The tokens of the smallest prompt that could be made."""
        self.required = list(required)
        """The sections that may not be cut, with their tokens (empty: not a composition,
        or a budget that leaves no room)."""
        if problem is None:
            problem = _exceeded(budget, needed, self.required)
        super().__init__(problem, input="max_tokens", fix=fix)

    @property
    def total(self) -> int:
        """:attr:`needed`, by the name a composition's callers know it (its total tokens)."""
        return self.needed


def _exceeded(budget: int, total: int, required: Sequence[tuple[str, int]]) -> str:
    """What :func:`fit` found too large, and what to do about it."""
    if budget <= 0:
        return (
            f"the budget is {budget} tokens (max tokens minus the reserved output), which "
            f"leaves no room for the prompt's {total} tokens. Raise the budget "
            "({max_tokens}) or lower the reserved output."
        )
    listed = ", ".join(f"{name} ({tokens} tokens)" for name, tokens in required)
    return (
        f"the prompt needs {total} tokens but the budget is {budget}, and nothing more can "
        f"be cut: the sections that must stay are {listed}. Raise the budget ({{max_tokens}}), "
        "lower the reserved output, or make some of these sections optional."
    )


@dataclass(frozen=True, kw_only=True)
class Cut:
    """One thing :func:`fit` removed or shrank, and why."""

    section: str
    """The id of the section that was cut."""
    action: Literal["fallback", "dropped", "truncated"]
    """Replaced by a smaller fallback, dropped whole, or (history) oldest messages dropped."""
    tokens_before: int
    """The section's tokens before the cut."""
    tokens_after: int
    """The section's tokens after the cut."""
    detail: str
    """What exactly happened, in words."""
    reason: str
    """Why this section was the one cut: how far over budget, and its priority."""


@dataclass(frozen=True, kw_only=True)
class FitResult:
    """A composition that fits its budget, with the cuts that made it fit."""

    composition: Composition
    """The fitted composition."""
    cuts: tuple[Cut, ...]
    """What was cut, in the order it was cut."""
    budget: int
    """The input-token budget it was fitted to (max tokens minus reserved output)."""


def history_cut(
    messages: tuple[Message, ...], shed: int, *, keep_last: int, counter: Tokenizer
) -> int:
    """How many of the oldest messages to drop to shed at least ``shed`` tokens.

    The kept part starts at a user message where one is in reach (every provider accepts
    that as a first message), never at a tool result whose call was dropped, and never cuts
    into the last ``keep_last`` messages; so it may shed less than asked.
    """
    limit = max(0, len(messages) - keep_last)
    total = 0
    k = 0
    while k < limit and total < shed:
        total += message_tokens(messages[k], counter) + MESSAGE_OVERHEAD
        k += 1
    if k == 0 or k >= len(messages):
        return k
    reach = range(k, min(limit, len(messages) - 1) + 1)
    for wanted in ("user", None):
        for i in reach:
            role = messages[i].role
            if role == wanted or (wanted is None and role != "tool"):
                return i
    i = k - 1
    while i > 0 and messages[i].role == "tool":
        i -= 1
    return i


@dataclass
class _Slot:
    index: int
    original: Part
    part: Part
    tokens: int
    level: int = 0  # fallbacks used (text) or tokens asked to shed so far (history)
    cuts: int = 0  # cuts applied so far; equal priorities are cut breadth-first by it
    dropped: bool = False
    done: bool = False

    @property
    def key(self) -> tuple[int, int, int]:
        """Heap order: lowest priority, then fewest cuts so far, then the later section."""
        return (self.part.priority or 0, self.cuts, -self.index)


class _CutQueue:
    """The optional slots that can still shrink, lowest priority first."""

    def __init__(self, slots: list[_Slot]) -> None:
        self._heap = [(s.key, s.index) for s in slots if s.part.priority is not None]
        heapq.heapify(self._heap)
        self._slots = slots

    def pop(self) -> _Slot | None:
        """The next slot to cut, or None when nothing optional is left."""
        while self._heap:
            _, index = heapq.heappop(self._heap)
            slot = self._slots[index]
            if not (slot.dropped or slot.done):
                return slot
        return None

    def push(self, slot: _Slot) -> None:
        """Put a slot back after a cut, if it can shrink further."""
        if not (slot.dropped or slot.done):
            heapq.heappush(self._heap, (slot.key, slot.index))


@dataclass(frozen=True, kw_only=True)
class Layout:
    """How the parts :func:`fit` cuts make the prompt, when the prompt is not those parts
    assembled in order.

    A prompt may show a part's smaller version elsewhere than the part itself (a file cut
    to its summary moves to a section of summaries), or add text for what was cut (a note
    naming it). :func:`fit` then cuts :attr:`parts` and counts exactly the composition
    :attr:`compose` makes of the parts kept, so the prompt fitted is the prompt sent.
    """

    parts: tuple[Part, ...]
    """The parts that may be cut, in cut order: of equal priority and equally cut, the
    later part is cut first."""
    compose: Callable[[tuple[Part, ...]], Composition]
    """The prompt made of the parts kept, each as cut so far, in the order of :attr:`parts`."""


def fit(
    composition: Composition,
    max_tokens: int,
    *,
    reserve_output: int = 0,
    counter: Tokenizer | None = None,
    layout: Layout | None = None,
) -> FitResult:
    """Cut ``composition`` until its input tokens fit ``max_tokens - reserve_output``.

    With a ``layout``, ``composition`` is the prompt its uncut parts make
    (``layout.compose(layout.parts)``), and the layout's parts are what is cut; each exact
    count is of the prompt the layout makes of what is kept. Cutting runs on estimates (a
    part's own tokens); an exact count follows, cutting goes on while it is over, and the
    last cuts are taken back while the exact count shows they were not needed.

    Each rebuild counts its messages anew; a large message is counted by parts whose
    counts ``counter`` remembers (in its store too, a cache database), so only the parts
    a cut changed are tokenized again (:func:`~agentprompt.composition.count_text`)."""
    counter = counter or shared_counter()
    budget = max_tokens - reserve_output
    if budget <= 0:
        raise BudgetExceeded(budget=budget, needed=composition.total_tokens)
    if composition.total_tokens <= budget:
        return FitResult(composition=composition, cuts=(), budget=budget)

    compose: Callable[[tuple[Part, ...]], Composition]
    if layout is None:
        parts = composition.parts
        own = [s.tokens for s in composition.sections]
        compose = partial(
            _reassemble, counter=counter, tools=composition.tools, separator=composition.separator
        )
    else:
        parts, compose = layout.parts, layout.compose
        placed = {s.id: s.tokens for s in composition.sections}
        own = [placed[p.id] if p.id in placed else _own_tokens(p, counter) for p in parts]
    _count_keyed_fallbacks(parts, counter)
    slots = [
        _Slot(index=i, original=p, part=p, tokens=n)
        for i, (p, n) in enumerate(zip(parts, own, strict=True))
    ]
    queue = _CutQueue(slots)
    cuts: list[Cut] = []
    steps: list[tuple[_Slot, _Slot]] = []  # each cut's slot, and a copy from before the cut
    joint = 1 if composition.separator else 0  # a dropped part's share of the separators

    def build() -> Composition:
        return compose(tuple(s.part for s in slots if not s.dropped))

    estimate = composition.total_tokens
    while True:
        # Cutting runs on estimates (a section's own tokens); the exact count follows.
        exhausted = False
        while estimate > budget:
            slot = queue.pop()
            if slot is None:
                exhausted = True
                break
            before = copy.copy(slot)
            estimate -= _shrink(slot, estimate - budget, counter, cuts, joint)
            if len(cuts) > len(steps):
                slot.cuts += 1
                steps.append((slot, before))
            queue.push(slot)
        current = build()
        if current.total_tokens <= budget:
            current = _undo_needless_cuts(current, budget, steps, cuts, build)
            return FitResult(composition=current, cuts=tuple(cuts), budget=budget)
        estimate = current.total_tokens
        if exhausted:
            required = [
                (p.id, s.tokens) for p, s in zip(current.parts, current.sections, strict=True)
            ]
            raise BudgetExceeded(budget=budget, needed=current.total_tokens, required=required)


def _reassemble(
    kept: tuple[Part, ...],
    *,
    counter: Tokenizer,
    tools: tuple[ToolDefinition, ...],
    separator: str,
) -> Composition:
    """The composition of the parts ``kept``, assembled in order."""
    return assemble(kept, counter=counter, tools=tools, separator=separator)


T = TypeVar("T")


def largest_fitting(
    measure: Callable[[int], tuple[int, T]], items: int, budget: int
) -> tuple[int, T | None]:
    """The largest ``n`` of ``0..items`` whose prompt fits ``budget``, found by bisection:
    ``measure(n)`` makes the prompt of the first ``n`` items (a prompt that grows with
    ``n``) and gives its exact tokens with what it made. Returns ``n`` and what ``measure``
    made of it (None when no ``n`` above 0 fits: ``measure(0)`` is never asked for).

    It is for a prompt whose items are shown or not, in one order, with nothing to step
    down to (a repository map's entries, best first); :func:`fit` cuts sections that have
    smaller versions and priorities.
    """
    low, high = 0, items
    made: T | None = None
    while low < high:
        mid = (low + high + 1) // 2
        tokens, value = measure(mid)
        if tokens <= budget:
            low, made = mid, value
        else:
            high = mid - 1
    return low, made


def _own_tokens(part: Part, counter: Tokenizer) -> int:
    """A part's own tokens, as :func:`~agentprompt.composition.assemble` places them."""
    if isinstance(part, HistorySlot):
        return sum(message_tokens(m, counter) + MESSAGE_OVERHEAD for m in part.messages)
    key = part.count_keys[0] if part.count_keys else None
    return count_text(counter, part.text, key=key)


def _count_keyed_fallbacks(parts: Sequence[Part], counter: Tokenizer) -> None:
    """Count the keyed fallbacks in one batch, so each cut finds its count remembered
    instead of asking the counter's store once per cut."""
    if not isinstance(counter, CountCache):
        return
    items = [
        (key, text)
        for p in parts
        if isinstance(p, Section)
        for text, key in zip(p.fallbacks, p.count_keys[1:], strict=False)
        if key is not None
    ]
    if items:
        counter.count_each_keyed(items)


def _undo_needless_cuts(
    current: Composition,
    budget: int,
    steps: list[tuple[_Slot, _Slot]],
    cuts: list[Cut],
    build: Callable[[], Composition],
) -> Composition:
    """Take back the latest cuts while the exact count shows the prompt fits without them.

    The estimates overstate a cut's saving slightly (a dropped section also frees the
    framing of its message), so the last cuts may not have been needed. Cuts are undone
    latest first and only while each undo fits, so a section is never restored while one
    that was to be kept before it stays cut.
    """
    while steps:
        slot, before = steps[-1]
        cut = cuts[-1]
        if current.total_tokens + cut.tokens_before - cut.tokens_after > budget:
            break  # by the estimate it cannot fit: no need to assemble
        after = copy.copy(slot)
        vars(slot).update(vars(before))
        trial = build()
        if trial.total_tokens > budget:
            vars(slot).update(vars(after))
            break
        steps.pop()
        cuts.pop()
        current = trial
    return current


def _reason(excess: int, priority: int | None) -> str:
    return (
        f"{excess} tokens over budget (estimated); priority {priority} is the lowest that can "
        "still be cut"
    )


def _shrink(slot: _Slot, excess: int, counter: Tokenizer, cuts: list[Cut], joint: int) -> int:
    """Cut ``slot`` one step, record the cut, and return the tokens it saved (a dropped
    part saves ``joint`` more: the separator that joined it to its neighbour)."""
    before = slot.tokens
    part = slot.part
    if isinstance(part, HistorySlot):
        return _truncate_history(slot, part, excess, counter, cuts)
    chain = len(slot.original.fallbacks) if isinstance(slot.original, Section) else 0
    while part.fallbacks:
        # The section steps down to its next fallback, which keeps the smaller ones after it.
        part = replace(
            part,
            text=part.fallbacks[0],
            fallbacks=part.fallbacks[1:],
            count_keys=part.count_keys[1:],
        )
        slot.level += 1
        key = part.count_keys[0] if part.count_keys else None
        tokens = count_text(counter, part.text, key=key)
        if tokens < before:
            slot.part = part
            slot.tokens = tokens
            cuts.append(
                Cut(
                    section=part.id,
                    action="fallback",
                    tokens_before=before,
                    tokens_after=tokens,
                    detail=f"replaced by fallback {slot.level} of {chain}",
                    reason=_reason(excess, part.priority),
                )
            )
            return before - tokens
    slot.dropped = True
    slot.tokens = 0
    cuts.append(
        Cut(
            section=part.id,
            action="dropped",
            tokens_before=before,
            tokens_after=0,
            detail="dropped",
            reason=_reason(excess, part.priority),
        )
    )
    return before + joint


def _truncate_history(
    slot: _Slot, part: HistorySlot, excess: int, counter: Tokenizer, cuts: list[Cut]
) -> int:
    """Drop the history's oldest messages, in multiples of its step, to save ``excess``."""
    full = slot.original.messages if isinstance(slot.original, HistorySlot) else ()
    target = max(1, math.ceil((slot.level + excess) / part.step)) * part.step
    k = history_cut(full, target, keep_last=part.keep_last, counter=counter)
    already = len(full) - len(part.messages)
    if k <= already:
        slot.done = True
        return 0
    kept = full[k:]
    tokens = sum(message_tokens(m, counter) + MESSAGE_OVERHEAD for m in kept)
    saved = slot.tokens - tokens
    cuts.append(
        Cut(
            section=part.id,
            action="truncated",
            tokens_before=slot.tokens,
            tokens_after=tokens,
            detail=f"dropped the {k - already} oldest messages ({k} in all, cut in steps of "
            f"{part.step} tokens)",
            reason=_reason(excess, part.priority),
        )
    )
    slot.part = replace(part, messages=kept)
    slot.level = target
    slot.tokens = tokens
    return saved
