"""Secret screening of everything a bridge prompt includes, spread over the cores when much
text is headed in (a whole repository packed at once).

Each worker runs the repository engine's detect-secrets scan
(:func:`agentprompt.repo.secrets.scan_texts`, which skips the texts detect-secrets' own
rules cannot flag) on a share of the files, so the findings are exactly those of a scan in
one process. Forked workers find the texts in the memory they inherit and are sent only
which ones to scan (a whole repository's text would otherwise be pickled through a pipe).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from agentprompt.bridge._secretcache import cached_scan
from agentprompt.repo.secrets import SecretFinding, SecretScreen, may_hold_secret, scan_texts
from agentprompt.shares import map_shares

__all__ = ["PARALLEL_SCREEN_THRESHOLD", "scan_in_workers", "screen_prompt_texts"]

PARALLEL_SCREEN_THRESHOLD = 300
"""Fewer files than this are scanned in-process (starting workers would cost more)."""
_CHUNK = 64


def _scan_chunk(items: Sequence[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
    """detect-secrets' findings for one share of the files, in a worker."""
    return scan_texts(items)


def scan_in_workers(
    items: Sequence[tuple[str, str]], workers: int | None = None
) -> dict[str, tuple[SecretFinding, ...]]:
    """detect-secrets' findings for ``items`` (nothing remembered), in ``workers``
    processes (default: one per core) when there are many."""
    return _scan(items, workers if workers is not None else (os.cpu_count() or 1))


def _scan(items: Sequence[tuple[str, str]], workers: int) -> dict[str, tuple[SecretFinding, ...]]:
    """detect-secrets' findings for ``items``, in ``workers`` processes when there are many."""
    if not items:
        return {}
    # The rules and their prefilter are built once per process, on first use; building them
    # takes about 100 MB for a moment. Built here first, forked workers inherit them.
    may_hold_secret("", "")
    if workers <= 1 or len(items) < PARALLEL_SCREEN_THRESHOLD:
        return _scan_chunk(items)
    # Largest texts first, in small chunks, so no worker is left with a long tail.
    order = sorted(range(len(items)), key=lambda n: -len(items[n][1]))
    chunks = [order[i : i + _CHUNK] for i in range(0, len(order), _CHUNK)]
    found: dict[str, tuple[SecretFinding, ...]] = {}
    for part in map_shares(items, chunks, _scan_chunk, workers):
        found.update(part)
    return found


def screen_prompt_texts(
    items: Sequence[tuple[str, str]],
    *,
    workers: int | None = None,
    cache_path: Path | None = None,
    digests: Mapping[str, str] | None = None,
) -> SecretScreen:
    """Which ``(path, text)`` pairs may go into the prompt; a path with a likely secret is
    withheld (see :func:`agentprompt.repo.secrets.screen_texts`). With ``cache_path``, scans
    are remembered there (:mod:`agentprompt.bridge._secretcache`), keyed by the texts'
    digests (those in ``digests`` are not worked out again)."""
    count = workers if workers is not None else (os.cpu_count() or 1)
    if cache_path is None:
        found = _scan(items, count)
    else:
        found = cached_scan(items, lambda todo: _scan(todo, count), cache_path, digests)
    allowed: list[str] = []
    withheld: list[str] = []
    findings: list[SecretFinding] = []
    for path, _text in items:
        hits = found.get(path, ())
        findings.extend(hits)
        (withheld if hits else allowed).append(path)
    return SecretScreen(allowed=tuple(allowed), withheld=tuple(withheld), findings=tuple(findings))
