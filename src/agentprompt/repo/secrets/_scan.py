"""Secrets in content headed into a prompt, found with detect-secrets before the model sees it.

Only text about to be included is scanned (never the whole repository), with
detect-secrets' default plugins and filters, and with the findings of its public
``scan_file`` (both of its passes, so unquoted ``KEY=value`` lines in ``.env`` files,
shell scripts and ``.npmrc`` are read too). detect-secrets' own rules first say which
lines it could flag (:mod:`agentprompt.repo.secrets._filter`): a text with none is not
scanned, and in the others its per-line loop reads only those lines, in memory
(:mod:`agentprompt.repo.secrets._lines`; where its transformers may rewrite the lines, as
in YAML and INI files, they are asked too). Only when the rules do not cover its plugins,
or the installed detect-secrets is not the version that loop was written for, does
``scan_file`` itself read the texts: the exact text is written to a private temporary file
with the same file name (detect-secrets reads the file type from it), scanned, and
deleted. Files named like secret stores and URL passwords detect-secrets misses are
findings too (:mod:`agentprompt.repo.secrets.stores`). No baseline is written and nothing
is verified
over the network. A finding names the file, the line and the kind of secret, never the
secret itself. Results are remembered per (path, content) for the life of the process, so
a file offered again in a later round is not scanned twice.
"""

from __future__ import annotations

import hashlib
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from agentprompt.errors import AgentPromptError
from agentprompt.repo.secrets._filter import candidate_lines, may_be_rewritten
from agentprompt.repo.secrets._lines import line_scanner
from agentprompt.repo.secrets.stores import STORE_KIND, extra_findings

__all__ = [
    "SecretFinding",
    "SecretScreen",
    "scan_text",
    "scan_texts",
    "screen_texts",
]

_CACHE_ENTRIES = 4096
_cache: OrderedDict[tuple[str, str], tuple[SecretFinding, ...]] = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True, kw_only=True)
class SecretFinding:
    """A likely secret in a file (its kind and place, never its value)."""

    path: str
    """The file, relative to the root."""
    line: int
    """1-based line number."""
    kind: str
    """detect-secrets' name for it, e.g. ``AWS Access Key`` or ``Secret Keyword``."""

    def describe(self) -> str:
        """``path:line: kind``, for reports."""
        return f"{self.path}:{self.line}: {self.kind}"


@dataclass(frozen=True, kw_only=True)
class SecretScreen:
    """Which texts may go into a prompt, and which were held back for holding secrets."""

    allowed: tuple[str, ...]
    """Paths whose text may be included."""
    withheld: tuple[str, ...]
    """Paths left out because they hold a likely secret."""
    findings: tuple[SecretFinding, ...]
    """Every finding, in path and line order (also for allowed paths when secrets are allowed)."""


def _key(path: str, text: str) -> tuple[str, str]:
    return (path, hashlib.blake2b(text.encode("utf-8", "surrogatepass")).hexdigest())


def _findings(path: str, found: Iterable[tuple[int, str]]) -> tuple[SecretFinding, ...]:
    """One finding per line and kind, in line order."""
    where = sorted(set(found))
    return tuple(SecretFinding(path=path, line=line, kind=kind) for line, kind in where)


