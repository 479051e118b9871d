"""The deferred rule: a changed or departed file or map entry keeps its cached copy byte for
byte, the active tier carries what changed, and the copy is rewritten only when carrying the
notes has cost what the rewrite costs. The prompt is never wrong: the cached copy and the
notes give every in-context file's current content exactly."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.store import Store
from agentprompt.tiers import (
    TierContext,
    TierPolicy,
    TrackedItem,
    TrackerState,
    assemble_tiers,
    cache_use,
    get_context_breakdown,
    open_tracker,
    save_tracker,
    tier_parts,
    tiered_request,
    track,
)
from agentprompt.tiers._items import file_content, file_text
from agentprompt.tiers._settle import NOTE_HORIZON, REWRITE_PREMIUM

DEFERRED = TierPolicy(rule="deferred")


def lines(n: int, tag: str = "line") -> str:
    return "".join(f"{tag} {i} of the file\n" for i in range(n))


def file(path: str, content: str, tokens: int | None = None) -> TrackedItem:
    text = file_text(path, content)
    return TrackedItem(key=f"file:{path}", kind="file", text=text, tokens=tokens or len(text) // 4)


def entry(path: str, text: str) -> TrackedItem:
    body = f"{path}:\n{text}"
    return TrackedItem(key=f"symbols:{path}", kind="symbols", text=body, tokens=len(body) // 4)


def context(items: Sequence[TrackedItem]) -> TierContext:
    return TierContext(system="You are a helper.", legend="# f function", items=tuple(items))


def sections(items: Sequence[TrackedItem], state: TrackerState) -> dict[str, str]:
    """Each section of the request by id (``L2/file:a.py``, ``active/changes/file:a.py``)."""
    return {p.id: p.text for p in tier_parts(context(items), state)}


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_strictly(text: str, diff: str) -> str:
    """Apply a unified diff by its line numbers, checking every context and removed line."""
    old = text.splitlines(keepends=True)
    out: list[str] = []
    at = 0
    rows = diff.splitlines(keepends=True)
    assert rows[0].startswith("--- ") and rows[1].startswith("+++ ")
    for row in rows[2:]:
        hunk = _HUNK.match(row)
        if hunk:
            start = int(hunk.group(1)) - (0 if hunk.group(2) == "0" else 1)
            assert start >= at, "hunks overlap or go backwards"
            out.extend(old[at:start])
            at = start
        elif row.startswith("+"):
            out.append(row[1:])
        else:
            assert row[:1] in (" ", "-"), f"not a diff line: {row!r}"
            assert old[at] == row[1:], f"line {at + 1} is {old[at]!r}, the diff says {row!r}"
            if row.startswith(" "):
                out.append(old[at])
            at += 1
    out.extend(old[at:])
    return "".join(out)


def fenced_diff(note: str) -> str:
    """The diff inside a note's ```diff fence."""
    match = re.search(r"^(`{3,})diff\n(.*?)^\1$", note, re.DOTALL | re.MULTILINE)
    assert match, note
    return match.group(2)


def shown(parts: dict[str, str], key: str) -> tuple[str, str | None]:
    """An item's text as a tier shows it, and the note about it in active, if any."""
    [text] = [t for sid, t in parts.items() if sid.split("/", 1)[1] == key]
    return text, parts.get(f"active/changes/{key}")


def reconstruct(parts: dict[str, str], key: str) -> str:
    """An item's current text as a model reads it from the prompt: the copy a tier holds,
    with the note's diff applied when there is one."""
    text, note = shown(parts, key)
    if note is None:
        return file_content(text) if key.startswith("file:") else text
    assert "changes since the copy above" in note
    if key.startswith("file:"):
        return apply_strictly(file_content(text), fenced_diff(note))
    return apply_strictly(text + "\n", fenced_diff(note)).removesuffix("\n")


def test_the_default_policy_is_deferred() -> None:
    assert TierPolicy().rule == "deferred"
    assert track(TrackerState(), [file("a.py", lines(3))]).state.rule == "deferred"


