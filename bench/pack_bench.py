"""Benchmark of packing a whole repository into one prompt (issue #5) against Repomix.

Run: ``make bench`` or ``.venv/bin/python bench/pack_bench.py [--runs N] [--only NAME...]``.

The corpus is the repository-map corpus (``bench/map_corpus.py``: pinned PyPI sdists of
Django, sympy, Pygments and Pillow, and the npm packages date-fns, rxjs, effect and
lodash-es, unpacked into ``bench/.corpus/`` and committed to a git repository of its own).
Repomix is installed from the npm registry, pinned, into ``bench/.work/repomix/``
(git-ignored) on first run, and run with ``node``. Four rows, each the wall time of a fresh
process, median of ``--runs`` runs with min and max, run in turn (one run of each row, then
the next round) so a busy moment on the machine hits every row alike:

1. agentprompt full: every discovered file in full (edit mode), exact ``o200k_base`` token
   count of the whole prompt, detect-secrets verdict on every file's text (files its own
   rules cannot flag are not scanned, the rest are). Verdicts and the token counts of the
   prompt's parts are remembered by content in ``bench/.work/pack-cache/cache.db``, with
   the symbols: the first run does everything, later runs only what changed; ``--cold``
   clears the caches before every agentprompt run.
   **agentprompt full, one file changed** is the same after a comment was appended to one
   file (``EDITED``); the file is put back and the caches warmed again, untimed, after each
   such run.
2. agentprompt signatures: every code file's signatures (browse mode, from the symbol
   cache), exact token count, detect-secrets verdict on the text (remembered likewise).
3. repomix full: ``repomix --output FILE`` (its defaults: token count, secretlint check).
4. repomix compress: the same with ``--compress`` (tree-sitter signatures).

Each row also shows the CPU time (user + system) of the process and its children, which
varies much less than wall time when other jobs share the machine. An agentprompt run also
prints the prompt's token count, characters, findings and files withheld, its peak resident
memory (``ru_maxrss`` of the process or of its largest worker, whichever is larger, taken
once the prompt is written) and the start of the prompt's SHA-256. The prompt is written
to its file piece by piece (``BridgePrompt.write``), as ``pack -o`` writes it; a
``--baseline`` tree without ``write`` writes its joined text.

``--baseline SRC`` adds the row **agentprompt full, baseline**: the same full pack with the
``agentprompt`` package found in ``SRC`` first (``PYTHONPATH``; e.g. ``src/`` of another
commit, unpacked with ``git archive REV src | tar -x -C DIR``), with its own cache, so an
A/B of two versions runs side by side with Repomix in one run.

The load average (``/proc/loadavg``) is printed before and after, since the machine's two
cores may be shared.
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
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from map_corpus import build_corpus  # noqa: E402

REPOMIX_VERSION = "1.18.1"
TOOLS = BENCH / ".work" / "repomix"
REPOMIX = TOOLS / "node_modules" / "repomix" / "bin" / "repomix.cjs"
CACHE = BENCH / ".work" / "pack-cache" / "cache.db"
TASK = "Review the whole repository."
EDITED = "Django-5.0.6/Django-5.0.6/django/utils/text.py"
"""The file the "one file changed" row appends a comment to."""
CHANGED = "agentprompt full, one file changed"

BASELINE = "agentprompt full, baseline"
"""The full pack by another source tree (``--baseline``), for an A/B in the same run."""
BASELINE_CACHE = BENCH / ".work" / "pack-cache-baseline" / "symbols.db"

_PACK = """
import codecs, hashlib, resource, sys
from pathlib import Path
from agentprompt.bridge.pack import pack_repository
prompt = pack_repository(
    Path(sys.argv[1]), sys.argv[2], signatures=sys.argv[3] == "signatures",
    cache_path=Path(sys.argv[4]),
)
out = Path(sys.argv[5])
with out.open("w", encoding="utf-8", errors="surrogatepass", newline="") as stream:
    if hasattr(prompt, "write"):
        prompt.write(stream)  # piece by piece
    else:
        stream.write(prompt.text)  # an older tree (--baseline) has only the joined text
