"""Ripple promotion (an option, ``TierPolicy(rule="ripple")``): move items up only into cache
tiers that are already broken.

The tier thresholds (L0 12, L1 9, L2 6, L3 3) are the N an item needs to enter a tier. The
literal reading, "an item's tier follows its N", moves some item across a threshold on most
requests, and every move rewrites two tier blocks, so the provider cache misses from the
higher one on; with a conversation whose history climbs through the tiers that is every
request (``bench/tiers_bench.py`` measures it). The ripple policy, which the original tiering
implementation follows, keeps the thresholds and the demotion rule but moves nothing into a
tier whose cache block is intact. It serves more than the threshold rule but less than the
settle rule and the default deferred rule (:mod:`agentprompt.tiers._settle`), which it is
kept to compare with:

1. A changed item drops to active with N = 0 and breaks the tier it left; a removed item
   breaks its tier too.
2. From the top down, a broken tier takes the items of the tier below whose N reached its
   threshold (they enter with the threshold as N), which breaks that lower tier in turn. An
   unchanged item's N grows by one each request, but stops at the next tier's threshold
   while that tier is intact, so it moves as soon as the tier breaks, not before.
3. Files and map entries in active graduate into L3 once N reaches 3 (that breaks L3).
4. History is immutable, so it needs no N to graduate: active history moves into L3
   whenever L3 breaks anyway, or once it holds ``history_target_tokens`` tokens (enough for
   a cache block worth writing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.tiers.tracker import (
    THRESHOLDS,
    CacheTier,
    ChangeReason,
    ItemKind,
    ItemState,
    TierChange,
    TrackedItem,
    TrackerState,
    TrackerUpdate,
    content_hash,
)

__all__ = ["DEFAULT_HISTORY_TARGET_TOKENS", "track_ripple"]

DEFAULT_HISTORY_TARGET_TOKENS = 1536
"""Active history tokens that graduate into L3 on their own: Anthropic's smallest cache
block (1024 tokens) with half again as margin."""

_ENTRY: dict[CacheTier, int] = {**dict(THRESHOLDS), "active": 0}
_CASCADE: tuple[tuple[CacheTier, CacheTier], ...] = (("L0", "L1"), ("L1", "L2"), ("L2", "L3"))


@dataclass(kw_only=True)
class _Slot:
    """One item's place while a request is worked out (mutable, local to this module)."""

    key: str
    kind: ItemKind
    hash: str
    tokens: int
    tier: CacheTier
    n: int
    before: CacheTier | None
    fresh: bool
    reason: ChangeReason | None = None


def _slots(
    previous: TrackerState, items: Sequence[TrackedItem], broken: set[CacheTier]
) -> list[_Slot]:
    slots: list[_Slot] = []
    for item in items:
        digest = content_hash(item.text)
        old = previous.get(item.key)
        slot = _Slot(
            key=item.key,
            kind=item.kind,
            hash=digest,
            tokens=item.tokens,
            tier="active",
            n=0,
            before=old.tier if old else None,
            fresh=True,
        )
        if old is None:
            slot.reason = "new" if item.kind != "history" else None
        elif old.hash != digest:
            slot.reason = "demoted"
            if old.tier != "active":
                broken.add(old.tier)
        else:
            slot.tier, slot.n, slot.fresh = old.tier, old.n, False
        slots.append(slot)
    return slots


def _move(slot: _Slot, tier: CacheTier, reason: ChangeReason) -> None:
    slot.tier, slot.n, slot.reason = tier, _ENTRY[tier], reason


def track_ripple(
    previous: TrackerState,
    items: Sequence[TrackedItem],
    *,
    history_target_tokens: int = DEFAULT_HISTORY_TARGET_TOKENS,
) -> TrackerUpdate:
    """One request under the ripple policy (see the module's docstring); ``previous`` must
    not be the empty state of a first request."""
    seen = {i.key for i in items}
    broken: set[CacheTier] = {
        old.tier for old in previous.items if old.key not in seen and old.tier != "active"
    }
    slots = _slots(previous, items, broken)
    for slot in slots:
        if slot.tier == "L0" and not slot.fresh:
            slot.n += 1
    for upper, lower in _CASCADE:
        members = [s for s in slots if s.tier == lower and not s.fresh]
        for slot in members:
            slot.n = slot.n + 1 if upper in broken else min(slot.n + 1, _ENTRY[upper])
        if upper in broken:
            movers = [s for s in members if s.n >= _ENTRY[upper]]
            for slot in movers:
                _move(slot, upper, "promoted")
            if movers:
                broken.add(lower)
    active = [s for s in slots if s.tier == "active"]
    for slot in active:
        if not slot.fresh and slot.kind != "history":
            slot.n += 1
        if slot.kind != "history" and slot.n >= _ENTRY["L3"]:
            _move(slot, "L3", "promoted")
            broken.add("L3")
    history = [s for s in active if s.kind == "history"]
    if history and ("L3" in broken or sum(s.tokens for s in history) >= history_target_tokens):
        for slot in history:
            _move(slot, "L3", "graduated")
    states = tuple(
        ItemState(key=s.key, kind=s.kind, hash=s.hash, n=s.n, tier=s.tier, tokens=s.tokens)
        for s in slots
    )
    changes = [
        TierChange(key=s.key, before=s.before, after=s.tier, reason=s.reason or "new")
        for s in slots
        if s.reason is not None or s.before != s.tier
    ]
    changes.extend(
        TierChange(key=old.key, before=old.tier, after=None, reason="removed")
        for old in previous.items
        if old.key not in seen
    )
    return TrackerUpdate(
        state=TrackerState(items=states, requests=previous.requests + 1), changes=tuple(changes)
    )
