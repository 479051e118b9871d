"""``apply`` refuses a reply whose UTF-8 was read as Windows-1252 with one line and exit 2,
and repairs it with ``--fix-encoding``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .conftest import Result

Run = Callable[..., Result]

GARBLED = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 'cafÃ©'\n>>>>>>> REPLACE\n"


def test_a_garbled_reply_exits_2_with_one_line_and_writes_nothing(run: Run, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    reply = tmp_path / "reply.md"
    reply.write_text(GARBLED, encoding="utf-8")
    result = run("apply", str(reply), "--root", str(tmp_path))
    assert result.code == 2
    assert result.out == ""
    assert len(result.err.strip().splitlines()) == 1
    assert "Windows-1252" in result.err and "--fix-encoding" in result.err
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
    assert not (tmp_path / ".agentprompt" / "journal").exists() or not any(
        (tmp_path / ".agentprompt" / "journal").iterdir()
    )


def test_fix_encoding_applies_the_repaired_reply(run: Run, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    reply = tmp_path / "reply.md"
    reply.write_text(GARBLED, encoding="utf-8")
    result = run("apply", str(reply), "--root", str(tmp_path), "--fix-encoding", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["diagnostics"][0]["code"] == "encoding-repaired"
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == "x = 'café'\n"
