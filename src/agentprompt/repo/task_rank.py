"""Which files a task needs: lexical relevance, exact mentions, stack traces and the graph.

:func:`rank_for_task` scores every file of a repository against a task text (a bug report,
a feature request, a question) by four signals, and keeps the reasons behind each score:

* **lexical**: BM25 over code-aware terms. A file's document is its path, the names it
  defines (module level and in classes) and the identifiers it uses, every identifier split
  at ``snake_case`` and ``camelCase`` and lower-cased; path parts and definitions weigh
  more than uses. The task is split the same way.
* **mentions**: a path the task names (``src/app/cli.py``, ``cli.py``), a dotted module
  (``flask.cli``), and an identifier the task writes that a few files define
  (``run_command``, ``CertParamType``).
* **trace**: the frames of a stack trace in the task (``File "…/cli.py", line 12, in run``).
* **graph**: personalised PageRank over the reference graph, its jumps seeded by the files
  the other signals found, so a file the hits lean on rises too.

Tests are demoted for a task that is not about tests. The function is pure: the graph step
is passed in (see :data:`Propagate`), so the pipeline can serve it from a remembered graph.
"""

from __future__ import annotations

import heapq
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from agentprompt.errors import UsageError

__all__ = [
    "MAX_TASK_CHARS",
    "FileDocument",
    "InvalidTask",
    "Propagate",
    "RankReason",
    "RelevantFile",
    "TaskRanking",
    "check_task",
    "rank_for_task",
    "split_identifier",
    "task_about_tests",
]

MAX_TASK_CHARS = 1_000_000
"""A longer task text is refused: it is a file pasted by mistake, not a task."""

PATH_WEIGHT = 3.0
"""How much a term of a file's path counts against one of the identifiers it uses."""
DEFINITION_WEIGHT = 2.0
"""How much a term of a name a file defines at module level counts."""
MEMBER_WEIGHT = 1.0
"""How much a term of a name a file defines inside a class counts."""
USE_WEIGHT = 0.5
"""How much a term of an identifier a file uses counts."""

MENTION_PATH = 1.0
"""Score of a file whose path the task names (shared among the files it could mean)."""
MENTION_MODULE = 1.0
"""Score of a file a dotted module name in the task names."""
MENTION_DEFINITION = 0.5
"""Score of defining an identifier the task writes (shared among its definers)."""
TRACE_FRAME = 1.0
"""Score of a file a stack trace's frame names (shared among the files it could mean)."""
MAX_DEFINERS = 6
"""An identifier defined in more files than this says little about where a task points."""

GRAPH_WEIGHT = 0.2
"""How much the graph step's rank (scaled to the best file's) adds to a file's score."""
GRAPH_SEEDS = 30
"""How many of the best files seed the graph step's random jumps."""
TEST_FACTOR = 0.3
"""A test file's score is multiplied by this for a task that is not about tests."""

_K1 = 1.2
_B = 0.75

