"""The scoring behind the matcher's fuzzy stage: how well quoted lines fit a file window.

The quoted lines are aligned with the window by difflib (equal runs first); in the runs that
differ, each quoted line pairs with the most similar window line after the previous pair if
they are similar enough. The score sums the pairs' similarities over the quoted lines plus
the window lines left unpaired in between, so lines the file gained cost as much as lines
that drifted.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

__all__ = [
    "FUZZY_LINE_SIMILARITY",
    "FUZZY_REMOVED_SIMILARITY",
    "most_similar",
    "score_window",
    "similarity",
]

FUZZY_LINE_SIMILARITY = 0.6
"""A quoted line counts as the file's line only when they are at least this similar."""
FUZZY_REMOVED_SIMILARITY = 1.0
"""A line the edit removes must be this similar to the file's line (1.0: the same, once
whitespace and punctuation are normalised): an edit never deletes a line it did not quote."""


def similarity(a: str, b: str) -> float:
    """How alike two lines are, from 0.0 to 1.0 (difflib's ratio; 1.0 when equal)."""
    if a == b:
        return 1.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def most_similar(
    lines: Sequence[str], wanted: str, *, floor: float = 0.5, start: int = 0, end: int | None = None
) -> tuple[int, float] | None:
    """The line of ``lines[start:end]`` most like ``wanted`` (both compared stripped), with
    its similarity, if it reaches ``floor``; cheap bounds skip lines that cannot win."""
    wanted = wanted.strip()
    if not wanted:
        return None
    best, best_i = 0.0, -1
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(wanted)
    for i in range(start, len(lines) if end is None else min(end, len(lines))):
        matcher.set_seq1(lines[i].strip())
        if matcher.real_quick_ratio() <= best or matcher.quick_ratio() <= best:
            continue
        ratio = matcher.ratio()
        if ratio > best:
            best, best_i = ratio, i
    return (best_i, best) if best_i >= 0 and best >= floor else None


def score_window(
    keys: Sequence[str], needle_keys: Sequence[str], w0: int, w1: int, removed: Sequence[bool]
) -> tuple[float, tuple[int | None, ...], bool] | None:
    """Align the quoted lines with file lines ``w0..w1``: score, pairing, and whether it may
    be used (every removed line found as it is, and at least half the non-blank lines too)."""
    n = len(needle_keys)
    window = keys[w0:w1]
    pairs: list[int | None] = [None] * n
    sims = [0.0] * n
    matcher = SequenceMatcher(None, list(needle_keys), window, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                pairs[i1 + k] = w0 + j1 + k
                sims[i1 + k] = 1.0
        elif tag == "replace":
            j = j1
            for i in range(i1, i2):
                best, best_j = 0.0, -1
                for jj in range(j, j2):
                    sim = similarity(needle_keys[i], window[jj])
                    if sim > best:
                        best, best_j = sim, jj
                if best >= FUZZY_LINE_SIMILARITY:
                    pairs[i], sims[i] = w0 + best_j, best
                    j = best_j + 1
    removed_ok = all(
        not gone or (pairs[i] is not None and sims[i] >= FUZZY_REMOVED_SIMILARITY)
        for i, gone in enumerate(removed)
    )
    solid = [sims[i] == 1.0 for i in range(n) if needle_keys[i]]
    removed_ok = removed_ok and sum(solid) * 2 >= len(solid)
    placed = [p for p in pairs if p is not None]
    if not placed:
        return None
    extra = (placed[-1] - placed[0] + 1) - len(placed)
    return sum(sims) / (n + extra), tuple(pairs), removed_ok
