"""The stability tracker: which cache tier each item of the context belongs in.

Every tracked item (a file's content, a file's symbol-map entry, a history message) has a
content hash and a counter N of consecutive requests it stayed unchanged. This module holds
the tracker's values, the first request's greedy distribution over L1–L3
(:mod:`agentprompt.tiers._distribution`) and the literal threshold rule: an item's tier
follows its N (L0 N >= 12, L1 >= 9, L2 >= 6, L3 >= 3, below 3 active), a changed item goes
back to N = 0 and active. It is an option (``TierPolicy(rule="threshold")``), kept to compare
with: it moves some item across a threshold nearly every request and rewrites the cached
blocks, so it serves far less than no tiers at all (``bench/BENCHMARKS.md``, "Cache tiers").
The default is the deferred rule, and settle the same without deferred refresh
(:mod:`agentprompt.tiers._settle` holds both); :mod:`agentprompt.tiers._ripple` holds the other
option; :func:`agentprompt.tiers.track` picks between them.

Where a new history message goes under the threshold rule. A history message cannot change,
so it skips the wait in active a file needs to show it is stable: it enters L3 with N = 3
(:data:`HISTORY_ENTRY_N`) and then climbs one tier every three requests like any item (L2 at
N = 6, L1 at 9, L0 at 12). Entering higher would put the newest message before older ones
still in L1–L3, breaking the conversation's order. A history message whose text changed (a
conversation rewritten at that position, as compaction does) resets like any changed item
but, immutable from then on, re-enters L3 with N = 3 in the same request. On the first
request history is not spread with the files and map entries (spreading by token count
would send a long old message to L1 and a short newer one to L3, out of order).

Every step is pure: the previous :class:`TrackerState` and this request's items in, the new
state and what moved out.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from agentprompt.errors import UsageError
from agentprompt.tiers._distribution import distribute

__all__ = [
    "CACHED_TIERS",
    "HISTORY_ENTRY_N",
    "THRESHOLDS",
    "TIERS",
    "CacheTier",
    "ChangeReason",
    "CopyState",
    "ItemKind",
    "ItemState",
    "TierChange",
    "TrackedItem",
    "TrackerState",
    "TrackerUpdate",
    "check_keys",
    "content_hash",
    "content_hashes",
    "first_request",
    "tier_for",
    "track_thresholds",
]

CacheTier = Literal["L0", "L1", "L2", "L3", "active"]
"""A cache tier, most stable first; ``active`` is not cached."""

ItemKind = Literal["file", "symbols", "history"]
"""What a tracked item holds: a file's full text, its symbol-map entry, or a history message."""

ChangeReason = Literal["new", "promoted", "demoted", "removed", "distributed", "graduated"]
"""Why an item moved between two requests."""

CopyState = Literal["current", "changed", "gone"]
"""What an item's cached copy is to its current text: ``current``, the same; ``changed``, the
item changed since the copy was written (a note in active gives the changes); ``gone``, the
item left the context (a note in active says so)."""

TIERS: tuple[CacheTier, ...] = ("L0", "L1", "L2", "L3", "active")
"""Every tier, most stable first (the order they are sent in)."""

CACHED_TIERS: tuple[CacheTier, ...] = ("L0", "L1", "L2", "L3")
"""The tiers that end in a provider cache breakpoint."""

THRESHOLDS: tuple[tuple[CacheTier, int], ...] = (("L0", 12), ("L1", 9), ("L2", 6), ("L3", 3))
"""The least N of unchanged requests for each cached tier."""

HISTORY_ENTRY_N = 3
"""The N a new history message starts with: immutable, it graduates at once into L3."""


def tier_for(n: int) -> CacheTier:
    """The tier an item unchanged for ``n`` consecutive requests belongs in."""
    for tier, least in THRESHOLDS:
        if n >= least:
            return tier
    return "active"


