"""The shapes of the tools' structured results: each tool's output schema is made from
these, and every result is checked against its shape before it is sent."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

# pydantic reads TypedDicts for the output schemas, and needs typing_extensions' below 3.12.
from typing_extensions import TypedDict

__all__ = [
    "AppliedEdit",
    "CountTokensResult",
    "CutFile",
    "EditPlacement",
    "EditsResult",
    "FailedEdit",
    "LeftOutFile",
    "MapFileResult",
    "PackResult",
    "RankFilesResult",
    "RankReasonResult",
    "RankSymbolsResult",
    "RankedFileResult",
    "RankedSymbolResult",
    "ReadContextResult",
    "ReadFile",
    "RepoMapResult",
    "WithheldFile",
]


class RankReasonResult(TypedDict):
    """One reason behind a file's rank."""

    signal: str
    """The signal: ``lexical``, ``path``, ``identifier``, ``trace``, ``graph``, ``test``..."""
    detail: str
    """What matched."""
    weight: float
    """How much it added."""


class RankedFileResult(TypedDict):
    """One ranked file."""

    rank: int
    """Its position, 1 for the most relevant."""
    path: str
    """Its path relative to the root."""
    score: float
    """Its relevance score."""
    reasons: list[RankReasonResult]
    """Why it ranks where it does."""


class RankFilesResult(TypedDict):
    """What ``rank_files`` returns."""

    files: list[RankedFileResult]
    """The most relevant files, most relevant first."""
    total: int
    """How many code files were ranked."""
    about_tests: bool
    """The task is about tests, so tests were not ranked lower."""
    parsed: int
    """Files parsed in this call (the rest came from the symbol cache)."""
    problems: list[str]
    """Files skipped, each with the reason."""
    warnings: list[str]
    """What went wrong with the symbol cache (the ranking was still made)."""


class RankedSymbolResult(TypedDict):
    """One ranked definition (function, method, class)."""

    rank: int
    """Its position, 1 for the most relevant."""
    path: str
    """The file it is in, relative to the root."""
    name: str
    """Its qualified name (``Class.method``)."""
    kind: str
    """``function``, ``method``, ``class``..."""
    start: int
    """Its first line (1-based)."""
    end: int
    """Its last line (1-based, inclusive)."""
    score: float
    """Its relevance score."""
    reasons: list[RankReasonResult]
    """Why it ranks where it does."""


class RankSymbolsResult(TypedDict):
    """What ``rank_symbols`` returns."""

    symbols: list[RankedSymbolResult]
    """The most relevant definitions, most relevant first."""
    files: int
    """How many of the most relevant files they were ranked from (at most)."""


class MapFileResult(TypedDict):
    """A file the map shows."""

    path: str
    """Its path relative to the root."""
    rank: float
    """Its importance (or relevance to the task)."""


class RepoMapResult(TypedDict):
    """What ``repo_map`` returns."""

    text: str
    """The map."""
    tokens: int
    """Its exact token count."""
    budget: int
    """The budget it was fitted to."""
    tokenizer: str
    """The encoding counted with."""
    files: list[MapFileResult]
    """The files it shows."""
    omitted: int
    """Code files left out to fit the budget."""
    unknown_focus: list[str]
    """Focus and in-context paths that name no code file (they had no effect)."""
    problems: list[str]
    """Files skipped, each with the reason."""
    warnings: list[str]
    """What went wrong with the symbol cache."""


class ReadFile(TypedDict):
    """A file ``read_context`` shows."""

    path: str
    """Its path relative to the root."""
    shown: Literal["full", "signatures"]
    """Its whole text, or its signatures only."""
    tokens: int
    """The exact token count of ``text``."""
    text: str
    """The text shown."""


class CutFile(TypedDict):
    """A file shown with less than was asked for, or not at all."""

    path: str
    """Its path relative to the root."""
    kept: Literal["signatures", "path"]
    """What is left of it: its signatures, or only its path (no text)."""
    reason: str
    """Why it was cut."""


