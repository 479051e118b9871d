"""Real unified diffs between two pinned releases of one registry package, and the ways a
model gets such diffs wrong (issue #10, the diff-apply row).

The package is click, 8.1.7 and 8.1.8 (pure Python, sdists from PyPI via ``pip download
--no-deps --no-binary :all:``, kept in ``bench/.work/peers/sdists/``). Both are unpacked
side by side as ``a/`` and ``b/`` and diffed with ``git diff --no-index --no-prefix
--diff-filter=M``, so every file present in both and changed gets one real git diff with
``a/PATH`` and ``b/PATH`` headers (files added or deleted between the releases are left
out: applying them tests nothing but file creation).

Each perturbation is deterministic (seeded per file) and touches only what models get
wrong, never the lines added or removed, so a tool that places every hunk right yields
release B byte for byte.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from peers_report import WORK

PACKAGE = "click"
OLD, NEW = "8.1.7", "8.1.8"
SDISTS = WORK / "sdists"
TREES = WORK / "diff-trees"
_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


@dataclass(frozen=True)
class FileDiff:
    """One changed file: its path, both releases' bytes, and git's diff of it."""

    path: str
    old: bytes
    new: bytes
    diff: str


def _sdist(version: str) -> Path:
    archive = SDISTS / f"{PACKAGE}-{version}.tar.gz"
    if not archive.exists():
        SDISTS.mkdir(parents=True, exist_ok=True)
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        pip += ["--no-binary", ":all:", "--dest", str(SDISTS), f"{PACKAGE}=={version}"]
        subprocess.run(pip, check=True)
    return archive


def _unpack(version: str, side: str) -> None:
    target = TREES / side
    if target.exists():
        return
    with tarfile.open(_sdist(version)) as archive:
        archive.extractall(TREES / f"{side}.tmp", filter="data")
    (TREES / f"{side}.tmp" / f"{PACKAGE}-{version}").rename(target)
    shutil.rmtree(TREES / f"{side}.tmp")


def build_diffs() -> list[FileDiff]:
    """Every file changed between the two releases, with git's diff of it."""
    _unpack(OLD, "a")
    _unpack(NEW, "b")
    command = ["git", "-c", "core.quotepath=off", "diff", "--no-index", "--no-prefix"]
    command += ["--no-color", "--no-ext-diff", "--no-renames", "--diff-filter=M", "a", "b"]
    done = subprocess.run(command, cwd=TREES, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"git diff --no-index failed: {done.stderr}")
    parts = re.split(r"^(?=diff --git )", done.stdout, flags=re.MULTILINE)
    out = []
    for part in parts:
        if not part.startswith("diff --git "):
            continue
        path = part.split("\n", 1)[0].split(" ")[2].removeprefix("a/")
        old, new = (TREES / "a" / path).read_bytes(), (TREES / "b" / path).read_bytes()
        out.append(FileDiff(path=path, old=old, new=new, diff=part))
    return out


def _map_headers(diff: str, change: Callable[[re.Match[str], random.Random], str]) -> str:
    rng = random.Random(diff[:200])
    lines = diff.splitlines(keepends=True)
    for i, line in enumerate(lines):
        head = _HEADER.match(line.rstrip("\n"))
        if head:
            lines[i] = change(head, rng) + "\n"
    return "".join(lines)


def shift_numbers(diff: str) -> str:
    """Every hunk's line numbers moved by 3 to 20 lines, up or down (both sides alike)."""

    def change(head: re.Match[str], rng: random.Random) -> str:
        delta = rng.choice((-1, 1)) * rng.randint(3, 20)
        a, b = max(1, int(head[1]) + delta), max(1, int(head[3]) + delta)
        a_count = f",{head[2]}" if head[2] is not None else ""
        b_count = f",{head[4]}" if head[4] is not None else ""
        return f"@@ -{a}{a_count} +{b}{b_count} @@{head[5]}"

    return _map_headers(diff, change)


def wrong_counts(diff: str) -> str:
    """Every hunk's line counts off by one or two (models rarely count right)."""

    def change(head: re.Match[str], rng: random.Random) -> str:
        a_count = int(head[2] if head[2] is not None else 1) + rng.choice((-2, -1, 1, 2))
        b_count = int(head[4] if head[4] is not None else 1) + rng.choice((-1, 1, 2))
        return f"@@ -{head[1]},{max(0, a_count)} +{head[3]},{max(0, b_count)} @@{head[5]}"

    return _map_headers(diff, change)


def bare_headers(diff: str) -> str:
    """Hunk headers with no numbers at all (``@@ ... @@``), as many models write them."""
    return _map_headers(diff, lambda head, rng: "@@ ... @@")


