"""What a first prompt holds, on every ranking-dev task: its size by default, and under a
budget whether it keeps the code the accepted fix changes; Aider's repository map at the
same budget beside it; and the time a first prompt takes against an earlier checkout's.

Run: ``.venv/bin/python bench/first_prompt_bench.py [--tasks N] [--timing-runs N]
[--baseline DIR/src] [--no-aider]``.

For every task of ``../shared/corpora/ranking-dev`` (trees unpacked and committed once by
``bench/task_rank_bench.py``'s ``prepare_trees``), ``agentprompt pack --root TREE --new
--task STATEMENT --json`` is run with no budget flag (the default first prompt), and with
``--max-tokens`` 16,000, 24,000 and 4,000. For each prompt:

* **tokens**, and whether the command succeeded;
* **gold file summarised**: every gold Python file has a block of its own (its summary
  under ``### path``, or its text under ``## path``);
* **gold functions named**: every name of ``gold_functions`` is a word of the blocks of
  its file (summary, full text, or a relevant code block headed ``### path (lines ...)``);
* **gold function in full**: the text of at least one gold function (the innermost
  definition of that name holding a line the fix changes, read with ``ast`` at the base
  commit, from ``def``/``class`` to its last line) is in the prompt verbatim.

Aider's map (``bench/peers_aider_taskmap.py`` in aider's venv, from ``bench/peers.py``)
at 16,000 and 24,000 tokens is scored the same way: the gold file named (its path is a
file line of the map) and each gold function a word of that file's part of the map.

Timing (``--timing-runs``, default 3, median): one task per repository, the default first
prompt of this checkout against ``pack --task`` of ``--baseline`` (an earlier checkout's
``src``, default ``/work/baseline/src``; skipped when missing), each as a person runs it
(the prompt printed, to a discarded stdout), cold (the tree's ``.agentprompt`` removed)
and warm (run again).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from peers import run_aider_driver  # noqa: E402
from task_rank_bench import CORPUS, WORK, git_files, prepare_trees  # noqa: E402
from task_rank_bench import Task as RankTask  # noqa: E402

BUDGETS = (16_000, 24_000, 4_000)
AIDER_BUDGETS = (16_000, 24_000)
DEFAULT_LIMIT = 25_000
AIDER_DRIVER = BENCH / "peers_aider_taskmap.py"
AGENTPROMPT = ROOT / ".venv" / "bin" / "agentprompt"
"""The command; ``PYTHONPATH`` picks the checkout it runs (this one, or the baseline)."""


@dataclass(frozen=True, kw_only=True)
class Task(RankTask):
    """One ranking-dev task with what its fix changes."""

    gold_functions: dict[str, list[str]]
    """Each gold Python file's changed functions (innermost definitions)."""
    patch: str
    """The accepted fix."""

    @property
    def gold_python(self) -> list[str]:
        """The gold files a summary can name functions of: the Python ones (all of them
        when none is Python)."""
        return [p for p in self.gold if p.endswith(".py")] or list(self.gold)


@dataclass
class Scored:
    """What one prompt (or map) holds of a task's fix."""

    ok: bool = True
    tokens: int = 0
    summarised: bool = False
    named: bool = False
    in_full: bool = False
    error: str = ""


def load_tasks() -> list[Task]:
    """Every ranking-dev task."""
    raw = json.loads((CORPUS / "tasks.json").read_text(encoding="utf-8"))
    return [
        Task(
            instance_id=t["instance_id"],
            repo=t["repo"],
            base_commit=t["base_commit"],
            text=t["problem_statement"],
            gold=tuple(t["gold_files"]),
            gold_functions={p: list(n) for p, n in t["gold_functions"].items()},
            patch=t["gold_patch"],
        )
        for t in raw
    ]


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.M)


def changed_lines(patch: str, path: str) -> set[int]:
    """The old-side lines of ``path`` the patch removes, or inserts before."""
    lines: set[int] = set()
    section = re.split(r"^diff --git ", patch, flags=re.M)
    for part in section:
        if not part.startswith(f"a/{path} "):
            continue
        for hunk in re.split(r"(?=^@@ )", part, flags=re.M):
            head = _HUNK.match(hunk)
            if head is None:
                continue
            at = int(head.group(1))
            for line in hunk.split("\n")[1:]:
                if line.startswith("-"):
                    lines.add(at)
                    at += 1
                elif line.startswith("+"):
                    lines.add(at)
                elif line.startswith(" ") or line == "":
                    at += 1
    return lines


def gold_texts(task: Task) -> list[str]:
    """The source text of each gold function (``def``/``class`` line to its end)."""
    texts = []
    for path, names in task.gold_functions.items():
        source = (task.tree / path).read_text(encoding="utf-8", errors="replace")
        lines = source.split("\n")
        changed = changed_lines(task.patch, path)
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, kinds)]
        for name in names:
            holding = [
                n
                for n in nodes
                if n.name == name
                and any(n.lineno <= c <= (n.end_lineno or n.lineno) for c in changed)
            ]
            if holding:
                node = min(holding, key=lambda n: (n.end_lineno or n.lineno) - n.lineno)
                texts.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
    return texts


