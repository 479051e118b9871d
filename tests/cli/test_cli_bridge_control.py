"""Control over a bridge session: bridge drop/add, pack --new, --include/--exclude,
--output, the size report and its warning, and bad input that changes nothing."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import Result

Run = Callable[..., Result]

ASK = "<<<REQUEST_FILE: scripts/report.py>>>\n"


def _status(run: Run, root: Path) -> dict[str, Any]:
    result = run("bridge", "status", "--root", str(root), "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def _start(run: Run, root: Path, *args: str) -> Result:
    result = run("pack", "--root", str(root), "--task", "t", "--lang", "en", *args)
    assert result.code == 0, result.err
    return result


def _one_error_line(result: Result) -> str:
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("agentprompt: error: ")
    return lines[0]


def test_drop_and_add_show_in_status_and_in_the_next_prompt(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts", "src/index.ts")
    dropped = run("bridge", "drop", "src/index.ts", "--root", str(example))
    assert dropped.code == 0, dropped.err
    added = run("bridge", "add", "scripts/report.py", "--root", str(example))
    assert added.code == 0, added.err
    status = _status(run, example)
    assert status["files"] == ["src/utils.ts", "scripts/report.py"]
    assert status["dropped"] == ["src/index.ts"]
    text = run("bridge", "status", "--root", str(example)).out
    assert "dropped by hand: src/index.ts" in text and "  scripts/report.py" in text
    # After a reply, the added file is sent; a change to the dropped one is not.
    (example / "src" / "index.ts").write_text("export const changed = 1;\n")
    reply = tmp_path / "r.md"
    reply.write_text("<<<DIFF: src/utils.ts>>>\n@@ -1 +1 @@\n-nope\n+x\n<<<END>>>\n")
    run("apply", str(reply), "--root", str(example))
    follow = run("pack", "--root", str(example)).out
    assert "### scripts/report.py\n```python\n" in follow
    assert "changed = 1" not in follow and "src/index.ts" not in follow


def test_a_reply_editing_a_dropped_file_does_not_bring_it_back(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts", "src/index.ts")
    assert run("bridge", "drop", "src/index.ts", "--root", str(example)).code == 0
    reply = tmp_path / "r.md"
    reply.write_text("<<<FILE: src/index.ts>>>\nexport const a = 1;\n<<<END>>>\n")
    assert run("apply", str(reply), "--root", str(example)).code == 0
    assert _status(run, example)["files"] == ["src/utils.ts"]
    # Asked for again, it comes back.
    reply.write_text("<<<REQUEST_FILE: src/index.ts>>>\n")
    assert run("apply", str(reply), "--root", str(example)).code == 0
    status = _status(run, example)
    assert status["files"] == ["src/utils.ts", "src/index.ts"] and status["dropped"] == []


@pytest.mark.parametrize(
    ("command", "path", "named"),
    [
        ("drop", "src/nope.ts", "src/nope.ts is not in the session's context"),
        ("add", "src/nope.ts", "cannot put src/nope.ts in the prompt: does not exist"),
    ],
)
def test_unknown_files_in_drop_and_add_change_nothing(
    run: Run, example: Path, command: str, path: str, named: str
) -> None:
    _start(run, example, "src/utils.ts")
    before = _status(run, example)
    line = _one_error_line(run("bridge", command, "src/utils.ts", path, "--root", str(example)))
    assert named in line
    assert _status(run, example) == before


def test_pack_task_refuses_to_replace_a_session_in_progress_without_new(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    # Before any reply, a new --task simply starts over.
    _start(run, example, "src/utils.ts")
    reply = tmp_path / "r.md"
    reply.write_text(ASK)
    assert run("apply", str(reply), "--root", str(example)).code == 0
    before = _status(run, example)
    line = _one_error_line(run("pack", "--root", str(example), "--task", "other"))
    assert "round 1" in line and "--new" in line
    assert _status(run, example) == before
    renewed = run("pack", "--root", str(example), "--task", "other", "--new")
    assert renewed.code == 0
    assert _status(run, example)["task"] == "other"


def test_include_and_exclude_take_gitignore_patterns_and_are_kept(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    first = _start(run, example, "--include", "src/", "--exclude", "index.ts")
    user = first.out.split("\n📖 Current mode: browse\n", 1)[1]
    assert "utils.ts" in user
    assert "index.ts" not in user and "report.py" not in user
    status = _status(run, example)
    assert (status["includes"], status["excludes"]) == (["src/"], ["index.ts"])
    # A file left out by the patterns cannot be asked for.
    reply = tmp_path / "r.md"
    reply.write_text("<<<REQUEST_FILE: src/index.ts>>>\n")
    assert run("apply", str(reply), "--root", str(example)).code == 0
    assert (
        "left out by an exclude pattern" in dict(_status(run, example)["missing"])["src/index.ts"]
    )


def test_a_pattern_matching_nothing_is_one_error_and_starts_no_session(
    run: Run, example: Path
) -> None:
    line = _one_error_line(
        run("pack", "--root", str(example), "--task", "t", "--exclude", "nothing-here/")
    )
    assert "--exclude 'nothing-here/' matches no file" in line
    assert (
        not (example / ".agentprompt").exists()
        or "no bridge session" in run("bridge", "status", "--root", str(example)).err
    )


def test_output_writes_the_whole_prompt_unsplit(run: Run, example: Path) -> None:
    target = example.parent / "prompt.md"
    result = _start(run, example, ".", "--split-chars", "2000", "-o", str(target))
    text = target.read_text(encoding="utf-8")
    assert "📦 Split message: part 1/" not in text
    assert text.startswith("# You are a coding assistant") and "## src/utils.ts\n" in text
    assert result.out == ""
    assert f"is in {target}" in result.err
    # The same prompt printed is split into parts.
    printed = run("pack", "--root", str(example)).out
    assert "📦 Split message: part 1/" in printed


def test_an_unwritable_output_is_one_error_and_changes_nothing(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts")
    before = _status(run, example)
    target = tmp_path / "missing-folder" / "prompt.md"
    line = _one_error_line(run("pack", "--root", str(example), "--full", "-o", str(target)))
    assert f"cannot write --output {target}" in line
    assert _status(run, example) == before


def test_max_tokens_smaller_than_the_task_is_one_error(run: Run, example: Path) -> None:
    line = _one_error_line(run("pack", "--root", str(example), "--task", "t", "--max-tokens", "10"))
    assert "--max-tokens 10 is too small" in line
    assert "no bridge session" in run("bridge", "status", "--root", str(example)).err


def test_size_report_names_the_largest_files_and_warns_past_the_threshold(
    run: Run, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quiet = _start(run, example, ".")
    assert "tokens in 1 part(s)" in quiet.err
    assert "largest files: scripts/report.py (" in quiet.err
    assert "warning" not in quiet.err
    loud = run("pack", "--root", str(example), "--warn-tokens", "200")
    assert "warning: the prompt is over 200 tokens" in loud.err
    assert "give it a token budget (--max-tokens N" in loud.err
    assert _status(run, example)["warn_tokens"] == 200
    data = json.loads(run("pack", "--root", str(example), "--json").out)
    assert data["size"]["over"] is True and data["size"]["largest"][0]["path"] == (
        "scripts/report.py"
    )
    monkeypatch.setenv("AGENTPROMPT_WARN_TOKENS", "50")
    _start(run, example, "--new")
    assert "over 50 tokens" in run("pack", "--root", str(example)).err


def test_a_secret_in_a_summary_is_reported_at_its_line_in_the_file(
    run: Run, tmp_path: Path
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    body = "".join(f"def f{i}(x):\n    return x\n\n" for i in range(15))
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    (root / "conf.py").write_text(f'"""Conf."""\n\n{body}def g(token="{token}"):\n    pass\n')
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    lines = (root / "conf.py").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, start=1) if token in text)
    result = run("pack", "--root", str(root), "--task", "t", "--lang", "en")
    assert result.code == 0, result.err
    assert f"- conf.py:{line}: GitHub Token" in result.out
    assert token not in result.out


def test_add_sends_a_file_the_budget_cut_from_the_first_prompt(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    first = _start(run, example, "src/utils.ts", "scripts/report.py", "--max-tokens", "1300")
    assert "- scripts/report.py (" in first.out  # left out to fit
    reply = tmp_path / "r.md"
    reply.write_text("<<<DIFF: src/utils.ts>>>\n@@ -1 +1 @@\n-nope\n+x\n<<<END>>>\n")
    run("apply", str(reply), "--root", str(example))
    assert "scripts/report.py\n```python" not in run("pack", "--root", str(example)).out
    added = run("bridge", "add", "scripts/report.py", "--root", str(example), "--max-tokens")
    assert added.code == 2  # --max-tokens is not an option of bridge add
    added = run("bridge", "add", "scripts/report.py", "--root", str(example))
    assert "Added to the context: scripts/report.py" in added.out
    follow = run("pack", "--root", str(example), "--max-tokens", "5000").out
    assert "### scripts/report.py\n```python\n" in follow


def test_max_tokens_too_small_on_a_session_in_progress_changes_nothing(
    run: Run, example: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts")
    before = _status(run, example)
    line = _one_error_line(run("pack", "--root", str(example), "--max-tokens", "10"))
    assert "--max-tokens 10 is too small" in line
    assert _status(run, example) == before