class WithheldFile(TypedDict):
    """A likely secret that kept a file's text out."""

    path: str
    """The file."""
    line: int
    """The line of the finding."""
    kind: str
    """What it looks like (an AWS key, a private key, a high-entropy string...)."""


class ReadContextResult(TypedDict):
    """What ``read_context`` returns."""

    mode: Literal["full", "signatures"]
    """What was asked for of each file."""
    tokenizer: str
    """The encoding counted with."""
    tokens: int
    """The total of the files' token counts."""
    budget: int | None
    """The budget the files were fitted to (None: no budget)."""
    files: list[ReadFile]
    """The files shown, in the order asked for."""
    cut: list[CutFile]
    """Files shown with less than asked for, or only named."""
    withheld: list[WithheldFile]
    """The likely secrets that kept files' text out."""
    unmatched: list[str]
    """Globs that matched no file."""


class LeftOutFile(TypedDict):
    """A file the pack cut down to fit its budget."""

    path: str
    """The file."""
    kept: str
    """What is left of it: ``summary`` (its outline) or ``path``."""


class PackResult(TypedDict):
    """What ``pack`` returns."""

    text: str
    """The prompt, ready to send."""
    tokens: int
    """Its exact token count."""
    tokenizer: str
    """The encoding counted with."""
    mode: Literal["browse", "edit"]
    """Browse (outlines; the model asks for files) or edit (the files shown in full)."""
    in_full: list[str]
    """The files whose whole text the prompt holds."""
    left_out: list[LeftOutFile]
    """Files cut down to fit the budget."""
    withheld: list[WithheldFile]
    """Likely secrets that kept a file's text out."""


class EditPlacement(TypedDict):
    """Where a match looser than ``exact`` placed one hunk of an edit."""

    hunk: int
    """The hunk's number in its block, from 1."""
    stage: str
    """The looser match that placed it (``aligned``, ``fuzzy``, ``whitespace``...)."""
    lines: list[int]
    """The first and last line (1-based, before the edit) its quoted lines matched."""
    unmatched: list[str]
    """The quoted lines not found in the file as written."""
    left_out: list[str]
    """The file's lines in that range the quote did not mention."""


class AppliedEdit(TypedDict):
    """An edit that applied (in a preview: that would apply)."""

    index: int
    """Its position among the reply's edits, from 0."""
    path: str
    """The file it changes."""
    action: str
    """``write``, ``patch``, ``edit``, ``replace``, ``delete`` or ``move``."""
    stage: str | None
    """How its text was found: ``exact``, or a looser match's name."""
    placements: NotRequired[list[EditPlacement]]
    """Each hunk a looser match placed: where, and what of its quote it did not find."""
    unseen: NotRequired[bool]
    """It changes a file the model was not shown in full (only in a session)."""


class FailedEdit(TypedDict):
    """An edit that did not apply."""

    index: int
    """Its position among the reply's edits, from 0."""
    path: str
    """The file it names."""
    action: str
    """Its kind."""
    reason: str
    """Why it failed."""
    feedback: str
    """What to send instead: the block, why, and the nearest actual lines."""
    candidates: list[int]
    """Lines of equally good places, when the match was ambiguous."""


EditsResult = TypedDict(
    "EditsResult",
    {
        "ok": bool,
        "applied": list[AppliedEdit],
        "failed": list[FailedEdit],
        "matched": list[AppliedEdit],
        "requests": list[str],
        "switch_mode": dict[str, Any] | None,
        "continue": dict[str, Any] | None,
        "diff": str,
        "written": bool,
        "dry_run": bool,
        "diagnostics": list[dict[str, Any]],
        "feedback": str,
        "lost": int,
    },
)
"""What ``preview_edits`` and ``apply_edits`` return: ``ok`` when every edit applied (or
would), the unified diff, each edit's outcome, the files the reply asks to see, what the
parser noticed, and feedback for the edits that failed."""


class CountTokensResult(TypedDict):
    """What ``count_tokens`` returns."""

    tokens: int
    """The token count."""
    tokenizer: str
    """The encoding counted with (or the estimate's name)."""
    exact: bool
    """The count is exact (false: an estimate, for a model whose encoding is not known)."""
