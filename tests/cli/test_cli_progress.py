"""The delayed progress bar: shown on a terminal after the delay, never otherwise."""

from __future__ import annotations

import io
import time

import pytest
from rich.console import Console

from agentprompt.cli import _progress as progress


def _console(monkeypatch: pytest.MonkeyPatch, *, terminal: bool) -> io.StringIO:
    out = io.StringIO()
    monkeypatch.setattr(
        progress, "err_console", Console(file=out, force_terminal=terminal, width=80)
    )
    monkeypatch.setattr(progress, "PROGRESS_DELAY", 0.05)
    return out


def test_a_long_scan_on_a_terminal_shows_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    out = _console(monkeypatch, terminal=True)
    with progress.scan_progress("counting tokens", 4) as advance:
        advance(2)
        waited = 0.0
        while "counting tokens" not in out.getvalue() and waited < 5.0:
            time.sleep(0.05)
            waited += 0.05
    assert "counting tokens" in out.getvalue()


def test_a_quick_scan_shows_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    out = _console(monkeypatch, terminal=True)
    monkeypatch.setattr(progress, "PROGRESS_DELAY", 5.0)
    with progress.scan_progress("counting tokens", 4) as advance:
        advance(4)
    assert out.getvalue() == ""


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "disabled"])
def test_no_bar_off_a_terminal_or_when_disabled(
    monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    out = _console(monkeypatch, terminal=terminal)
    with progress.scan_progress("counting tokens", 4, enabled=not terminal) as advance:
        advance(1)
        time.sleep(0.2)
    assert out.getvalue() == ""


def test_a_phase_can_set_its_own_count_and_name(monkeypatch: pytest.MonkeyPatch) -> None:
    out = _console(monkeypatch, terminal=True)
    with progress.scan_progress("mapping files", None) as bar:
        bar.update(3, 10, "parsing")
        waited = 0.0
        while "parsing" not in out.getvalue() and waited < 5.0:
            time.sleep(0.05)
            waited += 0.05
    assert "parsing" in out.getvalue()
    assert "3/10" in out.getvalue()
