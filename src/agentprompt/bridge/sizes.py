"""The size report of a bridge prompt: its tokens, its parts, its largest files, and past a
threshold, what to leave out to make it smaller."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentprompt.bridge._streamed import FileBody, Piece, read_batches
from agentprompt.bridge.pack import BridgePrompt
from agentprompt.tokens import shared_counter

__all__ = ["SizeReport", "size_report"]

_SUGGESTED = 3
"""At most this many folders are suggested for leaving out."""

_LEAST_SHARE = 0.05
"""A folder suggested for leaving out holds at least this share of the prompt."""

_DEPTH = 3
"""Folders this deep at most are suggested (``a/b/c/``)."""

_CANDIDATES = 8
"""How many of the longest texts are counted exactly to find the five largest."""


@dataclass(frozen=True, kw_only=True)
class SizeReport:
    """How large a prompt is and where its size comes from."""

    tokens: int
    parts: int
    largest: tuple[tuple[str, int], ...]
    """Up to five files with the most tokens in the prompt, largest first."""
    threshold: int
    """The warning threshold in tokens."""
    exclude: tuple[str, ...] = ()
    """Past the threshold: the largest folders the task does not need, as gitignore
    patterns (``docs/``)."""

    @property
    def over(self) -> bool:
        """The prompt is larger than the threshold."""
        return self.tokens > self.threshold

    def to_json(self) -> dict[str, object]:
        """The report as JSON-ready data."""
        return {
            "tokens": self.tokens,
            "parts": self.parts,
            "largest": [{"path": p, "tokens": n} for p, n in self.largest],
            "threshold": self.threshold,
            "over": self.over,
            "exclude": list(self.exclude),
        }


def _length(shown: Piece) -> int:
    """The length in characters of a text the prompt shows (a file's without reading it)."""
    return shown.chars if isinstance(shown, FileBody) else len(shown)


def _texts(shown: Sequence[tuple[str, Piece]]) -> dict[str, str]:
    """The texts of ``shown`` by path (files read from disk)."""
    texts = {p: t for p, t in shown if isinstance(t, str)}
    for read in read_batches([t for _, t in shown if isinstance(t, FileBody)]):
        texts.update(read)
    return texts


def _unneeded_folders(shown: Sequence[tuple[str, Piece]], needed: Sequence[str]) -> list[str]:
    """Up to :data:`_SUGGESTED` folders that hold much of the prompt (each at least
    :data:`_LEAST_SHARE` of it) and none of the ``needed`` files, largest first, none
    inside another, as exclude patterns (``docs/``)."""
    total = sum(_length(t) for _, t in shown) or 1
    held = {"/".join(p.split("/")[:end]) for p in needed for end in range(1, p.count("/") + 1)}
    folders: dict[str, int] = {}
    for path, text in shown:
        parts = path.split("/")[:-1]
        for end in range(1, min(len(parts), _DEPTH) + 1):
            folder = "/".join(parts[:end])
            folders[folder] = folders.get(folder, 0) + _length(text)
    chosen: list[str] = []
    for folder, size in sorted(folders.items(), key=lambda x: (-x[1], x[0])):
        if len(chosen) >= _SUGGESTED or size < total * _LEAST_SHARE:
            break
        inside = any(folder.startswith(c + "/") or c.startswith(folder + "/") for c in chosen)
        if folder not in held and not inside:
            chosen.append(folder)
    return [f + "/" for f in chosen]


def size_report(
    prompt: BridgePrompt, threshold: int, needed: Callable[[], Sequence[str]] | None = None
) -> SizeReport:
    """The size report of ``prompt``: the longest texts it shows are counted exactly and
    the five with the most tokens named; past ``threshold``, the largest folders holding
    none of the files the task needs (``needed``, asked for only then) are suggested as
    exclude patterns."""
    counter = shared_counter()
    longest = sorted(prompt.shown, key=lambda item: -_length(item[1]))[:_CANDIDATES]
    texts = _texts(longest)
    counted = sorted(
        ((p, counter.count(texts[p])) for p, _ in longest), key=lambda x: (-x[1], x[0])
    )
    largest = tuple(counted[:5])
    exclude: list[str] = []
    if prompt.tokens > threshold and prompt.shown:
        exclude = _unneeded_folders(prompt.shown, needed() if needed else ())
    return SizeReport(
        tokens=prompt.tokens,
        parts=prompt.part_count,
        largest=largest,
        threshold=threshold,
        exclude=tuple(exclude),
    )
