"""The settle rule (the default, ``TierPolicy()``): an unchanged item stays where it is unless
its tier is rewritten anyway, and a rewrite is bought only when it pays.

A provider caches the whole prefix up to each breakpoint, keyed by its exact text, so a change
in tier ``Lk`` rewrites ``Lk`` and every cached tier after it, whatever the rule does. The
rule works with that instead of against it (``bench/BENCHMARKS.md``, "Cache tiers", has the
measurements that chose it):

1. **Nothing moves on its own.** An unchanged item keeps its tier. A changed or removed item
   breaks the tier it was in (N = 0). The most stable tier broken is where this request's
   rewrite starts; the tiers before it are sent byte for byte as last time.
2. **Ride the rewrite.** The tiers from the start of the rewrite to L3 are written anyway, so
   they are repacked, together with what waits in active and the changed and new items:
   history (immutable, so it graduates at once) and map entries go to the top of the
   rewrite; files, the working set the model edits, go to L2 and L3, the longest unchanged
   in L2 and the recently changed in L3, split where the tokens rewritten at the next
   request are fewest in expectation (each file's chance of changing next is the number of
   files that changed now, at least one, shared out by recency, 1 / (N + 1)). A changed item
   is rewritten with its tier rather than sent uncached, except one that also changed at
   the previous request: being worked on, it waits in active until it holds still. With no
   rewrite, changed and new items wait in active.
3. **Rent or buy.** With nothing broken, waiting items graduate into L3 only once what they
   have cost uncached while waiting (tokens × requests waited) reaches what rewriting L3 costs
   beyond reading it (1.15 × its tokens: a cache write is 1.25× input, a read 0.1×): never
   more than twice the cheaper choice made in hindsight.
4. **Lift history when it has paid for it.** History in a tier that keeps being rewritten
   (L3, with the files being edited) is rewritten with it each time; each item counts those
   rewrites. A rewrite reaches one tier further up, taking that history out of harm's way,
   once the tokens it has been rewritten for (this time included) reach the tokens of the
   extra tier: rent or buy again, one tier at a time, up to L1.

L0 holds the system prompt and the map legend; the rule puts nothing else there (a change
there rewrites everything). The first request is a rewrite from L1 with nothing waiting: map
entries in L1, files over L2 and L3.

History keeps its order: no history message is in a more stable tier than an earlier one. A
stored state that breaks this (placed by another rule, or damaged) is repaired by dropping
the later messages to active, which breaks their tiers like any move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agentprompt.tiers.tracker import (
    TIERS,
    CacheTier,
    ChangeReason,
    ItemKind,
    ItemState,
    TierChange,
    TrackedItem,
    TrackerState,
    TrackerUpdate,
    content_hashes,
)

__all__ = ["REWRITE_PREMIUM", "track_settle"]

REWRITE_PREMIUM = 1.15
"""What rewriting a cached token costs beyond reading it, in input-token prices: a cache
write is 1.25×, a cache read 0.1× (Anthropic's ratios)."""

_INDEX = {tier: i for i, tier in enumerate(TIERS)}
_TOP = 1  # L1: the most stable tier the rule fills; L0 is the system prompt's
_FILES = 2  # L2: the most stable tier files go to
_LAST_CACHED = 3  # L3
_ACTIVE = 4
_MOVING = len(TIERS)  # past every tier: the item changed, is new, or must move


class _Slot:
    """One item of the rewrite while a request is worked out (mutable, local to this
    module)."""

    __slots__ = (
        "before",
        "fresh",
        "hash",
        "key",
        "kind",
        "n",
        "reason",
        "rewrites",
        "tier",
        "tokens",
    )

    def __init__(self, item: TrackedItem, digest: str, old: ItemState | None) -> None:
        self.key: str = item.key
        self.kind: ItemKind = item.kind
        self.hash = digest
        self.tokens = item.tokens
        self.before: CacheTier | None = old.tier if old is not None else None
        self.reason: ChangeReason | None = None
        if old is not None and old.hash == digest:
            self.fresh = False
            self.n, self.tier, self.rewrites = old.n + 1, _INDEX[old.tier], old.rewrites
        else:
            self.fresh = True  # new or changed at this request
            self.n, self.tier, self.rewrites = 0, _ACTIVE, 0
            self.reason = "new" if old is None else "demoted"

    def state(self) -> ItemState:
        """The slot as the tracker remembers it."""
        return _state(
            self.key, self.kind, self.hash, self.n, TIERS[self.tier], self.tokens, self.rewrites
        )


def _state(
    key: str, kind: ItemKind, digest: str, n: int, tier: CacheTier, tokens: int, rewrites: int
) -> ItemState:
    """An :class:`ItemState`, made the fast way."""
    # Ten thousand items per request: a frozen dataclass's __init__ sets each field
    # through object.__setattr__, three times slower than filling its __dict__.
    state = object.__new__(ItemState)
    fields = state.__dict__
    fields["key"], fields["kind"], fields["hash"], fields["n"] = key, kind, digest, n
    fields["tier"], fields["tokens"], fields["rewrites"] = tier, tokens, rewrites
    return state


@dataclass(kw_only=True)
class _Scan:
    """What one pass over a request's items finds (mutable, local to this module)."""

    digests: list[str] = field(default_factory=list)
    olds: list[ItemState | None] = field(default_factory=list)
    """Each item's remembered state, if any."""
    kept: list[ItemState | None] = field(default_factory=list)
    """Each item's new state if it stays unchanged in its tier (None: it changed or is new)."""
    where: list[list[int]] = field(default_factory=lambda: [[] for _ in range(_MOVING + 1)])
    """The positions of the items staying in each tier, and last of those that must move."""
    broken: set[int] = field(default_factory=set)
    """Tiers whose text changes: an item in them changed, left, or broke the history order."""
    held: list[int] = field(default_factory=lambda: [0] * len(TIERS))
    """Tokens per tier of the unchanged items staying in it."""
    history_rent: list[int] = field(default_factory=lambda: [0] * len(TIERS))
    """Per tier, the tokens its history has been rewritten for, this time included."""
    waiting_rent: int = 0
    """What the items waiting in active have cost uncached (tokens × requests waited)."""
    demoted: set[str] = field(default_factory=set)
    """History dropped to active to keep the conversation's order."""


def _scan(previous: TrackerState, items: Sequence[TrackedItem]) -> _Scan:
    """Hash every item, compare it with what was remembered, total what the rule's
    decisions need, and make the new state of every item that stays unchanged where it is
    (whether its tier is rewritten is known only at the end; most are not)."""
    scan = _Scan()
    scan.digests = content_hashes([item.text for item in items])
    scan.olds = list(map(previous.by_key.get, [item.key for item in items]))
    held, broken, where, kept = scan.held, scan.broken, scan.where, scan.kept
    # Ten thousand items per request: names bound locally, and each kept state made by
    # filling its __dict__ (a frozen dataclass's __init__ would triple the cost).
    index, active, moving, new, fill = _INDEX, _ACTIVE, _MOVING, object.__new__, object.__setattr__
    floor = waiting = 0
    for position, (item, digest, old) in enumerate(
        zip(items, scan.digests, scan.olds, strict=True)
    ):
        if old is None or old.hash != digest:
            if old is not None and old.tier != "active":
                broken.add(index[old.tier])
            waiting += item.tokens
            if item.kind == "history":
                floor = active
            kept.append(None)
            where[moving].append(position)
            continue
        tier = index[old.tier]
        if item.kind == "history":
            if tier < floor:  # an earlier message is in a less stable tier
                broken.add(tier)
                scan.demoted.add(item.key)
                waiting += item.tokens * (old.n + 2)
                floor = active
                kept.append(None)
                where[moving].append(position)
                continue
            floor = tier
            scan.history_rent[tier] += item.tokens * (old.rewrites + 1)
        if tier == active:
            waiting += item.tokens * (old.n + 2)
        held[tier] += item.tokens
        fields = old.__dict__.copy()
        fields["n"] = old.n + 1
        fields["tokens"] = item.tokens
        state = new(ItemState)
        fill(state, "__dict__", fields)
        kept.append(state)
        where[tier].append(position)
    scan.waiting_rent = waiting
    return scan


def _change_chances(files: Sequence[_Slot]) -> list[float]:
    """How likely each file is to change at the next request: as many changes as this
    request saw (at least one), shared out by recency (weight 1 / (N + 1))."""
    expected = max(1, sum(1 for s in files if s.reason == "demoted"))
    weights = [1.0 / (s.n + 1) for s in files]
    total = sum(weights) or 1.0
    return [min(1.0, expected * w / total) for w in weights]


def _file_split(files: Sequence[_Slot]) -> int:
    """How many of ``files`` (steadiest first) go to L2, the rest to L3: the split that
    rewrites the fewest tokens at the next request, in expectation."""
    chances = _change_chances(files)
    total = sum(s.tokens for s in files)
    best, best_cost = 0, float("inf")
    for k in range(len(files) + 1):
        stay_upper = stay_lower = 1.0
        for chance in chances[:k]:
            stay_upper *= 1 - chance
        for chance in chances[k:]:
            stay_lower *= 1 - chance
        lower = sum(s.tokens for s in files[k:])
        cost = (1 - stay_upper) * total + stay_upper * (1 - stay_lower) * lower
        if cost < best_cost:
            best, best_cost = k, cost
    return best


def _homes(pool: Sequence[_Slot], top: int) -> dict[str, int]:
    """Where a rewrite from ``top`` places each item (rule 2 of the module's docstring)."""
    homes = {s.key: top for s in pool if s.kind != "file"}
    files = sorted((s for s in pool if s.kind == "file"), key=lambda s: -s.n)
    split = _file_split(files) if top < _LAST_CACHED else 0
    for i, slot in enumerate(files):
        homes[slot.key] = max(top, _FILES) if i < split else _LAST_CACHED
    return homes


def _start(scan: _Scan, first: bool) -> int | None:
    """The most stable tier this request rewrites, before any lift (None: none)."""
    if first:
        return _TOP
    if scan.broken:
        return max(min(scan.broken), _TOP)
    l3 = scan.held[_LAST_CACHED]
    if scan.waiting_rent > 0 and scan.waiting_rent >= REWRITE_PREMIUM * l3:
        return _LAST_CACHED  # rent or buy: the waiting items have paid for rewriting L3
    return None


def _top(scan: _Scan, start: int) -> int:
    """How far up the rewrite reaches: one tier further while the history it would lift
    has been rewritten in place (this time included) for at least the tokens of the extra
    tiers."""
    rent = sum(scan.history_rent[start : _LAST_CACHED + 1])
    top = start
    while top > _TOP and rent > 0 and rent >= sum(scan.held[top - 1 : start]):
        top -= 1
    return top


def _repack(members: Sequence[_Slot], top: int) -> None:
    """Place every item of a rewrite from ``top`` (and every waiting one) at its home."""
    homes = _homes(members, top)
    for slot in members:
        tier = homes[slot.key]
        slot.rewrites = slot.rewrites + 1 if slot.tier == tier and not slot.fresh else 0
        if slot.tier == tier:
            continue
        up = tier < slot.tier
        if slot.reason != "demoted" or not up:
            slot.reason = "promoted" if up else "demoted"
            if up and slot.kind == "history":
                slot.reason = "graduated"
        slot.tier = tier


def track_settle(previous: TrackerState, items: Sequence[TrackedItem]) -> TrackerUpdate:
    """One request under the settle rule (see the module's docstring); an empty
    ``previous`` is a first request."""
    first = previous.requests == 0
    scan = _scan(previous, items)
    remembered = len(scan.olds) - scan.olds.count(None)
    seen = {i.key for i in items} if remembered < len(previous.items) else None
    gone = [old for old in previous.items if old.key not in seen] if seen is not None else []
    scan.broken.update(_INDEX[old.tier] for old in gone if old.tier != "active")
    start = _start(scan, first)
    top = _top(scan, start) if start is not None else len(TIERS)
    # Items unchanged in the tiers before the rewrite keep the state the scan made; only the
    # rest become slots (a repository's map entries mostly skip this).
    placed = scan.kept
    moving = sorted(
        position for tier in range(min(top, _ACTIVE), _MOVING + 1) for position in scan.where[tier]
    )
    slots: list[_Slot] = []
    members: list[_Slot] = []
    for position in moving:
        item, old = items[position], scan.olds[position]
        slot = _Slot(item, scan.digests[position], old)
        if item.key in scan.demoted:
            slot.tier, slot.reason = _ACTIVE, "demoted"
        slots.append(slot)
        # A file changing at two requests in a row is being worked on: it waits in active
        # rather than rewrite L3 again at the next request.
        hot = slot.fresh and old is not None and old.n == 0 and slot.kind != "history"
        if slot.tier >= top and not hot:
            members.append(slot)
    if start is not None:
        _repack(members, top)
    changes = [
        TierChange(
            key=s.key,
            before=s.before,
            after=TIERS[s.tier],
            reason="distributed" if first else s.reason or "new",
        )
        for s in slots
        if first or s.reason is not None or s.before != TIERS[s.tier]
    ]
    changes.extend(
        TierChange(key=old.key, before=old.tier, after=None, reason="removed") for old in gone
    )
    for position, slot in zip(moving, slots, strict=True):
        placed[position] = slot.state()
    states = tuple(p for p in placed if p is not None)
    assert len(states) == len(items)
    return TrackerUpdate(
        state=TrackerState(items=states, requests=previous.requests + 1, rule="settle"),
        changes=tuple(changes),
    )
