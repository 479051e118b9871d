"""The settle rule (an option; the default, deferred, builds on it): unchanged items stay put,
moves ride rewrites that happen
anyway, waiting items graduate when they have paid for it, history keeps its order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.tiers import (
    TIERS,
    ItemState,
    TierPolicy,
    TrackedItem,
    TrackerState,
    TrackerUpdate,
    content_hash,
    track,
)
from agentprompt.tiers._settle import REWRITE_PREMIUM

SETTLE = TierPolicy(rule="settle")


def item(key: str, text: str = "x", tokens: int = 10, kind: str = "file") -> TrackedItem:
    return TrackedItem(key=key, kind=kind, text=text, tokens=tokens)  # type: ignore[arg-type]


def history(i: int, tokens: int = 10) -> TrackedItem:
    return item(f"history:{i}", f"user\nmessage {i}", tokens, kind="history")


def placed(state: TrackerState) -> dict[str, str]:
    return {i.key: i.tier for i in state.items}


def stored(*rows: tuple[str, str, int, str], requests: int = 20) -> TrackerState:
    """A settle state from (key, tier, N, kind) rows, each item's text "x", 10 tokens."""
    return TrackerState(
        items=tuple(
            ItemState(key=k, kind=kind, hash=content_hash("x"), n=n, tier=t, tokens=10)  # type: ignore[arg-type]
            for k, t, n, kind in rows
        ),
        requests=requests,
        rule="settle",
    )


def test_the_settle_policy_records_its_rule() -> None:
    update = track(TrackerState(), [item("file:a.py")], SETTLE)
    assert update.state.rule == "settle"


def test_the_first_request_puts_map_and_history_in_l1_and_files_lower() -> None:
    items = [
        item("symbols:m.py", kind="symbols"),
        item("file:a.py", tokens=500),
        item("file:b.py", tokens=500),
        history(0),
    ]
    update = track(TrackerState(), items, SETTLE)
    tiers = placed(update.state)
    assert tiers["symbols:m.py"] == "L1" and tiers["history:0"] == "L1"
    assert {tiers["file:a.py"], tiers["file:b.py"]} <= {"L2", "L3"}
    assert "L0" not in tiers.values() and "active" not in tiers.values()
    assert {c.reason for c in update.changes} == {"distributed"}


def test_an_unchanged_request_moves_nothing_and_counts_up() -> None:
    items = [item("symbols:m.py", kind="symbols"), item("file:a.py"), history(0)]
    first = track(TrackerState(), items, SETTLE).state
    second = track(first, items, SETTLE)
    assert second.changes == ()
    assert placed(second.state) == placed(first)
    assert all(i.n == 1 for i in second.state.items)


def test_a_changed_file_is_rewritten_into_l3_and_tiers_above_stay() -> None:
    before = stored(
        ("symbols:m.py", "L1", 9, "symbols"),
        ("file:a.py", "L2", 9, "file"),
        ("file:b.py", "L3", 9, "file"),
    )
    items = [item("symbols:m.py", kind="symbols"), item("file:a.py", "edited"), item("file:b.py")]
    update = track(before, items, SETTLE)
    tiers = placed(update.state)
    assert tiers["symbols:m.py"] == "L1" and tiers["file:a.py"] == "L3"
    change = next(c for c in update.changes if c.key == "file:a.py")
    assert (change.before, change.after, change.reason) == ("L2", "L3", "demoted")
    assert update.state.get("file:a.py").n == 0  # type: ignore[union-attr]
    assert all(c.key != "symbols:m.py" for c in update.changes)


def test_a_file_changed_twice_in_a_row_waits_in_active() -> None:
    before = stored(("symbols:m.py", "L1", 9, "symbols"), ("file:a.py", "L3", 0, "file"))
    update = track(
        before, [item("symbols:m.py", kind="symbols"), item("file:a.py", "again")], SETTLE
    )
    assert placed(update.state)["file:a.py"] == "active"


def test_new_history_waits_in_active_until_its_rent_pays_for_rewriting_l3() -> None:
    """History costs tokens × requests waited while uncached; once that reaches 1.15 × L3's
    tokens, L3 is rewritten with it."""
    l3_tokens = 100
    state = TrackerState(
        items=(
            ItemState(
                key="file:a.py",
                kind="file",
                hash=content_hash("x"),
                n=9,
                tier="L3",
                tokens=l3_tokens,
            ),
        ),
        requests=10,
        rule="settle",
    )
    messages: list[TrackedItem] = []
    waited = 0
    for i in range(10):
        messages.append(history(i, tokens=10))
        update = track(state, [item("file:a.py", tokens=l3_tokens), *messages], SETTLE)
        state = update.state
        rent = sum(10 * (i - j + 1) for j in range(i + 1))
        if rent < REWRITE_PREMIUM * l3_tokens:
            assert placed(state)[f"history:{i}"] == "active"
            waited += 1
        else:
            assert {placed(state)[m.key] for m in messages} == {"L3"}
            assert all(c.reason == "graduated" for c in update.changes)
            break
    assert waited >= 3


