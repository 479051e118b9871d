"""The literal threshold rule (an item's tier follows its N), kept as an option beside the
default settle rule: N counter, thresholds 12/9/6/3, demotion, history graduation, the first
distribution. The ripple rule and the settle rule have their own tests."""

from __future__ import annotations

import pytest

from agentprompt.errors import UsageError
from agentprompt.tiers import (
    ItemState,
    TierPolicy,
    TrackedItem,
    TrackerState,
    TrackerUpdate,
    content_hash,
)
from agentprompt.tiers import track as track_with
from agentprompt.tiers._distribution import distribute
from agentprompt.tiers.tracker import tier_for

THRESHOLD = TierPolicy(rule="threshold")


def track(state: TrackerState, items: list[TrackedItem]) -> TrackerUpdate:
    return track_with(state, items, THRESHOLD)


def item(key: str, text: str = "x", tokens: int = 1, kind: str = "file") -> TrackedItem:
    return TrackedItem(key=key, kind=kind, text=text, tokens=tokens)  # type: ignore[arg-type]


def after_first(items: list[TrackedItem]) -> TrackerState:
    """A state past the first request in which ``items`` are new (active, N = 0)."""
    state = track(TrackerState(), [item("seed")]).state
    return track(state, items).state


def run(state: TrackerState, items: list[TrackedItem], times: int) -> TrackerState:
    for _ in range(times):
        state = track(state, items).state
    return state


@pytest.mark.parametrize(
    ("n", "tier"),
    [
        (0, "active"),
        (2, "active"),
        (3, "L3"),
        (5, "L3"),
        (6, "L2"),
        (8, "L2"),
        (9, "L1"),
        (11, "L1"),
        (12, "L0"),
        (40, "L0"),
    ],
)
def test_tier_follows_the_thresholds_12_9_6_3(n: int, tier: str) -> None:
    assert tier_for(n) == tier


def test_a_new_item_after_the_first_request_is_active_with_n_zero() -> None:
    state = after_first([item("file:a.py")])
    got = state.get("file:a.py")
    assert got is not None and (got.tier, got.n) == ("active", 0)


@pytest.mark.parametrize(("requests", "tier"), [(2, "active"), (3, "L3"), (6, "L2"), (9, "L1")])
def test_an_unchanged_item_is_promoted_at_each_threshold(requests: int, tier: str) -> None:
    items = [item("file:a.py")]
    state = run(after_first(items), items, requests)
    got = state.get("file:a.py")
    assert got is not None and (got.n, got.tier) == (requests, tier)


def test_l0_is_reached_at_twelve_and_is_terminal() -> None:
    items = [item("file:a.py")]
    state = run(after_first(items), items, 12)
    assert state.get("file:a.py").tier == "L0"  # type: ignore[union-attr]
    state = run(state, items, 20)
    assert state.get("file:a.py").tier == "L0"  # type: ignore[union-attr]


def test_promotion_is_reported_as_a_change() -> None:
    items = [item("file:a.py")]
    state = run(after_first(items), items, 2)
    changes = track(state, items).changes
    assert [(c.key, c.before, c.after, c.reason) for c in changes] == [
        ("file:a.py", "active", "L3", "promoted")
    ]


def test_a_changed_item_drops_to_active_with_n_zero() -> None:
    state = run(after_first([item("file:a.py", "v1")]), [item("file:a.py", "v1")], 10)
    update = track(state, [item("file:a.py", "v2")])
    got = update.state.get("file:a.py")
    assert got is not None and (got.tier, got.n) == ("active", 0)
    assert [(c.before, c.after, c.reason) for c in update.changes] == [("L1", "active", "demoted")]


def test_a_change_to_an_l0_item_demotes_it_too() -> None:
    state = run(after_first([item("k", "v1")]), [item("k", "v1")], 13)
    assert track(state, [item("k", "v2")]).state.get("k").tier == "active"  # type: ignore[union-attr]


def test_a_new_history_message_graduates_at_once_into_l3() -> None:
    state = after_first([])
    update = track(state, [item("history:0", "user\nhi", kind="history")])
    got = update.state.get("history:0")
    assert got is not None and (got.tier, got.n) == ("L3", 3)
    assert update.changes[0].reason == "graduated"


def test_the_threshold_rule_moves_an_item_into_an_intact_tier() -> None:
    """Under the threshold rule an L3 item whose N reaches 6 moves to L2 though L2 is intact
    (the ripple rule keeps it in L3)."""
    before = TrackerState(
        items=(ItemState(key="a", kind="file", hash=content_hash("x"), n=5, tier="L3", tokens=1),),
        requests=5,
        rule="threshold",
    )
    literal = track(before, [item("a")])
    assert literal.state.get("a").tier == "L2"  # type: ignore[union-attr]
    before = TrackerState(items=before.items, requests=5, rule="ripple")
    ripple = track_with(before, [item("a")], TierPolicy(rule="ripple"))
    assert ripple.state.get("a").tier == "L3"  # type: ignore[union-attr]


