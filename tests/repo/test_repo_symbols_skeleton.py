"""A Python file read for its names only is parsed as a skeleton (function bodies blanked):
the names, kinds, parents and lines found are the whole file's, on tricky layouts and on
this project's own sources; a skeleton that does not parse cleanly is not used."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.repo.symbols import FileSymbols, extract_symbols, masked_text, skeleton
from agentprompt.repo.symbols import extract as symbols_module

SOURCES = Path(__file__).parents[2] / "src" / "agentprompt"
FIXTURES = Path(__file__).parent / "fixtures"


def _page_tests(name: str, attribute: str, suffix: str) -> str:
    """A test class whose first method's multi-line string begins its lines at column 0
    and whose closing line goes on with code."""
    return (
        f"class {name}(Base):\n"
        f"    {attribute}\n"
        "\n"
        f"    def test_index{suffix}(self):\n"
        '        page = self.get("/index")\n'
        '        expected = """<?xml version="1.0"?>\n'
        "<index>\n"
        "<item>%s/one</item>\n"
        "</index>\n"
        '""" % (\n'
        "            self.base,\n"
        "        )\n"
        "        self.check(page, expected)\n"
        "\n"
        f"    def test_section{suffix}(self):\n"
        '        "A section renders"\n'
        "        expected = (\n"
        "            '<?xml version=\"1.0\"?>\\n'\n"
        '            "<items>%s</items>"\n'
        "        ) % (self.base,)\n"
        "        self.check(page, expected)\n"
    )


TRICKY: dict[str, str] = {
    # Two methods whose multi-line strings begin their lines at column 0 and whose closing
    # lines go on with code: read by indentation alone, each body would end there, and the
    # quotes left behind would pair with each other, hiding every definition between them
    # in a string that parses cleanly.
    "column_zero_strings.py": (
        _page_tests("PageTests", 'scheme = "https"', "")
        + "\n\n"
        + _page_tests("DetectionTests", 'extra = {"scheme": "https"}', "_detected")
    ),
    "comments.py": (
        "def f():\n"
        "    x = 1\n"
        "# a comment at column 0, inside the body\n"
        "    return x\n"
        "class K:\n"
        "    def g(self):\n"
        "        y = 2\n"
        "    # at the def's own indentation, still inside\n"
        "        return y  # def fake(): pass\n"
        "    def h(self): return 1\n"
    ),
    "headers.py": (
        "import functools\n"
        "@functools.cache\n"
        "async def fetch(\n"
        "    url: str,\n"
        '    sep: str = ")",\n'
        "    hook=lambda r: (r, dict(a=(1, 2))),\n"
        ") -> dict[str, int]:  # trailing comment\n"
        "    def inner():\n"
        "        class Hidden: pass\n"
        "    return {}\n"
        "def typed[T](x: T) -> T:\n"
        "    return x\n"
        "def one_line(): return [\n"
        "    1]\n"
        "x = 1\n"
    ),
    "tabs.py": "class T:\n\tdef a(self):\n\t\treturn 1\n\tdef b(self):\n\t\treturn 2\n",
    "nested_strings.py": (
        "def f():\n"
        '    s = \'"""\'  # a quote of quotes\n'
        '    t = "it\'s"\n'
        "    u = '''\n"
        "def g():\n"
        "'''\n"
        "    return s\n"
        "def h(): pass\n"
        'X = """\n'
        "def in_a_string():\n"
        '    pass\n"""\n'
        "def last():\n"
        "    return X\n"
    ),
    # An outdented bracket continuation ends the body too early: the skeleton does not parse
    # and the whole file is parsed instead.
    "outdented.py": "def f():\n    x = [\n1, 2]\n    return x\ndef g():\n    pass\n",
    "no_trailing_newline.py": "def f():\n    return 1\ndef g():\n    return 2",
    # A line that opens a string at the def's indentation is a statement after the body,
    # whatever follows the string on its line.
    "string_statements.py": (
        "def f():\n"
        "    pass\n"
        '""; X = 1\n'
        "class A:\n"
        "    def g(self):\n"
        "        pass\n"
        '    "doc"; y = 1\n'
    ),
    # A one-line def whose docstring spans lines: blanking the lines after the header would
    # take the string's closing quotes, and the quotes in the comment below would close it.
    "one_line_multiline_docstring.py": 'def f(): """doc\nmore"""\nX = 1\nY = 1  # """\n',
    # A backslash joins the next line to the body, even at column 0.
    "backslash_continuation.py": (
        "def f():\n"
        "    x = \\\n"
        "Y = 3\n"
        "class K:\n"
        "    def g(self):\n"
        "        return 1 + \\\n"
        "  2\n"
        "    Z = 1\n"
    ),
    # Indented otherwise than its def (tabs for spaces, a form feed), a line deeper in the
    # body ends what the regular expression reads as the body; cut there, the skeleton
    # would begin the def's block at that line, and the next line of the body (w, z) would
    # dedent out of the def into the class.
    "mixed_tabs_and_spaces.py": (
        "class A:\n\tdef f(self):\n\t    if x:\n" + " " * 17 + "y = 1\n\t    w = 3\n\tB = 1\n"
    ),
    "form_feed_indent.py": (
        "class A:\n    def f(self):\n        if x:\n\f            y = 2\n        z = 3\n    B = 1\n"
    ),
}
CRLF = {f"crlf_{name}": text.replace("\n", "\r\n") for name, text in TRICKY.items()}
"""Every tricky layout again with Windows line breaks."""


