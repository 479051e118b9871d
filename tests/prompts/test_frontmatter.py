"""Front matter: the YAML mapping that opens a prompt or agent file, and the body after it."""

from __future__ import annotations

import pytest

from agentprompt.prompts.frontmatter import InvalidFrontMatter, read_front_matter


def test_text_without_front_matter_has_none() -> None:
    assert read_front_matter("Hello.\n---\n") is None


def test_front_matter_gives_its_mapping_and_the_body_after_it() -> None:
    front = read_front_matter("---\ndescription: Greets.\n---\nHello.\n")
    assert front is not None
    assert front.meta == {"description": "Greets."}
    assert front.body == "Hello.\n"


def test_empty_front_matter_is_an_empty_mapping() -> None:
    front = read_front_matter("---\n---\nHello.")
    assert front is not None
    assert (front.meta, front.body) == ({}, "Hello.")


def test_front_matter_that_is_not_yaml_is_refused() -> None:
    with pytest.raises(InvalidFrontMatter, match="front matter is not valid YAML"):
        read_front_matter("---\nkey: [unclosed\n---\nbody")


def test_front_matter_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(InvalidFrontMatter, match="must be a mapping of keys to values"):
        read_front_matter("---\n- a list\n---\nbody")