def _scan_whole_files(items: list[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
    """detect-secrets' own file scan (``scan_file``, both its passes) of each text, written
    to a temporary file that keeps the original file name, so the file type is read the same."""
    try:
        from detect_secrets.core.scan import scan_file
        from detect_secrets.settings import default_settings
    except ImportError as exc:
        raise AgentPromptError(
            f"detect-secrets cannot be imported ({exc}); reinstall agentprompt's dependencies"
        ) from None
    found: dict[str, tuple[SecretFinding, ...]] = {}
    if not items:
        return found
    with tempfile.TemporaryDirectory(prefix="agentprompt-scan-") as folder, default_settings():
        for number, (path, text) in enumerate(items):
            place = Path(folder) / str(number)
            place.mkdir()
            copy = place / _file_name(path)
            copy.write_bytes(text.encode("utf-8", "surrogatepass"))
            hits = [(int(s.line_number), str(s.type)) for s in scan_file(str(copy))]
            found[path] = _findings(path, hits)
    return found


def _file_name(path: str) -> str:
    """The name detect-secrets sees: the file's own (it reads the file type from it)."""
    return PurePosixPath(path).name or "file"


@dataclass(frozen=True, kw_only=True)
class _LinePlan:
    """What detect-secrets must read of one text."""

    path: str
    text: str
    lines: frozenset[int]
    """The text's own lines it could flag."""
    rewritten: bool
    """Whether its transformers may rewrite the lines (they must then be asked)."""


def _plan(path: str, text: str) -> _LinePlan | None:
    """What detect-secrets must read of the text, or None when ``scan_file`` must read the
    whole file (also when detect-secrets cannot be imported: the scan then says so)."""
    try:
        lines = candidate_lines(path, text)
        if lines is None:
            return None
        return _LinePlan(path=path, text=text, lines=lines, rewritten=may_be_rewritten(path, text))
    except ImportError:
        return None


def _scan_lines(
    plans: list[_LinePlan],
) -> tuple[dict[str, tuple[SecretFinding, ...]], list[tuple[str, str]]]:
    """detect-secrets' per-line loop over each text's candidate lines: the findings, and the
    texts it cannot scan that way (all of them when its version is not the supported one)."""
    found: dict[str, tuple[SecretFinding, ...]] = {}
    left: list[tuple[str, str]] = []
    with line_scanner() as scanner:
        for plan in plans:
            hits = None
            if scanner is not None:
                name = _file_name(plan.path)
                hits = scanner.scan(name, plan.text, plan.lines, rewritten=plan.rewritten)
            if hits is None:
                left.append((plan.path, plan.text))
            else:
                found[plan.path] = _findings(plan.path, hits)
    return found, left


def _scan_uncached(items: list[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
    """The findings in each text: none where detect-secrets' rules cannot flag a line and
    no transformer may rewrite the lines, else its own loop over the lines it could flag
    (and any rewritten lines); ``scan_file`` where the rules do not cover the text or the
    line scan is unavailable."""
    found: dict[str, tuple[SecretFinding, ...]] = {path: () for path, _ in items}
    whole: list[tuple[str, str]] = []
    by_line: list[_LinePlan] = []
    for path, text in items:
        plan = _plan(path, text)
        if plan is None:
            whole.append((path, text))
        elif plan.lines or plan.rewritten:
            by_line.append(plan)
    if by_line:
        scanned, left = _scan_lines(by_line)
        found.update(scanned)
        whole.extend(left)
    found.update(_scan_whole_files(whole))
    for path, text in items:
        # What detect-secrets misses: a file named like a secret store (whatever it holds
        # and whatever git says), a URL password with characters its rule does not take.
        extra = extra_findings(path, text)
        if not extra:
            continue
        known = [(f.line, f.kind) for f in found[path]]
        flagged = {line for line, _ in known}
        extra = [(line, kind) for line, kind in extra if kind == STORE_KIND or line not in flagged]
        found[path] = _findings(path, [*known, *extra])
    return found


def scan_texts(items: Iterable[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
    """The findings in each ``(path, text)``; a path with none maps to ``()``.

    The path matters: detect-secrets reads the file type from it (a keyword assignment in a
    ``.py`` file is judged differently from one in a ``.yaml`` file).
    """
    result: dict[str, tuple[SecretFinding, ...]] = {}
    todo: list[tuple[str, str]] = []
    keys: dict[str, tuple[str, str]] = {}
    with _lock:
        for path, text in items:
            key = keys[path] = _key(path, text)
            cached = _cache.get(key)
            if cached is None:
                todo.append((path, text))
            else:
                _cache.move_to_end(key)
                result[path] = cached
        if todo:
            for path, hits in _scan_uncached(todo).items():
                result[path] = hits
                _cache[keys[path]] = hits
            while len(_cache) > _CACHE_ENTRIES:
                _cache.popitem(last=False)
    return result


def scan_text(path: str, text: str) -> tuple[SecretFinding, ...]:
    """The likely secrets in one file's text."""
    return scan_texts([(path, text)])[path]


def screen_texts(items: Iterable[tuple[str, str]], *, allow_secrets: bool = False) -> SecretScreen:
    """Scan ``(path, text)`` pairs; paths with a finding are withheld unless ``allow_secrets``."""
    pairs = list(items)
    found = scan_texts(pairs)
    allowed: list[str] = []
    withheld: list[str] = []
    findings: list[SecretFinding] = []
    for path, _text in pairs:
        hits = found[path]
        findings.extend(hits)
        (withheld if hits and not allow_secrets else allowed).append(path)
    return SecretScreen(allowed=tuple(allowed), withheld=tuple(withheld), findings=tuple(findings))
