"""The tracker's state between CLI requests, kept in the project's store.

One record of kind ``tiers`` per store (the store belongs to one repository) holds the last
state and the changes its request made.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any, get_args

import jsonschema

from agentprompt.errors import AgentPromptError
from agentprompt.store import Store
from agentprompt.tiers.tracker import (
    TIERS,
    ChangeReason,
    ItemKind,
    ItemState,
    TierChange,
    TrackerState,
)

__all__ = ["STORE_KIND", "CorruptTierState", "load_tracker", "reset_tracker", "save_tracker"]

STORE_KIND = "tiers"
"""The store record kind holding the tracker."""


class CorruptTierState(AgentPromptError):
    """The stored tracker state cannot be read back."""

    def __init__(self, problem: str) -> None:
        super().__init__(
            f"the stored cache-tier state is damaged ({problem}); run 'agentprompt tiers "
            "--reset' to start tracking afresh"
        )


def _state_json(state: TrackerState, changes: tuple[TierChange, ...]) -> dict[str, Any]:
    return {
        "requests": state.requests,
        "items": [asdict(i) for i in state.items],
        "changes": [asdict(c) for c in changes],
    }


_ITEM_FIELDS = [f.name for f in fields(ItemState)]
_CHANGE_FIELDS = [f.name for f in fields(TierChange)]
_TIER_OR_NONE: dict[str, Any] = {"enum": [*TIERS, None]}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["items"],
    "properties": {
        "requests": _COUNT,
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": _ITEM_FIELDS,
                "properties": {
                    "key": {"type": "string"},
                    "kind": {"enum": list(get_args(ItemKind))},
                    "hash": {"type": "string"},
                    "n": _COUNT,
                    "tier": {"enum": list(TIERS)},
                    "tokens": _COUNT,
                },
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


def load_tracker(store: Store) -> tuple[TrackerState, tuple[TierChange, ...]]:
    """The last stored state and the changes of its request (an empty state when none)."""
    record = store.latest_session(STORE_KIND)
    if record is None:
        return TrackerState(), ()
    data = record.state
    _check(data)
    items = tuple(ItemState(**{f: i[f] for f in _ITEM_FIELDS}) for i in data["items"])
    changes = tuple(
        TierChange(**{f: c[f] for f in _CHANGE_FIELDS}) for c in data.get("changes", [])
    )
    return TrackerState(items=items, requests=data.get("requests", 0)), changes


def save_tracker(store: Store, state: TrackerState, changes: tuple[TierChange, ...]) -> None:
    """Keep ``state`` (and the changes that made it) as the repository's tracker."""
    record = store.latest_session(STORE_KIND)
    data = _state_json(state, changes)
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
