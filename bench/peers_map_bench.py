"""Side by side (issue #10): the repository map, agentprompt against Aider's, with
universal-ctags as the reference, on the same files.

Run: ``.venv/bin/python bench/peers_map_bench.py [--runs N] [--tokens N] [--package DIR...]``
(after ``bench/peers.py``).

The files are the map corpus (``bench/map_corpus.py``; 10,910 code files), or with
``--package DIR...`` some of its top-level folders (``--package Django-5.0.6``: 2,867 code
files, for a quick check; one cold run of Aider on the whole corpus took 97 s under load),
copied to ``bench/.work/peers/map-corpus/`` (both tools write their caches into the
repository, and the corpus itself is never modified) and
committed to a git repository of their own there. The code files agentprompt discovers
there are the list given to ctags and to Aider, so all three read the same files.

Each run goes through the rows in turn, agentprompt and Aider back to back in every row
(a busy moment on the machine hits both alike), each a fresh process:

1. ctags: ``ctags --fields=+n -f - -L LIST``.
2. cold: agentprompt ``map --root ROOT --tokens N`` with its cache removed; Aider's
   ``RepoMap(map_tokens=N).get_repo_map([], FILES)`` (``bench/peers_aider_map.py``, in
   aider's venv, network refused) with its tag cache removed.
3. warm: the same again, nothing changed.
4. one changed file: a new function appended to Django's ``django/utils/text.py`` before the run.

Wall time, CPU time (user + sys of the process tree, from ``getrusage`` of the children)
and peak memory (the summed RSS of the process tree, sampled every 20 ms by
``bench/map_bench.py``'s sampler) are reported, each as median, min and max; agentprompt
over Aider as a ratio taken run by run. Results go to ``bench/.work/peers/map.md`` and
``.png``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from agentprompt.repo.discovery import discover  # noqa: E402
from agentprompt.repo.symbols import language_for_path  # noqa: E402
from map_bench import (  # noqa: E402
    AGENTPROMPT,
    EDITED,
    _ensure_ctags,
    _git_corpus,
    _timed,
    compile_bytecode,
)
from map_corpus import build_corpus  # noqa: E402
from peers import venv_python  # noqa: E402
from peers_report import WORK, bars, cells, header, save, table  # noqa: E402

DRIVER = BENCH / "peers_aider_map.py"
AIDER_CACHE = ".aider.tags.cache.v4"


def _copy(packages: list[str]) -> Path:
    """The chosen corpus packages, copied into a git repository of their own."""
    root = WORK / "map-corpus" / "-".join(packages)
    if not (root / ".git").exists():
        shutil.rmtree(root, ignore_errors=True)
        corpus = build_corpus()
        if packages == ["all"]:
            packages = sorted(p.name for p in corpus.iterdir() if not p.name.startswith("."))
        for package in packages:
            shutil.copytree(corpus / package, root / package, symlinks=True)
        _git_corpus(root)
    return root


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _measure(command: list[str], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak tree RSS (MB) of one fresh process."""
    before = _cpu()
    wall, peak = _timed(command, cwd)
    return wall, _cpu() - before, peak / 1e6


def main() -> None:
    """Copy the files, then time ctags, agentprompt and Aider row by row."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument(
        "--package", nargs="+", default=["all"], help="Corpus folders to map (default: all)."
    )
    args = parser.parse_args()
    compile_bytecode()  # as map_bench.py does: the bytecode a wheel's install would have
    root = _copy(args.package)
    found = discover(root)
    code = [f.path for f in found.files if language_for_path(f.path) is not None]
    listing = WORK / "map-files.txt"
    listing.write_text("\n".join(code) + "\n")
    absolute = WORK / "map-files-absolute.txt"
    absolute.write_text("\n".join(str(root / p) for p in code) + "\n")
    summary = WORK / "aider-map.json"
    aider = [str(venv_python("aider")), str(DRIVER), str(root), str(absolute)]
    aider += [str(args.tokens), str(summary)]
    ours = [str(AGENTPROMPT), "map", "--root", str(root), "--tokens", str(args.tokens)]
    ctags = [_ensure_ctags(), "--fields=+n", "-f", "-", "-L", str(listing)]
    target = root / EDITED
    original = target.read_bytes()

    def cold() -> None:
        shutil.rmtree(root / ".agentprompt", ignore_errors=True)
        shutil.rmtree(root / AIDER_CACHE, ignore_errors=True)

    def changed() -> None:
        name = f"bench_added_{time.time_ns()}"
        target.write_bytes(original + f"\n\ndef {name}(value):\n    return value\n".encode())

    rows: dict[str, Callable[[], None]] = {"cold": cold, "warm": lambda: None}
    rows["one changed file"] = changed
    results: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    try:
        for _ in range(args.runs):
            results.setdefault(("reference", "ctags"), []).append(_measure(ctags, root))
            for row, prepare in rows.items():
                prepare()
                results.setdefault((row, "agentprompt"), []).append(_measure(ours, root))
                if row != "cold":
                    prepare()  # the same change made afresh for Aider
                results.setdefault((row, "aider"), []).append(_measure(aider, root))
                said = json.loads(summary.read_text())
                if said["network_attempts"]:
                    raise SystemExit(f"aider tried the network: {said['network_attempts']}")
    finally:
        target.write_bytes(original)
    said = json.loads(summary.read_text())
    head = header(
        args.runs,
        f"files: {', '.join(args.package)} from the map corpus, {len(code)} code files; "
        f"map budget {args.tokens} tokens; Aider's map: {said['lines']} lines, "
        f"network attempts: {len(said['network_attempts'])}",
    )
    body = []
    for (row, tool), values in results.items():
        walls, cpus, peaks = zip(*values, strict=True)
        body.append([row, tool, *cells(walls, 2), *cells(cpus, 2)[:1], *cells(peaks, 0)[:1]])
    for row in rows:
        ratio = [
            a[0] / b[0]
            for a, b in zip(results[(row, "agentprompt")], results[(row, "aider")], strict=True)
        ]
        body.append([row, "ratio agentprompt / aider (wall, per run)", *cells(ratio, 2)])
        body[-1] += ["", ""]
    text = table(
        ["row", "tool", "wall s median", "min", "max", "CPU s median", "peak tree RSS MB"],
        body,
    )
    save("map", f"{head}\n\n{text}")

    def median(key: tuple[str, str]) -> float:
        return statistics.median([v[0] for v in results[key]])

    series = {tool: [median((row, tool)) for row in rows] for tool in ("agentprompt", "aider")}
    series["ctags (reference, same files)"] = [median(("reference", "ctags"))] * len(rows)
    title = f"Repository map, {len(code)} files: wall seconds (median of {args.runs})"
    bars("map", title, list(rows), series, "seconds (log scale)", log=True)


if __name__ == "__main__":
    main()
