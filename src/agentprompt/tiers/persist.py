"""The tracker's state between CLI requests, kept in the project's store.

One record of kind ``tiers`` per store (the store belongs to one repository) holds the last
state and the changes its request made.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from agentprompt.errors import AgentPromptError
from agentprompt.store import Store
from agentprompt.tiers.tracker import TIERS, ItemState, TierChange, TrackerState

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


def _item(raw: Any) -> ItemState:
    if not isinstance(raw, dict) or raw.get("tier") not in TIERS:
        raise CorruptTierState(f"an item is not a tracked item: {raw!r:.100}")
    try:
        return ItemState(
            key=str(raw["key"]),
            kind=raw["kind"],
            hash=str(raw["hash"]),
            n=int(raw["n"]),
            tier=raw["tier"],
            tokens=int(raw["tokens"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptTierState(f"an item lacks {exc}") from None


def _change(raw: Any) -> TierChange:
    if not isinstance(raw, dict):
        raise CorruptTierState(f"a change is not an object: {raw!r:.100}")
    try:
        return TierChange(
            key=str(raw["key"]), before=raw["before"], after=raw["after"], reason=raw["reason"]
        )
    except KeyError as exc:
        raise CorruptTierState(f"a change lacks {exc}") from None


def load_tracker(store: Store) -> tuple[TrackerState, tuple[TierChange, ...]]:
    """The last stored state and the changes of its request (an empty state when none)."""
    record = store.latest_session(STORE_KIND)
    if record is None:
        return TrackerState(), ()
    data = record.state
    items, changes = data.get("items"), data.get("changes", [])
    if not isinstance(items, list) or not isinstance(changes, list):
        raise CorruptTierState("'items' and 'changes' must be lists")
    try:
        requests = int(data.get("requests", 0))
    except (TypeError, ValueError):
        raise CorruptTierState("'requests' is not a number") from None
    state = TrackerState(items=tuple(_item(i) for i in items), requests=requests)
    return state, tuple(_change(c) for c in changes)


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
