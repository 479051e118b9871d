"""The steady map (deferred rule): a map entry keeps its cached text while its file is
unchanged and not in the context, the entries a new ranking adds wait, and the map is
re-ranked when the tier holding it is rewritten anyway."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentprompt.store import Store
from agentprompt.tiers import (
    TierContext,
    TierPolicy,
    TrackedItem,
    TrackerState,
    cache_use,
    open_tracker,
    repository_context,
    save_tracker,
    tiered_request,
)
from agentprompt.tiers._items import file_text
from agentprompt.tiers._request import TieredRequest
from agentprompt.tiers.steady import _map_tier, steady_context
from agentprompt.tiers.tracker import ItemState


def entry(path: str, text: str, source: str = "v1") -> TrackedItem:
    body = f"{path}:\n{text}"
    return TrackedItem(
        key=f"symbols:{path}", kind="symbols", text=body, tokens=len(body) // 4, source=source
    )


def file(path: str, lines: int = 60) -> TrackedItem:
    text = file_text(path, "".join(f"line {i} of {path}\n" for i in range(lines)))
    return TrackedItem(key=f"file:{path}", kind="file", text=text, tokens=len(text) // 4)


def context(items: Sequence[TrackedItem], sources: dict[str, str]) -> TierContext:
    return TierContext(
        system="You are a helper.", legend="# f function", items=tuple(items), sources=sources
    )


def request(items: Sequence[TrackedItem], state: TrackerState, **sources: str) -> TieredRequest:
    """One request; ``sources`` are the map's files' content hashes by name (``m="v1"`` for
    ``m.py``), m.py to p.py and every entry of ``items`` as it says unless given."""
    known = {f"{name}.py": "v1" for name in "mnop"}
    known.update({i.key.split(":", 1)[1]: i.source for i in items if i.kind == "symbols"})
    known.update({f"{name}.py": value for name, value in sources.items()})
    return tiered_request(context(items, known), state)


def map_sections(req: TieredRequest) -> dict[str, str]:
    """The map entries the request shows, by key, wherever they are."""
    return {
        p.id.split("/", 1)[1]: p.text
        for p in req.prompt.parts
        if p.id.split("/", 1)[1].startswith("symbols:")
    }


def notes(req: TieredRequest) -> list[str]:
    return [p.id for p in req.prompt.parts if p.id.startswith("active/changes/")]


MAP = [entry("m.py", "f run:1\nf stop:9"), entry("n.py", "f go:2"), entry("o.py", "f do:3")]


def test_a_reranked_entry_of_an_unchanged_file_is_sent_as_cached() -> None:
    first = request([*MAP, file("a.py")], TrackerState())
    cached = cache_use(first.prompt.composition, ()).keys
    # A file joins the context: the ranking now shows less of m.py and drops o.py for p.py.
    reranked = [entry("m.py", "f run:1"), MAP[1], entry("p.py", "f new:4")]
    second = request([*reranked, file("a.py"), file("b.py")], first.update.state)
    shown = map_sections(second)
    assert shown == map_sections(first)
    assert notes(second) == []
    use = cache_use(second.prompt.composition, cached)
    assert [b.status for b in use.blocks if b.tier in ("L0", "L1")] == ["reused", "reused"]


def test_an_entry_whose_file_changed_is_the_new_one_with_its_diff_in_active() -> None:
    first = request([*MAP, file("a.py")], TrackerState())
    changed = [entry("m.py", "f run:1\nf halt:9", source="v2"), MAP[1], MAP[2]]
    second = request([*changed, file("a.py")], first.update.state)
    assert map_sections(second)["symbols:m.py"] == MAP[0].text  # the cached copy
    assert notes(second) == ["active/changes/symbols:m.py"]
    assert second.update.state.get("symbols:m.py").copy_state == "changed"  # type: ignore[union-attr]


def test_an_entry_the_ranking_drops_is_gone_once_its_file_changes() -> None:
    first = request([*MAP, file("a.py")], TrackerState())
    second = request([MAP[0], MAP[1], file("a.py")], first.update.state, o="v2")
    assert notes(second) == ["active/changes/symbols:o.py"]


def test_a_file_that_joins_the_context_leaves_the_map_and_the_map_is_reranked() -> None:
    first = request([*MAP, file("a.py")], TrackerState())
    # n.py is opened: its entry must leave L1, which is rewritten, so the map is the
    # ranking's of now (m.py shown shorter, p.py in).
    now = [entry("m.py", "f run:1"), MAP[2], entry("p.py", "f new:4")]
    second = request([*now, file("a.py"), file("n.py")], first.update.state)
    assert second.update.rewrite_from == "L1"
    assert map_sections(second) == {i.key: i.text for i in now}
    assert second.update.state.get("symbols:n.py") is None


def test_a_file_that_leaves_the_context_waits_for_the_next_rerank() -> None:
    first = request([*MAP, file("a.py"), file("b.py")], TrackerState())
    second = request([*MAP, entry("b.py", "f back:5"), file("a.py")], first.update.state)
    assert "symbols:b.py" not in map_sections(second)


def test_without_sources_the_map_is_taken_as_given() -> None:
    items = [*MAP, file("a.py")]
    state = tiered_request(context(items, {}), TrackerState()).update.state
    now = [entry("m.py", "f run:1"), MAP[1], MAP[2], file("a.py")]
    assert steady_context(state, context(now, {})) == context(now, {})


def test_other_rules_take_the_map_as_given() -> None:
    settle = TierPolicy(rule="settle")
    items = [*MAP, file("a.py")]
    sources = {"m.py": "v1", "n.py": "v1", "o.py": "v1"}
    state = tiered_request(context(items, sources), TrackerState(), policy=settle).update.state
    now = context([entry("m.py", "f run:1"), MAP[1], file("a.py")], sources)
    second = tiered_request(now, state, policy=settle)
    assert map_sections(second) == {i.key: i.text for i in now.items if i.kind == "symbols"}


def test_the_copys_source_round_trips_through_the_store(tmp_path: Path) -> None:
    state = request([*MAP, file("a.py")], TrackerState()).update.state
    assert state.get("symbols:m.py").source == "v1"  # type: ignore[union-attr]
    with Store(tmp_path / "s.db") as store:
        save_tracker(store, state, ())
        stored = open_tracker(store)
    assert stored.warnings == () and stored.state == state


def test_a_damaged_source_warns_and_places_afresh(tmp_path: Path) -> None:
    item = {"key": "symbols:m.py", "kind": "symbols", "hash": "h", "n": 1, "tier": "L1"}
    with Store(tmp_path / "s.db") as store:
        store.create_session("tiers", {"items": [{**item, "tokens": 5, "source": 7}]})
        stored = open_tracker(store)
    assert stored.state == TrackerState() and len(stored.warnings) == 1


def test_a_repository_context_gives_each_map_file_its_content_hash(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def run():\n    return 1\n")
    (tmp_path / "b.py").write_text("from a import run\n\ndef go():\n    return run()\n")
    made = repository_context(tmp_path, files=["b.py"], use_cache=False)
    assert set(made.sources) == {"a.py"}
    [mapped] = [i for i in made.items if i.kind == "symbols"]
    assert mapped.source == made.sources["a.py"] != ""
    (tmp_path / "a.py").write_text("def run():\n    return 2\n")
    again = repository_context(tmp_path, files=["b.py"], use_cache=False)
    assert again.sources["a.py"] != made.sources["a.py"]


def test_the_map_tier_is_the_most_stable_cached_tier_holding_an_entry() -> None:
    def state(key: str, kind: str, tier: str) -> ItemState:
        return ItemState(key=key, kind=kind, hash="h", n=1, tier=tier, tokens=10)  # type: ignore[arg-type]

    def tier_of(*states: ItemState) -> int | None:
        return _map_tier(TrackerState(items=states, requests=1, rule="deferred"))

    file_in_l1 = state("file:a.py", "file", "L1")
    assert tier_of(file_in_l1, state("symbols:b.py", "symbols", "L3")) == 3
    l2_after_l3 = (state("symbols:c.py", "symbols", "L3"), state("symbols:d.py", "symbols", "L2"))
    assert tier_of(*l2_after_l3) == 2
    assert tier_of(*l2_after_l3, state("symbols:e.py", "symbols", "L1")) == 1
    assert tier_of(file_in_l1, state("symbols:f.py", "symbols", "active")) is None
    assert tier_of(state("symbols:g.py", "symbols", "L0")) is None
