"""The one-pass index of the secret rules' words and gates changes no candidate line: a
line it lets the rules skip is one detect-secrets never flags."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_repo_secretfilter import QUIET, SECRETS, _repository_texts

from agentprompt.repo.secrets import _filter as secretfilter
from agentprompt.repo.secrets import _scan as secretscan
from agentprompt.repo.secrets._keywords import _keyword_starts
from agentprompt.repo.secrets._presence import presence_index

pytest.importorskip("hyperscan")

RULES = secretfilter._rules()


@contextmanager
def _without_index() -> Iterator[None]:
    plain = replace(RULES, presence=None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(secretfilter, "_rules", lambda: plain)
        yield


def _both(path: str, text: str) -> tuple[frozenset[int] | None, frozenset[int] | None]:
    indexed = secretfilter.candidate_lines(path, text)
    with _without_index():
        plain = secretfilter.candidate_lines(path, text)
    return indexed, plain


def test_the_index_is_built_with_hyperscan_installed() -> None:
    assert RULES.presence is not None


def test_without_hyperscan_there_is_no_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "hyperscan", None)
    assert presence_index(["key"], [], []) is None


@pytest.mark.parametrize("path", sorted({**SECRETS, **QUIET}))
def test_every_secret_sample_keeps_its_candidate_lines(path: str) -> None:
    text = {**SECRETS, **QUIET}[path]
    for variant in (text, "line\n" * 40 + text + "tail   \n" * 40, "é = 1\n" + text):
        indexed, plain = _both(path, variant)
        assert indexed == plain
    assert (
        secretfilter.candidate_lines(path, text) or not secretscan.scan_texts([(path, text)])[path]
    )


def test_the_repository_s_own_files_keep_their_candidate_lines() -> None:
    for path, text in _repository_texts().items():
        assert _both(path, text)[0] == _both(path, text)[1], path


def test_the_words_patterns_and_keyword_starts_are_those_str_and_re_find() -> None:
    index = RULES.presence
    assert index is not None and RULES.keyword is not None
    words = {name for kind, name in index.names if kind == "word"}
    gates = [p for rule in RULES.regexes if rule.gate for p in rule.gate.patterns]
    lowered_gates = {
        p.pattern
        for rule in RULES.regexes
        if rule.gate and rule.gate.lowered
        for p in rule.gate.patterns
    }
    gates += [p for rule in RULES.entropy for p in rule.gates]
    for path, text in {**SECRETS, **QUIET, **_repository_texts()}.items():
        lowered = text.lower()
        held = index.held(text, lowered)
        assert held.words == {w for w in words if w in lowered}, path
        if not text.isascii():
            assert held.patterns is None and index.starts(text, lowered) is None
            continue
        assert held.patterns is not None
        for pattern in gates:
            hay = lowered if pattern.pattern in lowered_gates else text
            if pattern.search(hay) is not None:
                assert pattern.pattern in held.patterns, (path, pattern.pattern)
        assert index.starts(text, lowered) == set(_keyword_starts(RULES.keyword, text, lowered))


def test_texts_beyond_ascii_are_asked_only_for_words() -> None:
    index = RULES.presence
    assert index is not None
    text = "password = 'x'  # contraseña ٣.٣.٣.٣\n"
    held = index.held(text, text.lower())
    assert held.patterns is None
    assert "pass" in held.words
    assert index.starts(text, text.lower()) is None


_FRAGMENTS = st.sampled_from(
    [
        *SECRETS.values(),
        "password",
        "api_key",
        "Secret",
        "key",
        "pwd",
        "contraseña",
        "=",
        " = ",
        ": ",
        '"',
        "'",
        "\n",
        "\r\n",
        "  \n",
        "AKIA",
        "A3T",
        "AP1",
        "APB",
        "abcdefgh12",
        "Xk9mQ2vL7pR4wZ_Q-e",
        "6f1ed002ab5595859014ebf0951522d9",
        ".8.8.",
        "1.2",
        "٣",  # a digit \d matches in a str pattern, not in bytes
        "é",
        "ſ",  # folds to s case-insensitively
        "-us1",
        "cloudant",
        "cl_api",
        "token",
        "sk_live_",
        "xoxb-",
        "1234567890:",
    ]
)
_TEXTS = st.lists(st.one_of(_FRAGMENTS, st.text(max_size=4)), max_size=20).map("".join)
_NAMES = st.sampled_from(["a.py", "a.js", "a.txt", "a.yaml", "a", ".env"])


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(name=_NAMES, text=_TEXTS)
def test_generated_texts_keep_their_candidate_lines(name: str, text: str) -> None:
    indexed, plain = _both(name, text)
    assert indexed == plain


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(name=_NAMES, text=_TEXTS)
def test_every_line_detect_secrets_flags_is_a_candidate(name: str, text: str) -> None:
    lines = secretfilter.candidate_lines(name, text)
    assert lines is not None
    if secretfilter.may_be_rewritten(name, text):
        return  # transformers' lines are scanned whatever the candidates
    found = secretscan._scan_whole_files([(name, text)])[name]
    assert {f.line for f in found} <= lines


def test_threads_may_ask_at_once() -> None:
    texts = [(p, "x = 1\n" * 200 + t) for p, t in {**SECRETS, **QUIET}.items()] * 8
    alone = [secretfilter.candidate_lines(p, t) for p, t in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda item: secretfilter.candidate_lines(*item), texts))
    assert together == alone
