"""Feedback for the model: which block, which file, why, the nearest lines, the others."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.edits._feedback import closest_lines
from agentprompt.edits.actions import SearchReplace
from agentprompt.edits.apply import ApplyOptions, apply_actions, apply_reply
from agentprompt.errors import AgentPromptError


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
    assert "Already applied (do not send again): block 1." in first
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
    for failed in report.failed:
        own = failed.feedback.split("\n\n")[0]
        assert report.feedback.count(own) == 1


def test_reply_feedback_says_the_others_and_the_resend_once(tmp_path: Path) -> None:
    reply = (
        "x\n<<<FILE: ../evil.txt>>>\nhi\n<<<END>>>\n\n<<<FILE: /etc/evil.txt>>>\nhi\n<<<END>>>\n"
    )
    report = apply_reply(tmp_path, reply, "bridge")
    text = report.feedback
    assert [f.index for f in report.failed] == [0, 1]
    assert "failed as well" not in text
    assert "send every file block of it again" not in text
    assert text.count("quote the lines to change exactly") == 1
    assert text.count("Block 1 (") == 1 and text.count("Block 2 (") == 1
    # Each failed action's own feedback still stands alone.
    assert "Block 2 failed as well." in report.failed[0].feedback
    assert "send every file block of it again" in report.failed[1].feedback


def test_reply_feedback_names_the_blocks_that_landed_once(tmp_path: Path) -> None:
    root = _root(tmp_path)
    actions = [
        _sr("b.py", "B = 1\n", "B = 2\n", block=0),
        _sr("app.py", "nothing like it\n", "x\n", block=1),
        _sr("app.py", "also missing\n", "y\n", block=2),
    ]
    text = apply_actions(root, actions, ApplyOptions(partial=True)).feedback
    assert text.count("Already applied (do not send again): block 1.") == 1
    assert "Resend only this block" not in text


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
        "  closest: c\n  others: o\n  resend: s\n---\nBLOCK {{block}} FAILED: {{reason}}\n"
    )
    report = apply_actions(root, [_sr("b.py", "B = 9\n", "x\n", block=0)])
    assert report.failed[0].feedback.startswith("BLOCK 1 FAILED: its lines were not found")


def test_all_or_nothing_feedback_asks_for_every_block_again(tmp_path: Path) -> None:
    root = _root(tmp_path)
    actions = [
        _sr("b.py", "B = 1\n", "B = 2\n", block=0),
        _sr("app.py", "nothing like it\n", "x\n", block=1),
    ]
    report = apply_actions(root, actions)
    text = report.failed[0].feedback
    assert "Nothing of your reply was written, so send every file block of it again" in text
    assert "Resend only this block" not in text
    assert "send all its file blocks again" in report.feedback


def test_a_hunk_already_in_the_file_is_not_asked_for_again(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nB\nc\n")
    report = apply_reply(tmp_path, "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
    text = report.failed[0].feedback
    assert "already in the file" in text
    assert "Resend" not in text and "send every file block" not in text


def test_a_lost_block_is_asked_for_once_and_the_others_are_named(tmp_path: Path) -> None:
    root = _root(tmp_path)
    reply = (
        "b.py\n```\n<<<<<<< SEARCH\nB = 1\n=======\nB = 2\n>>>>>>> REPLACE\n```\n\n"
        "<<<FILE: z.txt>>>\nhalf\n"
    )
    report = apply_reply(root, reply)
    assert report.feedback.count("again") == 2
    assert "nothing of your reply was written" in report.feedback
    assert "Resend that block complete" not in report.feedback


def test_every_failing_hunk_gets_its_nearest_lines_and_the_differing_line(
    tmp_path: Path,
) -> None:
    (tmp_path / "f.txt").write_text("".join(f"line{i}\n" for i in range(1, 60)))
    reply = (
        "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n line5\n-lineX6\n+L6\n line7\n"
        "@@ -20,3 +20,3 @@\n line20\n-line21\n+L21\n line22\n"
        "@@ -40,3 +40,3 @@\n line40\n-lineY41\n+L41\n line42\n"
    )
    text = apply_reply(tmp_path, reply).failed[0].feedback
    assert "for hunk 1" in text and "for hunk 3" in text
    assert "6 | line6" in text and "41 | line41" in text
    assert "`lineX6` is `line6` in the file (line 6)" in text
    assert "(at or after the previous hunk)" not in text.split("hunk 3")[0]


def test_ambiguous_feedback_quotes_every_candidate_place(tmp_path: Path) -> None:
    (tmp_path / "d.py").write_text("x = 1\ny = 2\n\nx = 1\ny = 2\n\nx = 1\ny = 2\n")
    report = apply_actions(tmp_path, [_sr("d.py", "x = 1\ny = 2\n", "z\n", block=0)])
    text = report.failed[0].feedback
    assert "(place 1 of 3)" in text and "(place 3 of 3)" in text


def test_search_replace_failure_does_not_speak_of_a_previous_hunk(tmp_path: Path) -> None:
    root = _root(tmp_path)
    report = apply_actions(root, [_sr("b.py", "B = 9\n", "x\n", block=0)])
    assert "previous hunk" not in report.failed[0].feedback


def test_broken_feedback_override_with_partial_writes_nothing(tmp_path: Path) -> None:
    root = _root(tmp_path)
    prompts = root / ".agentprompt" / "prompts" / "edits"
    prompts.mkdir(parents=True)
    (prompts / "feedback.md").write_text("---\nvariables:\n  nope: n\n---\n{{nope}}\n")
    actions = [
        _sr("b.py", "B = 1\n", "B = 2\n", block=0),
        _sr("app.py", "nothing like it\n", "x\n", block=1),
    ]
    with pytest.raises(AgentPromptError):
        apply_actions(root, actions, ApplyOptions(partial=True))
    assert (root / "b.py").read_text() == "B = 1\n"


def test_every_packaged_feedback_and_reason_prompt_renders() -> None:
    from agentprompt.edits.wording import EDIT_MESSAGES, LANGS
    from agentprompt.prompts.loader import PACKAGED_DIR, PromptLibrary

    library = PromptLibrary()
    names = sorted(p.stem for p in (PACKAGED_DIR / "edits").glob("feedback*.md"))
    templates = [library.load(f"edits/{name}") for name in names]
    for lang in LANGS:
        templates.extend(EDIT_MESSAGES.packaged(lang).entries.values())
    assert len(names) == 10 and len(templates) > 200
    for template in templates:
        text = template.render(**{v: "X" for v in template.variables})
        assert text.strip() and "{{" not in text


def test_a_settled_block_is_not_said_to_differ_nor_asked_for_again(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 2\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    actions = [
        _sr("a.py", "x = 1\n", "x = 2\n", block=0),
        _sr("b.py", "z = 1\n", "z = 2\n", block=1),
    ]
    report = apply_actions(tmp_path, actions)
    settled = report.failed[0].feedback
    assert "already in the file" in settled and "Your line" not in settled
    assert "except a block whose change is already in the file" in report.feedback


def _short(root: Path, **values: object) -> ApplyOptions:
    return ApplyOptions(seen_in_full=frozenset({"app.py", "b.py"}), short_feedback=True, **values)  # type: ignore[arg-type]


def test_short_feedback_names_the_nearest_line_and_quotes_only_the_one_that_differs(
    tmp_path: Path,
) -> None:
    root = _root(tmp_path)
    actions = [_sr("app.py", "def load(path):\n    with open(pth) as f:\n", "x\n", block=0, line=3)]
    report = apply_actions(root, actions, _short(root))
    assert "of `app.py`, reply line 3) was not applied" in report.feedback
    assert "Nearest lines in the file: 4-5." in report.feedback
    assert "Line 5 of the file reads `    with open(path) as f:`." in report.feedback
    assert "def load" not in report.feedback  # the model holds the lines that match
    assert "Nothing was written" in report.feedback
    assert len(report.feedback) < len(apply_actions(root, actions).feedback) / 2


def test_short_feedback_names_a_region_by_its_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "d.py").write_text("x = 1\ny = 2\n\nx = 1\ny = 2\n")
    options = ApplyOptions(seen_in_full=frozenset({"d.py"}), short_feedback=True)
    report = apply_actions(tmp_path, [_sr("d.py", "x = 1\ny = 2\n", "z\n", block=0)], options)
    assert "Nearest lines in the file (place 1 of 2): 1-2." in report.feedback
    assert "Nearest lines in the file (place 2 of 2): 4-5." in report.feedback


def test_feedback_on_a_file_the_model_does_not_hold_stays_full(tmp_path: Path) -> None:
    root = _root(tmp_path)
    actions = [_sr("app.py", "def load(path):\n    with open(pth) as f:\n", "x\n", block=0)]
    options = ApplyOptions(seen_in_full=frozenset({"b.py"}), short_feedback=True)
    report = apply_actions(root, actions, options)
    assert report.feedback == apply_actions(root, actions).feedback


def test_short_feedback_after_a_partial_apply_asks_only_for_the_failed_blocks(
    tmp_path: Path,
) -> None:
    root = _root(tmp_path)
    actions = [_sr("b.py", "B = 1\n", "B = 2\n", block=0), _sr("app.py", "nothing\n", "x\n", 1)]
    report = apply_actions(root, actions, _short(root, partial=True))
    assert report.feedback.startswith("1 of 2 file blocks failed. The others were written")


def test_short_feedback_on_a_change_already_in_the_file_asks_to_leave_it_out(
    tmp_path: Path,
) -> None:
    (tmp_path / "f.txt").write_text("a\nB\nc\n")
    options = ApplyOptions(seen_in_full=frozenset({"f.txt"}), short_feedback=True)
    reply = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    report = apply_reply(tmp_path, reply, options=options)
    assert "already in the file" in report.feedback
    assert "Leave out a block whose change is already in the file." in report.feedback
    assert "Line " not in report.feedback  # nothing differs: the change is there
