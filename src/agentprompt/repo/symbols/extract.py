"""What one source file defines, imports and refers to, read with tree-sitter.

:func:`extract_symbols` turns a file's bytes into a :class:`FileSymbols`: its definitions
(classes, functions, methods, variables, properties, with signatures, line ranges and
parents), its imports (local or external, and what they bring in) and the identifiers it
uses. Files with syntax errors still yield what the parser could read; files in a language
without a grammar yield an entry with no symbols.

Definitions come from a walk of the syntax tree that visits only the places definitions
live (module level, class bodies, namespaces); identifiers and calls are read lexically
from the source text, which is what keeps extraction fast on large repositories. Comments
and the text of string literals are cut out first, so a name mentioned in a docstring or a
log message is no reference: for Python, JavaScript and TypeScript by a lexer (regular
expressions run in C, three times faster than visiting every node of the tree), for the
other languages by a tree-sitter query.
"""

from __future__ import annotations

import builtins
import re
from functools import cache
from operator import attrgetter

from tree_sitter import Node, Query, QueryCursor, Tree

from agentprompt.repo.symbols._languages import language_for_path, parser_for, tree_sitter_language
from agentprompt.repo.symbols._skeletons import masked_text, skeleton
from agentprompt.repo.symbols._walk import walk_tree
from agentprompt.repo.symbols.entries import RESERVED_WORDS, FileSymbols, SymbolEntry

__all__ = ["extract_symbols"]


_CPP_MARKERS = re.compile(
    rb"^\s*(?:class|namespace|template)\b|^\s*(?:public|private|protected)\s*:|\w::\w",
    re.MULTILINE,
)
"""What makes a ``.h`` header C++ rather than C."""

_IDENTIFIER = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]{2,}")
"""An identifier of three characters or more (ASCII letters only, so it is read from the
bytes without decoding them). Shorter ones (``i``, ``x``, ``db``) are mostly locals, and
reading every one of them from every file costs a third more: a short name is a reference
where a file imports it by name or defines it (see :func:`_references`)."""
_ANY_IDENTIFIER = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
"""An identifier of any length, as read from import statements."""


_STOP_WORDS = RESERVED_WORDS | frozenset(
    str.split(
        "new delete this self cls from default undefined string number boolean any unknown "
        "never object "
        "public private protected static final abstract interface extends implements package "
        "struct enum impl pub mut use crate func chan nil end begin unless elsif then namespace "
        "using include define char double long short unsigned signed sizeof auto template "
        "typename virtual override readonly declare keyof infer goto extern inline volatile "
        "register int str float bool print len require module exports console "
        "in is or as do fn go"
    )
)

_STOP_BYTES = frozenset(word.encode("ascii") for word in _STOP_WORDS)


_NOT_CODE = (
    "comment",
    "line_comment",
    "block_comment",
    "string_content",
    "string_fragment",
    "multiline_string_fragment",
    "interpreted_string_literal",
    "raw_string_literal",
    "char_literal",
    "heredoc_body",
    "nowdoc_body",
    "jsx_text",
)
"""Node types holding prose rather than code: comments, the literal text of strings
(their interpolated expressions are separate nodes, so they still count) and of JSX
elements."""


_STRING_BODIES = (
    (b'"""', rb'[^"\\]*(?:(?:\\(?:\r\n|.)|"(?!""))[^"\\]*)*(?:"""|\Z)'),
    (b"'''", rb"[^'\\]*(?:(?:\\(?:\r\n|.)|'(?!''))[^'\\]*)*(?:'''|\Z)"),
    (b'"', rb'[^"\\\n]*(?:\\(?:\r\n|.)[^"\\\n]*)*(?:"|(?=\n)|\Z)'),
    (b"'", rb"[^'\\\n]*(?:\\(?:\r\n|.)[^'\\\n]*)*(?:'|(?=\n)|\Z)"),
)
"""Python's string literals by opening quote: what follows the quote up to the closing one.
A triple-quoted string may span lines; an unterminated string of either kind runs to the
end of the file or, for a one-line string, of its line. A backslash escapes a whole
``\\r\\n`` (a line continuation inside the string, as Python reads it). Taking that text
rather than failing keeps the lexer linear: a line of unmatched quotes is read once, not
once per quote."""


