"""The file-selection loop: rounds, constraints enforced in code, budget, secrets, feedback."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agentprompt.errors import UsageError
from agentprompt.llm import FunctionModel, ScriptedModel
from agentprompt.llm.base import ModelRequest
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.repo.discovery import DiscoveryOptions
from agentprompt.repo.selection import SelectionOptions, select_files

WALK = DiscoveryOptions(follow_git=False)


def done(*files: str, reason: str = "enough") -> dict[str, object]:
    return {"done": True, "files": list(files), "reason": reason}


def more(*files: str) -> dict[str, object]:
    return {"done": False, "files": list(files), "reason": "need more"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "proj"
    for rel, text in {
        "src/app.py": "from src.util import helper\n",
        "src/util.py": "def helper() -> int:\n    return 1\n",
        "tests/test_app.py": "def test_app() -> None:\n    pass\n",
        "docs/guide.md": "# Guide\n",
        "README.md": "# Proj\n",
    }.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text, encoding="utf-8")
    return base


def run(root: Path, model: ScriptedModel, **options: object):  # type: ignore[no-untyped-def]
    return select_files(
        model,
        "Fix the helper",
        root,
        SelectionOptions(**options),  # type: ignore[arg-type]
        discovery_options=WALK,
        prompts=PromptLibrary(root),
    )


def test_chosen_files_are_loaded_and_the_loop_ends_when_the_model_is_done(root: Path) -> None:
    model = ScriptedModel([done("src/app.py", "src/util.py")])
    result = run(root, model)
    assert [s.path for s in result.selected] == ["src/app.py", "src/util.py"]
    assert (result.rounds, result.done, result.stopped, result.reason) == (
        1,
        True,
        "done",
        "enough",
    )
    assert "### src/util.py\n\n```\ndef helper() -> int:" in result.context


def test_the_result_is_frozen(root: Path) -> None:
    result = run(root, ScriptedModel([done()]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.rounds = 2  # type: ignore[misc]


def test_the_next_round_shows_the_loaded_files_in_the_followup_prompt(root: Path) -> None:
    model = ScriptedModel([more("src/app.py"), done("src/util.py")])
    result = run(root, model)
    assert result.rounds == 2
    assert "## Current Context" not in model.prompts[0].prompt
    assert "## Current Context\n\n### src/app.py" in model.prompts[1].prompt


def test_a_missing_file_is_refused_and_told_to_the_model_next_round(root: Path) -> None:
    model = ScriptedModel([more("src/nope.py"), done()])
    result = run(root, model)
    assert [(r.path, r.reason, r.round) for r in result.rejected] == [
        ("src/nope.py", "does not exist", 1)
    ]
    assert "- src/nope.py: does not exist" in model.prompts[1].prompt


def test_a_misplaced_path_gets_a_did_you_mean_hint(root: Path) -> None:
    result = run(root, ScriptedModel([done("util.py")]))
    assert result.rejected[0].reason == "does not exist; did you mean src/util.py?"


def test_an_excluded_file_is_refused_with_the_exclusion_reason(root: Path) -> None:
    (root / "yarn.lock").write_text("lock\n")
    result = run(root, ScriptedModel([done("yarn.lock")]))
    assert result.rejected[0].reason == (
        "left out of the repository view: excluded by default exclusion (`yarn.lock`)"
    )


def test_a_path_outside_the_root_is_refused(root: Path) -> None:
    result = run(root, ScriptedModel([done("../secret.py", "/etc/passwd")]))
    assert [r.reason for r in result.rejected] == ["is outside the repository root"] * 2


def test_the_filter_is_enforced_in_code(root: Path) -> None:
    result = run(root, ScriptedModel([done("src/app.py", "docs/guide.md")]), filter=r"\.py$")
    assert [s.path for s in result.selected] == ["src/app.py"]
    assert result.rejected[0].reason == "does not match the filter pattern (\\.py$)"


def test_the_exclude_pattern_is_enforced_in_code(root: Path) -> None:
    result = run(root, ScriptedModel([done("src/app.py", "tests/test_app.py")]), exclude="test")
    assert [s.path for s in result.selected] == ["src/app.py"]
    assert result.rejected[0].reason == "matches the exclude pattern (test)"


def test_the_directory_constraint_is_enforced_in_code(root: Path) -> None:
    result = run(root, ScriptedModel([done("src/app.py", "README.md")]), dir="src/")
    assert [s.path for s in result.selected] == ["src/app.py"]
    assert result.rejected[0].reason == "is outside the directory constraint (src)"


def test_max_files_is_enforced_and_ends_the_loop(root: Path) -> None:
    model = ScriptedModel([more("src/app.py", "src/util.py", "README.md")])
    result = run(root, model, max_files=2)
    assert [s.path for s in result.selected] == ["src/app.py", "src/util.py"]
    assert result.rejected[0].reason == "the limit of 2 files is reached"
    assert (result.stopped, result.rounds) == ("file limit", 1)


def test_forced_includes_are_loaded_first_and_the_followup_prompt_is_used(root: Path) -> None:
    model = ScriptedModel([done("src/app.py")])
    result = run(root, model, include=("docs/guide.md",), filter=r"\.py$")
    assert [(s.path, s.forced, s.round) for s in result.selected] == [
        ("docs/guide.md", True, 0),
        ("src/app.py", False, 1),
    ]
    prompt = model.prompts[0].prompt
    assert "### docs/guide.md" in prompt
    assert "Do NOT request them again: docs/guide.md" in prompt


def test_a_forced_include_that_does_not_exist_is_reported(root: Path) -> None:
    result = run(root, ScriptedModel([done()]), include=("missing.py",))
    assert [(r.path, r.reason, r.round) for r in result.rejected] == [
        ("missing.py", "does not exist", 0)
    ]


def test_asking_again_for_a_loaded_file_is_refused(root: Path) -> None:
    result = run(root, ScriptedModel([more("src/app.py"), done("src/app.py")]))
    assert [s.path for s in result.selected] == ["src/app.py"]
    assert result.rejected[0].reason == "is already loaded"


def test_a_file_over_the_remaining_token_budget_is_refused(root: Path) -> None:
    (root / "big.py").write_text("value = 1\n" * 400)
    result = run(root, ScriptedModel([done("big.py", "README.md")]), token_budget=200)
    assert [s.path for s in result.selected] == ["README.md"]
    assert result.rejected[0].reason.startswith("would exceed the token budget (needs ")
    assert result.tokens == result.selected[0].tokens <= 200


def test_a_spent_token_budget_ends_the_loop(root: Path) -> None:
    cost = run(root, ScriptedModel([done("src/app.py")])).tokens
    model = ScriptedModel([more("src/app.py"), more("src/util.py")])
    result = run(root, model, token_budget=cost)
    assert result.stopped == "token budget"
    assert result.rounds == 1


def test_the_round_limit_ends_the_loop(root: Path) -> None:
    model = ScriptedModel([more("src/app.py"), more("src/util.py"), more("README.md")])
    result = run(root, model, max_rounds=2)
    assert (result.rounds, result.stopped, result.done) == (2, "round limit", False)
    assert model.remaining == 1


def test_asking_for_nothing_without_being_done_ends_the_loop(root: Path) -> None:
    result = run(root, ScriptedModel([more()]))
    assert (result.rounds, result.stopped, result.done) == (1, "no more files requested", False)


def test_an_unparseable_reply_ends_the_loop_with_the_fixed_reason(root: Path) -> None:
    result = run(root, ScriptedModel(["no idea"]))
    assert (result.done, result.reason, result.selected) == (
        True,
        "Could not parse LLM response.",
        (),
    )


def test_a_file_with_a_secret_is_withheld_and_reported(root: Path) -> None:
    (root / "src/config.py").write_text('AWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n')
    result = run(root, ScriptedModel([done("src/config.py")]))
    assert result.selected == ()
    assert result.rejected[0].reason == "holds a likely secret (line 1: AWS Access Key); left out"
    assert [(f.path, f.line, f.kind) for f in result.secrets] == [
        ("src/config.py", 1, "AWS Access Key")
    ]
    assert "AKIAIOSFODNN7EXAMPLE" not in result.context


def test_allow_secrets_loads_a_file_with_a_secret(root: Path) -> None:
    (root / "src/config.py").write_text('AWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n')
    result = run(root, ScriptedModel([done("src/config.py")]), allow_secrets=True)
    assert [s.path for s in result.selected] == ["src/config.py"]
    assert len(result.secrets) == 1


def test_content_with_backtick_fences_gets_a_longer_fence(root: Path) -> None:
    (root / "docs/fenced.md").write_text("```py\nx = 1\n```\n")
    result = run(root, ScriptedModel([done("docs/fenced.md")]))
    assert "### docs/fenced.md\n\n````\n```py\nx = 1\n```\n````" in result.context


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"filter": "("}, "filter pattern '\\(' is not a valid regular expression"),
        ({"exclude": "[a"}, "exclude pattern '\\[a' is not a valid regular expression"),
        ({"dir": "nowhere"}, "directory constraint 'nowhere' is not a folder"),
        ({"max_files": 0}, "max_files must be at least 1"),
    ],
)
def test_unusable_options_are_refused_before_asking_the_model(
    root: Path, options: dict[str, object], message: str
) -> None:
    model = ScriptedModel([done()])
    with pytest.raises(UsageError, match=message):
        run(root, model, **options)
    assert model.prompts == []


def test_the_tree_shown_holds_only_the_files_the_constraints_allow(root: Path) -> None:
    model = ScriptedModel([done()])
    run(root, model, dir="src", exclude="util")
    prompt = model.prompts[0].prompt
    assert "## Directory Tree\n\nsrc/\n  app.py\n\n## Active Constraints" in prompt
    assert "README.md" not in prompt


def test_constraints_name_only_the_forced_includes_that_loaded(root: Path) -> None:
    (root / "src/keys.py").write_text('AWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n', encoding="utf-8")
    model = ScriptedModel([done()])
    result = run(root, model, include=("docs/guide.md", "src/keys.py", "missing.py"))
    assert [s.path for s in result.selected] == ["docs/guide.md"]
    prompt = model.prompts[0].prompt
    assert "Do NOT request them again: docs/guide.md\n" in prompt
    assert "src/keys.py," not in prompt and "missing.py," not in prompt


def test_no_forced_include_loaded_means_no_include_constraint(root: Path) -> None:
    model = ScriptedModel([done()])
    run(root, model, include=("missing.py",))
    prompt = model.prompts[0].prompt
    assert "force-included" not in prompt
    assert "Some files have already been loaded" not in prompt
    assert "the files loaded so far, if any" in prompt


def test_filter_and_exclude_match_the_file_name_not_the_path(root: Path) -> None:
    model = ScriptedModel([done("tests/test_app.py", "src/app.py")])
    result = run(root, model, filter="^test_")
    assert [s.path for s in result.selected] == ["tests/test_app.py"]
    model = ScriptedModel([done("src/app.py")])
    result = run(root, model, exclude="^src")
    assert [s.path for s in result.selected] == ["src/app.py"]


def test_an_absolute_path_inside_the_root_is_accepted(root: Path) -> None:
    result = run(root, ScriptedModel([done(str(root / "src/app.py"))]))
    assert [s.path for s in result.selected] == ["src/app.py"]


def test_a_model_failure_keeps_what_was_selected_so_far(root: Path) -> None:
    result = run(root, ScriptedModel([more("src/app.py")]))
    assert [s.path for s in result.selected] == ["src/app.py"]
    assert (result.stopped, result.rounds) == ("model error", 1)
    assert result.error is not None and "asked 2 times" in result.error


def test_a_loaded_file_ends_right_before_its_closing_fence(root: Path) -> None:
    result = run(root, ScriptedModel([done("README.md")]))
    assert result.context == "### README.md\n\n```\n# Proj\n```"


def test_refusal_reasons_come_from_the_refusals_prompt_file(root: Path) -> None:
    override = root / "config/prompts/repo/file_select_refusals.md"
    override.parent.mkdir(parents=True)
    override.write_text("missing: is not in this repository\n", encoding="utf-8")
    result = run(root, ScriptedModel([done("nope.py")]))
    assert result.rejected[0].reason == "is not in this repository"


def test_a_large_repository_shows_the_files_most_relevant_to_the_request(tmp_path: Path) -> None:
    base = tmp_path / "big"
    (base / "pkg").mkdir(parents=True)
    for i in range(30):
        (base / "pkg" / f"module_{i:02}.py").write_text(
            f"def unrelated_{i}() -> int:\n    return {i}\n"
        )
    (base / "pkg" / "invoices.py").write_text(
        "def render_invoice_total(lines: list[int]) -> int:\n    return sum(lines)\n"
    )
    seen: list[str] = []

    def answer(request: ModelRequest) -> dict[str, object]:
        seen.append(str(request.messages[-1].content))
        return done("pkg/invoices.py")

    result = select_files(
        FunctionModel(answer),
        "render_invoice_total adds the lines twice",
        base,
        SelectionOptions(tree_files=5),
        discovery_options=WALK,
        prompts=PromptLibrary(base),
    )
    assert [s.path for s in result.selected] == ["pkg/invoices.py"]
    tree = seen[0].split("## Directory Tree", 1)[1]
    assert "invoices.py" in tree
    assert sum(1 for line in tree.splitlines() if line.strip().startswith("module_")) == 4
    assert "26 more files are not listed: the tree shows the 5 files most relevant" in tree


def test_a_small_repository_shows_every_file(root: Path) -> None:
    seen: list[str] = []

    def answer(request: ModelRequest) -> dict[str, object]:
        seen.append(str(request.messages[-1].content))
        return done()

    run(root, FunctionModel(answer))  # type: ignore[arg-type]
    assert "more files are not listed" not in seen[0]
    assert "guide.md" in seen[0]
