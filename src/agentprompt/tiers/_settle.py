"""The settle rule and the deferred rule (the default, ``TierPolicy()``): an unchanged item stays
where it is unless its tier is rewritten anyway, and a rewrite is bought only when it pays;
under the deferred rule a changed item's cached copy stays too, with a note in active.

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

5. **Deferred refresh** (the deferred rule, the default ``TierPolicy()``; settle without it
   is an option). A chat model already holds a cached tier's text as it was sent, so a
   file or map entry in L1–L3 that changes, or leaves the context, need not break its
   tier: its cached copy stays byte for byte and the active tier carries a note
   (:mod:`agentprompt.tiers._changes`: a diff from the copy to the current text, a file's
   content or a map entry's lines, or that the item is gone). The notes cost uncached tokens at
   every request; a tier is consolidated (rewritten with current texts, its notes dropped)
   when what its notes and those of the tiers below have cost, with what waits in active,
   reaches what rewriting it costs (rent or buy, as in 3), when this request's notes alone
   would reach it within :data:`NOTE_HORIZON` requests, or when a file's diff would be as
   long as the file. A map entry whose file is now in full in the context is not kept
   (the layout has no map entry for such a file): its tier breaks as under settle. A change
   no longer breaks a file's tier, so a rewrite from L1 or L2 puts every file in L2 (no
   split by how likely each is to change): L3 is left to the history that graduates next,
   and those graduations rewrite only it.

6. **The legend too** (deferred rule). L0 holds the map legend, and a change there would
   rewrite every tier. A legend that changes (a notation comes into the map or leaves it)
   stays in L0 as it was sent, with a diff to the current legend in active, until those
   notes have cost what rewriting every cached tier costs (:func:`keep_legend`).

7. **The steady map** (deferred rule; :mod:`agentprompt.tiers.steady`, before this module's
   step). A request shows the map as its cached tier holds it: an entry whose file is
   unchanged and not in the context keeps its text however the ranking moved, the entries
   a new ranking adds wait, and the map is re-ranked when its tier is rewritten anyway.

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

from agentprompt.tiers._changes import GONE_NOTE_TOKENS, changes_since, note_tokens, outgrown
from agentprompt.tiers._items import item_path
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
    content_hash,
    content_hashes,
)

__all__ = ["NOTE_HORIZON", "REWRITE_PREMIUM", "keep_legend", "track_settle"]

REWRITE_PREMIUM = 1.15
"""What rewriting a cached token costs beyond reading it, in input-token prices: a cache
write is 1.25×, a cache read 0.1× (Anthropic's ratios)."""

NOTE_HORIZON = 4
"""Under the deferred rule, a tier is rewritten at once when the notes of this one request
about its copies (and those below) would pay for the rewrite within this many requests:
notes that large (a map re-ranked when a file joins the context) stay until the tier is
rewritten, so waiting for their rent to add up only adds their cost (chosen by the
benchmark: 4 served more than 0 or 8 over the shapes measured)."""

_INDEX = {tier: i for i, tier in enumerate(TIERS)}
_TOP = 1  # L1: the most stable tier the rule fills; L0 is the system prompt's
_FILES = 2  # L2: the most stable tier files go to
_LAST_CACHED = 3  # L3
_ACTIVE = 4
_MOVING = len(TIERS)  # past every tier: the item changed, is new, or must move
_CHARS_PER_TOKEN = 4  # the legend's notes are sized without a tokenizer


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
        "source",
        "text",
        "tier",
        "tokens",
    )

    def __init__(self, item: TrackedItem, digest: str, old: ItemState | None) -> None:
        self.key: str = item.key
        self.text = item.text
        self.kind: ItemKind = item.kind
        self.hash = digest
        self.tokens = item.tokens
        self.source = item.source
        self.before: CacheTier | None = old.tier if old is not None else None
        self.reason: ChangeReason | None = None
        if old is not None and old.hash == digest:
            self.fresh = False
            self.n, self.tier, self.rewrites = old.n + 1, _INDEX[old.tier], old.rewrites
        else:
            self.fresh = True  # new or changed at this request
            self.n, self.tier, self.rewrites = 0, _ACTIVE, 0
            self.reason = "new" if old is None else "demoted"

    def state(self, deferred: bool) -> ItemState:
        """The slot as the tracker remembers it (under the deferred rule, with the text its
        cached tier now holds)."""
        state = _state(
            self.key, self.kind, self.hash, self.n, TIERS[self.tier], self.tokens, self.rewrites
        )
        if deferred and self.kind != "history" and _TOP <= self.tier <= _LAST_CACHED:
            state.__dict__["copy"] = self.text
            state.__dict__["source"] = self.source
        return state


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
    fields["copy"], fields["copy_state"], fields["carried"] = None, "current", 0
    fields["source"] = ""
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
    notes_now: list[int] = field(default_factory=lambda: [0] * len(TIERS))
    """Per tier, what this request's notes about its out-of-date copies cost."""
    carried_rent: list[int] = field(default_factory=lambda: [0] * len(TIERS))
    """Per tier, what the notes about its out-of-date copies have cost uncached so far
    (deferred rule)."""