def _after_f_prefix(quote: bytes) -> bytes:
    """A check, made just after ``quote``, that it opens an f-string (``f``, ``fr``, ``rf``
    in either case, not the end of a longer word). Matching from the quote rather than from
    the prefix lets the search skip from quote to quote, not from letter to letter."""
    checks = (
        rb"(?<=[^A-Za-z0-9_]" + prefix + quote + b")"
        for prefix in (rb"[fF]", rb"[fF][rR]", rb"[rR][fF]")
    )
    return b"(?:" + b"|".join(checks) + b")"


_PYTHON_PROSE = re.compile(
    b"("
    + b"|".join(
        (
            rb"#[^\n]*",
            # An f-string's text is captured: its {...} fields are code.
            *(
                quote + _after_f_prefix(quote) + b"(" + body + b")"
                for quote, body in _STRING_BODIES
            ),
            *(quote + body for quote, body in _STRING_BODIES),
        )
    )
    + b")",
    re.DOTALL,
)
"""Python's comments and string literals, read left to right: whichever starts first takes
the text up to its end, so a ``#`` inside a string or a quote inside a comment is theirs.
A string's prefix letters (``rb``, ``f``) stay behind as code; they are too short to be
identifiers. The whole match is the first group (what a skeleton masks); an f-string's text
is a further group, whose replacement fields are code (tree-sitter's ``interpolation``
nodes)."""
_FIELD = re.compile(rb"(?<!\{)\{(?!\{)([^{}]*)\}")
"""A replacement field of an f-string (``{{`` is a literal brace)."""
_SCRIPT_PROSE = re.compile(
    b"|".join(
        (
            rb"//[^\n]*",
            rb"/\*.*?(?:\*/|\Z)",
            *(quote + body for quote, body in _STRING_BODIES[2:]),
            rb"`([^`\\]*(?:\\.[^`\\]*)*)(?:`|\Z)",  # its text a group: ${...} is code
            # A regular expression literal where an expression starts (after an operator or
            # an opening bracket): its quotes and ``/*`` must not open strings or comments.
            # At most 1,000 parts: an unterminated one costs a bounded look, not a line's.
            rb"(?<=[(,=:\[!&|?{};])[ \t]*/(?![*/])"
            rb"(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.){0,1000}\]){1,1000}/",
        )
    ),
    re.DOTALL,
)
"""JavaScript's and TypeScript's comments, string and template literals and regular
expression literals, read left to right like :data:`_PYTHON_PROSE`."""
_SUBSTITUTION = re.compile(rb"\$\{([^{}]*)\}")
"""A template literal's ``${...}``: code (tree-sitter's ``template_substitution``)."""


_Lexed = tuple[bytes, list[bytes], int]
"""A lexed file: its code (comments and string text cut out, the code of f-string fields
and template substitutions added), the parts its ``re.split`` gave and the parts per match."""


