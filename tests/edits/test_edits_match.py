"""The matcher: each stage finds what the stricter ones miss, and ambiguity is never guessed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.edits import _match as match
from agentprompt.edits._match import STAGES, Found, LineIndex, Missing, locate, normalise


def _find(lines: list[str], needle: list[str], **kwargs: object) -> Found | Missing:
    return locate(LineIndex(lines), needle, **kwargs)  # type: ignore[arg-type]


FILE = [
    "def first():",
    "    value = 'one'",
    "    return value",
    "",
    "def second():",
    "    total = 1  +  2",
    "    return total",
]


def test_stages_are_tried_from_strict_to_loose() -> None:
    assert STAGES == (
        "exact",
        "trailing-whitespace",
        "indentation",
        "whitespace",
        "punctuation",
        "fuzzy",
        "aligned",
    )


def test_exact_stage_finds_identical_lines() -> None:
    found = _find(FILE, ["def second():", "    total = 1  +  2"])
    assert isinstance(found, Found)
    assert (found.start, found.end, found.stage) == (4, 6, "exact")


def test_trailing_whitespace_stage_ignores_spaces_at_line_ends() -> None:
    lines = ["a = 1   ", "b = 2\t"]
    found = _find(lines, ["a = 1", "b = 2"])
    assert isinstance(found, Found)
    assert found.stage == "trailing-whitespace"


def test_indentation_stage_finds_a_uniformly_shifted_block_and_reports_the_offset() -> None:
    found = _find(FILE, ["value = 'one'", "return value"])
    assert isinstance(found, Found)
    assert found.stage == "indentation"
    assert (found.start, found.indent_add, found.indent_remove) == (1, "    ", "")


def test_indentation_stage_reports_indentation_to_remove() -> None:
    found = _find(FILE, ["        value = 'one'", "        return value"])
    assert isinstance(found, Found)
    assert (found.stage, found.indent_remove) == ("indentation", "    ")


def test_indentation_stage_refuses_an_offset_that_is_not_uniform() -> None:
    found = _find(FILE, ["value = 'one'", "  return value"])
    assert not (isinstance(found, Found) and found.stage == "indentation")


def test_whitespace_stage_collapses_runs_of_blanks() -> None:
    found = _find(FILE, ["    total = 1 + 2"])
    assert isinstance(found, Found)
    assert (found.start, found.stage) == (5, "whitespace")


def test_punctuation_stage_makes_curly_quotes_dashes_and_nbsp_plain() -> None:
    lines = ["print(\u201chello\u201d)", "x = a \u2013 b", "y\u00a0= 2"]
    found = _find(lines, ['print("hello")', "x = a - b", "y = 2"])
    assert isinstance(found, Found)
    assert found.stage == "punctuation"
    assert normalise("\u2018a\u2019\u2026", "punctuation") == "'a'..."


def test_fuzzy_stage_finds_lines_with_drifted_context() -> None:
    lines = [
        "class Widget:",
        "    def render(self):",
        "        data = self.load()",
        "        # a comment someone added",
        "        return draw(data)",
        "",
        "def unrelated():",
        "    pass",
    ]
    needle = [
        "class Widget:",
        "    def render(self):",
        "        data = self.load()",
        "        return draw(data)",
    ]
    found = _find(lines, needle, removed=[False, False, False, True])
    assert isinstance(found, Found)
    assert found.stage == "fuzzy"
    assert (found.start, found.end) == (0, 5)
    assert found.pairs == (0, 1, 2, 4)


def test_fuzzy_stage_never_pairs_a_removed_line_that_differs() -> None:
    lines = ["def f():", "    # some code B", "    return 1", "", "x = 2"]
    needle = ["def f():", "    # other code B", "    return 1"]
    found = _find(lines, needle, removed=[False, True, False])
    assert isinstance(found, Missing)
    assert found.closest == (0, 3)


def test_fuzzy_stage_needs_half_the_lines_exactly() -> None:
    lines = ["// Block A", "function blockA() {", '  log("A");', "}"]
    needle = ["// Block B", "function blockB() {", '  log("B");', "}"]
    assert isinstance(_find(lines, needle), Missing)


def test_fuzzy_stage_can_be_switched_off() -> None:
    lines = ["a = 1", "b = 2", "c = 3", "# drift", "d = 4", "e = 5"]
    needle = ["a = 1", "b = 2", "c = 3", "d = 4", "e = 5"]
    assert isinstance(_find(lines, needle), Found)
    assert isinstance(_find(lines, needle, fuzzy=False), Missing)


def test_ambiguous_match_is_a_failure_listing_the_candidates() -> None:
    lines = ["x = 1", "y = 2", "", "x = 1", "y = 2"]
    found = _find(lines, ["x = 1", "y = 2"])
    assert isinstance(found, Missing)
    assert found.ambiguous
    assert (found.candidates, found.stage) == ((0, 3), "exact")


def test_line_number_hint_never_breaks_a_tie_between_equal_places() -> None:
    lines = ["x = 1", "y = 2", "", "x = 1", "y = 2"]
    found = _find(lines, ["x = 1", "y = 2"], hint=3)
    assert isinstance(found, Missing)
    assert found.candidates == (0, 3)


def test_line_number_hint_that_names_no_candidate_does_not_choose() -> None:
    lines = ["x = 1", "y = 2", "", "x = 1", "y = 2"]
    assert isinstance(_find(lines, ["x = 1", "y = 2"], hint=1), Missing)


def test_search_starts_at_the_given_line() -> None:
    lines = ["x = 1", "y = 2", "", "x = 1", "y = 2"]
    found = _find(lines, ["x = 1", "y = 2"], start=1)
    assert isinstance(found, Found)
    assert found.start == 3


def test_a_stricter_stage_wins_over_a_looser_one() -> None:
    lines = ["  a = 1", "a = 1 "]
    found = _find(lines, ["a = 1 "])
    assert isinstance(found, Found)
    assert (found.start, found.stage) == (1, "exact")


def test_fuzzy_stage_is_bounded_on_a_large_file(monkeypatch: pytest.MonkeyPatch) -> None:
    # Bounded in work, not in seconds: the windows scored do not grow with the file.
    lines = [f"line {i} = compute({i}, {i * 7})" for i in range(20000)]
    needle = [*lines[15000:15010]]
    needle[4] = "line 15004 = compute(15004, 0)  # changed"
    scored: list[int] = []
    real = match.score_window

    def counting(*args: Any) -> Any:
        scored.append(1)
        return real(*args)

    monkeypatch.setattr(match, "score_window", counting)
    found = _find(lines, needle)
    assert isinstance(found, Found)
    assert (found.start, found.stage) == (15000, "fuzzy")
    assert 0 < len(scored) <= 100, len(scored)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "", "c d"]), max_size=30),
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["a", "b", ""]), min_size=1, max_size=3), st.integers(0, 31)
        ),
        max_size=6,
    ),
)
def test_exact_search_agrees_with_a_line_by_line_scan(
    lines: list[str], searches: list[tuple[list[str], int]]
) -> None:
    index = LineIndex(lines)
    for needle, start in searches:
        expected = [
            s
            for s in range(start, len(lines) - len(needle) + 1)
            if lines[s : s + len(needle)] == needle
        ]
        assert index.find_exact(needle, start) == expected


_CHANGED = ["    value = load(path)", "    value = clean(value, strict=True)", "    log(value)"]
_NEEDLE = [
    "    value = load(path)",
    "    value = clean(value)",
    "    log(value)",
    "    return value",
]


def _two_places(other: list[str]) -> LineIndex:
    return LineIndex(["x = 0", "", *_CHANGED, "    return value", "", "y = 1", "", *other])


def test_fuzzy_refuses_when_a_place_it_rejected_fits_better() -> None:
    other = [
        "    item = load(path)",
        "    value = clean(value)",
        "    log(item)",
        "    return value",
    ]
    found = locate(_two_places(other), _NEEDLE, removed=[False, True, False, False])
    assert isinstance(found, Missing) and found.closest == (2, 6)


def test_fuzzy_refuses_when_the_header_points_at_a_place_it_rejected() -> None:
    other = [
        "    item = load(path)",
        "    value = clean(value)",
        "    log(value)",
        "    return value",
    ]
    index = _two_places(other)
    removed = [False, True, False, False]
    assert isinstance(locate(index, _NEEDLE, removed=removed), Found)
    found = locate(index, _NEEDLE, removed=removed, hint=2)
    assert isinstance(found, Missing) and found.closest == (2, 6)


def test_fuzzy_never_pairs_a_definition_with_another_name() -> None:
    lines = ["def test_sub():", "    calc = Calculator()", "    calc.reset()", "    return calc"]
    needle = ["def test_add():", "    calc = Calculator()", "    calc.reset()", "    return calc"]
    found = locate(LineIndex(lines), needle, removed=[False, True, False, False])
    assert isinstance(found, Missing)
