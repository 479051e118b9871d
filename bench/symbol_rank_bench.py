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
were chosen) and the others. Timing: the wall time of ``rank_symbols`` with a warm cache,
per task, median of ``--runs`` runs (default 3). ``--verbose`` prints each gold
function's position and the top 5 of each task.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "src"))

from agentprompt.repo.rank import (  # noqa: E402
    RankOptions,
    RelevantSymbol,
    rank_symbols,
    rank_symbols_in,
    rank_task_extraction,
    read_repository,
)

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
    """One task's symbols and where its gold functions came."""

    task: Task
    symbols: tuple[RelevantSymbol, ...]
    gold_file_in_top: bool
    positions: dict[tuple[str, str], int | None]
    """Each gold (file, name): its 1-based position among the symbols, None if absent."""


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


def measure(task: Task, trees: Path) -> Outcome:
    """Rank ``task``'s files and symbols as :func:`rank_symbols` does, and place its gold."""
    options = RankOptions(cache_path=task.cache())
    task.cache().parent.mkdir(parents=True, exist_ok=True)
    root = task.tree(trees)
    with read_repository(root, options) as (found, extraction):
        ranking, _summary = rank_task_extraction(extraction, task.text)
        best = [(f.path, f.score) for f in ranking.files[:FILES] if f.score > 0]
        entries = extraction.symbols(p for p, _ in best)
        texts = {p: (found.root / p).read_text(encoding="utf-8", errors="replace") for p, _ in best}
    symbols = rank_symbols_in(task.text, best, entries, texts, limit=max(KS))
    positions: dict[tuple[str, str], int | None] = {}
    for path, names in task.gold.items():
        for name in names:
            positions[(path, name)] = next(
                (
                    i
                    for i, s in enumerate(symbols, 1)
                    if s.path == path and s.name.rsplit(".", 1)[-1] == name
                ),
                None,
            )
    in_top = any(p in task.gold for p, _ in best)
    return Outcome(task=task, symbols=symbols, gold_file_in_top=in_top, positions=positions)


def recall(outcomes: Sequence[Outcome], k: int) -> float:
    """Mean over ``outcomes`` of the share of gold functions among the first ``k``."""
    if not outcomes:
        return float("nan")
    shares = [
        sum(1 for p in o.positions.values() if p is not None and p <= k) / len(o.positions)
        for o in outcomes
    ]
    return sum(shares) / len(shares)


def table(groups: dict[str, list[Outcome]]) -> str:
    """The recall table (Markdown), a row per group."""
    head = "| tasks | n | " + " | ".join(f"@{k}" for k in KS) + " |"
    rule = "| --- | ---: |" + " ---: |" * len(KS)
    rows = [
        f"| {name} | {len(found)} | " + " | ".join(f"{recall(found, k):.2f}" for k in KS) + " |"
        for name, found in groups.items()
    ]
    return "\n".join([head, rule, *rows])


def timings(tasks: Sequence[Task], trees: Path, runs: int) -> list[float]:
    """The median (over ``runs``) wall time of :func:`rank_symbols` per task, warm cache."""
    medians = []
    for task in tasks:
        options = RankOptions(cache_path=task.cache())
        seconds = []
        for _ in range(runs):
            start = time.perf_counter()
            rank_symbols(task.tree(trees), task.text, options, files=FILES, limit=max(KS))
            seconds.append(time.perf_counter() - start)
        medians.append(statistics.median(seconds))
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
    outcomes = [measure(t, args.trees) for t in tasks]
    if args.verbose:
        for o in outcomes:
            print(f"{o.task.instance_id}: gold file in top {FILES}: {o.gold_file_in_top}")
            for (path, name), position in o.positions.items():
                print(f"   {position!s:>4}  {path} {name}")
            for s in o.symbols[:5]:
                why = ", ".join(f"{r.signal}: {r.detail}" for r in s.reasons)
                print(f"         {s.score:.2f} {s.path}:{s.start}-{s.end} {s.name} ({why})")
    dev = [o for o in outcomes if o.task.repo != HELD_OUT]
    held = [o for o in outcomes if o.task.repo == HELD_OUT]
    groups = {
        "all": outcomes,
        f"all, gold file in top {FILES}": [o for o in outcomes if o.gold_file_in_top],
        "tuned on (5 repositories)": dev,
        f"tuned on, gold file in top {FILES}": [o for o in dev if o.gold_file_in_top],
        "held out (sympy)": held,
        f"held out, gold file in top {FILES}": [o for o in held if o.gold_file_in_top],
    }
    print(f"machine: {platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores")
    print(f"recall of gold functions among the first k symbols ({len(tasks)} tasks)\n")
    print(table(groups))
    if args.runs > 0:
        seconds = timings(tasks, args.trees, args.runs)
        print(
            f"\nrank_symbols, warm cache, per task (median of {args.runs} runs): "
            f"median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
