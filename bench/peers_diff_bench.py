"""Side by side (issue #10): how many real file diffs each tool applies exactly right,
as given and with the mistakes models make.

Run: ``.venv/bin/python bench/peers_diff_bench.py [--runs N] [--gold]`` (after
``bench/peers.py``).

The diffs are every file changed between click 8.1.7 and 8.1.8 (``bench/peers_diffs.py``),
each in eight variants: as given, line numbers shifted, counts wrong, bare ``@@`` headers,
whitespace drift in context lines, prose and a fence around, all but the bare headers at
once, and a dropped context line (in every hunk, the first non-blank context line after a
change is left out, as models skip such lines; the header counts are left as they were).
Each file diff is applied on its own, on a fresh copy of the file from 8.1.7 in a new
folder under the system temporary directory (outside any git repository), by:

* agentprompt: ``apply_reply(root, text, dialect="udiff")`` in process (the library API
  ``agentprompt apply`` calls; interpreter start-up is not counted);
* ``git apply PATCH`` and ``git apply --recount --ignore-whitespace PATCH``;
* ``patch -p1 --batch --forward --no-backup-if-mismatch -r - -i PATCH`` (GNU patch's
  default fuzz of 2) and the same with ``-F3 -l`` (more fuzz, whitespace-blind matching).

A hunk whose dropped line sits right where it adds lines that may go on either side of
that line (``C +X G`` over ``C F G``: ``C X F G`` or ``C F X G``) cannot be placed
without a guess; a table counts, for that variant, the files holding such a hunk
(see :func:`side_unknown`), which a tool that never guesses refuses.

``--gold`` takes held-out real patches instead: the accepted fixes (``gold_patch``) of the
39 SWE-bench Verified tasks in ``../shared/corpora/ranking-dev`` (SWE-bench is
MIT-licensed; sympy, sphinx, astropy, xarray, pytest and pylint), each file diff applied
to the file at the task's base commit, the trees coming from that folder's snapshots
(only the files the patches change are unpacked, under ``bench/.work/gold/``; nothing is
downloaded): 54 file diffs changing a file in place, 94 hunks. The fixed file, the
expected result, is the base file with the file diff applied as given by ``git apply``.

A file counts as applied exactly when the result is byte-identical to 8.1.8 (or the fixed
file); "refused" counts the files left as they were and not said applied, "wrong" the
others (written but not equal, or said applied), and "silently wrong" those of them a
tool said it applied (exit status 0, or ``report.ok``) whose result differs (shown in
brackets per variant, and summed in the last line). The counts
are the same every run (the check is deterministic); time is the wall time of all of a
tool's applications in one run (subprocess start-up included for git and patch), median
of ``--runs`` with min and max, and agentprompt's time over each peer's as a ratio taken
run by run. Results go to ``bench/.work/peers/diff-apply.md`` and ``.png``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from agentprompt.edits import apply_reply  # noqa: E402
from peers_diffs import NEW, OLD, PACKAGE, FileDiff, build_diffs, build_gold_diffs  # noqa: E402
from peers_diffs import VARIANTS as GIVEN_VARIANTS  # noqa: E402
from peers_report import bars, cells, header, save, table  # noqa: E402

DROPPED = "first context line after a change dropped"
"""The variant with, in every hunk, the first non-blank context line after a change left
out."""


def _first_after_change(hunk: list[str]) -> int | None:
    """The index in ``hunk`` (its body lines) of the first non-blank context line after a
    change, if any."""
    changed = False
    for k, line in enumerate(hunk):
        if line[:1] in ("+", "-"):
            changed = True
        elif changed and line[:1] == " " and line.strip():
            return k
    return None


def _hunks_of(diff: str) -> list[tuple[int, list[str]]]:
    """Each hunk of a one-file diff: the index of its first body line in the diff's lines,
    and its body lines (with their prefix and newline)."""
    lines = diff.splitlines(keepends=True)
    out: list[tuple[int, list[str]]] = []
    for i, line in enumerate(lines):
        if line.startswith("@@"):
            out.append((i + 1, []))
        elif out and line[:1] in (" ", "+", "-", "\\"):
            out[-1][1].append(line)
    return out


def drop_after_change(diff: str) -> str:
    """Every hunk without its first non-blank context line after a change (counts kept)."""
    lines = diff.splitlines(keepends=True)
    gone = set()
    for first, body in _hunks_of(diff):
        k = _first_after_change(body)
        if k is not None:
            gone.add(first + k)
    return "".join(line for i, line in enumerate(lines) if i not in gone)


def side_unknown(diff: str) -> bool:
    """Whether a hunk of ``diff``, its first context line after a change dropped, adds lines
    right beside the gap that may stand on either side of the dropped line: added lines
    right after a context line, or more added lines than the removed lines just before them
    (which they would replace). Nothing in the quote tells; the file is refused by a tool
    that never guesses. A dropped line that was its hunk's last leaves no quoted line after
    the gap: the quote then puts the added lines before it, and the side is told."""
    for _, body in _hunks_of(diff):
        gap = _first_after_change(body)
        if gap is None or gap == len(body) - 1:
            continue
        rest = body[:gap] + body[gap + 1 :]
        start = end = gap
        while start > 0 and rest[start - 1][:1] == "+":
            start -= 1
        while end < len(rest) and rest[end][:1] == "+":
            end += 1
        if start == end:
            continue
        removed = 0
        while start - removed > 0 and rest[start - removed - 1][:1] == "-":
            removed += 1
        if not 0 < end - start <= removed:
            return True
    return False


VARIANTS = {**GIVEN_VARIANTS, DROPPED: drop_after_change}
"""Each variant's name and how it rewrites one file's diff."""

_PATCH = ["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-r", "-"]
COMMANDS = {
    "git apply": ["git", "apply"],
    "git apply --recount --ignore-whitespace": ["git", "apply", "--recount", "--ignore-whitespace"],
    "patch (fuzz 2)": _PATCH,
    "patch -F3 -l": [*_PATCH, "-F3", "-l"],
}
TOOLS = ["agentprompt", *COMMANDS]


def _agentprompt(root: Path, text: str) -> bool:
    try:
        return apply_reply(root, text, dialect="udiff").ok
    except Exception:  # any refusal the library raises is a failure to apply, not a crash
        return False


def _command(command: list[str]) -> Callable[[Path, str], bool]:
    def run(root: Path, text: str) -> bool:
        patch = root.parent / f"{root.name}.patch"
        patch.write_text(text, encoding="utf-8")
        flag = "-i" if command[0] == "patch" else ""
        args = [*command, flag, str(patch)] if flag else [*command, str(patch)]
        done = subprocess.run(args, cwd=root, capture_output=True)
        return done.returncode == 0

    return run


APPLY: dict[str, Callable[[Path, str], bool]] = {
    "agentprompt": _agentprompt,
    **{name: _command(command) for name, command in COMMANDS.items()},
}


def _one(
    base: Path, n: int, item: FileDiff, tool: str, text: str
) -> tuple[float, bool, bool, bool]:
    """Apply ``text`` to a fresh copy of the old file; seconds taken, claimed, exact, and
    whether the file was left as it was."""
    root = base / f"r{n}"
    target = root / item.path
    target.parent.mkdir(parents=True)
    target.write_bytes(item.old)
    start = time.perf_counter()
    claimed = APPLY[tool](root, text)
    took = time.perf_counter() - start
    now = target.read_bytes() if target.exists() else None
    return took, claimed, now == item.new, now == item.old


def run_once(diffs: list[FileDiff]) -> tuple[dict[str, float], dict[tuple[str, str], list[int]]]:
    """One round of every tool on every variant of every file: each tool's total seconds,
    and per (variant, tool) the counts [exact, silently wrong, refused, wrong]."""
    seconds = dict.fromkeys(TOOLS, 0.0)
    counts: dict[tuple[str, str], list[int]] = {}
    with tempfile.TemporaryDirectory(prefix="peers-diff-") as folder:
        n = 0
        for variant, change in VARIANTS.items():
            for item in diffs:
                text = change(item.diff)
                for tool in TOOLS:
                    n += 1
                    took, claimed, exact, untouched = _one(Path(folder), n, item, tool, text)
                    seconds[tool] += took
                    tally = counts.setdefault((variant, tool), [0, 0, 0, 0])
                    tally[0] += exact
                    tally[1] += claimed and not exact
                    tally[2] += not exact and untouched and not claimed
                    tally[3] += not exact and not (untouched and not claimed)
    return seconds, counts


def peak_memory(item: FileDiff) -> dict[str, float] | None:
    """Each tool's peak resident memory (MB) applying ``item``'s diff as given, as a process
    of its own under GNU time (``%M``): agentprompt through its CLI (``agentprompt apply``,
    interpreter included), the others as in the timed runs. One small file is applied, so
    the figures are each tool's floor: its start-up plus one file. None when a tool does
    not apply it exactly."""
    cli = Path(sys.executable).parent / "agentprompt"
    commands = {"agentprompt": [str(cli), "apply", "--root", "."], **COMMANDS}
    peaks: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="peers-diff-mem-") as folder:
        for n, (tool, command) in enumerate(commands.items()):
            root = Path(folder) / f"m{n}"
            target = root / item.path
            target.parent.mkdir(parents=True)
            target.write_bytes(item.old)
            patch = Path(folder) / f"m{n}.patch"
            patch.write_text(item.diff, encoding="utf-8")
            if tool == "agentprompt":
                args = [command[0], command[1], str(patch), *command[2:]]
            elif command[0] == "patch":
                args = [*command, "-i", str(patch)]
            else:
                args = [*command, str(patch)]
            done = subprocess.run(
                ["/usr/bin/time", "-f", "%M", *args], cwd=root, capture_output=True, text=True
            )
            if target.read_bytes() != item.new:
                return None
            peaks[tool] = int(done.stderr.strip().splitlines()[-1]) / 1024
    return peaks


def _cell(tally: list[int], total: int) -> str:
    """``exact/total``, how many were refused and how many written wrong, and of those how
    many the tool said it applied."""
    text = f"{tally[0]}/{total}, {tally[2]} refused, {tally[3]} wrong"
    return text + (f" ({tally[1]} silently wrong)" if tally[1] else "")


def main() -> None:
    """Build the diffs, run every tool ``--runs`` times, print and save table and plot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--gold",
        action="store_true",
        help="Apply the gold patches of ../shared/corpora/ranking-dev at their base commits.",
    )
    args = parser.parse_args()
    diffs = build_gold_diffs() if args.gold else build_diffs()
    corpus = (
        "SWE-bench Verified gold patches (../shared/corpora/ranking-dev) at their base commits"
        if args.gold
        else f"{PACKAGE} {OLD} -> {NEW}"
    )
    name = "diff-apply-gold" if args.gold else "diff-apply"
    hunks = sum(d.diff.count("\n@@") for d in diffs)
    times: dict[str, list[float]] = {tool: [] for tool in TOOLS}
    counts: dict[tuple[str, str], list[int]] = {}
    for _ in range(args.runs):
        seconds, counts_now = run_once(diffs)
        if counts and counts_now != counts:
            raise SystemExit(f"counts differ between runs: {counts} / {counts_now}")
        counts = counts_now
        for tool in TOOLS:
            times[tool].append(seconds[tool])
    total = len(diffs)
    head = header(
        args.runs,
        f"diffs: {corpus}, {total} changed files, {hunks} hunks; "
        f"each variant applied file by file by every tool",
    )
    exact = table(
        ["variant", *TOOLS],
        [[v, *(_cell(counts[(v, t)], total) for t in TOOLS)] for v in VARIANTS]
        + [
            [
                "silently wrong (all variants)",
                *(str(sum(counts[(v, t)][1] for v in VARIANTS)) for t in TOOLS),
            ]
        ],
    )
    timing_rows = [[t, *cells(times[t])] for t in TOOLS]
    timing_rows += [
        [
            f"ratio agentprompt / {t}, per run",
            *cells([a / b for a, b in zip(times["agentprompt"], times[t], strict=True)], 2),
        ]
        for t in COMMANDS
    ]
    timing = table(
        [f"tool: seconds for all {total * len(VARIANTS)} applications", "median", "min", "max"],
        timing_rows,
    )
    # The largest file every tool applies exactly as given.
    for largest in sorted(diffs, key=lambda d: -len(d.old)):
        if (peaks := peak_memory(largest)) is not None:
            break
    else:
        raise SystemExit("no file diff that every tool applies, for the memory row")
    memory = table(
        [f"tool: peak resident memory applying {largest.path} (as given), MB", "MB"],
        [[t, f"{peaks[t]:.1f}"] for t in TOOLS],
    )
    unknown = sum(side_unknown(d.diff) for d in diffs)
    placeable = table(
        [f"variant: {DROPPED}", "files"],
        [
            [
                "a hunk beside the gap whose side cannot be told (refused when no guess)",
                str(unknown),
            ],
            ["every hunk placeable without a guess", str(total - unknown)],
        ],
    )
    save(name, f"{head}\n\n{exact}\n\n{placeable}\n\n{timing}\n\n{memory}")
    bars(
        name,
        f"Files applied exactly ({'SWE-bench gold patches' if args.gold else corpus}, "
        f"{total} file diffs)",
        list(VARIANTS),
        {t: [counts[(v, t)][0] / total * 100 for v in VARIANTS] for t in TOOLS},
        "% of file diffs applied exactly",
    )


if __name__ == "__main__":
    main()
