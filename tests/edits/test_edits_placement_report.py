"""A hunk a loose stage placed says where it landed and which quoted lines it did not find
as written; a fuzzy place too many quoted lines miss is refused; a strict apply refuses
every placement but an exact one."""

from __future__ import annotations

from pathlib import Path

from agentprompt.edits.apply import ApplyOptions, apply_reply

CHANGES = """Version 3.3.0
-------------

Unreleased

*   Add a flag.


Version 3.2.0
-------------

Released 2026-01-02

*   Drop support for Python 3.8.
*   Fix the help output.
*   Speed up the parser.


Version 3.1.0
-------------

Released 2025-06-01

*   Add colours.
"""

SOURCE = """def area(w, h):
    # the area of a rectangle
    result = w * h
    return result


def perimeter(w, h):
    return 2 * (w + h)
"""


def test_an_aligned_placement_reports_where_it_landed_and_the_line_left_out(
    tmp_path: Path,
) -> None:
    (tmp_path / "g.py").write_text(SOURCE)
    reply = (
        "--- a/g.py\n+++ b/g.py\n@@ -1,3 +1,3 @@\n def area(w, h):\n"
        "     result = w * h\n-    return result\n+    return abs(result)\n"
    )
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    (placement,) = report.applied[0].placements
    assert (placement.hunk, placement.stage) == (1, "aligned")
    assert (placement.first, placement.last) == (1, 4)
    assert placement.left_out == ("    # the area of a rectangle",)
    data = report.to_json()["applied"][0]["placements"][0]
    assert data["lines"] == [1, 4] and data["left_out"] == ["    # the area of a rectangle"]


def test_an_exact_placement_reports_no_placement(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text(SOURCE)
    reply = (
        "--- a/g.py\n+++ b/g.py\n@@ -7,2 +7,2 @@\n def perimeter(w, h):\n"
        "-    return 2 * (w + h)\n+    return 2 * w + 2 * h\n"
    )
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    assert report.applied[0].placements == ()
    assert "placements" not in report.to_json()["applied"][0]


def test_a_fuzzy_placement_missing_too_many_quoted_lines_is_refused(tmp_path: Path) -> None:
    # "Version 2.3.0" and "Drop support for Python 3.7" are nowhere in the file: landing
    # under "Version 3.2.0" would be a guess the user cannot judge.
    (tmp_path / "CHANGES.rst").write_text(CHANGES)
    reply = (
        "--- a/CHANGES.rst\n+++ b/CHANGES.rst\n@@ -9,8 +9,8 @@\n Version 2.3.0\n"
        " -------------\n \n Released 2026-01-02\n \n *   Drop support for Python 3.7.\n"
        "-*   Fix the help output.\n+*   Fix the help output of groups.\n"
        " *   Speed up the parser.\n"
    )
    report = apply_reply(tmp_path, reply)
    assert not report.ok
    reason = report.failed[0].reason
    assert "'Version 2.3.0'" in reason and "'*   Drop support for Python 3.7.'" in reason
    assert "lines 9-" in reason
    assert (tmp_path / "CHANGES.rst").read_text() == CHANGES


def test_a_fuzzy_placement_missing_one_quoted_line_is_applied_and_reported(
    tmp_path: Path,
) -> None:
    (tmp_path / "CHANGES.rst").write_text(CHANGES)
    reply = (
        "--- a/CHANGES.rst\n+++ b/CHANGES.rst\n@@ -9,8 +9,8 @@\n Version 3.2.0\n"
        " -------------\n \n Released 2026-01-03\n \n-*   Drop support for Python 3.8.\n"
        "+*   Drop support for Python 3.8 and 3.9.\n *   Fix the help output.\n"
        " *   Speed up the parser.\n"
    )
    report = apply_reply(tmp_path, reply)
    assert report.ok, report.feedback
    (placement,) = report.applied[0].placements
    assert placement.stage == "fuzzy"
    assert placement.unmatched == ("Released 2026-01-03",)
    assert (placement.first, placement.last) == (9, 16)


def test_strict_refuses_a_placement_that_is_not_exact(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text(SOURCE)
    reply = (
        "--- a/g.py\n+++ b/g.py\n@@ -1,3 +1,3 @@\n def area(w, h):\n"
        "     result = w * h\n-    return result\n+    return abs(result)\n"
    )
    report = apply_reply(tmp_path, reply, options=ApplyOptions(strict=True))
    assert not report.ok
    assert "aligned match, lines 1-4" in report.failed[0].reason
    assert (tmp_path / "g.py").read_text() == SOURCE
    spaced = (
        "g.py\n<<<<<<< SEARCH\n    result = w  *  h\n=======\n    result = w * h * 1\n"
        ">>>>>>> REPLACE\n"
    )
    assert apply_reply(tmp_path, spaced).ok is True
    (tmp_path / "g.py").write_text(SOURCE)
    refused = apply_reply(tmp_path, spaced, options=ApplyOptions(strict=True))
    assert not refused.ok and "only exact matches" in refused.failed[0].reason
    assert (tmp_path / "g.py").read_text() == SOURCE


def test_strict_applies_exact_placements(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text(SOURCE)
    reply = (
        "g.py\n<<<<<<< SEARCH\n    result = w * h\n=======\n    result = h * w\n>>>>>>> REPLACE\n"
    )
    report = apply_reply(tmp_path, reply, options=ApplyOptions(strict=True))
    assert report.ok, report.feedback
    assert "result = h * w" in (tmp_path / "g.py").read_text()
