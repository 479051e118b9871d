"""The opt-in ripple rule: thresholds and demotion as SPEC.md says, but items move up only
into tiers whose cache block is already broken, so intact tiers stay cached."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.tiers import (
    ItemState,
    TierPolicy,
    TrackedItem,
    TrackerState,
    TrackerUpdate,
    content_hash,
)
from agentprompt.tiers import track as track_with

RIPPLE = TierPolicy(rule="ripple")


def track(
    previous: TrackerState, items: list[TrackedItem], policy: TierPolicy = RIPPLE
) -> TrackerUpdate:
    return track_with(previous, items, policy)


def item(key: str, text: str = "x", tokens: int = 10, kind: str = "file") -> TrackedItem:
    return TrackedItem(key=key, kind=kind, text=text, tokens=tokens)  # type: ignore[arg-type]


def state(*rows: tuple[str, str, int], kind: str = "file") -> TrackerState:
    """Items (key, tier, N), each with text "x"."""
    return TrackerState(
        items=tuple(
            ItemState(key=k, kind=kind, hash=content_hash("x"), n=n, tier=t, tokens=10)  # type: ignore[arg-type]
            for k, t, n in rows
        ),
        requests=20,
    )


def tiers_of(update_state: TrackerState) -> dict[str, tuple[str, int]]:
    return {i.key: (i.tier, i.n) for i in update_state.items}


def test_nothing_moves_when_nothing_changed() -> None:
    before = state(("a", "L0", 30), ("b", "L1", 12), ("c", "L2", 9), ("d", "L3", 6))
    update = track(before, [item("a"), item("b"), item("c"), item("d")])
    assert update.changes == ()
    assert tiers_of(update.state) == {
        "a": ("L0", 31),
        "b": ("L1", 12),
        "c": ("L2", 9),
        "d": ("L3", 6),
    }


def test_n_is_capped_at_the_next_threshold_while_that_tier_is_intact() -> None:
    before = state(("d", "L3", 5))
    after = track(before, [item("d")]).state
    assert tiers_of(after) == {"d": ("L3", 6)}
    assert tiers_of(track(after, [item("d")]).state) == {"d": ("L3", 6)}


def test_a_change_demotes_and_the_broken_tier_takes_veterans_from_below() -> None:
    before = state(("b", "L1", 10), ("c", "L2", 9), ("d", "L3", 6), ("e", "L3", 4))
    update = track(before, [item("b", "changed"), item("c"), item("d"), item("e")])
    assert tiers_of(update.state) == {
        "b": ("active", 0),
        "c": ("L1", 9),
        "d": ("L2", 6),
        "e": ("L3", 5),
    }
    reasons = {c.key: (c.before, c.after, c.reason) for c in update.changes}
    assert reasons == {
        "b": ("L1", "active", "demoted"),
        "c": ("L2", "L1", "promoted"),
        "d": ("L3", "L2", "promoted"),
    }


def test_the_cascade_leaves_tiers_above_the_break_alone() -> None:
    before = state(("a", "L0", 20), ("b", "L1", 12), ("c", "L2", 9), ("d", "L3", 6))
    update = track(before, [item("a"), item("b"), item("c", "changed"), item("d")])
    after = tiers_of(update.state)
    assert after["a"] == ("L0", 21) and after["b"] == ("L1", 12)
    assert after["d"] == ("L2", 6) and after["c"] == ("active", 0)


def test_a_removed_item_breaks_its_tier() -> None:
    before = state(("b", "L1", 10), ("c", "L2", 9))
    update = track(before, [item("c")])
    assert tiers_of(update.state) == {"c": ("L1", 9)}
    assert ("b", "L1", None, "removed") in {
        (c.key, c.before, c.after, c.reason) for c in update.changes
    }


def test_an_active_file_graduates_into_l3_at_n_three() -> None:
    before = state(("f", "active", 2))
    update = track(before, [item("f")])
    assert tiers_of(update.state) == {"f": ("L3", 3)}
    assert update.changes[0].reason == "promoted"


def test_a_new_file_after_the_first_request_is_active() -> None:
    update = track(state(("a", "L1", 9)), [item("a"), item("new")])
    assert tiers_of(update.state)["new"] == ("active", 0)


def test_history_waits_in_active_while_l3_is_intact_and_small() -> None:
    before = state(("d", "L3", 4))
    update = track(before, [item("d"), item("history:0", "user\nhi", kind="history")])
    assert tiers_of(update.state)["history:0"] == ("active", 0)


def test_history_piggybacks_when_l3_breaks_anyway() -> None:
    before = state(("d", "L3", 4), ("f", "active", 2))
    items = [item("d"), item("f"), item("history:0", "user\nhi", kind="history")]
    update = track(before, items)
    assert tiers_of(update.state)["history:0"] == ("L3", 3)
    assert ("history:0", "graduated") in {(c.key, c.reason) for c in update.changes}


def test_history_graduates_on_its_own_once_it_is_big_enough() -> None:
    history = item("history:0", "user\n" + "word " * 50, tokens=2000, kind="history")
    update = track(state(("d", "L3", 4)), [item("d"), history])
    assert tiers_of(update.state)["history:0"] == ("L3", 3)


def test_the_history_target_is_configurable() -> None:
    history = item("history:0", "user\nhi", tokens=5, kind="history")
    update = track(state(), [history], TierPolicy(rule="ripple", history_target_tokens=5))
    assert tiers_of(update.state)["history:0"] == ("L3", 3)


ORDER = ("L0", "L1", "L2", "L3", "active")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(["edit", "drop", "add"]), st.integers(0, 7)), max_size=2
        ),
        min_size=2,
        max_size=30,
    )
)
def test_tiers_more_stable_than_any_break_keep_their_items(
    requests: list[list[tuple[str, int]]],
) -> None:
    """Property: a tier above every changed or removed item (and above L3, where graduation
    lands) keeps exactly its items, and every item's N is at least its tier's threshold."""
    entry = {"L0": 12, "L1": 9, "L2": 6, "L3": 3, "active": 0}
    versions = {f"k{k}": 0 for k in range(5)}
    previous = TrackerState()
    for edits in requests:
        for op, k in edits:
            key = f"k{k}"
            if op == "drop":
                versions.pop(key, None)
            elif op == "edit" and key in versions:
                versions[key] += 1
            elif op == "add":
                versions.setdefault(key, 0)
        items = {key: item(key, f"v{v}") for key, v in versions.items()}
        update = track(previous, list(items.values()))
        if previous.requests:
            broken = {"L3"}
            for old in previous.items:
                now = items.get(old.key)
                if now is None or content_hash(now.text) != old.hash:
                    broken.add(old.tier)
            top = min(ORDER.index(t) for t in broken)
            for tier in ORDER[:top]:
                before = {i.key for i in previous.items if i.tier == tier}
                after = {i.key for i in update.state.items if i.tier == tier}
                assert before == after, tier
        for state_item in update.state.items:
            assert state_item.n >= entry[state_item.tier]
        previous = update.state