def test_an_entry_that_leaves_keeps_its_place_so_its_tier_is_sent_as_before() -> None:
    items = [entry("m.py", "f run:1"), entry("n.py", "f go:2"), entry("o.py", "f do:3")]
    items.append(file("a.py", lines(60)))
    first = track(TrackerState(), items, DEFERRED)
    cached = cache_use(assemble_tiers(context(items), first.state).composition, ()).keys
    left = [items[0], items[2], items[3]]
    update = track(first.state, left, DEFERRED)
    use = cache_use(assemble_tiers(context(left), update.state).composition, cached)
    assert use.written == 0 and {b.status for b in use.blocks} == {"reused"}
    assert "active/changes/symbols:n.py" in sections(left, update.state)


def test_a_changed_file_keeps_its_cached_block_and_active_carries_the_diff() -> None:
    items = [entry("m.py", "f run:1"), file("a.py", lines(60)), file("b.py", lines(40))]
    first = track(TrackerState(), items, DEFERRED)
    before = assemble_tiers(context(items), first.state)
    cached = cache_use(before.composition, ()).keys
    items[1] = file("a.py", lines(60).replace("line 7 of", "line seven of"))
    update = track(first.state, items, DEFERRED)
    after = assemble_tiers(context(items), update.state)
    use = cache_use(after.composition, cached)
    assert {b.status for b in use.blocks} == {"reused"} and use.written == 0
    parts = sections(items, update.state)
    _, note = shown(parts, "file:a.py")
    assert note is not None and "-line 7 of the file" in note and "+line seven of the file" in note
    assert reconstruct(parts, "file:a.py") == lines(60).replace("line 7 of", "line seven of")
    assert update.state.get("file:a.py").copy_state == "changed"  # type: ignore[union-attr]


def test_notes_are_consolidated_once_carrying_them_has_cost_the_rewrite() -> None:
    items = [entry("m.py", "f run:1"), file("a.py", lines(60)), file("b.py", lines(40))]
    state = track(TrackerState(), items, DEFERRED).state
    items[2] = file("b.py", lines(40).replace("line 3 of", "line three of"))
    requests = 0
    while True:
        requests += 1
        previous = state
        state = track(state, items, DEFERRED).state
        got = state.get("file:b.py")
        assert got is not None
        if got.copy_state == "current":
            break
        assert requests < 50
    old = previous.get("file:b.py")
    assert old is not None and old.copy_state == "changed"
    # Rewriting b.py's tier rewrites it and the cached tiers after it.
    after = ("L1", "L2", "L3")[("L1", "L2", "L3").index(old.tier) :]
    held = sum(s.tokens for s in previous.items if s.tier in after)
    # It waited while the notes cost less than the rewrite, and not a request longer.
    assert old.carried < REWRITE_PREMIUM * held
    assert requests > 1
    parts = sections(items, state)
    assert not any(sid.startswith("active/changes/") for sid in parts)
    assert file_content(shown(parts, "file:b.py")[0]) == file_content(items[2].text)


def test_a_change_as_long_as_the_file_rewrites_it_at_once() -> None:
    items = [entry("m.py", "f run:1"), file("a.py", lines(60)), file("b.py", lines(40))]
    state = track(track(TrackerState(), items, DEFERRED).state, items, DEFERRED).state
    items[2] = file("b.py", lines(40, "other"))
    update = track(state, items, DEFERRED)
    got = update.state.get("file:b.py")
    assert got is not None and got.copy_state == "current" and got.copy == items[2].text
    assert got.tier in ("L1", "L2", "L3")
    assert not any(s.startswith("active/changes/") for s in sections(items, update.state))


