"""Side by side: task-aware file ranking, agentprompt's ``rank`` against BM25 and Aider's
personalised repo map (recall on real tasks), and what ranking costs next to the map.

Run: ``.venv/bin/python bench/task_rank_bench.py [--runs N] [--only NAME...] [--verbose]``
(after ``.venv/bin/python bench/peers.py``, which installs Aider's venv).

1. **Recall** on ranking-dev (``../shared/corpora/ranking-dev`` from the project root, or
   ``--corpus DIR``): 39 real bug reports, each with the files its accepted fix changed
   (``gold_files``). The snapshot trees are unpacked once into ``bench/.work/ranking-dev/``
   (git-ignored), each committed to a git repository of its own there (Aider reads git's
   file list; ``.git/info/exclude`` keeps both tools' caches out of it). Each task's
   problem statement is the task; three rankings of every file are compared:

   * ``agentprompt``: ``agentprompt rank --task-file FILE --root TREE --top 0 --json``, the
     files in the order of their ``rank``;
   * ``bm25``: Okapi BM25 (k1 1.2, b 0.75, idf ``ln(1 + (N - n + 0.5) / (n + 0.5))``) over
     each file's path and content, for every file git lists that is UTF-8 text under 1 MB;
     terms are the runs of letters, digits and underscores, split at underscores and at
     camelCase humps, lower-cased; each distinct term of the task counts once;
   * ``aider``: ``RepoMap.get_ranked_tags`` personalised by the files and identifiers the task
     mentions, found by aider's own coder methods (``bench/peers_aider_rank.py``, run with
     aider's interpreter, network refused), the files in the order their first tag appears
     (with ``PYTHONHASHSEED=0``: aider builds its graph from sets, so the order of ties and
     the last digits of PageRank's sums otherwise change from run to run).

   recall@k is the mean over tasks of |gold ∩ top k| / |gold|, for k = 1, 5, 10, overall and
   per repository; ``--verbose`` prints every gold file's position in each ranking.
2. **Cost** on the corpus of ``bench/map_bench.py`` (about 11k code files): in every run,
   in turn, ``agentprompt map --tokens 4096`` cold (no ``.agentprompt/``) and warm (run
   again, nothing changed; the reference for the warm rank under the same load),
   ``agentprompt rank --task T1 --json`` cold, then ``rank --task T2 --json`` warm (the
   cache the cold rank built, a different task); median, min and max of ``--runs`` runs,
   the ratio cold rank / cold map per run (target 1.2 at most) and the warm rank's seconds
   (target 1.5 at most). Each figure is the wall time of a fresh process.

``--only NAME...`` runs some parts (``agentprompt``, ``bm25``, ``aider``, ``cost``). The
tables (Markdown) are printed with the machine, date and commit, and written to
``bench/.work/task-rank.md``. The exit status is 1 when a ranking could not be measured
(for instance ``agentprompt rank`` missing from the install).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from map_bench import AGENTPROMPT, _git_corpus, _timed, compile_bytecode  # noqa: E402
from map_corpus import build_corpus  # noqa: E402
from peers import run_aider_driver  # noqa: E402
from peers_report import cells, load, machine, table  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "ranking-dev"
"""The ranking-dev corpus: beside the project's folder, as on the project's machines."""

WORK = BENCH / ".work" / "ranking-dev"
"""Where the snapshot trees are unpacked and the per-task inputs and outputs are kept."""

AIDER_DRIVER = BENCH / "peers_aider_rank.py"
KS = (1, 5, 10)
TOOLS = ("agentprompt", "bm25", "aider")
PARTS = (*TOOLS, "cost")
EXCLUDE = ".aider.tags.cache.v4/\n.agentprompt/\n"
"""Kept out of git's view in every tree: the tools' caches are not files of the task."""

K1, B = 1.2, 0.75
MAX_BYTES = 1_000_000

COLD_TASK = (
    "QuerySet.filter() raises TypeError when a lazy translation string is given as a lookup "
    "value; make the ORM's lookups accept lazy strings."
)
"""The cold rank's task on the map corpus (Django's ORM)."""

WARM_TASK = (
    "Matrix.inv() gives wrong results for symbolic 3x3 matrices; check the LU decomposition "
    "and the determinant used by sympy's dense matrices."
)
"""The warm rank's task: a different one, so nothing the cold rank computed for its task
is reused beyond the cache."""


@dataclass(frozen=True, kw_only=True)
class Task:
    """One task of ranking-dev."""

    instance_id: str
    """The SWE-bench instance, e.g. ``sympy__sympy-15809``."""
    repo: str
    """``OWNER/NAME``."""
    base_commit: str
    """The commit the tree is a snapshot of."""
    text: str
    """The problem statement: the task given to every ranking."""
    gold: tuple[str, ...]
    """The non-test files the accepted fix changed."""

    @property
    def tree(self) -> Path:
        """The unpacked snapshot this task runs on."""
        return WORK / self.repo.replace("/", "+") / self.base_commit[:12]


@dataclass(frozen=True, kw_only=True)
class Ranking:
    """One tool's order of a tree's files for a task, or why there is none."""

    files: tuple[str, ...] = ()
    """Paths relative to the tree, best first."""
    error: str = ""
    """Why the tool gave no ranking; empty when it did."""


# ---------------------------------------------------------------------------- the corpus


def load_tasks(corpus: Path) -> list[Task]:
    """The tasks of ``corpus``, or exit with a message naming what is missing."""
    listing = corpus / "tasks.json"
    if not listing.is_file():
        raise SystemExit(
            f"ranking-dev not found: {listing} does not exist. The corpus lives in "
            f"../shared/corpora/ranking-dev beside the project's folder; give its place with "
            f"--corpus DIR."
        )
    return [
        Task(
            instance_id=t["instance_id"],
            repo=t["repo"],
            base_commit=t["base_commit"],
            text=t["problem_statement"],
            gold=tuple(t["gold_files"]),
        )
        for t in json.loads(listing.read_text(encoding="utf-8"))
    ]


def _git(tree: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    done = subprocess.run([*command, *args], cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed in {tree}: {done.stderr.strip()}")
    return done.stdout


def prepare_trees(corpus: Path, tasks: Sequence[Task]) -> None:
    """Unpack every snapshot the tasks need (once) and commit each tree to git (once)."""
    for repo in sorted({t.repo for t in tasks}):
        name = repo.replace("/", "+")
        stamp = WORK / f".{name}.unpacked"
        if not stamp.exists():
            archive = corpus / "snapshots" / f"{name}.tar.zst"
            print(f"unpacking {archive.name} into {WORK}", flush=True)
            shutil.rmtree(WORK / name, ignore_errors=True)
            WORK.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                f"zstd -q -d --long=30 < '{archive}' | tar -x -C '{WORK}'",
                shell=True,
                check=True,
            )
            stamp.write_text("unpacked\n")
    for tree in sorted({t.tree for t in tasks}):
        if not tree.is_dir():
            raise SystemExit(f"{tree} is not in its snapshot archive; is the corpus complete?")
        if (tree / ".git" / "bench-committed").exists():
            continue
        print(f"committing {tree.relative_to(WORK)} to git", flush=True)
        shutil.rmtree(tree / ".git", ignore_errors=True)
        _git(tree, "init", "-q", "-b", "main")
        (tree / ".git" / "info").mkdir(exist_ok=True)
        (tree / ".git" / "info" / "exclude").write_text(EXCLUDE)
        _git(tree, "add", "-A", ".")
        _git(tree, "commit", "-q", "--no-verify", "-m", "snapshot")
        (tree / ".git" / "bench-committed").write_text("committed\n")


def git_files(tree: Path) -> list[str]:
    """The files git lists in ``tree``."""
    return [p for p in _git(tree, "ls-files", "-z").split("\0") if p]


# ---------------------------------------------------------------------------------- BM25

_WORD = re.compile(r"\w+", re.ASCII)
_HUMP = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


@cache
def _terms_of(word: str) -> tuple[str, ...]:
    """``word`` split at underscores and camelCase humps, lower-cased."""
    return tuple(
        hump.lower() for piece in word.split("_") if piece for hump in _HUMP.findall(piece)
    )


def terms(text: str) -> list[str]:
    """The BM25 terms of ``text``."""
    return [term for word in _WORD.findall(text) for term in _terms_of(word)]


def _text(path: Path) -> str | None:
    """The file's text when it is UTF-8 text under 1 MB, else None."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size >= MAX_BYTES:
            return None
        data = path.read_bytes()
        if b"\0" in data:
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def bm25_rank(tree: Path, files: Sequence[str], task: str) -> Ranking:
    """The indexed files of ``tree`` by BM25 score for ``task``, best first (ties by path)."""
    query = set(terms(task))
    lengths: dict[str, int] = {}
    counts: dict[str, dict[str, int]] = {}
    for rel in files:
        text = _text(tree / rel)
        if text is None:
            continue
        words = Counter(_WORD.findall(text))
        words.update(_WORD.findall(rel))
        length = 0
        hits: dict[str, int] = {}
        for word, count in words.items():
            parts = _terms_of(word)
            length += count * len(parts)
            for part in parts:
                if part in query:
                    hits[part] = hits.get(part, 0) + count
        lengths[rel] = length
        counts[rel] = hits
    n = len(lengths)
    if n == 0:
        return Ranking(error=f"no UTF-8 text file under 1 MB in {tree}")
    average = sum(lengths.values()) / n
    frequency = Counter(term for hits in counts.values() for term in hits)
    idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}
    scores = {}
    for rel, hits in counts.items():
        norm = K1 * (1 - B + B * lengths[rel] / average)
        scores[rel] = sum(idf[t] * c * (K1 + 1) / (c + norm) for t, c in hits.items())
    return Ranking(files=tuple(sorted(scores, key=lambda rel: (-scores[rel], rel))))


