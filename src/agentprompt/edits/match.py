"""The matcher: find where a run of lines the model quoted sits in a file.

Models quote code slightly wrong: trailing spaces dropped, the whole block indented one level
off, runs of spaces collapsed, straight quotes where the file has curly ones, a line that
drifted. :func:`locate` tries stages from strict to loose and stops at the first stage that
finds any candidate:

``exact`` → ``trailing-whitespace`` → ``indentation`` (a uniform offset, which the caller
re-applies to the replacement) → ``whitespace`` (runs of blanks collapsed) → ``punctuation``
(curly quotes, dashes, non-breaking spaces made plain) → ``fuzzy`` (a bounded line-similarity
search).

A stage that finds more than one place is never resolved by guessing: the result is
:class:`Missing` with the candidate lines, unless the caller's line-number hint names exactly
one of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from agentprompt.edits.fuzzy import score_window

__all__ = [
    "FUZZY_THRESHOLD",
    "STAGES",
    "Found",
    "LineIndex",
    "Missing",
    "Stage",
    "locate",
    "normalise",
]

Stage = Literal["exact", "trailing-whitespace", "indentation", "whitespace", "punctuation", "fuzzy"]
"""The name of a matcher stage, from strictest to loosest."""

STAGES: tuple[Stage, ...] = (
    "exact",
    "trailing-whitespace",
    "indentation",
    "whitespace",
    "punctuation",
    "fuzzy",
)
"""Every stage in the order they are tried."""

FUZZY_THRESHOLD = 0.8
"""The least score a fuzzy candidate needs: summed line similarity over the lines it spans."""
FUZZY_MAX_LINES = 400
"""Longer quotes skip the fuzzy stage: its cost grows with the square of the length."""
FUZZY_MAX_CANDIDATES = 24
"""At most this many places are scored by the fuzzy stage."""
FUZZY_COMMON_LINE = 32
"""A line found more often than this in the file does not propose fuzzy candidates."""

_PUNCTUATION = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u2007": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u200a": " ",
        "\u2002": " ",
        "\u2003": " ",
        "\u3000": " ",
        "\u200b": "",
        "\ufeff": "",
        "\u2026": "...",
    }
)


def normalise(line: str, stage: Stage) -> str:
    """``line`` as the given stage compares it."""
    if stage == "exact":
        return line
    if stage == "trailing-whitespace":
        return line.rstrip()
    if stage == "indentation":
        return line.strip()
    if stage == "whitespace":
        return " ".join(line.split())
    return " ".join(line.translate(_PUNCTUATION).split())


def _key_stage(stage: Stage) -> Stage:
    return "punctuation" if stage == "fuzzy" else stage


class LineIndex:
    """A file's lines with their normalised forms and positions, computed once per stage."""

    def __init__(self, lines: Sequence[str], text: str | None = None) -> None:
        self.lines = lines
        self._keys: dict[Stage, list[str]] = {}
        self._positions: dict[Stage, dict[str, list[int]]] = {}
        # The lines joined, each ending with a newline; ``text``, when given, is the lines
        # joined already (as the file was decoded), which saves joining them again.
        if text and not text.endswith("\n"):
            text += "\n"
        self._text = text or None
        self._mark = (0, 0)

    def find_exact(self, needle: Sequence[str], start: int) -> list[int]:
        """The 0-based first lines, at or after ``start``, where ``needle`` stands exactly.

        Searches the joined text with ``str.find``, so the common case (the model quoted the
        file correctly) costs no per-line work in Python.
        """
        if not self.lines:
            return []
        if self._text is None:
            self._text = "\n".join(self.lines) + "\n"
        text = self._text
        wanted = "\n".join(needle) + "\n"
        found = []
        # A known (offset, line) pair at or before ``start``, ``offset`` the first character
        # of that line: searches made in file order, as hunks are, count each newline once.
        offset, line = self._mark if self._mark[1] <= start else (0, 0)
        at = text.find(wanted, offset)
        while at != -1:
            if at == 0 or text[at - 1] == "\n":
                line += text.count("\n", offset, at)
                offset = at
                if line >= start:
                    found.append(line)
            at = text.find(wanted, at + 1)
        self._mark = (offset, line)
        return found

    def keys(self, stage: Stage) -> list[str]:
        """Every line normalised for ``stage``."""
        stage = _key_stage(stage)
        found = self._keys.get(stage)
        if found is None:
            if stage == "exact":
                found = list(self.lines)
            else:
                found = [normalise(line, stage) for line in self.lines]
            self._keys[stage] = found
        return found

    def positions(self, stage: Stage, key: str) -> list[int]:
        """The 0-based lines whose ``stage`` form is ``key``, in order."""
        stage = _key_stage(stage)
        table = self._positions.get(stage)
        if table is None:
            table = {}
            for i, k in enumerate(self.keys(stage)):
                table.setdefault(k, []).append(i)
            self._positions[stage] = table
        return table.get(key, [])


