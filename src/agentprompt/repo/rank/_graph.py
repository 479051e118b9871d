"""The reference graph between a repository's files: who uses what another defines.

A file links to another when it uses an identifier the other defines. Identifiers defined
in many files say little about where a use points, so their weight is spread thin (and
those defined in more than :data:`MAX_DEFINERS` files are ignored); private names weigh
less, and identifiers the task mentions weigh more. Building the graph of a large
repository means meeting every file's identifiers with every defined name, so the links
through names one file alone defines (most names) are counted by C code, not one by one.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import chain

from agentprompt.repo.discovery import is_test_path
from agentprompt.repo.symbols import language_for_path

__all__ = [
    "MAX_DEFINERS",
    "MAX_LINKS",
    "MAX_MEMBER_DEFINERS",
    "MEMBER_WEIGHT",
    "MENTION_BOOST",
    "PRIVATE_WEIGHT",
    "TEST_WEIGHT",
    "ReferenceGraph",
    "build_graph",
    "link_family",
    "name_weight",
    "others_count",
    "strongest_links",
    "target_weight",
]

MAX_DEFINERS = 6
"""Identifiers defined in more files than this are not used as links."""

MAX_MEMBER_DEFINERS = 2
"""Class-member names (methods, properties) link only when at most this many files define
them: ``x.name`` says little about which class ``x`` is."""

MAX_LINKS = 48
"""Each file keeps only its strongest links to this many other files."""

MENTION_BOOST = 10.0
"""Links through a name the task mentions weigh this many times more."""

PRIVATE_WEIGHT = 0.1
"""Links through a private name (``_helper``) weigh this fraction of a public one's."""

MEMBER_WEIGHT = 0.1
"""Links through a class member's name weigh this fraction of a module-level name's."""

TEST_WEIGHT = 0.1
"""Links to (and jumps toward) test files and fixtures weigh this fraction of others': a
test uses much, but is rarely what a task needs to see."""

_FAMILIES = {"cpp": "c", "typescript": "javascript", "tsx": "javascript"}

_TIE = 1e-9


@dataclass(frozen=True, kw_only=True)
class ReferenceGraph:
    """Files, the weighted links between them, and how often each name is used elsewhere."""

    nodes: tuple[str, ...]
    """Every file path in the graph."""
    edges: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """``edges[a][b]``: how strongly file ``a`` refers to definitions in file ``b``."""
    name_users: Mapping[str, int] = field(default_factory=dict)
    """For each defined name: how many files use it (definers included)."""
    definers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """For each defined name: the files that define it, those defining it at module level
    first."""
    top_counts: Mapping[str, int] = field(default_factory=dict)
    """For each defined name: how many of its definers define it at module level."""

    referrers: Mapping[str, int] = field(default_factory=dict)
    """For each file: how many other files use a module-level name it defines."""

    def other_users(self, name: str) -> int:
        """How many files use ``name`` beyond those defining it, shared evenly among its
        definers (0 for names defined in more than :data:`MAX_DEFINERS` files, or in more
        than :data:`MAX_MEMBER_DEFINERS` when only classes define it)."""
        return others_count(
            len(self.definers.get(name, ())),
            self.top_counts.get(name, 0),
            self.name_users.get(name, 0),
        )


def others_count(definers: int, top_count: int, users: int) -> int:
    """Users of a name beyond its ``definers`` files (``top_count`` of them at module
    level), shared evenly among them; 0 when the name has too many definers to say."""
    limit = MAX_DEFINERS if top_count else MAX_MEMBER_DEFINERS
    if definers == 0 or definers > limit:
        return 0
    return max(0, users - definers) // definers


def name_weight(name: str, definers: int, top_level: bool, boost: Container[str]) -> float:
    """How much one use of ``name`` links toward each of its ``definers`` files (some of
    them at module level when ``top_level``); 0 when too many files define it to say which
    one is meant. Mentioned names (``boost``) weigh more, private ones less."""
    if definers > (MAX_DEFINERS if top_level else MAX_MEMBER_DEFINERS):
        return 0.0
    weight = 1.0 / definers
    if name in boost:
        weight *= MENTION_BOOST
    if name.startswith("_"):
        weight *= PRIVATE_WEIGHT
    return weight


@cache
def link_family(path: str) -> str | None:
    """The language family links stay within: C with C++, JavaScript with TypeScript."""
    language = language_for_path(path)
    return _FAMILIES.get(language, language) if language is not None else None


@cache
def target_weight(path: str) -> float:
    """How much a link to ``path`` counts: :data:`TEST_WEIGHT` for tests, else 1."""
    return TEST_WEIGHT if is_test_path(path) else 1.0


def _link_order(item: tuple[str, float]) -> tuple[float, str]:
    """Stronger first; equal weights (to the last few bits, which depend on the order they
    were summed in) by path, so the links kept never depend on hashing order."""
    return -round(item[1], 9), item[0]


def strongest_links(out: Mapping[str, float]) -> dict[str, float]:
    """The :data:`MAX_LINKS` strongest of one file's links (all when there are no more)."""
    if len(out) <= MAX_LINKS:
        return dict(out)
    cut = heapq.nlargest(MAX_LINKS, out.values())[-1]
    kept = {t: w for t, w in out.items() if w > cut + _TIE}
    near = sorted(
        ((t, w) for t, w in out.items() if cut - _TIE <= w <= cut + _TIE), key=_link_order
    )
    kept.update(near[: MAX_LINKS - len(kept)])
    return kept