def _lexed_code(language: str, source: bytes) -> _Lexed | None:
    """``source`` with comments and string text cut out by a lexer (each cut replaced by a
    space, the code inside f-string fields and template substitutions kept), with the parts
    that were cut from (see :data:`_Lexed`); None when ``language`` has no lexer here."""
    if language == "python":
        prose, fields, first = _PYTHON_PROSE, _FIELD, 2  # group 1 is the whole match
    elif language in ("javascript", "typescript"):
        if language == "javascript" and (b"</" in source or b"/>" in source):
            # JSX, perhaps (every element ends in one of these): its text is no string, so
            # the apostrophe of "Don't" would cut the code after it; the tree reads it.
            return None
        prose, fields, first = _SCRIPT_PROSE, _SUBSTITUTION, 1
    else:
        return None
    # One pass: the code between the literals and comments, and the texts of the f-strings
    # or template literals (their groups; None for any other match).
    parts = prose.split(source)
    step = prose.groups + 1
    code = b" ".join(parts[::step])
    inside = [
        field
        for group in range(first, step)
        for text in parts[group::step]
        if text and b"{" in text
        for field in fields.findall(text)
    ]
    if inside:
        code = b" ".join((code, *(prose.sub(b" ", field) for field in inside)))
    return code, parts, step


_BYTE_RANGE = attrgetter("byte_range")


@cache
def _not_code_query(language: str) -> Query:
    """A query capturing every comment and string text node of ``language``."""
    grammar = tree_sitter_language(language)
    kinds = [k for k in _NOT_CODE if grammar.id_for_node_kind(k, True)]
    return Query(grammar, " ".join(f"({k}) @x" for k in kinds))


def _prose_spans(language: str, root: Node) -> list[tuple[int, int]]:
    """The byte ranges of every comment and string text in the tree, in order (they may
    nest: a comment inside a string's interpolation)."""
    found = QueryCursor(_not_code_query(language)).captures(root).get("x", [])
    return sorted(map(_BYTE_RANGE, found))


def _code_bytes(source: bytes, spans: list[tuple[int, int]], *, blank: bool = False) -> bytes:
    """``source`` with the ``spans`` (from :func:`_prose_spans`) cut out, each cut replaced
    by a space, or with ``blank`` by as many spaces as it held (so every byte of code
    keeps its offset)."""
    if not spans:
        return source
    parts: list[bytes] = []
    at = 0
    for start, end in spans:
        if start > at:
            parts.append(source[at:start])
        if end > at:
            if blank:
                parts.append(b" " * (end - max(start, at)))
            at = end
    parts.append(source[at:])
    return b"".join(parts) if blank else b" ".join(parts)


_PYTHON_BUILTINS = (
    frozenset(
        name.encode("ascii")
        for name in dir(builtins)
        if not (name.startswith("__") and name.endswith("__"))
    )
    - _STOP_BYTES
)
"""Python's builtin names (those not dropped from every file's references anyway); the
module attributes (``__name__``, ``__file__``) stay references: a run-as-a-program guard is
found by its ``__name__``."""

_SHORT = 3
"""Names shorter than this (``g``, ``T``, ``pi``) are not read from the code (see
:data:`_IDENTIFIER`)."""

_IMPORT_LIST = rb"((?:\([^)]*\)|\{[^}]{0,4000}\}|[^\n;\\({]|\\\r?\n)*)"
"""The text after ``import`` to the statement's end: a bracketed or braced list (of one
statement) read across lines, with the lines a backslash joins to it."""
_IMPORTED = {
    # ``import re`` binds a module, no name another file defines.
    "python": re.compile(rb"from(?<![\w.]from)[ \t]+[\w.]+[ \t]+import[ \t]*" + _IMPORT_LIST),
    "javascript": re.compile(rb"import(?<![\w.$]import)[ \t]*" + _IMPORT_LIST),
}
"""What the import statements of Python and of JavaScript or TypeScript bring in. Each
pattern begins with its keyword (the word before it looked for behind), so the search
jumps from one occurrence of the keyword to the next."""
_IMPORTED["typescript"] = _IMPORTED["tsx"] = _IMPORTED["javascript"]


