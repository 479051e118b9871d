"""The edit engine's languages: every English feedback file and catalogue entry has a
Japanese twin, and a language's file is looked up before the English one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.edits.wording import (
    EDIT_MESSAGES,
    UnknownLanguage,
    localized_name,
    render_in,
    speaking,
)
from agentprompt.prompts.loader import PACKAGED_DIR, PromptLibrary, parse_prompt_file, placeholders

EDITS = PACKAGED_DIR / "edits"


def _english_files() -> list[str]:
    return sorted(
        p.stem
        for p in EDITS.glob("*.md")
        if p.stem.startswith(("feedback", "reason_")) and not p.stem.endswith("_ja")
    )


def _load(name: str) -> tuple[tuple[str, ...], set[str]]:
    path = EDITS / f"{name}.md"
    template = parse_prompt_file(name, path, path.read_text(encoding="utf-8"))
    return template.variables, placeholders(template.body)


def test_the_feedback_and_reason_texts_are_all_listed() -> None:
    keys = set(EDIT_MESSAGES.packaged("en").entries)
    worded = set(_english_files()) | {k for k in keys if k.startswith(("feedback", "reason_"))}
    assert len(worded) == 117
    assert {
        "feedback",
        "feedback_summary",
        "feedback_compact",
        "feedback_compact_summary",
        "feedback_tool",
        "reason_ambiguous",
        "reason_lost_truncated_file",
    } <= worded
    assert set(_english_files()).isdisjoint(keys)


def test_only_texts_of_several_lines_are_prompt_files() -> None:
    for name in _english_files():
        path = EDITS / f"{name}.md"
        assert "\n" in parse_prompt_file(name, path, path.read_text(encoding="utf-8")).body
    for lang in ("en", "ja"):
        for entry in EDIT_MESSAGES.packaged(lang).entries.values():
            assert "\n" not in entry.body, entry.key


@pytest.mark.parametrize("name", _english_files())
def test_every_english_file_has_a_japanese_twin_with_the_same_placeholders(name: str) -> None:
    twin = EDITS / f"{name}_ja.md"
    assert twin.is_file(), f"{name}.md has no Japanese twin {twin.name}"
    variables, used = _load(name)
    ja_variables, ja_used = _load(f"{name}_ja")
    assert ja_variables == variables
    assert ja_used == used


def test_every_catalogue_entry_has_a_japanese_twin_with_the_same_placeholders() -> None:
    english, japanese = EDIT_MESSAGES.packaged("en"), EDIT_MESSAGES.packaged("ja")
    assert english.entries.keys() == japanese.entries.keys()
    for key, entry in english.entries.items():
        twin = japanese.entries[key]
        assert twin.variables == entry.variables, key
        assert placeholders(twin.body) == placeholders(entry.body), key
        assert twin.body != entry.body or not entry.body.isascii(), key


def test_no_japanese_file_lacks_its_english_original() -> None:
    english = set(_english_files())
    orphans = [
        p.name
        for p in EDITS.glob("*_ja.md")
        if p.stem.startswith(("feedback", "reason_")) and p.stem[:-3] not in english
    ]
    assert orphans == []


def test_a_name_with_no_japanese_file_anywhere_falls_back_to_english(tmp_path: Path) -> None:
    prompts = tmp_path / "config" / "prompts" / "edits"
    prompts.mkdir(parents=True)
    (prompts / "house_note.md").write_text("Read the house rules.\n")
    library = PromptLibrary(tmp_path, user_dir=tmp_path / "user")
    assert render_in(library, "edits/house_note", "ja") == "Read the house rules."
    (prompts / "house_note_ja.md").write_text("ハウスルールを読んでください。\n", encoding="utf-8")
    assert render_in(library, "edits/house_note", "ja") == "ハウスルールを読んでください。"
    assert render_in(library, "edits/house_note", "en") == "Read the house rules."


def test_english_is_the_base_name_and_other_languages_a_suffix() -> None:
    assert localized_name("edits/feedback", "en") == "edits/feedback"
    assert localized_name("edits/feedback", "ja") == "edits/feedback_ja"


def test_an_unknown_language_is_a_usage_error_naming_the_known_ones() -> None:
    with pytest.raises(UnknownLanguage, match="en, ja"), speaking("de"):
        pass
