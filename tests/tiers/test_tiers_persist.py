"""The tracker's state kept in the store between requests."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.store import Store
from agentprompt.tiers import (
    CorruptTierState,
    TrackedItem,
    TrackerState,
    load_tracker,
    reset_tracker,
    save_tracker,
    track,
)


def test_state_and_changes_round_trip(tmp_path: Path) -> None:
    update = track(TrackerState(), [TrackedItem(key="a", kind="file", text="x", tokens=1)])
    with Store(tmp_path / "s.db") as store:
        save_tracker(store, update.state, update.changes)
        save_tracker(store, update.state, update.changes)
        assert load_tracker(store) == (update.state, update.changes)
        assert len(store.list_sessions("tiers")) == 1


def test_no_stored_state_is_an_empty_tracker(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        assert load_tracker(store) == (TrackerState(), ())


def test_reset_forgets_the_state(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        save_tracker(store, TrackerState(requests=3), ())
        assert reset_tracker(store) is True
        assert load_tracker(store)[0].requests == 0
        assert reset_tracker(store) is False


def test_damaged_state_says_how_to_recover(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.create_session("tiers", {"items": [{"key": "a", "tier": "L9"}], "changes": []})
        with pytest.raises(CorruptTierState, match="--reset"):
            load_tracker(store)
