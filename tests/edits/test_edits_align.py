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


PARAMS = """def build(
    skip_keys=False,
    ensure_ascii=False,
    allow_nan=True,
    default=None,
    sort_keys=False,
) -> None:
    pass


def build_from(
    skip_keys=False,
    ensure_ascii=False,
    allow_nan=True,
    default=None,
    sort_keys=False,
) -> "Built":
    pass
"""


def test_a_place_where_every_quoted_line_stands_wins_over_one_lacking_a_quoted_line(
    tmp_path: Path,
) -> None:
    # The quote leaves out `sort_keys=False,`: it stands whole in `build` with one line
    # more, while in `build_from` its last line is missing (another return type).
    (tmp_path / "p.py").write_text(PARAMS)
    reply = (
        "```diff\n--- a/p.py\n+++ b/p.py\n@@ -2,6 +2,6 @@\n     skip_keys=False,\n"
        "     ensure_ascii=False,\n-    allow_nan=True,\n+    allow_nan=False,\n"
        "     default=None,\n ) -> None:\n```\n"
    )
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    assert (tmp_path / "p.py").read_text() == PARAMS.replace("allow_nan=True", "allow_nan=False", 1)


COMMENTS = """PATTERNS = [
    r"day",
    #
    # Weeks
    #
    # Week of the year
    r"week",
]
"""


def test_a_diff_quoting_a_repeated_line_is_aligned_where_the_gap_has_one_place(
    tmp_path: Path,
) -> None:
    # The diff says which `#` goes (the second); the left-out `# Weeks` can only sit
    # between the two.
    (tmp_path / "p.py").write_text(COMMENTS)
    reply = (
        '```diff\n--- a/p.py\n+++ b/p.py\n@@ -2,5 +2,4 @@\n     r"day",\n     #\n-    #\n'
        '     # Week of the year\n     r"week",\n```\n'
    )
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    assert (tmp_path / "p.py").read_text() == COMMENTS.replace(
        "    # Weeks\n    #\n", "    # Weeks\n"
    )


def test_a_search_repeating_a_line_beside_the_gap_is_refused(tmp_path: Path) -> None:
    # From SEARCH/REPLACE texts, which `#` is removed is only the diff's guess.
    (tmp_path / "p.py").write_text(COMMENTS)
    reply = (
        'p.py\n<<<<<<< SEARCH\n    r"day",\n    #\n    #\n    # Week of the year\n'
        '=======\n    r"day",\n    #\n    # Week of the year\n>>>>>>> REPLACE\n'
    )
    assert not apply_reply(tmp_path, reply).ok
    assert (tmp_path / "p.py").read_text() == COMMENTS


LOOP = """def render(control):
    if not control:
        return
    else:
        codes = control
        for code in codes:
            handle(code)
"""


def test_a_replacement_beside_the_gap_stays_where_the_removed_line_stood(tmp_path: Path) -> None:
    (tmp_path / "r.py").write_text(LOOP)
    reply = (
        "```diff\n--- a/r.py\n+++ b/r.py\n@@ -3,5 +3,5 @@\n         return\n     else:\n"
        "-        codes = control\n+        codes = list(control)\n             handle(code)\n```\n"
    )
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    assert (tmp_path / "r.py").read_text() == LOOP.replace("= control", "= list(control)")


def test_lines_added_beyond_a_replacement_beside_the_gap_are_refused(tmp_path: Path) -> None:
    # `codes = list(control)` replaces its line, but `log(codes)` may go before or after
    # the left-out `for code in codes:`.
    (tmp_path / "r.py").write_text(LOOP)
    reply = (
        "```diff\n--- a/r.py\n+++ b/r.py\n@@ -3,5 +3,6 @@\n         return\n     else:\n"
        "-        codes = control\n+        codes = list(control)\n+        log(codes)\n"
        "             handle(code)\n```\n"
    )
    report = apply_reply(tmp_path, reply)
    assert not report.ok
    assert "before or after" in report.feedback
    assert (tmp_path / "r.py").read_text() == LOOP
