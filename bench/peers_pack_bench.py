"""Side by side (issue #10): packing a whole repository into one prompt, agentprompt
against files-to-prompt, gitingest and Repomix, in the same runs.

Run: ``.venv/bin/python bench/peers_pack_bench.py [--runs N] [--package DIR...] [--only
ROW...] [--cold]`` (after ``bench/peers.py``).

The corpus is the map corpus (``bench/map_corpus.py``, read only; ``--package`` packs some
of its top-level folders instead, copied under ``bench/.work/peers/pack-corpus/``). Each
tool is given the corpus root. Each run goes through the rows in turn, each a fresh process
writing its prompt to a temporary folder:

* agentprompt full: ``pack_repository(corpus, task)`` as in ``bench/pack_bench.py`` (every
  discovered file in full, exact ``o200k_base`` count, detect-secrets scan remembered by
  content); agentprompt signatures: the same with ``signatures=True`` (browse mode). Their
  caches live in ``bench/.work/peers/pack-cache/``, seeded once from
  ``bench/.work/pack-cache/`` (SQLite's backup API) when that exists, and one untimed run
  of each precedes the series, so every timed run is warm (as ``pack_bench.py``'s runs 2
  to 5); ``--cold`` clears them before every run instead;
* files-to-prompt: ``files-to-prompt PATH -o FILE`` (its defaults: ``.gitignore``
  honoured, hidden files skipped, no token count);
* gitingest: ``gitingest PATH -o FILE`` (its defaults: its ignore patterns, files over
  10 MB skipped, a tiktoken ``o200k_base`` token count, from the cache ``bench/peers.py``
  seeds, so nothing is downloaded: the bench fails if the count is missing); run in a
  network namespace of its own (``unshare -n``) when the machine allows it;
* repomix full and repomix compress: ``node repomix.cjs PATH --quiet --output FILE
  [--compress]`` (1.18.1, as in ``bench/pack_bench.py``: token count and secretlint on).

Wall time and CPU time (user + sys of the children), median, min and max, the largest peak
memory (summed RSS of the process tree, sampled every 20 ms) and the output size are
reported; agentprompt over each peer as a ratio taken run by run. Results go to
``bench/.work/peers/pack.md`` and ``.png``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from map_bench import run_sampled  # noqa: E402
from map_corpus import build_corpus  # noqa: E402
from pack_bench import _PACK, CACHE, REPOMIX, TASK, _ensure_repomix, _git_corpus  # noqa: E402
from peers import TIKTOKEN_CACHE, venv_python  # noqa: E402
from peers_report import WORK, bars, cells, header, save, table  # noqa: E402

OWN_CACHE = WORK / "pack-cache" / "cache.db"
PAIRS = [
    ("agentprompt full", "files-to-prompt"),
    ("agentprompt full", "gitingest"),
    ("agentprompt full", "repomix full"),
    ("agentprompt signatures", "repomix compress"),
]
"""The ratios reported: agentprompt's row over the peer's, run by run."""


def _seed_cache() -> None:
    """Copy the shared pack cache once, through SQLite, so a concurrent writer is safe."""
    if OWN_CACHE.exists() or not CACHE.exists():
        return
    OWN_CACHE.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(CACHE) as source, sqlite3.connect(OWN_CACHE) as target:
        source.backup(target)


def _isolated() -> list[str]:
    done = subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False)
    return ["unshare", "-n"] if done.returncode == 0 else []


def commands(corpus: Path, out: Path) -> dict[str, list[str]]:
    """Each row's command, every one given the corpus root."""
    tools = venv_python("ingest").parent
    python = [sys.executable, "-c", _PACK, str(corpus), TASK]
    repomix = ["node", str(REPOMIX), str(corpus), "--quiet", "--output", str(out)]
    return {
        "agentprompt full": [*python, "full", str(OWN_CACHE), str(out)],
        "files-to-prompt": [str(tools / "files-to-prompt"), str(corpus), "-o", str(out)],
        "gitingest": [
            "env",
            f"TIKTOKEN_CACHE_DIR={TIKTOKEN_CACHE}",
            *_isolated(),
            str(tools / "gitingest"),
            str(corpus),
            "-o",
            str(out),
        ],
        "repomix full": repomix,
        "agentprompt signatures": [*python, "signatures", str(OWN_CACHE), str(out)],
        "repomix compress": [*repomix, "--compress"],
    }


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(command: list[str], out: Path) -> tuple[float, float, float, float]:
    """Wall and CPU seconds of ``command``, the MB it wrote to ``out``, and the peak summed
    RSS (MB) of its process tree, sampled every 20 ms as ``bench/map_bench.py`` does."""
    cpu = _cpu()
    wall, peak, said, err, status = run_sampled(command)
    if status != 0:
        raise SystemExit(f"{command} failed ({status}):\n{err[-2000:]}")
    if "gitingest" in " ".join(command) and "Estimated tokens" not in said:
        raise SystemExit(f"gitingest did not count tokens (run bench/peers.py):\n{said}")
    written = out.stat().st_size
    out.unlink()
    return wall, _cpu() - cpu, written / 1e6, peak / 1e6