# Peak resident memory of this process and of its largest worker, in MB.
peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF,
           resource.RUSAGE_CHILDREN)) / 1024
# The digest and the character count read the output a block at a time, so that checking
# it adds nothing to the memory a tree-sampling bench (peers_pack_bench.py) sees.
digest, chars = hashlib.sha256(), 0
decoder = codecs.getincrementaldecoder("utf-8")("surrogatepass")
with out.open("rb") as written:
    for block in iter(lambda: written.read(1 << 20), b""):
        digest.update(block)
        chars += len(decoder.decode(block))
chars += len(decoder.decode(b"", final=True))
print(prompt.tokens, chars, len(prompt.withheld),
      len({f.path for f in prompt.withheld}), f"peak {peak:.0f} MB",
      f"sha256 {digest.hexdigest()[:16]}")
"""


def _git_corpus(corpus: Path) -> None:
    if (corpus / ".git").exists():
        return
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=corpus, check=True)
    subprocess.run([*git, "add", "-A", "."], cwd=corpus, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "corpus"], cwd=corpus, check=True)


def _ensure_repomix() -> None:
    if REPOMIX.exists():
        return
    TOOLS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            "npm",
            "install",
            "--prefix",
            str(TOOLS),
            "--no-audit",
            "--no-fund",
            f"repomix@{REPOMIX_VERSION}",
        ],
        check=True,
    )


def _commands(corpus: Path, out: Path) -> dict[str, list[str]]:
    python = [sys.executable, "-c", _PACK, str(corpus), TASK]
    node = ["node", str(REPOMIX), str(corpus), "--quiet"]
    return {
        "agentprompt full": [*python, "full", str(CACHE), str(out / "full.md")],
        BASELINE: [*python, "full", str(BASELINE_CACHE), str(out / "baseline.md")],
        CHANGED: [*python, "full", str(CACHE), str(out / "full.md")],
        "agentprompt signatures": [*python, "signatures", str(CACHE), str(out / "sig.md")],
        "repomix full": [*node, "--output", str(out / "repomix.xml")],
        "repomix compress": [*node, "--compress", "--output", str(out / "repomix-c.xml")],
    }


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _time(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall time, CPU time (the process and its children) and what the command printed."""
    start, cpu = time.perf_counter(), _cpu()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    took, used = time.perf_counter() - start, _cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return took, used, done.stdout.strip()


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _stages(corpus: Path) -> None:
    """Where a cold full pack's time goes, stage by stage, in this process (CPU seconds;
    detect-secrets on the prefilter's candidates, and token counting, fresh, without the
    pack's caches)."""
    from agentprompt.bridge.view import view_repository
    from agentprompt.repo.discovery import read_texts
    from agentprompt.repo.secrets import may_hold_secret, scan_texts
    from agentprompt.tokens import CountCache, get_tokenizer

    def clock() -> float:
        return time.process_time()

    start = clock()
    view = view_repository(corpus, cache_path=CACHE)
    print(f"discovery + symbols (warm symbol cache): {clock() - start:.2f} s")
    start = clock()
    contents, _ = read_texts(corpus, view.paths)
    total = sum(len(t) for t in contents.values())
    print(f"read {len(contents)} files: {clock() - start:.2f} s, {total / 1e6:.1f} M chars")
    start = clock()
    candidates = [(p, t) for p, t in contents.items() if may_hold_secret(p, t)]
    size = sum(len(t) for _, t in candidates)
    print(
        f"secret prefilter: {clock() - start:.2f} s; {len(candidates)} files "
        f"({size / 1e6:.1f} M chars) left to scan"
    )
    start = clock()
    found = scan_texts(candidates)
    flagged = sum(1 for hits in found.values() if hits)
    print(
        f"scan_texts on them (its own prefilter again, then detect-secrets): "
        f"{clock() - start:.2f} s, {flagged} files with findings"
    )
    text = "".join(f"## {p}\n{t}\n" for p, t in contents.items())
    start = clock()
    tokens = get_tokenizer("o200k_base").count(text)
    print(f"one exact count of all text: {clock() - start:.2f} s, {tokens} tokens")
    with tempfile.TemporaryDirectory(prefix="pack-stages-") as folder:
        counter = CountCache(get_tokenizer("o200k_base"), store=Path(folder) / "c.db")
        start = clock()
        assert counter.count_keyed(text, workers=1) == tokens
        print(f"the same by parts, remembered: {clock() - start:.2f} s")
        start = clock()
        assert counter.count(text) == tokens
        print(f"again, from the remembered parts: {clock() - start:.2f} s")