def test_a_file_that_leaves_the_context_is_stated_gone_and_its_tier_kept() -> None:
    items = [entry("m.py", "f run:1"), file("a.py", lines(60)), file("b.py", lines(40))]
    first = track(TrackerState(), items, DEFERRED)
    before = assemble_tiers(context(items), first.state)
    cached = cache_use(before.composition, ()).keys
    left = items[:2]
    update = track(first.state, left, DEFERRED)
    use = cache_use(assemble_tiers(context(left), update.state).composition, cached)
    assert use.written == 0
    parts = sections(left, update.state)
    note = parts["active/changes/file:b.py"]
    assert "b.py" in note and "no longer in the context" in note
    assert [c.reason for c in update.changes] == ["removed"]
    # It is reported removed once, not again while its copy stays.
    assert track(update.state, left, DEFERRED).changes == ()


def test_a_file_that_comes_back_unchanged_needs_no_note() -> None:
    items = [entry("m.py", "f run:1"), file("a.py", lines(60)), file("b.py", lines(40))]
    state = track(TrackerState(), items, DEFERRED).state
    state = track(state, items[:2], DEFERRED).state
    state = track(state, items, DEFERRED).state
    assert state.get("file:b.py").copy_state == "current"  # type: ignore[union-attr]
    assert not any(s.startswith("active/changes/") for s in sections(items, state))


def test_a_map_entry_of_a_file_now_in_context_is_not_kept() -> None:
    """A file in full in the context has no map entry in any tier: the entry's tier is
    rewritten without it rather than kept with a note."""
    items = [entry("m.py", "f run:1"), entry("n.py", "f go:2"), file("a.py", lines(60))]
    state = track(TrackerState(), items, DEFERRED).state
    opened = [items[1], items[2], file("m.py", "def run():\n    pass\n")]
    update = track(state, opened, DEFERRED)
    assert update.state.get("symbols:m.py") is None
    assert not any("symbols:m.py" in sid for sid in sections(opened, update.state))


def test_a_changed_map_entry_is_carried_as_a_diff_and_a_dropped_one_as_gone() -> None:
    items = [entry("m.py", "f run:1\nf stop:9"), entry("n.py", "f go:2"), file("a.py", lines(300))]
    state = track(TrackerState(), items, DEFERRED).state
    changed = [entry("m.py", "f run:1\nf halt:9"), items[2]]
    update = track(state, changed, DEFERRED)
    parts = sections(changed, update.state)
    assert reconstruct(parts, "symbols:m.py") == changed[0].text
    assert "n.py" in parts["active/changes/symbols:n.py"]
    assert "no longer applies" in parts["active/changes/symbols:n.py"]


def test_switching_from_deferred_to_settle_warns_and_drops_the_copies() -> None:
    items = [entry("m.py", "f run:1"), file("a.py", lines(60))]
    state = track(TrackerState(), items, DEFERRED).state
    items[1] = file("a.py", lines(60).replace("line 2 of", "line two of"))
    state = track(state, items, DEFERRED).state
    assert state.get("file:a.py").copy_state == "changed"  # type: ignore[union-attr]
    update = track(state, items, TierPolicy(rule="settle"))
    assert update.warnings and "'deferred'" in update.warnings[0]
    assert all(s.copy is None and s.copy_state == "current" for s in update.state.items)
    assert not any(s.startswith("active/changes/") for s in sections(items, update.state))


def test_the_breakdown_shows_the_tokens_carried_as_changes() -> None:
    items = [entry("m.py", "f run:1"), file("a.py", lines(60)), file("b.py", lines(40))]
    state = track(TrackerState(), items, DEFERRED).state
    assert get_context_breakdown(assemble_tiers(context(items), state)).carried == 0
    items[1] = file("a.py", lines(60).replace("line 9 of", "line nine of"))
    state = track(state, items, DEFERRED).state
    breakdown = get_context_breakdown(assemble_tiers(context(items), state))
    notes = [i for i in breakdown.tier("active").items if i.kind == "changes"]
    assert [i.key for i in notes] == ["changes:file:a.py"]
    assert breakdown.carried == notes[0].tokens > 0


