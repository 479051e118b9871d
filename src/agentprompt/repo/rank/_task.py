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
import marshal
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from agentprompt.errors import UsageError

__all__ = [
    "MAX_TASK_CHARS",
    "FileDocument",
    "InvalidTask",
    "LexicalIndex",
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
FIELD_WEIGHTS = (PATH_WEIGHT, DEFINITION_WEIGHT, MEMBER_WEIGHT, USE_WEIGHT)
"""The weights of a file's fields, in :attr:`LexicalIndex.postings`' order."""

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
MAX_DETAILS = 3
"""A reason lists at most this many matches (paths, names, frames), then how many more."""
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
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
"""A lone surrogate: bytes that were not UTF-8, as Python keeps them from a command line."""
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
    terms: frozenset[str] = frozenset()
    """The task's terms, as :func:`split_identifier` gives them for its identifiers."""

    def scores(self) -> dict[str, float]:
        """Each file's score, by path."""
        return {f.path: f.score for f in self.files}

    def order(self) -> list[str]:
        """The paths, most relevant first."""
        return [f.path for f in self.files]


@dataclass(frozen=True, kw_only=True)
class LexicalIndex:
    """Which files hold each identifier, field by field: what the lexical and definition
    signals read, built once from :class:`FileDocument` values and storable as bytes, so
    a repository whose names did not change is not read again for a new task."""

    paths: tuple[str, ...]
    """Every file's path; a file is its number in this tuple."""
    tests: frozenset[int]
    """The numbers of test files."""
    lengths: tuple[float, ...]
    """Each file's weighted count of names (BM25's document length)."""
    postings: tuple[Mapping[str, str], ...]
    """For each field (path parts, module-level definitions, class members, identifiers
    used): each name with the numbers of the files holding it, space-separated."""
    vocabulary: str
    """Every name of every field, one a line (searched for a task's terms)."""

    @classmethod
    def build(cls, documents: Iterable[FileDocument]) -> LexicalIndex:
        """The index of ``documents``."""
        paths: list[str] = []
        tests: set[int] = set()
        lengths: list[float] = []
        tables: tuple[dict[str, list[str]], ...] = ({}, {}, {}, {})
        for number, doc in enumerate(documents):
            paths.append(doc.path)
            if doc.is_test:
                tests.add(number)
            tag = str(number)
            fields = (_path_names(doc.path), doc.defs, doc.members, doc.uses)
            length = 0.0
            for table, names, weight in zip(tables, fields, FIELD_WEIGHTS, strict=True):
                length += weight * len(names)
                for name in set(names):
                    found = table.get(name)
                    if found is None:
                        table[name] = [tag]
                    else:
                        found.append(tag)
            lengths.append(length)
        postings = tuple({name: " ".join(tags) for name, tags in t.items()} for t in tables)
        every: set[str] = set()
        every.update(*postings)
        return cls(
            paths=tuple(paths),
            tests=frozenset(tests),
            lengths=tuple(lengths),
            postings=postings,
            vocabulary="\n".join(sorted(every)),
        )

    def definers(self, name: str) -> list[str]:
        """The files defining ``name`` at module level or in a class."""
        numbers = f"{self.postings[1].get(name, '')} {self.postings[2].get(name, '')}".split()
        return [self.paths[int(n)] for n in dict.fromkeys(numbers)]

    def to_bytes(self) -> bytes:
        """The index as bytes (see :meth:`from_bytes`)."""
        return marshal.dumps(
            (
                INDEX_VERSION,
                self.paths,
                tuple(sorted(self.tests)),
                self.lengths,
                tuple(dict(t) for t in self.postings),
                self.vocabulary,
            )
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> LexicalIndex | None:
        """The index :meth:`to_bytes` wrote, or None for bytes of another version or
        damaged ones (then the index is built again)."""
        try:
            version, paths, tests, lengths, postings, vocabulary = marshal.loads(data)
        except (ValueError, EOFError, TypeError):
            return None
        if version != INDEX_VERSION or len(postings) != len(FIELD_WEIGHTS):
            return None
        return cls(
            paths=paths,
            tests=frozenset(tests),
            lengths=lengths,
            postings=postings,
            vocabulary=vocabulary,
        )


INDEX_VERSION = 1
"""Changes whenever :class:`LexicalIndex`'s bytes or what it holds change."""


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
    controls = len(_CONTROL.findall(task))
    undecodable = _SURROGATE.search(task) is not None or "\ufffd" in task[:4096]
    if "\0" in task or controls > max(8, len(task) // 100) or undecodable:
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
    documents: LexicalIndex | Iterable[FileDocument],
    *,
    propagate: Propagate | None = None,
) -> TaskRanking:
    """Every file of ``documents`` (or of an index of them, see :class:`LexicalIndex`)
    ordered by its relevance to ``task``, with the reasons.

    ``propagate`` is the graph step (omitted: no graph signal). Raises :class:`InvalidTask`
    for a task that cannot be ranked for (see :func:`check_task`).
    """
    check_task(task)
    index = documents if isinstance(documents, LexicalIndex) else LexicalIndex.build(documents)
    tests = {index.paths[i] for i in index.tests}
    about_tests = task_about_tests(task)
    parts: dict[str, list[RankReason]] = {}

    def add(path: str, signal: str, detail: str, weight: float) -> None:
        parts.setdefault(path, []).append(RankReason(signal=signal, detail=detail, weight=weight))

    query = _task_terms(task)
    for path, weight, terms in _lexical(query, index):
        add(path, "lexical", ", ".join(terms), weight)
    for path, signal, detail, weight in _mentions(task, index):
        add(path, signal, detail, weight)

    def factor(path: str) -> float:
        exempt = any(r.signal in ("path", "trace") for r in parts.get(path, ()))
        return TEST_FACTOR if path in tests and not about_tests and not exempt else 1.0

    scores = {p: sum(r.weight for r in reasons) * factor(p) for p, reasons in parts.items()}
    if propagate is not None and scores:
        seeds = dict(heapq.nlargest(GRAPH_SEEDS, scores.items(), key=lambda kv: (kv[1], kv[0])))
        ranks = propagate(seeds)
        best = max(ranks.values(), default=0.0)
        if best > 0:
            known = set(index.paths)
            for path, rank in ranks.items():
                if path in known and rank > 0:
                    weight = GRAPH_WEIGHT * rank / best
                    add(path, "graph", "near the files above in the reference graph", weight)
                    scores[path] = scores.get(path, 0.0) + weight * factor(path)
    files = []
    for path in index.paths:
        reasons = _merged(parts.get(path, ()))
        shrink = factor(path)
        if reasons and shrink != 1.0:
            reasons.append(RankReason(signal="test", detail="a test file", weight=shrink))
        files.append(RelevantFile(path=path, score=scores.get(path, 0.0), reasons=tuple(reasons)))
    files.sort(key=lambda f: (-f.score, f.path))
    return TaskRanking(
        task=task, files=tuple(files), about_tests=about_tests, terms=frozenset(query)
    )


def _merged(reasons: Iterable[RankReason]) -> list[RankReason]:
    """One reason per signal (weights added, details listed once each, at most
    :data:`MAX_DETAILS` of them), strongest first."""
    by_signal: dict[str, list[RankReason]] = {}
    for reason in reasons:
        by_signal.setdefault(reason.signal, []).append(reason)
    merged = []
    for signal, found in by_signal.items():
        details = list(dict.fromkeys(r.detail for r in found))
        detail = ", ".join(details[:MAX_DETAILS])
        if len(details) > MAX_DETAILS:
            detail += f", +{len(details) - MAX_DETAILS}"
        weight = sum(r.weight for r in found)
        merged.append(RankReason(signal=signal, detail=detail, weight=weight))
    return sorted(merged, key=lambda r: (-r.weight, r.signal))


def _task_terms(task: str) -> Counter[str]:
    terms: Counter[str] = Counter()
    for ident in _IDENT.findall(task):
        terms.update(split_identifier(ident))
    return terms


def _lexical(query: Counter[str], index: LexicalIndex) -> list[tuple[str, float, list[str]]]:
    """BM25 of every file that shares a term with the task: (path, score scaled to the best
    file's, its strongest terms)."""
    if not query or not index.paths:
        return []
    wanted = set(query)
    matching = {}
    for name in _holding(index.vocabulary, wanted):
        hit = wanted.intersection(split_identifier(name))
        if hit:
            matching[name] = tuple(sorted(hit))
    # A term counts once per field of a file: a file using forty ``print_*`` helpers is not
    # forty times about printing.
    found: dict[tuple[str, int], set[str]] = {}
    for field, postings in enumerate(index.postings):
        for name in [n for n in matching if n in postings]:
            terms = matching[name]
            for number in postings[name].split():
                found.setdefault((number, field), set()).update(terms)
    frequencies: dict[str, dict[str, float]] = {}
    for (number, field), held in found.items():
        counts = frequencies.setdefault(index.paths[int(number)], {})
        for term in held:
            counts[term] = counts.get(term, 0.0) + FIELD_WEIGHTS[field]
    lengths = dict(zip(index.paths, index.lengths, strict=True))
    return _bm25(query, frequencies, lengths)


def _holding(text: str, terms: Iterable[str]) -> set[str]:
    """The names of ``text`` (one a line) in which one of ``terms`` (lower-case) occurs,
    whatever the case."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer: name by name
        wanted = tuple(terms)
        return {n for n in text.split("\n") if any(t in n.lower() for t in wanted)}
    found = set()
    for term in terms:
        start = lowered.find(term)
        while start >= 0:
            begin = lowered.rfind("\n", 0, start) + 1
            end = lowered.find("\n", start)
            end = len(text) if end < 0 else end
            found.add(text[begin:end])
            start = lowered.find(term, end)
    return found


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


def _path_names(path: str) -> list[str]:
    """The names in a path's parts (``src/app/cli_tools.py`` gives src, app, cli_tools)."""
    return path.replace("/", " ").replace(".", " ").replace("-", " ").split()


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

    def match(self, written: str) -> tuple[list[str], str]:
        """The files a path as written in a task may mean, and the part of it that matched:
        the longest trailing part that names files of the repository
        (``/usr/lib/x/site-packages/app/cli.py`` means ``src/app/cli.py`` by ``app/cli.py``);
        nothing for a bare name that many files share."""
        parts = [p for p in written.replace("\\", "/").split("/") if p not in ("", ".")]
        for i in range(len(parts)):
            hit = self.ending(parts[i:])
            if hit:
                return (hit if len(hit) <= MAX_DEFINERS else []), "/".join(parts[i:])
        return [], ""


def _mentions(task: str, index: LexicalIndex) -> Iterable[tuple[str, str, str, float]]:
    """(path, signal, detail, weight) for each exact mention of a file in ``task``."""
    paths = _PathIndex(index.paths)
    found: list[tuple[str, str, str, float]] = []
    traced: set[str] = set()
    for frame in _TRACE.finditer(task):
        written = frame.group("file") or frame.group("file2") or ""
        line = frame.group("line") or frame.group("line2")
        function = frame.group("func") or frame.group("func2")
        hit, matched = paths.match(written)
        detail = f"{matched}:{line}" + (f" in {function}" if function else "")
        for path in hit:
            found.append((path, "trace", detail, TRACE_FRAME / len(hit)))
        traced.add(written)
    for match in _PATH.finditer(task):
        written = match.group(0).strip(".")
        if written in traced or not written:
            continue
        hit, matched = paths.match(written)
        for path in hit:
            found.append((path, "path", matched, MENTION_PATH / len(hit)))
    for match in _DOTTED.finditer(task):
        names = match.group(0).split(".")
        for end in range(len(names), 1, -1):
            module = names[: end - 1]
            meant = paths.ending([*module, names[end - 1] + ".py"]) or paths.ending(
                [*module, names[end - 1], "__init__.py"]
            )
            if meant and len(meant) <= MAX_DEFINERS:
                for path in meant:
                    found.append((path, "module", match.group(0), MENTION_MODULE / len(meant)))
                break
    written_names = {w for w in _IDENT.findall(task) if len(w) > 2 and w.lower() not in _STOP}
    for name in sorted(written_names):
        definers = index.definers(name)
        if 0 < len(definers) <= MAX_DEFINERS:
            for path in definers:
                found.append((path, "definition", name, MENTION_DEFINITION / len(definers)))
    return found
