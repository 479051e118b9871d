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


def test_fewer_added_lines_than_removed_beside_the_gap_stand_where_those_stood(
    tmp_path: Path,
) -> None:
    source = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n"
    (tmp_path / "f.py").write_text(source)
    reply = (
        "```diff\n--- a/f.py\n+++ b/f.py\n@@ -1,5 +1,4 @@\n def f():\n"
        "-    a = 1\n-    b = 2\n+    a = 2\n     return a\n```\n"
    )
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    assert (tmp_path / "f.py").read_text() == "def f():\n    a = 2\n    c = 3\n    return a\n"


def test_a_pure_insertion_beside_the_gap_is_refused_naming_the_line_to_quote(
    tmp_path: Path,
) -> None:
    # ` C +X G` over `C F G`: after `C` or before `G`? Nothing in the quote tells.
    source = "import os\nimport re\nimport sys\n\nprint(sys.argv)\n"
    (tmp_path / "m.py").write_text(source)
    reply = (
        "```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,4 @@\n import os\n+import json\n"
        " import sys\n \n print(sys.argv)\n```\n"
    )
    report = apply_reply(tmp_path, reply)
    assert not report.ok
    assert "'import re'" in report.feedback
    assert "before or after" in report.feedback
    assert (tmp_path / "m.py").read_text() == source


CLOSING = "def a():\n    x = 1\n    y = 2\n    z = 3\n    return x\n\n\ndef b():\n    pass\n"


def test_the_last_hunk_missing_a_closing_context_line_is_placed(tmp_path: Path) -> None:
    # The header counts the line the quote left out, and the hunk stops short of the
    # context it began with: it reads as open-ended, yet its one aligned place holds it.
    (tmp_path / "c.py").write_text(CLOSING)
    reply = (
        "--- a/c.py\n+++ b/c.py\n@@ -1,5 +1,5 @@\n def a():\n     x = 1\n"
        "-    y = 2\n+    y = 20\n     return x\n"
    )
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    assert (tmp_path / "c.py").read_text() == CLOSING.replace("y = 2\n", "y = 20\n")


def test_a_last_hunk_cut_off_in_its_closing_context_stays_refused(tmp_path: Path) -> None:
    # Every quoted line stands as the file holds it, with none left out between them: the
    # lines the counts promise are missing after the quote, where more changes may have been.
    (tmp_path / "c.py").write_text(CLOSING)
    reply = (
        "--- a/c.py\n+++ b/c.py\n@@ -1,5 +1,5 @@\n def a():\n     x = 1\n"
        "-    y = 2\n+    y = 20\n     z = 3\n"
    )
    report = apply_reply(tmp_path, reply)
    assert not report.ok
    assert (tmp_path / "c.py").read_text() == CLOSING


def test_a_hunk_ending_the_file_missing_a_line_is_placed_at_the_end(tmp_path: Path) -> None:
    # It stops on a change (the file's last line removed) and counts one line more than it
    # quotes: it must end the file, and its one aligned place does.
    source = "a = 1\n# one\n# two\n# three\nb = 2\n"
    (tmp_path / "e.py").write_text(source)
    reply = "--- a/e.py\n+++ b/e.py\n@@ -2,4 +2,3 @@\n # one\n-# two\n+# 2\n-b = 2\n"
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    assert (tmp_path / "e.py").read_text() == "a = 1\n# one\n# 2\n# three\n"
