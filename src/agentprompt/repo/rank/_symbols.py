"""Which functions and classes a task touches: the definitions of the best files, ranked.

:func:`rank_symbols_in` scores every function, method and class of a few files already
ranked for a task (see :func:`~agentprompt.repo.rank.rank_for_task`) by these signals, and
keeps the reasons behind each score:

* **name**: the task writes the definition's name as code (``make_xrefs``, ``Min()``), or
  shares terms with it (split at ``snake_case`` and ``camelCase``, rarer terms weigh more);
  the enclosing class's name counts for less.
* **body**: BM25 of the task's terms over the definition's own lines.
* **exact**: identifiers, dotted names and quoted strings the task writes, found verbatim
  in the definition's own lines (an error message, ``pylint.d``).
* **calls**: names the task writes that the definition calls.
* **trace**: a frame of a stack trace in the task points into the definition.
* **file**: the score of the file it is in, scaled to the best file's.

A definition's own lines are its lines less those of the definitions inside it, so a
method is preferred to its class when the evidence is in the method, and a class ranks
for its name, docstring and attributes. :func:`rank_symbols` ranks a repository's files
for the task first and reads the best of them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentprompt.repo.discovery import Discovery
from agentprompt.repo.extraction import ProgressCallback
from agentprompt.repo.rank._repository import RankOptions, ranked_repository
from agentprompt.repo.rank._task import (
    _IDENT,
    _STOP,
    _TRACE,
    MAX_DETAILS,
    RankReason,
    _task_terms,
    split_identifier,
)
from agentprompt.repo.symbols import FileSymbols, SymbolEntry

__all__ = [
    "RelevantSymbol",
    "rank_symbols",
    "rank_symbols_in",
]

NAME_WEIGHT = 1.0
"""What a definition whose name the task writes as code gains (terms shared with the
name gain up to :data:`NAME_TERMS_WEIGHT`)."""
NAME_TERMS_WEIGHT = 0.6
"""What a definition whose name's terms all occur in the task gains (less for some)."""
PARENT_FACTOR = 0.5
"""How much the enclosing class's name counts against the definition's own."""
BODY_WEIGHT = 1.0
"""What the definition whose own lines match the task's terms best (BM25) gains."""
EXACT_WEIGHT = 1.0
"""What a definition holding the task's identifiers and quoted strings verbatim gains at
most."""
CALL_WEIGHT = 0.3
"""What a definition gains for each name the task writes that it calls."""
MAX_CALLS = 2
"""At most this many called names count."""
TRACE_WEIGHT = 1.5
"""What a definition the last frame of the task's stack trace points into gains (the
first frame: half of it)."""
TRACE_FIRST = 0.5
"""The share of :data:`TRACE_WEIGHT` the first frame gets (the frames between: more the
deeper they are)."""
FILE_WEIGHT = 0.5
"""What a definition of the best file gains (less in a file ranked lower)."""

CODE_KINDS = frozenset(("class", "function", "method", "async function", "async method"))
"""The kinds of definition ranked; a property with a body of its own (more than one line)
is ranked too, variables are not."""
SHARED_NAME_POWER = 0.5
"""A name the task writes that ``n`` definitions bear gives each of them
:data:`NAME_WEIGHT` divided by ``n`` to this power (``setup``, ``__init__``)."""
MIN_PHRASE = 8
"""A quoted string of the task shorter than this is not looked for verbatim."""

RELATED_FACTOR = 0.5
"""How much a name's term counts when the task has another form of its word (``iter``
for ``iterating``)."""
MIN_STEM = 4
"""Words shorter than this are matched only as they are."""

_ENDINGS = (
    *("ations", "ation", "ating", "ated", "ates", "ate", "ings", "ing", "ions", "ion"),
    *("ers", "er", "ed", "es", "s", "e"),
)
_K1 = 1.2
_B = 0.75
_BACKTICKS = re.compile(r"`+([^`\n]+?)`+")
_QUOTED = re.compile(r"""(?<![\w])(["'])([^"'\n]{4,200}?)\1""")
_CALLED = re.compile(r"([^\W\d]\w*)\(")
_DOTTED = re.compile(r"\b[^\W\d]\w*(?:\.[^\W\d]\w*)+\b")
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+|\b(?:e\.g|i\.e|etc)\b\.?")


