"""``agentprompt ui``: its bad input, and that a browser opens only with ``--open``."""

from __future__ import annotations

from pathlib import Path

import pytest
import uvicorn

from agentprompt.cli.main import main
from agentprompt.web import server
from agentprompt.web.server import bind_loopback, prepare, serve


def _exit_code(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else 1
    return 0


def test_ui_with_a_missing_root_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(["ui", "--root", str(tmp_path / "nope")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_ui_with_a_port_in_use_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = bind_loopback(0)
    try:
        port = str(taken.getsockname()[1])
        assert _exit_code(["ui", "--root", str(tmp_path), "--port", port]) == 2
        assert "give another port" in capsys.readouterr().err
    finally:
        taken.close()


def test_ui_help_names_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(["ui", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--root", "--port", "--open"):
        assert option in out


@pytest.mark.parametrize("open_browser", [False, True])
def test_browser_opens_only_with_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_browser: bool
) -> None:
    opened: list[str] = []
    announced: list[str] = []
    monkeypatch.setattr(server.webbrowser, "open", lambda url: opened.append(url) or True)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    page = prepare(0)
    try:
        serve(tmp_path, page, open_browser=open_browser, announce=announced.append)
    finally:
        page.sock.close()
    assert announced == [page.url]
    assert opened == ([page.url] if open_browser else [])
