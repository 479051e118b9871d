"""``agentprompt mcp``'s own checks, before any server starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.cli.main import main


def _refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        main(list(argv))
    assert done.value.code == 2
    return capsys.readouterr().err


def test_a_root_that_is_not_a_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refusal(capsys, "mcp", "--root", str(tmp_path / "missing"))
    assert "--root" in err and "is not a directory" in err


def test_a_port_without_http_is_refused(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refusal(capsys, "mcp", "--root", str(example), "--port", "8080")
    assert "--port is for --transport http" in err


def test_a_short_fixed_token_is_refused(
    example: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTPROMPT_MCP_TOKEN", "short")
    err = _refusal(capsys, "mcp", "--root", str(example), "--transport", "http")
    assert "AGENTPROMPT_MCP_TOKEN" in err