@dataclass(frozen=True, kw_only=True)
class Found:
    """Where the quoted lines are."""

    start: int
    """The first file line (0-based) of the match."""
    end: int
    """One past the last file line of the match."""
    stage: Stage
    """The stage that found it."""
    pairs: Sequence[int | None]
    """For each quoted line, the file line it matched (``None``: not in the file)."""
    indent_add: str = ""
    """Indentation to add to replacement lines (the file is indented deeper)."""
    indent_remove: str = ""
    """Indentation to take off replacement lines (the file is indented less)."""
    score: float = 1.0
    """How well it matched, 1.0 for every stage but ``fuzzy``."""


@dataclass(frozen=True, kw_only=True)
class Missing:
    """The quoted lines were not found, or were found in more than one place."""

    candidates: tuple[int, ...] = ()
    """The 0-based first lines of equally good places, when the match was ambiguous."""
    stage: Stage | None = None
    """The stage at which the ambiguity arose."""
    closest: tuple[int, int] | None = None
    """The file lines (start, end) that came nearest, to show the model."""
    closest_score: float = 0.0
    """How near they came (fuzzy score)."""

    @property
    def ambiguous(self) -> bool:
        """True when several places matched equally well."""
        return len(self.candidates) > 1


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _indent_delta(
    lines: Sequence[str], needle: Sequence[str], pairs: Sequence[int | None]
) -> tuple[str, str] | None:
    """The uniform indentation offset between the quoted and file lines, if there is one."""
    delta: tuple[str, str] | None = None
    for i, fi in enumerate(pairs):
        if fi is None or not needle[i].strip() or not lines[fi].strip():
            continue
        have, want = _indent(lines[fi]), _indent(needle[i])
        if have.endswith(want):
            this = (have[: len(have) - len(want)], "")
        elif want.endswith(have):
            this = ("", want[: len(want) - len(have)])
        else:
            return None
        if delta is None:
            delta = this
        elif delta != this:
            return None
    return delta or ("", "")


def _exact_candidates(
    index: LineIndex, needle_keys: Sequence[str], stage: Stage, start: int
) -> list[int]:
    keys = index.keys(stage)
    n = len(needle_keys)
    pivot = min(range(n), key=lambda j: len(index.positions(stage, needle_keys[j])))
    found = []
    for p in index.positions(stage, needle_keys[pivot]):
        s = p - pivot
        if s < start or s + n > len(keys):
            continue
        if all(keys[s + j] == needle_keys[j] for j in range(n)):
            found.append(s)
    return found


def _pick(candidates: Sequence[int], hint: int | None) -> int | None:
    if len(candidates) == 1:
        return candidates[0]
    if hint is not None and hint in candidates:
        return hint
    return None


