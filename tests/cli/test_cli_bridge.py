"""``agentprompt bridge status|reset``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .conftest import Result

Run = Callable[..., Result]


def test_status_shows_the_session(run: Run, repo: Path) -> None:
    run("pack", "--root", str(repo), "--task", "Fix it", "--lang", "en")
    result = run("bridge", "status", "--root", str(repo))
    assert result.code == 0
    assert "round 0, browse mode" in result.out
    assert "task: Fix it" in result.out
    data = json.loads(run("bridge", "status", "--root", str(repo), "--json").out)
    assert data["task"] == "Fix it"
    assert data["mode"] == "browse"


def test_reset_clears_the_session(run: Run, repo: Path) -> None:
    run("pack", "--root", str(repo), "--task", "Fix it")
    assert run("bridge", "reset", "--root", str(repo)).out.startswith("bridge session cleared")
    result = run("bridge", "status", "--root", str(repo))
    assert result.code == 2
    assert "no bridge session" in result.err


def test_a_new_task_replaces_the_session(run: Run, repo: Path) -> None:
    run("pack", "--root", str(repo), "--task", "first")
    run("pack", "src/app/cli.py", "--root", str(repo), "--task", "second")
    data = json.loads(run("bridge", "status", "--root", str(repo), "--json").out)
    assert data["task"] == "second"
    assert data["mode"] == "edit"
    assert data["files"] == ["src/app/cli.py"]
