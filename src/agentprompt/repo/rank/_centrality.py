"""Personalised PageRank over a reference graph (pull form, pure Python).

Each iteration pulls every linked-to file's new rank from the files linking to it, one
C-level sum of products per file; random jumps and the rank of files that link nowhere go
to the personalisation weights. A file no file links to has, after the first step, only its
share of that step's jumps, so those files (files of languages without a grammar, and files
that only link, such as most tests) stay out of the iteration: their pull on the files they
link to is one fixed vector scaled by the previous step's jump mass, and their ranks are
filled in from the last step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import itemgetter, mul, sub
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentprompt.repo.rank._graph import ReferenceGraph

__all__ = ["pagerank"]

Puller = Callable[[list[float]], tuple[float, ...]]
"""The ranks of a fed file's linkers, from the list of every fed file's rank."""


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
    layout = _Layout.of(graph)
    begun = _beginning(nodes, start)
    problem = _problem(graph, layout, damping, _shares(nodes, personal), begun)
    settings = _Settings(damping=damping, tolerance=tolerance * n, max_iterations=max_iterations)
    fed_ranks, follower_ranks = _iterate(
        problem,
        list(problem.jump) if begun is None else _pick(begun, layout.fed, 0.0),
        settings,
    )
    found = dict(zip(layout.fed, fed_ranks, strict=True))
    found.update(zip(layout.followers, follower_ranks, strict=True))
    return {node: found[node] for node in nodes}


@dataclass(frozen=True, kw_only=True)
class _Layout:
    """Which files the iteration computes one by one and which follow the jumps alone."""

    fed: list[str]
    """Files some file links to, in node order: their rank is pulled every step."""
    followers: list[str]
    """Files no file links to: those that link first, then those that do not (isolated)."""
    linking: int
    """How many of :attr:`followers` link to other files."""
    totals: dict[str, float]
    """For each file that links: the summed weight of its links (more than 0)."""
    sinks: list[str]
    """Fed files that link nowhere (their rank jumps)."""

    @classmethod
    def of(cls, graph: ReferenceGraph) -> _Layout:
        """The layout of ``graph``'s nodes."""
        edges = graph.edges
        totals = {s: float(sum(out.values())) for s, out in edges.items()}
        totals = {s: total for s, total in totals.items() if total > 0}
        linked = set().union(*map(edges.__getitem__, totals))
        nodes = graph.nodes
        only = [node for node in nodes if node in totals and node not in linked]
        isolated = [node for node in nodes if node not in totals and node not in linked]
        fed = [node for node in nodes if node in linked]
        return cls(
            fed=fed,
            followers=[*only, *isolated],
            linking=len(only),
            totals=totals,
            sinks=[node for node in fed if node not in totals],
        )


def _problem(
    graph: ReferenceGraph,
    layout: _Layout,
    damping: float,
    jump: Mapping[str, float],
    begun: Mapping[str, float] | None,
) -> _Problem:
    """The iteration's arrays for ``layout``, these ``jump`` shares and ``begun`` start."""
    uniform = 1.0 / len(graph.nodes)
    index = {node: a for a, node in enumerate(layout.fed)}
    follower_jump = _pick(jump, layout.followers, uniform)
    follower_start = follower_jump if begun is None else _pick(begun, layout.followers, 0.0)
    only = layout.followers[: layout.linking]
    only_jump = dict(zip(only, follower_jump, strict=False))
    only_start = dict(zip(only, follower_start, strict=False))
    inner: list[list[int]] = [[] for _ in layout.fed]
    shares: list[list[float]] = [[] for _ in layout.fed]
    carried = [0.0] * len(layout.fed)
    first = [0.0] * len(layout.fed)
    for source, total in layout.totals.items():
        scale = damping / total
        at = index.get(source)
        if at is None:  # a follower: its pull is carried (see _Problem.carried)
            unit, begin = only_jump[source], only_start[source]
            for target, weight in graph.edges[source].items():
                t = index[target]
                carried[t] += unit * (scale * weight)
                first[t] += begin * (scale * weight)
        else:
            for target, weight in graph.edges[source].items():
                t = index[target]
                inner[t].append(at)
                shares[t].append(scale * weight)
    return _Problem(
        jump=_pick(jump, layout.fed, uniform),
        linkers=_pullers(inner, shares, len(layout.fed)),
        shares=shares,
        carried=carried,
        first=first,
        sinks=[index[node] for node in layout.sinks],
        follower_jump=follower_jump,
        follower_start=follower_start,
        linking=layout.linking,
    )


