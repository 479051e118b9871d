"""The token budget: full text, then signatures, then the path, lowest-ranked first."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agentprompt.bridge.fitting import BudgetTooSmall
from agentprompt.bridge.pack import build_prompt
from agentprompt.bridge.state import BridgeState


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
    with pytest.raises(BudgetTooSmall, match="raise --max-tokens"):
        build_prompt(example, _state(10))


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
