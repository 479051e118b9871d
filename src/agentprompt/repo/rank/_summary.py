"""Which files and definitions matter most: a reference graph ranked by personalised PageRank.

A file links to another when it uses an identifier the other defines (see
:mod:`agentprompt.repo.rank._graph`). PageRank over that graph, with its random jumps biased
toward the focus files, the files a task names and the files defining the identifiers it
mentions, orders files by how central they are to the task.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agentprompt.repo.rank._centrality import pagerank
from agentprompt.repo.rank._graph import (
    MAX_DEFINERS,
    MAX_LINKS,
    MAX_MEMBER_DEFINERS,
    MEMBER_WEIGHT,
    MENTION_BOOST,
    PRIVATE_WEIGHT,
    TEST_WEIGHT,
    ReferenceGraph,
    build_graph,
    link_family,
    name_weight,
    others_count,
    strongest_links,
    target_weight,
)

__all__ = [
    "MAX_DEFINERS",
    "MAX_LINKS",
    "MAX_MEMBER_DEFINERS",
    "MEMBER_WEIGHT",
    "MENTION_BOOST",
    "PRIVATE_WEIGHT",
    "TEST_WEIGHT",
    "RankSummary",
    "ReferenceGraph",
    "build_graph",
    "definers_of",
    "link_family",
    "name_weight",
    "others_count",
    "pagerank",
    "personalization",
    "strongest_links",
    "summarize",
    "target_weight",
    "task_mentions",
]

_MIN_STEM = 4
_TASK_STOP_WORDS = frozenset(
    str.split(
        "the and for with this that from into onto when what which where why how are was "
        "were been being have has had not but all any can could should would will shall "
        "may might must make makes made making get gets got set sets use used uses using "
        "add adds added fix fixes fixed change changes changed update updates updated "
        "remove removes removed new old one two more less most some other only also each "
        "every there their them they then than too very just like need needs want wants "
        "file files code test tests bug bugs error errors work works working does doesn "
        "don isn aren faster slower better worse issue issues support case cases way sure "
        "still even after before about over under out off our your you its does instead "
        "should please now again already because while without within between through "
        "missing misses wrong right first last same"
    )
)
"""Common English words of a task text: they name no file or identifier worth ranking
toward, even when some class happens to define a ``make`` or a ``files``."""
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_PATHISH = re.compile(r"[\w./\\-]+\.\w+|[\w-]+/[\w./-]+")


@dataclass(frozen=True, kw_only=True)
class RankSummary:
    """What rendering a map needs from the ranking, small enough to remember between runs."""

    ranks: Mapping[str, float]
    """Every file's personalised PageRank."""
    referrers: Mapping[str, int]
    """For each file: how many other files use a module-level name it defines."""
    other_users: Mapping[str, int]
    """For each defined name used elsewhere: see :meth:`ReferenceGraph.other_users`."""

    def to_json(self) -> str:
        """The summary as JSON text."""
        return json.dumps(
            {"ranks": self.ranks, "referrers": self.referrers, "other_users": self.other_users},
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> RankSummary:
        """A summary from :meth:`to_json` text."""
        data = json.loads(text)
        return cls(
            ranks=data["ranks"], referrers=data["referrers"], other_users=data["other_users"]
        )


def summarize(graph: ReferenceGraph, ranks: Mapping[str, float]) -> RankSummary:
    """The parts of ``graph`` and its ``ranks`` a map needs."""
    others = {}
    definers, top_counts = graph.definers.get, graph.top_counts.get
    # Only a name some file uses can have other users, and only one used by twice as many
    # files as define it (see others_count): most names are passed over without a call.
    for name, users in graph.name_users.items():
        count = len(definers(name, ()))
        if users >= 2 * count > 0:
            others[name] = others_count(count, top_counts(name, 0), users)
    others = {name: count for name, count in others.items() if count}
    return RankSummary(ranks=dict(ranks), referrers=dict(graph.referrers), other_users=others)


def definers_of(
    words: Iterable[str],
    defs: Mapping[str, Iterable[str]],
    members: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, tuple[str, ...]]:
    """For each of ``words`` that some file defines: the files defining it."""
    wanted = set(words)
    found: dict[str, list[str]] = {}
    for table in (defs, members or {}):
        for path, names in table.items():
            for name in wanted.intersection(names):
                found.setdefault(name, []).append(path)
    return {name: tuple(dict.fromkeys(paths)) for name, paths in found.items()}


def task_mentions(task: str) -> tuple[set[str], set[str]]:
    """The path-like words and the identifier-like words in a task text."""
    paths = {m.group(0).strip("./\\") for m in _PATHISH.finditer(task)}
    words = {w for w in _WORD.findall(task) if w.lower() not in _TASK_STOP_WORDS}
    return paths, words


def personalization(
    nodes: Iterable[str],
    *,
    focus: Iterable[str] = (),
    named_paths: Iterable[str] = (),
    mentioned: Iterable[str] = (),
    definers: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, float]:
    """Jump weights toward focus files, files a task names, and definers of mentioned names.

    A named path matches a file whose path ends with it (``utils.ts`` matches
    ``src/utils.ts``); a mentioned word of four letters or more also matches the files named
    after it (``cache`` matches ``repo/cache.py``) when no more than :data:`MAX_DEFINERS` do.
    Test files found through a word weigh :data:`TEST_WEIGHT`. Empty when nothing matched,
    which means "uniform".
    """
    all_nodes = list(nodes)
    mentioned = list(mentioned)
    weights: dict[str, float] = {}
    for path in focus:
        weights[path] = weights.get(path, 0.0) + 1.0
    wanted = [p.replace("\\", "/").lstrip("./") for p in named_paths if p]
    if wanted:
        for node in all_nodes:
            for name in wanted:
                if node == name or node.endswith("/" + name):
                    weights[node] = weights.get(node, 0.0) + 1.0
    stems = {w.lower() for w in mentioned if len(w) >= _MIN_STEM}
    if stems:
        named: dict[str, list[str]] = {}
        for node in all_nodes:
            stem = node.rsplit("/", 1)[-1].split(".", 1)[0].lower()
            if stem in stems:
                named.setdefault(stem, []).append(node)
        for files in named.values():
            if len(files) <= MAX_DEFINERS:
                for node in files:
                    share = target_weight(node) / len(files)
                    weights[node] = weights.get(node, 0.0) + share
    if definers is not None:
        for word in mentioned:
            found = tuple(definers.get(word, ()))
            if found and len(found) <= MAX_DEFINERS:
                for node in found:
                    share = target_weight(node) / len(found)
                    weights[node] = weights.get(node, 0.0) + share
    return weights
