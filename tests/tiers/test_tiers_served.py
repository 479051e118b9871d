"""What a provider's cache serves of a request, block by block, and what the request costs."""

from __future__ import annotations

from agentprompt.composition import assemble
from agentprompt.sections import Section, Stability
from agentprompt.tiers import (
    ServedTally,
    TierContext,
    TrackedItem,
    TrackerState,
    assemble_tiers,
    cache_json,
    cache_use,
    track,
)
from agentprompt.tiers.served import READ_PRICE, WRITE_PRICE


def context(text_a: str = "alpha " * 50, user: str = "go") -> TierContext:
    items = (
        TrackedItem(key="symbols:m.py", kind="symbols", text="m.py\n f run:1", tokens=5),
        TrackedItem(key="file:a.py", kind="file", text=f"a.py\n```\n{text_a}\n```", tokens=60),
    )
    return TierContext(system="You help.", legend="legend", items=items, user=user)


def test_a_first_request_writes_every_block_and_reads_none() -> None:
    ctx = context()
    comp = assemble_tiers(ctx, track(TrackerState(), ctx.items).state).composition
    use = cache_use(comp, set())
    assert use.served == 0 and use.written > 0
    assert {b.status for b in use.blocks} == {"rewritten"}
    tiers = {i.tier for i in track(TrackerState(), ctx.items).state.items}
    assert [b.tier for b in use.blocks] == sorted({"L0", *tiers})
    assert use.total == comp.total_tokens
    assert use.cost == WRITE_PRICE * use.written + use.uncached


def test_the_same_request_again_reads_every_block() -> None:
    ctx = context()
    state = track(TrackerState(), ctx.items).state
    first = cache_use(assemble_tiers(ctx, state).composition, set())
    again = cache_use(assemble_tiers(ctx, state).composition, set(first.keys))
    assert {b.status for b in again.blocks} == {"reused"}
    assert again.written == 0 and again.served == first.served + first.written
    assert again.cost == READ_PRICE * again.served + again.uncached


def test_a_changed_block_and_those_after_it_are_rewritten() -> None:
    ctx = context()
    state = track(track(TrackerState(), ctx.items).state, ctx.items).state
    first = cache_use(assemble_tiers(ctx, state).composition, set())
    changed = context(text_a="beta " * 50)
    update = track(state, changed.items)
    use = cache_use(assemble_tiers(changed, update.state).composition, set(first.keys))
    statuses = [b.status for b in use.blocks]
    assert statuses[0] == "reused" and statuses[-1] == "rewritten"
    assert statuses == sorted(statuses, key=lambda s: s == "rewritten")  # no reuse after a rewrite
    assert use.served == sum(b.tokens for b in use.blocks if b.status == "reused")


def test_untiered_breakpoints_are_named_cache() -> None:
    comp = assemble(
        [
            Section(id="s", role="system", text="Static. " * 40, stability=Stability.STATIC),
            Section(id="u", role="user", text="hi", stability=Stability.TURN),
        ]
    )
    use = cache_use(comp, set())
    assert use.blocks and {b.tier for b in use.blocks} == {"cache"}


def test_the_running_tally_sums_requests_and_gives_the_share() -> None:
    ctx = context()
    state = track(TrackerState(), ctx.items).state
    comp = assemble_tiers(ctx, state).composition
    first = cache_use(comp, set())
    second = cache_use(comp, set(first.keys))
    tally = ServedTally().add(first).add(second)
    assert tally.requests == 2 and tally.total == first.total + second.total
    assert tally.share == second.served / (first.total + second.total)
    data = cache_json(second, tally)
    assert data["running"]["requests"] == 2 and data["blocks"][0]["status"] == "reused"
    assert ServedTally().share == 0.0
