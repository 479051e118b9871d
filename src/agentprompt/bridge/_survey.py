"""The first look at the files a whole prompt shows in full: each text's facts, its secret
verdict and its block's token count, with the texts read a batch at a time and dropped.

What is remembered is not read again: a file whose facts are remembered for the stamp
discovery saw (:func:`~agentprompt.bridge._textfacts.recall_facts`) is read only when its
verdict or its count is not remembered too; the others are read, a few megabytes at a
time, and their facts, verdicts and counts worked out and remembered. What the prompt
keeps of each file is a :class:`~agentprompt.bridge._streamed.FileBody` (its text is read
again when the prompt is written, and checked to be the same), so no more than a batch of
texts is ever held (see :mod:`agentprompt.bridge._streamed`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

from agentprompt.bridge._render import WholeText, file_block
from agentprompt.bridge._screening import scan_in_workers, screen_prompt_texts
from agentprompt.bridge._secretcache import cached_scan
from agentprompt.bridge._streamed import BATCH_BYTES, FileBody, Piece, read_batches
from agentprompt.bridge._textfacts import TextFacts, recall_facts, text_facts
from agentprompt.repo.discovery import SniffStamp, read_texts
from agentprompt.repo.secrets import SecretFinding
from agentprompt.tokens import CountCache

__all__ = ["Survey", "survey_files"]

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Survey:
    """What a whole prompt needs of the files it shows in full, without their texts."""

    facts: dict[str, TextFacts]
    """The facts of each readable file's text, in the order asked for."""
    bodies: dict[str, Piece]
    """Each readable file's text as a piece: a :class:`FileBody` (or the text itself when
    the file could not be stamped, a symlink say)."""
    unreadable: dict[str, str]
    """Why each of the other files cannot be read."""
    findings: dict[str, tuple[SecretFinding, ...]]
    """The likely secrets in each readable file (empty: none)."""
    counts: dict[str, int]
    """The tokens of each file's block joined to a next one: the files without findings
    but the last asked for (which, shown, is the last block, with none after it)."""

    def whole(self, path: str) -> WholeText:
        """The file ``path`` as the prompt's frame needs it."""
        facts = self.facts[path]
        return WholeText(body=self.bodies[path], fence=facts.fence, ends_line=facts.ends_line)


_BATCH_FILES = 2_000
"""At most this many files are read at a time (a file's size may be unknown)."""


def _sized(paths: Sequence[str], sizes: Mapping[str, SniffStamp]) -> Iterator[list[str]]:
    """``paths`` in runs of about :data:`BATCH_BYTES` by their discovered sizes."""
    batch: list[str] = []
    size = 0
    for path in paths:
        stamp = sizes.get(path)
        batch.append(path)
        size += stamp[0] if stamp is not None else 0
        if size >= BATCH_BYTES or len(batch) >= _BATCH_FILES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _scan_bodies(
    bodies: Mapping[str, Piece], items: Sequence[tuple[str, str]]
) -> dict[str, tuple[SecretFinding, ...]]:
    """detect-secrets' findings for the files ``items`` name (their texts read from disk,
    a batch at a time)."""
    found: dict[str, tuple[SecretFinding, ...]] = {}
    kept = [(p, b) for p, _ in items if isinstance(b := bodies[p], str)]
    found.update(scan_in_workers(kept))
    stamped = [b for p, _ in items if isinstance(b := bodies[p], FileBody)]
    for texts in read_batches(stamped):
        found.update(scan_in_workers(list(texts.items())))
    return found


def _count_blocks(
    texts: Mapping[str, str], survey: Survey, counter: Callable[[], CountCache]
) -> None:
    """Count the joined blocks of ``texts`` (remembered counts are not worked out again)."""
    items = []
    for path, text in texts.items():
        block = file_block(path, survey.whole(path))
        digest = survey.facts[path].digest
        items.append((block.key(digest, joined=True), block.counted_text(text, joined=True)))
    counts = counter().count_each_keyed(items) if items else []
    survey.counts.update(zip(texts, counts, strict=True))


