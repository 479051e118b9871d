"""What a model's reply asks for: the actions every dialect parses into.

Each action is a frozen keyword-only value with a literal ``kind``. Dialect parsers produce
them, the matcher and the applier consume them, and the doors print them as JSON
through :func:`action_to_json`. Text fields hold exactly what the model wrote (after line
endings are normalised to ``\\n``), so feedback can quote it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agentprompt.errors import AgentPromptError

__all__ = [
    "Action",
    "AnchoredEdit",
    "Continue",
    "DeleteFile",
    "Diagnostic",
    "EditError",
    "FileAction",
    "Hunk",
    "MoveFile",
    "ParseResult",
    "PatchFile",
    "RequestFiles",
    "SearchReplace",
    "SwitchMode",
    "WriteFile",
    "action_to_json",
]


class EditError(AgentPromptError):
    """Base class of every error the edit engine raises on purpose."""


@dataclass(frozen=True, kw_only=True)
class Hunk:
    """One hunk of a patch: a run of context, removed and added lines.

    Line numbers are the model's claim and only a hint; hunks are placed by their context.
    """

    lines: tuple[str, ...]
    """Each line with its one-character prefix (``' '``, ``'-'``, ``'+'``), no newline."""
    old_start: int | None = None
    """The ``-a`` of ``@@ -a,b +c,d @@``, if the model gave one."""
    old_count: int | None = None
    """The ``b`` of the header, if given (often wrong)."""
    new_start: int | None = None
    """The ``c`` of the header, if given."""
    new_count: int | None = None
    """The ``d`` of the header, if given (often wrong)."""
    scope: str | None = None
    """apply_patch's ``@@ scope line`` (e.g. ``class Foo:``) that narrows where to look."""
    at_end_of_file: bool = False
    """The hunk touches the end of the file (apply_patch's ``*** End of File``)."""
    open_end: bool = False
    """The hunk stops on a change though its counts promised more lines. ``diff -u`` ends a
    hunk without closing context only at the end of the file, and models often write wrong
    counts, so it is read as reaching the end of its file (``at_end_of_file`` is set too): it
    is placed only there, whole, and only when its quoted lines stand nowhere else in the
    file; anywhere else it is what a reply cut off after a change looks like."""
    no_newline_at_end: bool = False
    """A ``\\ No newline at end of file`` marker followed the last added line."""
    old_no_newline_at_end: bool = False
    """A ``\\ No newline at end of file`` marker followed the last removed line: the old
    side's last line had no newline."""
    scopes: tuple[str, ...] = ()
    """Every ``@@ scope line`` before the hunk, outermost first (``scope`` is the last)."""
    derived: bool = False
    """The change lines were found by diffing a search text with its replacement (no model
    marked them): where a changed line equals a context line beside it, which of the two
    changes is the diff's guess."""

    @property
    def old_lines(self) -> tuple[str, ...]:
        """The lines the hunk expects to find: context and removed lines."""
        return tuple(line[1:] for line in self.lines if line[:1] in (" ", "-"))

    @property
    def new_lines(self) -> tuple[str, ...]:
        """The lines the hunk leaves behind: context and added lines."""
        return tuple(line[1:] for line in self.lines if line[:1] in (" ", "+"))


@dataclass(frozen=True, kw_only=True)
class _ActionBase:
    dialect: str
    """The dialect the block was written in (``bridge``, ``udiff``, ...)."""
    block: int = 0
    """The block's position in the reply, from 0, counting every block of every dialect."""
    line: int = 0
    """The 1-based line of the reply where the block starts."""


@dataclass(frozen=True, kw_only=True)
class WriteFile(_ActionBase):
    """Replace a file's whole content, or create it."""

    kind: Literal["write"] = "write"
    path: str
    """The file, relative to the root, as the model wrote it."""
    content: str
    """The entire new content."""
    create_only: bool = False
    """The model announced a new file (``[NEW]``, ``*** Add File``): refuse if it exists."""


@dataclass(frozen=True, kw_only=True)
class PatchFile(_ActionBase):
    """Change a file by hunks (unified diff, bridge DIFF, apply_patch Update)."""

    kind: Literal["patch"] = "patch"
    path: str
    """The file the hunks apply to."""
    hunks: tuple[Hunk, ...]
    """The hunks in the order the model wrote them."""
    move_to: str | None = None
    """apply_patch's ``*** Move to:``: the patched file is written here instead."""


@dataclass(frozen=True, kw_only=True)
class AnchoredEdit(_ActionBase):
    """An EDIT/REPL block: shared leading lines locate the edit."""

    kind: Literal["edit"] = "edit"
    path: str
    """The file named on the line before the block."""
    search: str
    """The whole EDIT section (anchor plus old lines); empty creates the file."""
    replace: str
    """The whole REPL section (anchor plus new lines)."""
    anchor: str
    """The leading lines both sections share, which must match exactly one place."""


@dataclass(frozen=True, kw_only=True)
class SearchReplace(_ActionBase):
    """A SEARCH/REPLACE block: find the search text, put the replacement there."""

    kind: Literal["replace"] = "replace"
    path: str
    """The file named before the block."""
    search: str
    """The text to find, exactly as the model wrote it; empty creates or appends."""
    replace: str
    """The replacement, exactly as the model wrote it."""


