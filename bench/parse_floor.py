"""How long tree-sitter's parse alone takes on the repository-map corpus: the floor under a
cold map (issue #3), measured in one process with the project's own parsers.

Run: ``.venv/bin/python bench/parse_floor.py`` (builds the corpus like ``map_bench.py``).
Prints the CPU seconds of ``parser.parse`` per language and in all, the slowest files, and
how much of it went to files with syntax errors; then the parse as a map makes it, where a
Python file is parsed as its skeleton (function bodies blanked,
``agentprompt.repo.symbols._skeletons``; the whole file when the skeleton has errors).
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from agentprompt.repo.discovery import discover  # noqa: E402
from agentprompt.repo.symbols import language_for_path  # noqa: E402
from agentprompt.repo.symbols.extract import _lexed_code, _parsed, parser_for  # noqa: E402
from map_bench import _git_corpus  # noqa: E402
from map_corpus import build_corpus  # noqa: E402


def main() -> None:
    corpus = build_corpus()
    _git_corpus(corpus)
    paths = [f.path for f in discover(corpus).files if language_for_path(f.path)]
    per_language: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    slowest: list[tuple[float, int, str]] = []
    for path in paths:
        language = language_for_path(path)
        assert language is not None
        source = (corpus / path).read_bytes()
        parser = parser_for(language)
        start = time.process_time()
        tree = parser.parse(source)
        took = time.process_time() - start
        entry = per_language[language]
        entry[0] += 1
        entry[1] += len(source)
        entry[2] += took
        entry[3] += took if tree.root_node.has_error else 0.0
        slowest.append((took, len(source), path))
    total = sum(e[2] for e in per_language.values())
    size = sum(e[1] for e in per_language.values())
    print(f"{len(paths)} code files, {size / 1e6:.1f} MB: parse {total:.2f} CPU-s")
    for language, (files, nbytes, took, broken) in sorted(
        per_language.items(), key=lambda item: -item[1][2]
    ):
        print(
            f"  {language:<11} {int(files):>5} files {nbytes / 1e6:6.1f} MB {took:6.2f} s "
            f"({nbytes / 1e6 / max(took, 1e-9):5.1f} MB/s), files with syntax errors {broken:.2f} s"
        )
    as_mapped = 0.0
    for path in paths:
        language = language_for_path(path)
        assert language is not None
        source = (corpus / path).read_bytes()
        lexed = _lexed_code(language, source) if language == "python" else None
        start = time.process_time()
        _parsed(language, source, lexed)  # the skeleton (and the whole file if it fails)
        as_mapped += time.process_time() - start
    print(f"parse as a map makes it (Python skeletons): {as_mapped:.2f} CPU-s")
    print("slowest files:")
    for took, nbytes, path in sorted(slowest, reverse=True)[:10]:
        print(f"  {took:.3f} s {nbytes:>8} bytes {path}")


if __name__ == "__main__":
    main()
