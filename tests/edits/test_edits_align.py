"""Hunks whose quoted lines leave out one line of the file, or add one, are placed by
aligning them with the file (one gap, a single place, every removed line matched)."""

from __future__ import annotations

from pathlib import Path

from agentprompt.edits.apply import apply_reply

SOURCE = """import sys


def load(path):
    with open(path) as handle:
        text = handle.read()

    return text.splitlines()


def save(path, rows):
    with open(path, "w") as handle:
        handle.write("\\n".join(rows))
"""


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "io.py").write_text(SOURCE)
    return tmp_path


def test_a_diff_hunk_that_drops_a_blank_context_line_is_aligned(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    reply = (
        "```diff\n--- a/io.py\n+++ b/io.py\n@@ -4,5 +4,5 @@\n def load(path):\n"
        "     with open(path) as handle:\n         text = handle.read()\n"
        "-    return text.splitlines()\n+    return text.splitlines(keepends=False)\n```\n"
    )
    report = apply_reply(root, reply)
    assert report.ok, report.feedback
    assert (root / "io.py").read_text() == SOURCE.replace(
        "text.splitlines()", "text.splitlines(keepends=False)"
    )


def test_a_search_that_adds_a_line_the_file_lacks_is_aligned(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    reply = (
        "io.py\n<<<<<<< SEARCH\ndef save(path, rows):\n\n"
        '    with open(path, "w") as handle:\n        handle.write("\\n".join(rows))\n'
        '=======\ndef save(path, rows):\n\n    with open(path, "w") as handle:\n'
        '        handle.write("\\n".join(rows) + "\\n")\n>>>>>>> REPLACE\n'
    )
    report = apply_reply(root, reply)
    assert report.ok, report.feedback
    assert (root / "io.py").read_text().endswith('"\\n".join(rows) + "\\n")\n')
    assert "def save(path, rows):\n    with" in (root / "io.py").read_text()


def test_an_apply_patch_hunk_missing_a_line_is_aligned(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    reply = (
        "*** Begin Patch\n*** Update File: io.py\n@@\n def load(path):\n"
        "     with open(path) as handle:\n-        text = handle.read()\n"
        "+        text = handle.read().strip()\n     return text.splitlines()\n*** End Patch\n"
    )
    report = apply_reply(root, reply)
    assert report.ok, report.feedback
    assert "handle.read().strip()\n\n    return" in (root / "io.py").read_text()


def test_an_alignment_found_in_two_places_is_refused(tmp_path: Path) -> None:
    text = "a = 1\nb = 2\nx\nc = 3\n\na = 1\nb = 2\ny\nc = 3\n"
    (tmp_path / "t.py").write_text(text)
    reply = (
        "t.py\n<<<<<<< SEARCH\na = 1\nb = 2\nc = 3\n=======\na = 1\nb = 5\nc = 3\n>>>>>>> REPLACE\n"
    )
    assert not apply_reply(tmp_path, reply).ok
    assert (tmp_path / "t.py").read_text() == text


def test_a_removed_line_is_never_the_one_left_out(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    # The removed line is not in the file: no alignment may skip it.
    reply = (
        "io.py\n<<<<<<< SEARCH\ndef load(path):\n    with open(path) as handle:\n"
        "        data = handle.read()\n        text = handle.read()\n=======\n"
        "def load(path):\n    with open(path) as handle:\n        text = handle.read()\n"
        ">>>>>>> REPLACE\n"
    )
    report = apply_reply(root, reply)
    assert not report.ok
    assert (root / "io.py").read_text() == SOURCE
