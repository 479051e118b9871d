"""The size report of a bridge prompt: its tokens, its parts, its largest files, and past a
threshold, what to leave out to make it smaller."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.bridge._streamed import FileBody, Piece, read_batches
from agentprompt.bridge.pack import BridgePrompt
from agentprompt.tokens import shared_counter

__all__ = ["SizeReport", "size_report"]

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
    """Past the threshold: gitignore patterns whose files make up most of the prompt."""

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


def size_report(prompt: BridgePrompt, threshold: int) -> SizeReport:
    """The size report of ``prompt``: the longest texts it shows are counted exactly and
    the five with the most tokens named; past ``threshold`` the folder and files that make
    up most of it are suggested as exclude patterns."""
    counter = shared_counter()
    longest = sorted(prompt.shown, key=lambda item: -_length(item[1]))[:_CANDIDATES]
    texts = _texts(longest)
    counted = sorted(
        ((p, counter.count(texts[p])) for p, _ in longest), key=lambda x: (-x[1], x[0])
    )
    largest = tuple(counted[:5])
    exclude: list[str] = []
    if prompt.tokens > threshold and prompt.shown:
        total = sum(_length(t) for _, t in prompt.shown) or 1
        folders: dict[str, int] = {}
        for path, text in prompt.shown:
            if "/" in path:
                top = path.split("/", 1)[0] + "/"
                folders[top] = folders.get(top, 0) + _length(text)
        heavy = sorted(folders.items(), key=lambda x: -x[1])
        if heavy and heavy[0][1] * 4 >= total:
            exclude.append(heavy[0][0])
        for path, _n in largest:
            if len(exclude) >= 3:
                break
            if not any(path.startswith(f) for f in exclude if f.endswith("/")):
                exclude.append("/" + path)
    return SizeReport(
        tokens=prompt.tokens,
        parts=prompt.part_count,
        largest=largest,
        threshold=threshold,
        exclude=tuple(exclude),
    )