def build_graph(
    defs: Mapping[str, Iterable[str]],
    refs: Mapping[str, Iterable[str]],
    mentioned: Iterable[str] = (),
    members: Mapping[str, Iterable[str]] | None = None,
) -> ReferenceGraph:
    """The reference graph of files defining ``defs[path]`` and using ``refs[path]``.

    ``members`` are names defined inside classes (methods, properties): a use of one is a
    weak link (a tenth of a module-level name's), since ``x.name`` rarely says which
    class ``x`` is. Links stay within one language family (a TypeScript ``User`` says
    nothing of a PHP ``User``), and links to tests weigh :data:`TEST_WEIGHT`.
    """
    definers, top_counts = _definers(defs, members or {})
    families = _family_links(definers, top_counts, frozenset(mentioned))
    # Only names with few definers can have users worth counting (see other_users).
    defined = {name for name, targets in definers.items() if len(targets) <= MAX_DEFINERS}
    edges: dict[str, dict[str, float]] = {}
    used: list[set[str]] = []
    referred: list[set[str]] = []
    nowhere = _FamilyLinks()
    for source, idents in refs.items():
        hits = defined.intersection(idents)
        if not hits:
            continue
        used.append(hits)
        out, strong = families.get(link_family(source), nowhere).links_of(source, hits)
        referred.append(strong)
        if len(out) > MAX_LINKS:
            out = strongest_links(out)
        if out:
            edges[source] = out
    return ReferenceGraph(
        nodes=tuple(sorted(set(defs) | set(refs))),
        edges=edges,
        name_users=dict(Counter(chain.from_iterable(used))),
        definers={k: tuple(v) for k, v in definers.items()},
        top_counts=top_counts,
        referrers=dict(Counter(chain.from_iterable(referred))),
    )


def _definers(
    defs: Mapping[str, Iterable[str]], members: Mapping[str, Iterable[str]]
) -> tuple[dict[str, list[str]], dict[str, int]]:
    """Each name's definers (those defining it at module level first) and, for names some
    file defines at module level, how many do."""
    definers: dict[str, list[str]] = {}
    tops: dict[str, set[str]] = {}
    get = definers.get
    for path, names in defs.items():
        found = tops[path] = set(names)
        for name in found:
            paths = get(name)
            if paths is None:
                definers[name] = [path]
            else:
                paths.append(path)
    top_counts = {name: len(paths) for name, paths in definers.items()}
    for path, names in members.items():
        for name in set(names).difference(tops.get(path, ())):
            paths = get(name)
            if paths is None:
                definers[name] = [path]
            else:
                paths.append(path)
    return definers, top_counts


class _FamilyLinks:
    """The links names make toward one language family's files."""

    def __init__(self) -> None:
        self.links: dict[str, list[tuple[str, float]]] = {}
        """For each name linking to some file of the family: each file and its weight."""
        self.strong: dict[str, Sequence[str]] = {}
        """For each linking name: the files defining it at module level."""

    def add(self, name: str, links: list[tuple[str, float]], strong: Sequence[str]) -> None:
        """Record that ``name`` links to ``links`` (``strong``: the module-level ones)."""
        self.links[name] = links
        self.strong[name] = strong

    def links_of(self, source: str, hits: set[str]) -> tuple[dict[str, float], set[str]]:
        """The weighted links of ``source``, which uses the defined names ``hits``, and the
        files it uses a module-level name of (itself left out of both)."""
        linked = self.links.keys() & hits
        out: dict[str, float] = {}
        get = out.get
        # One flat loop over every (file, weight) the names give: no loop per name.
        for target, weight in chain.from_iterable(map(self.links.__getitem__, linked)):
            out[target] = get(target, 0.0) + weight
        strong = set(chain.from_iterable(map(self.strong.__getitem__, linked)))
        out.pop(source, None)
        strong.discard(source)
        return out, strong


def _family_links(
    definers: Mapping[str, list[str]], top_counts: Mapping[str, int], boost: frozenset[str]
) -> dict[str | None, _FamilyLinks]:
    """Per language family: the links each name makes to that family's files."""
    families: dict[str | None, _FamilyLinks] = {}
    for name, targets in definers.items():
        top_count = top_counts.get(name, 0)
        weight = name_weight(name, len(targets), bool(top_count), boost)
        if not weight:
            continue
        if len(targets) == 1:  # most names: a shortcut for the loop below
            target = targets[0]
            family = link_family(target)
            links_of = families.get(family)
            if links_of is None:
                links_of = families[family] = _FamilyLinks()
            share = (weight if top_count else weight * MEMBER_WEIGHT) * target_weight(target)
            links_of.add(name, [(target, share)], targets if top_count else ())
            continue
        by_family: dict[str | None, list[tuple[str, float]]] = {}
        strong: dict[str | None, list[str]] = {}
        for i, target in enumerate(targets):
            family = link_family(target)
            share = (weight if i < top_count else weight * MEMBER_WEIGHT) * target_weight(target)
            by_family.setdefault(family, []).append((target, share))
            if i < top_count:
                strong.setdefault(family, []).append(target)
        for family, links in by_family.items():
            if family not in families:
                families[family] = _FamilyLinks()
            families[family].add(name, links, tuple(strong.get(family, ())))
    return families
