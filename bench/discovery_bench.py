"""Discovery benchmark: ``discover()`` against the tools it builds on, on the map corpus.

The corpus is the repository-map corpus (``bench/map_corpus.py``: pinned PyPI sdists and npm
packages, ~23k files). It is hard-linked into a temporary git repository (removed at the
end), and each run measures, pair by pair:

- ``git ls-files -z --cached --others --exclude-standard`` alone (the reference: the one
  call discovery makes inside git) against ``discover(root)`` in git mode (the call plus
  rules, stat and the 8 KiB sniff of every candidate);
- ``find ROOT -type f`` (the reference walk) against ``discover(root, follow_git=False)``
  (a walk applying every ``.gitignore``).

Run: ``.venv/bin/python bench/discovery_bench.py --runs 7``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agentprompt.repo.discovery import DiscoveryOptions, discover
from map_corpus import build_corpus

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]


def _git_copy(corpus: Path, into: Path) -> Path:
    """``corpus`` hard-linked into ``into/repo`` and committed to a fresh git repository."""
    repo = into / "repo"
    subprocess.run(["cp", "-al", str(corpus), str(repo)], check=True)
    (repo / ".complete").unlink(missing_ok=True)
    subprocess.run([*GIT, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "corpus"], cwd=repo, check=True)
    return repo


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _row(name: str, values: list[float], unit: str = "ms") -> str:
    scale = 1000.0 if unit == "ms" else 1.0
    med, low, high = (statistics.median(values), min(values), max(values))
    fmt = "{:.1f}" if unit == "ms" else "{:.2f}"
    return (
        f"| {name} | {fmt.format(med * scale)} {unit} | {fmt.format(low * scale)} {unit} "
        f"| {fmt.format(high * scale)} {unit} |"
    )


def main() -> None:
    """Build the corpus, measure, print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="Runs per measurement (>= 5).")
    args = parser.parse_args()
    corpus = build_corpus()
    tmp = Path(tempfile.mkdtemp(prefix="agentprompt-discovery-"))
    try:
        repo = _git_copy(corpus, tmp)
        walk = DiscoveryOptions(follow_git=False)
        git_cmd = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
        listed = len(subprocess.run(git_cmd, cwd=repo, capture_output=True).stdout.split(b"\0"))
        found = discover(repo)
        walked = discover(repo, walk)
        samples: dict[str, list[float]] = {k: [] for k in ("ls", "git", "find", "walk")}
        for _ in range(args.runs):
            samples["ls"].append(
                _timed(lambda: subprocess.run(git_cmd, cwd=repo, capture_output=True))
            )
            samples["git"].append(_timed(lambda: discover(repo)))
            samples["find"].append(
                _timed(
                    lambda: subprocess.run(
                        ["find", str(repo), "-type", "f", "-not", "-path", "*/.git/*"],
                        capture_output=True,
                    )
                )
            )
            samples["walk"].append(_timed(lambda: discover(repo, walk)))
        ratio_git = [g / r for g, r in zip(samples["git"], samples["ls"], strict=True)]
        ratio_walk = [w / r for w, r in zip(samples["walk"], samples["find"], strict=True)]
        print(
            f"corpus: {listed - 1} files in git's view; discover kept {len(found.files)} "
            f"(git) / {len(walked.files)} (walk), left out {len(found.excluded)} / "
            f"{len(walked.excluded)}"
        )
        python = sys.version.split()[0]
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {python}")
        print(f"runs: {args.runs}\n")
        print("| measurement | median | min | max |\n| --- | --- | --- | --- |")
        print(_row("`git ls-files` alone (reference)", samples["ls"]))
        print(_row("`discover(root)`, git mode", samples["git"]))
        print(_row("ratio git mode / `git ls-files`, per run", ratio_git, unit="x"))
        print(_row("`find -type f` (reference)", samples["find"]))
        print(_row("`discover(root, follow_git=False)`, walk", samples["walk"]))
        print(_row("ratio walk / `find`, per run", ratio_walk, unit="x"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