def test_a_graduated_history_message_climbs_one_tier_every_three_requests() -> None:
    """SPEC.md's "may graduate at once" skips only the wait in active: the message enters L3
    with N = 3 and then earns L2, L1 and L0 by N like any item."""
    history = [item("history:0", "user\nhi", kind="history")]
    state = after_first([])
    seen = []
    for _ in range(10):
        state = track(state, history).state
        got = state.get("history:0")
        assert got is not None
        seen.append((got.tier, got.n))
    assert seen == [
        ("L3", 3),
        ("L3", 4),
        ("L3", 5),
        ("L2", 6),
        ("L2", 7),
        ("L2", 8),
        ("L1", 9),
        ("L1", 10),
        ("L1", 11),
        ("L0", 12),
    ]


def test_a_changed_history_message_resets_and_graduates_again_at_once() -> None:
    """Rewritten history (compaction) resets N like any changed item, then graduates at once
    into L3, being immutable again; a changed file waits in active."""
    before = [item("history:0", "user\nold", kind="history"), item("file:a.py", "v1")]
    state = run(after_first(before), before, 8)
    tiers = {i.key: (i.tier, i.n) for i in state.items}
    assert tiers == {"history:0": ("L1", 11), "file:a.py": ("L2", 8)}
    after = [item("history:0", "user\nsummary", kind="history"), item("file:a.py", "v2")]
    update = track(state, after)
    tiers = {i.key: (i.tier, i.n) for i in update.state.items}
    assert tiers == {"history:0": ("L3", 3), "file:a.py": ("active", 0)}
    assert [(c.key, c.before, c.after, c.reason) for c in update.changes] == [
        ("history:0", "L1", "L3", "demoted"),
        ("file:a.py", "L2", "active", "demoted"),
    ]


def test_history_tiers_keep_the_conversation_order() -> None:
    """A message added each request: older messages always sit in a tier at least as stable
    as newer ones, so sending the tiers in order keeps the conversation in order."""
    order = ("L0", "L1", "L2", "L3", "active")
    state = after_first([])
    history: list[TrackedItem] = []
    for turn in range(20):
        history.append(item(f"history:{turn}", f"user\nturn {turn}", kind="history"))
        state = track(state, history).state
        ranks = [order.index(state.get(h.key).tier) for h in history]  # type: ignore[union-attr]
        assert ranks == sorted(ranks)


def test_history_keeps_climbing_like_any_item() -> None:
    history = [item("history:0", "user\nhi", kind="history")]
    state = run(after_first([]), history, 1 + 9)
    assert state.get("history:0").tier == "L0"  # type: ignore[union-attr]


def test_an_item_no_longer_given_is_removed_and_reported() -> None:
    state = after_first([item("a"), item("b")])
    update = track(state, [item("a")])
    assert update.state.get("b") is None
    assert [(c.key, c.after, c.reason) for c in update.changes] == [("b", None, "removed")]


def test_first_request_spreads_items_greedily_over_l1_to_l3_by_tokens() -> None:
    items = [item("a", tokens=50), item("b", tokens=40), item("c", tokens=30), item("d", tokens=25)]
    state = track(TrackerState(), items).state
    assert {i.key: i.tier for i in state.items} == {"a": "L1", "b": "L2", "c": "L3", "d": "L3"}
    assert {i.key: i.n for i in state.items} == {"a": 9, "b": 6, "c": 3, "d": 3}


def test_first_request_puts_nothing_in_l0_or_active() -> None:
    items = [item(f"k{i}", tokens=i + 1) for i in range(10)]
    tiers = {i.tier for i in track(TrackerState(), items).state.items}
    assert tiers <= {"L1", "L2", "L3"}


def test_first_request_graduates_history_instead_of_spreading_it() -> None:
    items = [item("a", tokens=500), item("history:0", "user\nhi", tokens=900, kind="history")]
    state = track(TrackerState(), items).state
    assert state.get("history:0").tier == "L3"  # type: ignore[union-attr]
    assert state.get("a").tier == "L1"  # type: ignore[union-attr]


def test_distribution_balances_token_totals() -> None:
    sizes = [90, 80, 70, 60, 50, 40, 30, 20, 10]
    placed = distribute([(f"k{i}", s) for i, s in enumerate(sizes)])
    totals = {
        t: sum(s for i, s in enumerate(sizes) if placed[f"k{i}"] == t) for t in placed.values()
    }
    assert totals == {"L1": 160, "L2": 150, "L3": 140}


def test_two_items_with_one_key_are_refused() -> None:
    with pytest.raises(UsageError, match="'a'"):
        track(TrackerState(), [item("a"), item("a")])


def test_requests_are_counted() -> None:
    state = run(TrackerState(), [item("a")], 4)
    assert state.requests == 4