@dataclass(frozen=True, kw_only=True)
class RelevantSymbol:
    """A definition (function, method, class) with its relevance to a task and why."""

    path: str
    """The file it is in, POSIX, relative to the root."""
    name: str
    """Its qualified name, e.g. ``Config.from_pyfile``."""
    kind: str
    """Its kind (see :data:`~agentprompt.repo.symbols.entries.KINDS`)."""
    start: int
    """Its first line (1-based)."""
    end: int
    """Its last line (1-based, inclusive: the whole body)."""
    score: float
    """Its relevance; definitions are ordered by it, highest first."""
    reasons: tuple[RankReason, ...]
    """What each signal added, strongest first (``name``, ``body``, ``exact``,
    ``calls``, ``trace``, ``file``)."""


@dataclass(frozen=True, kw_only=True)
class _Candidate:
    """A definition as ranking reads it."""

    path: str
    entry: SymbolEntry
    start: int
    end: int
    own: str
    """Its own lines (those of the definitions inside it left out)."""


@dataclass(frozen=True, kw_only=True)
class _TaskCode:
    """What of a task's text is written as code."""

    terms: Counter[str]
    """Its terms (see :func:`~agentprompt.repo.rank.split_identifier`)."""
    names: frozenset[str]
    """Identifiers written as code: in backticks, called, dotted, or shaped like code
    (``snake_case``, ``camelCase``, ``__dunder__``)."""
    dotted: frozenset[str]
    """Dotted names (``os.path.join``)."""
    phrases: frozenset[str]
    """Quoted strings and backticked text that is not a bare identifier."""
    frames: tuple[tuple[str, int, str], ...]
    """Stack trace frames: (file as written, line, function or empty)."""
    evidence: frozenset[str]
    """The names a definition's body or calls may hold as evidence: :attr:`names` less
    the frames' functions (a frame's caller holds the next frame's name, which says
    nothing the trace does not)."""


def rank_symbols_in(
    task: str,
    files: Sequence[tuple[str, float]],
    entries: Mapping[str, FileSymbols],
    texts: Mapping[str, str],
    *,
    limit: int | None = None,
) -> tuple[RelevantSymbol, ...]:
    """The definitions of ``files`` (path and the file's score, best first) most relevant
    to ``task``, best first, at most ``limit`` of them (None: all of them).

    ``entries`` holds each file's symbols and ``texts`` its text, by path; a file missing
    from either is left out. Symbols extracted without details (a Python function's last
    line is then its header's) are taken to end where the next definition begins.
    """
    code = _task_code(task)
    candidates: list[_Candidate] = []
    file_scores: dict[str, float] = {}
    for path, score in files:
        if path in file_scores or path not in entries or path not in texts:
            continue
        file_scores[path] = score
        candidates.extend(_candidates(path, entries[path], texts[path]))
    if not candidates:
        return ()
    best_file = max(file_scores.values(), default=0.0)
    frames = [f for f in code.frames if any(_same_file(f[0], p) for p in file_scores)]
    parts: list[list[RankReason]] = [[] for _ in candidates]
    for number, reason in _name_reasons(code, candidates):
        parts[number].append(reason)
    for number, reason in _body_reasons(code, candidates):
        parts[number].append(reason)
    for number, reason in _exact_reasons(code, candidates):
        parts[number].append(reason)
    for number, candidate in enumerate(candidates):
        called = [c for c in dict.fromkeys(candidate.entry.calls) if c in code.evidence]
        if called:
            weight = CALL_WEIGHT * min(len(called), MAX_CALLS)
            parts[number].append(RankReason(signal="calls", detail=_listed(called), weight=weight))
        traced, weight = _traced(frames, candidate)
        if traced:
            parts[number].append(RankReason(signal="trace", detail=traced, weight=weight))
        share = file_scores[candidate.path] / best_file if best_file > 0 else 0.0
        if share > 0 and parts[number]:
            parts[number].append(
                RankReason(
                    signal="file",
                    detail=_file_detail(share),
                    weight=FILE_WEIGHT * share,
                )
            )
    found = []
    for candidate, reasons in zip(candidates, parts, strict=True):
        if not reasons:
            continue
        reasons.sort(key=lambda r: (-r.weight, r.signal))
        found.append(
            RelevantSymbol(
                path=candidate.path,
                name=candidate.entry.qualname,
                kind=candidate.entry.kind,
                start=candidate.start,
                end=candidate.end,
                score=sum(r.weight for r in reasons),
                reasons=tuple(reasons),
            )
        )
    found.sort(key=lambda s: (-s.score, s.path, s.start))
    return tuple(found if limit is None else found[: max(limit, 0)])


