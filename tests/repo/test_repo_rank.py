"""Ranking: the reference graph, personalised PageRank, and what a task text points at."""

from __future__ import annotations

import pytest

from agentprompt.repo.rank._summary import (
    MAX_LINKS,
    RankSummary,
    build_graph,
    definers_of,
    pagerank,
    personalization,
    strongest_links,
    summarize,
    task_mentions,
)
from agentprompt.repo.rank._update import (
    FileNames,
    GraphState,
    definers_entry,
    state_from_graph,
    update_state,
)

# core.py defines what everyone uses; util.py is used by core.py only; app.py and cli.py
# use core.py; lonely.py neither defines anything used nor uses anything.
DEFS = {
    "core.py": ["Engine", "run_engine"],
    "util.py": ["slugify"],
    "app.py": ["create_app"],
    "cli.py": ["main"],
    "lonely.py": ["unused_helper"],
}
REFS = {
    "core.py": ["Engine", "run_engine", "slugify"],
    "util.py": ["slugify"],
    "app.py": ["create_app", "Engine"],
    "cli.py": ["main", "run_engine", "create_app", "Engine"],
    "lonely.py": ["unused_helper"],
}


def test_graph_links_a_file_to_the_files_defining_what_it_uses() -> None:
    graph = build_graph(DEFS, REFS)
    assert set(graph.edges["cli.py"]) == {"core.py", "app.py"}
    assert set(graph.edges["core.py"]) == {"util.py"}
    assert "lonely.py" not in graph.edges
    assert graph.referrers["core.py"] == 2


def test_pagerank_orders_a_small_graph_as_expected() -> None:
    ranks = pagerank(build_graph(DEFS, REFS))
    order = sorted(ranks, key=lambda p: -ranks[p])
    assert order == ["util.py", "core.py", "app.py", "cli.py", "lonely.py"]
    assert sum(ranks.values()) == pytest.approx(1.0)


def test_personalization_pulls_rank_toward_focus_files() -> None:
    graph = build_graph(DEFS, REFS)
    plain = pagerank(graph)
    focused = pagerank(graph, personalization(graph.nodes, focus=["lonely.py"]))
    assert focused["lonely.py"] > plain["lonely.py"]
    assert max(focused, key=lambda p: focused[p]) == "lonely.py"


def test_files_named_in_a_task_match_by_path_suffix() -> None:
    nodes = ["src/pkg/utils.ts", "src/pkg/index.ts", "docs/utils.md"]
    weights = personalization(nodes, named_paths=["utils.ts"])
    assert weights == {"src/pkg/utils.ts": 1.0}


def test_mentioned_identifiers_lean_toward_their_definers() -> None:
    definers = definers_of(["slugify", "nothing"], DEFS)
    assert definers == {"slugify": ("util.py",)}
    weights = personalization(DEFS, mentioned=["slugify"], definers=definers)
    assert weights == {"util.py": 1.0}


def test_task_text_yields_paths_and_identifiers() -> None:
    paths, words = task_mentions("Fix parse_date in src/utils/dates.py and the README.md")
    assert "src/utils/dates.py" in paths
    assert "README.md" in paths
    assert "parse_date" in words


def test_mentioned_identifiers_strengthen_links() -> None:
    plain = build_graph(DEFS, REFS)
    boosted = build_graph(DEFS, REFS, mentioned=["create_app"])
    assert boosted.edges["cli.py"]["app.py"] > plain.edges["cli.py"]["app.py"]


def test_names_defined_in_too_many_files_do_not_link() -> None:
    defs = {f"m{i}.py": ["get"] for i in range(10)}
    refs = {"user.py": ["get"], **{p: [] for p in defs}}
    graph = build_graph(defs, refs)
    assert "user.py" not in graph.edges


def test_member_names_link_more_weakly_than_module_names() -> None:
    graph = build_graph(
        {"a.py": ["Thing"], "b.py": []},
        {"c.py": ["Thing", "refresh"]},
        members={"b.py": ["refresh"]},
    )
    assert graph.edges["c.py"]["a.py"] > graph.edges["c.py"]["b.py"]
    assert graph.referrers.get("b.py", 0) == 0


