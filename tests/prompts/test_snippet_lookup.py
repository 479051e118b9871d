"""Prompt snippets: lookup order, validation, tooltip fallback, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

from agentprompt.prompts.snippets import PACKAGED_SNIPPETS, load_prompt_snippets


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def project_file(root: Path) -> Path:
    return root / "config" / "prompts" / "prompt-snippets.json"


def test_packaged_default_has_seven_snippets(tmp_path: Path) -> None:
    found = load_prompt_snippets(tmp_path)
    assert found.origin == "packaged" and found.problems == ()
    assert [s.icon for s in found.snippets] == ["✂️", "🔍", "✏️", "⏸️", "✅", "📦", "🏁"]
    assert found.snippets[0].message == "Your last edit was truncated, please continue."
    assert found.snippets[0].tooltip == "Your last edit was truncated"


def test_packaged_file_is_plain_valid_json() -> None:
    assert len(json.loads(PACKAGED_SNIPPETS.read_text(encoding="utf-8"))["snippets"]) == 7


def test_repository_file_comes_first(tmp_path: Path, user_config_dir: Path) -> None:
    write(user_config_dir / "prompts" / "prompt-snippets.json", {"snippets": []})
    write(project_file(tmp_path), {"snippets": [{"icon": "R", "message": "repo", "tooltip": "t"}]})
    found = load_prompt_snippets(tmp_path)
    assert found.origin == "project" and [s.message for s in found.snippets] == ["repo"]


def test_user_config_comes_before_the_packaged_default(
    tmp_path: Path, user_config_dir: Path
) -> None:
    write(
        user_config_dir / "prompts" / "prompt-snippets.json",
        {"snippets": [{"icon": "U", "message": "user"}]},
    )
    found = load_prompt_snippets(tmp_path)
    assert found.origin == "user" and [s.icon for s in found.snippets] == ["U"]


def test_missing_tooltip_falls_back_to_the_first_50_characters(tmp_path: Path) -> None:
    message = "m" * 80
    write(project_file(tmp_path), {"snippets": [{"icon": "x", "message": message}]})
    (snippet,) = load_prompt_snippets(tmp_path).snippets
    assert snippet.tooltip == "m" * 50


def test_invalid_entries_are_reported_and_skipped(tmp_path: Path) -> None:
    entries = [
        {"icon": "ok", "message": "kept"},
        {"message": "no icon"},
        {"icon": "no message"},
        {"icon": 3, "message": "icon not text"},
        "not an object",
    ]
    write(project_file(tmp_path), {"snippets": entries})
    found = load_prompt_snippets(tmp_path)
    assert [s.message for s in found.snippets] == ["kept"]
    assert len(found.problems) == 4
    assert "snippet 1 skipped: 'icon' is a required property" in found.problems[0]


def test_invalid_json_is_reported_and_the_next_source_used(tmp_path: Path) -> None:
    write(project_file(tmp_path), "{not json")
    found = load_prompt_snippets(tmp_path)
    assert found.origin == "packaged" and len(found.snippets) == 7
    assert "not valid JSON" in found.problems[0]


def test_a_file_without_a_snippets_list_is_skipped(tmp_path: Path) -> None:
    write(project_file(tmp_path), ["a", "list"])
    found = load_prompt_snippets(tmp_path)
    assert found.origin == "packaged" and "'snippets' list" in found.problems[0]


def test_an_empty_list_is_a_valid_choice(tmp_path: Path) -> None:
    write(project_file(tmp_path), {"snippets": []})
    found = load_prompt_snippets(tmp_path)
    assert (found.origin, found.snippets, found.problems) == ("project", (), ())


def test_every_problem_names_the_file_and_the_fix(tmp_path: Path) -> None:
    target = write(project_file(tmp_path), {"snippets": [{"message": "no icon"}]})
    entry = load_prompt_snippets(tmp_path).problems[0]
    assert entry.startswith(f"{target}: snippet 0 skipped")
    assert "give each snippet a non-empty 'icon' and 'message'" in entry
    write(target, "{not json")
    whole = load_prompt_snippets(tmp_path).problems[0]
    assert whole.startswith(f"{target}: not valid JSON") and "fix the file or remove it" in whole


def test_a_directory_in_place_of_the_file_is_reported_not_ignored(tmp_path: Path) -> None:
    project_file(tmp_path).mkdir(parents=True)
    found = load_prompt_snippets(tmp_path)
    assert found.origin == "packaged" and len(found.snippets) == 7
    assert f"{project_file(tmp_path)}: cannot be read" in found.problems[0]
