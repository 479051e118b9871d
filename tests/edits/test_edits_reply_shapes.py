"""Adversarial reply shapes take time linear in the reply, to parse and to plan: a reply
four times longer takes about four times as long (a quadratic parse or plan takes sixteen).
The shapes are those of ``bench/reply_shapes_bench.py``, small; each once rescanned the
reply or compared every block with every earlier one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.edits import ApplyOptions, apply_reply, parse_reply


def _repeated(block: Callable[[int], str], head: str = "", tail: str = "") -> Callable[[int], str]:
    """A reply of ``head``, ``block(0)``, ``block(1)``... up to about ``n`` characters, then
    ``tail``."""

    def make(n: int) -> str:
        parts = [head]
        total, i = len(head), 0
        while total < n:
            parts.append(block(i))
            total += len(parts[-1])
            i += 1
        return "".join([*parts, tail])

    return make


SHAPES: dict[str, Callable[[int], str]] = {
    "search dividers": _repeated(
        lambda i: "=======\n", "a.py\n<<<<<<< SEARCH\n", ">>>>>>> REPLACE\n"
    ),
    "search openers": _repeated(lambda i: "<<<<<<< SEARCH\n"),
    "diff headers": _repeated(lambda i: "--- a/x\n+++ b/x\n"),
    "new files": _repeated(lambda i: f"<<<FILE: d/f{i}.py>>>\nx = 1\n<<<END>>>\n"),
    "nested new files": _repeated(
        lambda i: f"<<<FILE: {'d/' * (i % 40)}f{i}.py>>>\nx = 1\n<<<END>>>\n"
    ),
    "one new file": _repeated(lambda i: "<<<FILE: a.py>>>\nx = 1\n<<<END>>>\n"),
    "request list": _repeated(lambda i: f"- d/f{i}.py\n", "<<<REQUEST_FILES>>>\n", "<<<END>>>\n"),
    "switch targets": _repeated(
        lambda i: f"- d/f{i}.py\n", "<<<SWITCH_MODE: edit>>>\n", "Reason: x\n<<<END>>>\n"
    ),
    "diff block blanks": _repeated(
        lambda i: "\n", "<<<DIFF: a.py>>>\n", "@@ -1 +1 @@\n-x\n+y\n<<<END>>>\n"
    ),
    "markdown fences": _repeated(lambda i: "```markdown a.md\nx\n```\n"),
}

LONG = ("request list", "switch targets", "diff block blanks")
"""The shapes cheap enough per line to parse at a larger size, where quadratic time shows."""

PLANNED = ("search openers", "diff headers", "new files", "nested new files", "one new file")
"""The shapes whose plan and feedback (not only their parse) once grew too fast."""


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_reply_four_times_longer_parses_in_about_four_times_the_time(
    shape: str, growth: Callable[..., tuple[float, float]]
) -> None:
    size = 20_000 if shape in LONG else 5_000
    short, long = SHAPES[shape](size), SHAPES[shape](4 * size)
    small, large = growth(lambda: parse_reply(short), lambda: parse_reply(long))
    # Linear: about 4x for 4x the input; quadratic would be 16x. Slack for a busy machine.
    assert large < 9 * small + 0.02, (shape, small, large)


@pytest.mark.parametrize("shape", PLANNED)
def test_a_reply_four_times_longer_dry_runs_in_about_four_times_the_time(
    shape: str, growth: Callable[..., tuple[float, float]], tmp_path: Path
) -> None:
    short, long = SHAPES[shape](2_000), SHAPES[shape](8_000)
    options = ApplyOptions(dry_run=True)
    small, large = growth(
        lambda: apply_reply(tmp_path, short, options=options),
        lambda: apply_reply(tmp_path, long, options=options),
    )
    assert large < 9 * small + 0.02, (shape, small, large)


def test_many_dividers_still_leave_the_block_ambiguous() -> None:
    # The one-pass divider pick reads as the pairwise one did: with no conflict markers
    # every candidate fits, so nothing is guessed.
    parsed = parse_reply(SHAPES["search dividers"](2_000))
    assert not parsed.actions
    assert [d.code for d in parsed.diagnostics] == ["ambiguous-divider"]
