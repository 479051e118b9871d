"""A Python file's skeleton, for a parse that wants only the names it defines.

A map reads every file for the names defined at module level and in classes (see
:func:`agentprompt.repo.symbols.extract_symbols` with ``details=False``). None of those is
defined inside a function's body, and bodies are most of a Python file's text, so the
names-only parse reads the file with every function body blanked out: about a quarter of
tree-sitter's work.

A body is found on the file's text with its strings and comments masked (each of their
bytes a mark, line breaks kept; a string's opening quote has a mark of its own and a
comment keeps its ``#``), so a quote, a ``#`` or a ``def`` inside a string or a comment is
never read as code. The body of a ``def`` whose header ends its line (but for a comment) is
every following line that is indented deeper than the ``def``, blank, begins inside a
string (a line of a multi-line string, whatever its indentation) or with a comment (which
Python lets stand at any indentation), each with the lines a backslash joins to it. Each
body becomes as many empty lines (an empty block to tree-sitter), so every line keeps its
number. Where the guess is wrong (a bracket
continuation outdented inside a body, say), the skeleton does not parse cleanly and the
caller parses the file whole instead; a body whose first line after it is indented
otherwise than its ``def`` (tabs for spaces, a form feed) is kept whole, as that line may
still be in the body.
"""

from __future__ import annotations

import re
from itertools import chain, zip_longest

__all__ = ["masked_text", "skeleton"]

_MASK = bytes(b if b in (0x00, 0x0A, 0x23) else 0x01 for b in range(256))
"""Every byte the mark 0x01, except line breaks, ``#`` (so a comment begins with one) and
NUL (the separator :func:`masked_text` uses)."""


def _nested(inner: bytes) -> bytes:
    """A bracketed group ``( ... )`` that may hold groups matched by ``inner``."""
    return rb"\((?:[^()]++|" + inner + rb")*+\)"


_PARAMETERS = _nested(_nested(rb"\([^()]*+\)"))
"""A parameter list, with brackets nested three deep (defaults such as ``f(g(x))``)."""

_LINE_END = rb"[^\n]*+(?:(?:(?<=\\)|(?<=\\\r))\n[^\n]*+)*+(?:\n|\Z)"
"""The rest of a logical line: a line ending in a backslash (code's, as the mask hides
those of strings and comments) goes on with the next line, whatever its indentation. The
backslash is looked for behind the line's end, so each line is read once."""

_BODY = re.compile(
    rb"^([ \t]*)(?:async[ \t]+)?def[ \t]+\w+[ \t]*(?:\[[^\]\n]*+\])?[ \t]*"
    + _PARAMETERS
    + rb"[^:\n]*+:[ \t]*+(?:#[^\n]*+)?\r?\n"
    + rb"((?:\1[ \t]+"
    + _LINE_END
    + rb"|[ \t\f]*+\r?\n|[ \t]*+[\x01#]"
    + _LINE_END
    + rb")*+)",
    re.MULTILINE,
)
"""A ``def`` whose header ends its line, but for a comment (group 1: its indentation), and
its body (group 2): the lines after it that are indented deeper (the commonest, so tried
first), blank (form feeds too), or begin inside a string or with a comment, each with the
lines a backslash joins to it. A line that begins with a string's opening quote is judged by its
indentation: it may be a statement after the body (``"doc"; X = 1``). A header ending in a
string is no header here: a multi-line string opened there would lose its closing quote
to the blanked body."""


def masked_text(parts: list[bytes], step: int) -> bytes:
    """The file whose ``re.split`` by a pattern of strings and comments (the whole match as
    its first group, ``step`` parts per match) gave ``parts``, with the strings and comments
    masked. The file must hold no NUL byte: the mask separates the parts with one."""
    code = parts[::step]
    prose = parts[1::step]
    if not prose:
        return parts[0]  # no string, no comment
    # Each string's first byte (its quote) becomes 0x02, so a line that opens a string is
    # told from one that begins inside a string.
    joined = (b"\0" + b"\0".join(prose)).translate(_MASK).replace(b"\0\x01", b"\0\x02")
    masked = joined[1:].split(b"\0")
    return b"".join(chain.from_iterable(zip_longest(code, masked, fillvalue=b"")))


_INDENTS = (b" ", b"\t", b"\f")


def _outside(masked: bytes, at: int, indent: bytes) -> bool:
    """Whether the line at ``at``, where a body was found to end, is surely no deeper than
    its ``def`` (indented by ``indent``): its indentation is a beginning of the def's. A
    line indented otherwise (tabs where the def has spaces, a form feed) may still be in
    the body to Python and to tree-sitter; a skeleton cut there could make it the first
    line of the def's block, and a later line of the body a dedent out of the def."""
    after = masked[at + len(indent) : at + len(indent) + 1]
    if masked.startswith(indent, at) and after not in _INDENTS:
        return True  # the commonest end: a line at the def's own indentation
    head = masked[at : at + len(indent) + 1]
    width = len(head) - len(head.lstrip(b" \t\f"))
    return width <= len(indent) and indent.startswith(head[:width])


def skeleton(source: bytes, masked: bytes) -> bytes:
    """``source`` with the body of every function blanked (see the module's docstring),
    its bodies found in ``masked`` (the same text with strings and comments masked). A
    file with a carriage return that is no ``\\r\\n`` in its code is returned unchanged:
    tree-sitter may end a line there, the regular expression does not."""
    if b"\r" in masked and masked.count(b"\r") != masked.count(b"\r\n"):
        return source
    pieces: list[bytes] = []
    at = 0
    for found in _BODY.finditer(masked):
        start, end = found.span(2)
        if start == end:
            continue
        if not _outside(masked, end, found.group(1)):
            continue
        pieces.append(source[at:start])
        pieces.append(b"\n" * masked.count(b"\n", start, end))
        at = end
    if not pieces:
        return source
    pieces.append(source[at:])
    return b"".join(pieces)
