"""Symbol ranking on real tasks: do the functions an accepted fix changed come first?

Run: ``.venv/bin/python bench/symbol_rank_bench.py [--corpus DIR] [--trees DIR] [--runs N]
[--verbose]``.

The corpus is ranking-dev (``../shared/corpora/ranking-dev`` beside the project's folder,
or ``--corpus DIR``): real bug reports, each with the innermost functions and classes its
accepted fix changed (``gold_functions``, bare names by file). Each task's snapshot tree is
read from ``--trees DIR`` (default ``/tmp/rd``: ``OWNER+NAME/<first 12 hex of the base
commit>/``), never written to: the symbol cache is kept in ``bench/.work/symbol-rank/``.

For each task with gold functions, the repository's files are ranked for the problem
statement, the best 10 read, and their definitions ranked (what
``agentprompt.repo.rank.rank_symbols`` does). A gold function is found at k when a
definition of its file whose qualified name ends with it is among the first k. recall@k
is the mean over tasks of the share of their gold functions found at k, for k = 1, 3, 5,
10, 30: over every task, over the tasks whose gold file (one of them) is among the 10
files, and split into the held-out repository (sympy, never looked at while the weights
were chosen) and the others.

Two references rank the same definitions of the same files side by side: ``file order``
(the definitions as the ranked files list them: what a prompt shows without a ranking of
its own) and ``bm25`` (Okapi BM25, k1 1.2, b 0.75, of the task's distinct terms over each
definition's whole text, terms split at snake_case and camelCase). Timing: the wall time
of ``rank_symbols`` with a warm cache, per task, median of ``--runs`` runs (default 3),
beside that of ``rank_repository`` (the files alone) run by run.
``--verbose`` prints each gold function's position by each tool and agentprompt's top 5.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "src"))

from agentprompt.repo.rank import (  # noqa: E402
    RankOptions,
    RelevantSymbol,
    rank_repository,
    rank_symbols,
    rank_symbols_in,
    rank_task_extraction,
    read_repository,
    split_identifier,
)
from agentprompt.repo.symbols import FileSymbols  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "ranking-dev"
"""The ranking-dev corpus: beside the project's folder, as on the project's machines."""
TREES = Path("/tmp/rd")
"""Where the snapshot trees are unpacked."""
WORK = BENCH / ".work" / "symbol-rank"
"""Where the symbol caches are kept (the trees are not written to)."""
HELD_OUT = "sympy/sympy"
"""The repository kept out of tuning, reported on its own."""
FILES = 10
KS = (1, 3, 5, 10, 30)
KINDS = frozenset(("class", "function", "method", "async function", "async method"))
"""The kinds of definition the references rank (as agentprompt does)."""
TOOLS = ("agentprompt", "file order", "bm25")
K1, B = 1.2, 0.75
WORD = re.compile(r"[^\W\d]\w*")


@dataclass(frozen=True, kw_only=True)
class Task:
    """One task of ranking-dev with gold functions."""

    instance_id: str
    repo: str
    base_commit: str
    text: str
    gold: dict[str, tuple[str, ...]]
    """Bare names of the functions and classes the fix changed, by file."""

    def tree(self, trees: Path) -> Path:
        """The task's snapshot tree."""
        return trees / self.repo.replace("/", "+") / self.base_commit[:12]

    def cache(self) -> Path:
        """Where the task's tree's symbol cache is kept."""
        return WORK / f"{self.repo.replace('/', '+')}-{self.base_commit[:12]}" / "cache.db"


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """One task's definitions, ranked by one tool, and where its gold functions came."""

    task: Task
    names: tuple[tuple[str, str], ...]
    """(file, qualified name) of each definition, best first."""
    gold_file_in_top: bool
    positions: dict[tuple[str, str], int | None]
    """Each gold (file, name): its 1-based position among the definitions, None if absent."""


def load_tasks(corpus: Path) -> list[Task]:
    """The tasks of ``corpus`` that have gold functions."""
    listing = corpus / "tasks.json"
    if not listing.is_file():
        raise SystemExit(f"ranking-dev not found: {listing} does not exist; give --corpus DIR")
    tasks = []
    for t in json.loads(listing.read_text(encoding="utf-8")):
        gold = {path: tuple(names) for path, names in t["gold_functions"].items() if names}
        if gold:
            tasks.append(
                Task(
                    instance_id=t["instance_id"],
                    repo=t["repo"],
                    base_commit=t["base_commit"],
                    text=t["problem_statement"],
                    gold=gold,
                )
            )
    return tasks