def _carry(item: TrackedItem, digest: str, old: ItemState) -> ItemState | None:
    """Under the deferred rule, the new state of an item whose cached copy stays in its tier
    although the item changed (or came back after leaving): the copy is current again, or
    a note carries the change. None when the note would outgrow the file (rewrite it)."""
    copy = old.copy
    assert copy is not None
    if digest == content_hash(copy):
        copy_state, carried = "current", 0
    elif item.kind == "file" and outgrown(copy, item.text, item_path(item.key)):
        return None
    else:
        note = note_tokens(item.key, copy, item.text, item.tokens)
        copy_state, carried = "changed", old.carried + note
    unchanged = old.hash == digest and old.copy_state != "gone"
    state = _state(
        item.key,
        item.kind,
        digest,
        old.n + 1 if unchanged else 0,
        old.tier,
        item.tokens,
        old.rewrites,
    )
    fields = state.__dict__
    fields["copy"], fields["copy_state"], fields["carried"] = copy, copy_state, carried
    # The copy was made from the file as it is when it is current again, else as it was.
    fields["source"] = item.source if copy_state == "current" else old.source
    return state


def _ghost(old: ItemState) -> ItemState:
    """Under the deferred rule, the state of an item that left the context while its copy
    stays in its cached tier, with a note saying it is gone."""
    state = _state(old.key, old.kind, old.hash, old.n, old.tier, old.tokens, old.rewrites)
    fields = state.__dict__
    fields["copy"], fields["copy_state"] = old.copy, "gone"
    fields["carried"] = old.carried + GONE_NOTE_TOKENS
    fields["source"] = old.source
    return state


def _deferrable(old: ItemState | None) -> bool:
    """Whether an item's cached copy can stay in its tier after it changed or left (a file
    or map entry in L1–L3 whose copy is remembered; history cannot: the conversation is
    what it is)."""
    return (
        old is not None
        and old.copy is not None
        and old.kind != "history"
        and old.tier in ("L1", "L2", "L3")
    )


def _scan(previous: TrackerState, items: Sequence[TrackedItem], *, deferred: bool = False) -> _Scan:
    """Hash every item, compare it with what was remembered, total what the rule's
    decisions need, and make the new state of every item that stays unchanged where it is
    (whether its tier is rewritten is known only at the end; most are not). Under the
    deferred rule, an item whose cached copy can stay (:func:`_deferrable`) stays too."""
    scan = _Scan()
    scan.digests = content_hashes([item.text for item in items])
    scan.olds = list(map(previous.by_key.get, [item.key for item in items]))
    held, broken, where, kept = scan.held, scan.broken, scan.where, scan.kept
    # Ten thousand items per request: names bound locally, and each kept state made by
    # filling its __dict__ (a frozen dataclass's __init__ would triple the cost).
    index, active, moving, new, fill = _INDEX, _ACTIVE, _MOVING, object.__new__, object.__setattr__
    floor = waiting = 0
    carried = scan.carried_rent
    for position, (item, digest, old) in enumerate(
        zip(items, scan.digests, scan.olds, strict=True)
    ):
        if (
            deferred
            and old is not None
            and (old.hash != digest or old.copy_state != "current")
            and _deferrable(old)
        ):
            state = _carry(item, digest, old)
            if state is not None:
                tier = index[old.tier]
                held[tier] += item.tokens
                carried[tier] += state.carried
                scan.notes_now[tier] += max(0, state.carried - old.carried)
                kept.append(state)
                where[tier].append(position)
                continue
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


def _homes(pool: Sequence[_Slot], top: int, deferred: bool) -> dict[str, int]:
    """Where a rewrite from ``top`` places each item (rules 2 and 5 of the module's
    docstring)."""
    homes = {s.key: top for s in pool if s.kind != "file"}
    files = sorted((s for s in pool if s.kind == "file"), key=lambda s: -s.n)
    if deferred:
        split = len(files) if top < _LAST_CACHED else 0
    else:
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
    if any(scan.carried_rent):
        # Rent or buy over the notes too: rewriting from a tier with out-of-date copies
        # drops the notes about them and those of the tiers below, and lets what waits in
        # active graduate.
        for tier in range(_TOP, _LAST_CACHED + 1):
            if tier < _LAST_CACHED and not scan.carried_rent[tier]:
                continue
            rent = scan.waiting_rent + sum(scan.carried_rent[tier : _LAST_CACHED + 1])
            cost = REWRITE_PREMIUM * sum(scan.held[tier : _LAST_CACHED + 1])
            if rent > 0 and rent >= cost:
                return tier
            if sum(scan.notes_now[tier : _LAST_CACHED + 1]) * NOTE_HORIZON >= cost:
                return tier
        return None
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


def _repack(members: Sequence[_Slot], top: int, deferred: bool) -> None:
    """Place every item of a rewrite from ``top`` (and every waiting one) at its home."""
    homes = _homes(members, top, deferred)
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


