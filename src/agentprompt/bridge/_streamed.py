"""A prompt as pieces, the files' texts read from disk only when it is written.

A whole repository's prompt is hundreds of megabytes; joined into one string beside every
file's text it takes several times that in memory (a single non-ASCII character makes
Python store a string at two or four bytes a character). A :class:`PromptText` holds the
prompt's frame as strings and each file's text as a :class:`FileBody`: the file's path and
the stamp (size, modification time, change time, inode) it had when its text was looked
at, its secret verdict given and its tokens counted. Writing the prompt reads the files a
few megabytes at a time and checks each stamp again after reading, so the text written is
the text screened and counted; a file changed in between is an error, never an unscreened
text in the prompt.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from agentprompt.errors import UsageError
from agentprompt.repo.discovery import SniffStamp, read_texts

__all__ = ["FileBody", "Piece", "PromptText", "read_batches"]

BATCH_BYTES = 8_000_000
"""About how much file text is read (and held) at a time."""


def _changed(path: str) -> UsageError:
    """A file that changed between being screened and counted and being written."""
    return UsageError(
        f"{path} changed while the prompt was being made; make the prompt again once the "
        "files are saved"
    )


@dataclass(frozen=True, kw_only=True)
class FileBody:
    """A file's whole text in a prompt, read when the prompt is written."""

    root: Path
    """The repository."""
    path: str
    """The file's path in the repository."""
    stamp: SniffStamp
    """The file's stamp when its text was screened and counted."""
    chars: int
    """The text's length in characters."""


Piece = str | FileBody
"""A piece of a prompt: text as it stands, or a file's text to read."""


def _batches(bodies: Sequence[FileBody]) -> Iterator[Sequence[FileBody]]:
    """``bodies`` in runs of about :data:`BATCH_BYTES` (at least one file each)."""
    start = size = 0
    for number, body in enumerate(bodies):
        if size and size + body.stamp[0] > BATCH_BYTES:
            yield bodies[start:number]
            start, size = number, 0
        size += body.stamp[0]
    if start < len(bodies):
        yield bodies[start:]


def read_batches(bodies: Sequence[FileBody]) -> Iterator[dict[str, str]]:
    """The texts of ``bodies`` by path, a batch at a time; a
    :class:`~agentprompt.errors.UsageError` for a file
    whose stamp after reading is not the body's."""
    for batch in _batches(bodies):
        stamps: dict[str, SniffStamp] = {}
        texts, _unreadable = read_texts(batch[0].root, [b.path for b in batch], stamps=stamps)
        for body in batch:
            if body.path not in texts or stamps.get(body.path) != body.stamp:
                raise _changed(body.path)
        yield texts


@dataclass(frozen=True)
class PromptText:
    """A prompt as its pieces, in order."""

    pieces: tuple[Piece, ...]

    def chunks(self) -> Iterator[str]:
        """The prompt's text, piece by piece; the files' texts are read a batch at a time
        (the frame pieces between them waiting with them)."""
        window: list[Piece] = []
        size = 0
        for piece in self.pieces:
            window.append(piece)
            if isinstance(piece, FileBody):
                size += piece.stamp[0]
                if size >= BATCH_BYTES:
                    yield from _filled(window)
                    window, size = [], 0
        yield from _filled(window)

    def span(self, start: int, end: int) -> Iterator[str]:
        """The prompt's characters ``start`` to ``end``, piece by piece: only the files
        in that span are read."""
        inside: list[Piece] = []
        position = 0
        skip = 0
        for piece in self.pieces:
            size = piece.chars if isinstance(piece, FileBody) else len(piece)
            if position + size > start and position < end:
                if not inside:
                    skip = start - position
                inside.append(piece)
            position += size
        yield from _clipped(PromptText(tuple(inside)).chunks(), skip, end - start)

    def join(self) -> str:
        """The whole prompt as one string."""
        return "".join(self.chunks())

    def write(self, stream: TextIO) -> None:
        """Write the prompt to ``stream`` piece by piece."""
        for chunk in self.chunks():
            stream.write(chunk)

    @property
    def chars(self) -> int:
        """The prompt's length in characters, without reading any file."""
        return sum(p.chars if isinstance(p, FileBody) else len(p) for p in self.pieces)


def _filled(window: Sequence[Piece]) -> Iterator[str]:
    """``window``'s pieces as text, its files read in one go."""
    bodies = [p for p in window if isinstance(p, FileBody)]
    texts: dict[str, str] = {}
    for batch in read_batches(bodies):
        texts.update(batch)
    for piece in window:
        yield texts[piece.path] if isinstance(piece, FileBody) else piece


def _clipped(chunks: Iterator[str], skip: int, length: int) -> Iterator[str]:
    """``length`` characters of the text ``chunks`` join to, after its first ``skip``."""
    for chunk in chunks:
        if skip:
            cut = min(skip, len(chunk))
            chunk = chunk[cut:]
            skip -= cut
        kept = chunk[:length]
        length -= len(kept)
        if kept:
            yield kept
        if not length:
            return
