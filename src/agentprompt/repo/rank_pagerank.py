"""Personalised PageRank over a reference graph (pull form, pure Python).

Each iteration pulls every file's new rank from the files linking to it; random jumps and
the rank of files that link nowhere go to the personalisation weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentprompt.repo.rank import ReferenceGraph

__all__ = ["pagerank"]


def pagerank(
    graph: ReferenceGraph,
    personal: Mapping[str, float] | None = None,
    *,
    damping: float = 0.85,
    tolerance: float = 1e-10,
    max_iterations: int = 100,
    start: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Personalised PageRank of every node; the ranks sum to 1.

    Random jumps (and the rank of files that link nowhere) go to the ``personal`` weights
    when given, else uniformly to every file. ``start`` (earlier ranks of a similar graph)
    is where the iteration begins, which makes it converge in fewer steps; the result is the
    same fixed point within ``tolerance``.
    """
    nodes = graph.nodes
    n = len(nodes)
    if n == 0:
        return {}
    index = {node: i for i, node in enumerate(nodes)}
    weights = [0.0] * n
    if personal:
        for node, weight in personal.items():
            if node in index and weight > 0:
                weights[index[node]] += weight
    total = sum(weights)
    jump = [w / total for w in weights] if total > 0 else [1.0 / n] * n
    links: list[tuple[int, list[int], list[float]]] = []
    position = index.__getitem__
    for source, out in graph.edges.items():
        out_total = float(sum(out.values()))
        if out_total > 0:
            shares = list(map(out_total.__rtruediv__, out.values()))
            links.append((index[source], list(map(position, out)), shares))
    has_out = [False] * n
    for i, _, _ in links:
        has_out[i] = True
    rank = list(jump)
    if start:
        begun = [max(0.0, start.get(node, 0.0)) for node in nodes]
        begun_total = sum(begun)
        if begun_total > 0:
            rank = [r / begun_total for r in begun]
    for _ in range(max_iterations):
        dangling = sum(r for r, out in zip(rank, has_out, strict=True) if not out)
        base = 1.0 - damping + damping * dangling
        new = [base * j for j in jump]
        for i, to, weights in links:
            share = damping * rank[i]
            for t, w in zip(to, weights, strict=True):
                new[t] += share * w
        delta = sum(abs(a - b) for a, b in zip(new, rank, strict=True))
        rank = new
        if delta < tolerance * n:
            break
    return {node: rank[i] for i, node in enumerate(nodes)}
