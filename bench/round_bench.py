"""Benchmark of a bridge session's rounds: tokens of each round's prompt over a scripted
10-round session, against re-sending the whole context every round.

Run: ``.venv/bin/python bench/round_bench.py [--runs N] [ROOT...]`` (default roots: the
bundled ``examples/bridge/repo`` and a copy of the installed ``_pytest`` package's source).

Each root is copied into a fresh git repository in a temporary folder. The session starts
in edit mode over the root's two largest Python files (``pack --task ... FILES``), then ten
replies are applied through the library (the edit engine's one transaction, then the bridge
round), each followed by the prompt the next round sends:

1. a request for a third file;
2. a failed edit (a DIFF whose context line is not in the file);
3. the same edit corrected;
4. an edit ending with CONTINUE (one change still owed);
5. the owed edit;
6. after a change by hand to a file in context, a request for a fourth file;
7. another failed edit;
8. a request for two more files;
9. an edit of a requested file;
10. a reply with a request and a failed edit.

For every round the table shows the tokens (``o200k_base``) of the prompt the session
sends (a follow-up, or the continuation after CONTINUE) and of re-sending everything: the
whole user part (task, structure, every file in context) as the bridge sent it on every
round before follow-ups existed. The first prompt (system part included) is the reference
for the follow-up after the first failed edit (round 2): the target is ≤ 10%.
Token counts are exact and deterministic, so ``--runs`` repeats only the timing column
(median wall time of building each round's prompt).
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
from dataclasses import replace
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO / "src"))

from agentprompt.bridge.pack import build_prompt, session_view  # noqa: E402
from agentprompt.bridge.rounds import reply_options, run_round  # noqa: E402
from agentprompt.bridge.state import BridgeState  # noqa: E402
from agentprompt.edits.apply import apply_reply  # noqa: E402
from agentprompt.tokens import shared_counter  # noqa: E402

TASK = "Add a short comment at the top of the files you change, then fix what the tests need."


def _git_copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", ".agentprompt"))
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=target, check=True)
    subprocess.run([*git, "add", "."], cwd=target, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], cwd=target, check=True)
    return target


_COMMENT = {".py": "# {}", ".ts": "// {}", ".js": "// {}", ".md": "<!-- {} -->"}


def _code_files(root: Path) -> list[str]:
    """The root's Python, TypeScript, JavaScript and Markdown files, largest first (the
    script cycles through them when there are fewer than seven)."""
    found = [
        p for p in root.rglob("*") if p.suffix in _COMMENT and p.is_file() and ".git" not in p.parts
    ]
    found.sort(key=lambda p: (-p.stat().st_size, str(p)))
    return [str(p.relative_to(root)) for p in found]


def _hunk(root: Path, path: str, note: str, *, wrong: bool = False) -> str:
    """A DIFF block adding a comment line after the file's first line (``wrong``: its
    context line is changed, so it does not apply)."""
    first = (root / path).read_text(encoding="utf-8").split("\n", 1)[0]
    context = first + " (not in the file)" if wrong else first
    line = _COMMENT[Path(path).suffix].format(note)
    return f"<<<DIFF: {path}>>>\n@@ -1,1 +1,2 @@\n {context}\n+{line}\n<<<END>>>\n"


def _script(root: Path, files: list[str]) -> list[tuple[str, str | None]]:
    """The ten replies, each with an optional hand edit made before it is applied."""
    a, b, c, d, e, f, g = (files[i % len(files)] for i in range(7))
    return [
        (f"I need to see it.\n<<<REQUEST_FILE: {c}>>>\n", None),
        ("Here is the change.\n" + _hunk(root, a, "round 2", wrong=True), None),
        ("Corrected.\n" + _hunk(root, a, "round 3"), None),
        (_hunk(root, b, "round 4") + "<<<CONTINUE>>>\n残り: 1\n- " + c + "\n<<<END>>>\n", None),
        (_hunk(root, c, "round 5"), None),
        (f"<<<REQUEST_FILE: {d}>>>\n", a),
        ("Another try.\n" + _hunk(root, b, "round 7", wrong=True), None),
        (f"<<<REQUEST_FILES>>>\n- {e}\n- {f}\n<<<END>>>\n", None),
        (_hunk(root, e, "round 9"), None),
        (f"<<<REQUEST_FILE: {g}>>>\n" + _hunk(root, f, "round 10", wrong=True), None),
    ]


def _session(root: Path) -> list[dict[str, float]]:
    counter = shared_counter()
    files = _code_files(root)
    if len(files) < 2:
        raise SystemExit(f"{root}: needs at least 2 code files for the script")
    state = BridgeState.starting(TASK, tuple(files[:2]), mode="edit", lang="en")
    started = time.perf_counter()
    first = build_prompt(root, state, view=session_view(root, state), remember=True)
    took = time.perf_counter() - started
    state = state.after_prompt(first.shown_in_full, first.sends)
    rows = [{"round": 0, "tokens": first.tokens, "whole": first.tokens, "seconds": took}]
    script = _script(root, files)
    for number, (reply, hand) in enumerate(script, start=1):
        if hand is not None:
            target = root / hand
            note = _COMMENT[target.suffix].format("changed by hand")
            target.write_text(target.read_text(encoding="utf-8") + note + "\n")
        report = apply_reply(root, reply, "bridge", reply_options(state))
        started = time.perf_counter()
        outcome = run_round(root, state, report, keep=lambda _s: None)
        took = time.perf_counter() - started
        state = outcome.state
        whole = build_prompt(root, replace(state, resend=True), split=False)
        rows.append(
            {
                "round": number,
                "tokens": outcome.prompt.tokens,
                "whole": counter.count(whole.user),
                "seconds": took,
            }
        )
        if "(not in the file)" in reply and not report.feedback:
            raise SystemExit(f"round {number}: the scripted failed edit applied")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    import _pytest

    roots = args.roots or [REPO / "examples" / "bridge" / "repo", Path(_pytest.__file__).parent]
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}")
    for source in roots:
        runs = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                runs.append(_session(_git_copy(source, Path(tmp) / "repo")))
        rows = runs[0]
        print(f"\n{source} ({len(_code_files(source))} code files)")
        print("| round | reply | prompt tokens | re-send everything | share | build (median) |")
        print("|---|---|---:|---:|---:|---:|")
        names = [
            "first prompt",
            "request",
            "failed edit",
            "corrected edit",
            "edit + CONTINUE",
            "owed edit",
            "hand edit + request",
            "failed edit",
            "request 2 files",
            "edit",
            "request + failed edit",
        ]
        for i, row in enumerate(rows):
            median = statistics.median(r[i]["seconds"] for r in runs)
            share = row["tokens"] / row["whole"] if row["whole"] else 1.0
            print(
                f"| {row['round']} | {names[i]} | {row['tokens']:,.0f} | {row['whole']:,.0f} | "
                f"{share:.0%} | {median * 1000:.0f} ms |"
            )
        sent = sum(r["tokens"] for r in rows)
        whole = rows[0]["tokens"] + sum(r["whole"] for r in rows[1:])
        print(
            f"total over the session: {sent:,.0f} tokens against {whole:,.0f} ({sent / whole:.0%})"
        )
        failed = rows[2]["tokens"] / rows[0]["tokens"]
        print(f"follow-up after the failed edit: {failed:.1%} of the first prompt")


if __name__ == "__main__":
    main()
