"""A bare diff's last hunk that closes its change with context but stops one line short of
it (both header counts one line more than it quotes), the shape the real fixes' last hunks
take when the first context line after the change is left out (bench/peers_diff_bench.py
--gold): in a bare diff, refused, as a reply cut off in its closing context is (the line the
counts hold may be a removed line with its added one, a change the cut lost: a model's hunk
may end on a change anywhere, so placing the quote would be a guess); inside a fenced block
that closes, the reply was not cut off, and it is applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.edits.apply import apply_reply

FILE = "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    pass\n\n\ndef h():\n    pass\n"
"""A file whose first function's hunk has two blank lines and ``def g():`` after it."""

GOLD_SHAPE = (
    "--- a/m.py\n+++ b/m.py\n@@ -2,7 +2,7 @@\n \n \n def f():\n-    return 1\n+    return 2\n \n \n"
)
"""``return 1`` changed; the closing context quotes the two blank lines and leaves out
``def g():``, which the counts hold (7 lines on each side, 6 quoted)."""


def test_a_bare_last_hunk_one_closing_line_short_is_refused_naming_a_cut(
    tmp_path: Path,
) -> None:
    (tmp_path / "m.py").write_text(FILE)
    report = apply_reply(tmp_path, GOLD_SHAPE)
    assert not report.ok
    assert "cut off" in report.feedback
    assert (tmp_path / "m.py").read_text() == FILE


@pytest.mark.parametrize(
    "reply",
    [
        # its closing line quoted
        GOLD_SHAPE.replace(" \n \n", " \n \n def g():\n"),
        # in a fenced block that closes: the reply was not cut off
        f"The fix:\n\n```diff\n{GOLD_SHAPE}```\n",
    ],
)
def test_the_same_hunk_whole_or_fenced_is_applied(reply: str, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(FILE)
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    assert (tmp_path / "m.py").read_text() == FILE.replace("return 1", "return 2")
