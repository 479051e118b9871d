"""The steady map (deferred rule): map entries keep their cached text until the map's tier is
rewritten anyway.

The symbol map leaves out the files in context and leans its ranking toward them, so every
file that joins or leaves the context re-ranks the map and changes many of its entries:
more or fewer definitions shown, entries coming in and going out. Each such change to a
cached tier costs its rewrite, or a note in active at every request until the rewrite pays.
Yet an entry cached earlier is still true of its file while the file is unchanged; only the
choice of what to show has moved.

So under the deferred rule a request shows the map as its tier holds it: every entry cached
in L1–L3 whose file is unchanged since (its content hash, :attr:`TierContext.sources`) and
not now in the context is sent as cached, and the entries the new ranking would add wait.
A file that joins the context still leaves the map (the layout has no map entry for a file
in context; that rewrites the entry's tier); an entry whose file changed is the new ranking's
(a note in active carries its diff) or, if that leaves it out, is stated gone. The map is
re-ranked, the new ranking's entries taking their place, whenever the tier holding it is
rewritten anyway (:func:`track_context`): the map follows the ranking at each of its
rewrites, and costs nothing between them.
"""

from __future__ import annotations

from dataclasses import replace
from operator import attrgetter

from agentprompt.tiers._items import item_path
from agentprompt.tiers.assembly import TierContext
from agentprompt.tiers.policy import TierPolicy, track
from agentprompt.tiers.tracker import (
    TIERS,
    CacheTier,
    ItemState,
    TrackedItem,
    TrackerState,
    TrackerUpdate,
)

__all__ = ["steady_context", "track_context"]

_CACHED: tuple[CacheTier, ...] = ("L1", "L2", "L3")
_INDEX = {tier: i for i, tier in enumerate(TIERS)}
_KIND = attrgetter("kind")


def _current_copy(state: ItemState | None) -> bool:
    """Whether a remembered item is a map entry cached in L1–L3 whose copy is its text."""
    return (
        state is not None
        and state.kind == "symbols"
        and state.tier in _CACHED
        and state.copy is not None
        and state.copy_state == "current"
    )


def _as_cached(state: ItemState) -> TrackedItem:
    """A map entry as its cached copy has it."""
    assert state.copy is not None
    return TrackedItem(
        key=state.key, kind="symbols", text=state.copy, tokens=state.tokens, source=state.source
    )


def _as_cached_already(previous: TrackerState, context: TierContext) -> bool:
    """Whether every map entry of ``context`` is the text its tier caches and no remembered
    entry is missing (the usual request): ten thousand entries are compared in two
    passes."""
    get = previous.by_key.get
    symbols = [i for i in context.items if i.kind == "symbols"]
    if len(symbols) != list(map(_KIND, previous.items)).count("symbols"):
        return False
    return all([(s := get(i.key)) is not None and s.copy == i.text for i in symbols])


def _map_tier(previous: TrackerState) -> int | None:
    """The most stable tier holding a cached map entry, by index (None: none). The map
    usually sits in L1, the most stable cached tier: the first entry found there ends the
    look."""
    best = None
    first = _INDEX[_CACHED[0]]
    for state in previous.items:
        if state.kind == "symbols" and state.tier in _CACHED:
            tier = _INDEX[state.tier]
            if tier == first:
                return tier
            best = tier if best is None else min(best, tier)
    return best


def steady_context(previous: TrackerState, context: TierContext) -> TierContext:
    """``context`` with its map as the cached tiers hold it (see the module's docstring):
    each cached entry still true of its file as cached, an entry whose file changed as the
    new ranking has it (if it has it), no entry the new ranking adds. ``context`` itself
    after a first request, under another rule, or without sources."""
    if not previous.requests or previous.rule != "deferred" or not context.sources:
        return context
    legend = previous.legend if previous.legend is not None else context.legend
    if _as_cached_already(previous, context):
        return replace(context, legend=legend)
    remembered = previous.by_key.get
    sources = context.sources
    entries: list[TrackedItem] = []
    others: list[TrackedItem] = []
    moved = False
    # A repository's map may hold ten thousand entries: one pass over the request's items
    # takes each entry the ranking shows as cached as it is; only the rest are looked at.
    for item in context.items:
        if item.kind != "symbols":
            others.append(item)
            continue
        state = remembered(item.key)
        if state is None or state.tier not in _CACHED:
            continue  # the new ranking adds it: it waits for the map's next rewrite
        if item.text == state.copy or not _current_copy(state):
            entries.append(item)
        elif state.source and sources.get(item_path(item.key)) == state.source:
            entries.append(_as_cached(state))  # re-ranked, its file unchanged: as cached
            moved = True
        else:
            entries.append(item)  # its file changed: its diff is carried in active
    cached = sum(1 for s in previous.items if s.kind == "symbols" and s.tier in _CACHED)
    if len(entries) < cached:
        # Entries the new ranking leaves out stay while their file is unchanged and not in
        # the context.
        shown = {i.key for i in entries}
        in_context = {item_path(i.key) for i in others if i.kind == "file"}
        for state in previous.items:
            if state.key in shown or not _current_copy(state) or not state.source:
                continue
            path = item_path(state.key)
            if sources.get(path) == state.source and path not in in_context:
                entries.append(_as_cached(state))
                moved = True
    if moved:
        entries.sort(key=lambda i: i.key)
    return replace(context, items=(*entries, *others), legend=legend)


def track_context(
    previous: TrackerState, context: TierContext, policy: TierPolicy | None = None
) -> tuple[TierContext, TrackerUpdate]:
    """Track one request's ``context`` against ``previous``: under the deferred rule with
    the map kept steady (:func:`steady_context`) unless the tier holding it is rewritten,
    then with the map as ranked now. Returns the context the state was made from (to
    assemble) and the update."""
    policy = policy or TierPolicy()
    if policy.rule == "deferred":
        steady = steady_context(previous, context)
        if steady is not context:
            update = track(previous, steady.items, policy, legend=steady.legend)
            rewrite = update.rewrite_from
            top = _map_tier(previous) if rewrite is not None else None
            if top is None or rewrite is None or _INDEX[rewrite] > top:
                return steady, update
    return context, track(previous, context.items, policy, legend=context.legend)
