"""The reference graph against a plain name-by-name construction of the same links."""

from __future__ import annotations

import random

import pytest

from agentprompt.repo.rank._graph import (
    MAX_DEFINERS,
    MAX_LINKS,
    MEMBER_WEIGHT,
    build_graph,
    link_family,
    name_weight,
    strongest_links,
    target_weight,
)


def _plain_links(
    defs: dict[str, list[str]],
    refs: dict[str, list[str]],
    members: dict[str, list[str]],
    boost: frozenset[str],
) -> tuple[dict[str, dict[str, float]], dict[str, int], dict[str, int]]:
    """Links, referrers and users, one used name and one definer at a time."""
    definers: dict[str, list[str]] = {}
    top: dict[str, set[str]] = {}
    for path, names in defs.items():
        for name in dict.fromkeys(names):
            definers.setdefault(name, []).append(path)
            top.setdefault(name, set()).add(path)
    for path, names in members.items():
        for name in dict.fromkeys(names):
            if path not in top.get(name, set()):
                definers.setdefault(name, []).append(path)
    edges: dict[str, dict[str, float]] = {}
    referrers: dict[str, int] = {}
    users: dict[str, int] = {}
    for source, idents in refs.items():
        out: dict[str, float] = {}
        strong: set[str] = set()
        for name in set(idents):
            targets = definers.get(name, [])
            if not targets or len(targets) > MAX_DEFINERS:
                continue
            users[name] = users.get(name, 0) + 1
            weight = name_weight(name, len(targets), name in top, boost)
            for target in targets:
                if weight and link_family(target) == link_family(source) and target != source:
                    module_level = target in top.get(name, set())
                    share = weight if module_level else weight * MEMBER_WEIGHT
                    out[target] = out.get(target, 0.0) + share * target_weight(target)
                    if module_level:
                        strong.add(target)
        for target in strong:
            referrers[target] = referrers.get(target, 0) + 1
        if out:
            edges[source] = strongest_links(out)
    return edges, referrers, users


def _random_repository(
    seed: int,
) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
    """Files of three languages (tests among them) defining and using names that one, a few,
    or many files define, public and private, at module level and in classes."""
    chooser = random.Random(seed)
    paths = [
        f"{folder}/m{i}.{ext}"
        for i in range(chooser.randint(2, 70))
        for folder in (chooser.choice(("src", "tests")),)
        for ext in (chooser.choice(("py", "py", "ts", "c")),)
    ]
    names = [chooser.choice(("", "_")) + f"n{i}" for i in range(60)]
    defs = {p: chooser.sample(names, chooser.randint(0, 4)) for p in paths}
    members = {p: chooser.sample(names, chooser.randint(0, 3)) for p in paths}
    refs = {p: chooser.choices(names, k=chooser.randint(0, 70)) for p in paths}
    return defs, refs, members


@pytest.mark.parametrize("seed", range(30))
def test_graph_links_equal_those_built_one_name_at_a_time(seed: int) -> None:
    defs, refs, members = _random_repository(seed)
    boost = frozenset(random.Random(seed).sample(sorted({n for v in refs.values() for n in v}), 3))
    graph = build_graph(defs, refs, boost, members)
    edges, referrers, users = _plain_links(defs, refs, members, boost)
    assert graph.edges.keys() == edges.keys()
    for source, out in edges.items():
        assert graph.edges[source] == pytest.approx(out, rel=1e-12)
    assert graph.referrers == referrers
    assert graph.name_users == users


def test_a_crowded_file_keeps_its_strongest_links_only() -> None:
    defs = {f"m{i}.py": [f"name{i}"] for i in range(MAX_LINKS + 10)}
    refs = {"user.py": [f"name{i}" for i in range(MAX_LINKS + 10)] + ["name0", "name1"]}
    graph = build_graph(defs, refs)
    assert len(graph.edges["user.py"]) == MAX_LINKS
    assert graph.edges["user.py"]["m0.py"] == 1.0