def _names(found: FileSymbols) -> list[tuple[object, ...]]:
    return [(s.kind, s.name, s.parent, s.depth, s.line) for s in found.symbols]


def _same_names(name: str, source: bytes) -> None:
    full = extract_symbols(name, source)
    light = extract_symbols(name, source, details=False)
    assert _names(light) == _names(full)
    assert light.references == full.references


@pytest.mark.parametrize("name", sorted(TRICKY | CRLF))
def test_names_only_on_a_skeleton_are_the_whole_files(name: str) -> None:
    _same_names(name, (TRICKY | CRLF)[name].encode())


def test_strings_at_column_zero_keep_the_definitions_after_them() -> None:
    source = TRICKY["column_zero_strings.py"].encode()
    found = extract_symbols("column_zero_strings.py", source, details=False)
    assert [s.qualname for s in found.symbols] == [
        "PageTests",
        "PageTests.scheme",
        "PageTests.test_index",
        "PageTests.test_section",
        "DetectionTests",
        "DetectionTests.extra",
        "DetectionTests.test_index_detected",
        "DetectionTests.test_section_detected",
    ]
    assert _skeleton_of(source) != source  # from a skeleton, not the whole file


@pytest.mark.parametrize(
    "path", sorted(SOURCES.rglob("*.py")), ids=lambda p: p.relative_to(SOURCES).as_posix()
)
def test_names_only_on_this_projects_sources_are_the_whole_files(path: Path) -> None:
    _same_names(path.name, path.read_bytes())


@pytest.mark.parametrize("name", ["sample.py", "broken.py"])
def test_names_only_on_the_python_fixtures_are_the_whole_files(name: str) -> None:
    _same_names(name, (FIXTURES / name).read_bytes())


def _skeleton_of(source: bytes) -> bytes:
    lexed = symbols_module._lexed_code("python", source)
    assert lexed is not None
    masked = masked_text(lexed[1], lexed[2])
    assert len(masked) == len(source)
    return skeleton(source, masked)


def test_bodies_become_empty_lines_and_every_line_keeps_its_number() -> None:
    source = TRICKY["comments.py"].encode()
    bare = _skeleton_of(source)
    assert bare.count(b"\n") == source.count(b"\n")
    assert bare.splitlines() == [
        b"def f():",
        b"",
        b"",
        b"",
        b"class K:",
        b"    def g(self):",
        b"",
        b"",
        b"",
        b"    def h(self): return 1",
    ]


