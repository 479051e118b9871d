"""Whitespace drift in a hunk's context (a tab for four spaces in one line, a trailing
space) is tolerated where the place stays unique; added lines keep the file's indentation."""

from __future__ import annotations

from pathlib import Path

from agentprompt.edits.apply import apply_reply

SOURCE = "def run(runner):\n    result = runner.invoke(cli)\n    assert result.ok\n"


def test_one_context_line_with_a_tab_for_spaces_and_added_lines_in_the_files_kind(
    tmp_path: Path,
) -> None:
    (tmp_path / "t.py").write_text(SOURCE)
    diff = (
        "--- a/t.py\n+++ b/t.py\n@@ -1,3 +1,8 @@\n def run(runner):\n"
        " \tresult = runner.invoke(cli)\n     assert result.ok \n+\n+\n+def more(runner):\n"
        "+    with runner.isolation():\n+        pass\n"
    )
    report = apply_reply(tmp_path, diff)
    assert report.ok, report.feedback
    assert (tmp_path / "t.py").read_text() == SOURCE + (
        "\n\ndef more(runner):\n    with runner.isolation():\n        pass\n"
    )


def test_a_bare_diff_broken_by_a_line_no_diff_holds_is_not_applied_as_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "t.py").write_text(SOURCE)
    diff = (
        "--- a/t.py\n+++ b/t.py\n@@ -1,3 +1,4 @@\n def run(runner):\n"
        "\tresult = runner.invoke(cli)\n     assert result.ok\n+    assert result.output\n"
    )
    report = apply_reply(tmp_path, diff)
    assert not report.ok
    assert (tmp_path / "t.py").read_text() == SOURCE