def _references(language: str, code: bytes, symbols: tuple[SymbolEntry, ...]) -> tuple[str, ...]:
    """The distinct identifiers in ``code``, sorted, keywords and the commonest builtins
    left out. In Python, JavaScript and TypeScript a short name is one too where the file
    imports it by name or defines it (flask's ``g``). In Python a builtin's name is one
    only where the file defines or imports it, or imports ``*`` (which may bring any name
    in): ``bytes`` used in a file is the builtin, not the ``bytes = bytes`` another module
    defines."""
    found = set(_IDENTIFIER.findall(code))
    found.difference_update(_STOP_BYTES)
    pattern = _IMPORTED.get(language)
    if pattern is not None:
        text = b" ".join(pattern.findall(code)) if b"import" in code else b""
        imported = set(_ANY_IDENTIFIER.findall(text))
        # One join and encode for all names (a non-ASCII one then matches no identifier).
        defined = set(" ".join([s.name for s in symbols]).encode("utf-8").split())
        bound = imported | defined
        found.update(name for name in bound if len(name) < _SHORT)
        if language == "python" and b"*" not in text:
            found -= (found & _PYTHON_BUILTINS) - bound
        found.difference_update(_STOP_BYTES)
    if not found:
        return ()
    # ASCII bytes sort as their text does: one decode and split instead of one per word.
    return tuple(b" ".join(sorted(found)).decode("ascii").split(" "))


def extract_symbols(path: str, source: bytes, *, details: bool = True) -> FileSymbols:
    """Definitions, imports and references of the file at ``path`` with content ``source``.

    With ``details=False`` only what ranking reads is extracted: the definitions' names and
    places (the same ones, in the same order) and the references; see
    :attr:`FileSymbols.detailed`. A Python file is then parsed without its function bodies
    (:mod:`agentprompt.repo.symbols._skeletons`), so a function's ``end_line`` is its
    header's last line and ``syntax_errors`` says nothing of what is inside a body.
    """

    language = language_for_path(path)
    if language == "c" and path.endswith(".h") and _CPP_MARKERS.search(source):
        language = "cpp"
    lines = source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)
    if b"\x00" in source[:8192]:
        return FileSymbols(path=path, language=language, lines=lines, problem="binary content")
    if language is None:
        return FileSymbols(path=path, language=None, lines=lines)
    try:
        if not source.isascii():  # ASCII is UTF-8: most code needs no decoding to check
            source.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileSymbols(
            path=path,
            language=language,
            lines=lines,
            problem=f"not UTF-8 text (byte {exc.start} cannot be decoded)",
        )
    lexed = _lexed_code(language, source)
    tree, parsed = _parsed(
        language, source, lexed if language == "python" and not details else None
    )
    spans = None if lexed is not None else _prose_spans(language, tree.root_node)
    # Calls are read where the code is, so a docstring's ``init_db()`` is none; the tree's
    # strings (not the lexer's) keep an f-string's fields as code, each byte in its place.
    blanked = None
    if details:
        if spans is None:
            spans = _prose_spans(language, tree.root_node)
        blanked = _code_bytes(source, spans, blank=True)
    symbols, imports = walk_tree(
        language, tree.root_node, parsed, names_only=not details, code=blanked
    )
    code = lexed[0] if lexed is not None else _code_bytes(source, spans or [])
    return FileSymbols(
        path=path,
        language=language,
        symbols=symbols,
        imports=imports,
        references=_references(language, code, symbols),
        lines=lines,
        syntax_errors=tree.root_node.has_error,
        detailed=details,
    )


def _parsed(language: str, source: bytes, lexed: _Lexed | None) -> tuple[Tree, bytes]:
    """The syntax tree of ``source`` and the bytes it was made from: with ``lexed`` (a
    Python file read for its names only), its skeleton's when that parses cleanly (see
    :mod:`agentprompt.repo.symbols._skeletons`), else the whole file's."""
    parser = parser_for(language)
    if lexed is not None and b"\0" not in source:  # the mask separates its parts with NUL
        bare = skeleton(source, masked_text(lexed[1], lexed[2]))
        tree = parser.parse(bare)
        if bare is source or not tree.root_node.has_error:
            return tree, bare
    return parser.parse(source), source