def test_a_def_inside_a_string_or_a_comment_is_not_read_as_code() -> None:
    source = TRICKY["nested_strings.py"].encode()
    bare = _skeleton_of(source)
    # The module-level string keeps its text; f's body, strings and all, is blank.
    assert b'X = """\ndef in_a_string():\n    pass\n"""\n' in bare
    assert bare.startswith(b"def f():\n\n\n\n\n\n\ndef h(): pass\n")


def test_a_skeleton_that_does_not_parse_cleanly_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed: list[bytes] = []
    real = symbols_module._parsed

    def watching(language: str, source: bytes, lexed: object) -> object:
        tree, used = real(language, source, lexed)  # type: ignore[arg-type]
        parsed.append(used)
        return tree, used

    monkeypatch.setattr(symbols_module, "_parsed", watching)
    source = TRICKY["outdented.py"].encode()
    found = extract_symbols("outdented.py", source, details=False)
    assert parsed == [source]  # the whole file, not its skeleton
    assert [s.name for s in found.symbols] == ["f", "g"]
    assert not found.syntax_errors
    parsed.clear()
    extract_symbols("headers.py", TRICKY["headers.py"].encode(), details=False)
    assert parsed and parsed[0] != TRICKY["headers.py"].encode()  # a skeleton was used


def test_a_file_without_strings_or_comments_has_a_skeleton_too() -> None:
    source = b"def f():\n    return 1\n"
    assert _skeleton_of(source) == b"def f():\n\n"
    assert _skeleton_of(b"") == b""


def test_windows_line_breaks_still_blank_bodies() -> None:
    source = TRICKY["comments.py"].replace("\n", "\r\n").encode()
    bare = _skeleton_of(source)
    assert bare.count(b"\n") == source.count(b"\n")
    assert b"return" not in bare.replace(b"def h(self): return 1", b"")


def test_a_lone_carriage_return_in_code_leaves_the_file_whole() -> None:
    # tree-sitter may end a line at a lone \r; the body's lines are read by \n alone.
    source = b"def f():\n    x = 1\r    y = 2\ndef g():\n    pass\n"
    assert _skeleton_of(source) is source
    # In a string or a comment it is no line break to either.
    assert _skeleton_of(b"def f():\n    x = '\r'  # \r\n") == b"def f():\n\n"


def test_the_mask_tells_a_string_opened_from_a_string_continued() -> None:
    lexed = symbols_module._lexed_code("python", b'x = """a\nb""" # c\n')
    assert lexed is not None
    assert masked_text(lexed[1], lexed[2]) == b"x = \x02\x01\x01\x01\n\x01\x01\x01\x01 #\x01\x01\n"


def test_a_backslash_before_windows_line_breaks_continues_a_string() -> None:
    # Python reads '\' + \<CR><LF>b' as one string; a lexer that escaped only the \r ended
    # it at the line break, so b'#' opened a string at column 0 and the body ended there.
    source = b"def k():\r\n    if x:\r\n        '\\' + \\\r\nb'#'\r\n    z = 1\r\n"
    compile(source, "continued.py", "exec")
    _same_names("continued.py", source)
    found = extract_symbols("continued.py", b"x = 'abc\\\r\nname_inside'\r\n")
    assert found.references == ("x",)  # the name it defines, none from inside the string


def test_a_form_feed_line_between_functions_is_blank() -> None:
    source = b"def f():\n    return 1\n\f\ndef g():\n    return 2\n"
    assert _skeleton_of(source) == b"def f():\n\n\ndef g():\n\n"
    # A deeper line indented otherwise than its def leaves that def's body whole.
    source = TRICKY["mixed_tabs_and_spaces.py"].encode()
    assert _skeleton_of(source) == source