def _ghosts(
    previous: TrackerState, items: Sequence[TrackedItem], scan: _Scan, *, deferred: bool
) -> tuple[list[ItemState], list[ItemState]]:
    """The items of the last request missing from this one: those whose copy stays in its
    tier under the deferred rule (ghosts, counted in the scan's totals) and those that
    break their tier."""
    # Not list.count(None): that compares every state with None through its __eq__, ten
    # times slower than asking each whether it is None.
    remembered = len(scan.olds) - sum(1 for old in scan.olds if old is None)
    if remembered == len(previous.items):
        return [], []
    seen = {i.key for i in items}
    ghosts: list[ItemState] = []
    breaking: list[ItemState] = []
    for old in previous.items:
        if old.key in seen:
            continue
        # A file now in full in the context has no map entry in any tier: its entry's tier
        # is rewritten rather than kept with a note.
        opened = old.kind == "symbols" and f"file:{item_path(old.key)}" in seen
        if deferred and not opened and _deferrable(old):
            ghost = _ghost(old)
            tier = _INDEX[ghost.tier]
            scan.held[tier] += ghost.tokens
            scan.carried_rent[tier] += ghost.carried
            scan.notes_now[tier] += GONE_NOTE_TOKENS
            ghosts.append(ghost)
        else:
            breaking.append(old)
            if old.tier != "active":
                scan.broken.add(_INDEX[old.tier])
    return ghosts, breaking


def _in_order(
    states: Sequence[ItemState], ghosts: Sequence[ItemState], previous: TrackerState
) -> tuple[ItemState, ...]:
    """``states`` with each ghost put back after the item it followed last time, so the
    tiers it sits in are sent in the same order as before."""
    if not ghosts:
        return tuple(states)
    ghost_keys = {g.key: g for g in ghosts}
    present = {s.key for s in states}
    after: dict[str | None, list[ItemState]] = {}
    last: str | None = None
    for old in previous.items:
        if old.key in ghost_keys:
            after.setdefault(last, []).append(ghost_keys[old.key])
        elif old.key in present:
            last = old.key
    out = list(after.get(None, ()))
    for state in states:
        out.append(state)
        out.extend(after.get(state.key, ()))
    return tuple(out)


def track_settle(
    previous: TrackerState, items: Sequence[TrackedItem], *, deferred: bool = False
) -> TrackerUpdate:
    """One request under the settle rule (see the module's docstring), or with ``deferred``
    under the deferred rule (rule 5 of the module's docstring); an empty ``previous`` is a
    first request."""
    first = previous.requests == 0
    scan = _scan(previous, items, deferred=deferred)
    ghosts, gone = _ghosts(previous, items, scan, deferred=deferred)
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
        _repack(members, top, deferred)
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
    # An item is reported removed at the request it leaves, not again while its copy stays.
    changes.extend(
        TierChange(key=old.key, before=old.tier, after=None, reason="removed")
        for old in (*gone, *ghosts)
        if previous.by_key[old.key].copy_state != "gone"
    )
    for position, slot in zip(moving, slots, strict=True):
        placed[position] = slot.state(deferred)
    states = [p for p in placed if p is not None]
    assert len(states) == len(items)
    # Ghosts in the rewritten tiers are dropped with them.
    kept = [g for g in ghosts if _INDEX[g.tier] < top]
    return TrackerUpdate(
        state=TrackerState(
            items=_in_order(states, kept, previous),
            requests=previous.requests + 1,
            rule="deferred" if deferred else "settle",
        ),
        changes=tuple(changes),
        rewrite_from=TIERS[top] if start is not None else None,
    )


def _with_legend(state: TrackerState, legend: str, carried: int) -> TrackerState:
    """``state`` with the legend L0 holds and what its notes have cost (its index of items
    shared, not built again for ten thousand items)."""
    out = object.__new__(TrackerState)
    out.__dict__.update(state.__dict__)
    out.__dict__["legend"], out.__dict__["legend_carried"] = legend, carried
    return out


def keep_legend(previous: TrackerState, state: TrackerState, legend: str) -> TrackerState:
    """``state`` with the legend L0 holds under the deferred rule (rule 6 of the module's
    docstring): the copy L0 already holds while carrying its changes costs less than
    rewriting every cached tier, else ``legend``."""
    copy = previous.legend if previous.requests and previous.rule == "deferred" else None
    if copy is None or copy == legend:
        return _with_legend(state, legend, 0)
    diff = changes_since("legend", copy, legend)
    note = len(diff) // _CHARS_PER_TOKEN + GONE_NOTE_TOKENS
    carried = previous.legend_carried + note
    cached = sum(s.tokens for s in state.items if s.tier != "active")
    cached += len(copy) // _CHARS_PER_TOKEN
    # No "longer than the text" test here: a legend is short, and rewriting it rewrites all.
    if carried >= REWRITE_PREMIUM * cached:
        return _with_legend(state, legend, 0)
    return _with_legend(state, copy, carried)
