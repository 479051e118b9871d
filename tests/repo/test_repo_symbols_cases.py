"""Symbol extraction's tricky cases, one source snippet and its expected symbols each."""

from __future__ import annotations

from agentprompt.repo.symbols import FileSymbols, extract_symbols


def _extract(path: str, source: str) -> FileSymbols:
    return extract_symbols(path, source.encode())


def _described(found: FileSymbols) -> list[str]:
    described = []
    for s in found.symbols:
        text = f"{s.kind} {s.qualname}"
        if s.signature:
            text += f"({','.join(s.params)})" + (f"->{s.returns}" if s.returns else "")
        described.append(text)
    return described


def test_references_skip_comments_and_string_text() -> None:
    found = _extract(
        "a.py",
        "# helper_one in a comment\n"
        "def f():\n"
        '    """mentions helper_two"""\n'
        '    x = f"{helper_three} and helper_four"\n'
        "    helper_five()\n",
    )
    assert "helper_one" not in found.references
    assert "helper_two" not in found.references
    assert "helper_four" not in found.references
    assert {"helper_three", "helper_five"} <= set(found.references)


def test_references_keep_template_substitutions_in_javascript() -> None:
    found = _extract("a.js", "// helperOne\nconst a = `x ${helperTwo} helperThree`;\n")
    assert "helperTwo" in found.references
    assert "helperOne" not in found.references
    assert "helperThree" not in found.references
