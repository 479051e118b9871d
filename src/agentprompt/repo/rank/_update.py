"""The reference graph kept between runs and updated for the files whose names changed.

Building the graph of a large repository from scratch means intersecting every file's
identifiers with every defined name; when one file gains or loses a name, almost all of
that work would give the same answer again. A :class:`GraphState` remembers the graph's
parts (the definers of each name, each file's links, how many files use each name, how
many files refer to each file) together with the names hash of every file it was built
from. :func:`update_state` then redoes only the files that changed and the files that use
a name whose definers changed, and PageRank starts from the previous ranks.

The state is stored with :mod:`marshal` (plain dicts, tuples, strings and numbers), so
loading it costs far less than rebuilding the graph it describes.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from agentprompt.repo.rank._summary import (
    MAX_DEFINERS,
    MEMBER_WEIGHT,
    RankSummary,
    ReferenceGraph,
    link_family,
    name_weight,
    others_count,
    pagerank,
    strongest_links,
    target_weight,
)

__all__ = ["FileNames", "GraphState", "definers_entry", "state_from_graph", "update_state"]

_FORMAT = 5

Definers = tuple[tuple[str, ...], int]
"""A name's definers: the files defining it (module level first) and how many of them
define it at module level."""


Stored = tuple[int | str, ...]
"""A name's definers as stored: how many define it at module level, then the files
defining it (module level first). Kept flat so that :mod:`marshal` writes each path, an
object shared with the rest of the state, as a back-reference rather than again."""


def definers_entry(value: Stored | None) -> Definers | None:
    """A name's definers from their stored form, read only when an update looks at the
    name (most names are never looked at)."""
    if value is None:
        return None
    count, *paths = value
    return tuple(map(str, paths)), int(count)


def _stored(paths: tuple[str, ...], top_count: int) -> Stored:
    """The form :func:`definers_entry` reads."""
    return (top_count, *paths)


@dataclass(frozen=True, kw_only=True)
class FileNames:
    """The names one file defines and uses, as the graph reads them."""

    names_hash: str
    """The hash of these names (see :class:`agentprompt.repo.extraction._cache.CachedFile`)."""
    defs: tuple[str, ...]
    """Names defined at module level."""
    members: tuple[str, ...]
    """Names defined inside classes."""
    refs: tuple[str, ...]
    """Identifiers used."""


@dataclass(frozen=True, kw_only=True)
class GraphState:
    """A reference graph's parts, enough to update it and to summarise it."""

    boost: tuple[str, ...]
    """The mentioned names whose links were strengthened (sorted)."""
    names: dict[str, str]
    """The names hash of every file the graph was built from, by path."""
    definers: dict[str, Stored]
    """Every defined name's definers, as stored (see :func:`definers_entry`)."""
    edges: dict[str, dict[str, float]]
    """Each file's links, as :attr:`ReferenceGraph.edges`."""
    users: dict[str, int]
    """For names defined in few files: how many files use them (definers included)."""
    referrers: dict[str, int]
    """For each file: how many other files use a module-level name it defines."""
    other_users: dict[str, int]
    """As :attr:`RankSummary.other_users`."""
    ranks: dict[str, float]
    """The ranks last computed over this graph."""

    def to_bytes(self) -> bytes:
        """The state in :mod:`marshal` form."""
        return marshal.dumps(
            (
                _FORMAT,
                self.boost,
                self.names,
                self.definers,
                self.edges,
                self.users,
                self.referrers,
                self.other_users,
                self.ranks,
            )
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> GraphState | None:
        """A state from :meth:`to_bytes` output, or None when it is not one."""
        try:
            loaded = marshal.loads(data)
            form, boost, names, definers, edges, users, referrers, others, ranks = loaded
        except (ValueError, EOFError, TypeError):
            return None
        if form != _FORMAT:
            return None
        return cls(
            boost=tuple(boost),
            names=names,
            definers=definers,
            edges=edges,
            users=users,
            referrers=referrers,
            other_users=others,
            ranks=ranks,
        )

    def summary(self) -> RankSummary:
        """What a map needs from this state."""
        return RankSummary(ranks=self.ranks, referrers=self.referrers, other_users=self.other_users)


def state_from_graph(
    graph: ReferenceGraph,
    names: Mapping[str, str],
    ranks: Mapping[str, float],
    other_users: Mapping[str, int],
    boost: Iterable[str],
) -> GraphState:
    """The state of a graph built from scratch over files with these ``names`` hashes."""
    top_counts = graph.top_counts.get
    return GraphState(
        boost=tuple(sorted(boost)),
        names=dict(names),
        definers={n: (top_counts(n, 0), *paths) for n, paths in graph.definers.items()},
        # The graph is not kept: its links are shared with the state, not copied.
        edges={s: out if isinstance(out, dict) else dict(out) for s, out in graph.edges.items()},
        users=dict(graph.name_users),
        referrers=dict(graph.referrers),
        other_users=dict(other_users),
        ranks=dict(ranks),
    )


def _row(
    source: str,
    refs: Iterable[str],
    lookup: Callable[[str], Definers | None],
    boost: frozenset[str],
) -> tuple[list[str], dict[str, float], set[str]]:
    """One file's part of the graph: the names it uses that link, its links, its strong
    targets (as :func:`agentprompt.repo.rank.build_graph` computes them)."""
    hits: list[str] = []
    out: dict[str, float] = {}
    strong: set[str] = set()
    family = link_family(source)
    for name in refs:
        entry = lookup(name)
        if entry is None:
            continue
        targets, top_count = entry
        if len(targets) > MAX_DEFINERS:
            continue
        hits.append(name)
        weight = name_weight(name, len(targets), bool(top_count), boost)
        if not weight:
            continue
        for i, target in enumerate(targets):
            if link_family(target) != family:
                continue
            out[target] = out.get(target, 0.0) + (
                weight if i < top_count else weight * MEMBER_WEIGHT
            ) * target_weight(target)
            if i < top_count:
                strong.add(target)
    out.pop(source, None)
    strong.discard(source)
    return hits, strongest_links(out), strong


def _patch_definers(
    definers: dict[str, Stored], path: str, old: FileNames | None, new: FileNames | None
) -> None:
    """Move ``path`` in ``definers`` from its ``old`` names to its ``new`` ones."""
    for name in {*(old.defs if old else ()), *(old.members if old else ())}:
        entry = definers_entry(definers.get(name))
        if entry is None:
            continue
        targets, top_count = entry
        if path in targets:
            at = targets.index(path)
            rest = targets[:at] + targets[at + 1 :]
            if rest:
                definers[name] = _stored(rest, top_count - 1 if at < top_count else top_count)
            else:
                del definers[name]
    if new is None:
        return
    tops = set(new.defs)
    for name in tops:
        targets, top_count = definers_entry(definers.get(name)) or ((), 0)
        definers[name] = _stored((*targets[:top_count], path, *targets[top_count:]), top_count + 1)
    for name in set(new.members) - tops:
        targets, top_count = definers_entry(definers.get(name)) or ((), 0)
        definers[name] = _stored((*targets, path), top_count)


def update_state(
    state: GraphState,
    changed: Mapping[str, tuple[FileNames | None, FileNames | None]],
    refs_of_users: Callable[[set[str]], Mapping[str, tuple[str, ...]]],
    nodes: Iterable[str],
    personal: Mapping[str, float],
    *,
    tolerance: float = 1e-10,
) -> GraphState:
    """``state`` after the files in ``changed`` went from their old names to their new ones
    (None: absent), with PageRank recomputed from the previous ranks (to ``tolerance``, see
    :func:`~agentprompt.repo.rank.pagerank`).

    ``refs_of_users(names)`` gives the current identifiers of every file that uses one of
    ``names``. The result equals a graph built from scratch over the new names, up to the
    order in which link weights are summed.
    """
    boost = frozenset(state.boost)
    definers = dict(state.definers)
    touched: set[str] = set()
    for old, new in changed.values():
        for item in (old, new):
            if item is not None:
                touched.update(item.defs, item.members)
    before = {name: definers_entry(definers.get(name)) for name in touched}
    for path, (old, new) in changed.items():
        _patch_definers(definers, path, old, new)
    moved = {
        name
        for name, entry in before.items()
        if _shape(entry) != _shape(definers_entry(definers.get(name)))
    }
    users = dict(state.users)
    referrers = dict(state.referrers)
    edges = dict(state.edges)
    others = dict(state.other_users)
    recount: set[str] = set(moved)

    def old_lookup(name: str) -> Definers | None:
        return before[name] if name in before else new_lookup(name)

    def new_lookup(name: str) -> Definers | None:
        return definers_entry(definers.get(name))

    affected: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    if moved:
        for path, refs in refs_of_users(moved).items():
            if path not in changed and not moved.isdisjoint(refs):
                affected[path] = (refs, refs)
    for path, (old, new) in changed.items():
        affected[path] = (old.refs if old else (), new.refs if new else ())
    for path, (old_refs, new_refs) in affected.items():
        old_hits, _, old_strong = _row(path, old_refs, old_lookup, boost)
        new_hits, out, new_strong = _row(path, new_refs, new_lookup, boost)
        for name in old_hits:
            users[name] -= 1
        for name in new_hits:
            users[name] = users.get(name, 0) + 1
        recount.update(old_hits, new_hits)
        for target in old_strong:
            referrers[target] -= 1
        for target in new_strong:
            referrers[target] = referrers.get(target, 0) + 1
        if out:
            edges[path] = out
        else:
            edges.pop(path, None)
    for name in recount:
        count = users.get(name, 0)
        if count <= 0:
            users.pop(name, None)
        found = definers_entry(definers.get(name))
        extra = others_count(len(found[0]), found[1], count) if found else 0
        if extra:
            others[name] = extra
        else:
            others.pop(name, None)
    referrers = {path: count for path, count in referrers.items() if count > 0}
    names = dict(state.names)
    for path, (_, new) in changed.items():
        if new is None:
            names.pop(path, None)
        else:
            names[path] = new.names_hash
    graph = ReferenceGraph(nodes=tuple(sorted(nodes)), edges=edges)
    ranks = pagerank(graph, personal, start=state.ranks, tolerance=tolerance)
    return GraphState(
        boost=state.boost,
        names=names,
        definers=definers,
        edges=edges,
        users=users,
        referrers=referrers,
        other_users=others,
        ranks=ranks,
    )


def _shape(entry: Definers | None) -> tuple[frozenset[str], frozenset[str]]:
    """A name's definers as sets (module level, members), so order alone is no change."""
    if entry is None:
        return frozenset(), frozenset()
    targets, top_count = entry
    return frozenset(targets[:top_count]), frozenset(targets[top_count:])