def test_a_deferred_state_round_trips_through_the_store(tmp_path: Path) -> None:
    items = [entry("m.py", "f run:1"), file("a.py", lines(60)), file("b.py", lines(40))]
    state = track(TrackerState(), items, DEFERRED).state
    items[1] = file("a.py", lines(60).replace("line 9 of", "line nine of"))
    update = track(state, items[:2], DEFERRED)
    with Store(tmp_path / "s.db") as store:
        save_tracker(store, update.state, update.changes)
        stored = open_tracker(store)
    assert stored.warnings == () and stored.state == update.state
    assert {s.copy_state for s in stored.state.items} == {"current", "changed", "gone"}


def test_a_stored_note_without_its_copy_warns_and_places_afresh(tmp_path: Path) -> None:
    item = {"key": "file:a.py", "kind": "file", "hash": "h", "n": 1, "tier": "L3", "tokens": 5}
    with Store(tmp_path / "s.db") as store:
        store.create_session("tiers", {"items": [{**item, "copy_state": "changed"}]})
        stored = open_tracker(store)
    assert stored.state == TrackerState()
    assert len(stored.warnings) == 1 and "no cached copy" in stored.warnings[0]


# A session of random edits: each step edits a file (replace, insert or delete lines),
# drops a file from the context, brings one back, or changes or drops a map entry.
_STEP = st.tuples(
    st.sampled_from(["edit", "edit", "edit", "drop", "return", "entry", "unmap"]),
    st.integers(0, 2),
    st.integers(0, 200),
    st.integers(0, 3),
    st.integers(0, 4),
)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(_STEP, min_size=1, max_size=25))
def test_copy_and_notes_give_every_item_exactly_over_any_session(
    steps: list[tuple[str, int, int, int, int]],
) -> None:
    paths = ["a.py", "b.py", "c.py"]
    contents = {p: lines(20 + 15 * i, p) for i, p in enumerate(paths)}
    open_paths = set(paths)
    entries = {"m.py": "f run:1\nf stop:2", "n.py": "c Thing:3\n  m go:4"}
    state = TrackerState()
    for action, which, at, removed, added in [("none", 0, 0, 0, 0), *steps]:
        path = paths[which]
        if action == "edit" and path in open_paths:
            rows = contents[path].splitlines(keepends=True)
            at %= len(rows) + 1
            new = [f"edit {at}.{k} of {path}\n" for k in range(added)]
            rows[at : at + removed] = new
            contents[path] = "".join(rows)
        elif action == "drop":
            open_paths.discard(path)
        elif action == "return":
            open_paths.add(path)
        elif action == "entry":
            entries[("m.py", "n.py")[which % 2]] = f"f run:{at}\nf stop:{removed}"
        elif action == "unmap" and entries:
            entries.pop(sorted(entries)[which % len(entries)])
        items = [
            *(entry(p, t) for p, t in sorted(entries.items())),
            *(file(p, contents[p]) for p in sorted(open_paths)),
        ]
        state = track(state, items, DEFERRED).state
        parts = sections(items, state)
        for item in items:
            want = file_content(item.text) if item.kind == "file" else item.text
            assert reconstruct(parts, item.key) == want
        present = {i.key for i in items}
        for sid in parts:
            tier, key = sid.split("/", 1)
            if key.startswith(("file:", "symbols:")) and key not in present:
                # A copy of an item no longer in the context is in a cached tier and is
                # stated gone.
                assert tier in ("L1", "L2", "L3")
                assert f"active/changes/{key}" in parts
                note = parts[f"active/changes/{key}"]
                assert "no longer" in note and key.split(":", 1)[1] in note


