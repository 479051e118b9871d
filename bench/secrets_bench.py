"""Secret scan, line by line: the same findings as detect-secrets' whole-file scan, for less CPU.

Reads every file discovery keeps in the corpus (``bench/.corpus``, built by
``bench/map_corpus.py``) as the pack reads it (``repo.files.read_texts``), then:

``--check``: the findings of ``scan_texts`` (detect-secrets only on the lines its rules
could flag) against plain ``scan_file`` on every whole file (no prefilter at all), in at
most ``--workers`` processes. Prints every file where detect-secrets' findings differ; exits
1 if any does. agentprompt's own rules (secret stores, passwords in URLs) add findings
detect-secrets does not make: they are counted apart.

``--time N``: CPU seconds (``time.process_time``, this process) of the whole-file path
(the prefilter, then ``scan_file`` on every file it lets through: ``scan_texts`` before
line scanning) and of ``scan_texts`` now, interleaved, N pairs, caches cleared each time;
then the two parts of ``scan_texts`` apart: the rules' pass that names the candidate lines,
and detect-secrets on those lines (and on the lines its transformers rewrite).

``--against REV --rounds N``: CPU seconds of the rules' pass alone (``candidate_lines`` on
every file) with ``repo/secrets/_filter.py`` as it is at git revision ``REV`` and as it is
now, interleaved in one process, N rounds; and whether the candidate lines now are the
same as, or a subset of, those at ``REV``.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from agentprompt.repo.discovery import discover, read_texts
from agentprompt.repo.secrets import SecretFinding, may_hold_secret, scan_texts
from agentprompt.repo.secrets import _filter as secretfilter
from agentprompt.repo.secrets import _scan as secrets
from agentprompt.repo.secrets.stores import STORE_KIND, URL_KIND

CORPUS = Path(__file__).resolve().parent / ".corpus"

Found = dict[str, tuple[SecretFinding, ...]]


def corpus_texts(corpus: Path) -> list[tuple[str, str]]:
    """Every file discovery keeps, read as the pack reads it."""
    found = discover(corpus)
    texts, _problems = read_texts(found.root, [f.path for f in found.files])
    return sorted(texts.items())


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


OWN_KINDS = frozenset({STORE_KIND, URL_KIND})
"""The findings of agentprompt's own rules (secret store files, passwords in URLs), which
detect-secrets does not make: compared apart."""


def _compare(chunk: list[tuple[str, str]]) -> tuple[list[str], int]:
    """The files of ``chunk`` where the line scan's detect-secrets findings and
    ``scan_file``'s disagree, and how many findings agentprompt's own rules added."""
    new = scan_texts(chunk)
    old = secrets._scan_whole_files(chunk)
    differing: list[str] = []
    own = 0
    for path, _ in chunk:
        theirs = tuple(f for f in new[path] if f.kind not in OWN_KINDS)
        own += len(new[path]) - len(theirs)
        if theirs != old[path]:
            differing.append(
                f"{path}: line scan {[f.describe() for f in theirs]} "
                f"!= scan_file {[f.describe() for f in old[path]]}"
            )
    return differing, own


def check(items: list[tuple[str, str]], workers: int) -> int:
    """Compare the two scans on every file; the number of files that differ."""
    chunks = [items[i : i + 200] for i in range(0, len(items), 200)]
    start = time.perf_counter()
    differing: list[str] = []
    own = 0
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for lines, added in pool.imap_unordered(_compare, chunks):
            differing += lines
            own += added
    for line in differing:
        print(line)
    flagged = sum(1 for hits in scan_texts(items).values() if hits)
    print(
        f"checked {len(items)} files in {time.perf_counter() - start:.0f} s wall "
        f"({workers} processes): {len(differing)} differ, {flagged} files with findings, "
        f"{own} more findings from agentprompt's own rules (secret stores, passwords in URLs)"
    )
    return len(differing)


def _whole_file_path(items: list[tuple[str, str]]) -> Found:
    """``scan_texts`` before line scanning: the prefilter, then ``scan_file`` per file."""
    found: Found = {path: () for path, _ in items}
    found.update(secrets._scan_whole_files([(p, t) for p, t in items if may_hold_secret(p, t)]))
    return found


def _cpu(scan: Callable[[list[tuple[str, str]]], Found], items: list[tuple[str, str]]) -> float:
    secrets._cache.clear()
    start = time.process_time()
    scan(items)
    return time.process_time() - start


def timing(items: list[tuple[str, str]], pairs: int) -> None:
    """CPU of the whole-file path and of the line scan, interleaved; then the line scan's
    two parts on their own: the rules' pass and detect-secrets on what it leaves."""
    for run in range(pairs):
        old = _cpu(_whole_file_path, items)
        new = _cpu(scan_texts, items)
        print(
            f"pair {run + 1}: whole-file {old:.2f} CPU-s, line scan {new:.2f} CPU-s "
            f"(load {_load()})"
        )
    start = time.process_time()
    plans = [secrets._plan(path, text) for path, text in items]
    took = time.process_time() - start
    todo = [plan for plan in plans if plan is not None and (plan.lines or plan.rewritten)]
    start = time.process_time()
    _found, left = secrets._scan_lines(todo)
    scan = time.process_time() - start
    print(
        f"the rules' pass (candidate lines): {took:.2f} CPU-s; detect-secrets on "
        f"{len(todo)} files: {scan:.2f} CPU-s ({sum(len(p.lines) for p in todo)} candidate "
        f"lines; {sum(p.rewritten for p in todo)} files whose lines transformers may "
        f"rewrite, read as they say; {len(left)} files left to scan_file, "
        f"{sum(plan is None for plan in plans)} not covered by the rules)"
    )


