"""Benchmark for the edit engine (issue #4): parse and dry-run a 100-file unified diff.

Run: ``.venv/bin/python bench/edits_bench.py [--runs N] [--files N]``.

The repository is a copy of the Python sources of two installed dependencies, ``rich``
and ``click`` (real, varied code; their versions are printed), made under
``bench/.work/`` (git-ignored) and turned into a git repository. The reply is a bare
unified diff changing ``--files`` of those files, three hunks each (a line changed, a line
inserted, a line removed, with three lines of context as ``diff -u`` writes them).
Each run times, back to back on the same diff:

* agentprompt: ``parse_reply(diff)`` (dialect detected) + ``apply_actions(...,
  ApplyOptions(dry_run=True))``, in process (the library API the bridge and the agent
  call);
* ``git apply --check`` on the same diff, as a subprocess (each side is run twice back
  to back and the second run timed, so both meet warm caches and a busy CPU);
* ``agentprompt apply - --dry-run --json`` as a subprocess, for the command-line cost
  including interpreter start-up and imports (timed after the pairs).

A second pair times a drifted copy of the diff (hunk headers shifted by five lines, and in
every third hunk a space inside each context line doubled), so placement by context and
the whitespace stage are exercised, against ``git apply --check
--ignore-whitespace``. ``git --version`` is timed as well: git's figures include its process
start-up, agentprompt's in-process figures do not. ``--profile`` prints where one library
run spends its time.

Every figure is the median of ``--runs`` runs, with min and max; the ratio is per run.
Target: agentprompt in process <= 3x git apply --check.

``--blocks N`` times a large reply instead (issue #20): N SEARCH/REPLACE blocks (4,500 make
about 700 KB) spread over the same repository, each quoting two lines and changing one;
the dry run and the real apply (``apply_reply``) each run in a fresh child process, which
reports its time and peak memory (``ru_maxrss``); the repository is reset with git between
runs. Targets: each <= 5 s, peak memory <= 300 MB. ``--dropped`` applies the 100 file
diffs as given and with one context line left out of every hunk (udiff, SEARCH/REPLACE,
apply_patch), counting exact, refused and silently wrong results. ``--line-types`` times
parsing about 1 MB of each line type (target: each <= 3 s). ``--corpora`` reads every real
reply in ``../shared/corpora`` (the gpt-engineer chats and the standard diff cases): the
file diffs each holds (a ``--- ``/``+++ `` header pair, counted on the text itself), how many
of them the parser turned into file actions, and, applied, how many wrote the expected text,
were refused, or wrote something else (silently wrong; the standard cases give the
expected text, the chats only whether anything was claimed). Targets: every well-formed
file diff parsed, 0 silently wrong.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import importlib.metadata
import json
import os
import platform
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from difflib import unified_diff
from pathlib import Path

from agentprompt.edits import ApplyOptions, apply_actions, apply_reply, parse_reply

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".work" / "edits"


CORPUS_PACKAGES = ("rich", "click")
"""Installed dependencies whose sources make the benchmark repository (real, varied code)."""


def build_repository(target: Path) -> list[Path]:
    """Copy the Python sources of :data:`CORPUS_PACKAGES` into ``target``, a new git repo."""
    if target.exists():
        shutil.rmtree(target)
    files = []
    for name in CORPUS_PACKAGES:
        package = Path(importlib.import_module(name).__file__ or "").parent
        for source in sorted(package.rglob("*.py")):
            if "__pycache__" in source.parts or source.stat().st_size < 400:
                continue
            dest = target / name / source.relative_to(package)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
            files.append(dest)
    subprocess.run(["git", "init", "-q", str(target)], check=True)
    return files


def _changed(lines: list[str], seed: int) -> list[str]:
    """The lines with three spread changes: one edited, one inserted, one removed."""
    out = list(lines)
    spots = [i for i, line in enumerate(out) if line.strip()]
    third = max(1, len(spots) // 3)
    edit, insert, remove = (
        spots[0 + seed % third],
        spots[third],
        spots[min(2 * third, len(spots) - 1)],
    )
    out[remove] = None  # type: ignore[call-overload]
    out.insert(insert + 1, f"# benchmark insertion {seed}\n")
    out[edit] = out[edit].rstrip("\n") + f"  # edited {seed}\n"
    return [line for line in out if line is not None]


def build_diff(root: Path, files: list[Path], count: int) -> tuple[str, list[str]]:
    """A unified diff changing ``count`` of ``files`` (the largest ones first), and the files
    whose diff needed more context: with three lines a hunk can stand in several places,
    which ``git apply`` settles by line number and agentprompt refuses as ambiguous."""
    chosen = sorted(files, key=lambda p: -p.stat().st_size)[:count]
    parts, widened = [], []
    for n, path in enumerate(sorted(chosen)):
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        new = _changed(lines, n)
        for context in (3, 6, 12):
            part = "".join(unified_diff(lines, new, f"a/{rel}", f"b/{rel}", n=context))
            actions = parse_reply(part).actions
            if apply_actions(root, actions, ApplyOptions(dry_run=True)).ok:
                break
        if context != 3:
            widened.append(f"{rel} ({context} lines)")
        parts.append(part)
    return "".join(parts), widened


def build_blocks(root: Path, files: list[Path], count: int) -> str:
    """A SEARCH/REPLACE reply of ``count`` blocks spread over ``files``: each block quotes a
    line found once in its file and the line after it, and changes the first; blocks in one
    file are at least four lines apart and in file order."""
    blocks: list[str] = []
    per_file: dict[Path, list[int]] = {}
    for path in sorted(files):
        lines = path.read_text(encoding="utf-8").splitlines()
        seen: dict[str, int] = {}
        for line in lines:
            seen[line] = seen.get(line, 0) + 1
        picks, last = [], -10
        for i, line in enumerate(lines[:-1]):
            unique = seen[line] == 1 and len(line.strip()) > 12
            if i - last >= 4 and unique and lines[i + 1].strip():
                picks.append(i)
                last = i
        per_file[path] = picks
    rounds = 0
    while len(blocks) < count:
        added = False
        for path, picks in per_file.items():
            if rounds < len(picks) and len(blocks) < count:
                added = True
                lines = path.read_text(encoding="utf-8").splitlines()
                i = picks[rounds]
                rel = path.relative_to(root).as_posix()
                blocks.append(
                    f"{rel}\n<<<<<<< SEARCH\n{lines[i]}\n{lines[i + 1]}\n=======\n"
                    f"{lines[i]}  # edited\n{lines[i + 1]}\n>>>>>>> REPLACE\n\n"
                )
        if not added:
            raise SystemExit(f"only {len(blocks)} blocks can be made; lower --blocks")
        rounds += 1
    # Blocks must be in file order within a file: sort by file, keeping each file's order.
    order = {p.relative_to(root).as_posix(): n for n, p in enumerate(sorted(files))}
    blocks.sort(key=lambda b: order[b.split("\n", 1)[0]])
    return "".join(blocks)


def _large_child(reply_path: str, root: str, mode: str) -> None:
    """In a child process: apply the large reply (``dry`` or ``apply``) and print the
    seconds it took and the process's peak memory, as JSON."""
    import resource

    from agentprompt.edits import apply_reply

    text = Path(reply_path).read_text(encoding="utf-8")
    started = time.perf_counter()
    report = apply_reply(Path(root), text, options=ApplyOptions(dry_run=mode == "dry"))
    elapsed = time.perf_counter() - started
    if not report.ok:
        raise SystemExit(f"the large reply did not apply:\n{report.feedback[:3000]}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"seconds": elapsed, "peak": peak, "applied": len(report.applied)}))


def large_reply(runs: int, count: int) -> None:
    """Time a ``count``-block SEARCH/REPLACE reply: dry run and apply, each in a fresh
    child process (the median of ``runs``), with the child's peak memory."""
    root = WORK / "large"
    files = build_repository(root)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    git = ["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@example.invalid"]
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    reply = build_blocks(root, files, count)
    reply_path = WORK / "large-reply.md"
    reply_path.write_text(reply, encoding="utf-8")
    results: dict[str, list[dict[str, float]]] = {"dry": [], "apply": []}
    for _ in range(runs):
        for mode in ("dry", "apply"):
            subprocess.run([*git, "checkout", "-q", "--", "."], check=True)
            done = subprocess.run(
                [sys.executable, __file__, "--large-child", str(reply_path), str(root), mode],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise SystemExit(done.stdout + done.stderr)
            results[mode].append(json.loads(done.stdout))
    subprocess.run([*git, "checkout", "-q", "--", "."], check=True)
    print(
        f"{count} SEARCH/REPLACE blocks, {len(reply) / 1000:.0f} KB, over {len(files)} files, "
        f"{runs} runs, Python {platform.python_version()}, {os.cpu_count()} cores\n"
    )
    print("| measurement | median | min | max | peak memory (median) |")
    print("| --- | --- | --- | --- | --- |")
    for mode, name in (("dry", "dry run (apply_reply, dry_run=True)"), ("apply", "apply")):
        secs = [r["seconds"] for r in results[mode]]
        peak = statistics.median(r["peak"] for r in results[mode]) / 1e6
        cells = " | ".join(f"{v:.2f} s" for v in (statistics.median(secs), min(secs), max(secs)))
        print(f"| {name} | {cells} | {peak:.0f} MB |")


def _hunks(diff: str) -> list[list[str]]:
    """The hunk bodies of a one-file unified diff (lines with their prefix, no newline)."""
    hunks: list[list[str]] = []
    for line in diff.splitlines():
        if line.startswith("@@"):
            hunks.append([])
        elif hunks and line[:1] in (" ", "-", "+"):
            hunks[-1].append(line)
    return hunks


def _side_unknown(hunk: list[str], gap: int) -> bool:
    """Whether lines added right next to a line left out of ``hunk`` (before its line
    ``gap``) could go on either side of it: any added lines there but those replacing, line
    for line, the removed lines just before them (which stand where those stood). Nothing in
    the hunk can tell: ``A +x C`` over a file ``A B C`` is ``A x B C`` or ``A B x C``, and
    the same quote arises from both, so a tool that placed it would be wrong half the time."""
    end = gap
    while end < len(hunk) and hunk[end][:1] == "+":
        end += 1
    start = gap
    while start > 0 and hunk[start - 1][:1] == "+":
        start -= 1
    if start == end:
        return False
    removed = 0
    while start - removed > 0 and hunk[start - removed - 1][:1] == "-":
        removed += 1
    return removed != end - start


def _drop_one(hunk: list[str], seed: int, *, apart: bool = False) -> list[str]:
    """The hunk with one context line left out: one not at either end of the hunk (and,
    ``apart``, not one beside an insertion, whose side of it nothing can tell, see
    :func:`_side_unknown`)."""
    inner = [
        k
        for k, line in enumerate(hunk)
        if line[:1] == " "
        and 0 < k < len(hunk) - 1
        and not (apart and _side_unknown(hunk[:k] + hunk[k + 1 :], k))
    ]
    if not inner:
        return hunk
    gone = inner[seed % len(inner)]
    return hunk[:gone] + hunk[gone + 1 :]


def _as_format(rel: str, hunks: list[list[str]], form: str) -> str:
    """The hunks as a reply in ``form``: a bare unified diff, SEARCH/REPLACE blocks or an
    apply_patch envelope."""
    if form == "udiff":
        out = [f"--- a/{rel}\n+++ b/{rel}\n"]
        for hunk in hunks:
            old = sum(1 for x in hunk if x[:1] != "+")
            new = sum(1 for x in hunk if x[:1] != "-")
            out.append(f"@@ -1,{old} +1,{new} @@\n" + "".join(x + "\n" for x in hunk))
        return "".join(out)
    if form == "searchreplace":
        out = []
        for hunk in hunks:
            old = "".join(x[1:] + "\n" for x in hunk if x[:1] != "+")
            new = "".join(x[1:] + "\n" for x in hunk if x[:1] != "-")
            out.append(f"{rel}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n\n")
        return "".join(out)
    body = "".join("@@\n" + "".join(x + "\n" for x in hunk) for hunk in hunks)
    return f"*** Begin Patch\n*** Update File: {rel}\n{body}*** End Patch\n"


def dropped_context(count: int) -> None:
    """Apply ``count`` real file diffs (three hunks each) as given and with one context line
    left out of every hunk, as a unified diff, SEARCH/REPLACE blocks and apply_patch: how many
    give exactly the intended file, how many are refused, how many are silently wrong."""
    root = WORK / "repo"
    files = build_repository(root)
    chosen = sorted(sorted(files, key=lambda p: -p.stat().st_size)[:count])
    tally: dict[tuple[str, str], list[int]] = {}
    for n, path in enumerate(chosen):
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        new = "".join(_changed(lines, n))
        hunks = _hunks("".join(unified_diff(lines, new.splitlines(keepends=True), n=3)))
        dropped = [_drop_one(h, n + k) for k, h in enumerate(hunks)]
        apart = [_drop_one(h, n + k, apart=True) for k, h in enumerate(hunks)]
        variants = (
            ("as given", hunks),
            ("one context line dropped", dropped),
            ("one dropped, not beside an insertion", apart),
        )
        for variant, body in variants:
            for form in ("udiff", "searchreplace", "applypatch"):
                reply = _as_format(rel, body, form)
                report = apply_reply(root, reply, options=ApplyOptions(dry_run=True))
                counts = tally.setdefault((variant, form), [0, 0, 0])
                if report.ok and report.planned.get(rel) == new:
                    counts[0] += 1
                elif report.ok:
                    counts[2] += 1
                else:
                    counts[1] += 1
    hunk_total = sum(
        len(
            _hunks(
                "".join(
                    unified_diff(
                        p.read_text(encoding="utf-8").splitlines(keepends=True),
                        _changed(p.read_text(encoding="utf-8").splitlines(keepends=True), n),
                        n=3,
                    )
                )
            )
        )
        for n, p in enumerate(chosen)
    )
    print(f"{len(chosen)} files of rich and click, {hunk_total} hunks (three lines of context)\n")
    print("| variant | format | exactly right | refused | silently wrong |")
    print("| --- | --- | ---: | ---: | ---: |")
    for (variant, form), (ok, refused, wrong) in tally.items():
        print(f"| {variant} | {form} | {ok}/{len(chosen)} | {refused} | {wrong} |")


def line_types(runs: int) -> None:
    """Parse a reply of about 1 MB of each line type of ``tests/edits/test_edits_linear.py``
    (long runs of blanks inside a marker, header or list item; or many blocks), ``runs``
    times each: the median seconds."""
    sys.path.insert(0, str(ROOT / "tests" / "edits"))
    from test_edits_linear import SHAPES

    print("| line type | reply | parse_reply, median |\n| --- | ---: | ---: |")
    for name, make in SHAPES.items():
        n = 1000
        while len(make(n)) < 1_000_000:
            n *= 2
        text = make(n)
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            parse_reply(text)
            times.append(time.perf_counter() - started)
        print(f"| {name} | {len(text) / 1e6:.2f} MB | {statistics.median(times):.2f} s |")


def perturb(diff: str) -> str:
    """The diff as a model gets it slightly wrong: every hunk header's line numbers shifted
    by 5 and, in every third hunk, a space inside each context line doubled."""
    out, hunk = [], 0
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@ "):
            hunk += 1
            head = re.match(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", line)
            assert head is not None
            a, b = int(head.group(1)) + 5, int(head.group(3)) + 5
            line = f"@@ -{a}{head.group(2) or ''} +{b}{head.group(4) or ''} @@\n"
        elif hunk % 3 == 0 and line.startswith(" ") and " " in line.strip():
            body = line[1:]
            lead = len(body) - len(body.lstrip())
            line = " " + body[:lead] + body[lead:].replace(" ", "  ", 1)
        out.append(line)
    return "".join(out)


def time_library(root: Path, diff: str, expected: int) -> tuple[float, float]:
    """Seconds to parse the diff and dry-run it with the library, and of that, to parse."""
    started = time.perf_counter()
    parsed = parse_reply(diff)
    parsed_at = time.perf_counter()
    report = apply_actions(root, parsed.actions, ApplyOptions(dry_run=True))
    elapsed = time.perf_counter() - started
    if not report.ok or len(report.applied) != expected:
        raise SystemExit(f"agentprompt did not apply the benchmark diff:\n{report.feedback}")
    return elapsed, parsed_at - started


def time_command(args: list[str], root: Path, diff: str) -> float:
    """Seconds a command takes with ``diff`` on its standard input; it must succeed."""
    started = time.perf_counter()
    done = subprocess.run(args, cwd=root, input=diff.encode(), capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.decode()[:2000]}")
    return elapsed


def _row(name: str, values: list[float], unit: float = 1000.0, suffix: str = " ms") -> str:
    med, low, high = statistics.median(values), min(values), max(values)
    if suffix == "":
        return f"| {name} | **{med:.2f}** | {low:.2f} | {high:.2f} |"
    cells = [f"{v * unit:.1f}{suffix}" for v in (med, low, high)]
    return f"| {name} | {' | '.join(cells)} |"


CORPORA = ROOT.parent / "shared" / "corpora"
"""The externally written replies (see their README): ``../shared/corpora`` beside the
project."""

_FILE_DIFF = re.compile(r"^--- [^\n]*\n\+\+\+ ", re.MULTILINE)


def _file_actions(reply: str) -> int:
    """How many file actions the parser reads in ``reply`` (its dialect detected)."""
    from agentprompt.edits.actions import FileAction

    return sum(isinstance(a, FileAction) for a in parse_reply(reply).actions)


def corpora() -> None:
    """Parse and apply every real reply of the corpora: blocks parsed, silent wrong writes."""
    import yaml

    if not CORPORA.is_dir():
        raise SystemExit(f"{CORPORA} is not there: the corpora come with the shared folder")
    rows = []
    totals = [0, 0, 0, 0, 0, 0]
    for chat in sorted((CORPORA / "gpt-engineer-diffs").iterdir()):
        if not (chat.name.endswith("_chat") or chat.name.startswith("corrected_")):
            continue
        reply = chat.read_text(encoding="utf-8")
        found, parsed = len(_FILE_DIFF.findall(reply)), _file_actions(reply)
        with tempfile.TemporaryDirectory() as folder:
            code = chat.with_name(chat.name.removesuffix("_chat") + "_code")
            # The file the reply changes (not one it creates from /dev/null).
            target = re.search(r"^--- (?!/dev/null)\S+.*\n\+\+\+ (?:b/)?(\S+)", reply, re.MULTILINE)
            if code.exists() and target and code.read_text(encoding="utf-8"):
                path = Path(folder) / target.group(1)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(code.read_text(encoding="utf-8"), encoding="utf-8")
            report = apply_reply(Path(folder), reply)
        rows.append([chat.name, found, parsed, len(report.matched), len(report.failed), "-", "-"])
        for i, value in enumerate((found, parsed, len(report.matched), len(report.failed))):
            totals[i] += value
    for cases in sorted((CORPORA / "standard-diff-cases").glob("*.yml")):
        try:
            data = yaml.safe_load(cases.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError:
            continue
        for case in data.get("apply_diff_tests", []):
            diff, original = case["input"]["diff_content"], case["input"]["original_content"]
            want = case["expected"]
            found, parsed = len(_FILE_DIFF.findall(diff)), _file_actions(diff)
            target = re.search(r"^\+\+\+ (?:b/)?(\S+)", diff, re.MULTILINE)
            wrong = against = 0
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / (target.group(1) if target else "file.txt")
                path.parent.mkdir(parents=True, exist_ok=True)
                if original or not diff.startswith("--- /dev/null"):
                    path.write_text(original, encoding="utf-8")
                report = apply_reply(Path(folder), diff)
                if report.ok and want["success"]:
                    got = path.read_text(encoding="utf-8") if path.exists() else ""
                    wrong = int(got.rstrip("\n") != want["content"].rstrip("\n"))
                elif report.ok:
                    against = 1
            placed, refused = len(report.matched), len(report.failed)
            rows.append([case["name"], found, parsed, placed, refused, wrong, against])
            for i, value in enumerate((found, parsed, placed, refused)):
                totals[i] += value
            totals[4] += wrong
            totals[5] += against
    print(
        "| reply | file diffs | parsed | placed | refused | silently wrong "
        "| applied where the case expects a refusal |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print("| " + " | ".join(str(v) for v in row) + " |")
    found, parsed, placed, refused, wrong, against = totals
    print(
        f"| **all {len(rows)} replies** | {found} | {parsed} | {placed} | {refused} | {wrong} "
        f"| {against} |"
    )
    print(
        f"\nparsed {parsed} of {found} file diffs ({parsed / max(found, 1):.0%}); silently "
        f"wrong: {wrong} (a case's expected text differs from what was written); applied "
        f"where the case expects a refusal: {against} (see tests/edits/test_edits_corpora.py's "
        "UNREACHABLE for why each is right)"
    )


def main() -> None:
    """Build the corpus, run the timings, print a Markdown table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--profile", action="store_true", help="Also profile one library run (cProfile)."
    )
    parser.add_argument(
        "--blocks",
        type=int,
        default=0,
        help="Time a reply of this many SEARCH/REPLACE blocks instead (dry run and apply).",
    )
    parser.add_argument(
        "--dropped",
        action="store_true",
        help="Apply real diffs with one context line left out of every hunk instead.",
    )
    parser.add_argument(
        "--line-types",
        action="store_true",
        help="Time parsing about 1 MB of each line type instead.",
    )
    parser.add_argument(
        "--corpora",
        action="store_true",
        help="Parse and apply every real reply of ../shared/corpora instead.",
    )
    parser.add_argument("--large-child", nargs=3, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.corpora:
        corpora()
        return
    if options.large_child:
        _large_child(*options.large_child)
        return
    if options.blocks:
        large_reply(options.runs, options.blocks)
        return
    if options.dropped:
        dropped_context(options.files)
        return
    if options.line_types:
        line_types(options.runs)
        return
    root = WORK / "repo"
    files = build_repository(root)
    if len(files) < options.files:
        raise SystemExit(f"only {len(files)} files to change; lower --files")
    diff, widened = build_diff(root, files, options.files)
    drifted = perturb(diff)
    cli = [str(Path(sys.executable).with_name("agentprompt")), "apply", "-", "--dry-run", "--json"]
    git = ["git", "apply", "--check", "-"]
    git_loose = ["git", "apply", "--check", "--ignore-whitespace", "-"]
    time_library(root, diff, options.files)
    time_library(root, drifted, options.files)
    time_command(git, root, diff)
    time_command(git_loose, root, drifted)
    ours, parsing, theirs, ours_drift, theirs_drift, startup = [], [], [], [], [], []
    for _ in range(options.runs):
        # Each side runs twice back to back and the second run is timed, so both are
        # measured with warm caches and a busy CPU (a 2-core VM scales its clock).
        time_library(root, diff, options.files)
        total, parse_part = time_library(root, diff, options.files)
        ours.append(total)
        parsing.append(parse_part)
        time_command(git, root, diff)
        theirs.append(time_command(git, root, diff))
        time_library(root, drifted, options.files)
        ours_drift.append(time_library(root, drifted, options.files)[0])
        time_command(git_loose, root, drifted)
        theirs_drift.append(time_command(git_loose, root, drifted))
        startup.append(time_command(["git", "--version"], root, ""))
    if options.profile:
        profile = cProfile.Profile()
        profile.enable()
        time_library(root, diff, options.files)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        return
    # The command line is timed after the pairs, so its start-up does not disturb them.
    command = [time_command([*cli, "--root", str(root)], root, diff) for _ in range(options.runs)]
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    ratios_drift = [a / b for a, b in zip(ours_drift, theirs_drift, strict=True)]
    size = sum(p.stat().st_size for p in files)
    facts = {
        "files_in_repo": len(files),
        "repo_bytes": size,
        "files_changed": options.files,
        "hunks": diff.count("\n@@ "),
        "diff_lines": diff.count("\n"),
        "runs": options.runs,
        "python": platform.python_version(),
        "corpus": {name: importlib.metadata.version(name) for name in CORPUS_PACKAGES},
        "cores": os.cpu_count(),
        "widened": widened,
    }
    if options.json:
        timings = {
            "library": ours,
            "parse": parsing,
            "git": theirs,
            "git_startup": startup,
            "library_drifted": ours_drift,
            "git_drifted": theirs_drift,
            "cli": command,
        }
        print(json.dumps({**facts, **timings}, indent=2))
        return
    print(
        f"{facts['files_in_repo']} files ({size / 1000:.0f} KB), {options.files} changed, "
        f"{facts['hunks']} hunks, {facts['diff_lines']} diff lines, {options.runs} runs, "
        f"Python {facts['python']}, {facts['cores']} cores, corpus {facts['corpus']}, "
        f"diffs widened for uniqueness: {widened or 'none'}\n"
    )
    print("| measurement | median | min | max |\n| --- | --- | --- | --- |")
    print(_row("`git --version` (subprocess: git's start-up alone)", startup))
    print(_row("`git apply --check` (subprocess)", theirs))
    print(_row("agentprompt parse + dry-run (library, in process)", ours))
    print(_row("of which `parse_reply`", parsing))
    print(_row("ratio agentprompt / git, per run", ratios, suffix=""))
    print(_row("drifted diff: `git apply --check --ignore-whitespace`", theirs_drift))
    print(_row("drifted diff: agentprompt parse + dry-run (library)", ours_drift))
    print(_row("drifted diff: ratio agentprompt / git, per run", ratios_drift, suffix=""))
    print(_row("`agentprompt apply --dry-run --json` (subprocess)", command))


if __name__ == "__main__":
    main()
