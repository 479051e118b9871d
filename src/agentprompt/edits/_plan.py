"""Planning a reply's file actions in memory, before anything is written.

Actions run in order over an in-memory view of the files they touch, so a later block sees
what an earlier one left. Each action either succeeds (changing the view) or fails with a
reason and the nearest lines of the file; a failed action changes nothing. The result is
every action's outcome plus the final bytes of each touched file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from agentprompt.edits._guards import (
    Refused,
    check_case,
    check_encodable,
    check_expected,
    only_occurrence,
    refuse_link,
    refuse_snippet,
    refuse_stand_ins,
)
from agentprompt.edits._hunks import HunkFailure, apply_hunks, hunk_from_texts
from agentprompt.edits._match import Stage
from agentprompt.edits._near import near_paths
from agentprompt.edits._numbered import unnumbered, unnumbered_hunk_lines
from agentprompt.edits._reasons import joined_reasons, listed, reason
from agentprompt.edits._splice import Edit, apply_edits
from agentprompt.edits._textfile import (
    TextFile,
    carry_endings,
    decode_text,
    encode_text,
    join_lines,
    split_lines,
)
from agentprompt.edits.actions import (
    AnchoredEdit,
    DeleteFile,
    EditError,
    FileAction,
    MoveFile,
    PatchFile,
    SearchReplace,
    WriteFile,
)
from agentprompt.edits.paths import check_writable, portable_key, resolve_target
from agentprompt.edits.wording import speaking

__all__ = ["ActionOutcome", "FileChange", "Plan", "plan_actions"]


@dataclass(frozen=True, kw_only=True)
class FileChange:
    """One file's change: its bytes before and after (``None``: absent)."""

    path: str
    """The path relative to the root, with ``/`` separators."""
    real: Path
    """The absolute path written."""
    before: bytes | None
    """The original bytes, or ``None`` for a file the reply creates."""
    before_file: TextFile | None = None
    """The original text, for the diff (``None`` for a new file)."""
    after_file: TextFile | None = None
    """The new text, or ``None`` for a file the reply deletes."""
    mode: int | None = None
    """The permission bits to give the written file (``None``: the default for new files)."""
    edits: tuple[Edit, ...] | None = None
    """The placed edits that made ``after`` from ``before``, when one edit action made the
    whole change (the diff is then written from them instead of being recomputed)."""

    @property
    def after(self) -> bytes | None:
        """The new bytes (encoded only when asked for: a dry run never needs them)."""
        return None if self.after_file is None else encode_text(self.after_file)


@dataclass(frozen=True, kw_only=True)
class ActionOutcome:
    """What became of one file action."""

    index: int
    """The action's position in the list given to the applier."""
    action: FileAction
    """The action itself."""
    ok: bool
    """It matched and its change is in the plan."""
    path: str
    """The path the action names."""
    reason: str = ""
    """Why it failed."""
    stage: Stage | None = None
    """The loosest matcher stage it needed, for edits that search."""
    hunk_failures: tuple[HunkFailure, ...] = ()
    """The hunks (or the search block) that could not be placed."""
    file_lines: tuple[str, ...] = ()
    """The file's lines when the action was tried, to quote back the nearest ones."""
    settled: bool = False
    """It failed only because its change is already in the file: nothing to resend."""
    placements: tuple[Edit, ...] = ()
    """The changes a loose stage placed (each with where it landed and what it did not find
    as written), for the report."""
    unseen: bool = False
    """It changes an existing file the model has not been shown in full in this session."""


@dataclass(frozen=True, kw_only=True)
class Plan:
    """Every action's outcome and the net change to each file."""

    outcomes: tuple[ActionOutcome, ...] = ()
    """One per file action, in order."""
    changes: tuple[FileChange, ...] = ()
    """The files whose bytes change (successful actions only), in the order first touched."""

    @property
    def failed(self) -> tuple[ActionOutcome, ...]:
        """The outcomes that failed."""
        return tuple(o for o in self.outcomes if not o.ok)


@dataclass(kw_only=True)
class _File:
    path: str
    real: Path
    before: bytes | None
    mode: int | None
    original: TextFile | None
    current: TextFile | None
    edits: tuple[Edit, ...] | None = ()
    order: int = 0
    """Its place among the view's files (the order they were first opened)."""


