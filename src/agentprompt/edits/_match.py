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
:class:`Missing` with the candidate lines; line numbers never choose between places. The
fuzzy stage also refuses a place when another place (even one it could not use, because a
line the edit removes or a definition line differs there) fits the quote as well or better.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.edits._fuzzy import score_window
from agentprompt.edits._lineindex import STAGES, LineIndex, Stage, normalise

__all__ = [
    "FUZZY_THRESHOLD",
    "STAGES",
    "Found",
    "LineIndex",
    "Missing",
    "Stage",
    "defines",
    "locate",
    "normalise",
]

FUZZY_THRESHOLD = 0.8
"""The least score a fuzzy candidate needs: summed line similarity over the lines it spans."""
FUZZY_MAX_LINES = 400
"""Longer quotes skip the fuzzy stage: its cost grows with the square of the length."""
FUZZY_MAX_CANDIDATES = 24
"""At most this many places are scored by the fuzzy stage."""
FUZZY_COMMON_LINE = 32
"""A line found more often than this in the file does not propose fuzzy candidates."""

_DEFINITION = re.compile(
    r"^\s*(?:export\s+|public\s+|private\s+|protected\s+|static\s+|async\s+|pub\s+)*"
    r"(?:def|class|function|fn|func|sub|struct|enum|trait|impl|interface|module|type)\s+"
    r"([\w$.:<>]+)"
)
"""A line that names a definition: the fuzzy stage pairs it only with a line defining the
same name, so an edit meant for ``test_add`` never lands in ``test_sub``."""


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


def defines(line: str) -> bool:
    """True for a line that names a definition (``def f``, ``class C``, ``function g``...)."""
    return _DEFINITION.match(line) is not None


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

    ``hint`` is the 0-based line the model claimed; it never chooses between places, but the
    fuzzy stage refuses its best place when the hint points at a place it had to reject.
    ``removed`` flags the quoted lines an edit deletes: the fuzzy stage never pairs them with
    a line that is not nearly the same.
    """
    n = len(needle)
    if n == 0:
        raise ValueError("locate needs at least one line")
    loose: list[int] | None = None
    for stage in STAGES[: STAGES.index("fuzzy")]:
        if stage == "exact":
            cands = index.find_exact(needle, start)
        else:
            if loose is None:
                # Each stage's normal form is coarser than the one before, so every stage's
                # places are among the loosest stage's: index the file once (for the
                # loosest), then check only those places for the stricter forms.
                loose_keys = [normalise(line, "punctuation") for line in needle]
                loose = _exact_candidates(index, loose_keys, "punctuation", start)
            keys = [normalise(line, stage) for line in needle]
            lines = index.lines
            cands = [
                s for s in loose if all(normalise(lines[s + j], stage) == keys[j] for j in range(n))
            ]
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
        if len(cands) > 1:
            return Missing(candidates=tuple(cands), stage=stage)
        chosen = cands[0]
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


def _definitions_pair(
    keys: Sequence[str], needle_keys: Sequence[str], pairs: Sequence[int | None]
) -> bool:
    """Quoted lines naming a definition pair only with file lines defining the same name;
    the first quoted line, when it names a definition, must pair (it says where the edit
    belongs)."""
    first = next((i for i, key in enumerate(needle_keys) if key), None)
    for i, (key, at) in enumerate(zip(needle_keys, pairs, strict=True)):
        quoted = _DEFINITION.match(key)
        if quoted is None or (at is None and i != first):
            continue
        there = _DEFINITION.match(keys[at]) if at is not None else None
        if there is None or there.group(1) != quoted.group(1):
            return False
    return True


_Window = tuple[float, int, int, tuple[int | None, ...]]


def _repetitive(needle: Sequence[str]) -> bool:
    """Whether the quote repeats a non-blank line (indentation included) right after itself,
    or three times in all."""
    counts: Counter[str] = Counter()
    previous = None
    for line in needle:
        key = line.rstrip()
        if key.strip():
            if key == previous:
                return True
            counts[key] += 1
            if counts[key] >= 3:
                return True
        previous = key
    return False


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


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
    accepted: list[_Window] = []
    rejected: list[_Window] = []
    closest: tuple[bool, float, int, int] | None = None
    seen: set[tuple[int, int]] = set()
    for s, _ in votes.most_common(FUZZY_MAX_CANDIDATES):
        w0, w1 = max(start, s - slack), min(len(keys), s + n + slack)
        if w0 >= w1:
            continue
        scored = score_window(keys, needle_keys, w0, w1, removed)
        if scored is None:
            continue
        score, pairs, usable = scored
        usable = usable and _definitions_pair(keys, needle_keys, pairs)
        placed = [p for p in pairs if p is not None]
        region = (placed[0], placed[-1] + 1)
        if region in seen:
            continue
        seen.add(region)
        if closest is None or (usable, score) > closest[:2]:
            closest = (usable, score, region[0], region[1])
        window = (score, region[0], region[1], pairs)
        (accepted if usable and score >= FUZZY_THRESHOLD else rejected).append(window)
    distinct: list[_Window] = []
    for item in sorted(accepted, key=lambda a: -a[0]):
        if all(not _overlaps(item[1:3], d[1:3]) for d in distinct):
            distinct.append(item)
    near = (closest[2], closest[3]) if closest else None
    near_score = closest[1] if closest else 0.0
    if not enabled or not distinct:
        return Missing(closest=near, closest_score=near_score)
    if len(distinct) > 1:
        return Missing(
            candidates=tuple(sorted(d[1] for d in distinct)),
            stage="fuzzy",
            closest=near,
            closest_score=near_score,
        )
    score, s0, s1, pairs = distinct[0]
    if _repetitive(needle) and list(pairs) != list(range(s0, s1)):
        # A run of equal lines quoted with a line missing or added: which of them the quote
        # means cannot be told from their text (a box drawing, a table), so no guess.
        return Missing(closest=(s0, s1), closest_score=score)
    for other in rejected:
        region = (other[1], other[2])
        if _overlaps(region, (s0, s1)):
            continue
        hinted = hint is not None and region[0] <= hint < region[1]
        if other[0] >= score or hinted:
            # Another place fits as well, or is where the model said: it is the one meant,
            # and it changed; applying the edit elsewhere would damage the wrong code.
            return Missing(closest=region, closest_score=other[0])
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
