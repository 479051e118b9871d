"""The fence around a file's content is longer than any backtick run at a line start; runs
of tildes (an underline in reStructuredText) cannot close a backtick fence and never lengthen
it."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.bridge._render import fence_for

_AT_LINE_START = re.compile(r"^[ \t]*(`{3,})", re.MULTILINE)


def _reference(content: str) -> str:
    """The definition: one more backtick than the longest run at a line start (min 3)."""
    longest = max((len(m.group(1)) for m in _AT_LINE_START.finditer(content)), default=0)
    return "`" * max(3, longest + 1)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["`", "``", "```", "~", "~~~", " ", "\t", "\n", "x", "\r"])))
def test_fence_for_matches_its_definition(parts: list[str]) -> None:
    content = "".join(parts)
    assert fence_for(content) == _reference(content)


def test_fence_for_examples() -> None:
    assert fence_for("plain\n") == "```"
    assert fence_for("a\n  ````py\nb\n````\n") == "`````"
    assert fence_for("x ``````` y\n~~~~\n") == "```"


def test_tilde_runs_never_lengthen_the_fence() -> None:
    underlined = "Title\n" + "~" * 40 + "\n\nSection\n" + "~" * 15 + "\n"
    assert fence_for(underlined) == "```"
    assert fence_for("~~~~\n````\n" + "~" * 60 + "\n") == "`````"
