"""A prompt directory that cannot be searched ends a failing apply with one clear line
(exit 2, nothing written), never a traceback."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Result

Run = Callable[..., Result]

FAILING = "<<<DIFF: src/app/core.py>>>\n@@\n-NOT THERE = 0\n+VALUE = 2\n<<<END>>>\n"


def _unreadable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """``folder`` cannot be searched, as a 0700 folder of another user is (the suite may run
    as root, for whom permissions do not apply)."""
    real_stat = pathlib.Path.stat

    def stat(self: pathlib.Path, *args: object, **kwargs: object) -> os.stat_result:
        if folder in self.parents:
            raise PermissionError(13, "Permission denied", str(self))
        return real_stat(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pathlib.Path, "stat", stat)


def test_an_unreadable_user_prompt_dir_is_one_clear_line(
    run: Run, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    (config / "prompts").mkdir(parents=True)
    monkeypatch.setenv("AGENTPROMPT_CONFIG_DIR", str(config))
    _unreadable(monkeypatch, config / "prompts")
    reply = tmp_path / "reply.md"
    reply.write_text(FAILING, encoding="utf-8")
    before = (repo / "src" / "app" / "core.py").read_bytes()
    result = run("apply", str(reply), "--root", str(repo))
    assert result.code == 2
    assert "cannot be read (Permission denied)" in result.err
    assert "Traceback" not in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert (repo / "src" / "app" / "core.py").read_bytes() == before


@pytest.mark.skipif(os.geteuid() == 0, reason="permissions do not apply to root")
def test_a_0000_user_prompt_dir_is_one_clear_line(
    run: Run, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    (config / "prompts").mkdir(parents=True)
    monkeypatch.setenv("AGENTPROMPT_CONFIG_DIR", str(config))
    (config / "prompts").chmod(0)
    reply = tmp_path / "reply.md"
    reply.write_text(FAILING, encoding="utf-8")
    try:
        result = run("apply", str(reply), "--root", str(repo))
    finally:
        (config / "prompts").chmod(0o700)
    assert result.code == 2
    assert "cannot be read" in result.err
