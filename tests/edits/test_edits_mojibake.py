"""A reply whose UTF-8 was read as Windows-1252 on the way is refused (or repaired on
request), never written garbled."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.edits import EditError
from agentprompt.edits._mojibake import garbled_lines
from agentprompt.edits.apply import ApplyOptions, apply_reply


def _as_cp1252(text: str) -> str:
    """``text``'s UTF-8 bytes read as Windows-1252, as a browser does (the five bytes
    Windows-1252 leaves undefined read as Latin-1)."""
    out = []
    for byte in text.encode("utf-8"):
        try:
            out.append(bytes([byte]).decode("cp1252"))
        except UnicodeDecodeError:
            out.append(chr(byte))
    return "".join(out)


REPLY = """greet.py
<<<<<<< SEARCH
def greet():
    return "hello"
=======
def greet():
    # It’s the café’s greeting: 日本語
    return "héllo"
>>>>>>> REPLACE
"""
OLD = 'def greet():\n    return "hello"\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "greet.py").write_text(OLD, encoding="utf-8")
    return tmp_path


def test_garbled_lines_are_found_and_repaired() -> None:
    found = garbled_lines(_as_cp1252(REPLY))
    assert [g.line for g in found] == [7, 8]
    assert found[0].repaired == "    # It’s the café’s greeting: 日本語"


def test_plain_non_ascii_text_is_not_garbled() -> None:
    assert garbled_lines(REPLY + "naïve résumé — “quotes” … © £5 €3 µs ±2 Привет │ ├──\n") == ()


def test_a_garbled_reply_is_refused_and_nothing_written(repo: Path) -> None:
    with pytest.raises(EditError) as raised:
        apply_reply(repo, _as_cp1252(REPLY))
    assert "line 7" in str(raised.value) and "apply it with fix_encoding" in str(raised.value)
    assert (repo / "greet.py").read_text(encoding="utf-8") == OLD


def test_fix_encoding_repairs_the_reply_before_applying(repo: Path) -> None:
    report = apply_reply(repo, _as_cp1252(REPLY), options=ApplyOptions(fix_encoding=True))
    assert report.ok
    assert "日本語" in (repo / "greet.py").read_text(encoding="utf-8")
    assert report.diagnostics[0].code == "encoding-repaired"


def test_garbled_text_the_file_already_holds_is_not_refused(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text('BAD = "cafÃ©"\nx = 1\n', encoding="utf-8")
    reply = (
        't.py\n<<<<<<< SEARCH\nBAD = "cafÃ©"\nx = 1\n=======\nBAD = "cafÃ©"\nx = 2\n'
        ">>>>>>> REPLACE\n"
    )
    assert apply_reply(tmp_path, reply).ok