@dataclass(kw_only=True)
class _Clashes:
    """The view's files indexed by what :func:`_check_no_clash` compares, so a new file is
    checked against the few files that could clash with it, not against every file."""

    portable: dict[str, list[_File]] = field(default_factory=dict)
    """Each path's portable spelling: the files it names."""
    folders: dict[tuple[str, str], dict[str, list[_File]]] = field(default_factory=dict)
    """Each (folders so far exactly, next folder's portable key): the files under each
    spelling of that next folder."""
    under: dict[str, list[_File]] = field(default_factory=dict)
    """Each folder path: the files below it."""
    paths: dict[str, _File] = field(default_factory=dict)
    """Each path: its file."""

    def add(self, entry: _File) -> None:
        """Index a newly opened file."""
        path = entry.path
        self.portable.setdefault(_portable(path), []).append(entry)
        self.paths.setdefault(path, entry)
        parts = path.split("/")[:-1]
        prefix = ""
        for part in parts:
            spellings = self.folders.setdefault((prefix, portable_key(part)), {})
            spellings.setdefault(part, []).append(entry)
            prefix += part + "/"
            self.under.setdefault(prefix[:-1], []).append(entry)

    def candidates(self, entry: _File) -> list[_File]:
        """The files that may clash with ``entry``, in the order they were opened: of each
        group sharing a key with it, the first still present."""
        path = entry.path
        groups = [self.portable.get(_portable(path), []), self.under.get(path, [])]
        prefix = ""
        for part in path.split("/")[:-1]:
            for spelling, files in self.folders.get((prefix, portable_key(part)), {}).items():
                if spelling != part:
                    groups.append(files)
            prefix += part + "/"
            parent = self.paths.get(prefix[:-1])
            if parent is not None:
                groups.append([parent])
        found = {}
        for files in groups:
            first = next((f for f in files if f is not entry and f.current is not None), None)
            if first is not None:
                found[id(first)] = first
        return sorted(found.values(), key=lambda f: f.order)


@dataclass(kw_only=True)
class _View:
    root: Path
    files: dict[str, _File] = field(default_factory=dict)
    resolved: dict[str, str] = field(default_factory=dict)
    touched: dict[str, tuple[TextFile | None, tuple[Edit, ...] | None]] = field(
        default_factory=dict
    )
    edit_blocks: bool = False
    """The actions hold edits by blocks (hunks, SEARCH/REPLACE, EDIT): a short whole-file
    write among them is taken for a snippet."""
    seen: frozenset[str] | None = None
    """The files the model has seen in full (``None``: unknown): the only existing files a
    whole-file write may replace."""
    strict: bool = False
    """Only exact placements: a hunk or search text any looser stage would place is
    refused, and so is an edit to an existing file not among :attr:`shown`."""
    shown: frozenset[str] | None = None
    """The files the model has been shown in full (``None``: unknown): an edit to another
    existing file is flagged (:attr:`ActionOutcome.unseen`)."""
    hidden: Callable[[str], bool] | None = None
    """Whether a path is one the session cannot show the model (left out by its include
    rules, withheld as holding a secret): a reply never writes such a file."""
    reals: dict[str, str] = field(default_factory=dict)
    """Each path as an action named it, resolved (the key of :attr:`files`)."""
    clashes: _Clashes = field(default_factory=_Clashes)
    """The files indexed for :func:`_check_no_clash`."""

    def open(self, path: str) -> _File:
        # A path named again (many blocks on one file) is not resolved again: nothing is
        # written while planning, so it resolves to the same file.
        known = self.files.get(self.reals.get(path, ""))
        if known is not None:
            self.touched.setdefault(self.reals[path], (known.current, known.edits))
            return known
        real, info = resolve_target(self.root, path, self.resolved)
        check_writable(self.root, real, info, path, self.resolved)
        self.reals[path] = str(real)
        known = self.files.get(str(real))
        if known is not None:
            self.touched.setdefault(str(real), (known.current, known.edits))
            return known
        rel = str(real)[len(self.resolved[str(self.root)].rstrip(os.sep)) + 1 :]
        rel = rel.replace(os.sep, "/")
        before: bytes | None = None
        mode: int | None = None
        text: TextFile | None = None
        if info is not None:
            mode = stat.S_IMODE(info.st_mode)
            try:
                before = _read(real, info.st_size)
            except OSError as exc:
                raise EditError(reason("cannot_read", path=path, error=exc.strerror)) from None
            text = decode_text(before, path)
        entry = _File(
            path=rel,
            real=real,
            before=before,
            mode=mode,
            original=text,
            current=text,
            order=len(self.files),
        )
        self.files[str(real)] = entry
        self.clashes.add(entry)
        self.touched.setdefault(str(real), (text, ()))
        return entry


