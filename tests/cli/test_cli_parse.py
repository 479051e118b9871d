"""``agentprompt parse``: human and JSON output, stdin, exit statuses, unreadable input."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Result

REPLY = "b.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n<<<REQUEST_FILE: c.py>>>\n"


@pytest.fixture
def reply_file(tmp_path: Path) -> Path:
    path = tmp_path / "reply.md"
    path.write_text(REPLY, encoding="utf-8")
    return path


def test_json_is_exactly_the_parse_result(run: Callable[..., Result], reply_file: Path) -> None:
    result = run("parse", str(reply_file), "--json")
    assert result.code == 0
    assert json.loads(result.out) == {
        "actions": [
            {
                "kind": "replace",
                "dialect": "searchreplace",
                "path": "b.py",
                "block": 0,
                "line": 2,
                "search": "x\n",
                "replace": "y\n",
            },
            {
                "kind": "request",
                "dialect": "bridge",
                "path": None,
                "block": 1,
                "line": 7,
                "paths": ["c.py"],
            },
        ],
        "diagnostics": [],
    }


def test_human_output_lists_the_actions(run: Callable[..., Result], reply_file: Path) -> None:
    result = run("parse", str(reply_file))
    assert result.code == 0
    assert "searchreplace" in result.out and "b.py" in result.out
    assert "request" in result.out and "c.py" in result.out


def test_reads_stdin(run: Callable[..., Result], monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"<<<DELETE: gone.py>>>\n"))
    monkeypatch.setattr("sys.stdin", stdin)
    result = run("parse", "-", "--json")
    assert result.code == 0
    assert json.loads(result.out)["actions"][0]["kind"] == "delete"


def test_dialect_option_restricts_the_dialect(run: Callable[..., Result], reply_file: Path) -> None:
    result = run("parse", str(reply_file), "--dialect", "bridge", "--json")
    assert [a["kind"] for a in json.loads(result.out)["actions"]] == ["request"]


def test_error_diagnostic_exits_1_and_is_shown(run: Callable[..., Result], tmp_path: Path) -> None:
    path = tmp_path / "cut.md"
    path.write_text("<<<FILE: a.ts>>>\nhalf", encoding="utf-8")
    result = run("parse", str(path))
    assert result.code == 1
    assert "truncated" in result.out


def test_warnings_alone_exit_0(run: Callable[..., Result], tmp_path: Path) -> None:
    path = tmp_path / "prose.md"
    path.write_text("Nothing to change.\n", encoding="utf-8")
    result = run("parse", str(path), "--json")
    assert result.code == 0
    assert json.loads(result.out)["diagnostics"][0]["code"] == "no-blocks"


def test_missing_file_exits_2_with_a_message(run: Callable[..., Result], tmp_path: Path) -> None:
    result = run("parse", str(tmp_path / "nope.md"))
    assert result.code == 2
    assert "cannot read" in result.err and "Traceback" not in result.err


def test_directory_exits_2(run: Callable[..., Result], tmp_path: Path) -> None:
    result = run("parse", str(tmp_path))
    assert result.code == 2
    assert "cannot read" in result.err


def test_non_utf8_reply_exits_2(run: Callable[..., Result], tmp_path: Path) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes("caf\xe9".encode("latin-1"))
    result = run("parse", str(path))
    assert result.code == 2
    assert "not UTF-8" in result.err


def test_unknown_dialect_exits_2_naming_the_valid_ones(
    run: Callable[..., Result], reply_file: Path
) -> None:
    result = run("parse", str(reply_file), "--dialect", "nope")
    assert result.code == 2
    assert "udiff" in result.err and "bridge" in result.err


def test_markup_in_a_reply_is_printed_literally(run: Callable[..., Result], tmp_path: Path) -> None:
    path = tmp_path / "markup.md"
    path.write_text("<<<DELETE: [bold]x[/bold].py>>>\n", encoding="utf-8")
    result = run("parse", str(path))
    assert "[bold]x[/bold].py" in result.out