def main() -> None:
    """Pack the corpus with every tool, ``--runs`` rounds, and print table and plot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--package", nargs="*", help="Corpus folders to pack (default: all).")
    parser.add_argument("--cold", action="store_true", help="Clear agentprompt's caches.")
    parser.add_argument("--only", nargs="*", help="Rows to run (default: all).")
    args = parser.parse_args()
    _ensure_repomix()
    corpus = build_corpus()
    _git_corpus(corpus)
    if args.package:
        corpus = WORK / "pack-corpus" / "-".join(args.package)
        if not (corpus / ".git").exists():
            shutil.rmtree(corpus, ignore_errors=True)
            for package in args.package:
                shutil.copytree(build_corpus() / package, corpus / package, symlinks=True)
            _git_corpus(corpus)
    _seed_cache()
    results: dict[str, list[tuple[float, float, float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="peers-pack-") as folder:
        out = Path(folder) / "prompt.txt"
        rows = {r: c for r, c in commands(corpus, out).items() if not args.only or r in args.only}
        for row in rows:
            if row.startswith("agentprompt") and not args.cold:
                _run(rows[row], out)  # untimed, so every timed run finds the caches warm
        for _ in range(args.runs):
            for row, command in rows.items():
                if args.cold and row.startswith("agentprompt"):
                    shutil.rmtree(OWN_CACHE.parent, ignore_errors=True)
                results.setdefault(row, []).append(_run(command, out))
    head = header(
        args.runs,
        f"corpus: {corpus}; agentprompt "
        f"{'cold' if args.cold else 'warm, after one untimed run'} (caches in {OWN_CACHE.parent})",
    )
    body = []
    for row, values in results.items():
        walls, cpus, sizes, peaks = zip(*values, strict=True)
        body.append(
            [row, *cells(walls, 2), *cells(cpus, 2)[:1], f"{max(peaks):.0f}", f"{sizes[0]:.1f}"]
        )
    for ours, peer in PAIRS:
        if ours in results and peer in results:
            pairs = zip(results[ours], results[peer], strict=True)
            ratio = [a[0] / b[0] for a, b in pairs]
            body.append([f"ratio {ours} / {peer} (wall, per run)", *cells(ratio, 2), "", "", ""])
    text = table(
        ["row", "wall s median", "min", "max", "CPU s median", "peak tree RSS MB", "output MB"],
        body,
    )
    shown = {row: " ".join(c).replace(_PACK, "PACK") for row, c in rows.items()}
    exact = "\n".join(f"- {row}: `{c}`" for row, c in shown.items())
    exact += "\n\n(PACK: the script `_PACK` of bench/pack_bench.py, run with `python -c`)"
    save("pack", f"{head}\n\n{text}\n\ncommands (last run):\n{exact}")
    medians = [statistics.median(v[0] for v in values) for values in results.values()]
    title = f"Pack of {corpus.name}: wall seconds (median of {args.runs})"
    bars("pack", title, list(results), {"wall seconds": medians}, "seconds (log scale)", log=True)


if __name__ == "__main__":
    main()