def _read(real: Path, size: int) -> bytes:
    fd = os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        chunks = [os.read(fd, size + 1)]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 16))
    finally:
        os.close(fd)
    return b"".join(chunks) if len(chunks) > 2 else chunks[0]


def _new_text(lines: Sequence[str], final: bool, like: TextFile | None) -> TextFile:
    # A byte-order mark the model wrote at the start is the file's one mark, never a second.
    bom = bool(lines) and lines[0].startswith("\ufeff")
    if bom:
        lines = [lines[0][1:], *lines[1:]]
    if like is None:
        return TextFile(lines=tuple(lines), final_newline=final, bom=bom)
    return TextFile(
        lines=tuple(lines),
        final_newline=final,
        newline=like.newline,
        bom=like.bom or bom,
        endings=carry_endings(like, tuple(lines)),
    )


def _whole(
    action: WriteFile,
    entry: _File,
    *,
    snippets: bool = False,
    seen: frozenset[str] | None = None,
) -> TextFile:
    if action.create_only and entry.current is not None:
        if split_lines(action.content)[0] == entry.current.lines:
            raise Refused(reason("exists_same"), settled=True)
        raise Refused(reason("exists_new"))
    lines, final = split_lines(action.content)
    if entry.current is not None and entry.current.lines:
        if not action.content.strip() and "".join(entry.current.lines).strip():
            # Markers with nothing between them: a cut reply or a slip, never a way to
            # empty a file by accident.
            raise Refused(reason("empty_whole", path=entry.path))
        if seen is not None and entry.before is not None and entry.path not in seen:
            raise Refused(reason("whole_unseen", path=entry.path))
        final = entry.current.final_newline
        if snippets:
            refuse_snippet(lines, entry.current.lines)
    return _new_text(lines, final, entry.current)


_Result = tuple[TextFile, Stage, tuple[Edit, ...] | None]


def _absent(root: Path, entry: _File, fallback: str) -> Refused:
    """The refusal of an edit to a file that does not exist: which existing files it most
    likely meant (a mistyped name, a wrong folder), else ``fallback``."""
    near = near_paths(root, entry.path)
    if not near:
        return Refused(fallback)
    return Refused(reason("no_file_near", near=listed([f"`{p}`" for p in near])))


def _patch(hunks_action: PatchFile, entry: _File, root: Path) -> _Result:
    current = entry.current
    if current is None and any(h.old_lines for h in hunks_action.hunks):
        raise _absent(root, entry, reason("patch_no_file"))
    lines = current.lines if current else ()
    outcome = apply_hunks(lines, hunks_action.hunks, text=current.text if current else None)
    if outcome.failures and current is not None:
        # Lines copied with their numbers from a numbered listing (``12 | x = 1``).
        bare = [replace(h, lines=unnumbered_hunk_lines(h.lines)[0]) for h in hunks_action.hunks]
        if bare != list(hunks_action.hunks):
            retried = apply_hunks(lines, bare, text=current.text)
            if not retried.failures:
                outcome = retried
    if outcome.failures:
        parts = joined_reasons(
            [reason("hunk", hunk=f.hunk + 1, reason=f.reason) for f in outcome.failures]
        )
        raise Refused(parts, outcome.failures, lines)
    new, final = apply_edits(lines, current.final_newline if current else True, outcome.edits)
    return _new_text(new, final, current), outcome.stage, outcome.edits if current else None


def _search(action: SearchReplace | AnchoredEdit, entry: _File, root: Path) -> _Result:
    current = entry.current
    replace_lines, _ = split_lines(action.replace)
    if not action.search.strip():
        if current is None or not current.lines:
            return _new_text(replace_lines, True, current), "exact", None
        if isinstance(action, AnchoredEdit):
            raise Refused(reason("empty_edit"))
        lines = [*current.lines, *replace_lines]
        return _new_text(lines, current.final_newline, current), "exact", None
    if current is None:
        raise _absent(root, entry, reason("search_no_file"))
    search_lines, _ = split_lines(action.search)
    outcome = apply_hunks(
        current.lines,
        [hunk_from_texts(search_lines, replace_lines)],
        allow_split=False,
        text=current.text,
    )
    if outcome.failures:
        # Lines copied with their numbers from a numbered listing (``12 | x = 1``).
        old, new, renumbered = unnumbered(search_lines, replace_lines)
        if renumbered:
            retried = apply_hunks(
                current.lines, [hunk_from_texts(old, new)], allow_split=False, text=current.text
            )
            if not retried.failures:
                outcome = retried
    if not outcome.failures:
        new, final = apply_edits(current.lines, current.final_newline, outcome.edits)
        return _new_text(new, final, current), outcome.stage, outcome.edits
    failure = outcome.failures[0]
    text = join_lines(current.lines, current.final_newline)
    needle = action.search.rstrip("\n")
    at = only_occurrence(text, needle) if not failure.candidates else None
    if at is not None:
        replaced = text[:at] + action.replace.rstrip("\n") + text[at + len(needle) :]
        changed, final = split_lines(replaced)
        return _new_text(changed, final, current), "exact", None
    raise Refused(failure.reason, (failure,), current.lines)


