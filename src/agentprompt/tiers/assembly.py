"""Cache-tiered message assembly: which message each tier becomes.

messages[0] is the L0 block (role system): the system prompt, the map header and legend, the
L0 map entries, the L0 files and the L0 history, in that order: the most stable content,
cached as one prefix, is always messages[0] with role system. A system message
cannot hold native turns, so L0 history is written into it under a header, each message
headed by its speaker (``tiers/history_header``, ``tiers/history_turn``). L1–L3 are each a
user message (their map entries and files) answered by the assistant, followed by their
history as native messages. Then the active tier (uncached) in the same shape, then the
user's message. Each cached tier ends in one provider cache breakpoint (at most four:
L0–L3).

The tiers are expressed as :class:`~agentprompt.sections.Section` values with an explicit
``cache_tier`` and handed to :func:`agentprompt.composition.assemble`, which places the
breakpoints and counts every message exactly; inspecting the ``ac`` profile shows the same parts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentprompt.composition import Composition, assemble
from agentprompt.messages import Message
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.sections import Section, SectionRole, Stability
from agentprompt.tiers._changes import CarriedNote, carried_notes, changes_since, fenced
from agentprompt.tiers._items import history_role
from agentprompt.tiers.tracker import (
    CACHED_TIERS,
    TIERS,
    CacheTier,
    ItemState,
    TrackedItem,
    TrackerState,
)
from agentprompt.tokens import Tokenizer, shared_counter

__all__ = [
    "NOTE_SECTION",
    "TierContext",
    "TieredPrompt",
    "assemble_tiers",
    "carried_in_active",
    "placed_items",
    "shown_legend",
    "tier_parts",
]


@dataclass(frozen=True, kw_only=True)
class TierContext:
    """Everything one tiered request holds, before tiers are assigned."""

    system: str
    """The system prompt (``build_system_prompt()``)."""
    legend: str = ""
    """The symbol map's legend (empty: no map)."""
    items: tuple[TrackedItem, ...] = ()
    """Files, map entries and history messages, in the order to show them within a tier."""
    user: str = ""
    """The user's current message (empty: none)."""
    sources: Mapping[str, str] = field(default_factory=dict)
    """The content hash of every file the map may show (not in context), by path: a map
    entry cached earlier is kept while its file's hash is unchanged (empty: none is kept,
    the map is taken as given)."""


@dataclass(frozen=True, kw_only=True)
class TieredPrompt:
    """A tiered request: its sections, composed messages and the tracker state it used."""

    context: TierContext
    """What it was built from."""
    state: TrackerState
    """The tracker state that placed each item."""
    parts: tuple[Section, ...]
    """The sections, in order, each tagged with its cache tier."""
    composition: Composition
    """The messages, with exact token counts and cache breakpoints."""

    @property
    def messages(self) -> tuple[Message, ...]:
        """The messages to send."""
        return self.composition.messages

    def tier_of(self, key: str) -> CacheTier:
        """The tier an item was placed in."""
        item = self.state.get(key)
        return item.tier if item is not None else "active"


def _section(tier: CacheTier, sid: str, role: SectionRole, text: str) -> Section:
    return Section(
        id=f"{tier}/{sid}",
        role=role,
        text=text.rstrip("\n"),
        stability=Stability.TURN if tier == "active" else Stability.SESSION,
        cache_tier=None if tier == "active" else tier,
    )


def _tier_sections(
    lib: PromptLibrary,
    tier: CacheTier,
    context: TierContext,
    members: Sequence[TrackedItem],
    legend: str,
) -> list[Section]:
    """One tier's sections: its context message (and the reply to it), then its history.

    Every item is its own section (sections of one role and tier share a message, joined by
    a blank line), so ``inspect`` prices each item.
    """
    symbols = [i for i in members if i.kind == "symbols"]
    files = [i for i in members if i.kind == "file"]
    role: SectionRole = "system" if tier == "L0" else "user"
    out: list[Section] = []
    if tier == "L0":
        out.append(_section(tier, "system", role, context.system))
        if legend or symbols:
            header = lib.render("tiers/map_header")
            out.append(_section(tier, "legend", role, f"{header}\n\n{legend}"))
    elif symbols:
        out.append(_section(tier, "map-header", role, lib.render("tiers/map_continued")))
    out.extend(_section(tier, i.key, role, i.text) for i in symbols)
    if files:
        out.append(_section(tier, "files-header", role, lib.render("tiers/files_header")))
        out.extend(_section(tier, i.key, role, i.text) for i in files)
    if tier != "L0" and out:
        out.append(_section(tier, "ack", "assistant", lib.render("tiers/ack")))
    history = [i for i in members if i.kind == "history"]
    if tier == "L0" and history:
        out.append(_section(tier, "history-header", role, lib.render("tiers/history_header")))
    for item in history:
        speaker: SectionRole = "assistant" if history_role(item) == "assistant" else "user"
        text = item.text.split("\n", 1)[1]
        if tier == "L0":
            label = speaker.capitalize()
            out.append(
                _section(
                    tier, item.key, role, lib.render("tiers/history_turn", speaker=label, text=text)
                )
            )
        else:
            out.append(_section(tier, item.key, speaker, text))
    return out