_IDENT = re.compile(r"[^\W\d]\w*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_PATH = re.compile(r"(?:[\w.-]+[/\\])+[\w.-]+|[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7}\b")
_DOTTED = re.compile(r"\b[^\W\d]\w*(?:\.[^\W\d]\w*)+\b")
_TRACE = re.compile(
    r"""File\ "(?P<file>[^"\n]+)",\ line\ (?P<line>\d+)(?:,\ in\ (?P<func>[\w<>.]+))?"""
    r"""|(?P<file2>[\w./\\-]+\.\w{1,6}):(?P<line2>\d+)(?::\d+)?(?::\ in\ (?P<func2>\w+))?""",
    re.VERBOSE,
)
_TEST_WORDS = frozenset(("test", "tests", "testing", "fixture", "fixtures", "unittest"))
_STOP = frozenset(
    str.split(
        "the and for with this that from into onto when what which where why how are was "
        "were been being have has had not but all any can could should would will shall "
        "may might must get gets got use used uses using also only then than there their "
        "them they its our your you very just like need needs want wants does doesn isn "
        "aren about over under out off now again because while without within between "
        "through some other each every here there one two more most less still even after "
        "before same such self cls none true false return def class import pass else elif "
        "try except raise lambda yield print www com org html make makes made "
        "making add adds added fix fixes fixed change changes changed update updates "
        "updated remove removes removed new old please sure instead already right wrong "
        "first last expected actual result behavior behaviour example following happen "
        "happens seems think would way thing things"
    )
)
"""Words of a task that name nothing worth ranking toward: English glue and Python
keywords (a task quotes code)."""


class InvalidTask(UsageError):
    """A task text that cannot be ranked for (empty, binary, or far too long)."""


@dataclass(frozen=True, kw_only=True)
class FileDocument:
    """What ranking reads of one file: its path and the names it defines and uses."""

    path: str
    """The file's path, relative to the root, with ``/`` separators."""
    defs: tuple[str, ...] = ()
    """Names it defines at module level."""
    members: tuple[str, ...] = ()
    """Names it defines inside classes (methods, properties)."""
    uses: Collection[str] = ()
    """Identifiers it uses."""
    is_test: bool = False
    """Whether it is a test file or fixture."""


@dataclass(frozen=True, kw_only=True)
class RankReason:
    """One signal's part in a file's score."""

    signal: str
    """``lexical``, ``path``, ``module``, ``definition``, ``trace``, ``graph`` or ``test``."""
    detail: str
    """What matched: the terms, the path, the identifier, the frame."""
    weight: float
    """What the signal added to the score (for ``test``: the factor it was multiplied by)."""


@dataclass(frozen=True, kw_only=True)
class RelevantFile:
    """A file with its relevance to a task and the reasons for it."""

    path: str
    """The file's path."""
    score: float
    """Its relevance; files are ordered by it, highest first."""
    reasons: tuple[RankReason, ...]
    """What each signal added, strongest first."""


@dataclass(frozen=True, kw_only=True)
class TaskRanking:
    """Every file of a repository ordered by its relevance to a task."""

    task: str
    """The task text."""
    files: tuple[RelevantFile, ...]
    """Every file, most relevant first (ties by path)."""
    about_tests: bool
    """Whether the task is about tests (then tests are not demoted)."""

    def scores(self) -> dict[str, float]:
        """Each file's score, by path."""
        return {f.path: f.score for f in self.files}

    def order(self) -> list[str]:
        """The paths, most relevant first."""
        return [f.path for f in self.files]


Propagate = Callable[[Mapping[str, float]], Mapping[str, float]]
"""The graph step: personalised PageRank of every file for the given jump weights."""


def check_task(task: str) -> str:
    """``task`` if it can be ranked for; :class:`InvalidTask` naming what is wrong else."""
    if len(task) > MAX_TASK_CHARS:
        raise InvalidTask(
            f"the task is {len(task):,} characters; the limit is {MAX_TASK_CHARS:,}. "
            "Describe the task, and name the files or paste the error it is about"
        )
    if not task.strip():
        raise InvalidTask("the task is empty; describe what should change")
    controls = sum(1 for ch in task if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r")
    if "\0" in task or controls > max(8, len(task) // 100) or "\ufffd" in task[:4096]:
        raise InvalidTask("the task is binary or undecodable text; give the task as UTF-8 text")
    return task


@lru_cache(maxsize=262_144)
def split_identifier(name: str) -> tuple[str, ...]:
    """The lower-cased terms of an identifier: ``parseJSON_value`` gives ``parse``,
    ``json``, ``value`` and, for a compound, the whole name (``parsejson_value``)."""
    parts: list[str] = []
    for piece in name.split("_"):
        if piece:
            found = _CAMEL.findall(piece)
            parts.extend(p.lower() for p in found) if found else parts.append(piece.lower())
    terms = [p for p in parts if len(p) > 2 and p not in _STOP]
    whole = name.lower().strip("_")
    if len(parts) > 1 and len(whole) > 2 and whole not in _STOP:
        terms.append(whole)
    return tuple(terms)


def task_about_tests(task: str) -> bool:
    """Whether the task's first line (its title) speaks of tests or fixtures."""
    title = task.strip().splitlines()[0] if task.strip() else ""
    return any(word.lower() in _TEST_WORDS for word in _IDENT.findall(title))


def rank_for_task(
    task: str,
    documents: Iterable[FileDocument],
    *,
    propagate: Propagate | None = None,
) -> TaskRanking:
    """Every file of ``documents`` ordered by its relevance to ``task``, with the reasons.

    ``propagate`` is the graph step (omitted: no graph signal). Raises :class:`InvalidTask`
    for a task that cannot be ranked for (see :func:`check_task`).
    """
    check_task(task)
    docs = {d.path: d for d in documents}
    about_tests = task_about_tests(task)
    parts: dict[str, list[RankReason]] = {}

    def add(path: str, signal: str, detail: str, weight: float) -> None:
        parts.setdefault(path, []).append(RankReason(signal=signal, detail=detail, weight=weight))

    for path, weight, terms in _lexical(task, docs):
        add(path, "lexical", ", ".join(terms), weight)
    for path, signal, detail, weight in _mentions(task, docs):
        add(path, signal, detail, weight)

    def factor(path: str) -> float:
        exempt = any(r.signal in ("path", "trace") for r in parts.get(path, ()))
        return TEST_FACTOR if docs[path].is_test and not about_tests and not exempt else 1.0

    scores = {p: sum(r.weight for r in reasons) * factor(p) for p, reasons in parts.items()}
    if propagate is not None and scores:
        seeds = dict(heapq.nlargest(GRAPH_SEEDS, scores.items(), key=lambda kv: (kv[1], kv[0])))
        ranks = propagate(seeds)
        best = max(ranks.values(), default=0.0)
        if best > 0:
            for path, rank in ranks.items():
                if path in docs and rank > 0:
                    weight = GRAPH_WEIGHT * rank / best
                    add(path, "graph", "near the files above in the reference graph", weight)
                    scores[path] = scores.get(path, 0.0) + weight * factor(path)
    files = []
    for path in docs:
        reasons = sorted(parts.get(path, ()), key=lambda r: (-r.weight, r.signal))
        shrink = factor(path)
        if reasons and shrink != 1.0:
            reasons.append(RankReason(signal="test", detail="a test file", weight=shrink))
        files.append(RelevantFile(path=path, score=scores.get(path, 0.0), reasons=tuple(reasons)))
    files.sort(key=lambda f: (-f.score, f.path))
    return TaskRanking(task=task, files=tuple(files), about_tests=about_tests)


def _task_terms(task: str) -> Counter[str]:
    terms: Counter[str] = Counter()
    for ident in _IDENT.findall(task):
        terms.update(split_identifier(ident))
    return terms


def _lexical(task: str, docs: Mapping[str, FileDocument]) -> list[tuple[str, float, list[str]]]:
    """BM25 of every file that shares a term with the task: (path, score scaled to the best
    file's, its strongest terms)."""
    query = _task_terms(task)
    if not query or not docs:
        return []
    fields = {
        path: (
            (_path_names(path), PATH_WEIGHT),
            (doc.defs, DEFINITION_WEIGHT),
            (doc.members, MEMBER_WEIGHT),
            (doc.uses, USE_WEIGHT),
        )
        for path, doc in docs.items()
    }
    # Each distinct identifier is split once; a file's identifiers that hold a task term are
    # then found by one set intersection per field.
    vocabulary: set[str] = set()
    for parts in fields.values():
        for names, _ in parts:
            vocabulary.update(names)
    wanted = set(query)
    # Only identifiers that hold a task term's letters can hold the term: one regular
    # expression over every identifier finds those, and only they are split.
    holds = re.compile("|".join(map(re.escape, sorted(wanted, key=len, reverse=True))), re.I)
    matching = {}
    for name in filter(holds.search, vocabulary):
        hit = wanted.intersection(split_identifier(name))
        if hit:
            matching[name] = tuple(sorted(hit))
    matched = set(matching)
    frequencies: dict[str, dict[str, float]] = {}
    lengths: dict[str, float] = {}
    for path, parts in fields.items():
        counts: dict[str, float] = {}
        length = 0.0
        for names, weight in parts:
            length += weight * len(names)
            # A term counts once per field: a file using forty ``print_*`` helpers is not
            # forty times about printing.
            terms = {t for name in matched.intersection(names) for t in matching[name]}
            for term in terms:
                counts[term] = counts.get(term, 0.0) + weight
        lengths[path] = length
        if counts:
            frequencies[path] = counts
    return _bm25(query, frequencies, lengths)


def _bm25(
    query: Counter[str],
    frequencies: Mapping[str, Mapping[str, float]],
    lengths: Mapping[str, float],
) -> list[tuple[str, float, list[str]]]:
    """Okapi BM25 of the files in ``frequencies`` (weighted term counts) for ``query``."""
    n = len(lengths)
    average = (sum(lengths.values()) / n) or 1.0
    document_counts = Counter(t for counts in frequencies.values() for t in counts)
    found = []
    for path, counts in frequencies.items():
        norm = _K1 * (1 - _B + _B * lengths[path] / average)
        contributions = []
        for term, f in counts.items():
            df = document_counts[term]
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            gain = idf * f * (_K1 + 1) / (f + norm) * (1 + math.log(query[term]))
            contributions.append((gain, term))
        contributions.sort(reverse=True)
        found.append((path, sum(c for c, _ in contributions), [t for _, t in contributions[:5]]))
    best = max((score for _, score, _ in found), default=0.0) or 1.0
    return [(path, score / best, terms) for path, score, terms in found]


def _path_names(path: str) -> tuple[str, ...]:
    """The names in a path's parts (``src/app/cli_tools.py`` gives src, app, cli_tools)."""
    return tuple(part for part in re.split(r"[/.\-\s]+", path) if part)


class _PathIndex:
    """Files by their last path part, to find the files a path written in a task means."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.by_name: dict[str, list[str]] = {}
        for path in paths:
            self.by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)

    def ending(self, parts: list[str]) -> list[str]:
        """The files whose path ends with ``parts``."""
        tail = "/" + "/".join(parts)
        return [p for p in self.by_name.get(parts[-1], ()) if ("/" + p).endswith(tail)]

    def match(self, written: str) -> list[str]:
        """The files a path as written in a task may mean: the longest trailing part of it
        that names files of the repository (``/usr/lib/x/site-packages/app/cli.py`` means
        ``src/app/cli.py``); nothing for a bare name that many files share."""
        parts = [p for p in written.replace("\\", "/").split("/") if p not in ("", ".")]
        for i in range(len(parts)):
            hit = self.ending(parts[i:])
            if hit:
                return hit if len(hit) <= MAX_DEFINERS else []
        return []


def _mentions(task: str, docs: Mapping[str, FileDocument]) -> Iterable[tuple[str, str, str, float]]:
    """(path, signal, detail, weight) for each exact mention of a file in ``task``."""
    index = _PathIndex(docs)
    found: list[tuple[str, str, str, float]] = []
    traced: set[str] = set()
    for frame in _TRACE.finditer(task):
        written = frame.group("file") or frame.group("file2") or ""
        line = frame.group("line") or frame.group("line2")
        function = frame.group("func") or frame.group("func2")
        hit = index.match(written)
        detail = f"{written}:{line}" + (f" in {function}" if function else "")
        for path in hit:
            found.append((path, "trace", detail, TRACE_FRAME / len(hit)))
        traced.add(written)
    for match in _PATH.finditer(task):
        written = match.group(0).strip(".")
        if written in traced or not written:
            continue
        hit = index.match(written)
        for path in hit:
            found.append((path, "path", written, MENTION_PATH / len(hit)))
    for match in _DOTTED.finditer(task):
        names = match.group(0).split(".")
        for end in range(len(names), 1, -1):
            module = names[: end - 1]
            meant = index.ending([*module, names[end - 1] + ".py"]) or index.ending(
                [*module, names[end - 1], "__init__.py"]
            )
            if meant and len(meant) <= MAX_DEFINERS:
                for path in meant:
                    found.append((path, "module", match.group(0), MENTION_MODULE / len(meant)))
                break
    definers: dict[str, list[str]] = {}
    written_names = {w for w in _IDENT.findall(task) if len(w) > 2 and w.lower() not in _STOP}
    for path, doc in docs.items():
        for name in written_names.intersection(doc.defs) | written_names.intersection(doc.members):
            definers.setdefault(name, []).append(path)
    for name, paths in definers.items():
        if len(paths) <= MAX_DEFINERS:
            for path in paths:
                found.append((path, "definition", name, MENTION_DEFINITION / len(paths)))
    return found