def measure(task: Task, trees: Path) -> dict[str, Outcome]:
    """Rank ``task``'s files as :func:`rank_symbols` does, then their definitions by each
    tool, and place the gold functions."""
    options = RankOptions(cache_path=task.cache())
    task.cache().parent.mkdir(parents=True, exist_ok=True)
    root = task.tree(trees)
    with read_repository(root, options) as (found, extraction):
        ranking, _summary = rank_task_extraction(extraction, task.text)
        best = [(f.path, f.score) for f in ranking.files[:FILES] if f.score > 0]
        entries = extraction.symbols(p for p, _ in best)
        texts = {p: (found.root / p).read_text(encoding="utf-8", errors="replace") for p, _ in best}
    symbols: tuple[RelevantSymbol, ...] = rank_symbols_in(
        task.text, best, entries, texts, limit=max(KS)
    )
    orders = {
        "agentprompt": [(s.path, s.name) for s in symbols],
        "file order": file_order(best, entries),
        "bm25": bm25(task.text, best, entries, texts),
    }
    in_top = any(p in task.gold for p, _ in best)
    return {
        tool: Outcome(
            task=task,
            names=tuple(names[: max(KS)]),
            gold_file_in_top=in_top,
            positions=place(task, names[: max(KS)]),
        )
        for tool, names in orders.items()
    }


def place(task: Task, names: Sequence[tuple[str, str]]) -> dict[tuple[str, str], int | None]:
    """Each gold (file, bare name): the position of the first definition of that file
    whose qualified name ends with it, or None."""
    return {
        (path, name): next(
            (i for i, (p, q) in enumerate(names, 1) if p == path and q.rsplit(".", 1)[-1] == name),
            None,
        )
        for path, wanted in task.gold.items()
        for name in wanted
    }


def definitions(
    best: Sequence[tuple[str, float]], entries: dict[str, FileSymbols]
) -> list[tuple[str, str, int, int]]:
    """(file, qualified name, first line, last line) of every definition the references
    rank, file by file in ``best``'s order, each file's in source order."""
    return [
        (path, s.qualname, s.line, s.end_line)
        for path, _ in best
        if path in entries
        for s in entries[path].symbols
        if s.kind in KINDS
    ]


def file_order(
    best: Sequence[tuple[str, float]], entries: dict[str, FileSymbols]
) -> list[tuple[str, str]]:
    """The first reference: the definitions as the ranked files list them (no ranking of
    their own)."""
    return [(path, name) for path, name, _, _ in definitions(best, entries)]


def bm25(
    task: str,
    best: Sequence[tuple[str, float]],
    entries: dict[str, FileSymbols],
    texts: dict[str, str],
) -> list[tuple[str, str]]:
    """The second reference: Okapi BM25 (k1 1.2, b 0.75) of the task's distinct terms over
    each definition's whole text (its lines, those of what it holds included); terms are
    identifiers split at snake_case and camelCase, lower-cased."""
    query = {t for w in WORD.findall(task) for t in split_identifier(w)}
    found = definitions(best, entries)
    lines = {p: t.splitlines() for p, t in texts.items()}
    counts = []
    for path, _name, start, end in found:
        text = "\n".join(lines.get(path, [])[start - 1 : end])
        counts.append(Counter(t for w in WORD.findall(text) for t in split_identifier(w)))
    n = len(found) or 1
    average = sum(sum(c.values()) for c in counts) / n or 1.0
    holding = Counter(t for c in counts for t in set(c) & query)
    scores = []
    for number, c in enumerate(counts):
        norm = K1 * (1 - B + B * sum(c.values()) / average)
        score = sum(
            math.log(1 + (n - holding[t] + 0.5) / (holding[t] + 0.5))
            * c[t]
            * (K1 + 1)
            / (c[t] + norm)
            for t in query
            if c[t]
        )
        scores.append((-score, number))
    scores.sort()
    return [(found[i][0], found[i][1]) for score, i in scores if score < 0]


