"""Parsing takes time linear in the reply: every line type, with long runs of blanks inside
it (which made backtracking patterns quadratic) and repeated many times, parses an input
doubled twice in about four times the time (a quadratic parse takes sixteen)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentprompt.edits import parse_reply


def _runs(make: Callable[[str], str]) -> Callable[[int], str]:
    """A reply whose line holds a run of ``n`` blanks (spaces, then tabs)."""
    return lambda n: make(" " * n) + make("\t" * n)


def _many(block: str) -> Callable[[int], str]:
    """A reply of ``n // 50`` copies of ``block``."""
    return lambda n: block * max(1, n // 50)


SHAPES: dict[str, Callable[[int], str]] = {
    "bridge marker": _runs(lambda s: f"<<<FILE: a{s}b>>>\nx\n<<<END>>>\n"),
    "bridge marker tail": _runs(lambda s: f"<<<FILE: a>>>{s}b\nx\n<<<END>>>\n"),
    "fence info": _runs(lambda s: f"a.py\n```py{s}b\nx\n```\n"),
    "tag fence": _runs(lambda s: f"a.py\n<source{s}x>py\nx\n</source>\n"),
    "diff headers": _runs(lambda s: f"--- a/x{s}y\n+++ b/x{s}y\n@@ -1 +1 @@\n-a\n+b\n"),
    "diff --git": _runs(
        lambda s: f"diff --git a/x{s}y b/x{s}y\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    ),
    "hunk header": _runs(lambda s: f"--- a/x\n+++ b/x\n@@ -1 +1 @@{s}x\n-a\n+b\n"),
    "update file": _runs(
        lambda s: f"*** Begin Patch\n*** Update File: a{s}b\n@@\n-a\n+b\n*** End Patch\n"
    ),
    "request items": _runs(lambda s: f"<<<REQUEST_FILES>>>\n- a{s}b\n- {s}c{s}d\n<<<END>>>\n"),
    "switch targets": _runs(
        lambda s: f"<<<SWITCH_MODE: edit>>>\nTarget files: a{s}, b{s}c\nReason: x{s}y\n<<<END>>>\n"
    ),
    "path lines": _runs(
        lambda s: f"**a{s}b**\n```\nx\n```\n# a{s}b.py\n```\nx\n```\n*** a{s}b\n```\nx\n```\n"
    ),
    "search markers": _runs(
        lambda s: f"a.py\n<<<<<<< SEARCH{s}x\na\n======={s}\nb\n>>>>>>> REPLACE{s}x\n"
    ),
    "edit markers": _runs(
        lambda s: f"a.py\n««« EDIT{s}x\na\n═══════ REPL{s}\nb\n»»» EDIT END{s}x\n"
    ),
    "prose": _runs(lambda s: f"Here{s}is{s}text - with: notes (and) # more\n"),
    "many search blocks": _many("a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n"),
    "many bridge files": _many("<<<FILE: a.py>>>\nx = 1\n<<<END>>>\n"),
    "many hunks": _many("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"),
    "many patches": _many("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n"),
    "many whole files": _many("a.py\n```python\nx = 1\n```\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(SHAPES))
def test_an_input_doubled_twice_takes_about_four_times_as_long(
    shape: str, growth: Callable[..., tuple[float, float]]
) -> None:
    make = SHAPES[shape]
    short, long = make(20_000), make(80_000)
    small, large = growth(lambda: parse_reply(short), lambda: parse_reply(long))
    # Linear: about 4x for 4x the input; quadratic would be 16x. Slack for a busy machine.
    assert large < 9 * small + 0.02, (shape, small, large)
