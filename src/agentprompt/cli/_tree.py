"""``agentprompt tree``: the files a prompt may show, as the directory tree a model is given."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
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
    Exclusion,
    LeftOutKind,
    RepoFile,
    is_generated_reason,
    left_out_kind,
)
from agentprompt.services import RepositoryContext, Workspace

__all__ = [
    "discovery_options",
    "generated_summary",
    "left_out_counts",
    "left_out_lines",
    "max_file_bytes_option",
    "no_git_option",
    "tree_command",
]

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


def left_out_lines(left_out: Sequence[Exclusion], *, verbose: bool) -> list[str]:
    """Lines for people about files left out as generated or binary: one line counting
    each kind (and how to list them), or with ``verbose`` one line per file with its
    reason; none when there are none."""
    if verbose:
        return [f"agentprompt: left out {printable(e.path)}: {e.reason}" for e in left_out]
    if not left_out:
        return []
    files = "file" if len(left_out) == 1 else "files"
    return [f"agentprompt: {left_out_counts(left_out)} {files} left out; --verbose lists them"]


_KIND_WORDS: dict[LeftOutKind | None, str] = {
    "generated": "generated or minified",
    "binary": "binary",
    "data": "data",
}
"""How each kind of file left out for its content is named."""


def left_out_counts(left_out: Sequence[Exclusion], *, hint: bool = False) -> str:
    """How many of ``left_out`` are of each kind: ``3 generated or minified, 45 binary``
    (``hint``: the generated ones followed by how to keep them)."""
    counts = Counter(left_out_kind(e.reason) for e in left_out)
    named = [f"{counts[k]:,} {word}" for k, word in _KIND_WORDS.items() if counts[k]]
    if hint and counts["generated"]:
        named[0] += " (--include-generated keeps them)"
    other = sum(n for k, n in counts.items() if k not in _KIND_WORDS)
    return ", ".join(named + ([f"{other:,} other"] if other else []))


def _explain(
    context: RepositoryContext, path: str, options: DiscoveryOptions, as_json: bool
) -> None:
    verdict = context.explain(path, options)
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
    context = RepositoryContext(Workspace(root))
    if explain_path is not None:
        _explain(context, explain_path, options, as_json)
        return
    # One delayed bar for every phase: a spinner while files are found (and their symbols
    # read), a count once tokens are counted.
    with scan_progress("scanning files", None, enabled=not as_json) as bar:
        result = context.tree(
            options,
            annotate=annotate,
            count_tokens=with_tokens,
            model=model,
            progress=lambda phase, done, total: bar.progress.update(
                bar.task, description=phase, completed=done, total=total
            ),
        )
    found = result.discovery
    tree = result.tree
    text = result.text
    if as_json:
        data: dict[str, Any] = {
            "root": str(found.root),
            "git": found.git,
            "text": text,
            "tree": result.tree_json(),
            "files": len(found.files),
            "excluded": [{"path": e.path, "reason": e.reason} for e in found.excluded],
            "problems": list(result.problems),
        }
        if result.tokens is not None:
            data["tokens"] = tree.tokens
            data["tokenizer"] = result.tokenizer
        print_json(data)
        return
    console.out(printable(text), end="", highlight=False)
    for problem in result.problems:
        err_console.print(f"agentprompt: skipped {printable(problem)}", markup=False)
    summary = f"{len(found.files)} files"
    if result.tokens is not None:
        summary += f", {tree.tokens} tokens ({result.tokenizer})"
    summary += f"; {len(found.excluded)} left out"
    generated = generated_summary(found)
    if generated:
        summary += f", {generated}"
    summary += " (see --explain PATH or --json)"
    err_console.print(summary, markup=False, highlight=False)
