"""Hunk placement: by context, in order, split when whole hunks do not fit, overlaps refused."""

from __future__ import annotations

from agentprompt.edits._hunks import apply_hunks, hunk_from_texts, split_hunk
from agentprompt.edits._splice import apply_edits
from agentprompt.edits.actions import Hunk


def _apply(lines: list[str], *hunks: Hunk) -> list[str]:
    outcome = apply_hunks(lines, hunks)
    if outcome.failures:
        return [f.reason for f in outcome.failures]
    new, _ = apply_edits(lines, True, outcome.edits)
    return new


def _hunk(*lines: str, old_start: int | None = None, old_count: int | None = None) -> Hunk:
    return Hunk(lines=lines, old_start=old_start, old_count=old_count)


def test_hunk_is_placed_by_context_not_by_its_line_number() -> None:
    lines = ["a", "b", "c", "d"]
    assert _apply(lines, _hunk(" c", "-d", "+D", old_start=1)) == ["a", "b", "c", "D"]


def test_hunks_apply_in_order_each_after_the_previous() -> None:
    lines = ["x", "y", "p", "x", "y"]
    first = _hunk(" x", "-y", "+first", " p", old_start=1)
    # "x / y" stands twice, but only once after the first hunk: order is context, not numbers.
    result = _apply(lines, first, _hunk(" x", "-y", "+second", old_start=4))
    assert result == ["x", "first", "p", "x", "second"]


def test_hunks_that_change_the_same_lines_are_refused() -> None:
    lines = ["l1", "l2", "l3", "l4"]
    result = _apply(lines, _hunk(" l1", " l2", "-l3", "+m3"), _hunk(" l2", "-l3", "-l4", "+m34"))
    assert len(result) == 1 and "overlap" in str(result[0])


def test_hunks_may_share_context_lines() -> None:
    lines = ["a", "b", "c", "d", "e"]
    result = _apply(lines, _hunk(" a", "-b", "+B", " c"), _hunk(" c", "-d", "+D", " e"))
    assert result == ["a", "B", "c", "D", "e"]


def test_a_failing_hunk_is_split_at_its_context_runs() -> None:
    lines = [
        "def a():",
        "    return 1",
        "",
        "def helper():",
        "    pass",
        "",
        "def b():",
        "    return 2",
    ]
    hunk = _hunk(
        " def a():",
        "-    return 1",
        "+    return 10",
        " ",
        " def b():",
        "-    return 2",
        "+    return 20",
    )
    assert _apply(lines, hunk) == [
        "def a():",
        "    return 10",
        "",
        "def helper():",
        "    pass",
        "",
        "def b():",
        "    return 20",
    ]


def test_split_hunk_shares_a_context_run_between_its_parts() -> None:
    hunk = _hunk(" a", "-b", "+B", " c", " d", " e", " f", "-g", "+G", old_start=10)
    parts = split_hunk(hunk)
    assert [p.lines for p in parts] == [(" a", "-b", "+B", " c", " d"), (" e", " f", "-g", "+G")]
    assert [p.old_start for p in parts] == [10, 14]


def test_a_hunk_with_one_change_is_not_split() -> None:
    hunk = _hunk(" a", "-b", "+B")
    assert split_hunk(hunk) == [hunk]


def test_if_any_part_of_a_split_hunk_fails_the_hunk_fails() -> None:
    lines = ["def a():", "    return 1", "", "def b():", "    return 3"]
    hunk = _hunk(" def a():", "-    return 1", "+    return 10", " ", " def b():", "-    return 2")
    result = _apply(lines, hunk)
    assert len(result) == 1 and "part 2 of 2" in str(result[0])


def test_ambiguous_hunk_fails_with_the_candidate_lines() -> None:
    lines = ["}", "x", "}", "x"]
    outcome = apply_hunks(lines, [_hunk(" }", "-x", "+y")])
    assert outcome.failures[0].candidates == (1, 3)
    assert "2 places" in outcome.failures[0].reason


def test_line_number_never_breaks_a_tie_for_a_hunk() -> None:
    lines = ["}", "x", "}", "x"]
    outcome = apply_hunks(lines, [_hunk(" }", "-x", "+y", old_start=3)])
    assert not outcome.edits
    assert outcome.failures[0].candidates == (1, 3)
    assert "2 places" in outcome.failures[0].reason


