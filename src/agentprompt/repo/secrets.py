"""Secrets in content headed into a prompt, found with detect-secrets before the model sees it.

Only text about to be included is scanned (never the whole repository), with
detect-secrets' public ``scan_file`` (both of its passes, so unquoted ``KEY=value`` lines
in ``.env`` files, shell scripts and ``.npmrc`` are read too) and its default plugins and
filters. The exact text read is written to a private temporary file with the same file name
(detect-secrets reads the file type from it), scanned, and deleted; no baseline is written
and nothing is verified over the network. A finding names the file, the line and the
kind of secret, never the secret itself. Results are remembered per (path, content) for the
life of the process, so a file offered again in a later round is not scanned twice.
"""

from __future__ import annotations

import hashlib
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from agentprompt.errors import AgentPromptError
from agentprompt.repo.secretfilter import may_hold_secret

__all__ = [
    "SecretFinding",
    "SecretScanUnavailable",
    "SecretScreen",
    "scan_text",
    "scan_texts",
    "screen_texts",
]

_CACHE_ENTRIES = 4096
_cache: OrderedDict[tuple[str, str], tuple[SecretFinding, ...]] = OrderedDict()
_lock = threading.Lock()


class SecretScanUnavailable(AgentPromptError):
    """The installed detect-secrets cannot scan text in memory."""


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


def _scan_uncached(items: list[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
    """detect-secrets' own file scan (``scan_file``, both its passes) of each text, written
    to a temporary file that keeps the original file name, so the file type is read the same."""
    try:
        from detect_secrets.core.scan import scan_file
        from detect_secrets.settings import default_settings
    except ImportError as exc:
        raise SecretScanUnavailable(
            f"detect-secrets cannot be imported ({exc}); reinstall agentprompt's dependencies"
        ) from None
    found: dict[str, tuple[SecretFinding, ...]] = {}
    with tempfile.TemporaryDirectory(prefix="agentprompt-scan-") as folder, default_settings():
        for number, (path, text) in enumerate(items):
            place = Path(folder) / str(number)
            place.mkdir()
            copy = place / (PurePosixPath(path).name or "file")
            copy.write_bytes(text.encode("utf-8", "surrogatepass"))
            seen: set[tuple[int, str]] = set()
            hits: list[SecretFinding] = []
            secret: Any
            for secret in scan_file(str(copy)):
                where = (int(secret.line_number), str(secret.type))
                if where not in seen:
                    seen.add(where)
                    hits.append(SecretFinding(path=path, line=where[0], kind=where[1]))
            found[path] = tuple(sorted(hits, key=lambda h: (h.line, h.kind)))
    return found


def _candidates(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The texts detect-secrets' own rules could flag (all of them when detect-secrets cannot
    be imported: the scan then says so)."""
    try:
        return [(path, text) for path, text in items if may_hold_secret(path, text)]
    except ImportError:
        return items


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
            # Texts detect-secrets' own rules cannot flag have no findings: only the rest
            # are scanned (see agentprompt.repo.secretfilter).
            fresh: dict[str, tuple[SecretFinding, ...]] = {path: () for path, _ in todo}
            fresh.update(_scan_uncached(_candidates(todo)))
            for path, hits in fresh.items():
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
