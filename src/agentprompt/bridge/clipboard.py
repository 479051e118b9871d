"""The clipboard edge: copy a prompt with pyperclip, or write it to a file where there is none.

Where no clipboard exists (no display, no xclip/xsel/wl-copy), pyperclip raises; the
prompt then goes to ``ROOT/.agentprompt/bridge/`` (git-ignored) and the caller prints it.
Tests pass their own :data:`CopyFunction` instead of pyperclip's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CopyFunction", "CopyResult", "bridge_folder", "copy_prompt", "system_copy"]

CopyFunction = Callable[[str], None]
"""Puts text on the clipboard; raises when there is no clipboard."""


@dataclass(frozen=True, kw_only=True)
class CopyResult:
    """Where a prompt went."""

    copied: bool
    """It is on the clipboard."""
    fallback: Path | None = None
    """The file it was written to instead, when there is no clipboard (None when that
    failed too)."""
    reason: str = ""
    """Why the clipboard could not be used."""


def system_copy(text: str) -> None:
    """Copy ``text`` with pyperclip (imported on first use)."""
    import pyperclip

    pyperclip.copy(text)


def bridge_folder(root: Path) -> Path:
    """``ROOT/.agentprompt/bridge``, created with a ``.gitignore`` so git never lists it."""
    folder = root / ".agentprompt" / "bridge"
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / ".gitignore"
    if not marker.exists():
        marker.write_text("*\n", encoding="utf-8")
    return folder


def copy_prompt(
    text: str, root: Path, *, name: str = "prompt.md", copy: CopyFunction | None = None
) -> CopyResult:
    """Copy ``text`` to the clipboard; where that fails, write it to the bridge folder."""
    try:
        (copy or system_copy)(text)
    except Exception as exc:  # pyperclip raises its own exception types, or OSError
        reason = _first_line(exc)
        try:
            where = bridge_folder(root) / name
            where.write_text(text, encoding="utf-8", newline="")
        except OSError as failed:
            # The caller still prints the prompt: saying why beats a traceback.
            return CopyResult(
                copied=False, reason=f"{reason}; nor could it be saved: {_first_line(failed)}"
            )
        return CopyResult(copied=False, fallback=where, reason=reason)
    return CopyResult(copied=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
