"""The token budget: full text, then signatures, then the path, lowest-ranked first, cut by
the core budget over the prompt's sections."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agentprompt.bridge.pack import build_prompt
from agentprompt.bridge.state import BridgeState
from agentprompt.budget import BudgetExceeded
from agentprompt.cli._output import flag_name


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


def test_every_file_loses_its_full_text_before_any_loses_its_summary(example: Path) -> None:
    whole = build_prompt(example, _state(None))
    frame = build_prompt(example, _state(whole.tokens - 200))
    actions = [(c.section, c.action) for c in frame.cuts]
    fallbacks = [i for i, (_s, a) in enumerate(actions) if a == "fallback"]
    drops = [i for i, (_s, a) in enumerate(actions) if a == "dropped"]
    assert fallbacks and drops and max(fallbacks) < min(drops)


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
