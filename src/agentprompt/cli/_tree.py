"""``agentprompt tree``: the files a prompt may show, as the directory tree a model is given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from agentprompt.cli._options import (
    exclude_option,
    include_generated_option,
    json_option,
    make_root_option,
)
from agentprompt.cli._output import console, err_console, print_json, printable
from agentprompt.cli._progress import scan_progress
from agentprompt.repo.discovery import (
    Discovery,
    DiscoveryOptions,
    RepoFile,
    discover,
    explain,
    is_generated_reason,
)
from agentprompt.repo.map import build_tree, count_file_tokens, render_tree, tree_to_dict
from agentprompt.tokens import shared_counter

__all__ = [
    "discovery_options",
    "generated_summary",
    "max_file_bytes_option",
    "no_git_option",
    "tree_command",
]

_CHUNK = 200


max_file_bytes_option = click.option(
    "--max-file-bytes",
    type=click.IntRange(min=0),
    default=DiscoveryOptions().max_file_bytes,
    show_default=True,
    help="Leave out files larger than this.",
)
"""``--max-file-bytes``: the per-file size cap of discovery (``tree`` and ``select``)."""

no_git_option = click.option(
    "--no-git", is_flag=True, help="Walk the folder with .gitignore files, not git."
)
"""``--no-git``: discovery walks the folder instead of asking git (``tree`` and ``select``)."""


def discovery_options(
    max_file_bytes: int,
    no_default_excludes: bool,
    excludes: tuple[str, ...],
    no_git: bool,
    *,
    include_generated: bool = False,
) -> DiscoveryOptions:
    """The discovery options the ``tree`` and ``select`` flags describe."""
    return DiscoveryOptions(
        max_file_bytes=max_file_bytes,
        include_default_excludes=not no_default_excludes,
        extra_excludes=excludes,
        follow_git=not no_git,
        include_generated=include_generated,
    )


def generated_summary(found: Discovery) -> str:
    """``N generated or minified (--include-generated keeps them)`` for the files ``found``
    left out as generated, or ``""`` when there are none."""
    count = sum(1 for e in found.excluded if is_generated_reason(e.reason))
    if not count:
        return ""
    return f"{count} generated or minified (--include-generated keeps them)"


def _explain(root: Path, path: str, options: DiscoveryOptions, as_json: bool) -> None:
    verdict = explain(root, path, options)
    if isinstance(verdict, RepoFile):
        data: dict[str, Any] = {"path": verdict.path, "included": True, "size": verdict.size}
        text = f"{verdict.path}: included ({verdict.size} bytes)"
    else:
        data = {"path": verdict.path, "included": False, "reason": verdict.reason}
        text = f"{verdict.path}: excluded: {verdict.reason}"
    if as_json:
        print_json(data)
    else:
        console.print(printable(text), markup=False)


def _token_counts(
    found: Discovery, model: str | None, show_progress: bool
) -> tuple[dict[str, int], tuple[str, ...]]:
    counter = shared_counter(model)
    paths = [f.path for f in found.files]
    counts: dict[str, int] = {}
    problems: list[str] = []
    with scan_progress("counting tokens", len(paths), enabled=show_progress) as advance:
        for start in range(0, len(paths), _CHUNK):
            part = paths[start : start + _CHUNK]
            got, bad = count_file_tokens(found.root, part, counter)
            counts.update(got)
            problems.extend(bad)
            advance(len(part))
    return counts, tuple(problems)


def _annotations(found: Discovery, show_progress: bool) -> dict[str, str]:
    # Imported on first use (start-up speed): the map and symbols load tree-sitter.
    from agentprompt.repo.map import annotate_files

    with scan_progress("reading symbols", None, enabled=show_progress):
        return annotate_files(found.root, found)


@click.command("tree")
@make_root_option("The repository's folder.")
@click.option("--annotate", is_flag=True, help="Note each file's exports and imports.")
@click.option("--show-tokens", "with_tokens", is_flag=True, help="Show tokens per file and folder.")
@click.option("--tokens", "with_tokens", is_flag=True, hidden=True)
@click.option("--model", default=None, help="Count tokens for this model (default o200k_base).")
@click.option(
    "--explain",
    "explain_path",
    default=None,
    metavar="PATH",
    help="Say why PATH (relative to --root, or absolute) is in or out, and nothing else.",
)
@exclude_option
@max_file_bytes_option
@click.option("--no-default-excludes", is_flag=True, help="Keep lock files, build output, venvs...")
@include_generated_option
@no_git_option
@json_option()
def tree_command(
    root: Path,
    annotate: bool,
    with_tokens: bool,
    model: str | None,
    explain_path: str | None,
    excludes: tuple[str, ...],
    max_file_bytes: int,
    no_default_excludes: bool,
    include_generated: bool,
    no_git: bool,
    as_json: bool,
) -> None:
    """Show the directory tree of the files a prompt may show."""
    options = discovery_options(
        max_file_bytes, no_default_excludes, excludes, no_git, include_generated=include_generated
    )
    if explain_path is not None:
        _explain(root, explain_path, options, as_json)
        return
    with scan_progress("scanning files", None, enabled=not as_json):
        found = discover(root, options)
    problems = list(found.problems)
    notes = _annotations(found, not as_json) if annotate else None
    counts = None
    if with_tokens:
        counts, bad = _token_counts(found, model, not as_json)
        problems.extend(bad)
    tree = build_tree((f.path for f in found.files), annotations=notes, tokens=counts)
    text = render_tree(tree)
    if as_json:
        data: dict[str, Any] = {
            "root": str(found.root),
            "git": found.git,
            "text": text,
            "tree": tree_to_dict(tree),
            "files": len(found.files),
            "excluded": [{"path": e.path, "reason": e.reason} for e in found.excluded],
            "problems": problems,
        }
        if counts is not None:
            data["tokens"] = tree.tokens
            data["tokenizer"] = shared_counter(model).name
        print_json(data)
        return
    console.out(printable(text), end="", highlight=False)
    for problem in problems:
        err_console.print(f"agentprompt: skipped {printable(problem)}", markup=False)
    summary = f"{len(found.files)} files"
    if counts is not None:
        summary += f", {tree.tokens} tokens ({shared_counter(model).name})"
    summary += f"; {len(found.excluded)} left out"
    generated = generated_summary(found)
    if generated:
        summary += f", {generated}"
    summary += " (see --explain PATH or --json)"
    err_console.print(summary, markup=False, highlight=False)
