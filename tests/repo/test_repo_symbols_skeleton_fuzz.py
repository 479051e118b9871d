"""Property: on any valid Python file the names-only parse (on a skeleton) finds the same
definitions as the whole file's walk. Files are drawn as nested def, class and if blocks
whose lines mix what the skeleton must read right: strings at column 0 followed by code,
multi-line strings in one-line defs, backslash continuations at any indentation, tabs,
form feeds, comments holding quotes, and Windows line breaks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.repo.symbols import extract_symbols

pytestmark = pytest.mark.slow

_STRINGS = (
    '"s"',
    "'#'",
    '"""a\nb"""',
    "'''\n#x\n'''",
    'rb"#"',
    'f"{a!r:>{w}}"',
    "'a\\\nb'",
    '"""\ndef g():\n    pass\n"""',
)
_COMMENTS = ("# c", '# """', "# '", "# def x():")
_INDENTS = ("    ", "  ", "\t", " " * 9, "\t ")
_HEADERS = (
    "def f{}(a=(1, (2)), *b) -> int:",
    "async def g{}(self):",
    "def h{}(\n    a,\n  b=')',\n):",
)


@st.composite
def _line(draw: st.DrawFn, indent: str) -> str:
    """One simple statement (or comment) at ``indent``."""
    text = st.sampled_from(_STRINGS)
    name = draw(st.sampled_from("XYZ")) + str(draw(st.integers(0, 3)))
    return draw(
        st.sampled_from(
            (
                f"{indent}{name} = {draw(text)}",
                f"{indent}{draw(text)}; {name} = 1",
                f"{indent}{draw(text)} + \\\n{draw(text)}",
                f"{indent}{name} = \\\n{draw(st.sampled_from(('', '  ', indent)))}{name} = 2",
                f"{indent}{name} = (\n{draw(st.sampled_from(('', indent + '    ')))}1)",
                draw(st.sampled_from(("", "  ", indent))) + draw(st.sampled_from(_COMMENTS)),
                f"\f{indent}{name} = 1",
                "",
                f"{indent}pass",
            )
        )
    )


@st.composite
def _block(draw: st.DrawFn, indent: str, depth: int) -> str:
    """A few statements at ``indent``, some of them blocks nested ``depth`` more deep."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(("def", "one-line def", "class", "if", "line", "line")))
        if depth == 0 or kind == "line":
            lines.append(draw(_line(indent)))
            continue
        inner = indent + draw(st.sampled_from(_INDENTS))
        if kind == "one-line def":
            header = draw(st.sampled_from(_HEADERS)).format(draw(st.integers(0, 3)))
            tail = draw(st.sampled_from(('"""d\nx"""', '"d"; pass', "...", '"""d\n"""')))
            lines.append(f"{indent}{header} {tail}")
            continue
        if kind == "def":
            header = draw(st.sampled_from(_HEADERS)).format(draw(st.integers(0, 3)))
            comment = draw(st.sampled_from(("", "  # c", '  # """')))
            lines.append(f"{indent}{header}{comment}")
        else:
            lines.append(f"{indent}{'class C:' if kind == 'class' else 'if x:'}")
        lines.append(draw(_block(inner, depth - 1)))
    return "\n".join(lines)


@st.composite
def _files(draw: st.DrawFn) -> bytes:
    text = draw(_block("", 3)) + draw(st.sampled_from(("\n", "")))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text.encode()


def _names(source: bytes, *, details: bool) -> list[tuple[object, ...]]:
    found = extract_symbols("drawn.py", source, details=details)
    return [(s.kind, s.name, s.parent, s.depth, s.line) for s in found.symbols]


@settings(max_examples=300, deadline=None)
@given(_files())
def test_names_only_on_drawn_files_are_the_whole_files(source: bytes) -> None:
    whole = extract_symbols("drawn.py", source)
    try:
        compile(source, "drawn.py", "exec")
    except SyntaxError:
        return  # not Python: what tree-sitter makes of it is no promise
    if whole.syntax_errors:
        return
    assert _names(source, details=False) == _names(source, details=True)
