"""The token budget: in rank order each file keeps the most of it that fits (full text,
summary, path), the prompt reported as sections of the core composer."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agentprompt.bridge.pack import BridgePrompt, build_prompt
from agentprompt.bridge.state import BridgeState
from agentprompt.budget import BudgetExceeded
from agentprompt.cli._output import flag_name
from agentprompt.tokens import shared_counter


def _state(max_tokens: int | None) -> BridgeState:
    return BridgeState(
        task="t",
        mode="edit",
        files=("src/utils.ts", "src/index.ts", "scripts/report.py"),
        max_tokens=max_tokens,
    )


def test_a_prompt_within_budget_is_unchanged(example: Path) -> None:
    whole = build_prompt(example, _state(None))
    fitted = build_prompt(example, _state(whole.tokens))
    assert fitted.text == whole.text
    assert fitted.left_out == ()


def test_the_lowest_ranked_file_loses_its_full_text_first(example: Path) -> None:
    whole = build_prompt(example, _state(None))
    fitted = build_prompt(example, _state(whole.tokens - 20))
    assert fitted.tokens <= whole.tokens - 20
    assert fitted.left_out == (("scripts/report.py", "summary"),)
    assert "## src/utils.ts\n```typescript\n" in fitted.user
    assert "- scripts/report.py (summary)" in fitted.user


def test_a_tight_budget_falls_back_to_paths(example: Path) -> None:
    whole = build_prompt(example, _state(None))
    fitted = build_prompt(example, _state(whole.tokens - 200))
    assert fitted.tokens <= whole.tokens - 200
    assert ("scripts/report.py", "path") in fitted.left_out


def test_a_budget_too_small_for_the_paths_is_refused(example: Path) -> None:
    with pytest.raises(BudgetExceeded, match="raise max_tokens") as raised:
        build_prompt(example, _state(10))
    assert raised.value.input == "max_tokens"
    assert "raise --max-tokens, or name fewer files" in raised.value.worded(flag_name)


def test_a_follow_up_cuts_the_files_it_adds_to_the_budget(example: Path) -> None:
    state = BridgeState(
        task="t",
        mode="edit",
        files=("src/utils.ts", "src/index.ts", "scripts/report.py"),
        rounds=1,
        sent=(("src/utils.ts", ""),),
    )
    whole = build_prompt(example, state)
    assert whole.followup and "### src/index.ts\n" in whole.user
    fitted = build_prompt(example, replace(state, max_tokens=whole.tokens - 20))
    assert fitted.tokens <= whole.tokens - 20
    assert fitted.left_out == (("scripts/report.py", "summary"),)
    assert "### src/utils.ts" not in fitted.user


def test_the_cuts_are_the_core_budget_s_over_the_file_sections(example: Path) -> None:
    whole = build_prompt(example, _state(None))
    fitted = build_prompt(example, _state(whole.tokens - 20))
    assert [(c.section, c.action) for c in fitted.cuts] == [("file:scripts/report.py", "fallback")]
    ids = [s.id for s in fitted.sections]
    assert ids[0] == "frame" and "file:src/utils.ts" in ids
    assert whole.sections == () and whole.cuts == ()  # nothing to fit, nothing built


def test_cuts_follow_the_rank(example: Path) -> None:
    whole = build_prompt(example, _state(None))
    size = {"path": 0, "summary": 1, "full": 2}
    for less in (20, 100, 200, 300):
        fitted = build_prompt(example, _state(whole.tokens - less))
        kept = [size[fitted_level(fitted, p)] for p in _state(None).files]
        assert kept == sorted(kept, reverse=True), (less, fitted.left_out)


def fitted_level(prompt: BridgePrompt, path: str) -> str:
    """What ``prompt`` shows of ``path``."""
    return dict(prompt.left_out).get(path, "full")


def test_a_file_that_fits_in_full_is_never_cut_to_its_summary(example: Path) -> None:
    big = example / "src" / "utils.ts"
    big.write_text(big.read_text() * 40)
    whole = build_prompt(example, _state(None))
    less = shared_counter().count(big.read_text()) // 2
    small = build_prompt(example, _state(whole.tokens - less))
    # utils.ts, ranked first, cannot fit in full; the files after it still can.
    assert dict(small.left_out) == {"src/utils.ts": "summary"}
    assert "## src/index.ts\n" in small.user and "## scripts/report.py\n" in small.user


def test_a_report_gives_the_sections_without_cutting(example: Path) -> None:
    whole = build_prompt(example, _state(None))
    reported = build_prompt(example, _state(None), report=True)
    assert reported.text == whole.text and reported.cuts == ()
    assert {s.id for s in reported.sections} == {
        "frame",
        "file:src/utils.ts",
        "file:src/index.ts",
        "file:scripts/report.py",
    }


def test_a_report_counts_each_file_s_block_as_the_prompt_shows_it(example: Path) -> None:
    reported = build_prompt(example, _state(None), report=True)
    text = reported.user
    start = text.index("## src/utils.ts\n```typescript\n")
    end = text.index("## src/index.ts\n", start)  # the block, and the line break joining it
    tokens = {s.id: s.tokens for s in reported.sections}
    assert tokens["file:src/utils.ts"] == shared_counter().count(text[start:end])
    # The frame is all the rest of the prompt: the sections add up to it (each piece
    # counted alone, a token or so apart where a cut is not a pre-tokenizer boundary).
    assert abs(sum(tokens.values()) - reported.tokens) <= len(tokens)


def test_a_file_cut_to_its_summary_is_reported_by_its_summary_s_block(example: Path) -> None:
    whole = build_prompt(example, _state(None))
    fitted = build_prompt(example, _state(whole.tokens - 20))
    assert fitted.left_out == (("scripts/report.py", "summary"),)
    text = fitted.user
    start = text.index("\n### scripts/report.py\n")
    end = text.index("\n", text.index("```", text.index("```", start) + 3))
    tokens = {s.id: s.tokens for s in fitted.sections}
    assert tokens["file:scripts/report.py"] == shared_counter().count(text[start:end])
    cut = fitted.cuts[0]
    text = (example / "scripts/report.py").read_text()
    assert cut.tokens_before == shared_counter().count(text)


def test_a_browse_prompt_s_summaries_are_its_file_sections(example: Path) -> None:
    state = BridgeState(task="t", mode="browse")
    reported = build_prompt(example, state, report=True)
    ids = [s.id for s in reported.sections]
    assert ids[0] == "frame" and len(ids) > 1
    for section in ids[1:]:
        assert f"### {section.removeprefix('file:')}\n" in reported.user
    whole = reported.tokens
    fitted = build_prompt(example, replace(state, max_tokens=whole - 30))
    assert fitted.tokens <= whole - 30
    assert fitted.cuts and all(c.action == "dropped" for c in fitted.cuts)
    # Each file the fitter looked at is one cut; those it never reached are one more.
    files = {c.section for c in fitted.cuts if c.section.startswith("file:")}
    lower = [c for c in fitted.cuts if c.section == "files:ranked-lower"]
    assert files <= {f"file:{p}" for p, _kept in fitted.left_out}
    assert len(files) + (int(lower[0].detail.split()[0]) if lower else 0) == len(fitted.left_out)