def content_hash(text: str) -> str:
    """The hash that tells whether an item's text changed (SHA-256, hex)."""
    if len(text) <= _REMEMBERED_LENGTH:
        return _short_hash(text)
    return _sha256(text)


def content_hashes(texts: Sequence[str]) -> list[str]:
    """:func:`content_hash` of each text (the same values, faster for many texts)."""
    short, limit = _short_hash, _REMEMBERED_LENGTH
    return [short(t) if len(t) <= limit else _sha256(t) for t in texts]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_REMEMBERED_LENGTH = 4096


# A repository's map entries come back with the same text request after request; a cache
# lookup costs a tenth of hashing them again (at most 32,768 short texts are kept).
_short_hash = functools.lru_cache(maxsize=1 << 15)(_sha256)


@dataclass(frozen=True, kw_only=True)
class TrackedItem:
    """One item of this request's context."""

    key: str
    """A name unique in the context: ``file:PATH``, ``symbols:PATH`` or ``history:N``."""
    kind: ItemKind
    """What it holds."""
    text: str
    """Its text, as it is sent."""
    tokens: int
    """Its exact token count (the first distribution balances tiers by it)."""
    source: str = ""
    """What its text was made from, for a map entry its file's content hash (empty: not
    known); the deferred rule remembers it with the cached copy."""


@dataclass(frozen=True, kw_only=True)
class ItemState:
    """What the tracker remembers about one item."""

    key: str
    """The item's key."""
    kind: ItemKind
    """What it holds."""
    hash: str
    """The hash of its text at the last request."""
    n: int
    """Consecutive requests it stayed unchanged."""
    tier: CacheTier
    """The tier it is in."""
    tokens: int
    """Its token count at the last request."""
    rewrites: int = 0
    """How many times its cache block was written again while it stayed unchanged in its
    tier (the settle rule's measure of what leaving it there has cost)."""
    copy: str | None = None
    """The text its cached tier holds (kept by the deferred rule only, for files and map
    entries in L1–L3, so the tier can be sent byte for byte after the item changes or
    leaves the context; None otherwise)."""
    copy_state: CopyState = "current"
    """Whether :attr:`copy` is still the item's text (``current``), or the item changed
    (``changed``) or left the context (``gone``) since, with a note in active saying so."""
    carried: int = 0
    """Tokens of notes about this item sent uncached in active since its copy went out of
    date: what not rewriting its tier has cost so far."""
    source: str = ""
    """For a map entry whose copy is kept, the content hash of its file when the copy was
    written (empty: not known), so the entry can be kept while its file is unchanged."""


@dataclass(frozen=True, kw_only=True)
class TrackerState:
    """The tracker between two requests."""

    items: tuple[ItemState, ...] = ()
    """Every item of the last request, in the order it was given."""
    requests: int = 0
    """How many requests have been tracked (0: the next one is the first)."""
    rule: str | None = None
    """The promotion rule that placed the items (None: not recorded), so a request under
    another rule can tell that the placement is not its own."""
    legend: str | None = None
    """The map legend L0 holds, kept by the deferred rule: a changed legend stays in L0 byte
    for byte with its changes carried in active (None: L0 holds the request's legend)."""
    legend_carried: int = 0
    """Tokens of notes about the legend sent uncached in active since L0's copy went out of
    date."""
    _index: dict[str, ItemState] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A repository of ten thousand items is looked up once per item each request.
        object.__setattr__(self, "_index", {i.key: i for i in self.items})

    def get(self, key: str) -> ItemState | None:
        """The remembered state of ``key``, if it was in the last request."""
        return self._index.get(key)

    @property
    def by_key(self) -> Mapping[str, ItemState]:
        """Every remembered item by its key."""
        return self._index

    def in_tier(self, tier: CacheTier) -> tuple[ItemState, ...]:
        """The items in ``tier``, in the order they were given."""
        return tuple(i for i in self.items if i.tier == tier)


