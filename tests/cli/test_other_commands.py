"""``agentprompt --version``, ``prompts`` and ``sessions``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from agentprompt import Store, __version__
from agentprompt.cli.main import COMMANDS

from .conftest import Result

Run = Callable[..., Result]


def test_version_prints_the_package_version(run: Run) -> None:
    result = run("--version")
    assert result.code == 0
    assert result.out.strip() == f"agentprompt, version {__version__}"


def test_unknown_command_is_a_usage_error(run: Run) -> None:
    assert run("no-such-command").code == 2


def test_help_lists_every_command(run: Run) -> None:
    result = run("--help")
    listed = [line.split()[0] for line in result.out.split("Commands:")[1].splitlines() if line]
    assert listed == sorted(COMMANDS)


def test_starting_the_cli_loads_no_engine_it_does_not_run() -> None:
    heavy = (
        "tree_sitter",
        "agentprompt.repo.symbols.extract",
        "agentprompt.edits.apply",
        "jsonschema",
    )
    code = (
        "import sys; from agentprompt.cli.main import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in sys.modules if m.startswith({heavy!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_prompts_list_shows_where_each_name_resolves(run: Run, repo: Path) -> None:
    override = repo / "config" / "prompts" / "agent" / "identity.md"
    override.parent.mkdir(parents=True)
    override.write_text("You are the house agent.\n")
    data = json.loads(run("prompts", "list", "--root", str(repo), "--json").out)
    by_name = {p["name"]: p for p in data["prompts"]}
    assert by_name["agent/identity"]["origin"] == "project"
    assert by_name["agent/identity"]["path"] == str(override)
    assert len(by_name["agent/identity"]["shadows"]) == 1
    assert by_name["agent/behavior"]["origin"] == "packaged"
    origins = [d["origin"] for d in data["search_path"]]
    assert origins == ["project", "local", "user", "packaged"]


def test_prompts_list_for_people_is_a_table(run: Run, repo: Path) -> None:
    result = run("prompts", "list", "--root", str(repo))
    assert result.code == 0
    assert "agent/identity" in result.out and "packaged" in result.out


def test_prompts_show_prints_the_file_and_its_variables(run: Run, repo: Path) -> None:
    data = json.loads(run("prompts", "show", "agent/context", "--root", str(repo), "--json").out)
    assert data["variables"] == ["date", "working_directory", "os", "python_version"]
    assert data["text"].startswith("## Context\n- Current Date: {{date}}")


def test_prompts_show_of_a_missing_name_lists_the_paths_searched(run: Run, repo: Path) -> None:
    result = run("prompts", "show", "house_rules", "--root", str(repo))
    assert result.code == 2
    assert "house_rules.md was not found" in result.err
    assert str(repo / "config" / "prompts" / "house_rules.md") in result.err


def test_sessions_list_without_a_database_creates_none(run: Run, repo: Path) -> None:
    result = run("sessions", "list", "--root", str(repo), "--json")
    assert result.code == 0
    assert json.loads(result.out) == {"sessions": []}
    assert not (repo / ".agentprompt").exists()


def test_sessions_list_and_show_read_the_store(run: Run, repo: Path) -> None:
    with Store(repo / ".agentprompt" / "state.db") as store:
        record = store.create_session("bridge", {"mode": "browse"})
    listed = json.loads(run("sessions", "list", "--root", str(repo), "--json").out)
    assert [s["id"] for s in listed["sessions"]] == [record.id]
    shown = json.loads(run("sessions", "show", record.id, "--root", str(repo), "--json").out)
    assert shown["state"] == {"mode": "browse"}


def test_an_unreadable_store_is_bad_input_and_stays_as_it_was(run: Run, tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    db.write_bytes(b"this is not a database at all" * 10)
    before = db.read_bytes()
    result = run("sessions", "list", "--db", str(db))
    assert result.code == 2
    assert "damaged" in result.err and str(db) in result.err
    assert "Traceback" not in result.err
    assert db.read_bytes() == before


def test_sessions_delete_removes_a_session(run: Run, repo: Path) -> None:
    with Store(repo / ".agentprompt" / "state.db") as store:
        record = store.create_session("agent", {})
    result = run("sessions", "delete", record.id, "--root", str(repo), "--json")
    assert json.loads(result.out) == {"deleted": True, "id": record.id}
    assert run("sessions", "show", record.id, "--root", str(repo)).code == 2


def test_prompts_show_names_an_edit_catalogue_entry_as_its_file_was_named(
    run: Run, repo: Path
) -> None:
    result = run("prompts", "show", "edits/reason_ambiguous_ja", "--root", str(repo), "--json")
    data = json.loads(result.out)
    assert data["key"] == "reason_ambiguous"
    assert data["path"].endswith("catalogue_ja.yaml")
    assert data["variables"] == ["count", "where"]
    assert data["text"].startswith("引用された行が {{count}} か所に")


def test_prompts_list_shows_a_project_override_of_a_catalogue_entry(run: Run, repo: Path) -> None:
    override = repo / "config" / "prompts" / "edits" / "catalogue.yaml"
    override.parent.mkdir(parents=True)
    override.write_text("feedback_others_none:\n  variables: {}\n  text: Only this one.\n")
    data = json.loads(run("prompts", "list", "--root", str(repo), "--json").out)
    by_name = {p["name"]: p for p in data["prompts"]}
    assert by_name["edits/feedback_others_none"]["origin"] == "project"
    assert by_name["edits/feedback_others_none"]["path"] == str(override)
    assert by_name["edits/feedback_others_none_ja"]["origin"] == "packaged"
    shown = run("prompts", "show", "edits/feedback_others_none", "--root", str(repo))
    assert "Only this one." in shown.out and "(project)" in shown.out