def _pullers(inner: list[list[int]], shares: list[list[float]], padding: int) -> list[Puller]:
    """Each fed file's linkers as one itemgetter. Every fed file pulls from two linkers at
    least (padded with ``padding``, a slot past the last fed file that always holds 0.0,
    with share 0.0), so that each getter returns a tuple."""
    pullers: list[Puller] = []
    for linkers, weights in zip(inner, shares, strict=True):
        while len(linkers) < 2:
            linkers.append(padding)
            weights.append(0.0)
        pullers.append(itemgetter(*linkers))
    return pullers


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
    """The jump share of each fed file."""
    linkers: list[Puller]
    """For each fed file: the ranks of the fed files linking to it."""
    shares: list[list[float]]
    """For each fed file: the damped share of each of :attr:`linkers`' rank it gets."""
    carried: list[float]
    """For each fed file: the pull of the files that only link, per unit of jump mass."""
    first: list[float]
    """For each fed file: the pull of the files that only link, from their start ranks."""
    sinks: list[int]
    """The fed files that link nowhere (their rank jumps)."""
    follower_jump: list[float]
    """The jump share of each follower (see :attr:`_Layout.followers`)."""
    follower_start: list[float]
    """The rank each follower starts from."""
    linking: int
    """How many followers link (the rest are isolated: their rank jumps)."""


@dataclass(frozen=True, kw_only=True)
class _Settings:
    damping: float
    """The probability of following a link rather than jumping."""
    tolerance: float
    """The summed change of all ranks under which the iteration stops."""
    max_iterations: int
    """The most steps taken."""


def _iterate(
    problem: _Problem, begun: list[float], settings: _Settings
) -> tuple[list[float], list[float]]:
    """Power iteration from ``begun`` (fed files) and the followers' start ranks.

    A follower's rank after every step is ``base * jump`` (``base``: that step's jump and
    dangling mass), so the followers are carried as sums and filled in from the last step:
    the same iteration as over every file, less work.
    """
    damping = settings.damping
    jump, sinks = problem.jump, problem.sinks
    linkers, shares = problem.linkers, problem.shares
    follower_jump = problem.follower_jump
    isolated_jump = sum(follower_jump[problem.linking :])
    follower_total = sum(follower_jump)
    rank = [*begun, 0.0]  # the padding slot (see _problem)
    isolated_sum = sum(problem.follower_start[problem.linking :])
    carried, scale = problem.first, 1.0
    base = None
    for _ in range(settings.max_iterations):
        dangling = sum(map(rank.__getitem__, sinks)) + isolated_sum
        previous, base = base, 1.0 - damping + damping * dangling
        new = [
            base * j + scale * c + sum(map(mul, pull(rank), w))
            for j, c, pull, w in zip(jump, carried, linkers, shares, strict=True)
        ]
        new.append(0.0)
        if previous is None:
            moved = sum(
                abs(base * j - r)
                for j, r in zip(follower_jump, problem.follower_start, strict=True)
            )
        else:
            moved = abs(base - previous) * follower_total
        delta = sum(map(abs, map(sub, new, rank))) + moved
        rank = new
        isolated_sum = base * isolated_jump
        carried, scale = problem.carried, base
        if delta < settings.tolerance:
            break
    del rank[-1]
    if base is None:
        return rank, list(problem.follower_start)
    return rank, [base * j for j in follower_jump]