def _require(entry: _File, what: str, root: Path) -> TextFile:
    """The file's text; refused when it does not exist (``what``: ``deleted`` or ``moved``)."""
    if entry.current is None:
        raise _absent(root, entry, reason("no_file", what=reason(f"what_{what}")))
    return entry.current


def _strict(edits: tuple[Edit, ...] | None, stage: Stage) -> None:
    """Refuse a change placed by any stage but ``exact`` (a strict apply)."""
    if stage == "exact":
        return
    loose = [e for e in edits or () if e.stage != "exact"]
    if not loose:
        raise Refused(reason("strict_any", stage=stage))
    parts = [
        reason(
            "hunk",
            hunk=e.hunk + 1,
            reason=reason(
                "strict",
                stage=e.stage,
                first=(e.landed or (e.start, e.end))[0] + 1,
                last=(e.landed or (e.start, e.end))[1],
            ),
        )
        for e in loose
    ]
    raise Refused(joined_reasons(list(dict.fromkeys(parts))))


def _run(view: _View, action: FileAction) -> tuple[Stage | None, tuple[Edit, ...]]:
    """Apply one action to the view: the loosest stage it needed and the changes a loose
    stage placed; raises :class:`Refused` (view unchanged) when it fails."""
    stage, edits = _run_action(view, action)
    return stage, tuple(e for e in edits or () if e.landed is not None)


def _refuse_hidden(view: _View, entry: _File) -> None:
    """Refuse to touch a file the session cannot show the model."""
    if view.hidden is not None and view.hidden(entry.path):
        raise Refused(reason("hidden", path=entry.path))


def _unseen(view: _View, entry: _File) -> bool:
    """Whether ``entry`` is an existing file the model has not been shown in full."""
    return view.shown is not None and entry.before is not None and entry.path not in view.shown


def _run_action(view: _View, action: FileAction) -> tuple[Stage | None, tuple[Edit, ...] | None]:
    entry = view.open(action.path)
    _refuse_hidden(view, entry)
    if view.strict and _unseen(view, entry):
        raise Refused(reason("strict_unseen", path=entry.path))
    stage: Stage | None = None
    edits: tuple[Edit, ...] | None = None
    match action:
        case WriteFile():
            new = _whole(
                action,
                entry,
                snippets=view.edit_blocks and action.dialect == "whole",
                seen=view.seen,
            )
        case PatchFile():
            new, stage, edits = _patch(action, entry, view.root)
            if view.strict:
                _strict(edits, stage)
        case SearchReplace() | AnchoredEdit():
            new, stage, edits = _search(action, entry, view.root)
            if view.strict:
                _strict(edits, stage)
        case DeleteFile():
            current = _require(entry, "deleted", view.root)
            refuse_link(view.root, action.path, "deleted")
            if action.expected is not None:
                check_expected(current, action.expected)
            entry.current, entry.edits = None, None
            return None, None
        case MoveFile():
            new = _require(entry, "moved", view.root)
            refuse_link(view.root, action.path, "moved")
            _move(view, entry, new, action.to)
            return None, None
    check_encodable(action)
    refuse_stand_ins(action, entry.current.lines if entry.current is not None else ())
    if isinstance(action, PatchFile) and action.move_to:
        refuse_link(view.root, action.path, "moved")
        _move(view, entry, new, action.move_to)
        return stage, edits
    _check_no_clash(view, entry)
    if entry.before is None:
        check_case(entry.real, entry.path)
    first = entry.current is entry.original and entry.edits == ()
    entry.edits = edits if first and edits is not None else None
    entry.current = new
    return stage, edits


def _move(view: _View, entry: _File, content: TextFile, to: str) -> None:
    target = view.open(to)
    _refuse_hidden(view, target)
    if target.real == entry.real:
        entry.current, entry.edits = content, None
        return
    if target.current is not None:
        raise Refused(reason("move_exists", to=to))
    _check_no_clash(view, target)
    target.current, target.edits = content, None
    if target.before is None:
        target.mode = entry.mode
    entry.current, entry.edits = None, None


