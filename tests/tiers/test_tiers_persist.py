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
        with pytest.raises(CorruptTierState, match="reset_tiers"):
            load_tracker(store)


GOOD_ITEM = {"key": "a", "kind": "file", "hash": "h", "n": 1, "tier": "L1", "tokens": 1}
GOOD_CHANGE = {"key": "a", "before": None, "after": "L1", "reason": "distributed"}


@pytest.mark.parametrize(
    ("record", "names"),
    [
        ([1, 2], "the record"),
        ({"requests": "x", "items": []}, "requests"),
        ({"requests": -1, "items": []}, "requests"),
        ({"items": [{**GOOD_ITEM, "kind": "weird"}]}, "items/0/kind"),
        ({"items": [{**GOOD_ITEM, "n": -5}]}, "items/0/n"),
        ({"items": [{**GOOD_ITEM, "n": "abc"}]}, "items/0/n"),
        ({"items": [GOOD_ITEM, GOOD_ITEM]}, "'a' is stored twice"),
        ({"items": [], "changes": [{**GOOD_CHANGE, "reason": "bogus"}]}, "changes/0/reason"),
        ({"items": [], "changes": [{**GOOD_CHANGE, "after": "L9"}]}, "changes/0/after"),
        ({"items": [], "changes": [{"key": "a"}]}, "changes/0"),
    ],
)
def test_every_damaged_field_is_refused_naming_it(
    tmp_path: Path, record: object, names: str
) -> None:
    """A record the CLI would later trip over (an unknown reason, a duplicate key, a record
    that is not an object) is refused on load, naming the field and the fix."""
    with Store(tmp_path / "s.db") as store:
        store.create_session("tiers", record)  # type: ignore[arg-type]
        with pytest.raises(CorruptTierState, match="reset_tiers") as caught:
            load_tracker(store)
        assert names in str(caught.value)


def test_a_valid_record_with_an_extra_field_still_loads(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.create_session(
            "tiers",
            {"requests": 2, "items": [{**GOOD_ITEM, "note": 1}], "changes": [GOOD_CHANGE]},
        )
        state, changes = load_tracker(store)
    assert state.requests == 2 and state.get("a") is not None and changes[0].after == "L1"


def test_open_tracker_keeps_the_rule_the_cache_blocks_and_the_tally(tmp_path: Path) -> None:
    from agentprompt.tiers import CacheUse, ServedTally, open_tracker
    from agentprompt.tiers.served import BlockUse

    update = track(TrackerState(), [TrackedItem(key="a", kind="file", text="x", tokens=1)])
    use = CacheUse(
        blocks=(BlockUse(tier="L0", tokens=10, status="reused", key="k0"),),
        served=10,
        written=0,
        uncached=2,
    )
    tally = ServedTally().add(use)
    with Store(tmp_path / "s.db") as store:
        save_tracker(store, update.state, update.changes, use=use, tally=tally)
        stored = open_tracker(store)
    assert stored.state == update.state and stored.state.rule == "deferred"
    assert stored.cached == ("k0",) and stored.tally == tally and stored.warnings == ()


def test_open_tracker_turns_a_damaged_record_into_a_warning(tmp_path: Path) -> None:
    from agentprompt.tiers import open_tracker

    with Store(tmp_path / "s.db") as store:
        store.create_session("tiers", {"items": [{**GOOD_ITEM, "tier": "L9"}]})
        stored = open_tracker(store)
    assert stored.state == TrackerState() and stored.cached == ()
    assert len(stored.warnings) == 1 and "items/0/tier" in stored.warnings[0]


def test_a_record_from_before_rewrites_were_counted_still_loads(tmp_path: Path) -> None:
    """Records written before items carried a rewrite count (or a rule) load with 0 and
    None."""
    with Store(tmp_path / "s.db") as store:
        store.create_session("tiers", {"requests": 3, "items": [GOOD_ITEM], "changes": []})
        state, _ = load_tracker(store)
    got = state.get("a")
    assert got is not None and got.rewrites == 0 and state.rule is None
