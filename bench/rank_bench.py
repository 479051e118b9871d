"""Benchmark of the cold ranking and fitting of the repository map (issue #3).

Run: ``.venv/bin/python bench/rank_bench.py [--runs N] [--against REV] [--check]``.

"Cold rank" is everything ``agentprompt map`` does after extraction (``_rank_and_fit``:
building the reference graph, PageRank, remembering the ranking and the graph's state,
fitting the map to its budget) with no ranking or graph state remembered. The corpus of
``bench/map_bench.py`` is parsed once into a symbol cache of this benchmark's own
(``bench/.work/rank-bench/``), emptied of remembered rankings; each run works on a fresh
copy of it in a fresh process, so no run sees what an earlier one remembered.

Each run reports wall time (``time.perf_counter``) and CPU time (``time.process_time``) of
``_rank_and_fit`` alone, and of the ranking within it. ``--against REV`` runs the code of
git revision ``REV`` (its ``src/`` taken with ``git archive``) interleaved with this
worktree's, run for run, so both see the same load; ``--check`` also compares every rank
(within 1e-12, absolute) and the map text (byte for byte) between the two, for no
personalisation, a task text, two focus files and mentioned words.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
HERE_SRC = BENCH.parent / "src"
BASE = BENCH / ".work" / "rank-bench" / "cache.db"
TOKENS = 4096
TOLERANCE = 1e-12

SCENARIOS: dict[str, dict[str, Any]] = {
    "plain": {},
    "task": {"task": "Speed up QuerySet filtering and the template engine's render_to_string"},
    "focus": {
        "focus": (
            "Django-5.0.6/Django-5.0.6/django/db/models/query.py",
            "Django-5.0.6/Django-5.0.6/django/template/base.py",
        )
    },
    "mention": {"mentions": ("Observable", "parseISO", "Matrix", "render_to_string")},
}
"""The personalisations compared by ``--check``: none, a task text, focus files, words."""


def _corpus() -> Path:
    sys.path.insert(0, str(BENCH))
    from map_bench import _git_corpus
    from map_corpus import build_corpus

    corpus = build_corpus()
    _git_corpus(corpus)
    return corpus


def _base_cache(corpus: Path) -> None:
    """Parse the corpus into the benchmark's own cache once, then forget its rankings."""
    if not BASE.exists():
        from agentprompt.repo.map import MapOptions, build_map

        BASE.parent.mkdir(parents=True, exist_ok=True)
        build_map(corpus, MapOptions(tokens=TOKENS, cache_path=BASE))
    db = sqlite3.connect(BASE)
    try:
        with db:
            db.execute("DELETE FROM memo")
            db.execute("DELETE FROM blobs")
    finally:
        db.close()


def _child(scenario: str, dump: bool) -> dict[str, Any]:
    """One cold rank and fit of the corpus on a fresh copy of the base cache."""
    from agentprompt.repo.extraction import extract_repository
    from agentprompt.repo.map import _build as repomap
    from agentprompt.repo.rank import discover_remembered

    corpus = BENCH / ".corpus"
    with tempfile.TemporaryDirectory() as tmp:
        cache_path = Path(tmp) / "cache.db"
        shutil.copyfile(BASE, cache_path)
        options = repomap.MapOptions(tokens=TOKENS, cache_path=cache_path, **SCENARIOS[scenario])
        found, _ = discover_remembered(corpus, BASE)
        extraction = extract_repository(found, cache_path=cache_path)
        rank = repomap.rank_extraction
        ranking = [0.0, 0.0]

        def timed_rank(*args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            result = rank(*args, **kwargs)
            ranking[0] = time.perf_counter() - wall
            ranking[1] = time.process_time() - cpu
            return result

        repomap.rank_extraction = timed_rank
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            result = repomap._rank_and_fit(found, extraction, options)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        finally:
            if extraction.cache is not None:
                extraction.cache.close()
    report: dict[str, Any] = {
        "wall": wall,
        "cpu": cpu,
        "rank_wall": ranking[0],
        "rank_cpu": ranking[1],
    }
    if dump:
        report["ranks"] = dict(result.ranks)
        report["text"] = result.text
    return report


def _run(src: Path, scenario: str, dump: bool) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", scenario]
    if dump:
        command.append("--dump")
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"run with {src} failed: {done.stderr[-3000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _old_src(revision: str, into: Path) -> Path:
    """The ``src/`` of git ``revision``, unpacked under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(BENCH.parent), "archive", "--format=tar", revision, "src"],
        capture_output=True,
        check=True,
    ).stdout
    archive_path = into / "src.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _compare(name: str, old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether ``new``'s ranks and text equal ``old``'s; prints what differs."""
    worst = max((abs(old["ranks"].get(p, -1.0) - r) for p, r in new["ranks"].items()), default=0.0)
    same_files = old["ranks"].keys() == new["ranks"].keys()
    same_text = old["text"] == new["text"]
    ok = same_files and same_text and worst <= TOLERANCE
    print(
        f"check {name:<8} files {len(new['ranks'])} same paths {same_files}  "
        f"largest rank difference {worst:.2e}  map text identical {same_text}  "
        f"{'OK' if ok else 'DIFFERENT'}"
    )
    return ok


def _summary(label: str, runs: list[dict[str, Any]]) -> None:
    def median(key: str) -> float:
        return statistics.median(r[key] for r in runs)

    print(
        f"{label:<28} rank+fit wall {median('wall'):.3f} s  cpu {median('cpu'):.3f} s  "
        f"(rank wall {median('rank_wall'):.3f}  cpu {median('rank_cpu'):.3f})  "
        f"min cpu {min(r['cpu'] for r in runs):.3f}  max cpu {max(r['cpu'] for r in runs):.3f}"
    )


def main() -> None:
    """Time cold rank+fit (interleaved with another revision's when asked), check equality."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", metavar="REV", help="also run git revision REV's code")
    parser.add_argument("--check", action="store_true", help="compare ranks and text too")
    parser.add_argument("--scenario", default="plain", choices=sorted(SCENARIOS))
    parser.add_argument("--child", choices=sorted(SCENARIOS), help=argparse.SUPPRESS)
    parser.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.dump)))
        return
    _base_cache(_corpus())
    print(f"load before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        sources = {"this worktree": HERE_SRC}
        if args.against:
            sources = {f"at {args.against}": _old_src(args.against, Path(tmp)), **sources}
        timings: dict[str, list[dict[str, Any]]] = {label: [] for label in sources}
        for _ in range(args.runs):
            for label, src in sources.items():
                timings[label].append(_run(src, args.scenario, dump=False))
        print(f"scenario {args.scenario}, {args.runs} runs each, interleaved, median:")
        for label, runs in timings.items():
            _summary(label, runs)
        print(f"load after: {os.getloadavg()}")
        if args.check and args.against:
            old_src = sources[f"at {args.against}"]
            results = [
                _compare(name, _run(old_src, name, dump=True), _run(HERE_SRC, name, dump=True))
                for name in SCENARIOS
            ]
            if not all(results):
                raise SystemExit(1)


if __name__ == "__main__":
    main()