def _blocks_of(text: str, path: str) -> str:
    """The prompt's blocks of ``path``: its summary, its full text, its code blocks."""
    found = []
    for head in (f"### {path}\n", f"## {path}\n", f"### {path} (lines "):
        at = text.find(head)
        while at >= 0:
            end = text.find("\n### ", at + len(head))
            end2 = text.find("\n## ", at + len(head))
            stops = [e for e in (end, end2) if e >= 0]
            found.append(text[at : min(stops) if stops else len(text)])
            at = text.find(head, at + len(head))
    return "\n".join(found)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def score_prompt(task: Task, text: str, tokens: int, golds: list[str]) -> Scored:
    """What the prompt ``text`` holds of the task's fix."""
    scored = Scored(tokens=tokens)
    scored.summarised = all(_blocks_of(text, p) for p in task.gold_python)
    named = []
    for path, names in task.gold_functions.items():
        words = _words(_blocks_of(text, path))
        named.append(all(n in words for n in names))
    scored.named = all(named) if named else False
    scored.in_full = any(g in text for g in golds)
    return scored


def _aider_section(text: str, path: str) -> str | None:
    """The part of an aider map under ``path``'s file line, or None when not there."""
    lines = text.split("\n")
    out: list[str] = []
    inside = False
    for line in lines:
        header = bool(line) and line[0] not in " │⋮\t" and line.rstrip().endswith(":")
        if header:
            inside = line.rstrip()[:-1] == path
            if inside:
                out.append(line)
            continue
        if inside:
            out.append(line)
    return "\n".join(out) if out else None


def score_map(task: Task, text: str) -> Scored:
    """What aider's map ``text`` holds of the task's fix."""
    scored = Scored()
    scored.summarised = all(_aider_section(text, p) is not None for p in task.gold_python)
    named = []
    for path, names in task.gold_functions.items():
        words = _words(_aider_section(text, path) or "")
        named.append(all(n in words for n in names))
    scored.named = all(named) if named else False
    return scored


def timed_pack(task: Task, src: Path) -> float:
    """The seconds of ``pack --task`` on the task's tree as a person runs it: the prompt
    printed (to a discarded stdout), the size report on stderr."""
    command = [str(AGENTPROMPT), "pack", "--root", str(task.tree), "--new", "--task", task.text]
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("AGENTPROMPT_MAX_TOKENS", None)
    start = time.perf_counter()
    done = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pack failed on {task.instance_id}: {done.stderr[-500:]!r}")
    return seconds


