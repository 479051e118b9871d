"""Benchmark: the edit engine's time on adversarial reply shapes grows linearly with the reply.

Run: ``.venv/bin/python bench/reply_shapes_bench.py [--sizes 10000,100000,1000000]``.

Each shape is one block (or one line) repeated, or one block holding one line repeated, up
to about each size in characters: a shape whose parse or plan once rescanned the reply, or
compared each block with every earlier one, took time quadratic in its size. For each shape
and size the bench times, in this process (CPU time, the best of ``--runs``):

* parse: ``parse_reply(reply)``;
* dry run: ``apply_reply(root, reply, options=ApplyOptions(dry_run=True))`` on an empty
  directory (the parse again, the plan, the diff and the feedback).

It prints a Markdown table. Exit status 1 when a shape's time at the largest size over its
time at the size before (both floored at 10 ms, so noise on tiny figures does not count)
exceeds 1.5 times the ratio of the sizes: 15x for 1 MB over 100 KB, well above linear (10x)
and well below quadratic (100x). Targets: each shape at 1 MB parses in <= 3 s and dry-runs
in <= 5 s. ``--cap`` skips a shape's larger sizes once one size took longer than the cap
over a hundred (a quadratic shape would take the cap at the next size), for timing the code
before the fixes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from agentprompt.edits import ApplyOptions, apply_reply, parse_reply

FLOOR = 0.01
"""Seconds below which a time is counted as this, for the growth check."""
SLACK = 1.5
"""How far above linear growth a shape may go before the bench fails."""


def repeated(block: Callable[[int], str], size: int, head: str = "", tail: str = "") -> str:
    """``head``, then ``block(0)``, ``block(1)``... up to about ``size`` characters, then
    ``tail``."""
    parts = [head]
    total = len(head)
    i = 0
    while total < size:
        part = block(i)
        parts.append(part)
        total += len(part)
        i += 1
    parts.append(tail)
    return "".join(parts)


SHAPES: dict[str, Callable[[int], str]] = {
    "SEARCH block of many dividers": lambda n: repeated(
        lambda i: "=======\n", n, "a.py\n<<<<<<< SEARCH\n", ">>>>>>> REPLACE\n"
    ),
    "many SEARCH openers": lambda n: repeated(lambda i: "<<<<<<< SEARCH\n", n),
    "many diff headers": lambda n: repeated(lambda i: "--- a/x\n+++ b/x\n", n),
    "many new files": lambda n: repeated(lambda i: f"<<<FILE: d/f{i}.py>>>\nx = 1\n<<<END>>>\n", n),
    "many new files, nested folders": lambda n: repeated(
        lambda i: f"<<<FILE: {'d/' * (i % 40)}f{i}.py>>>\nx = 1\n<<<END>>>\n", n
    ),
    "many blocks on one new file": lambda n: repeated(
        lambda i: "<<<FILE: a.py>>>\nx = 1\n<<<END>>>\n", n
    ),
    "REQUEST_FILES of many paths": lambda n: repeated(
        lambda i: f"- d/f{i}.py\n", n, "<<<REQUEST_FILES>>>\n", "<<<END>>>\n"
    ),
    "DIFF block of many blank lines": lambda n: repeated(
        lambda i: "\n", n, "<<<DIFF: a.py>>>\n", "@@ -1 +1 @@\n-x\n+y\n<<<END>>>\n"
    ),
    "many Markdown files named on the fence": lambda n: repeated(
        lambda i: "```markdown a.md\nx\n```\n", n
    ),
}
"""Each shape's reply of about ``n`` characters."""


def best(run: Callable[[], object], runs: int) -> float:
    """The least CPU seconds ``run`` takes over ``runs`` runs."""
    least = float("inf")
    for _ in range(runs):
        began = time.process_time()
        run()
        least = min(least, time.process_time() - began)
    return least


def dry_run(reply: str) -> None:
    """Parse and plan ``reply`` on an empty directory, writing nothing."""
    with tempfile.TemporaryDirectory() as root:
        apply_reply(Path(root), reply, options=ApplyOptions(dry_run=True))


def measure(sizes: list[int], runs: int, cap: float) -> dict[str, list[tuple[float, float] | None]]:
    """Each shape's (parse, dry run) seconds at each size (None: skipped by ``cap``)."""
    table: dict[str, list[tuple[float, float] | None]] = {}
    for name, make in SHAPES.items():
        row: list[tuple[float, float] | None] = []
        for size in sizes:
            if row and (row[-1] is None or max(row[-1]) * 100 > cap):
                row.append(None)
                continue
            reply = make(size)
            times = 1 if size >= 1_000_000 else runs
            parse = best(partial(parse_reply, reply), times)
            dry = best(partial(dry_run, reply), times)
            row.append((parse, dry))
            print(
                f"  {name} at {size:,}: parse {parse:.3f} s, dry run {dry:.3f} s",
                file=sys.stderr,
            )
        table[name] = row
    return table


def too_steep(sizes: list[int], row: list[tuple[float, float] | None]) -> list[str]:
    """What grew faster than :data:`SLACK` times linear between the last two sizes."""
    if len(sizes) < 2 or row[-1] is None or row[-2] is None:
        return []
    allowed = SLACK * sizes[-1] / sizes[-2]
    steep = []
    for what, small, large in zip(("parse", "dry run"), row[-2], row[-1], strict=True):
        ratio = max(large, FLOOR) / max(small, FLOOR)
        if ratio > allowed:
            steep.append(f"{what} {ratio:.1f}x (allowed {allowed:.0f}x)")
    return steep


def _size(size: int) -> str:
    return f"{size // 1_000_000} MB" if size >= 1_000_000 else f"{size // 1000} KB"


def main(argv: list[str] | None = None) -> int:
    """Time every shape at every size, print the table; 1 when a shape grows too fast."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="reply sizes, chars")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure below 1 MB")
    parser.add_argument("--cap", type=float, default=60.0, help="seconds; see the docstring")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    table = measure(sizes, args.runs, args.cap)
    heads = " | ".join(f"{_size(s)} parse / dry run" for s in sizes)
    print(f"| shape | {heads} | growth |")
    print("| --- |" + " ---: |" * len(sizes) + " --- |")
    failed = False
    for name, row in table.items():
        cells = " | ".join(
            "skipped" if cell is None else f"{cell[0]:.3f} / {cell[1]:.3f} s" for cell in row
        )
        steep = too_steep(sizes, row)
        failed = failed or bool(steep)
        verdict = "; ".join(steep) or ("linear" if None not in row[-2:] else "not measured")
        print(f"| {name} | {cells} | {verdict} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