def locate(
    index: LineIndex,
    needle: Sequence[str],
    *,
    start: int = 0,
    hint: int | None = None,
    removed: Sequence[bool] = (),
    fuzzy: bool = True,
) -> Found | Missing:
    """Find ``needle`` (one or more lines) in the file at or after line ``start``.

    ``hint`` is the 0-based line the model claimed; it only chooses between equally good
    places. ``removed`` flags the quoted lines an edit deletes: the fuzzy stage never pairs
    them with a line that is not nearly the same.
    """
    n = len(needle)
    if n == 0:
        raise ValueError("locate needs at least one line")
    for stage in STAGES[:-1]:
        if stage == "exact":
            cands = index.find_exact(needle, start)
        else:
            keys = [normalise(line, stage) for line in needle]
            cands = _exact_candidates(index, keys, stage, start)
        deltas: dict[int, tuple[str, str]] = {}
        if stage == "indentation":
            kept = []
            for s in cands:
                d = _indent_delta(index.lines, needle, range(s, s + n))
                if d is not None:
                    deltas[s] = d
                    kept.append(s)
            cands = kept
        if not cands:
            continue
        chosen = _pick(cands, hint)
        if chosen is None:
            return Missing(candidates=tuple(cands), stage=stage)
        pairs = range(chosen, chosen + n)
        delta = deltas.get(chosen) or ("", "")
        if stage not in ("exact", "trailing-whitespace", "indentation"):
            delta = _indent_delta(index.lines, needle, pairs) or delta
        return Found(
            start=chosen,
            end=chosen + n,
            stage=stage,
            pairs=pairs,
            indent_add=delta[0],
            indent_remove=delta[1],
        )
    return _fuzzy(index, needle, start=start, hint=hint, removed=removed, enabled=fuzzy)


def _fuzzy(
    index: LineIndex,
    needle: Sequence[str],
    *,
    start: int,
    hint: int | None,
    removed: Sequence[bool],
    enabled: bool,
) -> Missing | Found:
    """The bounded fuzzy stage; also finds the closest place when nothing matches."""
    n = len(needle)
    keys = index.keys("fuzzy")
    needle_keys = [normalise(line, "fuzzy") for line in needle]
    slack = max(2, n // 4)
    votes: Counter[int] = Counter()
    for j, key in enumerate(needle_keys):
        if not key:
            continue
        where = index.positions("fuzzy", key)
        if len(where) > FUZZY_COMMON_LINE:
            continue
        for p in where:
            if p - j >= start - slack:
                votes[p - j] += 1
    if not votes or n > FUZZY_MAX_LINES:
        return Missing()
    accepted: list[tuple[float, int, int, tuple[int | None, ...]]] = []
    closest: tuple[bool, float, int, int] | None = None
    seen: set[tuple[int, int]] = set()
    for s, _ in votes.most_common(FUZZY_MAX_CANDIDATES):
        w0, w1 = max(start, s - slack), min(len(keys), s + n + slack)
        if w0 >= w1:
            continue
        scored = score_window(keys, needle_keys, w0, w1, removed)
        if scored is None:
            continue
        score, pairs, removed_ok = scored
        placed = [p for p in pairs if p is not None]
        region = (placed[0], placed[-1] + 1)
        if region in seen:
            continue
        seen.add(region)
        if closest is None or (removed_ok, score) > closest[:2]:
            closest = (removed_ok, score, region[0], region[1])
        if enabled and removed_ok and score >= FUZZY_THRESHOLD:
            accepted.append((score, region[0], region[1], pairs))
    distinct: list[tuple[float, int, int, tuple[int | None, ...]]] = []
    for item in sorted(accepted, key=lambda a: -a[0]):
        if all(item[2] <= d[1] or item[1] >= d[2] for d in distinct):
            distinct.append(item)
    near = (closest[2], closest[3]) if closest else None
    near_score = closest[1] if closest else 0.0
    if not distinct:
        return Missing(closest=near, closest_score=near_score)
    if len(distinct) > 1:
        by_hint = [d for d in distinct if d[1] == hint]
        if len(by_hint) != 1:
            return Missing(
                candidates=tuple(sorted(d[1] for d in distinct)),
                stage="fuzzy",
                closest=near,
                closest_score=near_score,
            )
        distinct = by_hint
    score, s0, s1, pairs = distinct[0]
    delta = _indent_delta(index.lines, needle, pairs) or ("", "")
    return Found(
        start=s0,
        end=s1,
        stage="fuzzy",
        pairs=pairs,
        indent_add=delta[0],
        indent_remove=delta[1],
        score=score,
    )
