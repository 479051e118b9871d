"""The quick gates never refuse a line detect-secrets' own regex matches."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentprompt.repo.secrets._filter import _as_read, _lowered, _Regex, _rules
from agentprompt.repo.secrets._gates import _GATES, digest, gated_lines
from agentprompt.repo.secrets._keywords import _keyword_starts

pytestmark = pytest.mark.slow

_GATED = [rule for rule in _rules().regexes if rule.gate is not None]
_NOISE = st.sampled_from(["\n", " \n", "\t", " ", "=", ":", '"', "'", ".", "-", "_", "ſ", "K"])
_SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _name(rule: _Regex) -> str:
    return rule.gate.name if rule.gate is not None else "?"


def _lines(text: str) -> list[tuple[int, int]]:
    """The lines as detect-secrets reads them: split at line breaks, trailing whitespace
    stripped (``(start, stop)`` offsets)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for line in text.split("\n"):
        spans.append((start, start + len(line.rstrip())))
        start += len(line) + 1
    return spans


def test_every_gate_is_for_a_regex_of_the_installed_detect_secrets() -> None:
    """Else a gate would go untested here (and unused)."""
    assert {digest(rule.regex) for rule in _GATED} == set(_GATES)
    assert {_name(rule) for rule in _GATED} >= {"IP address", "Cloudant (hex)", "SoftLayer"}


@pytest.mark.parametrize("rule", _GATED, ids=_name)
@_SETTINGS
@given(data=st.data())
def test_a_gate_accepts_every_line_its_regex_matches(rule: _Regex, data: st.DataObject) -> None:
    gate = rule.gate
    assert gate is not None
    pieces = st.one_of(st.from_regex(rule.regex), _NOISE, st.text(max_size=5))
    text = _as_read("".join(data.draw(st.lists(pieces, min_size=1, max_size=6))))
    lowered = _lowered(_rules(), text)
    assume(lowered is not None or not gate.lowered)
    found = set(gated_lines(gate, text, text if lowered is None else lowered))
    # detect-secrets' own regex: without the MULTILINE whole-text matching adds.
    own = re.compile(rule.regex.pattern, rule.regex.flags & ~re.MULTILINE)
    for start, stop in _lines(text):
        if own.search(text[start:stop]) is not None:
            assert (start, stop) in found, (text[start:stop], gate.name)


@pytest.mark.parametrize("rule", _GATED, ids=_name)
@_SETTINGS
@given(data=st.data())
def test_no_gate_matches_a_line_break(rule: _Regex, data: st.DataObject) -> None:
    """A hit within one line is what lets the search skip to the next line."""
    assert rule.gate is not None
    for pattern in rule.gate.patterns:
        hit = pattern.search(data.draw(st.from_regex(pattern)))
        assert hit is not None and "\n" not in hit.group()


def test_gated_lines_name_each_line_once_stripped() -> None:
    ip = next(rule.gate for rule in _GATED if rule.gate and rule.gate.name == "IP address")
    text = "a 8.8.8.8 and 1.1.1.1  \nnone\n\n9.9.9.9"
    assert gated_lines(ip, text, text) == [(0, 21), (30, 37)]
    assert gated_lines(ip, "1.2.3", "1.2.3") == []


_KEYWORDISH = st.sampled_from(
    ["key", "KEY", "api_", "pass", "word", "Pass", "wd", "db", "_", "secret", "pwd", "auth"]
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.one_of(_KEYWORDISH, st.text(max_size=3)), max_size=12).map("".join))
def test_keyword_cores_find_every_keyword_start(text: str) -> None:
    keyword = _rules().keyword
    assert keyword is not None and keyword.cores
    lowered = _lowered(_rules(), text)
    assume(lowered is not None)
    by_word = dataclasses.replace(keyword, cores=())
    assert set(_keyword_starts(keyword, text, lowered)) == set(
        _keyword_starts(by_word, text, lowered)
    )