def test_pure_insertion_in_the_middle_is_refused_asking_for_context() -> None:
    result = _apply(["a", "c"], _hunk("+b", old_start=1, old_count=0))
    assert len(result) == 1 and "context" in result[0]


def test_pure_insertion_at_the_start_goes_first() -> None:
    hunk = Hunk(lines=("+b",), old_start=0, old_count=0, new_start=1)
    assert _apply(["a", "c"], hunk) == ["b", "a", "c"]


def test_pure_insertion_past_the_last_line_is_appended() -> None:
    hunk = Hunk(lines=("+d",), old_start=3, old_count=0, new_start=4)
    assert _apply(["a", "b", "c"], hunk) == ["a", "b", "c", "d"]


def test_end_of_file_hunk_must_sit_at_the_end() -> None:
    hunk = Hunk(lines=("-end",), at_end_of_file=True)
    result = _apply(["end", "more"], hunk)
    assert len(result) == 1 and "end of the file" in result[0]
    assert _apply(["more", "end"], hunk) == ["more"]
    assert _apply(["a"], _hunk("+z", old_start=0, old_count=0)) == ["z", "a"]


def test_pure_insertion_without_a_line_number_fails_on_a_non_empty_file() -> None:
    result = _apply(["a"], _hunk("+b"))
    assert "no context" in str(result[0])


def test_indentation_offset_is_reapplied_to_added_lines() -> None:
    lines = ["class A:", "    def f(self):", "        return 1"]
    hunk = _hunk(" def f(self):", "-    return 1", "+    x = 2", "+    return x")
    assert _apply(lines, hunk) == [
        "class A:",
        "    def f(self):",
        "        x = 2",
        "        return x",
    ]


def test_context_lines_keep_the_file_text_when_matched_loosely() -> None:
    lines = ["a = 1   ", "b = 2"]
    assert _apply(lines, _hunk(" a = 1", "-b = 2", "+b = 3")) == ["a = 1   ", "b = 3"]


def test_fuzzy_placement_keeps_lines_the_file_gained() -> None:
    lines = [
        "class C:",
        "    def f(self):",
        "        v = 1",
        "        # added",
        "        return v",
        "    # end",
    ]
    hunk = _hunk(
        " class C:",
        "     def f(self):",
        "         v = 1",
        "-        return v",
        "+        return v + 1",
        "     # end",
    )
    assert _apply(lines, hunk) == [
        "class C:",
        "    def f(self):",
        "        v = 1",
        "        # added",
        "        return v + 1",
        "    # end",
    ]


def test_hunk_from_texts_keeps_shared_lines_as_context() -> None:
    hunk = hunk_from_texts(["a", "b", "c"], ["a", "B", "c"])
    assert hunk.lines == (" a", "-b", "+B", " c")


def test_final_newline_state_is_kept_unless_the_hunk_says_otherwise() -> None:
    outcome = apply_hunks(["a"], [_hunk(" a", "+b")])
    assert apply_edits(["a"], False, outcome.edits) == (["a", "b"], False)
    marked = Hunk(lines=(" a", "+b"), no_newline_at_end=True)
    outcome = apply_hunks(["a"], [marked])
    assert apply_edits(["a"], True, outcome.edits) == (["a", "b"], False)
    assert apply_edits([], False, ()) == ([], True)


def test_scope_lines_narrow_where_the_hunk_is_looked_for() -> None:
    lines = [
        "class A:",
        "    def f(self):",
        "        return 1",
        "class B:",
        "    def f(self):",
        "        return 1",
    ]
    hunk = Hunk(
        lines=("     def f(self):", "-        return 1", "+        return 2"), scopes=("class B:",)
    )
    assert _apply(lines, hunk)[3:] == ["class B:", "    def f(self):", "        return 2"]
    nested = Hunk(
        lines=("-        return 1", "+        return 3"), scopes=("class B:", "    def f(self):")
    )
    assert _apply(lines, nested)[5] == "        return 3"


def test_a_scope_not_in_the_file_is_ignored() -> None:
    lines = ["a", "b"]
    hunk = Hunk(lines=(" a", "-b", "+c"), scope="class Missing:")
    assert _apply(lines, hunk) == ["a", "c"]


def test_old_side_without_final_newline_gains_one_unless_the_new_side_says_not() -> None:
    hunk = Hunk(lines=("-a", "+b"), old_no_newline_at_end=True)
    outcome = apply_hunks(["a"], [hunk])
    assert apply_edits(["a"], False, outcome.edits) == (["b"], True)
