"""PageRank's pull form against the plain push-form power iteration it replaced."""

from __future__ import annotations

import random

import pytest

from agentprompt.repo.rank._summary import ReferenceGraph, pagerank


def _push_pagerank(
    graph: ReferenceGraph,
    jump: dict[str, float],
    start: dict[str, float],
    max_iterations: int,
    tolerance: float = 1e-10,
) -> dict[str, float]:
    """Every node's rank pushed along its links each step, stopping on the same summed
    change: the iteration the pull form must reproduce step for step."""
    nodes = graph.nodes
    rank = dict(start)
    for _ in range(max_iterations):
        linking = {s for s, out in graph.edges.items() if sum(out.values()) > 0}
        dangling = sum(rank[n] for n in nodes if n not in linking)
        base = 0.15 + 0.85 * dangling
        new = {n: base * jump[n] for n in nodes}
        for source in linking:
            out = graph.edges[source]
            total = sum(out.values())
            for target, weight in out.items():
                new[target] += rank[source] * 0.85 / total * weight
        delta = sum(abs(new[n] - rank[n]) for n in nodes)
        rank = new
        if delta < tolerance * len(nodes):
            break
    return rank


def _random_graph(seed: int) -> ReferenceGraph:
    """Files that link and are linked to, only link, are only linked to, or neither."""
    chooser = random.Random(seed)
    nodes = [f"f{i:03}.py" for i in range(chooser.randint(1, 60))]
    edges: dict[str, dict[str, float]] = {}
    for source in nodes:
        if chooser.random() < 0.6:
            count = chooser.randint(1, min(8, len(nodes)))
            targets = chooser.sample(nodes, count)
            edges[source] = {t: chooser.choice((0.0, 0.1, 1.0, chooser.random())) for t in targets}
    return ReferenceGraph(nodes=tuple(nodes), edges=edges)


def _normalised(weights: dict[str, float], nodes: tuple[str, ...]) -> dict[str, float]:
    total = sum(weights.values())
    return {n: weights.get(n, 0.0) / total for n in nodes}


@pytest.mark.parametrize("seed", range(40))
def test_pull_form_equals_the_push_form_on_random_graphs(seed: int) -> None:
    graph = _random_graph(seed)
    nodes = graph.nodes
    chooser = random.Random(seed + 1000)
    uniform = {n: 1.0 for n in nodes}
    personal = {n: chooser.random() for n in chooser.sample(nodes, max(1, len(nodes) // 4))}
    earlier = {n: chooser.random() for n in nodes}
    for jump, start, steps in (
        (uniform, uniform, 100),
        (personal, personal, 100),
        (personal, earlier, 100),
        (uniform, earlier, 3),
        (personal, earlier, 1),
        (uniform, earlier, 0),
    ):
        shares = _normalised(jump, nodes)
        expected = _push_pagerank(graph, shares, _normalised(start, nodes), steps)
        found = pagerank(
            graph,
            None if jump is uniform else jump,
            start=None if start is jump else start,
            max_iterations=steps,
        )
        assert found.keys() == expected.keys()
        assert max(abs(found[n] - expected[n]) for n in nodes) <= 1e-12


def test_files_only_linking_keep_their_jump_share() -> None:
    graph = ReferenceGraph(
        nodes=("a.py", "b.py", "c.py"), edges={"a.py": {"b.py": 1.0}, "c.py": {"b.py": 1.0}}
    )
    ranks = pagerank(graph)
    assert ranks["a.py"] == pytest.approx(ranks["c.py"])
    assert ranks["b.py"] > ranks["a.py"]
    assert sum(ranks.values()) == pytest.approx(1.0)