@dataclass(frozen=True, kw_only=True)
class TierChange:
    """One item that entered, left or moved between tiers at a request."""

    key: str
    """The item's key."""
    before: CacheTier | None
    """Its tier before the request (None: it was not tracked)."""
    after: CacheTier | None
    """Its tier after the request (None: it is no longer in the context)."""
    reason: ChangeReason
    """Why it moved."""


@dataclass(frozen=True, kw_only=True)
class TrackerUpdate:
    """The result of tracking one request."""

    state: TrackerState
    """The new state."""
    changes: tuple[TierChange, ...]
    """What entered, left or moved, in item order (removed items last)."""
    warnings: tuple[str, ...] = ()
    """Problems with the previous state that were repaired (the state was rebuilt)."""
    rewrite_from: CacheTier | None = None
    """The most stable cached tier this request rewrites (None: none, or not told by the
    rule; the settle and deferred rules tell it)."""


def check_keys(items: Sequence[TrackedItem]) -> None:
    """Refuse two items with one key (a :class:`~agentprompt.errors.UsageError`)."""
    if len({item.key for item in items}) == len(items):
        return
    seen: set[str] = set()
    for item in items:
        if item.key in seen:
            raise UsageError(
                f"two tracked items share the key {item.key!r}; give each item its own key"
            )
        seen.add(item.key)


def track_thresholds(previous: TrackerState, items: Sequence[TrackedItem]) -> TrackerUpdate:
    """One request under the literal rule: each item's tier follows its N (``tier_for``),
    whether or not that rewrites a cached tier; a changed item drops to active, a new
    history message enters L3 at once, and so does a history message whose text changed
    (its N resets, and being immutable from now on it graduates at once again).
    ``previous`` must not be a first request's empty state (:func:`first_request` handles
    that)."""
    seen = {i.key for i in items}
    states: list[ItemState] = []
    changes: list[TierChange] = []
    for item in items:
        digest = content_hash(item.text)
        old = previous.get(item.key)
        if old is None:
            n = HISTORY_ENTRY_N if item.kind == "history" else 0
            reason: ChangeReason = "graduated" if item.kind == "history" else "new"
        elif old.hash != digest:
            n = HISTORY_ENTRY_N if item.kind == "history" else 0
            reason = "demoted"
        else:
            n, reason = old.n + 1, "promoted"
        tier = tier_for(n)
        states.append(
            ItemState(key=item.key, kind=item.kind, hash=digest, n=n, tier=tier, tokens=item.tokens)
        )
        before = old.tier if old is not None else None
        if before != tier or reason == "demoted":
            changes.append(TierChange(key=item.key, before=before, after=tier, reason=reason))
    changes.extend(
        TierChange(key=old.key, before=old.tier, after=None, reason="removed")
        for old in previous.items
        if old.key not in seen
    )
    return TrackerUpdate(
        state=TrackerState(items=tuple(states), requests=previous.requests + 1),
        changes=tuple(changes),
    )


def first_request(items: Sequence[TrackedItem]) -> TrackerUpdate:
    """The first request: files and map entries spread over L1–L3, history graduated."""
    spread = [i for i in items if i.kind != "history"]
    placed = distribute([(i.key, i.tokens) for i in spread])
    least = dict(THRESHOLDS)
    states: list[ItemState] = []
    changes: list[TierChange] = []
    for item in items:
        tier: CacheTier
        reason: ChangeReason
        if item.kind == "history":
            tier, reason = tier_for(HISTORY_ENTRY_N), "graduated"
        else:
            tier, reason = placed[item.key], "distributed"
        states.append(
            ItemState(
                key=item.key,
                kind=item.kind,
                hash=content_hash(item.text),
                n=least[tier],
                tier=tier,
                tokens=item.tokens,
            )
        )
        changes.append(TierChange(key=item.key, before=None, after=tier, reason=reason))
    return TrackerUpdate(
        state=TrackerState(items=tuple(states), requests=1), changes=tuple(changes)
    )