def survey_files(
    root: Path,
    paths: Sequence[str],
    discovered: Mapping[str, SniffStamp],
    cache: Path,
    counter: Callable[[], CountCache],
) -> Survey:
    """The :class:`Survey` of ``paths``; ``discovered``: the files' stamps taken by
    discovery (before any reading). Facts, verdicts and counts are remembered in
    ``cache``; ``counter`` gives the token counter, which keeps its counts there too (called
    only when one is needed)."""
    known = recall_facts({p: discovered[p] for p in paths if p in discovered}, cache)
    survey = Survey(facts={}, bodies={}, unreadable={}, findings={}, counts={})
    for path, facts in known.items():
        survey.facts[path] = facts
        survey.bodies[path] = FileBody(
            root=root, path=path, stamp=discovered[path], chars=facts.chars
        )
    if known:
        _recall_known(survey, list(known), paths[-1], counter, cache)
    for batch in _sized([p for p in paths if p not in known], discovered):
        stamps: dict[str, SniffStamp] = {}
        texts, unreadable = read_texts(root, batch, stamps=stamps)
        survey.unreadable.update(unreadable)
        for path, facts in text_facts(texts, discovered, stamps, cache).items():
            survey.facts[path] = facts
            stamp = stamps.get(path)
            survey.bodies[path] = (
                texts[path]
                if stamp is None
                else FileBody(root=root, path=path, stamp=stamp, chars=facts.chars)
            )
        digests = {p: survey.facts[p].digest for p in texts}
        screen = screen_prompt_texts(list(texts.items()), cache_path=cache, digests=digests)
        _note_findings(survey, texts, screen.findings)
        allowed = {p: t for p, t in texts.items() if not survey.findings[p] and p != paths[-1]}
        _count_blocks(allowed, survey, counter)
    order = {p: n for n, p in enumerate(paths)}
    _reorder(survey.facts, order)
    _reorder(survey.bodies, order)
    _reorder(survey.findings, order)
    return survey


def _reorder(table: dict[str, T], order: Mapping[str, int]) -> None:
    """Put ``table``'s entries in the order ``order`` gives their paths."""
    ranked = sorted(table.items(), key=lambda item: order[item[0]])
    table.clear()
    table.update(ranked)


def _note_findings(survey: Survey, paths: Iterable[str], findings: Sequence[SecretFinding]) -> None:
    """Put ``findings`` in ``survey`` by path (every one of ``paths`` gets an entry)."""
    for path in paths:
        survey.findings[path] = ()
    for finding in findings:
        survey.findings[finding.path] = (*survey.findings[finding.path], finding)


def _recall_known(
    survey: Survey,
    paths: list[str],
    final: str,
    counter: Callable[[], CountCache],
    cache: Path,
) -> None:
    """Verdicts and counts (but ``final``'s) of the files whose facts were remembered:
    remembered ones, and those of the files not remembered, read from disk."""
    digests = {p: survey.facts[p].digest for p in paths}
    found = cached_scan(
        [(p, "") for p in paths], partial(_scan_bodies, survey.bodies), cache, digests
    )
    for path in paths:
        survey.findings[path] = found.get(path, ())
    allowed = [p for p in paths if not survey.findings[p] and p != final]
    keys = {p: file_block(p, survey.whole(p)).key(digests[p], joined=True) for p in allowed}
    remembered = counter().remembered_each_keyed(keys.values()) if keys else {}
    missing: list[FileBody] = []
    for path in allowed:
        count = remembered.get(keys[path])
        if count is not None:
            survey.counts[path] = count
            continue
        body = survey.bodies[path]
        if isinstance(body, FileBody):
            missing.append(body)
    for texts in read_batches(missing):
        _count_blocks(texts, survey, counter)