def _portable(path: str) -> str:
    return "/".join(portable_key(p) for p in path.split("/"))


def _folder_clash(path: str, other: str) -> bool:
    """The two paths' folders part where one spells a folder another way (``a/x`` and
    ``A/y``): one folder on macOS and Windows, two elsewhere."""
    for mine, theirs in zip(path.split("/")[:-1], other.split("/")[:-1], strict=False):
        if mine != theirs:
            return portable_key(mine) == portable_key(theirs)
    return False


def _check_no_clash(view: _View, entry: _File) -> None:
    """Refuse a new file whose path another new file of the reply uses as a directory, or
    that is the same name as another file of the reply on macOS or Windows (case, Unicode
    normalization...), or whose folder is another spelling of another file's folder.

    Only the files sharing a compared key with it are looked at (:class:`_Clashes`), in the
    order they were opened, so the first clash found is the one a scan of every file would
    find."""
    if entry.before is not None:
        return
    folded = _portable(entry.path)
    for other in view.clashes.candidates(entry):
        if _portable(other.path) == folded or _folder_clash(entry.path, other.path):
            same_case = other.path.casefold() == entry.path.casefold()
            raise Refused(reason("case_reply" if same_case else "portable_reply", other=other.path))
        if other.path.startswith(entry.path + "/"):
            raise Refused(reason("clash_parent", other=other.path, path=entry.path))
        if entry.path.startswith(other.path + "/"):
            raise Refused(reason("clash_child", other=other.path))


def plan_actions(
    root: Path,
    actions: Sequence[tuple[int, FileAction]],
    *,
    lang: str = "en",
    seen: frozenset[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    strict: bool = False,
    shown: frozenset[str] | None = None,
    hidden: Callable[[str], bool] | None = None,
) -> Plan:
    """Run ``actions`` (each with its index) over an in-memory view of the files under
    ``root``; the reasons of those that fail are worded in ``lang``. ``seen``: the files
    the model has seen in full, the only existing ones a whole-file write may replace
    (``None``: not known, any). ``progress`` is told (done, total) as actions are planned.
    ``shown``: the files the model has been shown in full, an edit to any other existing
    file being flagged (``None``: not known). ``strict``: a change only an inexact stage
    can place is refused, and so is one to a file not among ``shown``. ``hidden``: whether
    a path is one the session cannot show (an action touching it is refused)."""
    with speaking(lang):
        view = _View(root=root, seen=seen, strict=strict, shown=shown, hidden=hidden)
        return _plan(view, actions, progress)


def _plan(
    view: _View,
    actions: Sequence[tuple[int, FileAction]],
    progress: Callable[[int, int], None] | None = None,
) -> Plan:
    view.edit_blocks = any(
        isinstance(a, PatchFile | SearchReplace | AnchoredEdit) for _, a in actions
    )
    outcomes: list[ActionOutcome] = []
    for done, (index, action) in enumerate(actions):
        if progress is not None and done % 64 == 0:
            progress(done, len(actions))
        view.touched.clear()
        try:
            stage, placements = _run(view, action)
            opened = view.files.get(view.reals.get(action.path, ""))
            unseen = opened is not None and _unseen(view, opened)
        except (Refused, EditError, OSError) as exc:
            # Put back every file the action opened (new entries start as they were on disk).
            for real, (current, edits) in view.touched.items():
                view.files[real].current, view.files[real].edits = current, edits
            if isinstance(exc, OSError):
                exc = Refused(reason("cannot_access", path=action.path, error=exc.strerror or exc))
            failed = exc if isinstance(exc, Refused) else Refused(str(exc))
            outcomes.append(
                ActionOutcome(
                    index=index,
                    action=action,
                    ok=False,
                    path=action.path,
                    reason=failed.reason,
                    hunk_failures=failed.failures,
                    file_lines=failed.lines,
                    settled=failed.settled,
                )
            )
            continue
        outcomes.append(
            ActionOutcome(
                index=index,
                action=action,
                ok=True,
                path=action.path,
                stage=stage,
                placements=placements,
                unseen=unseen,
            )
        )
    return Plan(outcomes=tuple(outcomes), changes=tuple(_changes(view)))


def _changes(view: _View) -> list[FileChange]:
    changes = []
    for f in view.files.values():
        if f.current == f.original:
            continue
        changes.append(
            FileChange(
                path=f.path,
                real=f.real,
                before=f.before,
                mode=f.mode,
                before_file=f.original,
                after_file=f.current,
                edits=f.edits if f.original is not None and f.current is not None else None,
            )
        )
    return changes