# --------------------------------------------------------------------------- agentprompt


def rank_command_missing(agentprompt: Path) -> str:
    """Why ``agentprompt rank`` cannot run here, or an empty string when it can."""
    if not agentprompt.exists():
        return f"{agentprompt} does not exist; run `make .venv/.installed-dev` first"
    done = subprocess.run(
        [str(agentprompt), "rank", "--help"], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        return (
            f"`agentprompt rank` is not in this install ({said[-1] if said else 'no output'}); "
            f"merge the branch that adds it and reinstall (`make .venv/.installed-dev`)"
        )
    return ""


def agentprompt_rank(agentprompt: Path, task: Task, task_file: Path) -> Ranking:
    """agentprompt's ranking of every file of the task's tree."""
    command = [str(agentprompt), "rank", "--task-file", str(task_file)]
    command += ["--root", str(task.tree), "--top", "0", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return Ranking(error=f"exit {done.returncode}: {done.stderr.strip()[-500:]}")
    try:
        said = json.loads(done.stdout)
        ranked = sorted(said["files"], key=lambda f: f["rank"])
        files = tuple(f["path"] for f in ranked)
    except (ValueError, KeyError, TypeError) as error:
        return Ranking(error=f"output is not the rank JSON ({error!r}): {done.stdout[:300]}")
    for problem in said.get("problems", []):
        print(f"  {task.instance_id}: agentprompt reported: {problem}")
    return Ranking(files=files)


# --------------------------------------------------------------------------------- Aider


def aider_rankings(tasks: Sequence[Task], files: dict[Path, list[str]]) -> dict[str, Ranking]:
    """Aider's ranking for every task, from one run of ``bench/peers_aider_rank.py``."""
    jobs = [
        {"id": t.instance_id, "root": str(t.tree), "task": t.text, "files": files[t.tree]}
        for t in tasks
    ]
    said = run_aider_driver(
        AIDER_DRIVER, jobs, WORK / "aider-jobs.json", WORK / "aider-rankings.json"
    )
    if isinstance(said, str):
        return {t.instance_id: Ranking(error=said) for t in tasks}
    return {i: Ranking(files=tuple(r["files"])) for i, r in said["rankings"].items()}


# -------------------------------------------------------------------------------- recall


def recall(ranking: Ranking, gold: Sequence[str], k: int) -> float:
    """|gold ∩ top k| / |gold|."""
    return len(set(ranking.files[:k]) & set(gold)) / len(gold)


def _mean_recalls(tasks: Sequence[Task], rankings: dict[str, Ranking]) -> list[str]:
    if any(rankings[t.instance_id].error for t in tasks):
        return ["failed"] * len(KS)
    return [
        f"{statistics.mean(recall(rankings[t.instance_id], t.gold, k) for t in tasks):.2f}"
        for k in KS
    ]


def measure_recall(
    tasks: Sequence[Task], tools: Sequence[str], agentprompt: Path
) -> tuple[dict[str, dict[str, Ranking]], dict[str, float]]:
    """Every tool's ranking for every task, and each tool's wall seconds for them all."""
    files = {tree: git_files(tree) for tree in sorted({t.tree for t in tasks})}
    rankings: dict[str, dict[str, Ranking]] = {}
    seconds: dict[str, float] = {}
    task_files = WORK / "tasks"
    task_files.mkdir(parents=True, exist_ok=True)
    for tool in tools:
        start = time.perf_counter()
        print(f"ranking {len(tasks)} tasks with {tool}", flush=True)
        if tool == "aider":
            rankings[tool] = aider_rankings(tasks, files)
        elif tool == "bm25":
            rankings[tool] = {
                t.instance_id: bm25_rank(t.tree, files[t.tree], t.text) for t in tasks
            }
        else:
            missing = rank_command_missing(agentprompt)
            if missing:
                print(f"agentprompt: {missing}", file=sys.stderr)
                rankings[tool] = {t.instance_id: Ranking(error=missing) for t in tasks}
            else:
                rankings[tool] = {}
                for t in tasks:
                    path = task_files / f"{t.instance_id}.txt"
                    path.write_text(t.text, encoding="utf-8")
                    rankings[tool][t.instance_id] = agentprompt_rank(agentprompt, t, path)
        seconds[tool] = time.perf_counter() - start
    return rankings, seconds


def recall_tables(tasks: Sequence[Task], rankings: dict[str, dict[str, Ranking]]) -> str:
    """The overall and per-repository recall tables."""
    head = ["tool", *(f"recall@{k}" for k in KS)]
    overall = table(head, [[tool, *_mean_recalls(tasks, r)] for tool, r in rankings.items()])
    repos = sorted({t.repo for t in tasks})
    per_head = ["repository", "tasks"]
    per_head += [f"{tool} @{k}" for tool in rankings for k in KS]
    rows = []
    for repo in repos:
        mine = [t for t in tasks if t.repo == repo]
        row = [repo, str(len(mine))]
        for ranked in rankings.values():
            row += _mean_recalls(mine, ranked)
        rows.append(row)
    return f"{overall}\n\nPer repository:\n\n{table(per_head, rows)}"


def positions(tasks: Sequence[Task], rankings: dict[str, dict[str, Ranking]]) -> str:
    """Every gold file's 1-based position in each tool's ranking (``-`` when absent)."""
    lines = []
    for t in tasks:
        lines.append(t.instance_id)
        for gold in t.gold:
            where = []
            for tool, ranked in rankings.items():
                files = ranked[t.instance_id].files
                where.append(f"{tool} {files.index(gold) + 1 if gold in files else '-'}")
            lines.append(f"    {gold}: {', '.join(where)}")
    return "\n".join(lines)


def failures(rankings: dict[str, dict[str, Ranking]]) -> list[str]:
    """One line per distinct failure of a tool."""
    found: dict[tuple[str, str], list[str]] = {}
    for tool, ranked in rankings.items():
        for instance, ranking in ranked.items():
            if ranking.error:
                found.setdefault((tool, ranking.error), []).append(instance)
    return [f"{tool} ({len(ids)} tasks): {error}" for (tool, error), ids in found.items()]


# ---------------------------------------------------------------------------------- cost


def measure_cost(agentprompt: Path, runs: int) -> tuple[str, bool]:
    """Cold map, cold rank and warm rank on the map corpus: the table, and whether it ran."""
    missing = rank_command_missing(agentprompt)
    if missing:
        return f"cost not measured: {missing}", False
    compile_bytecode()
    corpus = build_corpus()
    _git_corpus(corpus)
    cache = corpus / ".agentprompt"  # removed whole, as bench/map_bench.py does

    def drop_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    def nothing() -> None:
        return None

    rank = [str(agentprompt), "rank", "--root", str(corpus), "--json", "--task"]
    map_command = [str(agentprompt), "map", "--root", str(corpus), "--tokens", "4096"]
    rows: dict[str, tuple[list[str], Callable[[], None]]] = {
        "cold map (no cache)": (map_command, drop_cache),
        "warm map (nothing changed)": (map_command, nothing),
        "cold rank (no cache)": ([*rank, COLD_TASK], drop_cache),
        "warm rank (a second task)": ([*rank, WARM_TASK], nothing),
    }
    timings: dict[str, list[tuple[float, float]]] = {row: [] for row in rows}
    for run in range(runs):
        for row, (command, before) in rows.items():
            before()
            wall, peak = _timed(command, corpus)
            timings[row].append((wall, peak / 1e6))
            print(f"run {run + 1}/{runs}: {row:<28} {wall:7.3f} s", flush=True)
    body = []
    for row, values in timings.items():
        walls = [w for w, _ in values]
        body.append([row, *cells(walls, 2), f"{max(p for _, p in values):.0f}"])
    cold_rank, cold_map = timings["cold rank (no cache)"], timings["cold map (no cache)"]
    ratio = [r[0] / m[0] for r, m in zip(cold_rank, cold_map, strict=True)]
    body.append(["cold rank / cold map (per run)", *cells(ratio, 2), ""])
    warm_rank, warm_map = (
        timings["warm rank (a second task)"],
        timings["warm map (nothing changed)"],
    )
    warm_ratio = [r[0] / m[0] for r, m in zip(warm_rank, warm_map, strict=True)]
    body.append(["warm rank / warm map (per run)", *cells(warm_ratio, 2), ""])
    warm = statistics.median(w for w, _ in timings["warm rank (a second task)"])
    text = table(["row", "wall s median", "min", "max", "peak tree RSS MB"], body)
    verdict = (
        f"targets: cold rank / cold map {statistics.median(ratio):.2f} "
        f"({'within' if statistics.median(ratio) <= 1.2 else 'over'} 1.2); warm rank "
        f"{warm:.2f} s ({'within' if warm <= 1.5 else 'over'} 1.5 s)"
    )
    found = len(git_files(corpus))
    return f"corpus: {corpus} ({found} files git lists)\n\n{text}\n\n{verdict}", True


# ---------------------------------------------------------------------------------- main


def _commit() -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"


def main() -> None:
    """Measure recall and cost, then print and save the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each cost row")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=PARTS,
        default=list(PARTS),
        metavar="NAME",
        help=f"run only these parts: {', '.join(PARTS)}",
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the ranking-dev folder")
    parser.add_argument(
        "--agentprompt",
        type=Path,
        default=AGENTPROMPT,
        help="the agentprompt executable to measure (default: this venv's)",
    )
    parser.add_argument("--tasks", metavar="RE", help="only the tasks whose id matches RE")
    parser.add_argument("--verbose", action="store_true", help="gold files' positions per task")
    args = parser.parse_args()
    started = datetime.now(UTC)
    sections = [
        f"machine: {machine()}",
        f"date: {started:%Y-%m-%d %H:%M} UTC; commit: {_commit()}; load average at start: {load()}",
    ]
    ok = True
    tools = [tool for tool in TOOLS if tool in args.only]
    if tools:
        tasks = load_tasks(args.corpus)
        if args.tasks:
            tasks = [t for t in tasks if re.search(args.tasks, t.instance_id)]
        if not tasks:
            raise SystemExit(f"no task matches --tasks {args.tasks}")
        prepare_trees(args.corpus, tasks)
        rankings, seconds = measure_recall(tasks, tools, args.agentprompt)
        spent = ", ".join(f"{tool} {s:.0f} s" for tool, s in seconds.items())
        sections.append(
            f"## Recall on ranking-dev ({len(tasks)} tasks)\n\n"
            f"{recall_tables(tasks, rankings)}\n\nwall time for all tasks: {spent}"
        )
        if args.verbose:
            sections.append(f"Gold files' positions:\n\n{positions(tasks, rankings)}")
        problems = failures(rankings)
        if problems:
            ok = False
            sections.append("Failed:\n\n" + "\n".join(f"- {p}" for p in problems))
    if "cost" in args.only:
        text, ran = measure_cost(args.agentprompt, args.runs)
        ok = ok and ran
        sections.append(f"## Ranking cost (median of {args.runs} runs)\n\n{text}")
    report = "\n\n".join(sections)
    print(f"\n{report}")
    out = BENCH / ".work" / "task-rank.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report + "\n", encoding="utf-8")
    print(f"\n(written to {out})")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
