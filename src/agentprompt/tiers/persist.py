"""The tracker's state between CLI requests, kept in the project's store.

One record of kind ``tiers`` per store (the store belongs to one repository) holds the last
state and the changes its request made, the names of the cache blocks that request left in
the provider's cache, and the running tally of what the cache served.

:func:`load_tracker` refuses a damaged record (:class:`CorruptTierState`);
:func:`open_tracker`, which the ``tiers`` command and the web page use, turns the same
problem into a warning and starts tracking afresh, so a damaged record never stops a
request nor shapes its prompt.
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, get_args

import jsonschema

from agentprompt.errors import AgentPromptError, literal
from agentprompt.store import SessionRecord, Store, StoreError, default_store_path
from agentprompt.tiers.served import CacheUse, ServedTally
from agentprompt.tiers.tracker import (
    CACHED_TIERS,
    TIERS,
    ChangeReason,
    CopyState,
    ItemKind,
    ItemState,
    TierChange,
    TrackerState,
)

__all__ = [
    "STORE_KIND",
    "CorruptTierState",
    "StoredTracker",
    "load_tracker",
    "open_tracker",
    "read_stored",
    "reset_tracker",
    "save_tracker",
]

STORE_KIND = "tiers"
"""The store record kind holding the tracker."""


class CorruptTierState(AgentPromptError):
    """The stored tracker state cannot be read back."""

    def __init__(self, problem: str) -> None:
        self.problem = f"the stored cache-tier state is damaged ({problem})"
        super().__init__(literal(self.problem), fix="run '{reset_tiers}' to start tracking afresh")


@dataclass(frozen=True, kw_only=True)
class StoredTracker:
    """Everything kept between two requests, as :func:`open_tracker` reads it."""

    state: TrackerState = field(default_factory=TrackerState)
    """The tracker after the last request."""
    changes: tuple[TierChange, ...] = ()
    """What the last request moved."""
    cached: tuple[str, ...] = ()
    """The names of the cache blocks the last request left (``served.prefix_key``)."""
    tally: ServedTally = field(default_factory=ServedTally)
    """What the cache served over the requests since tracking began."""
    warnings: tuple[str, ...] = ()
    """Problems found in the stored record (it was set aside and tracking started afresh)."""


def _state_json(
    state: TrackerState,
    changes: tuple[TierChange, ...],
    cached: tuple[str, ...],
    tally: ServedTally,
) -> dict[str, Any]:
    return {
        "requests": state.requests,
        "rule": state.rule,
        "legend": state.legend,
        "legend_carried": state.legend_carried,
        "items": [asdict(i) for i in state.items],
        "changes": [asdict(c) for c in changes],
        "cache": {"blocks": list(cached), **asdict(tally)},
    }


_ITEM_FIELDS = [f.name for f in fields(ItemState)]
_ITEM_REQUIRED = [f.name for f in fields(ItemState) if f.default is MISSING]
_CHANGE_FIELDS = [f.name for f in fields(TierChange)]
_TIER_OR_NONE: dict[str, Any] = {"enum": [*TIERS, None]}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["items"],
    "properties": {
        "requests": _COUNT,
        "rule": {"type": ["string", "null"]},
        "legend": {"type": ["string", "null"]},
        "legend_carried": _COUNT,
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": _ITEM_REQUIRED,
                "properties": {
                    "key": {"type": "string"},
                    "kind": {"enum": list(get_args(ItemKind))},
                    "hash": {"type": "string"},
                    "n": _COUNT,
                    "tier": {"enum": list(TIERS)},
                    "tokens": _COUNT,
                    "rewrites": _COUNT,
                    "copy": {"type": ["string", "null"]},
                    "copy_state": {"enum": list(get_args(CopyState))},
                    "carried": _COUNT,
                    "source": {"type": "string"},
                },
            },
        },
        "cache": {
            "type": "object",
            "properties": {
                "blocks": {"type": "array", "items": {"type": "string"}},
                "requests": _COUNT,
                "served": _COUNT,
                "written": _COUNT,
                "total": _COUNT,
                "cost": {"type": "number", "minimum": 0},
            },
        },
        "changes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": _CHANGE_FIELDS,
                "properties": {
                    "key": {"type": "string"},
                    "before": _TIER_OR_NONE,
                    "after": _TIER_OR_NONE,
                    "reason": {"enum": list(get_args(ChangeReason))},
                },
            },
        },
    },
}
"""What a stored record must look like: every field the tracker reads, with its type and
allowed values, so a damaged record is refused here rather than failing later."""


def _check(data: Any) -> None:
    """Refuse a record the schema rejects, or one naming an item twice."""
    errors = sorted(
        jsonschema.Draft202012Validator(_STATE_SCHEMA).iter_errors(data),
        key=lambda e: [str(p) for p in e.absolute_path],
    )
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "the record"
        raise CorruptTierState(f"{where}: {errors[0].message:.200}")
    seen: set[str] = set()
    for item in data["items"]:
        if item["key"] in seen:
            raise CorruptTierState(f"the item {item['key']!r:.100} is stored twice")
        seen.add(item["key"])
        if item.get("copy_state", "current") != "current" and (
            item.get("copy") is None or item["tier"] not in CACHED_TIERS[1:]
        ):
            raise CorruptTierState(
                f"the item {item['key']!r:.100} is marked {item['copy_state']} but has no "
                "cached copy in L1–L3"
            )


def _read(data: Any) -> StoredTracker:
    """A checked record as values (:class:`CorruptTierState` when it is damaged)."""
    _check(data)
    items = tuple(ItemState(**{f: i[f] for f in _ITEM_FIELDS if f in i}) for i in data["items"])
    changes = tuple(
        TierChange(**{f: c[f] for f in _CHANGE_FIELDS}) for c in data.get("changes", [])
    )
    cache = data.get("cache", {})
    tally = ServedTally(
        requests=cache.get("requests", 0),
        served=cache.get("served", 0),
        written=cache.get("written", 0),
        total=cache.get("total", 0),
        cost=float(cache.get("cost", 0.0)),
    )
    state = TrackerState(
        items=items,
        requests=data.get("requests", 0),
        rule=data.get("rule"),
        legend=data.get("legend"),
        legend_carried=data.get("legend_carried", 0),
    )
    return StoredTracker(
        state=state, changes=changes, cached=tuple(cache.get("blocks", ())), tally=tally
    )


def load_tracker(store: Store) -> tuple[TrackerState, tuple[TierChange, ...]]:
    """The last stored state and the changes of its request (an empty state when none);
    :class:`CorruptTierState` when the record is damaged."""
    record = store.latest_session(STORE_KIND)
    if record is None:
        return TrackerState(), ()
    stored = _read(record.state)
    return stored.state, stored.changes


def open_tracker(store: Store) -> StoredTracker:
    """Everything stored for the next request. A damaged record gives a warning naming the
    problem and an empty tracker (the next request places every item afresh and its save
    replaces the record), never an error."""
    try:
        record = store.latest_session(STORE_KIND)
    except StoreError as exc:
        return StoredTracker(warnings=(f"{exc}; the tiers are placed afresh",))
    if record is None:
        return StoredTracker()
    try:
        return _read(record.state)
    except CorruptTierState as exc:
        return StoredTracker(warnings=(f"{exc.problem}; the tiers are placed afresh",))


def read_stored(root: Path) -> StoredTracker:
    """The tracker stored for the repository at ``root`` (read as :func:`open_tracker` reads
    it); an empty one when the repository has no state database yet."""
    store_path = default_store_path(root.resolve())
    if not store_path.exists():
        return StoredTracker()
    with Store(store_path) as store:
        return open_tracker(store)


def save_tracker(
    store: Store,
    state: TrackerState,
    changes: tuple[TierChange, ...],
    *,
    use: CacheUse | None = None,
    tally: ServedTally | None = None,
) -> None:
    """Keep ``state`` (and the changes that made it) as the repository's tracker, with the
    cache blocks its request left (``use``) and the running tally."""
    record: SessionRecord | None
    try:
        record = store.latest_session(STORE_KIND)
    except StoreError:
        record = None  # a record that is not JSON: the new one supersedes it as the latest
    data = _state_json(state, changes, use.keys if use else (), tally or ServedTally())
    if record is None:
        store.create_session(STORE_KIND, data)
    else:
        store.save_session(record.id, data)


def reset_tracker(store: Store) -> bool:
    """Forget the stored tracker; True when there was one."""
    found = False
    for record in store.list_sessions(STORE_KIND):
        found = store.delete_session(record.id) or found
    return found
