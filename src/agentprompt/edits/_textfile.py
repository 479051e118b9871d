"""A text file as the applier sees it: lines plus how they were stored on disk.

The matcher works on ``\\n``-separated text; what made the bytes on disk (a UTF-8 byte-order
mark, CRLF line endings, a missing final newline) is kept aside and put back on writing, so
a CRLF file stays CRLF even when the model wrote LF.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from agentprompt.edits._reasons import reason
from agentprompt.edits.actions import EditError

__all__ = [
    "TextFile",
    "carry_endings",
    "decode_text",
    "encode_text",
    "join_lines",
    "split_lines",
]

BINARY_SNIFF_BYTES = 8192
"""How much of a file is checked for NUL bytes to tell binary from text."""


@dataclass(frozen=True, kw_only=True)
class TextFile:
    """A file's text with ``\\n`` line endings, and how it was encoded."""

    lines: tuple[str, ...]
    """The lines, without their line endings."""
    final_newline: bool = True
    """The last line ended with a line ending (false for ``"a\\nb"``)."""
    newline: str = "\n"
    """The line ending to write: ``"\\r\\n"`` when most lines of the original had one."""
    bom: bool = False
    """The file started with a UTF-8 byte-order mark."""
    endings: tuple[str, ...] = ()
    """Each line's own ending, when the file mixes CRLF and LF (empty: every line ends with
    ``newline``); the last line's entry is used only with ``final_newline``."""
    text: str = field(default="", compare=False, repr=False)
    """The lines joined as :func:`join_lines` would, when known (a decoded file): the
    matcher searches it without joining the lines again. Empty when not known."""


def split_lines(text: str) -> tuple[tuple[str, ...], bool]:
    """``text`` (``\\n`` endings) as its lines and whether it ends with a newline."""
    if not text:
        return (), True
    lines = text.split("\n")
    final = not lines[-1]
    if final:
        lines.pop()
    return tuple(lines), final


def join_lines(lines: tuple[str, ...] | list[str], final_newline: bool) -> str:
    """The text of ``lines``, ending with a newline when ``final_newline`` (and not empty)."""
    if not lines:
        return ""
    text = "\n".join(lines)
    return text + "\n" if final_newline else text


def decode_text(data: bytes, path: str) -> TextFile:
    """The text of a file's bytes; binary or non-UTF-8 content raises an
    :class:`~agentprompt.edits.EditError` naming the file (the engine will not change it)."""
    if data.find(b"\0", 0, BINARY_SNIFF_BYTES) != -1:
        raise EditError(f"{path}: {reason('binary')}")
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problem = reason("not_utf8", byte=f"0x{data[exc.start]:02x}", offset=exc.start)
        raise EditError(f"{path}: {problem}") from None
    crlf = text.count("\r\n") if "\r" in text else 0
    total = text.count("\n")
    newline = "\r\n" if crlf and crlf * 2 >= total else "\n"
    endings: tuple[str, ...] = ()
    if crlf and crlf != total:
        endings = tuple("\r\n" if line.endswith("\r") else "\n" for line in text.split("\n"))
    if crlf:
        text = text.replace("\r\n", "\n")
    lines, final = split_lines(text)
    if endings:
        endings = endings[: len(lines)]
    return TextFile(
        lines=lines, final_newline=final, newline=newline, bom=bom, text=text, endings=endings
    )


def carry_endings(old: TextFile, lines: tuple[str, ...]) -> tuple[str, ...]:
    """The endings for ``lines`` made from ``old`` (a mixed-ending file): lines kept from
    ``old`` keep their own ending, new lines take the file's usual one."""
    if not old.endings:
        return ()
    out = [old.newline] * len(lines)
    matcher = SequenceMatcher(None, old.lines, lines, autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        out[b : b + size] = old.endings[a : a + size]
    return tuple(out)


def encode_text(file: TextFile) -> bytes:
    """The bytes of ``file``, with its line endings and byte-order mark."""
    if file.endings and len(file.endings) == len(file.lines):
        text = "".join(line + end for line, end in zip(file.lines, file.endings, strict=True))
        if not file.final_newline:
            text = text[: -len(file.endings[-1])]
    else:
        text = join_lines(file.lines, file.final_newline)
        if file.newline != "\n":
            text = text.replace("\n", file.newline)
    data = text.encode("utf-8")
    return codecs.BOM_UTF8 + data if file.bom else data