def rank_symbols(
    root: Path,
    task: str,
    options: RankOptions | None = None,
    *,
    files: int = 10,
    limit: int | None = 30,
    discovery: Discovery | None = None,
    progress: ProgressCallback | None = None,
) -> tuple[RelevantSymbol, ...]:
    """The definitions of ``root`` most relevant to ``task``: its files are ranked for the
    task (see :func:`~agentprompt.repo.rank.rank_repository`), the best ``files`` of them
    read, and their definitions ranked (see :func:`rank_symbols_in`), at most ``limit``
    (None: all of them); ``progress`` is told of the files parsed. Raises
    :class:`~agentprompt.repo.rank.InvalidTask` for a task that cannot be ranked for,
    before anything is read."""
    with ranked_repository(root, task, options, discovery=discovery, progress=progress) as (
        found,
        extraction,
        ranking,
    ):
        best = [(f.path, f.score) for f in ranking.files[: max(files, 0)] if f.score > 0]
        entries = extraction.symbols(p for p, _ in best)
        texts = {}
        for path, _score in best:
            try:
                texts[path] = (found.root / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue  # gone since it was read: ranked without it
    return rank_symbols_in(task, best, entries, texts, limit=limit)


def _candidates(path: str, symbols: FileSymbols, text: str) -> list[_Candidate]:
    """The definitions of one file that are ranked, each with its own lines."""
    lines = text.splitlines()
    entries = [s for s in symbols.symbols if _ranked(s)]
    ends = _ends(entries, symbols.detailed, lines)
    spans = list(zip(entries, ends, strict=True))
    found = []
    for index, (entry, end) in enumerate(spans):
        inner = []
        for other, other_end in spans[index + 1 :]:
            if other.line > end:
                break  # in source order: the rest lie further down
            if other.depth > entry.depth:
                inner.append((other.line, other_end))
        own: list[str] = []
        cursor = entry.line
        for first, last in inner:
            if first > cursor:
                own.extend(lines[cursor - 1 : first - 1])
            cursor = max(cursor, last + 1)
        own.extend(lines[cursor - 1 : end])
        found.append(
            _Candidate(
                path=path,
                entry=entry,
                start=entry.line,
                end=end,
                own="\n".join(own),
            )
        )
    return found


def _ranked(entry: SymbolEntry) -> bool:
    return entry.kind in CODE_KINDS or (entry.kind == "property" and entry.end_line > entry.line)


def _ends(entries: list[SymbolEntry], detailed: bool, lines: list[str]) -> list[int]:
    """Each definition's last line: as extracted, or (without details) the last line that
    is not blank before the next definition at its depth or above begins."""
    if detailed:
        return [max(e.end_line, e.line) for e in entries]
    ends = []
    for index, entry in enumerate(entries):
        end = len(lines)
        for other in entries[index + 1 :]:
            if other.depth <= entry.depth:
                end = other.line - 1
                break
        while end > entry.line and not lines[end - 1].strip():
            end -= 1
        ends.append(max(end, entry.end_line, entry.line))
    return ends


def _task_code(task: str) -> _TaskCode:
    """The terms, identifiers, quoted strings and frames of ``task``."""
    task = _URL.sub(" ", task)
    names: set[str] = set()
    phrases: set[str] = set()
    dotted: set[str] = set()
    for match in _BACKTICKS.finditer(task):
        inner = match.group(1).strip()
        if _IDENT.fullmatch(inner.rstrip("()")):
            names.add(inner.rstrip("()"))
        else:
            phrases.update(_pieces(inner))
            names.update(w for w in _IDENT.findall(inner) if _code_shaped(w))
    for match in _QUOTED.finditer(task):
        phrases.update(_pieces(match.group(2)))
    for match in _CALLED.finditer(task):
        names.add(match.group(1))
    for match in _DOTTED.finditer(task):
        written = match.group(0)
        if not re.fullmatch(r"[\w.]+\.(?:py|txt|md|rst|html|cfg|toml|json|ini)", written):
            dotted.add(written)
            names.update(written.split("."))
    names.update(w for w in _IDENT.findall(task) if _code_shaped(w))
    kept = frozenset(n for n in names if len(n) > 2 and n.lower() not in _STOP)
    frames = tuple(
        (
            m.group("file") or m.group("file2") or "",
            int(m.group("line") or m.group("line2") or 0),
            m.group("func") or m.group("func2") or "",
        )
        for m in _TRACE.finditer(task)
    )
    return _TaskCode(
        terms=_task_terms(task),
        names=kept,
        evidence=kept - {function for _, _, function in frames},
        dotted=frozenset(dotted),
        phrases=frozenset(p for p in phrases if len(p) >= MIN_PHRASE),
        frames=frames,
    )


def _pieces(written: str) -> list[str]:
    """A quoted string and its parts around ``: `` (``ValueError: no args`` gives both)."""
    written = written.strip()
    return [written, *(p.strip() for p in written.split(": ") if p.strip() != written)]


def _code_shaped(word: str) -> bool:
    """Whether a word of prose is written as code: ``snake_case``, ``camelCase``, a
    ``__dunder__``, or capitals after its first letter."""
    return "_" in word.strip("_") or word.startswith("__") or any(c.isupper() for c in word[1:])


def _name_reasons(
    code: _TaskCode, candidates: list[_Candidate]
) -> Iterable[tuple[int, RankReason]]:
    """The name signal: the name written as code in the task, or terms shared with it."""
    counts: Counter[str] = Counter()
    for candidate in candidates:
        counts.update(set(split_identifier(candidate.entry.name)))
    total = len(candidates)
    named = Counter(c.entry.name for c in candidates)

    def idf(term: str) -> float:
        return math.log(1 + (total - counts[term] + 0.5) / (counts[term] + 0.5))

    stems = {_stem(t) for t in code.terms if len(t) >= MIN_STEM}
    memo: dict[str, bool] = {}

    def related(term: str) -> bool:
        if term not in memo:
            memo[term] = len(term) >= MIN_STEM and _stem(term) in stems
        return memo[term]

    for number, candidate in enumerate(candidates):
        entry = candidate.entry
        if entry.name in code.names:
            weight = NAME_WEIGHT / named[entry.name] ** SHARED_NAME_POWER
            yield number, RankReason(signal="name", detail=entry.name, weight=weight)
            continue
        weight = 0.0
        matched: list[str] = []
        for name, factor in ((entry.name, 1.0), (entry.parent or "", PARENT_FACTOR)):
            terms = set(split_identifier(name.rsplit(".", 1)[-1])) if name else set()
            if not terms:
                continue
            hit = sorted(t for t in terms if t in code.terms)
            near = sorted(t for t in terms if t not in code.terms and related(t))
            if hit or near:
                whole = sum(idf(t) for t in terms) or 1.0
                found = sum(idf(t) for t in hit) + RELATED_FACTOR * sum(idf(t) for t in near)
                weight += factor * NAME_TERMS_WEIGHT * found / whole
                matched.extend(t for t in [*hit, *near] if t not in matched)
        if weight > 0:
            yield number, RankReason(signal="name", detail=_listed(matched), weight=weight)


def _body_reasons(
    code: _TaskCode, candidates: list[_Candidate]
) -> Iterable[tuple[int, RankReason]]:
    """The body signal: BM25 of the task's terms over each definition's own lines."""
    query = code.terms
    if not query:
        return
    frequencies: list[Counter[str]] = []
    lengths: list[int] = []
    for candidate in candidates:
        counts: Counter[str] = Counter()
        for token in _IDENT.findall(candidate.own):
            counts.update(split_identifier(token))
        lengths.append(sum(counts.values()))
        frequencies.append(Counter({t: c for t, c in counts.items() if t in query}))
    n = len(candidates)
    average = (sum(lengths) / n) or 1.0
    holding = Counter(t for counts in frequencies for t in counts)
    scored = []
    for number, counts in enumerate(frequencies):
        if not counts:
            continue
        norm = _K1 * (1 - _B + _B * lengths[number] / average)
        gains = []
        for term, f in counts.items():
            idf = math.log(1 + (n - holding[term] + 0.5) / (holding[term] + 0.5))
            gains.append((idf * f * (_K1 + 1) / (f + norm) * (1 + math.log(query[term])), term))
        gains.sort(reverse=True)
        scored.append((number, sum(g for g, _ in gains), [t for _, t in gains[:MAX_DETAILS]]))
    best = max((s for _, s, _ in scored), default=0.0) or 1.0
    for number, score, terms in scored:
        yield (
            number,
            RankReason(signal="body", detail=", ".join(terms), weight=BODY_WEIGHT * score / best),
        )


def _exact_reasons(
    code: _TaskCode, candidates: list[_Candidate]
) -> Iterable[tuple[int, RankReason]]:
    """The exact signal: the task's identifiers, dotted names and quoted strings found
    verbatim in a definition's own lines, each weighing more the fewer hold it."""
    wanted = sorted(code.evidence)
    found: list[list[str]] = []
    holding: Counter[str] = Counter()
    for candidate in candidates:
        tokens = set(_IDENT.findall(candidate.own))
        hits = [n for n in wanted if n in tokens and n != candidate.entry.name]
        hits += [d for d in sorted(code.dotted) if d in candidate.own]
        hits += [p for p in sorted(code.phrases) if p in candidate.own]
        found.append(hits)
        holding.update(hits)
    n = len(candidates)
    for number, hits in enumerate(found):
        if not hits:
            continue
        rarity = {h: math.log(1 + n / holding[h]) / math.log(1 + n) for h in hits}
        total = sum(rarity.values())
        weight = EXACT_WEIGHT * (1 - math.exp(-total))
        ordered = sorted(hits, key=lambda h: (-rarity[h], h))
        yield number, RankReason(signal="exact", detail=_listed(ordered), weight=weight)


def _traced(frames: Sequence[tuple[str, int, str]], candidate: _Candidate) -> tuple[str, float]:
    """The deepest of ``frames`` (those of the task's stack traces in the files ranked)
    that points into ``candidate``, and its weight: :data:`TRACE_WEIGHT` for the last
    (nearest where the error was raised), down to half of it for the first; empty and 0
    when none does."""
    for position in range(len(frames) - 1, -1, -1):
        written, line, function = frames[position]
        if not _same_file(written, candidate.path):
            continue
        if function == candidate.entry.name or (
            not function and candidate.start <= line <= candidate.end
        ):
            tail = written.replace("\\", "/").rsplit("/", 1)[-1]
            detail = f"{tail}:{line}" + (f" in {function}" if function else "")
            return detail, TRACE_WEIGHT * (
                TRACE_FIRST + (1 - TRACE_FIRST) * (position + 1) / len(frames)
            )
    return "", 0.0


def _same_file(written: str, path: str) -> bool:
    """Whether a path as a stack trace writes it may be ``path`` (same last part)."""
    tail = written.replace("\\", "/").rsplit("/", 1)[-1]
    return bool(tail) and ("/" + path).endswith("/" + tail)


def _file_detail(share: float) -> str:
    """How the file's score compares with the best file's."""
    return "the best file" if share >= 1.0 else f"{share:.2f} of the best file's score"


def _stem(term: str) -> str:
    """``term`` without the endings English puts on a word (``iterating``, ``iterates``
    and ``iter`` give ``iter``; ``weights`` and ``weighted`` give ``weight``)."""
    for ending in _ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= MIN_STEM:
            return term[: -len(ending)]
    return term


def _listed(names: Sequence[str]) -> str:
    """At most :data:`MAX_DETAILS` names, then how many more."""
    shown = ", ".join(names[:MAX_DETAILS])
    return shown + (f", +{len(names) - MAX_DETAILS}" if len(names) > MAX_DETAILS else "")