def recall(outcomes: Sequence[Outcome], k: int) -> float:
    """Mean over ``outcomes`` of the share of gold functions among the first ``k``."""
    if not outcomes:
        return float("nan")
    shares = [
        sum(1 for p in o.positions.values() if p is not None and p <= k) / len(o.positions)
        for o in outcomes
    ]
    return sum(shares) / len(shares)


def table(groups: dict[str, dict[str, list[Outcome]]]) -> str:
    """The recall table (Markdown), a row per group of tasks and tool."""
    head = "| tasks | n | tool | " + " | ".join(f"@{k}" for k in KS) + " |"
    rule = "| --- | ---: | --- |" + " ---: |" * len(KS)
    rows = [
        f"| {name} | {len(found[TOOLS[0]])} | {tool} | "
        + " | ".join(f"{recall(found[tool], k):.2f}" for k in KS)
        + " |"
        for name, found in groups.items()
        for tool in TOOLS
    ]
    return "\n".join([head, rule, *rows])


def timings(tasks: Sequence[Task], trees: Path, runs: int) -> list[tuple[float, float]]:
    """Per task, the median (over ``runs``) wall time of :func:`rank_symbols` and, run by
    run beside it, of :func:`rank_repository` (the files alone), both on a warm cache."""
    medians = []
    for task in tasks:
        options = RankOptions(cache_path=task.cache())
        symbols, files = [], []
        for _ in range(runs):
            start = time.perf_counter()
            rank_symbols(task.tree(trees), task.text, options, files=FILES, limit=max(KS))
            middle = time.perf_counter()
            rank_repository(task.tree(trees), task.text, options)
            symbols.append(middle - start)
            files.append(time.perf_counter() - middle)
        medians.append((statistics.median(symbols), statistics.median(files)))
    return medians


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the tables (Markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--trees", type=Path, default=TREES)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    tasks = load_tasks(args.corpus)
    missing = [t.instance_id for t in tasks if not t.tree(args.trees).is_dir()]
    if missing:
        raise SystemExit(f"trees missing under {args.trees}: {', '.join(missing)}")
    measured = [measure(t, args.trees) for t in tasks]
    if args.verbose:
        for by_tool in measured:
            o = by_tool["agentprompt"]
            print(f"{o.task.instance_id}: gold file in top {FILES}: {o.gold_file_in_top}")
            for key in o.positions:
                where = ", ".join(f"{t} {by_tool[t].positions[key]}" for t in TOOLS)
                print(f"   {key[0]} {key[1]}: {where}")
            for path, name in o.names[:5]:
                print(f"         {path} {name}")

    def group(keep: Callable[[Outcome], bool]) -> dict[str, list[Outcome]]:
        return {t: [m[t] for m in measured if keep(m[t])] for t in TOOLS}

    groups = {
        "all": group(lambda o: True),
        f"all, gold file in top {FILES}": group(lambda o: o.gold_file_in_top),
        "tuned on (5 repositories)": group(lambda o: o.task.repo != HELD_OUT),
        f"tuned on, gold file in top {FILES}": group(
            lambda o: o.task.repo != HELD_OUT and o.gold_file_in_top
        ),
        "held out (sympy)": group(lambda o: o.task.repo == HELD_OUT),
        f"held out, gold file in top {FILES}": group(
            lambda o: o.task.repo == HELD_OUT and o.gold_file_in_top
        ),
    }
    print(f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores")
    print(f"recall of gold functions among the first k definitions ({len(tasks)} tasks)\n")
    print(table(groups))
    if args.runs > 0:
        seconds = timings(tasks, args.trees, args.runs)
        symbols = [s for s, _ in seconds]
        files = [f for _, f in seconds]
        ratios = [s / f for s, f in seconds if f > 0]
        print(
            f"\nwarm cache, per task, median of {args.runs} runs; then over the tasks: "
            f"rank_symbols median {statistics.median(symbols):.2f} s (max {max(symbols):.2f}), "
            f"rank_repository median {statistics.median(files):.2f} s (max {max(files):.2f}), "
            f"ratio median {statistics.median(ratios):.2f} (max {max(ratios):.2f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