def whitespace_drift(diff: str) -> str:
    """Context lines as a model retypes them: blank ones lose their leading space, and in
    every hunk one context line gains a trailing space and one loses an indent step of
    four spaces to a tab."""
    rng = random.Random(diff[:200])
    out: list[str] = []
    hunk: list[int] = []

    def settle() -> None:
        context = [i for i in hunk if out[i].startswith(" ") and out[i].strip()]
        if context:
            i = rng.choice(context)
            out[i] = out[i].rstrip("\n") + " \n"
            indented = [i for i in context if out[i].startswith("     ")]
            if indented:
                j = rng.choice(indented)
                out[j] = " \t" + out[j][5:]
        hunk.clear()

    in_hunk = False
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@"):
            settle()
            in_hunk = True
            out.append(line)
            continue
        if in_hunk and line == " \n":
            line = "\n"
        out.append(line)
        if in_hunk:
            hunk.append(len(out) - 1)
    settle()
    return "".join(out)


def prose_and_fences(diff: str) -> str:
    """The diff inside a fenced ``diff`` block, with a sentence before and after."""
    path = diff.split("\n", 1)[0].split(" ")[-1].removeprefix("b/")
    return (
        f"Here is the change to `{path}`; it keeps the public behaviour the same.\n\n"
        f"```diff\n{diff}```\n\nApply it and run the tests; tell me if anything fails.\n"
    )


def everything(diff: str) -> str:
    """All of the above at once, except the bare headers (numbers shifted and miscounted,
    whitespace drift, prose and fences)."""
    return prose_and_fences(whitespace_drift(wrong_counts(shift_numbers(diff))))


VARIANTS: dict[str, Callable[[str], str]] = {
    "as given": lambda diff: diff,
    "line numbers shifted": shift_numbers,
    "counts wrong": wrong_counts,
    "bare @@ headers": bare_headers,
    "whitespace drift": whitespace_drift,
    "prose and fences": prose_and_fences,
    "all but bare headers": everything,
}
"""Each variant's name and how it rewrites one file's diff."""


GOLD = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "ranking-dev"
"""The held-out real patches: 39 SWE-bench Verified tasks (``tasks.json``: each accepted
fix as ``gold_patch``, and its ``base_commit``) and the repository trees at every base
commit (``snapshots/OWNER+NAME.tar.zst``); see that folder's README. Nothing is
downloaded."""
GOLD_TREES = WORK.parent / "gold" / "trees"


def _gold_parts(patch: str) -> list[tuple[str, str]]:
    """Each file diff of a gold patch that changes a file in place (no file added, deleted
    or renamed): its path and its text."""
    out = []
    for part in re.split(r"^(?=diff --git )", patch, flags=re.MULTILINE):
        if not part.startswith("diff --git "):
            continue
        head = part.split("\n@@", 1)[0]
        if any(w in head for w in ("new file mode", "deleted file mode", "rename from")):
            continue
        out.append((part.split("\n", 1)[0].split(" ")[2].removeprefix("a/"), part))
    return out


def _gold_tree(repo: str, commit: str, paths: list[str]) -> Path:
    """The folder holding ``paths`` as they were at ``commit`` (unpacked from the snapshot
    once, only those files, under ``bench/.work/gold/trees/``)."""
    top = f"{repo.replace('/', '+')}/{commit[:12]}"
    if all((GOLD_TREES / top / p).exists() for p in paths):
        return GOLD_TREES / top
    GOLD_TREES.mkdir(parents=True, exist_ok=True)
    archive = GOLD / "snapshots" / f"{repo.replace('/', '+')}.tar.zst"
    unpacked = subprocess.run(
        ["zstd", "-d", "--long=30", "-c", str(archive)], capture_output=True, check=True
    )
    members = [f"{top}/{p}" for p in paths]
    subprocess.run(
        ["tar", "-x", "-C", str(GOLD_TREES), *members], input=unpacked.stdout, check=True
    )
    return GOLD_TREES / top


def _fixed(path: str, old: bytes, diff: str) -> bytes:
    """``old`` with ``diff`` applied by ``git apply`` (as given, it applies cleanly), in a
    folder outside any git repository."""
    with tempfile.TemporaryDirectory(prefix="gold-fix-") as folder:
        target = Path(folder) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(old)
        (Path(folder) / "fix.patch").write_text(diff, encoding="utf-8")
        done = subprocess.run(
            ["git", "apply", "fix.patch"], cwd=folder, capture_output=True, text=True
        )
        if done.returncode:
            raise SystemExit(f"a gold patch does not apply to {path}: {done.stderr}")
        return target.read_bytes()


def build_gold_diffs() -> list[FileDiff]:
    """Every file a gold patch of ``GOLD`` changes in place: the file at the task's base
    commit, the same file with the patch applied, and the patch's diff of it."""
    if not (GOLD / "tasks.json").exists():
        raise SystemExit(f"{GOLD} is not there: the corpus comes with the shared folder")
    tasks = json.loads((GOLD / "tasks.json").read_text(encoding="utf-8"))
    out = []
    for task in tasks:
        parts = _gold_parts(task["gold_patch"])
        tree = _gold_tree(task["repo"], task["base_commit"], [p for p, _ in parts])
        for path, diff in parts:
            old = (tree / path).read_bytes()
            out.append(FileDiff(path=path, old=old, new=_fixed(path, old, diff), diff=diff))
    return out
