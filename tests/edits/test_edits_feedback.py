"""Feedback for the model: which block, which file, why, the nearest lines, the others."""

from __future__ import annotations

from pathlib import Path

from agentprompt.edits.actions import SearchReplace
from agentprompt.edits.apply import ApplyOptions, apply_actions
from agentprompt.edits.feedback import closest_lines


def _sr(path: str, search: str, replace: str, block: int, line: int = 1) -> SearchReplace:
    return SearchReplace(
        dialect="searchreplace", path=path, search=search, replace=replace, block=block, line=line
    )


def _root(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(
        "import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n"
    )
    (tmp_path / "b.py").write_text("B = 1\n")
    return tmp_path


def test_feedback_names_the_block_file_and_reason_and_quotes_the_nearest_lines(
    tmp_path: Path,
) -> None:
    root = _root(tmp_path)
    actions = [
        _sr("b.py", "B = 1\n", "B = 2\n", block=0),
        _sr("app.py", "def load(path):\n    with open(pth) as f:\n", "x\n", block=1, line=9),
    ]
    report = apply_actions(root, actions)
    text = report.failed[0].feedback
    assert "Block 2" in text and "`app.py`" in text and "line 9 of your reply" in text
    assert "not found" in text
    assert "4 | def load(path):" in text and "5 |     with open(path) as f:" in text
    assert "Block 1 matched, but nothing was written" in text


def test_feedback_after_a_partial_apply_says_which_blocks_landed(tmp_path: Path) -> None:
    root = _root(tmp_path)
    actions = [
        _sr("b.py", "B = 1\n", "B = 2\n", block=0),
        _sr("app.py", "nothing like it\n", "x\n", block=1),
        _sr("app.py", "also missing\n", "y\n", block=2),
    ]
    report = apply_actions(root, actions, ApplyOptions(partial=True))
    first = report.failed[0].feedback
    assert "Block 1 was applied; do not send it again." in first
    assert "Block 3 failed as well." in first
    assert "Resend only this block" in first


def test_ambiguous_failure_lists_the_places(tmp_path: Path) -> None:
    (tmp_path / "d.py").write_text("x = 1\ny = 2\n\nx = 1\ny = 2\n")
    report = apply_actions(tmp_path, [_sr("d.py", "x = 1\ny = 2\n", "z\n", block=0)])
    assert "2 places equally well (at lines 1, 4)" in report.failed[0].feedback


def test_reply_feedback_heads_all_failed_blocks(tmp_path: Path) -> None:
    root = _root(tmp_path)
    actions = [
        _sr("app.py", "nothing like it\n", "x\n", block=0),
        _sr("b.py", "B = 9\n", "x\n", block=1),
    ]
    report = apply_actions(root, actions)
    assert report.feedback.startswith("2 of the 2 file blocks in your reply could not be applied.")
    assert "Nothing was written" in report.feedback
    assert report.failed[0].feedback in report.feedback
    assert report.failed[1].feedback in report.feedback


def test_no_feedback_when_everything_applied(tmp_path: Path) -> None:
    root = _root(tmp_path)
    assert apply_actions(root, [_sr("b.py", "B = 1\n", "B = 2\n", block=0)]).feedback == ""


def test_closest_lines_fall_back_to_the_most_similar_line() -> None:
    lines = ["alpha = 1", "beta = compute(2)", "gamma = 3", "delta = 4", "eps = 5", "zeta = 6"]
    assert closest_lines(lines, ["beta = compute(3)"], None) == [
        (1, "alpha = 1"),
        (2, "beta = compute(2)"),
        (3, "gamma = 3"),
        (4, "delta = 4"),
    ]
    assert closest_lines(lines, ["something else entirely, nothing alike"], None) == []


def test_feedback_text_comes_from_a_project_prompt_file_when_present(tmp_path: Path) -> None:
    root = _root(tmp_path)
    prompts = root / ".agentprompt" / "prompts" / "edits"
    prompts.mkdir(parents=True)
    (prompts / "feedback.md").write_text(
        "---\nvariables:\n  block: b\n  kind: k\n  path: p\n  line: l\n  reason: r\n"
        "  closest: c\n  others: o\n---\nBLOCK {{block}} FAILED: {{reason}}\n"
    )
    report = apply_actions(root, [_sr("b.py", "B = 9\n", "x\n", block=0)])
    assert report.failed[0].feedback.startswith("BLOCK 1 FAILED: its lines were not found")
