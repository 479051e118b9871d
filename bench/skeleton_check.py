"""The names-only parse of Python files on a skeleton (function bodies blanked) against the
whole file's parse, on the repository-map corpus: the same definitions, and what it saves.

Run: ``.venv/bin/python bench/skeleton_check.py [--list FILE]`` (``--list``: a file of
Python paths to check instead, one per line, e.g. an interpreter's standard library).

For every Python file: the names-only walk of the whole file's tree against that of
:func:`agentprompt.repo.symbols.extract_symbols` with ``details=False`` (which parses the
skeleton, or the whole file when the skeleton does not parse cleanly), compared by kind,
name, parent, depth and line. Prints how many files differ (split by whether the whole
file's parse has syntax errors: there the skeleton can read better, as a syntax error inside
a body no longer disturbs what follows), how many skeletons were not used, and the CPU time
of both ways (the skeleton's includes the lexer, which the references need anyway). Exits
1 when a file whose whole parse is clean differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from agentprompt.repo.discovery import discover  # noqa: E402
from agentprompt.repo.symbols import (  # noqa: E402  # noqa: E402
    language_for_path,
    masked_text,
    parser_for,
    skeleton,
    walk_tree,
)
from agentprompt.repo.symbols.extract import _lexed_code, _parsed, extract_symbols  # noqa: E402
from map_bench import _git_corpus  # noqa: E402
from map_corpus import build_corpus  # noqa: E402


def _paths(listing: str | None) -> list[Path]:
    if listing is not None:
        return [Path(line.strip()) for line in Path(listing).read_text().splitlines() if line]
    corpus = build_corpus()
    _git_corpus(corpus)
    return [
        corpus / f.path for f in discover(corpus).files if language_for_path(f.path) == "python"
    ]


def _skeleton_refused(source: bytes) -> bool:
    """Whether ``source`` has a skeleton that the names-only parse did not use."""
    lexed = _lexed_code("python", source)
    if lexed is None or b"\0" in source:
        return False
    if skeleton(source, masked_text(lexed[1], lexed[2])) is source:
        return False
    return _parsed("python", source, lexed)[1] is source


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", help="a file of Python paths to check, one per line")
    args = parser.parse_args()
    python = parser_for("python")
    checked = clean_differ = broken_differ = whole = 0
    whole_cpu = skeleton_cpu = 0.0
    for path in _paths(args.list):
        try:
            source = path.read_bytes()
        except OSError:
            continue
        checked += 1
        start = time.process_time()
        tree = python.parse(source)
        full, _ = walk_tree("python", tree.root_node, source, names_only=True)
        whole_cpu += time.process_time() - start
        start = time.process_time()
        light = extract_symbols(path.name, source, details=False)
        skeleton_cpu += time.process_time() - start
        if light.problem is not None:
            continue
        whole += _skeleton_refused(source)
        mine = [(s.kind, s.name, s.parent, s.depth, s.line) for s in light.symbols]
        theirs = [(s.kind, s.name, s.parent, s.depth, s.line) for s in full]
        if mine != theirs:
            if tree.root_node.has_error:
                broken_differ += 1
            else:
                clean_differ += 1
                print(f"differs: {path}")
    print(f"{checked} Python files")
    print(f"differ, whole parse clean: {clean_differ}")
    print(f"differ, whole parse with syntax errors: {broken_differ}")
    print(f"skeletons not used (they did not parse cleanly): {whole}")
    print(f"whole-file parse and walk: {whole_cpu:.2f} CPU-s")
    print(f"lexer, skeleton, parse and walk: {skeleton_cpu:.2f} CPU-s")
    sys.exit(1 if clean_differ else 0)


if __name__ == "__main__":
    main()
