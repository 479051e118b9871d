"""Personalised PageRank over a reference graph (pull form, pure Python).

Each iteration pulls every file's new rank from the files linking to it; random jumps and
the rank of files that link nowhere go to the personalisation weights. Files that neither
link nor are linked to (files of languages without a grammar, say) stay out of the
iteration and are filled in from its last step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from operator import sub
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
    rank = list(jump)
    if start:
        begun = [max(0.0, start.get(node, 0.0)) for node in nodes]
        begun_total = sum(begun)
        if begun_total > 0:
            rank = [r / begun_total for r in begun]
    ranks = _iterate(
        jump,
        links,
        rank,
        _Settings(damping=damping, tolerance=tolerance * n, max_iterations=max_iterations),
    )
    return dict(zip(nodes, ranks, strict=True))


@dataclass(frozen=True, kw_only=True)
class _Settings:
    damping: float
    """The probability of following a link rather than jumping."""
    tolerance: float
    """The summed change of all ranks under which the iteration stops."""
    max_iterations: int
    """The most steps taken."""


def _iterate(
    jump: list[float],
    links: list[tuple[int, list[int], list[float]]],
    begun: list[float],
    settings: _Settings,
) -> list[float]:
    """Power iteration from ``begun`` over the nodes that link or are linked to.

    An isolated node's rank after every step is ``base * jump`` (``base``: that step's jump
    and dangling mass), so the isolated nodes (files of languages without a grammar, say)
    are carried as one sum and filled in from the last step: the same iteration, less work.
    """
    damping = settings.damping
    linked = {i for i, _, _ in links}
    active = sorted(linked.union(*(to for _, to, _ in links)))
    compact = {node: a for a, node in enumerate(active)}
    isolated = [i for i in range(len(jump)) if i not in compact]
    flows = [
        (compact[i], [compact[t] for t in to], [damping * w for w in shares])
        for i, to, shares in links
    ]
    sinks = [compact[node] for node in active if node not in linked]
    active_jump = [jump[node] for node in active]
    isolated_jump = sum(jump[i] for i in isolated)
    rank = [begun[node] for node in active]
    isolated_sum = sum(begun[i] for i in isolated)
    base = None
    for step in range(settings.max_iterations):
        dangling = sum(map(rank.__getitem__, sinks)) + isolated_sum
        base = 1.0 - damping + damping * dangling
        new = [base * j for j in active_jump]
        for i, to, shares in flows:
            share = rank[i]
            for t, w in zip(to, shares, strict=True):
                new[t] += share * w
        isolated_new = base * isolated_jump
        if step == 0:
            moved = sum(abs(base * jump[i] - begun[i]) for i in isolated)
        else:
            moved = abs(isolated_new - isolated_sum)
        delta = sum(map(abs, map(sub, new, rank))) + moved
        rank = new
        isolated_sum = isolated_new
        if delta < settings.tolerance:
            break
    result = list(begun) if base is None else [base * j for j in jump]
    for a, node in enumerate(active):
        result[node] = rank[a]
    return result