def main() -> None:
    """Build the corpus and Repomix, then time the four rows side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="Rows to run (default: all).")
    parser.add_argument("--stages", action="store_true", help="Time a full pack's stages.")
    parser.add_argument("--cold", action="store_true", help="Clear agentprompt's caches first.")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="SRC",
        help=f"Also run the full pack with the agentprompt package in SRC (a checkout's src/"
        f" folder, e.g. a git worktree of another commit), as the row {BASELINE!r}.",
    )
    args = parser.parse_args()
    corpus = build_corpus()
    _git_corpus(corpus)
    _ensure_repomix()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{sys.version.split()[0]}, node {node.stdout.strip()}, repomix {REPOMIX_VERSION}"
    )
    print(f"corpus: {corpus}; runs: {args.runs}; load average before: {_load()}")
    if args.stages:
        _stages(corpus)
        return
    times: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="pack-bench-") as folder:
        commands = _commands(corpus, Path(folder))
        rows = [r for r in commands if (not args.only or r in args.only) and r != BASELINE]
        if args.baseline is not None:
            rows.insert(0, BASELINE)
        baseline = {**os.environ, "PYTHONPATH": str(args.baseline)} if args.baseline else None
        for run in range(args.runs):
            for row in rows:
                if args.cold and row.startswith("agentprompt"):
                    own = BASELINE_CACHE if row == BASELINE else CACHE
                    shutil.rmtree(own.parent, ignore_errors=True)
                edited = corpus / EDITED
                original = edited.read_bytes()
                if row == CHANGED:
                    edited.write_bytes(original + f"\n# pack bench, run {run + 1}\n".encode())
                try:
                    took, used, said = _time(commands[row], baseline if row == BASELINE else None)
                finally:
                    if row == CHANGED:
                        edited.write_bytes(original)
                        _time(commands["agentprompt full"])  # warm again, untimed
                times.setdefault(row, []).append(took)
                cpus.setdefault(row, []).append(used)
                size = (Path(folder) / commands[row][-1]).stat().st_size
                print(
                    f"run {run + 1} {row}: {took:.2f} s (CPU {used:.2f} s), "
                    f"output {size / 1e6:.1f} MB {said}"
                )
    print(f"load average after: {_load()}\n")
    print("| row | median s | min s | max s | median CPU s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    medians = {row: statistics.median(t) for row, t in times.items()}
    cpu = {row: statistics.median(t) for row, t in cpus.items()}
    for row, values in times.items():
        print(
            f"| {row} | {medians[row]:.2f} | {min(values):.2f} | {max(values):.2f} "
            f"| {cpu[row]:.2f} |"
        )
    for ours, theirs in (
        ("agentprompt full", "repomix full"),
        (BASELINE, "repomix full"),
        ("agentprompt full", BASELINE),
        ("agentprompt signatures", "repomix compress"),
    ):
        if ours in medians and theirs in medians:
            print(
                f"{ours} / {theirs}: {medians[ours] / medians[theirs]:.2f}x wall, "
                f"{cpu[ours] / cpu[theirs]:.2f}x CPU"
            )


if __name__ == "__main__":
    main()
