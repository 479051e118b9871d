"""What a reply's file requests (and SWITCH_MODE's file list) name: files, or folders.

A model that asks for ``src/`` means the files under it, so a folder adds the files
discovery keeps under it, up to :data:`FOLDER_CAP` per folder (the rest are reported with
how to ask for them); the root is a folder like any other. A path that cannot be shown is
reported with the reason in the prompt's language, from the bridge's prompt files
(``bridge/reason_*``): the English ones keep discovery's own words.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agentprompt.bridge.context import RepoView, resolve_request
from agentprompt.bridge.text import render_prompt

__all__ = ["FOLDER_CAP", "describe_reason", "resolve_requests"]

FOLDER_CAP = 40
"""At most this many files are added for one requested folder: enough for a package, few
enough that a request for the root or a huge folder does not flood the prompt."""

_EXACT = {
    "does not exist": "reason_missing",
    "outside the root": "reason_outside",
    "inside .git, git's own data (never listed)": "reason_git",
    "a directory, not a file": "reason_empty_folder",
}
"""Discovery's fixed reasons, by the bridge prompt that says them in the prompt's language."""


def describe_reason(reason: str, lang: str, root: Path | None = None) -> str:
    """Discovery's ``reason`` for leaving a path out, in ``lang``: its fixed reasons have
    their own prompt; any other (an exclusion rule, a file kind) is named as excluded, with
    discovery's detail (a rule's file, line and pattern), which is not translated."""
    name = _EXACT.get(reason)
    if name is not None:
        return render_prompt(name, lang, root)
    return render_prompt("reason_excluded", lang, root, detail=reason)


def _folder(view: RepoView, wanted: str) -> list[str] | None:
    """The files a prompt may show under folder ``wanted`` (every file for the root), or
    None when ``wanted`` is not a folder holding any."""
    text = wanted.strip().strip("`").strip()
    while text.startswith("./"):
        text = text[2:]
    folder = text.strip("/")
    if folder in ("", "."):
        return list(view.paths)
    if folder in set(view.paths):
        return None
    under = [p for p in view.paths if p.startswith(folder + "/")]
    return under or None


def resolve_requests(
    view: RepoView, paths: Iterable[str], lang: str, root: Path | None = None
) -> tuple[list[str], list[tuple[str, str]]]:
    """The files ``paths`` name (a folder: its first :data:`FOLDER_CAP` files in path
    order), and each path that cannot be shown, or not wholly, with the reason in ``lang``."""
    found: list[str] = []
    missing: list[tuple[str, str]] = []
    for path in paths:
        under = _folder(view, path)
        if under is not None:
            found += under[:FOLDER_CAP]
            if len(under) > FOLDER_CAP:
                rest = len(under) - FOLDER_CAP
                why = render_prompt(
                    "reason_folder_capped",
                    lang,
                    root,
                    total=len(under),
                    added=FOLDER_CAP,
                    rest=rest,
                )
                missing.append((path, why))
            continue
        rel, reason = resolve_request(view, path)
        if rel is None:
            missing.append((path, describe_reason(reason, lang, root)))
        else:
            found.append(rel)
    return found, missing