NOTE_SECTION = "changes/"
"""How the id of a note's section starts after its tier (``active/changes/file:a.py``)."""


def _carries(state: TrackerState) -> bool:
    """Whether ``state`` keeps a cached copy that differs from its item (the deferred rule)."""
    return any(s.copy_state != "current" for s in state.items)


def _out_of_date(state: TrackerState) -> list[ItemState]:
    """The states whose cached copy is out of date, in a cached tier with its copy kept."""
    return [
        s
        for s in state.items
        if s.copy_state != "current" and s.copy is not None and s.tier in CACHED_TIERS
    ]


def placed_items(context: TierContext, state: TrackerState) -> dict[CacheTier, list[TrackedItem]]:
    """Each tier's items as they are sent: an item in the tier ``state`` gives it (active
    when it has none), in the context's order; under the deferred rule, an item whose cached
    copy is out of date is sent as that copy, and an item that left the context but whose
    copy stays in its tier is sent as the copy too, where it was (the state's order)."""
    by_tier: dict[CacheTier, list[TrackedItem]] = {t: [] for t in TIERS}
    if not _carries(state):
        for item in context.items:
            known = state.get(item.key)
            by_tier[known.tier if known is not None else "active"].append(item)
        return by_tier
    current: dict[str, TrackedItem | None] = {i.key: i for i in context.items}
    for known in state.items:
        present = current.pop(known.key, None)
        stale = known.copy_state != "current" and known.copy is not None
        if stale and known.tier in CACHED_TIERS:
            assert known.copy is not None
            copy = TrackedItem(key=known.key, kind=known.kind, text=known.copy, tokens=known.tokens)
            by_tier[known.tier].append(copy)
        elif present is not None:
            by_tier[known.tier].append(present)
    by_tier["active"].extend(i for i in current.values() if i is not None)
    return by_tier


def shown_legend(context: TierContext, state: TrackerState) -> str:
    """The map legend L0 holds: the state's copy under the deferred rule, else the
    context's."""
    return state.legend if state.legend is not None else context.legend


def carried_in_active(
    context: TierContext, state: TrackerState, lib: PromptLibrary
) -> tuple[CarriedNote, ...]:
    """The notes the active tier carries about cached copies that are out of date (the
    legend's first)."""
    notes: list[CarriedNote] = []
    legend = shown_legend(context, state)
    if legend != context.legend:
        diff = fenced(changes_since("legend", legend, context.legend), "diff")
        text = lib.render("tiers/legend_changes", diff=diff)
        notes.append(CarriedNote(key="legend", kind="symbols", gone=False, text=text))
    stale = _out_of_date(state)
    if stale:
        notes.extend(carried_notes(context.items, stale, lib))
    return tuple(notes)


def tier_parts(
    context: TierContext, state: TrackerState, *, prompts: PromptLibrary | None = None
) -> tuple[Section, ...]:
    """The sections of a tiered request: each item in the tier ``state`` gives it, and the
    notes about out-of-date cached copies at the head of the active tier."""
    lib = prompts or PromptLibrary()
    by_tier = placed_items(context, state)
    notes = carried_in_active(context, state, lib)
    parts: list[Section] = []
    for tier in TIERS:
        if tier == "active" and notes:
            parts.append(
                _section(tier, "changes-header", "user", lib.render("tiers/changes_header"))
            )
            parts.extend(_section(tier, f"{NOTE_SECTION}{n.key}", "user", n.text) for n in notes)
            if not any(i.kind != "history" for i in by_tier[tier]):
                parts.append(_section(tier, "ack", "assistant", lib.render("tiers/ack")))
        parts.extend(
            _tier_sections(lib, tier, context, by_tier[tier], shown_legend(context, state))
        )
    if context.user:
        parts.append(Section(id="user", role="user", text=context.user, stability=Stability.TURN))
    return tuple(parts)


def assemble_tiers(
    context: TierContext,
    state: TrackerState,
    *,
    counter: Tokenizer | None = None,
    root: Path | None = None,
) -> TieredPrompt:
    """The messages of a tiered request, with one cache breakpoint per non-empty cached tier."""
    parts = tier_parts(context, state, prompts=PromptLibrary(root) if root else None)
    composition = assemble(parts, counter=counter or shared_counter())
    return TieredPrompt(context=context, state=state, parts=parts, composition=composition)