@dataclass(frozen=True, kw_only=True)
class DeleteFile(_ActionBase):
    """Delete a file."""

    kind: Literal["delete"] = "delete"
    path: str
    """The file to delete."""
    expected: str | None = None
    """The content the reply says the file holds (a diff's removed lines), or ``None``: when
    given, the file is deleted only if it still holds that."""


@dataclass(frozen=True, kw_only=True)
class MoveFile(_ActionBase):
    """Rename a file without changing its content."""

    kind: Literal["move"] = "move"
    path: str
    """The file to move."""
    to: str
    """Where it goes."""


@dataclass(frozen=True, kw_only=True)
class RequestFiles(_ActionBase):
    """The model asks to see files (``REQUEST_FILE``, ``REQUEST_FILES``)."""

    kind: Literal["request"] = "request"
    paths: tuple[str, ...]
    """The files asked for, in the model's order, without duplicates."""


@dataclass(frozen=True, kw_only=True)
class SwitchMode(_ActionBase):
    """The model asks to switch mode (``SWITCH_MODE: edit``) for some files."""

    kind: Literal["switch_mode"] = "switch_mode"
    mode: str
    """The mode asked for (``edit`` or ``browse``)."""
    paths: tuple[str, ...] = ()
    """The target files listed under the block."""
    reason: str = ""
    """Why, as the model wrote it."""


@dataclass(frozen=True, kw_only=True)
class Continue(_ActionBase):
    """The model stopped early and owes more (``CONTINUE``)."""

    kind: Literal["continue"] = "continue"
    remaining: int | None = None
    """How many file changes the model says are left, if it said."""
    paths: tuple[str, ...] = ()
    """The files still to come."""


FileAction = WriteFile | PatchFile | AnchoredEdit | SearchReplace | DeleteFile | MoveFile
"""An action that changes files under the root."""

Action = FileAction | RequestFiles | SwitchMode | Continue
"""Anything a reply can ask for."""


@dataclass(frozen=True, kw_only=True)
class Diagnostic:
    """Something the parser noticed: a cut-off block, a malformed header, a stray marker."""

    severity: Literal["error", "warning"]
    """``error`` when a block was lost or is unusable, ``warning`` when it was repaired."""
    code: str
    """A stable short name (``truncated``, ``missing-path``, ``bad-hunk-header``, ...)."""
    message: str
    """What happened and what the model should do, in a sentence."""
    line: int = 0
    """The 1-based line of the reply it refers to."""
    block: int | None = None
    """The block it refers to, when there is one."""
    dialect: str | None = None
    """The dialect of that block."""

    def to_json(self) -> dict[str, Any]:
        """The diagnostic as JSON-ready data."""
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "block": self.block,
            "dialect": self.dialect,
        }


@dataclass(frozen=True, kw_only=True)
class ParseResult:
    """Every action a reply holds, in order, and what the parser noticed on the way."""

    actions: tuple[Action, ...] = ()
    """The complete blocks, in reply order."""
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    """Repairs and losses, in reply order."""

    @property
    def truncated(self) -> bool:
        """True when the reply was cut off inside a block (that block is not in ``actions``)."""
        return any(d.code == "truncated" for d in self.diagnostics)

    def to_json(self) -> dict[str, Any]:
        """The result as JSON-ready data (what every door prints as JSON)."""
        return {
            "actions": [action_to_json(action) for action in self.actions],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def _hunk_to_json(hunk: Hunk) -> dict[str, Any]:
    return {
        "old_start": hunk.old_start,
        "old_count": hunk.old_count,
        "new_start": hunk.new_start,
        "new_count": hunk.new_count,
        "scope": hunk.scope,
        "scopes": list(hunk.scopes),
        "at_end_of_file": hunk.at_end_of_file,
        "open_end": hunk.open_end,
        "no_newline_at_end": hunk.no_newline_at_end,
        "old_no_newline_at_end": hunk.old_no_newline_at_end,
        "lines": list(hunk.lines),
    }


def action_to_json(action: Action) -> dict[str, Any]:
    """An action as JSON-ready data: ``kind``, ``dialect``, ``path`` and its own fields."""
    data: dict[str, Any] = {
        "kind": action.kind,
        "dialect": action.dialect,
        "path": getattr(action, "path", None),
        "block": action.block,
        "line": action.line,
    }
    match action:
        case WriteFile():
            data.update(content=action.content, create_only=action.create_only)
        case PatchFile():
            data.update(hunks=[_hunk_to_json(h) for h in action.hunks], move_to=action.move_to)
        case AnchoredEdit():
            data.update(search=action.search, replace=action.replace, anchor=action.anchor)
        case SearchReplace():
            data.update(search=action.search, replace=action.replace)
        case MoveFile():
            data.update(to=action.to)
        case RequestFiles():
            data.update(paths=list(action.paths))
        case SwitchMode():
            data.update(mode=action.mode, paths=list(action.paths), reason=action.reason)
        case Continue():
            data.update(remaining=action.remaining, paths=list(action.paths))
        case DeleteFile():
            data.update(expected=action.expected)
    return data