def pack(task: Task, budget: int | None, src: Path) -> tuple[Scored, float, str]:
    """``pack --task`` on the task's tree, scored, with its seconds and its stderr."""
    command = [
        str(AGENTPROMPT),
        "pack",
        "--root",
        str(task.tree),
        "--new",
        "--task",
        task.text,
        "--json",
    ]
    if budget is not None:
        command += ["--max-tokens", str(budget)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("AGENTPROMPT_MAX_TOKENS", None)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        return Scored(ok=False, error=done.stderr.strip()[-300:]), seconds, done.stderr
    data = json.loads(done.stdout)
    return score_prompt(task, data["text"], data["tokens"], gold_texts(task)), seconds, done.stderr


def aider_maps(tasks: Sequence[Task]) -> dict[str, Scored]:
    """Aider's map of every task at each of :data:`AIDER_BUDGETS`, scored."""
    jobs = [
        {
            "id": t.instance_id,
            "root": str(t.tree),
            "task": t.text,
            "files": git_files(t.tree),
            "tokens": b,
        }
        for t in tasks
        for b in AIDER_BUDGETS
    ]
    jobs_path, out = WORK / "aider-taskmap-jobs.json", WORK / "aider-taskmaps.json"
    wanted = {f"{j['id']}@{j['tokens']}" for j in jobs}
    if out.exists() and wanted <= json.loads(out.read_text())["maps"].keys():
        print(f"aider: the maps of an earlier run ({out}; delete it to map again)", flush=True)
        return _scored_maps(tasks, json.loads(out.read_text()))
    said = run_aider_driver(AIDER_DRIVER, jobs, jobs_path, out)
    if isinstance(said, str):
        print(said, flush=True)
        return {}
    return _scored_maps(tasks, said)


def _scored_maps(tasks: Sequence[Task], said: dict[str, Any]) -> dict[str, Scored]:
    """Aider's maps as :func:`aider_maps` read them, scored."""
    if said["network_attempts"]:
        raise SystemExit(f"aider tried the network: {said['network_attempts']}")
    by_id = {t.instance_id: t for t in tasks}
    return {
        key: score_map(by_id[key.rpartition("@")[0]], value["text"])
        for key, value in said["maps"].items()
        if key.rpartition("@")[0] in by_id
    }


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


def quality(tasks: Sequence[Task], aider: bool) -> None:
    """Print the first prompt's size and what it holds, per budget, against aider."""
    results: dict[str | int, list[tuple[Task, Scored]]] = {}
    lines: list[str] = []
    for budget in (None, *BUDGETS):
        for task in tasks:
            scored, _seconds, err = pack(task, budget, ROOT / "src")
            results.setdefault(budget or "default", []).append((task, scored))
            if not scored.ok:
                lines.append(f"  {task.instance_id} at {budget}: FAILED {scored.error}")
            stderr_lines = len([x for x in err.split("\n") if x.strip()])
            if budget is None and stderr_lines > 12:
                lines.append(f"  {task.instance_id}: {stderr_lines} stderr lines")
        print(f"measured {budget or 'default'}", flush=True)
    with_functions = [t for t in tasks if any(t.gold_functions.values())]
    print(f"\n{len(tasks)} tasks ({len(with_functions)} with gold functions)")
    default = results["default"]
    sizes = sorted(s.tokens for _t, s in default if s.ok)
    over = sum(1 for _t, s in default if not s.ok or s.tokens > DEFAULT_LIMIT)
    print(
        f"default first prompt: median {statistics.median(sizes):,.0f} tokens, largest "
        f"{max(sizes):,}, over {DEFAULT_LIMIT:,}: {over}"
    )
    peers = aider_maps(tasks) if aider else {}
    print(
        "\n| budget | tool | ran | gold file kept | every gold function named "
        "| a gold function in full |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for budget in ("default", *BUDGETS):
        rows = results[budget]
        ran = sum(1 for _t, s in rows if s.ok and (budget == "default" or s.tokens <= budget))
        kept = sum(1 for _t, s in rows if s.ok and s.summarised)
        named = sum(1 for t, s in rows if s.ok and s.named and t in with_functions)
        full = sum(1 for t, s in rows if s.ok and s.in_full and t in with_functions)
        print(
            f"| {budget} | agentprompt | {_pct(ran, len(rows))} | {_pct(kept, len(rows))} | "
            f"{_pct(named, len(with_functions))} | {_pct(full, len(with_functions))} |"
        )
        if isinstance(budget, int) and budget in AIDER_BUDGETS and peers:
            scored = [(t, peers.get(f"{t.instance_id}@{budget}")) for t in tasks]
            kept = sum(1 for _t, s in scored if s and s.summarised)
            named = sum(1 for t, s in scored if s and s.named and t in with_functions)
            print(
                f"| {budget} | aider map | {_pct(len(peers) // len(AIDER_BUDGETS), len(rows))} "
                f"| {_pct(kept, len(rows))} | {_pct(named, len(with_functions))} | - |"
            )
    if lines:
        print("\nnotes:")
        print("\n".join(lines))
    misses = [t.instance_id for t, s in results[16_000] if s.ok and not s.summarised]
    print(f"\nat 16000, gold file without a block: {misses}")
    misses = [
        t.instance_id for t, s in results[16_000] if s.ok and not s.named and t in with_functions
    ]
    print(f"at 16000, a gold function not named: {misses}")


def timing(tasks: Sequence[Task], runs: int, baseline: Path) -> None:
    """The default first prompt's seconds against the baseline's ``pack --task``."""
    chosen: dict[str, Task] = {}
    for task in tasks:
        chosen.setdefault(task.repo, task)
    print(f"\ntiming: median of {runs} runs, cold and warm, one task per repository")
    print("| repository | baseline cold | now cold | ratio | baseline warm | now warm | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for task in chosen.values():
        cells: list[str] = [task.repo]
        measured: dict[tuple[str, str], float] = {}
        for label, src in (("baseline", baseline), ("now", ROOT / "src")):
            cold, warm = [], []
            for _ in range(runs):
                shutil.rmtree(task.tree / ".agentprompt", ignore_errors=True)
                cold.append(timed_pack(task, src))
                warm.append(timed_pack(task, src))
            measured[(label, "cold")] = statistics.median(cold)
            measured[(label, "warm")] = statistics.median(warm)
        for kind in ("cold", "warm"):
            base, now = measured[("baseline", kind)], measured[("now", kind)]
            cells += [f"{base:.2f} s", f"{now:.2f} s", f"{now / base:.2f}×"]
        print("| " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=0, help="only the first N tasks")
    parser.add_argument("--timing-runs", type=int, default=3)
    parser.add_argument("--baseline", type=Path, default=Path("/work/baseline/src"))
    parser.add_argument("--no-aider", action="store_true")
    parser.add_argument("--only", choices=("quality", "timing"))
    args = parser.parse_args()
    tasks = load_tasks()
    if args.tasks:
        tasks = tasks[: args.tasks]
    prepare_trees(CORPUS, tasks)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    if args.only != "timing":
        quality(tasks, aider=not args.no_aider)
    if args.only != "quality":
        if args.baseline.is_dir():
            timing(tasks, args.timing_runs, args.baseline)
        else:
            print(f"timing skipped: {args.baseline} does not exist")


if __name__ == "__main__":
    main()
