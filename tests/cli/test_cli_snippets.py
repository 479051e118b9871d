"""``agentprompt snippets``: the snippets in force, problems reported, never a crash."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .conftest import Result


def test_defaults_are_listed(run: Callable[..., Result], tmp_path: Path) -> None:
    result = run("snippets", "--root", str(tmp_path))
    assert result.code == 0 and "Pre-commit checklist" in result.out


def test_json_gives_source_snippets_and_problems(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    target = tmp_path / "config" / "prompts" / "prompt-snippets.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"snippets": [{"icon": "A", "message": "a"}, {"icon": "B"}]}))
    data = json.loads(run("snippets", "--root", str(tmp_path), "--json").out)
    assert data["origin"] == "project" and data["source"] == str(target)
    assert data["snippets"] == [{"icon": "A", "tooltip": "a", "message": "a"}]
    assert len(data["problems"]) == 1


def test_invalid_file_is_a_warning_not_a_crash(run: Callable[..., Result], tmp_path: Path) -> None:
    target = tmp_path / "config" / "prompts" / "prompt-snippets.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"\xff\xfe not json")
    result = run("snippets", "--root", str(tmp_path))
    assert result.code == 0 and "warning" in result.err and "Traceback" not in result.err
    assert "Continue" not in result.err and "truncated" in result.out


def test_markup_in_a_snippet_is_shown_as_written(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    target = tmp_path / "config" / "prompts" / "prompt-snippets.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"snippets": [{"icon": "[/b]", "message": "use [bold]x[/]"}]}))
    result = run("snippets", "--root", str(tmp_path))
    assert result.code == 0 and "[/b]" in result.out and "use [bold]x[/]" in result.out
