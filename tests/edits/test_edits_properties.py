"""Property tests of the applier: edits invert, nothing escapes the root, faults roll back."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from edits_snapshot import Entry, files, snapshot
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentprompt.edits import journal
from agentprompt.edits._hunks import hunk_from_texts
from agentprompt.edits.actions import (
    DeleteFile,
    EditError,
    FileAction,
    MoveFile,
    PatchFile,
    SearchReplace,
    WriteFile,
)
from agentprompt.edits.apply import ApplyOptions, apply_actions, apply_reply
from agentprompt.edits.journal import WriteFailed

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

words = st.text(alphabet="abcdefgh ()=:_'\"\t", min_size=0, max_size=12)


@contextmanager
def _sandbox() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def _tree(root: Path) -> dict[str, bytes]:
    return files(root)


@st.composite
def edited_files(draw: st.DrawFn) -> tuple[list[str], int, int, list[str], str, bool, bool]:
    """Unique file lines, a range in them, unique replacement lines, and how it is stored."""
    count = draw(st.integers(min_value=1, max_value=30))
    lines = [f"{i}:{draw(words)}" for i in range(count)]
    start = draw(st.integers(min_value=0, max_value=count - 1))
    end = draw(st.integers(min_value=start + 1, max_value=count))
    new = [f"new{i}:{draw(words)}" for i in range(draw(st.integers(1, 6)))]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    final = draw(st.booleans())
    as_patch = draw(st.booleans())
    return lines, start, end, new, newline, final, as_patch


def _edit(path: str, old: list[str], new: list[str], as_patch: bool) -> FileAction:
    if as_patch:
        return PatchFile(dialect="udiff", path=path, hunks=(hunk_from_texts(old, new),))
    return SearchReplace(
        dialect="searchreplace",
        path=path,
        search="\n".join(old) + "\n",
        replace="\n".join(new) + "\n",
    )


@SETTINGS
@given(edited_files())
def test_an_edit_then_its_inverse_restores_the_file(
    case: tuple[list[str], int, int, list[str], str, bool, bool],
) -> None:
    lines, start, end, new, newline, final, as_patch = case
    # A file with no line break at all (before or after the edit) has no line-ending style
    # to keep; a CRLF one-liner without a final newline cannot be told from an LF one.
    assume(final or min(len(lines), len(lines) - (end - start) + len(new)) >= 2)
    data = (newline.join(lines) + (newline if final else "")).encode()
    with _sandbox() as root:
        (root / "f.txt").write_bytes(data)
        forward = apply_actions(root, [_edit("f.txt", lines[start:end], new, as_patch)])
        assert forward.ok, forward.feedback
        changed = (root / "f.txt").read_bytes()
        assert changed.count(b"\r\n") == (changed.count(b"\n") if newline == "\r\n" else 0)
        back = apply_actions(root, [_edit("f.txt", new, lines[start:end], as_patch)])
        assert back.ok, back.feedback
        assert (root / "f.txt").read_bytes() == data


segments = st.sampled_from(["..", ".", "a", "b", ".git", "", "link", "out", "C:", "x\0y", "\\.."])
paths = st.lists(segments, min_size=1, max_size=4).map("/".join) | st.sampled_from(
    [
        "/etc/passwd",
        "/tmp/x",
        "link/evil.txt",
        "link/secret.txt",
        "out.txt",
        "a",
        "../outside/secret.txt",
        ".git/config",
        ".agentprompt/journal/x",
    ]
)


@st.composite
def actions(draw: st.DrawFn) -> FileAction:
    kind = draw(st.sampled_from(["write", "delete", "move", "replace", "patch", "edit"]))
    path = draw(paths)
    if kind == "patch":
        hunk = hunk_from_texts(["a"], [draw(words)])
        return PatchFile(dialect="udiff", path=path, hunks=(hunk,), move_to=draw(st.none() | paths))
    if kind == "edit":
        return SearchReplace(dialect="searchreplace", path=path, search="a\n", replace=draw(words))
    if kind == "write":
        return WriteFile(dialect="whole", path=path, content=draw(words) + "\n")
    if kind == "delete":
        return DeleteFile(dialect="bridge", path=path)
    if kind == "move":
        return MoveFile(dialect="applypatch", path=path, to=draw(paths))
    return SearchReplace(dialect="searchreplace", path=path, search="", replace=draw(words))


@SETTINGS
@given(
    st.lists(actions(), min_size=1, max_size=6),
    st.booleans(),
    st.sampled_from(["none", "agentprompt", "journal", "temp"]),
)
def test_no_sequence_of_actions_writes_outside_the_root(
    sequence: list[FileAction], partial: bool, trap: str
) -> None:
    with _sandbox() as base:
        root, outside = base / "root", base / "outside"
        root.mkdir()
        outside.mkdir()
        (outside / "secret.txt").write_text("secret\n")
        (outside / "journal").mkdir()
        (outside / "journal" / "keep").write_text("keep\n")
        (root / ".git").mkdir()
        (root / ".git" / "config").write_text("[core]\n")
        (root / "a").write_text("a\n")
        (root / "link").symlink_to(outside)
        (root / "out.txt").symlink_to(outside / "secret.txt")
        if trap == "agentprompt":
            (root / ".agentprompt").symlink_to(outside)
        elif trap == "journal":
            (root / ".agentprompt").mkdir()
            (root / ".agentprompt" / "journal").symlink_to(outside / "journal")
        elif trap == "temp":
            for n in range(6):
                (root / f".a.agentprompt-{n}.tmp").symlink_to(outside / "secret.txt")
        before_outside = snapshot(outside, meta=True)
        before_git = _tree(root / ".git")
        with contextlib.suppress(EditError):
            apply_actions(root, sequence, ApplyOptions(partial=partial))
        assert snapshot(outside, meta=True) == before_outside
        assert sorted(p.name for p in base.iterdir()) == ["outside", "root"]
        assert _tree(root / ".git") == before_git


@SETTINGS
@given(st.integers(min_value=1, max_value=5), st.data())
def test_a_fault_at_any_write_leaves_every_file_as_it_was(count: int, data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(["replace", "write", "fsync", "unlink", "mkdir", "fchmod"]))
    k = data.draw(st.integers(min_value=1, max_value=3 * count + 4), label="failing call")
    with _sandbox() as root, pytest.MonkeyPatch.context() as patch:
        for i in range(count):
            (root / f"f{i}.txt").write_text(f"old {i}\n")
            os.chmod(root / f"f{i}.txt", 0o640 + i)
        (root / "gone.txt").write_text("gone\n")
        before = snapshot(root, meta=True)
        real = getattr(os, op)
        calls = [0]

        def flaky(*args: object, **kwargs: object) -> object:
            calls[0] += 1
            if calls[0] == k:
                raise OSError(5, "Input/output error")
            return real(*args, **kwargs)

        sequence: list[FileAction] = [
            SearchReplace(
                dialect="searchreplace", path=f"f{i}.txt", search=f"old {i}\n", replace=f"new {i}\n"
            )
            for i in range(count)
        ]
        sequence += [
            DeleteFile(dialect="bridge", path="gone.txt"),
            WriteFile(dialect="whole", path=f"new{count}/deep/n.txt", content="n\n"),
            MoveFile(dialect="applypatch", path="f0.txt", to="moved/f0.txt"),
        ]
        patch.setattr(journal.os, op, flaky)
        try:
            report = apply_actions(root, sequence)
        except WriteFailed:
            patch.undo()
            assert snapshot(root, meta=False) == snapshot_without_meta(before)
            assert {k: v[2] for k, v in snapshot(root, meta=True).items()} == {
                k: v[2] for k, v in before.items()
            }
        else:
            patch.undo()
            assert report.ok
            assume(False)


def snapshot_without_meta(entries: dict[str, Entry]) -> dict[str, Entry]:
    """``entries`` without modes and times (they are compared apart)."""
    return {k: (v[0], v[1], None, None) for k, v in entries.items()}


@SETTINGS
@given(edited_files())
def test_the_dry_run_diff_applies_to_the_original_and_gives_the_result(
    case: tuple[list[str], int, int, list[str], str, bool, bool],
) -> None:
    lines, start, end, new, _newline, _final, as_patch = case
    data = ("\n".join(lines) + "\n").encode()
    action = _edit("f.txt", lines[start:end], new, as_patch)
    with _sandbox() as root:
        (root / "f.txt").write_bytes(data)
        preview = apply_actions(root, [action], ApplyOptions(dry_run=True))
        assert preview.ok, preview.feedback
        assert apply_actions(root, [action]).ok
        result = (root / "f.txt").read_bytes()
        (root / "f.txt").write_bytes(data)
        replayed = apply_reply(root, preview.diff, "udiff")
        assert replayed.ok, replayed.feedback
        assert (root / "f.txt").read_bytes() == result
