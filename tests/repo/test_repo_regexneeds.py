"""The words a regex needs are never stricter than the regex itself."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.repo.secrets._filter import _rules
from agentprompt.repo.secrets._regexneeds import (
    lacks_required,
    matching_lines,
    required_words,
    selective,
)

_PATTERNS = [rule.regex for rule in _rules().regexes]


def test_words_are_read_from_the_parse_tree() -> None:
    needs = required_words(re.compile(r"AccountKey=[a-z]{4}|xox(?:a|b)-\d+", re.IGNORECASE))
    assert needs == (frozenset({"accountkey=", "xox"}),)
    assert required_words(re.compile(r"(?:key|)x")) == (frozenset({"x"}),)
    assert required_words(re.compile(r"a*b?[cd]")) == ()
    assert required_words(re.compile(r"(?:ab){2,}c")) == (frozenset({"ab"}), frozenset({"c"}))


def test_a_text_without_the_words_cannot_match() -> None:
    regex = re.compile(r"sk_live_[0-9a-z]{4}", re.IGNORECASE)
    needs = required_words(regex)
    assert lacks_required(needs, "nothing here")
    assert not lacks_required(needs, "SK_LIVE_abcd".lower())


_WORDS = st.sampled_from(
    [
        "key",
        "KEY",
        "password",
        "token",
        "AccountKey=",
        "xoxb-",
        "12-",
        "cloudant",
        "ibm_cloud_iam",
        "cos",
        "secret_access",
        "softlayer",
        " = ",
        ":",
        '"',
        "'",
        "\n",
        "  \n",
        "8.8.8.8",
        "AKIA",
        "glpat-",
        "@",
        "://",
        "a1b2c3d4e5f6a7b8c9d0",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345678901234567",
    ]
)
_TEXTS = st.lists(st.one_of(_WORDS, st.text(alphabet="aZ09_-. \n", max_size=5)), max_size=30)


@pytest.mark.parametrize("index", range(len(_PATTERNS)))
@settings(max_examples=60, deadline=None, derandomize=True)
@given(parts=_TEXTS)
def test_per_line_matches_are_always_found(index: int, parts: list[str]) -> None:
    regex = _PATTERNS[index]
    text = "".join(parts)
    needs = required_words(regex)
    lowered = text.lower()
    by_line = {n for n, line in enumerate(text.split("\n")) if regex.search(line.rstrip())}
    if by_line:
        assert not lacks_required(needs, lowered)
    if selective(needs):
        found = {
            text.count("\n", 0, start) for start, _ in matching_lines(regex, needs, text, lowered)
        }
        assert by_line <= found


def test_matching_lines_reads_lines_as_detect_secrets_does() -> None:
    regex = re.compile(r"(?<=\W)api_?key\s*=\s*(\w{8})$", re.IGNORECASE | re.MULTILINE)
    needs = required_words(regex)
    assert selective(needs)
    text = "first line\nAPI_KEY = abcdefgh   \nthird"
    # trailing spaces stripped: the line's span ends before them
    assert list(matching_lines(regex, needs, text, text.lower())) == [(11, 29)]
    assert not list(matching_lines(regex, needs, "API_KEY = abc\nx", "api_key = abc\nx"))


def test_matching_lines_names_every_matching_line_once() -> None:
    regex = re.compile(r"key=\d+", re.IGNORECASE)
    needs = required_words(regex)
    text = "key=1 KEY=2\nnone\nkey=3\nkey=x"
    found = list(matching_lines(regex, needs, text, text.lower()))
    assert [text[start:stop] for start, stop in found] == ["key=1 KEY=2", "key=3"]
