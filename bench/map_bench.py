"""Benchmark of the repository map (issue #3) against universal-ctags on the same files.

Run: ``make bench`` or ``.venv/bin/python bench/map_bench.py [--runs N] [--tokens N]``.

The corpus is built from pinned registry packages by ``bench/map_corpus.py`` into
``bench/.corpus/`` (git-ignored) and committed to a git repository of its own there, so
discovery takes git's view as it would in a real project. Universal-ctags is installed with
apt when missing. Each figure is the wall time of a fresh process, median of ``--runs``
runs with min and max:

1. ctags: ``ctags --fields=+n -f - -L LIST`` over the code files the map reads.
2. cold map: ``agentprompt map`` with no cache (every file parsed, both cores).
3. warm map: the same command again, nothing changed.
4. one changed file, no new names: a comment appended to one file before each run.
5. one changed file, new function: a new function appended to one file before each run
   (the reference graph changes, so the ranking is computed again).

The package's modules are compiled to bytecode first (``compileall``), as a wheel's install
does; the machines here set ``PYTHONDONTWRITEBYTECODE``, under which an editable install
would compile them anew in every run (about 0.06 s).

Peak memory is sampled every 20 ms over the whole process tree (main process and parse
workers, summed) from ``/proc``, and also taken as the largest single process's maximum
resident size from ``getrusage``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from agentprompt.repo.discovery import discover  # noqa: E402
from agentprompt.repo.symbols import language_for_path  # noqa: E402
from map_corpus import build_corpus  # noqa: E402

AGENTPROMPT = Path(sys.executable).parent / "agentprompt"
EDITED = "Django-5.0.6/Django-5.0.6/django/utils/text.py"


def _git_corpus(corpus: Path) -> None:
    if (corpus / ".git").exists():
        return
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=corpus, check=True)
    subprocess.run([*git, "add", "-A", "."], cwd=corpus, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "corpus"], cwd=corpus, check=True)


def _ensure_ctags() -> str:
    found = shutil.which("ctags")
    if found is None:
        subprocess.run(["apt-get", "install", "-y", "-q", "universal-ctags"], check=True)
        found = shutil.which("ctags")
    if found is None:
        raise SystemExit("universal-ctags is not installed and apt-get could not install it")
    return found


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants, from /proc."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/statm") as handle:
                total += int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    stack.extend(int(c) for c in handle.read().split())
        except (OSError, ValueError):
            continue
    return total


def run_sampled(command: list[str], cwd: Path | None = None) -> tuple[float, int, str, str, int]:
    """Run ``command``: its wall seconds, the peak summed RSS of its process tree (bytes,
    sampled every 20 ms), its stdout and stderr, and its exit status."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",  # ctags quotes source lines, some not UTF-8
    )
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(process.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    said, err = process.communicate()
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    return elapsed, peak, said, err, process.returncode


def _timed(command: list[str], cwd: Path) -> tuple[float, int]:
    """Wall seconds of ``command`` and the peak summed RSS of its process tree."""
    elapsed, peak, _, err, status = run_sampled(command, cwd)
    if status != 0:
        raise SystemExit(f"{command[0]} failed ({status}): {err[-2000:]}")
    return elapsed, peak


def _series(
    name: str, runs: int, command: list[str], cwd: Path, before: Callable[[int], None]
) -> dict[str, float]:
    times, peaks = [], []
    for i in range(runs):
        before(i)
        elapsed, peak = _timed(command, cwd)
        times.append(elapsed)
        peaks.append(peak)
    row = {
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "peak_mb": max(peaks) / 1e6,
    }
    print(
        f"{name:<34} median {row['median']:7.3f} s  min {row['min']:7.3f}  "
        f"max {row['max']:7.3f}  peak tree RSS {row['peak_mb']:6.0f} MB",
        flush=True,
    )
    return row


def compile_bytecode() -> None:
    """Compile the package's modules to bytecode, as installing a wheel does: an editable
    install gets it on first import, unless ``PYTHONDONTWRITEBYTECODE`` is set (as on the
    machines here), and then every run would compile every module it imports again."""
    import agentprompt

    package = Path(agentprompt.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def main() -> None:
    """Build the corpus, then time ctags and the map side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=4096)
    args = parser.parse_args()
    compile_bytecode()
    corpus = build_corpus()
    _git_corpus(corpus)
    ctags = _ensure_ctags()
    found = discover(corpus)
    code = [f.path for f in found.files if language_for_path(f.path) is not None]
    listing = BENCH / ".corpus-files.txt"
    listing.write_text("\n".join(code) + "\n")
    languages: dict[str, int] = {}
    for path in code:
        language = language_for_path(path) or "?"
        languages[language] = languages.get(language, 0) + 1
    size = sum(f.size for f in found.files if language_for_path(f.path) is not None)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {sys.version.split()[0]}, {platform.platform()}"
    )
    print(
        f"corpus: {corpus} ({len(found.files)} files discovered, {len(code)} code files, "
        f"{size / 1e6:.1f} MB of code)"
    )
    print("languages: " + ", ".join(f"{k} {v}" for k, v in sorted(languages.items())))
    print(f"runs: {args.runs}, map budget {args.tokens} tokens\n")

    cache = corpus / ".agentprompt"
    target = corpus / EDITED
    original = target.read_bytes()
    map_command = [str(AGENTPROMPT), "map", "--root", str(corpus), "--tokens", str(args.tokens)]

    def nothing(_: int) -> None:
        return None

    def drop_cache(_: int) -> None:
        shutil.rmtree(cache, ignore_errors=True)

    def comment(i: int) -> None:
        target.write_bytes(original + f"\n# {i}{time.time_ns()}\n".encode())

    def new_function(i: int) -> None:
        name = f"bench_added_{i}_{time.time_ns()}"
        target.write_bytes(original + f"\n\ndef {name}(value):\n    return value\n".encode())

    try:
        results = {
            "ctags": _series(
                "ctags",
                args.runs,
                [ctags, "--fields=+n", "-f", "-", "-L", str(listing)],
                corpus,
                nothing,
            ),
            "cold": _series("cold map (no cache)", args.runs, map_command, corpus, drop_cache),
            "warm": _series("warm map (nothing changed)", args.runs, map_command, corpus, nothing),
            "comment": _series(
                "one changed file (no new names)", args.runs, map_command, corpus, comment
            ),
            "function": _series(
                "one changed file (new function)", args.runs, map_command, corpus, new_function
            ),
        }
    finally:
        target.write_bytes(original)
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e3
    ratio = results["cold"]["median"] / results["ctags"]["median"]
    print(f"\ncold map / ctags (medians): {ratio:.2f}x")
    print(f"largest single process max RSS (getrusage): {largest:.0f} MB")


if __name__ == "__main__":
    main()
