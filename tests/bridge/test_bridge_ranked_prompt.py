"""A budgeted first prompt follows the task: files in rank order, the relevant code in
full, a tree folded around what is shown, a budget honoured on a large tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.bridge.pack import build_prompt
from agentprompt.bridge.state import BridgeState

TASK = "parse_settings crashes with KeyError when the settings file has no timeout key"


def _repository(root: Path, *, padding: int = 60) -> Path:
    """A repository where the task's code is one function among many files."""
    (root / "app").mkdir(parents=True)
    (root / "app" / "settings.py").write_text(
        "import json\n\n\n"
        "DEFAULTS = {'retries': 3}\n\n\n"
        "def parse_settings(text):\n"
        "    data = json.loads(text)\n"
        "    timeout = data['timeout']\n"
        "    return {'timeout': timeout, **DEFAULTS}\n\n\n"
        "def dump_settings(settings):\n"
        "    return json.dumps(settings)\n"
    )
    (root / "app" / "main.py").write_text(
        "from app.settings import parse_settings\n\n\n"
        "def run(path):\n"
        "    with open(path) as handle:\n"
        "        return parse_settings(handle.read())\n"
    )
    for number in range(padding):
        folder = root / "vendor" / f"lib{number % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"module{number}.py").write_text(
            "".join(
                f"def helper_{number}_{k}(value):\n    return value * {k}\n\n\n" for k in range(12)
            )
        )
    docs = root / "docs"
    docs.mkdir()
    for number in range(30):
        (docs / f"page{number}.md").write_text(f"# Page {number}\n\nNothing about code.\n")
    return root


def _state(budget: int | None, **more: object) -> BridgeState:
    return BridgeState(task=TASK, mode="browse", max_tokens=budget, **more)  # type: ignore[arg-type]


def test_the_relevant_file_s_summary_comes_first_and_names_what_the_task_touches(
    tmp_path: Path,
) -> None:
    root = _repository(tmp_path)
    prompt = build_prompt(root, _state(4_000))
    summaries = prompt.user.split("## File summaries", 1)[1]
    first = summaries.split("### ", 2)[1]
    assert first.startswith("app/settings.py\n")
    assert "relevant: parse_settings [7-10]" in first


def test_the_relevant_function_is_shown_in_full(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    prompt = build_prompt(root, _state(4_000))
    assert "## Relevant code" in prompt.user
    assert "### app/settings.py (lines 7-10: parse_settings)\n" in prompt.user
    assert "    timeout = data['timeout']\n" in prompt.user


def test_folders_the_task_does_not_touch_fold_to_one_line(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    prompt = build_prompt(root, _state(4_000))
    tree = prompt.user.split("## File structure", 1)[1]
    assert "docs/ (folded: 30 files, 30 .md)" in tree
    assert "page3.md" not in tree
    assert "app/\n  main.py" in tree or "app/\n" in tree
    assert "settings.py" in tree
    assert "ask for the folder as you ask for a file" in prompt.user


def test_an_unbudgeted_prompt_keeps_the_whole_tree_in_path_order(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    prompt = build_prompt(root, _state(None))
    assert "folded" not in prompt.user and "## Relevant code" not in prompt.user
    assert "page3.md" in prompt.user


def test_a_budgeted_prompt_is_one_part(tmp_path: Path) -> None:
    root = _repository(tmp_path, padding=200)
    prompt = build_prompt(root, _state(20_000))
    assert prompt.tokens <= 20_000
    assert prompt.part_count == 1


def test_a_small_budget_is_honoured_on_a_large_tree(tmp_path: Path) -> None:
    root = _repository(tmp_path, padding=2_000)
    prompt = build_prompt(root, _state(4_000))
    assert prompt.tokens <= 4_000
    assert "### app/settings.py" in prompt.user
    left_out = prompt.user.split("## Files left out", 1)[1]
    assert left_out.count("\n- ") <= 13
    assert "more, shown by their path" in left_out


@pytest.mark.parametrize("budget", [4_000, 8_000, 16_000])
def test_cuts_follow_the_rank(tmp_path: Path, budget: int) -> None:
    root = _repository(tmp_path, padding=300)
    prompt = build_prompt(root, _state(budget))
    order = [p for p, _kept in prompt.left_out]
    assert "app/settings.py" not in order
    summaries = prompt.user.split("## File summaries", 1)[1]
    assert summaries.index("### app/settings.py") < summaries.index("### vendor/")


def test_an_edit_prompt_on_a_large_tree_shows_the_file_that_fits_and_folds_the_rest(
    tmp_path: Path,
) -> None:
    root = _repository(tmp_path, padding=2_000)
    state = BridgeState(task=TASK, mode="edit", files=("app/settings.py",), max_tokens=4_000)
    prompt = build_prompt(root, state)
    assert prompt.tokens <= 4_000
    assert prompt.shown_in_full == ("app/settings.py",)
    assert "vendor/ (folded: 2000 files, 2000 .py)" in prompt.user