def test_rank_summary_survives_a_json_round_trip() -> None:
    graph = build_graph(DEFS, REFS)
    summary = summarize(graph, pagerank(graph))
    again = RankSummary.from_json(summary.to_json())
    assert again == summary
    assert again.other_users["Engine"] == 2


def test_an_empty_graph_has_no_ranks() -> None:
    assert pagerank(build_graph({}, {})) == {}


def test_a_mentioned_word_matches_files_named_after_it() -> None:
    nodes = ["src/repo/cache.py", "src/repo/rank.py", "docs/cache.md", "src/map.py"]
    weights = personalization(nodes, mentioned=["cache", "map"])
    assert weights == {"src/repo/cache.py": 0.5, "docs/cache.md": 0.5}


def _scratch(
    defs: dict[str, list[str]], refs: dict[str, list[str]], members: dict[str, list[str]]
) -> tuple[dict[str, float], RankSummary, dict[str, dict[str, float]]]:
    graph = build_graph(defs, refs, (), members)
    ranks = pagerank(graph)
    return ranks, summarize(graph, ranks), {s: dict(o) for s, o in graph.edges.items()}


def test_an_updated_graph_ranks_as_one_built_from_scratch() -> None:
    defs = {p: list(n) for p, n in DEFS.items()}
    refs = {p: list(n) for p, n in REFS.items()}
    members = {"core.py": ["start", "_stop"], "app.py": ["start"]}
    for path in refs:
        refs[path] = [*refs[path], "start"]
    ranks, summary, _ = _scratch(defs, refs, members)
    graph = build_graph(defs, refs, (), members)
    state = state_from_graph(graph, {p: p for p in defs}, ranks, summary.other_users, ())

    def names(path: str, d: dict[str, list[str]], r: dict[str, list[str]]) -> FileNames:
        return FileNames(
            names_hash=f"{path}{d.get(path)}{r.get(path)}",
            defs=tuple(d.get(path, ())),
            members=tuple(members.get(path, ())),
            refs=tuple(r.get(path, ())),
        )

    new_defs = {p: list(n) for p, n in defs.items() if p != "lonely.py"}
    new_refs = {p: list(n) for p, n in refs.items() if p != "lonely.py"}
    new_defs["util.py"] = ["slugify", "Engine"]  # a second definer of a used name
    new_defs["web.py"] = ["serve"]  # a new file
    new_refs["web.py"] = ["serve", "slugify", "main"]
    new_refs["app.py"] = [*new_refs["app.py"], "serve"]  # a new use of the new name
    changed = {
        p: (
            names(p, defs, refs) if p in defs else None,
            names(p, new_defs, new_refs) if p in new_defs else None,
        )
        for p in ("util.py", "web.py", "app.py", "lonely.py")
    }

    def users_of(wanted: set[str]) -> dict[str, tuple[str, ...]]:
        return {p: tuple(r) for p, r in new_refs.items() if not wanted.isdisjoint(r)}

    updated = update_state(state, changed, users_of, new_defs, {})
    want_ranks, want, want_edges = _scratch(new_defs, new_refs, members)
    assert set(updated.edges) == set(want_edges)
    for source, out in want_edges.items():
        assert updated.edges[source] == pytest.approx(out)
    assert updated.referrers == want.referrers
    assert updated.other_users == want.other_users
    assert updated.ranks == pytest.approx(want_ranks, abs=1e-9)
    assert sorted(updated.ranks, key=lambda p: (-updated.ranks[p], p)) == sorted(
        want_ranks, key=lambda p: (-want_ranks[p], p)
    )


def test_a_graph_state_survives_a_round_trip_and_rejects_other_bytes() -> None:
    graph = build_graph(DEFS, REFS)
    ranks = pagerank(graph)
    state = state_from_graph(graph, {p: "h" for p in DEFS}, ranks, {}, ())
    loaded = GraphState.from_bytes(state.to_bytes())
    assert loaded is not None
    assert loaded.edges == state.edges
    assert loaded.ranks == state.ranks
    assert loaded.definers == state.definers
    assert definers_entry(loaded.definers["Engine"]) == (("core.py",), 1)
    assert GraphState.from_bytes(b"not a state") is None


