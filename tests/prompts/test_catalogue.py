"""Message catalogues: one file of keyed short texts per language, checked alike across the
languages, rendered as prompt files are, and overridden key by key by a project."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.edits.wording import EDIT_MESSAGES, message_in
from agentprompt.errors import AgentPromptError
from agentprompt.prompts.catalogue import (
    read_catalogue,
    read_languages,
)
from agentprompt.prompts.loader import (
    PACKAGED_DIR,
    InvalidPromptFile,
    MissingVariables,
    PromptLibrary,
)

ENGLISH = """\
greeting:
  description: Greets someone.
  variables:
    name: Who.
  text: |-
    Hello {{name}}.
bye:
  description: Says goodbye.
  variables: {}
  text: Bye.
"""

JAPANESE = """\
greeting:
  description: Greets someone (Japanese).
  variables:
    name: Who.
  text: |-
    こんにちは、{{name}} さん。
bye:
  description: Says goodbye (Japanese).
  variables: {}
  text: さようなら。
"""


def _name(key: str, lang: str) -> str:
    return f"test/{key}" if lang == "en" else f"test/{key}_{lang}"


def _files(tmp_path: Path, english: str, japanese: str) -> list[tuple[str, Path]]:
    (tmp_path / "catalogue.yaml").write_text(english, encoding="utf-8")
    (tmp_path / "catalogue_ja.yaml").write_text(japanese, encoding="utf-8")
    return [("en", tmp_path / "catalogue.yaml"), ("ja", tmp_path / "catalogue_ja.yaml")]


def _library(tmp_path: Path) -> PromptLibrary:
    return PromptLibrary(tmp_path, user_dir=tmp_path / "user")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_each_language_is_read_and_rendered_with_its_placeholders(tmp_path: Path) -> None:
    found = read_languages(_files(tmp_path, ENGLISH, JAPANESE), _name)
    assert found["en"].entry("greeting").render(name="Ann") == "Hello Ann."
    assert found["ja"].entry("greeting").render(name="Ann") == "こんにちは、Ann さん。"
    assert found["ja"].entry("bye").render() == "さようなら。"
    assert found["ja"].entry("bye").name == "test/bye_ja"
    assert found["en"].entry("greeting").description == "Greets someone."


def test_a_key_one_language_lacks_is_refused_naming_the_file_and_key(tmp_path: Path) -> None:
    japanese = JAPANESE.split("bye:")[0]
    with pytest.raises(InvalidPromptFile, match=r"catalogue_ja\.yaml, entry 'bye': lacks bye"):
        read_languages(_files(tmp_path, ENGLISH, japanese), _name)


def test_a_key_only_one_language_has_is_refused(tmp_path: Path) -> None:
    japanese = JAPANESE + "extra:\n  variables: {}\n  text: 余分。\n"
    with pytest.raises(InvalidPromptFile, match=r"catalogue_ja\.yaml, entry 'extra': is not an"):
        read_languages(_files(tmp_path, ENGLISH, japanese), _name)


def test_languages_declaring_other_variables_for_a_key_are_refused(tmp_path: Path) -> None:
    japanese = JAPANESE.replace("    name: Who.", "    who: Who.").replace("{{name}}", "{{who}}")
    with pytest.raises(InvalidPromptFile) as caught:
        read_languages(_files(tmp_path, ENGLISH, japanese), _name)
    assert caught.value.key == "greeting"
    assert "declares who where" in str(caught.value) and "declares name" in str(caught.value)


def test_an_entry_that_declares_no_variables_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidPromptFile, match=r"entry 'bye': declares no variables"):
        read_catalogue(tmp_path / "c.yaml", "bye:\n  text: Bye.\n", str)


def test_an_undeclared_placeholder_is_refused(tmp_path: Path) -> None:
    text = "greeting:\n  variables:\n    name: Who.\n  text: Hello {{name}} and {{other}}.\n"
    with pytest.raises(InvalidPromptFile, match=r"'greeting': uses \{\{other\}\} without"):
        read_catalogue(tmp_path / "c.yaml", text, str)
    plain = "bye:\n  variables: {}\n  text: Bye {{name}}.\n"
    with pytest.raises(InvalidPromptFile, match=r"'bye': uses \{\{name\}\} but declares no"):
        read_catalogue(tmp_path / "c.yaml", plain, str)


def test_an_entry_with_unknown_fields_or_no_text_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidPromptFile, match="has txt"):
        read_catalogue(tmp_path / "c.yaml", "bye:\n  variables: {}\n  txt: Bye.\n", str)
    with pytest.raises(InvalidPromptFile, match="has no text"):
        read_catalogue(tmp_path / "c.yaml", "bye:\n  variables: {}\n", str)
    with pytest.raises(InvalidPromptFile, match="not valid YAML"):
        read_catalogue(tmp_path / "c.yaml", "bye: [\n", str)


def test_a_missing_or_unknown_value_is_an_error_naming_the_entry(tmp_path: Path) -> None:
    greeting = read_languages(_files(tmp_path, ENGLISH, JAPANESE), _name)["en"].entry("greeting")
    with pytest.raises(MissingVariables, match=r"entry 'greeting': missing value\(s\) for name"):
        greeting.render()
    with pytest.raises(MissingVariables, match=r"value\(s\) given for age"):
        greeting.render(name="Ann", age=3)


def test_an_unknown_key_is_an_error_naming_the_catalogue() -> None:
    with pytest.raises(AgentPromptError, match=r"catalogue\.yaml has no entry 'feedback_nope'"):
        EDIT_MESSAGES.render("feedback_nope", "en")


def test_a_project_catalogue_overrides_its_keys_and_leaves_the_others_packaged(
    tmp_path: Path,
) -> None:
    library = _library(tmp_path)
    packaged = message_in(library, "feedback_others_failed", "en", blocks="Block 2")
    _write(
        tmp_path / "config" / "prompts" / "edits" / "catalogue.yaml",
        "feedback_others_none:\n  variables: {}\n  text: No other blocks here.\n",
    )
    assert message_in(library, "feedback_others_none", "en") == "No other blocks here."
    assert message_in(library, "feedback_others_failed", "en", blocks="Block 2") == packaged
    assert message_in(library, "feedback_others_none", "ja") == (
        "返答のファイルブロックはこのブロックだけでした。"
    )
    _, source = EDIT_MESSAGES.source(library, "feedback_others_none", "en")
    assert source.origin == "project"
    assert source.shadows == (PACKAGED_DIR / "edits" / "catalogue.yaml",)


def test_a_prompt_file_for_a_text_that_is_now_an_entry_is_refused_naming_both(
    tmp_path: Path,
) -> None:
    library = _library(tmp_path)
    stale = tmp_path / "config" / "prompts" / "edits" / "feedback_others_none_ja.md"
    _write(stale, "---\ndescription: Old.\nvariables: {}\n---\n古い。\n")
    assert message_in(library, "feedback_others_none", "en") != "古い。"
    with pytest.raises(InvalidPromptFile) as refused:
        message_in(library, "feedback_others_none", "ja")
    message = str(refused.value)
    assert str(stale) in message
    assert "'feedback_others_none'" in message
    assert str(tmp_path / "config" / "prompts" / "edits" / "catalogue_ja.yaml") in message


def test_the_project_catalogue_comes_before_the_users(tmp_path: Path) -> None:
    library = _library(tmp_path)
    entry = "feedback_others_none:\n  variables: {{}}\n  text: {text}\n"
    _write(tmp_path / "user" / "edits" / "catalogue.yaml", entry.format(text="The user's."))
    assert message_in(library, "feedback_others_none", "en") == "The user's."
    _write(
        tmp_path / ".agentprompt" / "prompts" / "edits" / "catalogue.yaml",
        entry.format(text="The project's."),
    )
    assert message_in(library, "feedback_others_none", "en") == "The project's."


def test_a_project_entry_the_packaged_catalogue_lacks_or_declares_otherwise_is_refused(
    tmp_path: Path,
) -> None:
    library = _library(tmp_path)
    override = tmp_path / "config" / "prompts" / "edits" / "catalogue.yaml"
    _write(override, "feedback_other_none:\n  variables: {}\n  text: Typo.\n")
    with pytest.raises(InvalidPromptFile, match="entry 'feedback_other_none': is not an entry"):
        message_in(library, "feedback_others_none", "en")
    _write(override, "feedback_unchanged:\n  variables:\n    file: F.\n  text: '{{file}} kept.'\n")
    with pytest.raises(InvalidPromptFile, match=r"declares file where .* declares path"):
        message_in(library, "feedback_unchanged", "en", path="a.py")


def test_a_reason_is_worded_by_the_packaged_catalogue_only(tmp_path: Path) -> None:
    library = _library(tmp_path)
    _write(
        tmp_path / "config" / "prompts" / "edits" / "catalogue.yaml",
        "reason_not_found:\n  variables: {}\n  text: Not there.\n",
    )
    with pytest.raises(InvalidPromptFile, match="'reason_not_found': is worded by the packaged"):
        message_in(library, "feedback_others_none", "en")
    _, source = EDIT_MESSAGES.source(library, "reason_not_found", "en")
    assert source.origin == "packaged"


def test_entries_are_named_as_prompt_files_are() -> None:
    assert EDIT_MESSAGES.named("edits/reason_ambiguous") == ("reason_ambiguous", "en")
    assert EDIT_MESSAGES.named("edits/reason_ambiguous_ja") == ("reason_ambiguous", "ja")
    assert EDIT_MESSAGES.named("edits/feedback") is None
