"""``agentprompt select``: model configuration, the selection, JSON, bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.cli import _select as select_cli
from agentprompt.llm import MODEL_ENV, ChosenModel, ModelConfig, ModelSpec, ScriptedModel

from .conftest import Result, snapshot_tree

Run = Callable[..., Result]


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedModel:
    """The test model every ``select`` run in the test asks."""
    scripted = ScriptedModel()

    def choose(spec: ModelSpec, environ: object, **wording: object) -> ChosenModel:
        return ChosenModel(config=ModelConfig(provider="script", model="test"), client=scripted)

    monkeypatch.setattr(select_cli, "model_from_environment", choose)
    return scripted


def test_without_a_model_select_exits_2_and_says_how_to_configure_one(
    run: Run, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(MODEL_ENV, raising=False)
    done = run("select", "--task", "Fix it", "--root", str(repo))
    assert done.code == 2
    assert "no model is named" in done.err
    assert "--model openai:MODEL, anthropic:MODEL or script:FILE" in done.err
    assert "AGENTPROMPT_MODEL" in done.err and "config.toml" in done.err
    assert "Traceback" not in done.err


def test_a_named_model_without_an_api_key_exits_2_and_names_the_variable(
    run: Run, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv(MODEL_ENV, "openai:gpt-4o-mini")
    done = run("select", "--task", "Fix it", "--root", str(repo))
    assert done.code == 2
    assert "no API key for openai: set the environment variable OPENAI_API_KEY" in done.err
    assert "Traceback" not in done.err


def test_select_prints_the_chosen_files_and_why_it_stopped(
    run: Run, repo: Path, model: ScriptedModel
) -> None:
    model.add({"done": True, "files": ["src/app/cli.py"], "reason": "the entry point"})
    done = run("select", "--task", "Fix the CLI", "--root", str(repo))
    assert done.code == 0
    assert "src/app/cli.py" in done.out
    assert "Stopped (done) after 1 round(s): the entry point" in done.out


def test_select_json_reports_selected_rejected_and_the_context(
    run: Run, repo: Path, model: ScriptedModel
) -> None:
    model.add({"done": True, "files": ["src/app/cli.py", "nope.py"], "reason": "r"})
    done = run("select", "--task", "Fix", "--root", str(repo), "--json")
    data = json.loads(done.out)
    assert [s["path"] for s in data["selected"]] == ["src/app/cli.py"]
    assert data["rejected"] == [{"path": "nope.py", "reason": "does not exist", "round": 1}]
    assert (data["rounds"], data["done"], data["stopped"]) == (1, True, "done")
    assert "### src/app/cli.py" in data["context"]


def test_constraint_options_reach_the_prompt_and_are_enforced(
    run: Run, repo: Path, model: ScriptedModel
) -> None:
    model.add({"done": True, "files": ["src/app/cli.py", "README.md"], "reason": ""})
    done = run(
        "select",
        "--task",
        "Fix",
        "--root",
        str(repo),
        "--filter",
        r"\.py$",
        "--exclude-re",
        "core",
        "--max-files",
        "3",
        "--dir",
        "src",
        "--load",
        "src/app/core.py",
        "--json",
    )
    prompt = model.prompts[0].prompt
    assert "- ONLY select files whose name matches the pattern: \\.py$" in prompt
    assert "- Do NOT select files whose name matches the pattern: core" in prompt
    assert "- Maximum 3 files can be read in total. Be selective." in prompt
    assert "Do NOT request them again: src/app/core.py" in prompt
    assert "- Only select files within the directory: src" in prompt
    data = json.loads(done.out)
    assert [(s["path"], s["forced"]) for s in data["selected"]] == [
        ("src/app/core.py", True),
        ("src/app/cli.py", False),
    ]
    assert data["rejected"][0]["path"] == "README.md"


def test_a_file_with_a_secret_is_withheld_unless_allowed(
    run: Run, repo: Path, model: ScriptedModel
) -> None:
    (repo / "src/app/keys.py").write_text('AWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n')
    model.add({"done": True, "files": ["src/app/keys.py"], "reason": ""})
    done = run("select", "--task", "Fix", "--root", str(repo))
    assert "not loaded: src/app/keys.py (holds a likely secret" in done.out
    assert "likely secret in src/app/keys.py:1: AWS Access Key" in done.err
    assert "AKIAIOSFODNN7EXAMPLE" not in done.out + done.err
    model.add({"done": True, "files": ["src/app/keys.py"], "reason": ""})
    data = json.loads(
        run("select", "--task", "Fix", "--root", str(repo), "--allow-secrets", "--json").out
    )
    assert [s["path"] for s in data["selected"]] == ["src/app/keys.py"]


def test_a_missing_forced_include_is_reported_not_fatal(
    run: Run, repo: Path, model: ScriptedModel
) -> None:
    model.add({"done": True, "files": [], "reason": ""})
    done = run("select", "--task", "Fix", "--root", str(repo), "--load", "gone.py", "--json")
    assert done.code == 0
    assert json.loads(done.out)["rejected"][0] == {
        "path": "gone.py",
        "reason": "does not exist",
        "round": 0,
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--filter", "("), "is not a valid regular expression"),
        (("--dir", "nowhere"), "is not a folder inside"),
        (("--root", "/nonexistent-root"), "is not a directory"),
    ],
)
def test_unusable_arguments_exit_2_and_the_model_is_not_asked(
    run: Run, repo: Path, model: ScriptedModel, args: tuple[str, ...], message: str
) -> None:
    base = ["select", "--task", "Fix", "--root", str(repo)]
    done = run(*base, *args)
    assert done.code == 2
    assert message in done.err and "Traceback" not in done.err
    assert model.prompts == []


def test_max_files_below_one_exits_2(run: Run, repo: Path, model: ScriptedModel) -> None:
    assert run("select", "--task", "Fix", "--root", str(repo), "--max-files", "0").code == 2


def test_select_writes_nothing(run: Run, repo: Path, model: ScriptedModel) -> None:
    before = snapshot_tree(repo)
    model.add({"done": True, "files": ["README.md"], "reason": ""})
    run("select", "--task", "Fix", "--root", str(repo))
    assert snapshot_tree(repo) == before


def test_a_requested_non_utf8_file_is_skipped_and_reported(
    run: Run, repo: Path, model: ScriptedModel
) -> None:
    (repo / "src/app/latin.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    model.add({"done": True, "files": ["src/app/latin.txt"], "reason": ""})
    done = run("select", "--task", "Fix", "--root", str(repo), "--json")
    assert done.code == 0
    assert json.loads(done.out)["rejected"][0]["reason"] == (
        "left out of the repository view: not UTF-8 text (invalid byte at offset 3)"
    )


def test_a_model_script_replays_its_answers_with_no_network(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    script = tmp_path / "answers.json"
    script.write_text(
        json.dumps(
            [
                {"done": False, "files": ["src/app/cli.py"], "reason": "entry"},
                'Also: {"done": true, "files": ["src/app/core.py"], "reason": "value"}',
            ]
        )
    )
    done = run("select", "--task", "Fix", "--root", str(repo), "--model", f"script:{script}")
    assert done.code == 0
    assert "Stopped (done) after 2 round(s): value" in done.out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the model script"),
        ("not json", "is not JSON"),
        ('{"done": true}', "must hold a JSON list of answers"),
    ],
)
def test_a_bad_model_script_exits_2(
    run: Run, repo: Path, tmp_path: Path, content: str | None, message: str
) -> None:
    script = tmp_path / "answers.json"
    if content is not None:
        script.write_text(content)
    done = run("select", "--task", "Fix", "--root", str(repo), "--model", f"script:{script}")
    assert done.code == 2
    assert message in done.err and "Traceback" not in done.err


def test_a_requested_git_ignored_file_is_refused_with_the_ignore_rule(
    run: Run, repo: Path, model: ScriptedModel
) -> None:
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "debug.log").write_text("trace\n")
    model.add({"done": True, "files": ["debug.log"], "reason": ""})
    data = json.loads(run("select", "--task", "Fix", "--root", str(repo), "--json").out)
    assert data["rejected"][0]["reason"] == (
        "left out of the repository view: ignored by git: .gitignore:1 (`*.log`)"
    )


def test_a_model_script_that_runs_out_keeps_the_selection_and_says_so(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    script = tmp_path / "answers.json"
    script.write_text(json.dumps([{"done": False, "files": ["src/app/cli.py"], "reason": "x"}]))
    done = run(
        "select", "--task", "Fix", "--root", str(repo), "--model", f"script:{script}", "--json"
    )
    assert done.code == 1
    data = json.loads(done.out)
    assert [s["path"] for s in data["selected"]] == ["src/app/cli.py"]
    assert data["stopped"] == "model error"
    assert f"the model script {script} has no answer for round 2 (it holds 1)" in done.err
    assert "1 file(s) selected so far" in done.err
    assert "add()" not in done.err and "Traceback" not in done.err


def test_include_and_exclude_are_gitignore_patterns(
    run: Run, repo: Path, model: ScriptedModel
) -> None:
    model.add({"done": True, "files": [], "reason": ""})
    done = run(
        "select",
        "--task",
        "Fix",
        "--root",
        str(repo),
        "--include",
        "src/",
        "--exclude",
        "core.py",
    )
    assert done.code == 0, done.err
    prompt = model.prompts[0].prompt
    assert "cli.py" in prompt and "core.py" not in prompt and "README.md" not in prompt
    bad = run("select", "--task", "Fix", "--root", str(repo), "--exclude", "nothing/")
    assert bad.code == 2
    assert bad.err.strip() == (
        "agentprompt: error: --exclude 'nothing/' matches no file of the repository; check "
        "the pattern (gitignore syntax: 'docs/', '*.md', '/CHANGES.rst')"
    )
