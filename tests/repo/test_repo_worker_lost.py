"""A parse worker that dies (the system kills it, or the parser crashes on a file) costs no
traceback and no file but the one that kills it: lost results are parsed again, and a file
that takes down every process reading it is found and reported alone."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentprompt.cli.main import cli
from agentprompt.repo.discovery import discover
from agentprompt.repo.extraction import _workers as parse_workers
from agentprompt.repo.extraction._workers import WORKER_LOST, Result
from agentprompt.repo.map import MapOptions, build_map

MAIN = os.getpid()


@pytest.fixture
def repo(chain_repo: Callable[[int, int], Path]) -> Path:
    return chain_repo(40, 2)


_REAL = parse_workers.extract_one
_KILL: dict[str, object] = {}
"""What :func:`_dying` kills for: ``victim`` path, ``once`` marker, ``details`` wanted."""


def _dying(
    root: str, path: str, details: bool = True, derive: parse_workers.Deriver | None = None
) -> Result:
    """:func:`~agentprompt.repo.extraction._workers.extract_one`, but a worker process (never
    this one) reading the victim dies by SIGKILL: the first time only when a ``once``
    marker file is to be left, every time otherwise."""
    once = _KILL["once"]
    wanted = _KILL["details"] is None or _KILL["details"] == details
    first = not isinstance(once, Path) or not once.exists()
    if path == _KILL["victim"] and wanted and first and os.getpid() != MAIN:
        if isinstance(once, Path):
            once.write_text("")
        os.kill(os.getpid(), signal.SIGKILL)
    return _REAL(root, path, details, derive)


def _killing(
    monkeypatch: pytest.MonkeyPatch, victim: str, *, once: Path | None, details: bool | None = None
) -> None:
    """Make workers die reading ``victim`` (see :func:`_dying`); a module-level function,
    as the workers are handed it by name."""
    monkeypatch.setattr(parse_workers, "extract_one", _dying)
    monkeypatch.setitem(_KILL, "victim", victim)
    monkeypatch.setitem(_KILL, "once", once)
    monkeypatch.setitem(_KILL, "details", details)


def _plain_map(repo: Path) -> str:
    """The map of a copy of ``repo`` parsed with no worker dying."""
    other = repo.parent / "plain"
    subprocess.run(["cp", "-a", str(repo), str(other)], check=True)
    return build_map(other, MapOptions(tokens=400, workers=2)).text


@pytest.mark.parametrize("head_start", [True, False])
def test_a_worker_killed_once_loses_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch, head_start: bool
) -> None:
    expected = _plain_map(repo)
    marker = repo.parent / "killed-once"
    _killing(monkeypatch, "src/m07.py", once=marker)
    given = None if head_start else discover(repo)  # a discovery given: no head start
    found = build_map(repo, MapOptions(tokens=400, workers=2), discovery=given)
    assert marker.exists()  # a worker did die
    assert found.problems == ()
    assert found.parsed == 40
    assert found.text == expected


def test_a_file_that_kills_every_worker_is_the_only_one_skipped(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _killing(monkeypatch, "src/m07.py", once=None)
    found = build_map(repo, MapOptions(tokens=2000, workers=2))
    assert found.problems == (f"src/m07.py: {WORKER_LOST}",)
    shown = {item.path for item in found.files}
    assert "src/m07.py" not in shown
    assert len(shown) == 39  # every other file was parsed and fits
    # Its neighbours in the same chunks were parsed after all.
    assert {"src/m06.py", "src/m08.py"} <= shown


def test_the_cli_reports_the_file_and_succeeds(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _killing(monkeypatch, "src/m07.py", once=None)
    result = CliRunner().invoke(cli, ["map", "--root", str(repo), "--tokens", "400"])
    assert result.exit_code == 0, result.output
    assert f"skipped src/m07.py: {WORKER_LOST}" in result.output
    assert "Traceback" not in result.output


def test_a_worker_killed_while_extracting_details_loses_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _plain_map(repo)
    marker = repo.parent / "killed-once"
    # step_39's file is the top of the ranking (every other step leads to it), so the
    # fitting wants its details: the worker that extracts them dies.
    _killing(monkeypatch, "src/m00.py", once=marker, details=True)
    found = build_map(repo, MapOptions(tokens=400, workers=2))
    assert marker.exists()
    assert found.problems == ()
    assert found.text == expected