def test_a_changed_legend_stays_in_l0_with_its_changes_in_active() -> None:
    """A notation leaving the map would rewrite every tier through L0; the legend L0 holds
    is kept and the active tier gives the current one exactly."""
    items = [entry("m.py", "f run:1"), file("a.py", lines(60))]
    old = "# f function\n# c class\n# ″=ditto"
    new = "# f function\n# ″=ditto"
    first = tiered_request(
        TierContext(system="S", legend=old, items=tuple(items)), TrackerState(), policy=DEFERRED
    )
    cached = cache_use(first.prompt.composition, ()).keys
    changed = TierContext(system="S", legend=new, items=tuple(items))
    second = tiered_request(changed, first.update.state, policy=DEFERRED)
    assert cache_use(second.prompt.composition, cached).written == 0
    parts = {p.id: p.text for p in second.prompt.parts}
    assert parts["L0/legend"].endswith(old)
    note = parts["active/changes/legend"]
    assert apply_strictly(old + "\n", fenced_diff(note)) == new + "\n"
    assert second.update.state.legend == old and second.update.state.legend_carried > 0
    # Under settle the request's legend is sent, and the cache is rewritten from L0.
    settled = tiered_request(changed, TrackerState(), policy=TierPolicy(rule="settle"))
    assert {p.id: p.text for p in settled.prompt.parts}["L0/legend"].endswith(new)


def test_a_legend_note_is_dropped_once_it_has_cost_rewriting_every_tier() -> None:
    items = [entry("m.py", "f run:1"), file("a.py", lines(8))]
    old, new = "# f function\n# c class", "# f function"
    state = tiered_request(
        TierContext(system="S", legend=old, items=tuple(items)), TrackerState(), policy=DEFERRED
    ).update.state
    changed = TierContext(system="S", legend=new, items=tuple(items))
    for _ in range(200):
        state = tiered_request(changed, state, policy=DEFERRED).update.state
        if state.legend == new:
            break
    assert state.legend == new and state.legend_carried == 0


def test_notes_as_large_as_their_tier_rewrite_it_at_once() -> None:
    """A re-ranked map changes most entries: notes that would pay for the rewrite within
    NOTE_HORIZON requests are not carried at all; a small change is."""
    names = [f"m{i}.py" for i in range(6)]
    rows = "\n".join(f"f fn{k}:{k}" for k in range(8))
    items = [entry(n, rows) for n in names] + [file("a.py", lines(30))]
    state = track(track(TrackerState(), items, DEFERRED).state, items, DEFERRED).state
    small = [entry(names[0], rows.replace("fn3", "fn_three")), *items[1:]]
    kept = track(state, small, DEFERRED).state
    assert kept.get(f"symbols:{names[0]}").copy_state == "changed"  # type: ignore[union-attr]
    reranked = [entry(n, rows.replace("fn", "g")) for n in names] + [items[-1]]
    update = track(state, reranked, DEFERRED)
    assert {s.copy_state for s in update.state.items} == {"current"}
    assert all(s.copy == i.text for s, i in zip(update.state.items, reranked, strict=True))
    assert NOTE_HORIZON > 1


def test_the_prompt_gives_each_file_on_disk_over_random_edits(tmp_path: Path) -> None:
    """A repository edited on disk request after request: from the prompt alone (cached
    copies and the notes in active) every file in context reads exactly as on disk."""
    import random

    from agentprompt.tiers import repository_context

    rng = random.Random(7)
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    paths = [f"pkg/mod{i}.py" for i in range(4)]
    for i, path in enumerate(paths):
        body = "".join(f"def f{i}_{k}(x):\n    return x + {k}\n\n" for k in range(30))
        (root / path).write_text(body)
    state = TrackerState()
    in_context = paths[:3]
    carried = 0
    for turn in range(14):
        if turn == 6:
            in_context = [paths[0], paths[1], paths[3]]
        context = repository_context(root, files=in_context, map_tokens=512)
        request = tiered_request(context, state, root=root, policy=DEFERRED)
        state = request.update.state
        parts = {p.id: p.text for p in request.prompt.parts}
        carried += sum(1 for sid in parts if sid.startswith("active/changes/file:"))
        for path in in_context:
            assert reconstruct(parts, f"file:{path}") == (root / path).read_text()
        path = rng.choice(in_context)
        rows = (root / path).read_text().splitlines(keepends=True)
        at = rng.randrange(len(rows))
        rows[at : at + rng.randint(0, 2)] = [f"    # turn {turn}\n"] * rng.randint(0, 2)
        (root / path).write_text("".join(rows))
    assert carried > 0  # the notes were exercised, not only rewrites
