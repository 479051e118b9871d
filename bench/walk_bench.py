"""How long the definitions walk (:func:`agentprompt.repo.symbols.walk_tree`) takes on
the repository-map corpus, in full and names-only, with the parse kept out of the timing
(issue #3: a cold map ranks files by their defined names alone).

Run: ``.venv/bin/python bench/walk_bench.py`` times both walks (CPU seconds, median of 3
rounds, interleaved). ``--dump FILE`` writes every file's full walk as JSON (made once with
the code to compare against); ``--check FILE`` then verifies that the full walk still gives
exactly that output on every file, and that the names-only walk gives the same definitions
as the full one (kind, name, line, end_line, parent, depth).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tree_sitter import Node, Tree

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from agentprompt.repo.discovery import discover  # noqa: E402
from agentprompt.repo.symbols import (  # noqa: E402
    SymbolEntry,
    language_for_path,
    parser_for,
    walk_tree,
)
from agentprompt.repo.symbols.extract import _CPP_MARKERS  # noqa: E402
from map_bench import _git_corpus  # noqa: E402
from map_corpus import build_corpus  # noqa: E402

Parsed = tuple[str, str, Tree, bytes]
"""One corpus file: path, language, syntax tree and bytes."""


def _language(path: str, source: bytes) -> str | None:
    """The language ``extract_symbols`` reads ``path`` as, None for files it does not walk
    (binary, not UTF-8, or no grammar)."""
    language = language_for_path(path)
    if language is None or b"\x00" in source[:8192]:
        return None
    if not source.isascii():
        try:
            source.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if language == "c" and path.endswith(".h") and _CPP_MARKERS.search(source):
        return "cpp"
    return language


def parse_corpus() -> list[Parsed]:
    """Every code file of the map corpus, parsed once."""
    corpus = build_corpus()
    _git_corpus(corpus)
    parsed: list[Parsed] = []
    for found in discover(corpus).files:
        if language_for_path(found.path) is None:
            continue
        source = (corpus / found.path).read_bytes()
        language = _language(found.path, source)
        if language is not None:
            parsed.append((found.path, language, parser_for(language).parse(source), source))
    return parsed


def _walk_all(parsed: list[Parsed], names_only: bool) -> float:
    """CPU seconds one walk of every file takes."""
    gc.collect()
    start = time.process_time()
    if not names_only:  # called as the code before the names-only walk could be
        for _path, language, tree, source in parsed:
            walk_tree(language, tree.root_node, source)
    else:
        for _path, language, tree, source in parsed:
            walk_tree(language, tree.root_node, source, names_only=True)
    return time.process_time() - start


def _full(language: str, root: Node, source: bytes) -> list[Any]:
    """A file's full walk as JSON values."""
    symbols, imports = walk_tree(language, root, source)
    return [[asdict(s) for s in symbols], [asdict(i) for i in imports]]


def _projected(symbols: tuple[SymbolEntry, ...]) -> list[tuple[object, ...]]:
    """What ranking reads of each definition."""
    return [(s.kind, s.name, s.line, s.end_line, s.parent, s.depth) for s in symbols]


def dump(parsed: list[Parsed], into: Path) -> None:
    """Write every file's full walk to ``into``."""
    walks = {
        path: _full(language, tree.root_node, source) for path, language, tree, source in parsed
    }
    into.write_text(json.dumps(walks))
    print(f"wrote the full walk of {len(walks)} files to {into}")


def check(parsed: list[Parsed], reference: Path) -> bool:
    """Whether the full walk equals the ``reference`` dump and the names-only walk its
    projection, on every file; prints each file that differs."""
    expected = json.loads(reference.read_text())
    differ_full = differ_names = 0
    for path, language, tree, source in parsed:
        full = _full(language, tree.root_node, source)
        # JSON turned the tuples into lists: compare through the same round trip.
        if json.loads(json.dumps(full)) != expected.get(path):
            differ_full += 1
            print(f"full walk differs from the reference: {path}")
        symbols, _imports = walk_tree(language, tree.root_node, source)
        names, _none = walk_tree(language, tree.root_node, source, names_only=True)
        if _projected(names) != _projected(symbols):
            differ_names += 1
            print(f"names-only walk differs from the full walk: {path}")
    missing = len(set(expected) - {p for p, *_ in parsed})
    print(
        f"{len(parsed)} files: full walk differs on {differ_full}, names-only on "
        f"{differ_names}; {missing} reference files not in the corpus"
    )
    return differ_full == differ_names == missing == 0


def timing(parsed: list[Parsed], rounds: int, full_only: bool) -> None:
    """Print the median CPU seconds of the full and the names-only walk, interleaved."""
    full: list[float] = []
    names: list[float] = []
    for _ in range(rounds):
        full.append(_walk_all(parsed, names_only=False))
        if not full_only:
            names.append(_walk_all(parsed, names_only=True))
    print(f"{len(parsed)} files: full walk {_seconds(full)}", end="")
    print(f", names-only {_seconds(names)}" if names else "")


def _seconds(times: list[float]) -> str:
    """The median of ``times`` and each of them."""
    each = " ".join(f"{t:.3f}" for t in times)
    return f"{statistics.median(times):.3f} CPU-s ({each})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path, help="write the full walk of every file here")
    parser.add_argument("--check", type=Path, help="compare with a dump made by --dump")
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds (median)")
    parser.add_argument(
        "--full-only", action="store_true", help="time the full walk alone (code before #3)"
    )
    args = parser.parse_args()
    start = time.process_time()
    parsed = parse_corpus()
    print(f"parsed {len(parsed)} files in {time.process_time() - start:.2f} CPU-s (not timed)")
    if args.dump:
        dump(parsed, args.dump)
    elif args.check:
        if not check(parsed, args.check):
            raise SystemExit(1)
    else:
        timing(parsed, args.rounds, args.full_only)


if __name__ == "__main__":
    main()