def _module_at(revision: str) -> ModuleType:
    """``repo/secrets/_filter.py`` as it is at a git revision, loaded as its own module."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(
        ["git", "show", f"{revision}:src/agentprompt/repo/secrets/_filter.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    with tempfile.TemporaryDirectory(prefix="secretfilter-") as folder:
        path = Path(folder) / "secretfilter_then.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("secretfilter_then", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return module


def against(items: list[tuple[str, str]], revision: str, rounds: int) -> None:
    """The rules' pass at ``revision`` and now, interleaved, in this process."""
    then = _module_at(revision)
    for module in (then, secretfilter):
        module._rules()  # built once per process, not timed
    for run in range(rounds):
        took: list[float] = []
        lines: list[list[frozenset[int] | None]] = []
        for module in (then, secretfilter):
            start = time.process_time()
            lines.append([module.candidate_lines(path, text) for path, text in items])
            took.append(time.process_time() - start)
        pairs = zip(lines[0], lines[1], strict=True)
        subset = all(old is None or (new is not None and new <= old) for old, new in pairs)
        counts = [sum(len(found or ()) for found in side) for side in lines]
        same = "NOT a subset" if not subset else "a subset"
        same = "the same lines" if lines[0] == lines[1] else same
        print(
            f"round {run + 1}: rules' pass at {revision} {took[0]:.2f} CPU-s "
            f"({counts[0]} candidate lines), now {took[1]:.2f} CPU-s ({counts[1]}; "
            f"{same}) (load {_load()})"
        )


def main() -> None:
    """Read the corpus, then check and/or time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="Compare with scan_file, every file.")
    parser.add_argument("--time", type=int, default=0, metavar="N", help="N interleaved pairs.")
    parser.add_argument("--against", metavar="REV", help="A/B the rules' pass with REV's.")
    parser.add_argument("--rounds", type=int, default=2, help="Rounds of --against.")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    print(f"load average before: {_load()}")
    items = corpus_texts(args.corpus)
    print(f"{len(items)} files, {sum(len(t) for _, t in items) / 1e6:.1f} M characters")
    differing = check(items, args.workers) if args.check else 0
    if args.time:
        timing(items, args.time)
    if args.against:
        against(items, args.against, args.rounds)
    print(f"load average after: {_load()}")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
