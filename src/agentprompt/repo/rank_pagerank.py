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
    totals = {s: float(sum(out.values())) for s, out in graph.edges.items()}
    sources = [s for s, total in totals.items() if total > 0]
    linking = set(sources)
    linked = linking.union(*map(graph.edges.__getitem__, sources))
    # Only files that link or are linked to take part in the iteration (see _iterate).
    active = [node for node in nodes if node in linked]
    isolated = [node for node in nodes if node not in linked]
    position = {node: a for a, node in enumerate(active)}.__getitem__
    flows = []
    for source in sources:
        out = graph.edges[source]
        scale = damping / totals[source]
        flows.append(
            (position(source), list(map(position, out)), list(map(scale.__mul__, out.values())))
        )
    jump = _shares(nodes, personal)
    problem = _Problem(
        jump=_pick(jump, active, 1.0 / n),
        flows=flows,
        sinks=[position(node) for node in active if node not in linking],
        isolated_jump=_pick(jump, isolated, 1.0 / n),
    )
    begun = _beginning(nodes, start)
    settings = _Settings(damping=damping, tolerance=tolerance * n, max_iterations=max_iterations)
    active_ranks, isolated_ranks = _iterate(
        problem,
        list(problem.jump) if begun is None else _pick(begun, active, 0.0),
        list(problem.isolated_jump) if begun is None else _pick(begun, isolated, 0.0),
        settings,
    )
    found = dict(zip(active, active_ranks, strict=True))
    found.update(zip(isolated, isolated_ranks, strict=True))
    return {node: found[node] for node in nodes}


def _shares(nodes: tuple[str, ...], personal: Mapping[str, float] | None) -> dict[str, float]:
    """Each node's share of the random jumps by ``personal`` weight (empty: uniform)."""
    weights: dict[str, float] = {}
    if personal:
        known = set(nodes)
        for node, weight in personal.items():
            if node in known and weight > 0:
                weights[node] = weights.get(node, 0.0) + weight
    total = sum(weights.values())
    return {node: w / total for node, w in weights.items()} if total > 0 else {}


def _beginning(
    nodes: tuple[str, ...], start: Mapping[str, float] | None
) -> dict[str, float] | None:
    """The normalised ``start`` ranks (None when there are none to start from)."""
    if not start:
        return None
    get = start.get
    begun = {node: max(0.0, get(node, 0.0)) for node in nodes}
    total = sum(begun.values())
    if total <= 0:
        return None
    return {node: r / total for node, r in begun.items()}


def _pick(values: Mapping[str, float], nodes: list[str], default: float) -> list[float]:
    """``values`` of ``nodes``, in order; ``default`` for all when ``values`` is empty."""
    if not values:
        return [default] * len(nodes)
    get = values.get
    return [get(node, 0.0) for node in nodes]


@dataclass(frozen=True, kw_only=True)
class _Problem:
    jump: list[float]
    """The jump weight of each file that links or is linked to."""
    flows: list[tuple[int, list[int], list[float]]]
    """Each linking file's targets and the damped share of its rank each gets."""
    sinks: list[int]
    """The linked-to files that link nowhere (their rank jumps)."""
    isolated_jump: list[float]
    """The jump weight of each file that neither links nor is linked to."""


@dataclass(frozen=True, kw_only=True)
class _Settings:
    damping: float
    """The probability of following a link rather than jumping."""
    tolerance: float
    """The summed change of all ranks under which the iteration stops."""
    max_iterations: int
    """The most steps taken."""


def _iterate(
    problem: _Problem, begun: list[float], begun_isolated: list[float], settings: _Settings
) -> tuple[list[float], list[float]]:
    """Power iteration from ``begun`` over the files that link or are linked to.

    An isolated file's rank after every step is ``base * jump`` (``base``: that step's jump
    and dangling mass), so the isolated files (files of languages without a grammar, say)
    are carried as one sum and filled in from the last step: the same iteration, less work.
    """
    damping = settings.damping
    flows, sinks, jump = problem.flows, problem.sinks, problem.jump
    isolated_jump = sum(problem.isolated_jump)
    rank = begun
    isolated_sum = sum(begun_isolated)
    base = None
    for step in range(settings.max_iterations):
        dangling = sum(map(rank.__getitem__, sinks)) + isolated_sum
        base = 1.0 - damping + damping * dangling
        new = [base * j for j in jump]
        for i, to, shares in flows:
            share = rank[i]
            for t, w in zip(to, shares, strict=True):
                new[t] += share * w
        isolated_new = base * isolated_jump
        if step == 0:
            moved = sum(
                abs(base * j - r)
                for j, r in zip(problem.isolated_jump, begun_isolated, strict=True)
            )
        else:
            moved = abs(isolated_new - isolated_sum)
        delta = sum(map(abs, map(sub, new, rank))) + moved
        rank = new
        isolated_sum = isolated_new
        if delta < settings.tolerance:
            break
    if base is None:
        return rank, begun_isolated
    return rank, [base * j for j in problem.isolated_jump]