def test_links_cut_at_the_limit_keep_equal_weights_by_path() -> None:
    out = {f"f{i:03}.py": 1.0 for i in range(MAX_LINKS + 5)}
    kept = strongest_links(out)
    assert list(kept) == [f"f{i:03}.py" for i in range(MAX_LINKS)]


def test_a_name_only_classes_define_counts_no_users_past_the_member_limit() -> None:
    members = {"a.py": ["close"], "b.py": ["close"], "c.py": ["close"]}
    refs = {f"user{i}.py": ["close"] for i in range(12)}
    defs: dict[str, list[str]] = {path: [] for path in [*members, *refs]}
    graph = build_graph(defs, refs, members=members)
    assert graph.other_users("close") == 0


def test_links_stay_within_one_language_family() -> None:
    defs = {"web/user.ts": ["User"], "php/User.php": ["User"], "web/app.tsx": []}
    refs = {"web/app.tsx": ["User"]}
    graph = build_graph(defs, refs)
    assert set(graph.edges["web/app.tsx"]) == {"web/user.ts"}


def test_links_to_test_files_weigh_less() -> None:
    defs = {"src/lib.py": ["real_helper"], "tests/fixtures/sample.py": ["fake_helper"]}
    defs["src/app.py"] = []
    refs = {"src/app.py": ["real_helper", "fake_helper"]}
    edges = build_graph(defs, refs).edges["src/app.py"]
    assert edges["tests/fixtures/sample.py"] < edges["src/lib.py"]


def test_task_words_leave_out_common_english() -> None:
    _paths, words = task_mentions("make the personalised pagerank faster")
    assert words == {"personalised", "pagerank"}


def test_a_word_leans_less_toward_a_test_file_defining_it() -> None:
    weights = personalization(
        ["src/store.py", "tests/test_store.py"],
        mentioned=["fetch"],
        definers={"fetch": ("src/store.py", "tests/test_store.py")},
    )
    assert weights["tests/test_store.py"] < weights["src/store.py"]


def _dense_pagerank(
    nodes: list[str], edges: dict[str, dict[str, float]], jump: dict[str, float]
) -> dict[str, float]:
    """The textbook power iteration over every node, to compare the fast one against."""
    rank = dict(jump)
    for _ in range(500):
        dangling = sum(rank[n] for n in nodes if not edges.get(n))
        new = {n: (0.15 + 0.85 * dangling) * jump[n] for n in nodes}
        for source, out in edges.items():
            total = sum(out.values())
            for target, weight in out.items():
                new[target] += 0.85 * rank[source] * weight / total
        rank = new
    return rank


def test_pagerank_with_isolated_files_matches_the_textbook_iteration() -> None:
    from agentprompt.repo.rank._summary import ReferenceGraph

    nodes = ["a.py", "b.py", "c.py", "d.json", "e.md", "f.py"]
    edges = {"a.py": {"b.py": 2.0, "c.py": 1.0}, "b.py": {"c.py": 1.0}, "f.py": {"a.py": 0.5}}
    personal = {"a.py": 1.0, "d.json": 3.0, "c.py": 0.5}
    total = sum(personal.values())
    jump = {n: personal.get(n, 0.0) / total for n in nodes}
    expected = _dense_pagerank(nodes, edges, jump)
    ranks = pagerank(ReferenceGraph(nodes=tuple(nodes), edges=edges), personal)
    assert ranks == pytest.approx(expected, abs=1e-9)
    assert ranks["e.md"] == 0.0
    assert ranks["d.json"] > ranks["b.py"]
    started = pagerank(
        ReferenceGraph(nodes=tuple(nodes), edges=edges),
        personal,
        start={n: 1.0 for n in nodes},
    )
    assert started == pytest.approx(expected, abs=1e-9)