def test_history_rides_a_rewrite_to_its_top() -> None:
    before = stored(
        ("symbols:m.py", "L1", 9, "symbols"),
        ("file:a.py", "L2", 9, "file"),
        ("file:b.py", "L3", 9, "file"),
        ("history:0", "active", 0, "history"),
    )
    items = [
        item("symbols:m.py", kind="symbols"),
        item("file:a.py", "edited"),
        item("file:b.py"),
        item("history:0", kind="history"),
    ]
    assert placed(track(before, items, SETTLE).state)["history:0"] == "L2"


def test_a_removed_item_breaks_its_tier_only() -> None:
    before = stored(
        ("symbols:m.py", "L1", 9, "symbols"),
        ("symbols:n.py", "L1", 9, "symbols"),
        ("file:a.py", "L3", 9, "file"),
        ("history:0", "active", 0, "history"),
    )
    update = track(
        before,
        [
            item("symbols:m.py", kind="symbols"),
            item("file:a.py"),
            item("history:0", kind="history"),
        ],
        SETTLE,
    )
    assert any(c.key == "symbols:n.py" and c.reason == "removed" for c in update.changes)
    assert placed(update.state)["history:0"] == "L1"  # L1 was rewritten: history rides it


def test_history_out_of_order_in_a_foreign_state_is_repaired() -> None:
    """A later message in a more stable tier than an earlier one drops to active (its tier
    breaks), so the conversation is never sent out of order."""
    before = stored(
        ("history:0", "L3", 9, "history"),
        ("history:1", "L1", 9, "history"),
        requests=5,
    )
    update = track(
        before, [item("history:0", kind="history"), item("history:1", kind="history")], SETTLE
    )
    tiers = placed(update.state)
    assert TIERS.index(tiers["history:0"]) <= TIERS.index(tiers["history:1"])  # type: ignore[arg-type]


def test_switching_rules_warns_and_places_afresh() -> None:
    items = [item("symbols:m.py", kind="symbols"), item("file:a.py")]
    settled = track(TrackerState(), items, SETTLE).state
    update = track(settled, items, TierPolicy(rule="threshold"))
    assert (
        update.warnings and "'settle'" in update.warnings[0] and "'threshold'" in update.warnings[0]
    )
    assert update.state.rule == "threshold" and update.state.requests == 1
    assert track(update.state, items, TierPolicy(rule="threshold")).warnings == ()


def test_history_lifts_out_of_a_tier_rewritten_often_once_it_has_paid() -> None:
    """History in L3 beside a file edited at every other request is rewritten with it; once
    those rewrites add up to the tokens of L2, a rewrite reaches L2 and takes the history up."""
    state = track(
        TrackerState(),
        [item("symbols:m.py", tokens=50, kind="symbols"), item("file:a.py", tokens=50)],
        SETTLE,
    ).state
    tiers_seen: list[str] = []
    messages: list[TrackedItem] = []
    for turn in range(1, 30):
        messages.append(history(turn, tokens=40))
        text = f"v{turn // 2}"  # changes at every other request
        items = [
            item("symbols:m.py", tokens=50, kind="symbols"),
            item("file:a.py", text, 50),
            *messages,
        ]
        state = track(state, items, SETTLE).state
        tiers_seen.append(placed(state)["history:1"])
    assert "L3" in tiers_seen
    assert tiers_seen[-1] in ("L1", "L2")


KINDS = st.sampled_from(["file", "symbols"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.integers(0, 5), max_size=3),  # which items change
            st.lists(st.integers(0, 5), max_size=2),  # which items are left out
            st.integers(0, 2),  # new history messages
        ),
        min_size=1,
        max_size=12,
    )
)
def test_settle_invariants_hold_over_any_session(
    steps: list[tuple[list[int], list[int], int]],
) -> None:
    """Whatever changes, leaves or arrives: every item is placed once, history never goes
    before an earlier message, the rule fills nothing into L0, and the same request again,
    with nothing waiting in active, moves nothing."""
    versions = [0] * 6
    messages = 0
    state = TrackerState()
    for changed, left_out, new_messages in steps:
        for i in changed:
            versions[i] += 1
        messages += new_messages
        items = [
            item(
                f"{'symbols' if i < 3 else 'file'}:{i}",
                f"v{versions[i]}",
                10 * (i + 1),
                kind="symbols" if i < 3 else "file",
            )
            for i in range(6)
            if i not in left_out
        ]
        items += [history(j) for j in range(messages)]
        before = state
        update: TrackerUpdate = track(before, items, SETTLE)
        state = update.state
        assert [i.key for i in state.items] == [i.key for i in items]
        tiers = [TIERS.index(i.tier) for i in state.items if i.kind == "history"]
        assert tiers == sorted(tiers)
        assert all(i.tier != "L0" for i in state.items)
        if not any(i.tier == "active" for i in state.items):
            again = track(state, items, SETTLE)
            assert again.changes == ()
            assert [i.tier for i in again.state.items] == [i.tier for i in state.items]
